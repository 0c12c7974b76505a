/*
 * test_device - device selectors and the default-device ranking, on
 * hand-made device lists (no OpenCL involved), then a real enumeration,
 * and two threads listing devices and running workloads on ref at once.
 *
 * The synthetic list:
 *   0 ref      the host reference
 *   1 ocl:0.0  NVIDIA GeForce RTX 3060  GPU   28 CU x 1777 MHz
 *   2 ocl:0.1  NVIDIA GeForce RTX 4090  GPU  128 CU x 2520 MHz
 *   3 ocl:1.0  PoCL pthread CPU         CPU  256 CU x 4000 MHz (largest
 *              product, but a CPU: it must still lose to both GPUs)
 *   4 ocl:1.1  PoCL basic CPU           CPU    1 CU x 4000 MHz
 *   5 ocl:2.0  FPGA emulation device    ACCELERATOR
 */
#include "check.h"

#include <pthread.h>

#define MAX_SELECTED 16

static void make_ref(ck_device *device) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "ref");
  device->backend = CK_BACKEND_REF;
  device->kind = CK_KIND_HOST;
  snprintf(device->name, sizeof device->name,
           "reference (serial C on the host)");
  snprintf(device->vendor, sizeof device->vendor, "clkit");
  snprintf(device->platform, sizeof device->platform, "host");
  snprintf(device->platform_version, sizeof device->platform_version,
           "clkit 0.0.0");
  device->compute_units = 1;
  device->platform_index = -1;
  device->device_index = -1;
}

static void make_opencl(ck_device *device, int platform_index, int device_index,
                        ck_device_kind kind, const char *name,
                        const char *vendor, const char *platform,
                        const char *platform_version, unsigned compute_units,
                        unsigned clock_mhz) {
  memset(device, 0, sizeof *device);
  snprintf(device->id, sizeof device->id, "ocl:%d.%d", platform_index,
           device_index);
  device->backend = CK_BACKEND_OPENCL;
  device->kind = kind;
  snprintf(device->name, sizeof device->name, "%s", name);
  snprintf(device->vendor, sizeof device->vendor, "%s", vendor);
  snprintf(device->platform, sizeof device->platform, "%s", platform);
  snprintf(device->platform_version, sizeof device->platform_version, "%s",
           platform_version);
  device->compute_units = compute_units;
  device->clock_mhz = clock_mhz;
  device->platform_index = platform_index;
  device->device_index = device_index;
}

static ck_device synthetic_devices[6];
static ck_device_set synthetic;

static void build_synthetic(void) {
  static const char nvidia_platform[] = "NVIDIA CUDA";
  static const char nvidia_version[] = "OpenCL 3.0 CUDA 12.4.131";
  static const char pocl_platform[] = "Portable Computing Language";
  static const char pocl_version[] =
      "OpenCL 3.0 PoCL 5.0  Linux, Release, RELOC, LLVM 17.0.6, SLEEF";
  make_ref(&synthetic_devices[0]);
  make_opencl(&synthetic_devices[1], 0, 0, CK_KIND_GPU,
              "NVIDIA GeForce RTX 3060", "NVIDIA Corporation", nvidia_platform,
              nvidia_version, 28, 1777);
  make_opencl(&synthetic_devices[2], 0, 1, CK_KIND_GPU,
              "NVIDIA GeForce RTX 4090", "NVIDIA Corporation", nvidia_platform,
              nvidia_version, 128, 2520);
  make_opencl(&synthetic_devices[3], 1, 0, CK_KIND_CPU,
              "pthread-haswell-Intel(R) Xeon(R) Gold 6338", "GenuineIntel",
              pocl_platform, pocl_version, 256, 4000);
  make_opencl(&synthetic_devices[4], 1, 1, CK_KIND_CPU,
              "basic-haswell-Intel(R) Xeon(R) Gold 6338", "GenuineIntel",
              pocl_platform, pocl_version, 1, 4000);
  make_opencl(&synthetic_devices[5], 2, 0, CK_KIND_ACCELERATOR,
              "Intel(R) FPGA Emulation Device", "Intel(R) Corporation",
              "Intel(R) FPGA Emulation Platform for OpenCL(TM)",
              "OpenCL 1.2 Intel(R) FPGA SDK for OpenCL(TM), Version 20.3", 8,
              1000);
  synthetic.devices = synthetic_devices;
  synthetic.count = 6;
  synthetic.opencl_status = CK_OK;
  synthetic.opencl_message[0] = '\0';
}

/* ---- selectors that succeed ---------------------------------------------- */

typedef struct select_case {
  const char *selector;
  size_t count;
  size_t expected[MAX_SELECTED];
} select_case;

static const select_case good_cases[] = {
    /* every id */
    {"ref", 1, {0}},
    {"ocl:0.0", 1, {1}},
    {"ocl:0.1", 1, {2}},
    {"ocl:1.0", 1, {3}},
    {"ocl:1.1", 1, {4}},
    {"ocl:2.0", 1, {5}},
    /* kinds */
    {"gpu", 2, {1, 2}},
    {"GPU", 2, {1, 2}},
    {"cpu", 2, {3, 4}},
    {"accelerator", 1, {5}},
    {"all", 6, {0, 1, 2, 3, 4, 5}},
    /* whole platforms */
    {"ocl:0", 2, {1, 2}},
    {"ocl:1", 2, {3, 4}},
    {"ocl:2", 1, {5}},
    /* case-insensitive substrings of vendor, platform, version, name */
    {"NVIDIA", 2, {1, 2}},
    {"nvidia", 2, {1, 2}},
    {"nViDiA", 2, {1, 2}},
    {"CUDA 12", 2, {1, 2}}, /* platform version */
    {"PoCL", 2, {3, 4}},    /* only in the platform version */
    {"pocl", 2, {3, 4}},
    {"POCL", 2, {3, 4}},
    {"portable computing", 2, {3, 4}}, /* platform name */
    {"4090", 1, {2}},                  /* device name */
    {"rtx 3060", 1, {1}},
    {"genuineintel", 2, {3, 4}}, /* vendor */
    {"pthread", 1, {3}},
    {"fpga", 1, {5}},
    /* comma lists: term order, each device once */
    {"gpu,ocl:0.0", 2, {1, 2}},
    {"ocl:0.1,gpu", 2, {2, 1}},
    {"ocl:1.0,gpu", 3, {3, 1, 2}},
    {"ocl:0.1,ocl:0.0", 2, {2, 1}},
    {"cpu,ref", 3, {3, 4, 0}},
    {"gpu,ref,ocl:0.0", 3, {1, 2, 0}},
    /* an id given again: its device again (spread members on one device) */
    {"ref,gpu,ref", 4, {0, 1, 2, 0}},
    {"ocl:0.0,OCL:0.0", 2, {1, 1}},
    {"gpu,ocl:0.0,ocl:0.0", 3, {1, 2, 1}},
    {"gpu,nvidia,4090", 2, {1, 2}},
    {"all,gpu", 6, {0, 1, 2, 3, 4, 5}},
    {"fpga,ocl:1", 3, {5, 3, 4}},
    /* whitespace around terms */
    {" gpu", 2, {1, 2}},
    {"gpu ", 2, {1, 2}},
    {"  ocl:1.1 ,\tref ", 2, {4, 0}},
    {" gpu , cpu ", 4, {1, 2, 3, 4}},
    /* the default: the top-ranked device, a GPU (the 4090) */
    {"", 1, {2}},
    {"default", 1, {2}},
    {"DEFAULT", 1, {2}},
    {"   ", 1, {2}},
};

static void check_good_cases(void) {
  for (size_t c = 0; c < sizeof good_cases / sizeof good_cases[0]; ++c) {
    const select_case *test = &good_cases[c];
    size_t indices[MAX_SELECTED], count = 999;
    ck_status status = ck_device_select(&synthetic, test->selector, indices,
                                        MAX_SELECTED, &count);
    CHECK_MSG(status == CK_OK, "selector '%s' returned %d", test->selector,
              (int)status);
    if (status != CK_OK)
      continue;
    CHECK_MSG(count == test->count, "selector '%s': %zu matches, want %zu",
              test->selector, count, test->count);
    if (count != test->count)
      continue;
    for (size_t k = 0; k < count; ++k)
      CHECK_MSG(indices[k] == test->expected[k],
                "selector '%s': match %zu is %zu (%s), want %zu (%s)",
                test->selector, k, indices[k], synthetic.devices[indices[k]].id,
                test->expected[k], synthetic.devices[test->expected[k]].id);
  }
  /* NULL is the default too. */
  size_t indices[MAX_SELECTED], count = 0;
  CHECK_OK(ck_device_select(&synthetic, NULL, indices, MAX_SELECTED, &count));
  CHECK(count == 1 && indices[0] == 2);
  /* The default needs only one slot. */
  count = 0;
  CHECK_OK(ck_device_select(&synthetic, NULL, indices, 1, &count));
  CHECK(count == 1 && indices[0] == 2);
  /* Exactly enough room is enough. */
  count = 0;
  CHECK_OK(ck_device_select(&synthetic, "all", indices, 6, &count));
  CHECK(count == 6);
  count = 0;
  CHECK_OK(ck_device_select(&synthetic, "gpu,ocl:0.0", indices, 2, &count));
  CHECK(count == 2);
}

/* ---- selectors that fail ---------------------------------------------------
 */

typedef struct error_case {
  const char *selector;
  size_t capacity;
  ck_status expected;
  const char *message_names; /* text the message must contain, or NULL */
} error_case;

static const error_case error_cases[] = {
    /* terms matching nothing; ref is never matched by a substring */
    {"nosuchdevice", MAX_SELECTED, CK_ERROR_NOT_FOUND, "nosuchdevice"},
    {"host", MAX_SELECTED, CK_ERROR_NOT_FOUND, "host"},
    {"clkit", MAX_SELECTED, CK_ERROR_NOT_FOUND, "clkit"},
    {"reference", MAX_SELECTED, CK_ERROR_NOT_FOUND, "reference"},
    {"serial", MAX_SELECTED, CK_ERROR_NOT_FOUND, "serial"},
    {"ocl:0.2", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl:0.2"},
    {"ocl:3", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl:3"},
    {"ocl:9.0", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl:9.0"},
    /* a platform number is digits only */
    {"ocl:+0", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl:+0"},
    {"ocl:-0", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl:-0"},
    {"ocl: 1", MAX_SELECTED, CK_ERROR_NOT_FOUND, "ocl: 1"},
    {"cuda:0", MAX_SELECTED, CK_ERROR_NOT_FOUND, "cuda:0"},
    {"amd", MAX_SELECTED, CK_ERROR_NOT_FOUND, "amd"},
    {"gpu,nosuch", MAX_SELECTED, CK_ERROR_NOT_FOUND, "nosuch"},
    {"nosuch,gpu", MAX_SELECTED, CK_ERROR_NOT_FOUND, "nosuch"},
    /* empty terms */
    {"gpu,,cpu", MAX_SELECTED, CK_ERROR_INVALID_ARGUMENT, NULL},
    {",", MAX_SELECTED, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"gpu,", MAX_SELECTED, CK_ERROR_INVALID_ARGUMENT, NULL},
    {",gpu", MAX_SELECTED, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"gpu, ,cpu", MAX_SELECTED, CK_ERROR_INVALID_ARGUMENT, NULL},
    /* more matches than room */
    {"all", 5, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"gpu", 1, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"ocl:1.0,gpu", 2, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"ref", 0, CK_ERROR_INVALID_ARGUMENT, NULL},
    {"default", 0, CK_ERROR_INVALID_ARGUMENT, NULL},
};

static void check_error_cases(void) {
  for (size_t c = 0; c < sizeof error_cases / sizeof error_cases[0]; ++c) {
    const error_case *test = &error_cases[c];
    size_t indices[MAX_SELECTED], count = 0;
    ck_error_clear();
    ck_status status = ck_device_select(&synthetic, test->selector, indices,
                                        test->capacity, &count);
    CHECK_MSG(status == test->expected,
              "selector '%s' (capacity %zu) returned %d, want %d",
              test->selector, test->capacity, (int)status, (int)test->expected);
    const char *message = NULL;
    ck_status last = ck_error_get_last(&message);
    CHECK_MSG(last == test->expected,
              "selector '%s': ck_error_get_last gives %d", test->selector,
              (int)last);
    CHECK_MSG(message && *message, "selector '%s': empty message",
              test->selector);
    if (!message)
      continue;
    if (test->message_names)
      CHECK_MSG(strstr(message, test->message_names) != NULL,
                "selector '%s': message does not name '%s': %s", test->selector,
                test->message_names, message);
    if (test->expected == CK_ERROR_NOT_FOUND)
      for (size_t i = 0; i < synthetic.count; ++i)
        CHECK_MSG(strstr(message, synthetic.devices[i].id) != NULL,
                  "selector '%s': message does not list %s: %s", test->selector,
                  synthetic.devices[i].id, message);
  }

  /* Good terms before a trailing empty one do not rescue the selector. */
  size_t indices[MAX_SELECTED], count = 0;
  CHECK(ck_device_select(&synthetic, "ref,gpu,cpu,,", indices, MAX_SELECTED,
                         &count) == CK_ERROR_INVALID_ARGUMENT);

  /* NULL arguments and an empty list. */
  CHECK_INVALID(ck_device_select(NULL, "ref", indices, MAX_SELECTED, &count),
                "ck_device_select: set is NULL");
  CHECK_INVALID(ck_device_select(&synthetic, "ref", NULL, MAX_SELECTED, &count),
                "ck_device_select: indices is NULL");
  CHECK_INVALID(
      ck_device_select(&synthetic, "ref", indices, MAX_SELECTED, NULL),
      "ck_device_select: count is NULL");
  ck_device_set empty = {0};
  CHECK_INVALID(ck_device_select(&empty, NULL, indices, MAX_SELECTED, &count),
                "ck_device_select: set has no devices");
}

/* ---- a list with only ref, as on a machine without OpenCL ------------------
 */

static void check_ref_only(void) {
  ck_device ref;
  make_ref(&ref);
  ck_device_set set = {0};
  set.devices = &ref;
  set.count = 1;
  set.opencl_status = CK_ERROR_NO_PLATFORM;
  snprintf(set.opencl_message, sizeof set.opencl_message,
           "no OpenCL platform found (test hint)");
  size_t indices[4] = {9, 9, 9, 9}, count = 0;
  CHECK_OK(ck_device_select(&set, NULL, indices, 4, &count));
  CHECK(count == 1 && indices[0] == 0);
  CHECK_OK(ck_device_select(&set, "all", indices, 4, &count));
  CHECK(count == 1 && indices[0] == 0);
  CHECK_OK(ck_device_select(&set, "ref", indices, 4, &count));
  CHECK(count == 1 && indices[0] == 0);
  ck_error_clear();
  CHECK(ck_device_select(&set, "gpu", indices, 4, &count) ==
        CK_ERROR_NOT_FOUND);
  const char *message = NULL;
  CHECK(ck_error_get_last(&message) == CK_ERROR_NOT_FOUND);
  CHECK_MSG(message && strstr(message, "ref") != NULL, "%s", message);
  /* The hint of why OpenCL is missing reaches the user too. */
  CHECK_MSG(message && strstr(message, "no OpenCL platform found (test hint)"),
            "%s", message);
}

/* ---- ranking ------------------------------------------------------------ */

static double rank_of(const ck_device *device) {
  double score = -12345;
  CHECK_OK(ck_device_rank(device, &score));
  return score;
}

static void check_ranking(void) {
  /* Kind dominates: GPU > accelerator > CPU > ref, whatever the size. */
  ck_device small_gpu, small_accelerator, huge_cpu, huge_accelerator, ref;
  make_opencl(&small_gpu, 0, 0, CK_KIND_GPU, "tiny gpu", "v", "p", "OpenCL 1.2",
              1, 1);
  make_opencl(&small_accelerator, 0, 1, CK_KIND_ACCELERATOR, "tiny acc", "v",
              "p", "OpenCL 1.2", 1, 1);
  make_opencl(&huge_accelerator, 0, 2, CK_KIND_ACCELERATOR, "huge acc", "v",
              "p", "OpenCL 1.2", 65535, 10000);
  make_opencl(&huge_cpu, 0, 3, CK_KIND_CPU, "huge cpu", "v", "p", "OpenCL 1.2",
              65535, 10000);
  make_ref(&ref);
  double gpu = rank_of(&small_gpu), accelerator = rank_of(&small_accelerator);
  double big_accelerator = rank_of(&huge_accelerator);
  double cpu = rank_of(&huge_cpu), host = rank_of(&ref);
  CHECK_MSG(gpu > big_accelerator, "%g vs %g", gpu, big_accelerator);
  CHECK_MSG(accelerator > cpu, "%g vs %g", accelerator, cpu);
  CHECK_MSG(cpu > host, "%g vs %g", cpu, host);
  CHECK(big_accelerator > accelerator);

  /* Within a kind, compute units times clock decides. */
  CHECK(rank_of(&synthetic_devices[2]) > rank_of(&synthetic_devices[1]));
  CHECK(rank_of(&synthetic_devices[3]) > rank_of(&synthetic_devices[4]));
  ck_device a, b;
  make_opencl(&a, 0, 0, CK_KIND_GPU, "a", "v", "p", "OpenCL 1.2", 40, 1000);
  make_opencl(&b, 0, 1, CK_KIND_GPU, "b", "v", "p", "OpenCL 1.2", 20, 1999);
  CHECK(rank_of(&a) > rank_of(&b)); /* 40000 over 39980 */
  /* Equal products rank equal. */
  make_opencl(&b, 0, 1, CK_KIND_GPU, "b", "v", "p", "OpenCL 1.2", 20, 2000);
  CHECK(rank_of(&a) == rank_of(&b));

  CHECK_INVALID(ck_device_rank(NULL, &(double){0}),
                "ck_device_rank: device is NULL");
  CHECK_INVALID(ck_device_rank(&a, NULL), "ck_device_rank: score is NULL");

  /* The synthetic list in rank order: 4090, 3060, FPGA, big CPU, small
   * CPU, ref. */
  static const size_t order[] = {2, 1, 5, 3, 4, 0};
  for (size_t k = 0; k + 1 < 6; ++k)
    CHECK_MSG(rank_of(&synthetic_devices[order[k]]) >
                  rank_of(&synthetic_devices[order[k + 1]]),
              "%s should outrank %s", synthetic_devices[order[k]].id,
              synthetic_devices[order[k + 1]].id);
}

/* The default choice with ties of kind broken by units x clock. */
static void check_default_tie_break(void) {
  ck_device devices[4];
  ck_device_set set = {0};
  set.devices = devices;
  size_t indices[4], count = 0;

  /* Two GPUs: the second is faster by units x clock although it has
   * fewer units; a CPU with a far larger product must not win. */
  make_ref(&devices[0]);
  make_opencl(&devices[1], 0, 0, CK_KIND_GPU, "gpu a", "v", "p", "OpenCL 3.0",
              40, 1000);
  make_opencl(&devices[2], 0, 1, CK_KIND_GPU, "gpu b", "v", "p", "OpenCL 3.0",
              30, 1500);
  make_opencl(&devices[3], 1, 0, CK_KIND_CPU, "cpu", "v", "q", "OpenCL 3.0",
              1000, 5000);
  set.count = 4;
  CHECK_OK(ck_device_select(&set, NULL, indices, 4, &count));
  CHECK_MSG(count == 1 && indices[0] == 2, "chose %zu", indices[0]);

  /* Swap the products: now the first GPU wins. */
  devices[1].compute_units = 50;
  CHECK_OK(ck_device_select(&set, "default", indices, 4, &count));
  CHECK_MSG(count == 1 && indices[0] == 1, "chose %zu", indices[0]);

  /* Without GPUs the accelerator is next, then the CPU, then ref. */
  devices[1].kind = CK_KIND_CPU;
  devices[2].kind = CK_KIND_ACCELERATOR;
  CHECK_OK(ck_device_select(&set, "", indices, 4, &count));
  CHECK_MSG(count == 1 && indices[0] == 2, "chose %zu", indices[0]);
  /* Among CPUs the larger units x clock (1000 x 5000) wins. */
  devices[2].kind = CK_KIND_CPU;
  CHECK_OK(ck_device_select(&set, "", indices, 4, &count));
  CHECK_MSG(count == 1 && indices[0] == 3, "chose %zu", indices[0]);
  /* Only ref left. */
  set.count = 1;
  CHECK_OK(ck_device_select(&set, "", indices, 4, &count));
  CHECK(count == 1 && indices[0] == 0);
}

static void check_kind_names(void) {
  static const struct {
    ck_device_kind kind;
    const char *name;
  } names[] = {{CK_KIND_HOST, "host"},
               {CK_KIND_CPU, "cpu"},
               {CK_KIND_GPU, "gpu"},
               {CK_KIND_ACCELERATOR, "accelerator"},
               {CK_KIND_OTHER, "other"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char *name = NULL;
    CHECK_OK(ck_device_get_kind_name(names[i].kind, &name));
    CHECK_MSG(name && strcmp(name, names[i].name) == 0, "kind %d: '%s'",
              (int)names[i].kind, name ? name : "(null)");
  }
  const char *name = NULL;
  CHECK_OK(ck_device_get_kind_name((ck_device_kind)77, &name));
  CHECK(name && strcmp(name, "other") == 0);
  CHECK(ck_device_get_kind_name(CK_KIND_GPU, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
}

/* ---- the real list
 * ----------------------------------------------------------- */

static void check_enumerate(void) {
  ck_device_set set;
  memset(&set, 0xa5, sizeof set);
  CHECK_OK(ck_device_enumerate(&set));
  CHECK(set.count >= 1 && set.devices != NULL);
  if (set.count < 1 || !set.devices)
    return;
  const ck_device *ref = &set.devices[0];
  CHECK(strcmp(ref->id, "ref") == 0);
  CHECK(ref->backend == CK_BACKEND_REF);
  CHECK(ref->kind == CK_KIND_HOST);
  CHECK(ref->name[0] != '\0');
  size_t opencl_devices = 0;
  for (size_t i = 1; i < set.count; ++i) {
    const ck_device *device = &set.devices[i];
    CHECK_MSG(device->name[0] != '\0', "%s has no name", device->id);
    CHECK_MSG(device->backend != CK_BACKEND_REF, "%s is a second ref",
              device->id);
    /* Only a native kernel may go past what a kernel declares. */
    CHECK_MSG(device->backend == CK_BACKEND_CUDA
                  ? device->local_memory_opt_in >= device->local_memory
                  : device->local_memory_opt_in == device->local_memory,
              "%s: local memory %llu, opt-in %llu", device->id,
              device->local_memory, device->local_memory_opt_in);
    if (device->backend != CK_BACKEND_OPENCL)
      continue;
    ++opencl_devices;
    int platform = -1, index = -1, used = 0;
    int fields = sscanf(device->id, "ocl:%d.%d%n", &platform, &index, &used);
    CHECK_MSG(fields == 2 && (size_t)used == strlen(device->id) &&
                  platform >= 0 && index >= 0,
              "id '%s' is not ocl:P.D", device->id);
    CHECK_MSG(platform == device->platform_index &&
                  index == device->device_index,
              "id '%s' vs indices %d.%d", device->id, device->platform_index,
              device->device_index);
    CHECK_MSG(device->kind != CK_KIND_HOST, "%s has kind host", device->id);
    for (size_t j = 1; j < i; ++j)
      CHECK_MSG(strcmp(set.devices[j].id, device->id) != 0, "%s twice",
                device->id);
    printf("found %s: %s (%s)\n", device->id, device->name, device->platform);
  }
  if (set.opencl_status != CK_OK) {
    CHECK_MSG(set.opencl_message[0] != '\0',
              "opencl_status %d without a message", (int)set.opencl_status);
    CHECK(opencl_devices == 0);
    printf("no OpenCL devices: %s\n", set.opencl_message);
  } else {
    CHECK_MSG(opencl_devices > 0, "opencl_status is CK_OK but no devices");
  }

  /* Selectors on the real list: ref by id, "all" is everything, and the
   * default is a device of the list. */
  size_t *indices = calloc(set.count, sizeof *indices);
  CHECK(indices != NULL);
  if (indices) {
    size_t count = 0;
    CHECK_OK(ck_device_select(&set, "ref", indices, set.count, &count));
    CHECK(count == 1 && indices[0] == 0);
    CHECK_OK(ck_device_select(&set, "all", indices, set.count, &count));
    CHECK(count == set.count);
    CHECK_OK(ck_device_select(&set, NULL, indices, set.count, &count));
    CHECK(count == 1 && indices[0] < set.count);
    if (opencl_devices > 0)
      CHECK_MSG(indices[0] != 0, "the default is ref beside OpenCL devices");
    free(indices);
  }

  CHECK_OK(ck_device_set_free(&set));
  CHECK(set.devices == NULL && set.count == 0);
  CHECK_OK(ck_device_set_free(&set)); /* twice is harmless */
  ck_device_set zeroed = {0};
  CHECK_OK(ck_device_set_free(&zeroed));
  CHECK_OK(ck_device_set_free(NULL));
  CHECK(ck_device_enumerate(NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* A CUDA device beside the same card's OpenCL device: "cuda" and
 * "opencl" pick backends, and the default prefers CUDA on a tie. */
static void check_cuda_selection(void) {
  ck_device devices[3];
  ck_device_set set = {0};
  make_ref(&devices[0]);
  make_opencl(&devices[1], 0, 0, CK_KIND_GPU, "NVIDIA H100 80GB HBM3",
              "NVIDIA Corporation", "NVIDIA CUDA", "OpenCL 3.0 CUDA 13.0.84",
              132, 1980);
  devices[2] = devices[1];
  snprintf(devices[2].id, sizeof devices[2].id, "cuda:0");
  devices[2].backend = CK_BACKEND_CUDA;
  snprintf(devices[2].platform, sizeof devices[2].platform, "CUDA");
  set.devices = devices;
  set.count = 3;
  static const select_case cases[] = {
      {"cuda", 1, {2}},           {"CUDA:0", 1, {2}}, {"opencl", 1, {1}},
      {"gpu", 2, {1, 2}},         {"", 1, {2}},       {"h100", 2, {1, 2}},
      {"opencl,cuda", 2, {1, 2}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    size_t indices[MAX_SELECTED], count = 0;
    ck_status status = ck_device_select(&set, cases[c].selector, indices,
                                        MAX_SELECTED, &count);
    CHECK_MSG(status == CK_OK && count == cases[c].count,
              "selector '%s': status %d, %zu matches", cases[c].selector,
              (int)status, count);
    for (size_t k = 0; status == CK_OK && k < count && k < cases[c].count; ++k)
      CHECK_MSG(indices[k] == cases[c].expected[k], "selector '%s': match %zu",
                cases[c].selector, k);
  }
  size_t indices[MAX_SELECTED], count = 0;
  set.count = 2; /* no CUDA device: "cuda" matches nothing, and says so */
  CHECK(ck_device_select(&set, "cuda", indices, MAX_SELECTED, &count) ==
        CK_ERROR_NOT_FOUND);
}

/* ---- threads ------------------------------------------------------------ */

/* What one thread does, twice at once and then alone: list the devices,
 * then run small workloads on ref, each with objects of its own. The
 * contract (docs/architecture.md) says that gives what one thread gets. */
typedef struct thread_work {
  uint64_t seed;
  size_t device_count;
  char device_ids[8][32];
  ck_status status;
  char message[512];
  double best[3];
} thread_work;

static void *do_thread_work(void *argument) {
  thread_work *work = argument;
  static const char *const names[3] = {"pso", "ga", "gas"};
  static const ck_param pso[] = {
      {"particles", "32"}, {"iters", "40"}, {"dim", "4"}, {"fn", "rastrigin"}};
  static const ck_param ga[] = {
      {"islands", "2"}, {"island-size", "32"}, {"gens", "20"}, {"dim", "4"}};
  static const ck_param gas[] = {{"particles", "64"}, {"steps", "20"}};
  static const ck_param *const params[3] = {pso, ga, gas};
  static const size_t counts[3] = {4, 4, 2};
  ck_device_set set = {0};
  const char *message = "";
  ck_run_options options = {.seed = work->seed};
  work->status = ck_device_enumerate(&set);
  for (size_t i = 0; work->status == CK_OK && i < set.count && i < 8; ++i)
    snprintf(work->device_ids[i], sizeof work->device_ids[i], "%s",
             set.devices[i].id);
  work->device_count = set.count;
  for (int w = 0; work->status == CK_OK && w < 3; ++w) {
    const ck_workload *workload = NULL;
    ck_result result = {0};
    work->status = ck_workload_find(names[w], &workload);
    if (work->status == CK_OK)
      work->status = test_workload_run(workload, &set.devices[0], params[w],
                                       counts[w], &options, &result);
    if (work->status == CK_OK)
      work->best[w] = result.best;
    ck_result_release(&result);
  }
  if (work->status != CK_OK) {
    ck_error_get_last(&message);
    snprintf(work->message, sizeof work->message, "%s", message);
  }
  ck_device_set_free(&set);
  return NULL;
}

static void check_threads(void) {
  thread_work together[2], alone[2];
  pthread_t threads[2];
  int started[2] = {0, 0};
  memset(together, 0, sizeof together);
  memset(alone, 0, sizeof alone);
  for (int t = 0; t < 2; ++t)
    together[t].seed = alone[t].seed = (uint64_t)(11 + t);
  for (int t = 0; t < 2; ++t) {
    started[t] =
        pthread_create(&threads[t], NULL, do_thread_work, &together[t]) == 0;
    CHECK_MSG(started[t], "pthread_create failed");
  }
  for (int t = 0; t < 2; ++t)
    if (started[t])
      pthread_join(threads[t], NULL);
  for (int t = 0; t < 2; ++t)
    do_thread_work(&alone[t]);

  for (int t = 0; t < 2; ++t) {
    CHECK_MSG(together[t].status == CK_OK, "thread %d: %s", t,
              together[t].message);
    CHECK_MSG(alone[t].status == CK_OK, "alone %d: %s", t, alone[t].message);
    CHECK_MSG(together[t].device_count == alone[t].device_count,
              "thread %d listed %zu devices, alone %zu", t,
              together[t].device_count, alone[t].device_count);
    for (size_t i = 0; i < alone[t].device_count && i < 8; ++i)
      CHECK_MSG(strcmp(together[t].device_ids[i], alone[t].device_ids[i]) == 0,
                "thread %d device %zu: %s vs %s", t, i,
                together[t].device_ids[i], alone[t].device_ids[i]);
    /* Bit for bit: ref is deterministic for a seed. */
    for (int w = 0; w < 3; ++w)
      CHECK_MSG(
          memcmp(&together[t].best[w], &alone[t].best[w], sizeof(double)) == 0,
          "thread %d workload %d: %.17g beside another, %.17g alone", t, w,
          together[t].best[w], alone[t].best[w]);
  }
  /* Distinct seeds: the threads did not just compute one thing. */
  CHECK(memcmp(&alone[0].best[0], &alone[1].best[0], sizeof(double)) != 0);
}

int main(void) {
  build_synthetic();
  check_good_cases();
  check_cuda_selection();
  check_error_cases();
  check_ref_only();
  check_ranking();
  check_default_tie_break();
  check_kind_names();
  check_enumerate();
  check_threads();
  return CHECK_DONE();
}
