/*
 * test_program.c - runtime kernel builds: source assembly with #line
 * framing, CLKIT_KERNEL_DIR, build-error reports that name the file and
 * line (cl/ for an embedded source, the path read from under
 * CLKIT_KERNEL_DIR), and the binary cache seen through ck_program_build.
 */
#include <CL/cl.h>
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "opencl_device.h"
#include "runtime/runtime.h"
#include "test_support.h"

static char kernel_dir[256];
static char cache_dir[256];
static char copy_dir[256]; /* the embedded sources, one of them broken */

/* Where a message names name of kernel_dir: "<kernel_dir>/name". */
static const char *in_kernel_dir(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", kernel_dir, name);
  return path;
}

static void write_file(const char *directory, const char *name,
                       const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  FILE *file = fopen(path, "w");
  CHECK(file != NULL);
  if (!file)
    return;
  fputs(text, file);
  fclose(file);
}

static int count_entries(const char *directory) {
  DIR *dir = opendir(directory);
  int count = 0;
  if (!dir)
    return 0;
  for (struct dirent *entry; (entry = readdir(dir));)
    count += strstr(entry->d_name, ".ckbin") != NULL;
  closedir(dir);
  return count;
}

static const char good_cl[] =
    "/* a good program */\n"
    "#include \"shared.h\"\n"
    "__kernel void twice(__global int *data) {\n"
    "  data[get_global_id(0)] = doubled(data[get_global_id(0)]);\n"
    "}\n";
static const char shared_h[] =
    "#ifndef SHARED_H\n"
    "#define SHARED_H\n"
    "static inline int doubled(int x) { return 2 * x; }\n"
    "#endif\n";
/* Line 4 has the error. */
static const char broken_cl[] = "/* line 1 */\n"
                                "__kernel void broken(__global int *data) {\n"
                                "  int fine = 1;\n"
                                "  data[0] = fine + undeclared_name;\n"
                                "}\n";
/* The error is on line 2 of the header, included from line 2. */
static const char bad_header_cl[] =
    "/* line 1 */\n"
    "#include \"bad.h\"\n"
    "__kernel void k(__global int *data) { data[0] = 1; }\n";
static const char bad_h[] =
    "/* line 1 */\n"
    "static inline int oops(void) { return not_declared_here; }\n";
static const char missing_include_cl[] = "/* line 1 */\n"
                                         "\n"
                                         "#include \"nowhere.h\"\n";

static void assembly(void) {
  char *text = NULL;
  size_t size = 0;
  unsetenv("CLKIT_KERNEL_DIR");
  CHECK_OK(ck_kernels_assemble("selfcheck", &text, &size));
  if (text) {
    CHECK(size == strlen(text));
    CHECK(strstr(text, "#line 1 \"cl/selfcheck.cl\"") != NULL);
    CHECK(strstr(text, "#line 1 \"cl/ck_philox.h\"") != NULL);
    const char *prelude = strstr(text, "#line 1 \"cl/ck_prelude.h\"");
    CHECK(prelude != NULL);
    CHECK(prelude &&
          strstr(prelude + 1, "#line 1 \"cl/ck_prelude.h\"") == NULL);
    CHECK(strstr(text, "#include \"") == NULL);
    CHECK(strstr(text, "ck_selfcheck_generate") != NULL);
    ck_memory_free(text);
  }
  text = NULL;
  CHECK_OK(ck_kernels_assemble("selfcheck.cl", &text, NULL));
  ck_memory_free(text);
  CHECK(ck_kernels_assemble("no_such_program", &text, NULL) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_kernels_assemble("../etc/passwd", &text, NULL) ==
        CK_ERROR_NOT_FOUND);

  /* The embedded table lists every cl/ file. */
  size_t count = 0;
  int saw_philox = 0, saw_selfcheck = 0;
  CHECK_OK(ck_kernels_count(&count));
  for (size_t i = 0; i < count; ++i) {
    const char *name = NULL, *source = NULL;
    size_t length = 0;
    CHECK_OK(ck_kernels_get(i, &name, &source, &length));
    CHECK(name && source && strlen(source) == length);
    saw_philox |= name && strcmp(name, "ck_philox.h") == 0;
    saw_selfcheck |= name && strcmp(name, "selfcheck.cl") == 0;
  }
  CHECK(saw_philox && saw_selfcheck);
  CHECK(ck_kernels_get(count, NULL, NULL, NULL) == CK_ERROR_NOT_FOUND);

  /* From CLKIT_KERNEL_DIR: the include is inlined and lines map back to
   * the files read, named by their paths (a trailing slash or two on the
   * directory makes no difference). */
  char spelling[300];
  snprintf(spelling, sizeof spelling, "%s//", kernel_dir);
  const char *const directories[] = {kernel_dir, spelling};
  for (size_t i = 0; i < 2; ++i) {
    setenv("CLKIT_KERNEL_DIR", directories[i], 1);
    text = NULL;
    CHECK_OK(ck_kernels_assemble("good", &text, NULL));
    if (text) {
      char expected[600];
      snprintf(expected, sizeof expected, "#line 1 \"%s\"\n",
               in_kernel_dir("shared.h"));
      const char *header = strstr(text, expected);
      snprintf(expected, sizeof expected, "#line 3 \"%s\"\n",
               in_kernel_dir("good.cl"));
      const char *back = strstr(text, expected);
      CHECK_MSG(header != NULL && back != NULL && header < back,
                "CLKIT_KERNEL_DIR=%s:\n%s", directories[i], text);
      CHECK(strstr(text, "\"cl/") == NULL);
      CHECK(strstr(text, "doubled(int x)") != NULL);
      ck_memory_free(text);
    }
  }
  CHECK(ck_kernels_assemble("missing_include", &text, NULL) ==
        CK_ERROR_NOT_FOUND);
  const char *message = "";
  ck_error_get_last(&message);
  char included_from[600];
  snprintf(included_from, sizeof included_from, "(included from %s:3)",
           in_kernel_dir("missing_include.cl"));
  CHECK_MSG(strstr(message, "nowhere.h") && strstr(message, included_from),
            "%s", message);

  /* Compilers that ignore #line report "<kernel>:LINE": mapped back. The
   * assembled bad_header has its #line, a comment, the header's #line,
   * the header's two lines, then the #line back: line 5 is bad.h:2. */
  ck__source_map map = {0};
  CHECK_OK(ck__kernels_assemble_mapped("bad_header", &text, NULL, &map));
  ck_memory_free(text);
  char *mapped = ck__source_map_rewrite(
      &map,
      "<kernel>:5:39: error: x\ninput.cl:2: y\n<kernel>:99: z <kernel>:1:");
  CHECK(mapped != NULL);
  if (mapped) {
    char expected[1200];
    snprintf(expected, sizeof expected, "%s:2:39: error: x\n",
             in_kernel_dir("bad.h"));
    snprintf(
        expected + strlen(expected), sizeof expected - strlen(expected),
        "%s:1: y\n<kernel>:99: z <kernel>:1:", in_kernel_dir("bad_header.cl"));
    CHECK_MSG(strcmp(mapped, expected) == 0, "%s", mapped);
    free(mapped);
  }
  ck__source_map_free(&map);
  unsetenv("CLKIT_KERNEL_DIR");

  /* The embedded sources keep their cl/ names in the map too. */
  CHECK_OK(ck__kernels_assemble_mapped("selfcheck", &text, NULL, &map));
  ck_memory_free(text);
  mapped = ck__source_map_rewrite(&map, "<kernel>:2: w");
  CHECK(mapped != NULL);
  if (mapped) {
    CHECK_MSG(strcmp(mapped, "cl/selfcheck.cl:1: w") == 0, "%s", mapped);
    free(mapped);
  }
  ck__source_map_free(&map);
}

static void expect_build_error(ck_queue *queue, const char *program_name,
                               const char *defines, const char *location) {
  ck_program *program = NULL;
  ck_status status = ck_program_build(queue, program_name, defines, &program);
  CHECK(status == CK_ERROR_BUILD);
  CHECK(program == NULL);
  const char *message = "";
  ck_error_get_last(&message);
  const ck_device *device = NULL;
  ck_queue_get_device(queue, &device);
  CHECK_MSG(strstr(message, program_name) != NULL, "no program name: %s",
            message);
  CHECK_MSG(device && strstr(message, device->id) != NULL, "no device: %s",
            message);
  CHECK_MSG(strstr(message, "-cl-std=CL1.2") != NULL, "no options: %s",
            message);
  CHECK_MSG(strstr(message, location) != NULL, "expected %s in: %s", location,
            message);
}

/* The line of copy_dir/selfcheck.cl that has the syntax error. */
static size_t copy_error_line;

/* Writes every embedded source into copy_dir, selfcheck.cl with a line
 * that is no C appended. */
static void copy_sources(void) {
  size_t count = 0;
  CHECK_OK(ck_kernels_count(&count));
  for (size_t i = 0; i < count; ++i) {
    const char *name = NULL, *text = NULL;
    size_t size = 0;
    CHECK_OK(ck_kernels_get(i, &name, &text, &size));
    if (!name || !text)
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", copy_dir, name);
    FILE *file = fopen(path, "wb");
    CHECK(file != NULL);
    if (!file)
      continue;
    CHECK(fwrite(text, 1, size, file) == size);
    if (strcmp(name, "selfcheck.cl") == 0) {
      size_t lines = 0;
      for (size_t at = 0; at < size; ++at)
        lines += text[at] == '\n';
      if (size > 0 && text[size - 1] != '\n') {
        fputc('\n', file);
        ++lines;
      }
      fputs("this is not OpenCL C;\n", file);
      copy_error_line = lines + 1;
    }
    fclose(file);
  }
  CHECK(copy_error_line > 1);
}

static void builds(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  ck_program_stats stats;
  printf("builds on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  if (!queue)
    return;
  setenv("CLKIT_KERNEL_DIR", kernel_dir, 1);
  unsetenv("CLKIT_CACHE");

  char location[600];
  snprintf(location, sizeof location, "%s:4", in_kernel_dir("broken.cl"));
  expect_build_error(queue, "broken", NULL, location);
  snprintf(location, sizeof location, "%s:2", in_kernel_dir("bad.h"));
  expect_build_error(queue, "bad_header", NULL, location);

  /* A copy of the real sources with a syntax error after the last line
   * of selfcheck.cl: the error names the copy, not cl/. */
  setenv("CLKIT_KERNEL_DIR", copy_dir, 1);
  snprintf(location, sizeof location, "%s/selfcheck.cl:%zu:", copy_dir,
           copy_error_line);
  expect_build_error(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64", location);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "cl/selfcheck.cl") == NULL,
            "the message names cl/selfcheck.cl: %s", message);
  setenv("CLKIT_KERNEL_DIR", kernel_dir, 1);

  /* Where the runtime keeps its own cache of builds (PoCL, unless
   * POCL_KERNEL_CACHE=0), clkit's stays out of its way by default: a
   * build neither stores nor finds an entry. */
  int runtime_caches = ck__device_caches_builds(device);
  const char *pocl_cache = getenv("POCL_KERNEL_CACHE");
  CHECK(runtime_caches ==
        (strstr(device->platform, "Portable Computing Language") != NULL &&
         !(pocl_cache && strcmp(pocl_cache, "0") == 0)));
  int before = count_entries(cache_dir);
  for (int i = 0; i < 2; ++i) {
    CHECK_OK(ck_program_build(queue, "good", "-DBUILT_TWICE=1", &program));
    CHECK_OK(ck_program_query(program, &stats));
    CHECK(stats.runtime_cache == runtime_caches);
    CHECK(stats.from_cache == (i == 1 && !runtime_caches));
    ck_program_destroy(program);
    program = NULL;
  }
  CHECK(count_entries(cache_dir) == before + !runtime_caches);
  /* With PoCL's cache turned off, clkit's takes its place. */
  char *saved_pocl_cache = pocl_cache ? strdup(pocl_cache) : NULL;
  setenv("POCL_KERNEL_CACHE", "0", 1);
  CHECK(ck__device_caches_builds(device) == 0);
  if (saved_pocl_cache)
    setenv("POCL_KERNEL_CACHE", saved_pocl_cache, 1);
  else
    unsetenv("POCL_KERNEL_CACHE");
  free(saved_pocl_cache);
  CHECK(ck__device_caches_builds(device) == runtime_caches);
  printf("  %s: by default builds %s\n", device->id,
         runtime_caches ? "leave caching to the runtime"
                        : "go through clkit's cache");

  /* The rest runs with clkit's cache asked for on every device. */
  setenv("CLKIT_CACHE", "1", 1);

  /* Miss, then hit; neither leaves a failure behind (a miss is none). */
  before = count_entries(cache_dir);
  ck_error_clear();
  CHECK_OK(ck_program_build(queue, "good", NULL, &program));
  CHECK(ck_error_get_last(NULL) == CK_OK);
  CHECK_OK(ck_program_query(program, &stats));
  CHECK(stats.from_cache == 0);
  CHECK(stats.runtime_cache == 0);
  CHECK(strstr(stats.options, "-DCK_HAS_FP64=") != NULL);
  ck_program_destroy(program);
  program = NULL;
  CHECK(count_entries(cache_dir) == before + 1);
  CHECK_OK(ck_program_build(queue, "good", NULL, &program));
  CHECK_OK(ck_program_query(program, &stats));
  CHECK(stats.from_cache == 1);

  /* The cached program really works: it doubles its input. */
  ck_kernel *kernel = NULL;
  ck_buffer *buffer = NULL;
  int data[64];
  for (int i = 0; i < 64; ++i)
    data[i] = i - 20;
  CHECK_OK(ck_kernel_create(program, "twice", &kernel));
  CHECK_OK(ck_buffer_create(queue, sizeof data, &buffer));
  if (kernel && buffer) {
    size_t global = 64;
    CHECK_OK(ck_buffer_write(queue, buffer, 0, sizeof data, data, CK_BLOCKING,
                             NULL));
    CHECK_OK(ck_kernel_set_buffer(kernel, 0, buffer));
    CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, NULL, NULL));
    CHECK_OK(
        ck_buffer_read(queue, buffer, 0, sizeof data, data, CK_BLOCKING, NULL));
    for (int i = 0; i < 64; ++i)
      CHECK(data[i] == 2 * (i - 20));
  }
  ck_kernel_destroy(kernel);
  ck_buffer_destroy(buffer);
  ck_program_destroy(program);
  program = NULL;

  /* Other defines make another entry. */
  CHECK_OK(ck_program_build(queue, "good", "-DUNUSED_FLAG=1", &program));
  ck_program_destroy(program);
  program = NULL;
  CHECK(count_entries(cache_dir) == before + 2);

  /* Corrupt every entry: the build still succeeds, from source. */
  DIR *dir = opendir(cache_dir);
  for (struct dirent *entry; dir && (entry = readdir(dir));) {
    if (!strstr(entry->d_name, ".ckbin"))
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", cache_dir, entry->d_name);
    FILE *file = fopen(path, "r+b");
    if (file) {
      fseek(file, -1, SEEK_END);
      int last = fgetc(file);
      fseek(file, -1, SEEK_END);
      fputc(last ^ 0xFF, file);
      fclose(file);
    }
  }
  if (dir)
    closedir(dir);
  CHECK_OK(ck_program_build(queue, "good", NULL, &program));
  CHECK(ck_error_get_last(NULL) == CK_OK);
  CHECK_OK(ck_program_query(program, &stats));
  CHECK(stats.from_cache == 0);
  ck_program_destroy(program);
  program = NULL;

  /* A cache that cannot be made (its directory under a file) is no
   * failure of the build: it succeeds and leaves no failure behind. */
  char unusable[600];
  snprintf(unusable, sizeof unusable, "%s/good.cl/cache", kernel_dir);
  setenv("CLKIT_CACHE_DIR", unusable, 1);
  ck_error_clear();
  CHECK_OK(ck_program_build(queue, "good", "-DUNCACHED=1", &program));
  CHECK(ck_error_get_last(NULL) == CK_OK);
  ck_program_destroy(program);
  program = NULL;
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);

  /* CLKIT_CACHE=0 neither reads nor writes. */
  size_t removed = 0;
  CHECK_OK(ck_cache_clear(&removed));
  CHECK(count_entries(cache_dir) == 0);
  setenv("CLKIT_CACHE", "0", 1);
  CHECK_OK(ck_program_build(queue, "good", NULL, &program));
  CHECK_OK(ck_program_query(program, &stats));
  CHECK(stats.from_cache == 0);
  CHECK(count_entries(cache_dir) == 0);
  ck_program_destroy(program);
  unsetenv("CLKIT_CACHE");
  unsetenv("CLKIT_KERNEL_DIR");
  ck_queue_destroy(queue);
}

/* Builds text with the plain OpenCL API on device, with options (NULL:
 * none): a program assembled for a device must build as it stands outside
 * clkit. 1 when it built; else the log is printed. */
static int builds_outside_clkit(const ck_device *device, const char *label,
                                const char *text, const char *options) {
  cl_device_id id = (cl_device_id)device->device_handle;
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(NULL, 1, &id, NULL, NULL, &error);
  if (error != CL_SUCCESS) {
    fprintf(stderr, "%s: clCreateContext: %d\n", label, error);
    return 0;
  }
  const char *sources[] = {text};
  cl_program program =
      clCreateProgramWithSource(context, 1, sources, NULL, &error);
  if (error == CL_SUCCESS)
    error = clBuildProgram(program, 1, &id, options, NULL, NULL);
  if (error != CL_SUCCESS && program) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, sizeof log - 1,
                          log, NULL);
    fprintf(stderr, "%s: clBuildProgram: %d\n%.4000s\n", label, error, log);
  }
  if (program)
    clReleaseProgram(program);
  clReleaseContext(context);
  return error == CL_SUCCESS;
}

/* The options line of an assembled-for-device comment, joined: the
 * options clkit gives the program there, then its own defines. */
static void comment_options(const char *text, char *options, size_t size) {
  options[0] = '\0';
  const char *end = strstr(text, " * Each of these defines");
  for (const char *line = text; line && end && line < end;) {
    const char *next = strchr(line, '\n');
    if (next && strncmp(line, " *   ", 5) == 0) {
      size_t used = strlen(options);
      snprintf(options + used, size - used, "%s%.*s", used ? " " : "",
               (int)(next - line - 5), line + 5);
    }
    line = next ? next + 1 : NULL;
  }
}

/* Every OpenCL program of cl/, assembled for the device, builds through
 * the plain OpenCL API with no options, and with the options its comment
 * lists; other names and devices are refused. */
static void assembled_for_device(const ck_device_set *set, long opencl) {
  char *text = NULL;
  const ck_device *ref = &set->devices[0];
  CHECK(ck_kernels_assemble_for_device("selfcheck", ref, &text, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(text == NULL);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ref builds no kernels") != NULL, "%s", message);
  ck_device cuda = {.id = "cuda:0", .backend = CK_BACKEND_CUDA};
  CHECK(ck_kernels_assemble_for_device("selfcheck", &cuda, &text, NULL) ==
        CK_ERROR_UNSUPPORTED);
  /* A device's name cannot end the leading comment. */
  ck_device described = {.id = "ocl:9.9",
                         .backend = CK_BACKEND_OPENCL,
                         .name = "a */ device",
                         .c_version = "OpenCL C 1.2"};
  CHECK_OK(
      ck_kernels_assemble_for_device("selfcheck.cl", &described, &text, NULL));
  const char *closed = text ? strstr(text, "*/") : NULL;
  const char *end = text ? strstr(text, "takes precedence.\n */\n") : NULL;
  CHECK_MSG(text && strstr(text, "ocl:9.9: a * / device\n") && end &&
                closed == end + 19,
            "the comment ends elsewhere:\n%.600s", text ? text : "(none)");
  ck_memory_free(text);
  text = NULL;
  if (opencl < 0)
    return;
  const ck_device *device = &set->devices[opencl];
  /* A CUDA test device builds through NVRTC: assembling is refused. */
  if (device->backend != CK_BACKEND_OPENCL) {
    CHECK(ck_kernels_assemble_for_device("pso.cl", device, &text, NULL) ==
              CK_ERROR_UNSUPPORTED &&
          text == NULL);
    return;
  }
  CHECK(ck_kernels_assemble_for_device("ck_philox.h", device, &text, NULL) ==
        CK_ERROR_NOT_FOUND);
  CHECK(ck_kernels_assemble_for_device("ga.cu", device, &text, NULL) ==
        CK_ERROR_NOT_FOUND);
  CHECK(text == NULL);
  char device_options[1024];
  CHECK_OK(
      ck__device_build_options(device, device_options, sizeof device_options));
  size_t count = 0;
  CHECK_OK(ck_kernels_count(&count));
  int built = 0;
  for (size_t i = 0; i < count; ++i) {
    const char *name = NULL;
    CHECK_OK(ck_kernels_get(i, &name, NULL, NULL));
    size_t length = name ? strlen(name) : 0;
    if (length < 4 || strcmp(name + length - 3, ".cl") != 0)
      continue;
    size_t size = 0;
    CHECK_OK(ck_kernels_assemble_for_device(name, device, &text, &size));
    if (!text)
      continue;
    CHECK(size == strlen(text));
    char options[2048];
    comment_options(text, options, sizeof options);
    CHECK_MSG(strncmp(options, device_options, strlen(device_options)) == 0,
              "%s: the comment's options '%s' do not begin with the "
              "device's '%s'",
              name, options, device_options);
    CHECK_MSG(builds_outside_clkit(device, name, text, NULL),
              "%s assembled for %s does not build with no options", name,
              device->id);
    /* Only the cheapest builds twice: PoCL takes seconds a program. */
    if (strcmp(name, "selfcheck.cl") == 0)
      CHECK_MSG(builds_outside_clkit(device, name, text, options),
                "%s does not build with the options it lists: %s", name,
                options);
    ck_memory_free(text);
    text = NULL;
    ++built;
  }
  CHECK(built >= 8);
  printf("%d programs assembled for %s build outside clkit\n", built,
         device->id);
}

/* Two PoCL CPU devices of one platform: on PoCL 4 and later their builds
 * must differ (PoCL's process-wide table of kernel libraries aborts at
 * exit when two devices share an entry); on PoCL 3 and elsewhere they
 * stay the same, so that the devices share one build. */
static void pocl_devices_build_apart(void) {
  static const struct {
    const char *platform_version;
    int apart;
  } cases[] = {
      {"OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC, LLVM 16", 1},
      {"OpenCL 3.0 PoCL 4.0  Linux, Release, RELOC, LLVM 15", 1},
      {"OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, LLVM 15", 0},
      {"OpenCL 3.0 CUDA 13.0.84", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_device devices[2];
    char options[2][1024];
    for (int d = 0; d < 2; ++d) {
      memset(&devices[d], 0, sizeof devices[d]);
      devices[d].backend = CK_BACKEND_OPENCL;
      devices[d].kind = CK_KIND_CPU;
      snprintf(devices[d].platform_version,
               sizeof devices[d].platform_version, "%s",
               cases[i].platform_version);
      snprintf(devices[d].c_version, sizeof devices[d].c_version,
               "OpenCL C 1.2 pocl");
      devices[d].device_index = d;
      devices[d].warp_width = 1;
      devices[d].max_work_group_size = 4096;
      devices[d].local_memory = 1 << 20;
      CHECK_OK(ck__device_build_options(&devices[d], options[d],
                                        sizeof options[d]));
    }
    int apart = strcmp(options[0], options[1]) != 0;
    CHECK_MSG(apart == cases[i].apart, "%s: '%s' and '%s'",
              cases[i].platform_version, options[0], options[1]);
    /* Only the device's index tells the builds apart. */
    if (cases[i].apart)
      CHECK_MSG(strstr(options[1], "-DCK_POCL_DEVICE=1") != NULL &&
                    strstr(options[0], "-DCK_POCL_DEVICE=0") != NULL,
                "%s", options[1]);
  }
}

int main(void) {
  const char *temporary = getenv("TMPDIR");
  if (!temporary || !*temporary)
    temporary = "/tmp";
  snprintf(kernel_dir, sizeof kernel_dir, "%s/clkit-kernels-XXXXXX", temporary);
  snprintf(cache_dir, sizeof cache_dir, "%s/clkit-cache-XXXXXX", temporary);
  snprintf(copy_dir, sizeof copy_dir, "%s/clkit-copy-XXXXXX", temporary);
  if (!mkdtemp(kernel_dir) || !mkdtemp(cache_dir) || !mkdtemp(copy_dir)) {
    fprintf(stderr, "cannot make temporary directories\n");
    return 1;
  }
  setenv("CLKIT_CACHE_DIR", cache_dir, 1);
  write_file(kernel_dir, "good.cl", good_cl);
  write_file(kernel_dir, "shared.h", shared_h);
  write_file(kernel_dir, "broken.cl", broken_cl);
  write_file(kernel_dir, "bad_header.cl", bad_header_cl);
  write_file(kernel_dir, "bad.h", bad_h);
  write_file(kernel_dir, "missing_include.cl", missing_include_cl);
  copy_sources();

  assembly();
  pocl_devices_build_apart();
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  long opencl = test_opencl_device(&set);
  if (opencl >= 0)
    builds(&set.devices[opencl]);
  assembled_for_device(&set, opencl);
  ck_device_set_free(&set);
  remove_tree(kernel_dir);
  remove_tree(cache_dir);
  remove_tree(copy_dir);
  return CHECK_DONE();
}
