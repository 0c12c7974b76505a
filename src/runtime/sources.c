/*
 * sources.c - kernel sources: the embedded table, CLKIT_KERNEL_DIR for
 * development, and assembly of a program with its headers inlined.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

/* Include depth beyond which we assume a cycle. */
enum { MAX_INCLUDE_DEPTH = 16, MAX_INCLUDED = 64 };

typedef struct text_buffer {
  char *data;
  size_t size;
  size_t capacity;
} text_buffer;

static ck_status append(text_buffer *buffer, const char *text, size_t size) {
  assert(buffer && (text || size == 0) && buffer->size <= buffer->capacity);
  if (buffer->size + size + 1 > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity < buffer->size + size + 1)
      capacity *= 2;
    char *grown = realloc(buffer->data, capacity);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory assembling a kernel source");
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->size, text, size);
  buffer->size += size;
  buffer->data[buffer->size] = '\0';
  return CK_OK;
}

static ck_status appendf(text_buffer *buffer, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static ck_status appendf(text_buffer *buffer, const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  int length = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (length < 0)
    length = 0;
  if ((size_t)length >= sizeof line)
    length = (int)sizeof line - 1;
  return append(buffer, line, (size_t)length);
}

/*
 * Finds a source by file name. With a directory (CLKIT_KERNEL_DIR), reads
 * it from there into *owned (caller frees); otherwise points at the
 * embedded copy.
 */
static ck_status find_source(const char *directory, int directory_length,
                             const char *name, const char **text, size_t *size,
                             char **owned) {
  ck_status status = CK_OK;
  assert(name && text && size && owned &&
         (!directory || directory_length >= 0));
  FILE *file = NULL;
  char *data = NULL;
  *owned = NULL;
  if (strchr(name, '/') || strstr(name, ".."))
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "kernel source '%s': only plain file "
                    "names inside %s are allowed",
                    name, directory ? directory : "cl/");
  if (directory) {
    char path[4096];
    int written = snprintf(path, sizeof path, "%.*s/%s", directory_length,
                           directory, name);
    if (written < 0 || (size_t)written >= sizeof path)
      return ck__fail(CK_ERROR_IO,
                      "kernel source %s in %s (CLKIT_KERNEL_DIR): the path "
                      "is longer than %zu bytes",
                      name, directory, sizeof path - 1);
    file = fopen(path, "rbe");
    if (!file)
      CK_FAIL(errno == ENOENT ? CK_ERROR_NOT_FOUND : CK_ERROR_IO,
              "kernel source %s (CLKIT_KERNEL_DIR): %s", path, strerror(errno));
    if (fseek(file, 0, SEEK_END) != 0)
      CK_FAIL(CK_ERROR_IO, "kernel source %s: cannot seek", path);
    long length = ftell(file);
    if (length < 0 || fseek(file, 0, SEEK_SET) != 0)
      CK_FAIL(CK_ERROR_IO, "kernel source %s: cannot size", path);
    data = malloc((size_t)length + 1);
    if (!data)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory reading %s", path);
    if (fread(data, 1, (size_t)length, file) != (size_t)length)
      CK_FAIL(CK_ERROR_IO, "kernel source %s: short read", path);
    data[length] = '\0';
    fclose(file);
    *owned = data;
    *text = data;
    *size = (size_t)length;
    return CK_OK;
  }
  for (size_t i = 0; i < ck__embedded_source_count; ++i) {
    if (strcmp(ck__embedded_sources[i].name, name) == 0) {
      *text = ck__embedded_sources[i].text;
      *size = ck__embedded_sources[i].size;
      return CK_OK;
    }
  }
  return ck__fail(CK_ERROR_NOT_FOUND, "no kernel source named '%s' in cl/",
                  name);
fail:
  if (file)
    fclose(file);
  free(data);
  return status;
}

typedef struct assembly {
  const char *directory; /* CLKIT_KERNEL_DIR, or NULL for the embedded cl/ */
  int directory_length;  /* without trailing slashes: "/" is 0 */
  text_buffer out;
  char included[MAX_INCLUDED][64];
  size_t included_count;
  ck__source_map *map; /* optional: where each output line came from */
} assembly;

/*
 * The name messages give a source: "cl/NAME" for an embedded one, else
 * the path it was read from, so that an error leads to the file that has
 * it. Quotes, backslashes and control characters become '_', as the name
 * stands in a #line directive. malloc'd; NULL when memory runs out.
 */
static char *shown_name(const assembly *state, const char *name) {
  assert(state && name);
  const char *directory = state->directory ? state->directory : "cl";
  int directory_length = state->directory ? state->directory_length : 2;
  size_t length = (size_t)directory_length + 1 + strlen(name) + 1;
  char *shown = malloc(length);
  if (!shown)
    return NULL;
  snprintf(shown, length, "%.*s/%s", directory_length, directory, name);
  for (char *c = shown; *c; ++c)
    if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
      *c = '_';
  return shown;
}

/* Appends `#line LINE "FILE"`, whatever the length of file. */
static ck_status append_line_directive(text_buffer *buffer, size_t line,
                                       const char *file) {
  ck_status status = appendf(buffer, "#line %zu \"", line);
  if (status == CK_OK)
    status = append(buffer, file, strlen(file));
  if (status == CK_OK)
    status = append(buffer, "\"\n", 2);
  return status;
}

/* Records the origin of the next output line (line 0: a directive). */
static ck_status map_line(assembly *state, const char *file, size_t line) {
  assert(state && file);
  ck__source_map *map = state->map;
  if (!map)
    return CK_OK;
  if (map->line_count == map->line_capacity) {
    size_t capacity = map->line_capacity ? 2 * map->line_capacity : 256;
    ck__line_origin *grown = realloc(map->lines, capacity * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory assembling a kernel source");
    map->lines = grown;
    map->line_capacity = capacity;
  }
  ck__line_origin *origin = &map->lines[map->line_count++];
  size_t length = strlen(file);
  /* A path too long for the map keeps its end, where the file name is. */
  if (length < sizeof origin->file)
    memcpy(origin->file, file, length + 1);
  else
    snprintf(origin->file, sizeof origin->file, "...%s",
             file + length - (sizeof origin->file - 4));
  origin->line = line;
  return CK_OK;
}

/* Recognises a line `#include "name"` and copies name out. */
static int quoted_include(const char *line, size_t length, char *name,
                          size_t capacity) {
  size_t at = 0;
  assert(line && name && capacity > 0);
  while (at < length && (line[at] == ' ' || line[at] == '\t'))
    ++at;
  if (at >= length || line[at] != '#')
    return 0;
  ++at;
  while (at < length && (line[at] == ' ' || line[at] == '\t'))
    ++at;
  if (length - at < 7 || strncmp(line + at, "include", 7) != 0)
    return 0;
  at += 7;
  while (at < length && (line[at] == ' ' || line[at] == '\t'))
    ++at;
  if (at >= length || line[at] != '"')
    return 0;
  size_t start = ++at;
  while (at < length && line[at] != '"')
    ++at;
  if (at >= length || at - start == 0 || at - start >= capacity)
    return 0;
  memcpy(name, line + start, at - start);
  name[at - start] = '\0';
  return 1;
}

static ck_status assemble_file(assembly *state, const char *name, int depth) {
  assert(state && name && depth >= 0);
  ck_status status = CK_OK;
  const char *text = NULL;
  size_t size = 0;
  char *owned = NULL;
  char *shown = NULL;
  if (depth > MAX_INCLUDE_DEPTH)
    return ck__fail(CK_ERROR_PARSE,
                    "kernel source %s: includes nest deeper "
                    "than %d (a cycle?)",
                    name, MAX_INCLUDE_DEPTH);
  if (!(shown = shown_name(state, name)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory assembling a kernel source");
  CK_TRY(find_source(state->directory, state->directory_length, name, &text,
                     &size, &owned));
  CK_TRY(map_line(state, shown, 0));
  CK_TRY(append_line_directive(&state->out, 1, shown));
  size_t line_number = 1;
  for (size_t at = 0; at < size; ++line_number) {
    const char *end = memchr(text + at, '\n', size - at);
    size_t length = end ? (size_t)(end - (text + at)) : size - at;
    char header[64];
    if (quoted_include(text + at, length, header, sizeof header)) {
      int seen = 0;
      for (size_t i = 0; i < state->included_count; ++i)
        seen |= strcmp(state->included[i], header) == 0;
      /* Each header is inlined once, like a guarded include; a template
       * (a name ending in ".inc") is inlined at every include, since the
       * defines before it differ each time. */
      size_t header_length = strlen(header);
      int template =
          header_length > 4 && strcmp(header + header_length - 4, ".inc") == 0;
      if (template) {
        status = assemble_file(state, header, depth + 1);
        if (status != CK_OK) {
          ck__fail_append(" (included from %s:%zu)", shown, line_number);
          goto fail;
        }
      } else if (!seen) {
        if (state->included_count == MAX_INCLUDED)
          CK_FAIL(CK_ERROR_PARSE, "kernel source %s: more than %d headers",
                  shown, MAX_INCLUDED);
        snprintf(state->included[state->included_count++], 64, "%s", header);
        status = assemble_file(state, header, depth + 1);
        if (status != CK_OK) {
          ck__fail_append(" (included from %s:%zu)", shown, line_number);
          goto fail;
        }
      }
      CK_TRY(map_line(state, shown, 0));
      CK_TRY(append_line_directive(&state->out, line_number + 1, shown));
    } else {
      CK_TRY(map_line(state, shown, line_number));
      CK_TRY(append(&state->out, text + at, length));
      CK_TRY(append(&state->out, "\n", 1));
    }
    at += length + 1;
  }
  free(owned);
  free(shown);
  return CK_OK;
fail:
  free(owned);
  free(shown);
  return status;
}

ck_status ck_kernels_assemble(const char *name, char **text, size_t *size) {
  return ck__kernels_assemble_mapped(name, text, size, NULL);
}

ck_status ck__kernels_assemble_mapped(const char *name, char **text,
                                      size_t *size, ck__source_map *map) {
  ck_status status = CK_OK;
  assembly *state = NULL;
  char file[72];
  CK__REQUIRE_IN("ck_kernels_assemble", name);
  CK__REQUIRE_IN("ck_kernels_assemble", text);
  *text = NULL;
  size_t length = strlen(name);
  if (length == 0 || length > 60)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "kernel program name '%s' is empty or too long", name);
  if (strchr(name, '.'))
    snprintf(file, sizeof file, "%s", name);
  else
    snprintf(file, sizeof file, "%s.cl", name);
  state = calloc(1, sizeof *state);
  if (!state)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory assembling %s", file);
  state->map = map;
  /* Read once, so that every file of one program comes from one place. */
  const char *directory = getenv("CLKIT_KERNEL_DIR");
  if (directory && *directory) {
    size_t length = strlen(directory);
    while (length > 0 && directory[length - 1] == '/')
      --length;
    if (length > 4096)
      CK_FAIL(CK_ERROR_IO, "CLKIT_KERNEL_DIR is longer than 4096 bytes");
    state->directory = directory;
    state->directory_length = (int)length;
  }
  CK_TRY(assemble_file(state, file, 0));
  *text = state->out.data;
  if (size)
    *size = state->out.size;
  free(state);
  return CK_OK;
fail:
  if (state)
    free(state->out.data);
  free(state);
  return status;
}

ck_status ck_kernels_count(size_t *count) {
  if (!count)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_kernels_count: NULL count");
  *count = ck__embedded_source_count;
  return CK_OK;
}

ck_status ck_kernels_get(size_t index, const char **name, const char **text,
                         size_t *size) {
  if (index >= ck__embedded_source_count)
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "kernel source %zu: only %zu are embedded", index,
                    ck__embedded_source_count);
  if (name)
    *name = ck__embedded_sources[index].name;
  if (text)
    *text = ck__embedded_sources[index].text;
  if (size)
    *size = ck__embedded_sources[index].size;
  return CK_OK;
}

ck_status ck_memory_free(void *memory) {
  free(memory);
  return CK_OK;
}

void ck__source_map_free(ck__source_map *map) {
  if (!map)
    return;
  free(map->lines);
  memset(map, 0, sizeof *map);
}

/* Whether line (length bytes) is a compiler's error with its place, as
 * "FILE:LINE[:COL]: error: TEXT" (clang, NVIDIA, NVRTC) or "error:
 * FILE:LINE[:COL]: TEXT" (PoCL): appends it to out in the first form. */
static int append_error(text_buffer *out, const char *line, size_t length) {
  assert(out && line);
  static const char error[] = "error: ";
  const size_t marker = sizeof error - 1;
  int leading = length > marker && strncmp(line, error, marker) == 0;
  const char *place = leading ? line + marker : line;
  const char *end = line + length;
  /* The place: a name without blanks, then :LINE and perhaps :COL. */
  const char *colon = place;
  while (colon < end && *colon != ':' && *colon != ' ')
    ++colon;
  if (colon == place || colon >= end || *colon != ':')
    return 0;
  const char *after = colon;
  for (int part = 0; part < 2 && after < end && after[0] == ':' &&
                     after + 1 < end && isdigit((unsigned char)after[1]);
       ++part) {
    ++after;
    while (after < end && isdigit((unsigned char)*after))
      ++after;
  }
  if (after == colon || after + 1 >= end || after[0] != ':' || after[1] != ' ')
    return 0;
  const char *text = after + 2;
  if (!leading) {
    if ((size_t)(end - text) <= marker || strncmp(text, error, marker) != 0)
      return 0;
    text += marker;
  }
  return append(out, place, (size_t)(after - place)) == CK_OK &&
         append(out, ": error: ", 9) == CK_OK &&
         append(out, text, (size_t)(end - text)) == CK_OK &&
         append(out, "\n", 1) == CK_OK;
}

/* A failed build's message with the compiler's errors, each with its
 * place, first: what the user wrote wrong, before the device, the options
 * and the whole log. NULL when out of memory. */
char *ck__build_errors_first(const char *message) {
  assert(message);
  text_buffer out = {0};
  for (const char *line = message; *line;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    append_error(&out, line, length);
    line += length + (end != NULL);
  }
  if (append(&out, message, strlen(message)) != CK_OK) {
    free(out.data);
    return NULL;
  }
  return out.data;
}

/*
 * Some compilers (NVIDIA's, Oclgrind's) ignore #line and report positions
 * in the assembled text as "<kernel>:LINE" or "input.cl:LINE". Rewrites
 * those into "cl/FILE:LINE" through the map. Returns a malloc'd string,
 * or NULL when out of memory.
 */
char *ck__source_map_rewrite(const ck__source_map *map, const char *log) {
  assert(map && (map->lines || map->line_count == 0) && log);
  static const char *const anonymous[] = {
      "<kernel>:", "<source>:", "input.cl:"};
  text_buffer out = {0};
  const char *at = log;
  while (*at) {
    size_t matched = 0;
    for (size_t i = 0; i < sizeof anonymous / sizeof anonymous[0]; ++i)
      if (strncmp(at, anonymous[i], strlen(anonymous[i])) == 0)
        matched = strlen(anonymous[i]);
    char *end = NULL;
    unsigned long line = matched && isdigit((unsigned char)at[matched])
                             ? strtoul(at + matched, &end, 10)
                             : 0;
    if (line >= 1 && line <= map->line_count && map->lines[line - 1].line) {
      const ck__line_origin *origin = &map->lines[line - 1];
      if (appendf(&out, "%s:%zu", origin->file, origin->line) != CK_OK)
        goto fail;
      at = end;
      continue;
    }
    if (append(&out, at, 1) != CK_OK)
      goto fail;
    ++at;
  }
  if (append(&out, "", 0) != CK_OK)
    goto fail;
  return out.data;
fail:
  free(out.data);
  return NULL;
}

/*
 * Example values of each OpenCL program's own defines, for a build outside
 * clkit (ck_kernels_assemble_for_device). clkit sets its own per run and
 * device; each program's header comment says what the defines mean.
 * tests/test_program.c builds every program of cl/ with these.
 */
static const struct {
  const char *program;
  const char *defines;
} standalone_defines[] = {
    {"aco", "-DCK_GROUP=256 -DCK_ACO_METRIC=CK_TSP_METRIC_EUC_2D "
            "-DCK_ACO_K=10u -DCK_ACO_LANES=1"},
    {"ga", "-DCK_OBJECTIVE=CK_OBJECTIVE_SPHERE -DCK_BOUNDS=CK_BOUNDS_CLAMP "
           "-DCK_GROUP=64 -DCK_DIM=30 -DCK_USER_DATA=0 -DCK_LSQ_LANES=1 "
           "-DCK_GA_TOURNAMENT=2 -DCK_GA_CROSSOVER=CK_GA_CROSSOVER_ARITH "
           "-DCK_GA_MUTATION=CK_GA_MUTATION_GAUSS -DCK_GA_ELITE=1 "
           "-DCK_GA_MIGRANTS=1 -DCK_GA_MIGRATE_GROUP=64 -DCK_GA_RESIDENT=0 "
           "-DCK_GA_ISLAND=64 -DCK_LANES=1 -DCK_REAL_DOUBLE=0"},
    {"gas", "-DCK_GAS_GROUP=64 -DCK_GAS_SCAN_GROUP=256 "
            "-DCK_GAS_MODEL=CK_GAS_MODEL_LENNARD_JONES -DCK_GAS_FORCE_SHIFT=0 "
            "-DCK_GAS_PERIODIC_X=1 -DCK_GAS_PERIODIC_Y=1 -DCK_GAS_TILES=0 "
            "-DCK_GAS_LANES=0 -DCK_GAS_MEMBER=0 -DCK_GAS_WALLS_X=0 "
            "-DCK_GAS_WALLS_Y=0 -DCK_REAL_DOUBLE=0"},
    {"nn", "-DCK_NN_TILE_M=64 -DCK_NN_TILE_N=64 -DCK_NN_BLOCK_M=4 "
           "-DCK_NN_BLOCK_N=4 -DCK_NN_TILE_K=16 -DCK_NN_LOCAL=1 "
           "-DCK_NN_LANES=1 -DCK_NN_DOT_BLOCK=4 -DCK_NN_REDUCE_GROUP=256 "
           "-DCK_REAL_DOUBLE=0"},
    {"objectives", "-DCK_OBJECTIVE=CK_OBJECTIVE_SPHERE -DCK_REAL_DOUBLE=0"},
    {"peak", "-DCK_PEAK_ITERATIONS=1024 -DCK_PEAK_WIDTH=1"},
    {"pso", "-DCK_OBJECTIVE=CK_OBJECTIVE_SPHERE -DCK_BOUNDS=CK_BOUNDS_CLAMP "
            "-DCK_PSO_RING=0 -DCK_GROUP=256 -DCK_DIM=30 -DCK_USER_DATA=0 "
            "-DCK_LSQ_LANES=1 -DCK_LANES=1 -DCK_REAL_DOUBLE=0"},
    {"selfcheck", "-DCK_SELFCHECK_GROUP=256"},
};

/* Appends text with every "*" + "/" split by a blank, so that it cannot
 * end the comment it stands in (a device's name comes from its driver). */
static ck_status append_commented(text_buffer *buffer, const char *text) {
  assert(buffer && text);
  ck_status status = CK_OK;
  for (const char *at = text; *at && status == CK_OK; ++at) {
    status = append(buffer, at, 1);
    if (status == CK_OK && at[0] == '*' && at[1] == '/')
      status = append(buffer, " ", 1);
  }
  return status;
}

/* Appends options as comment lines of at most 76 columns, indented. */
static ck_status append_options_commented(text_buffer *buffer,
                                          const char *options) {
  assert(buffer && options);
  ck_status status = CK_OK;
  size_t column = 0;
  for (const char *at = options; *at && status == CK_OK;) {
    size_t length = strcspn(at, " ");
    if (length > 0) {
      if (column > 0 && column + 1 + length > 76) {
        status = append(buffer, "\n", 1);
        column = 0;
      }
      if (status == CK_OK)
        status =
            column == 0 ? append(buffer, " *   ", 5) : append(buffer, " ", 1);
      if (status == CK_OK)
        status = append(buffer, at, length);
      column += (column == 0 ? 5 : 1) + length;
    }
    at += length;
    at += *at == ' ';
  }
  return status == CK_OK ? append(buffer, "\n", 1) : status;
}

/* Appends each -DNAME[=VALUE] of options as a #define that a build's own
 * -DNAME overrides; other options (-cl-std, -w) are left to the comment. */
static ck_status append_defines(text_buffer *buffer, const char *options) {
  assert(buffer && options);
  ck_status status = CK_OK;
  for (const char *at = options; *at && status == CK_OK;) {
    size_t length = strcspn(at, " ");
    if (length > 2 && strncmp(at, "-D", 2) == 0) {
      const char *name = at + 2;
      const char *equals = memchr(name, '=', length - 2);
      int name_length = (int)(equals ? (size_t)(equals - name) : length - 2);
      const char *value = equals ? equals + 1 : "1";
      int value_length = (int)(equals ? (size_t)(at + length - value) : 1);
      status =
          appendf(buffer, "#ifndef %.*s\n#define %.*s %.*s\n#endif\n",
                  name_length, name, name_length, name, value_length, value);
    }
    at += length;
    at += *at == ' ';
  }
  return status;
}

ck_status ck_kernels_assemble_for_device(const char *name,
                                         const ck_device *device, char **text,
                                         size_t *size) {
  ck_status status = CK_OK;
  text_buffer out = {0};
  char *body = NULL;
  size_t body_size = 0;
  char options[1024];
  CK__REQUIRE(name);
  CK__REQUIRE(device);
  CK__REQUIRE(text);
  *text = NULL;
  size_t length = strlen(name);
  if (length > 3 && strcmp(name + length - 3, ".cl") == 0)
    length -= 3;
  const char *defines = NULL;
  for (size_t i = 0;
       i < sizeof standalone_defines / sizeof standalone_defines[0]; ++i)
    if (strlen(standalone_defines[i].program) == length &&
        strncmp(standalone_defines[i].program, name, length) == 0)
      defines = standalone_defines[i].defines;
  if (!defines)
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "'%s' is not one of clkit's OpenCL programs (aco, ga, "
                    "gas, nn, objectives, peak, pso, selfcheck)",
                    name);
  if (device->backend == CK_BACKEND_REF)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "device %s builds no kernels: ref runs each workload's "
                    "plain C steps",
                    device->id);
  if (device->backend != CK_BACKEND_OPENCL)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "device %s builds clkit's programs through NVRTC, not "
                    "OpenCL: assembling for a device takes an OpenCL one",
                    device->id);
  CK_TRY(ck__device_build_options(device, options, sizeof options));
  CK_TRY(ck__kernels_assemble_mapped(name, &body, &body_size, NULL));
  CK_TRY(appendf(&out,
                 "/*\n * cl/%.*s.cl assembled to build outside clkit, for "
                 "device\n * %s: ",
                 (int)length, name, device->id));
  CK_TRY(append_commented(&out, device->name));
  CK_TRY(appendf(&out, "\n * The options clkit gives it there:\n"));
  CK_TRY(append_options_commented(&out, options));
  CK_TRY(appendf(&out,
                 " * and the program's own defines, whose values here are "
                 "examples (clkit sets\n"
                 " * them per run; the header comment of cl/%.*s.cl says "
                 "what each means):\n",
                 (int)length, name));
  CK_TRY(append_options_commented(&out, defines));
  CK_TRY(appendf(&out, " * Each of these defines is set below, so that the "
                       "source builds with these\n"
                       " * options or with none; a -D given to the build "
                       "takes precedence.\n */\n"));
  CK_TRY(append_defines(&out, options));
  CK_TRY(append_defines(&out, defines));
  CK_TRY(append(&out, body, body_size));
  free(body);
  *text = out.data;
  if (size)
    *size = out.size;
  return CK_OK;
fail:
  free(body);
  free(out.data);
  return status;
}

ck_status ck__device_build_options(const ck_device *device, char *options,
                                   size_t capacity) {
  assert(device && options && capacity > 0);
  /* OpenCL C 1.2 is what every target offers (NVIDIA's included). */
  int has_c12 = strstr(device->c_version, "OpenCL C 1.0") == NULL &&
                strstr(device->c_version, "OpenCL C 1.1") == NULL;
  /* PoCL's compiler writes the count of a build's warnings (a loop it
   * could not unroll as asked, say) to the process's stderr, past the
   * caller: CPU builds inhibit warnings (-w, a standard option). Errors
   * still reach the build log. */
  int inhibit_warnings =
      device->backend == CK_BACKEND_OPENCL && device->kind == CK_KIND_CPU;
  /* PoCL 4 and 5 keep one table of loaded kernel libraries for the
   * process, keyed by the build's hash: two devices that build the same
   * program share an entry, and releasing both trips PoCL's assertion
   * (ref_count > 0) at exit. A define naming the device makes each
   * device's build its own, at the cost of compiling it once a device
   * (docs/kernels.md, "PoCL"). PoCL 3 has no such table. */
  int own_build = ck__device_pocl_major(device) >= 4;
  char device_define[48] = "";
  if (own_build)
    snprintf(device_define, sizeof device_define, " -DCK_POCL_DEVICE=%d",
             device->device_index);
  int written = snprintf(
      options, capacity,
      "%s%s-DCK_DEVICE_GPU=%d -DCK_DEVICE_CPU=%d -DCK_DEVICE_NVIDIA=%d "
      "-DCK_HAS_FP64=%d -DCK_WARP_WIDTH=%u -DCK_MAX_WORK_GROUP=%zu "
      "-DCK_LOCAL_MEMORY=%llu%s",
      has_c12 ? "-cl-std=CL1.2 " : "", inhibit_warnings ? "-w " : "",
      device->kind == CK_KIND_GPU, device->kind == CK_KIND_CPU,
      device->kind == CK_KIND_GPU && strstr(device->vendor, "NVIDIA") != NULL,
      device->has_fp64 ? 1 : 0, device->warp_width, device->max_work_group_size,
      device->local_memory, device_define);
  if (written < 0 || (size_t)written >= capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "build options overflow");
  return CK_OK;
}
