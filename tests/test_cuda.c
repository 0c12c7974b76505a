/*
 * test_cuda.c - the CUDA backend on the first CUDA device: the queue's
 * transfers, fills and timings, and every workload's demo configuration
 * against ref within the workload's own tolerance (the cuBLAS products of
 * the MLP included, in FP32 and TF32); with two CUDA devices, objects on
 * both used in turn from one thread; copies between queues without the
 * host; a gas spread and a GA spread over two members on one GPU (and a
 * GA spread over two GPUs, where two exist), whose ghosts or migrants
 * cross device to device, against the same run through host memory.
 * Without a CUDA device it skips at once, saying why; `test_cuda
 * --compile-only` (the test cuda-compile) compiles every program through
 * NVRTC, device or not. The whole suite also runs on a CUDA device with
 * CLKIT_TEST_DEVICE=cuda:0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ga/ga_internal.h"
#include "gas/gas_internal.h"
#include "runtime/runtime.h"

#if CK_HAVE_CUDA
/* Programs as the CUDA steps build them, with typical defines: compiled
 * through NVRTC for sm_90 where no CUDA device exists (CI has nvcc but no
 * GPU), so that a kernel that does not translate fails here. */
/* A user objective without data, as OpenCL C source: placed before the
 * native steps that call it (pso.cu, ga.cu). */
static const char user_objective[] =
    "float objective(const float *x, int dim) {\n"
    "  float s = 0.0f;\n"
    "  for (int i = 0; i < dim; ++i)\n"
    "    s += x[i] * x[i] - cos(6.2831853f * x[i]);\n"
    "  return s;\n"
    "}\n";

typedef struct {
  const char *name, *defines;
} program_case;

static const program_case programs[] = {
    {"selfcheck", "-DCK_SELFCHECK_GROUP=256"},
    /* clkit peak's kernels: scalars, and CUDA's widest vectors. */
    {"peak", "-DCK_PEAK_WIDTH=1 -DCK_PEAK_ITERATIONS=4096"},
    {"peak", "-DCK_PEAK_WIDTH=4 -DCK_PEAK_ITERATIONS=4096"},
    {"pso", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=0 -DCK_PSO_RING=0 -DCK_GROUP=256 "
            "-DCK_DIM=30 -DCK_USER_DATA=0 -DCK_REAL_DOUBLE=0"},
    {"pso", "-DCK_OBJECTIVE=10 -DCK_BOUNDS=1 -DCK_PSO_RING=1 -DCK_GROUP=256 "
            "-DCK_DIM=4 -DCK_USER_DATA=0 -DCK_REAL_DOUBLE=1"},
    {"pso.cu",
     "-DCK_OBJECTIVE=1 -DCK_BOUNDS=0 -DCK_DIM=30 -DCK_PSO_ROWS=15 "
     "-DCK_PSO_GROUP_ROUNDS=1 -DCK_PSO_MIN_BLOCKS=4 -DCK_REAL_DOUBLE=0"},
    {"pso.cu",
     "-DCK_OBJECTIVE=2 -DCK_BOUNDS=2 -DCK_DIM=7 -DCK_PSO_ROWS=4 "
     "-DCK_PSO_GROUP_ROUNDS=1 -DCK_PSO_MIN_BLOCKS=16 -DCK_REAL_DOUBLE=0"},
    /* Rounds in groups, the last group short, with a second share. */
    {"pso.cu",
     "-DCK_OBJECTIVE=3 -DCK_BOUNDS=1 -DCK_DIM=250 -DCK_PSO_ROWS=16 "
     "-DCK_PSO_GROUP_ROUNDS=3 -DCK_PSO_MIN_BLOCKS=1 -DCK_REAL_DOUBLE=0"},
    {"lsq.cu", "-DCK_DIM=4 -DCK_GROUP=256 -DCK_REAL_DOUBLE=0"},
    {"lsq.cu", "-DCK_DIM=4 -DCK_GROUP=64 -DCK_REAL_DOUBLE=1"},
    {"ga", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=0 -DCK_GROUP=256 -DCK_DIM=32 "
           "-DCK_USER_DATA=0 -DCK_GA_TOURNAMENT=2 -DCK_GA_CROSSOVER=0 "
           "-DCK_GA_MUTATION=0 -DCK_GA_ELITE=1 -DCK_GA_MIGRANTS=2 "
           "-DCK_GA_MIGRATE_GROUP=32 -DCK_GA_RESIDENT=1 -DCK_GA_ISLAND=256 "
           "-DCK_REAL_DOUBLE=0"},
    {"ga.cu", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=0 -DCK_DIM=32 -DCK_GA_TOURNAMENT=2 "
              "-DCK_GA_CROSSOVER=0 -DCK_GA_MUTATION=0 -DCK_GA_ELITE=1 "
              "-DCK_GA_ISLAND=256 -DCK_GA_CLUSTER=1 -DCK_GA_SLOTS=256 "
              "-DCK_GA_BLOCK=256 -DCK_GA_MIGRANTS=2 -DCK_GA_DEFER_REFILLS=0 "
              "-DCK_GA_POOL_STEPS=0 "
              "-DCK_REAL_DOUBLE=0"},
    /* SBX with gaussian mutation: refills after a child's first deferred
     * to the block's queue. */
    {"ga.cu", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=2 -DCK_DIM=32 -DCK_GA_TOURNAMENT=2 "
              "-DCK_GA_CROSSOVER=2 -DCK_GA_MUTATION=0 -DCK_GA_ELITE=1 "
              "-DCK_GA_ISLAND=256 -DCK_GA_CLUSTER=1 -DCK_GA_SLOTS=256 "
              "-DCK_GA_BLOCK=256 -DCK_GA_MIGRANTS=3 -DCK_GA_DEFER_REFILLS=1 "
              "-DCK_GA_POOL_STEPS=0 "
              "-DCK_REAL_DOUBLE=0"},
    /* An island past the 48 KB a kernel may declare (dynamic memory). */
    {"ga.cu", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=0 -DCK_DIM=32 -DCK_GA_TOURNAMENT=2 "
              "-DCK_GA_CROSSOVER=0 -DCK_GA_MUTATION=0 -DCK_GA_ELITE=1 "
              "-DCK_GA_ISLAND=1000 -DCK_GA_CLUSTER=1 -DCK_GA_SLOTS=1000 "
              "-DCK_GA_BLOCK=1024 -DCK_GA_MIGRANTS=2 -DCK_GA_DEFER_REFILLS=0 "
              "-DCK_GA_POOL_STEPS=0 "
              "-DCK_REAL_DOUBLE=0"},
    /* A child crossed in chunks (d > 64), with BLX, bounds and elites. */
    {"ga.cu",
     "-DCK_OBJECTIVE=3 -DCK_BOUNDS=1 -DCK_DIM=100 -DCK_GA_TOURNAMENT=3 "
     "-DCK_GA_CROSSOVER=1 -DCK_GA_MUTATION=1 -DCK_GA_ELITE=2 "
     "-DCK_GA_ISLAND=100 -DCK_GA_CLUSTER=1 -DCK_GA_SLOTS=100 -DCK_GA_BLOCK=128 "
     "-DCK_GA_MIGRANTS=3 -DCK_GA_DEFER_REFILLS=0 -DCK_GA_POOL_STEPS=0 "
     "-DCK_REAL_DOUBLE=0"},
    /* The most genes the native kernel takes (CK_GA_NATIVE_MAX_DIM). */
    {"ga.cu",
     "-DCK_OBJECTIVE=1 -DCK_BOUNDS=2 -DCK_DIM=256 -DCK_GA_TOURNAMENT=2 "
     "-DCK_GA_CROSSOVER=2 -DCK_GA_MUTATION=1 -DCK_GA_ELITE=1 "
     "-DCK_GA_ISLAND=64 -DCK_GA_CLUSTER=1 -DCK_GA_SLOTS=64 -DCK_GA_BLOCK=64 "
     "-DCK_GA_MIGRANTS=2 -DCK_GA_DEFER_REFILLS=0 -DCK_GA_POOL_STEPS=1 "
     "-DCK_REAL_DOUBLE=0"},
    /* Islands spread over a cluster of blocks: two of 1024 slots at
     * d = 32, and three of 400 at d = 100 (chunks, polynomial pools, a
     * last block with fewer slots). */
    {"ga.cu", "-DCK_OBJECTIVE=1 -DCK_BOUNDS=2 -DCK_DIM=32 -DCK_GA_TOURNAMENT=2 "
              "-DCK_GA_CROSSOVER=2 -DCK_GA_MUTATION=0 -DCK_GA_ELITE=1 "
              "-DCK_GA_ISLAND=2048 -DCK_GA_CLUSTER=2 -DCK_GA_SLOTS=1024 "
              "-DCK_GA_BLOCK=1024 -DCK_GA_MIGRANTS=2 -DCK_GA_DEFER_REFILLS=1 "
              "-DCK_GA_POOL_STEPS=0 "
              "-DCK_REAL_DOUBLE=0"},
    {"ga.cu",
     "-DCK_OBJECTIVE=3 -DCK_BOUNDS=1 -DCK_DIM=100 -DCK_GA_TOURNAMENT=3 "
     "-DCK_GA_CROSSOVER=2 -DCK_GA_MUTATION=1 -DCK_GA_ELITE=2 "
     "-DCK_GA_ISLAND=1150 -DCK_GA_CLUSTER=3 -DCK_GA_SLOTS=400 "
     "-DCK_GA_BLOCK=416 -DCK_GA_MIGRANTS=3 -DCK_GA_DEFER_REFILLS=0 "
     "-DCK_GA_POOL_STEPS=1 "
     "-DCK_REAL_DOUBLE=0"},
    {"aco",
     "-DCK_GROUP=256 -DCK_ACO_METRIC=0 -DCK_ACO_K=16u -DCK_ACO_LANES=32"},
    {"aco.cu", "-DCK_ACO_METRIC=5 -DCK_ACO_K=20u -DCK_ACO_CITIES=2392"},
    {"nn", "-DCK_NN_TILE_M=4 -DCK_NN_TILE_N=4 -DCK_NN_BLOCK_M=16 "
           "-DCK_NN_BLOCK_N=16 -DCK_NN_TILE_K=16 -DCK_NN_LOCAL=1 "
           "-DCK_NN_LANES=1 -DCK_NN_DOT_BLOCK=4 "
           "-DCK_NN_REDUCE_GROUP=256 -DCK_REAL_DOUBLE=0"},
    {"gas",
     "-DCK_GAS_GROUP=128 -DCK_GAS_SCAN_GROUP=256 -DCK_GAS_MODEL=0 "
     "-DCK_GAS_PERIODIC_X=1 -DCK_GAS_PERIODIC_Y=1 -DCK_GAS_TILES=1 "
     "-DCK_GAS_LANES=0 -DCK_GAS_MEMBER=0 -DCK_GAS_WALLS_X=0 -DCK_GAS_WALLS_Y=0 "
     "-DCK_GAS_FORCE_SHIFT=0 -DCK_REAL_DOUBLE=0"},
    /* A spread member's OpenCL kernels, which CUDA members run too. */
    {"gas",
     "-DCK_GAS_GROUP=128 -DCK_GAS_SCAN_GROUP=256 -DCK_GAS_MODEL=0 "
     "-DCK_GAS_PERIODIC_X=0 -DCK_GAS_PERIODIC_Y=1 -DCK_GAS_TILES=1 "
     "-DCK_GAS_LANES=0 -DCK_GAS_MEMBER=1 -DCK_GAS_WALLS_X=1 -DCK_GAS_WALLS_Y=0 "
     "-DCK_GAS_FORCE_SHIFT=0 -DCK_REAL_DOUBLE=0"},
    {"gas.cu", "-DCK_GAS_PERIODIC_X=1 -DCK_GAS_PERIODIC_Y=1 "
               "-DCK_GAS_FORCE_SHIFT=0 -DCK_GAS_MEMBER=0 -DCK_GAS_WALLS_X=0 "
               "-DCK_GAS_WALLS_Y=0 "
               "-DCK_GAS_BLOCK=256 "
               "-DCK_GAS_SCAN_THREADS=512 -DCK_GAS_SCAN_ITEMS=8 "
               "-DCK_REAL_DOUBLE=0"},
    /* A member of a grid of boxes: closed along y too, the run's wall at
     * its top. */
    {"gas", "-DCK_GAS_GROUP=128 -DCK_GAS_SCAN_GROUP=256 -DCK_GAS_MODEL=0 "
            "-DCK_GAS_PERIODIC_X=0 -DCK_GAS_PERIODIC_Y=0 -DCK_GAS_TILES=1 "
            "-DCK_GAS_LANES=0 -DCK_GAS_MEMBER=1 -DCK_GAS_WALLS_X=0 "
            "-DCK_GAS_WALLS_Y=2 -DCK_GAS_FORCE_SHIFT=0 -DCK_REAL_DOUBLE=0"},
    {"gas.cu", "-DCK_GAS_PERIODIC_X=0 -DCK_GAS_PERIODIC_Y=0 "
               "-DCK_GAS_FORCE_SHIFT=0 -DCK_GAS_MEMBER=1 -DCK_GAS_WALLS_X=0 "
               "-DCK_GAS_WALLS_Y=2 -DCK_GAS_BLOCK=256 "
               "-DCK_GAS_SCAN_THREADS=512 -DCK_GAS_SCAN_ITEMS=8 "
               "-DCK_REAL_DOUBLE=0"},
    /* A spread member's slab: walls across x, its own member kernels. */
    {"gas.cu", "-DCK_GAS_PERIODIC_X=0 -DCK_GAS_PERIODIC_Y=1 "
               "-DCK_GAS_FORCE_SHIFT=0 -DCK_GAS_MEMBER=1 -DCK_GAS_WALLS_X=1 "
               "-DCK_GAS_WALLS_Y=0 "
               "-DCK_GAS_BLOCK=256 "
               "-DCK_GAS_SCAN_THREADS=512 -DCK_GAS_SCAN_ITEMS=8 "
               "-DCK_REAL_DOUBLE=0"},
};

/* Which GPUs get machine code, which PTX for the driver to compile, and
 * which are left out, by NVRTC's range (75 to 120 here) and the oldest
 * architecture nvcc compiled clkit's own CUDA code for. */
static void check_reach(void) {
  static const struct {
    int architecture, nvrtc_oldest, nvrtc_newest, native_oldest;
    ck__cuda_reach want;
  } cases[] = {
      {90, 75, 120, 75, CK__CUDA_MACHINE_CODE},
      {75, 75, 120, 75, CK__CUDA_MACHINE_CODE},
      {120, 75, 120, 75, CK__CUDA_MACHINE_CODE},
      {121, 75, 120, 75, CK__CUDA_THROUGH_PTX},
      {130, 75, 120, 90, CK__CUDA_THROUGH_PTX},
      {70, 75, 120, 75, CK__CUDA_UNREACHABLE},
      {80, 75, 120, 86, CK__CUDA_UNREACHABLE},
      {61, 50, 90, 75, CK__CUDA_UNREACHABLE},
      /* NVRTC could not say: only the build's own oldest counts. */
      {100, 0, 0, 75, CK__CUDA_MACHINE_CODE},
      {70, 0, 0, 75, CK__CUDA_UNREACHABLE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck__cuda_reach got =
        ck__cuda_reach_of(cases[i].architecture, cases[i].nvrtc_oldest,
                          cases[i].nvrtc_newest, cases[i].native_oldest);
    CHECK_MSG(got == cases[i].want,
              "sm_%d with NVRTC sm_%d to sm_%d and "
              "nvcc from sm_%d: %d, not %d",
              cases[i].architecture, cases[i].nvrtc_oldest,
              cases[i].nvrtc_newest, cases[i].native_oldest, (int)got,
              (int)cases[i].want);
  }
}

/* A cached program whose machine code fails to load for want of device
 * memory is kept, since a build would fail to load as well; one whose
 * image is refused is deleted and built again. A define of its own gives
 * the program a cache entry no other test makes. */
static void check_cache_kept(const ck_device *device) {
  enum { MEMORY_ALLOCATION = 2, INVALID_KERNEL_IMAGE = 200 }; /* cudaError */
  const char *const defines = "-DCK_SELFCHECK_GROUP=64 -DCK_TEST_CACHE_KEPT=1";
  ck_cache_stats cache;
  CHECK_OK(ck_cache_query(&cache));
  if (!cache.enabled) {
    printf("the cache is off: keeping its entries is not checked\n");
    return;
  }
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(device, &queue));
  if (!queue)
    return;
  static const struct {
    int load_fails; /* the next load's error, or 0 */
    ck_status want;
    int from_cache; /* where the build succeeds */
  } steps[] = {
      {0, CK_OK, -1}, /* made, or found: either way cached after */
      {MEMORY_ALLOCATION, CK_ERROR_DEVICE_MEMORY, 0},
      {0, CK_OK, 1},                    /* still there */
      {INVALID_KERNEL_IMAGE, CK_OK, 0}, /* deleted, built again */
      {0, CK_OK, 1},                    /* and stored */
  };
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; ++i) {
    ck_program *program = NULL;
    CHECK_OK(ck__test_control(CK__TEST_CUDA_LOAD_FAILS, steps[i].load_fails));
    ck_status got = ck_program_build(queue, "selfcheck", defines, &program);
    CHECK_MSG(got == steps[i].want, "step %zu: status %d, not %d", i, (int)got,
              (int)steps[i].want);
    CHECK_MSG(ck__test_value(CK__TEST_CUDA_LOAD_FAILS) == 0,
              "step %zu: the switch stayed", i);
    ck_program_stats stats = {0};
    if (program && steps[i].from_cache >= 0) {
      CHECK_OK(ck_program_query(program, &stats));
      CHECK_MSG(stats.from_cache == steps[i].from_cache,
                "step %zu: from the cache %d, not %d", i, stats.from_cache,
                steps[i].from_cache);
    }
    ck_program_destroy(program);
  }
  CHECK_OK(ck__test_control(CK__TEST_CUDA_LOAD_FAILS, 0));
  ck_queue_destroy(queue);
}

/* The native steps that call a user objective (user_objective placed
 * before them): the PSO's step, and the GA's child whole and in chunks
 * (d > 64). */
static const program_case user_programs[] = {
    {"pso.cu", "-DCK_OBJECTIVE=11 -DCK_BOUNDS=0 -DCK_DIM=30 -DCK_PSO_ROWS=15 "
               "-DCK_PSO_GROUP_ROUNDS=1 -DCK_PSO_MIN_BLOCKS=4 "
               "-DCK_REAL_DOUBLE=0"},
    {"ga.cu", "-DCK_OBJECTIVE=11 -DCK_BOUNDS=0 -DCK_DIM=30 "
              "-DCK_GA_TOURNAMENT=2 -DCK_GA_CROSSOVER=0 -DCK_GA_MUTATION=0 "
              "-DCK_GA_ELITE=1 -DCK_GA_ISLAND=256 -DCK_GA_CLUSTER=1 "
              "-DCK_GA_SLOTS=256 -DCK_GA_BLOCK=256 -DCK_GA_MIGRANTS=2 "
              "-DCK_GA_DEFER_REFILLS=1 -DCK_GA_POOL_STEPS=0 "
              "-DCK_REAL_DOUBLE=0"},
    {"ga.cu", "-DCK_OBJECTIVE=11 -DCK_BOUNDS=1 -DCK_DIM=100 "
              "-DCK_GA_TOURNAMENT=3 -DCK_GA_CROSSOVER=2 -DCK_GA_MUTATION=1 "
              "-DCK_GA_ELITE=2 -DCK_GA_ISLAND=100 -DCK_GA_CLUSTER=1 "
              "-DCK_GA_SLOTS=100 -DCK_GA_BLOCK=128 -DCK_GA_MIGRANTS=3 "
              "-DCK_GA_DEFER_REFILLS=0 -DCK_GA_POOL_STEPS=1 "
              "-DCK_REAL_DOUBLE=0"},
};

/* One program for one architecture; prefix: user_objective or NULL. */
static void check_compile(const program_case *program, const char *prefix,
                          int architecture) {
  ck_status status = ck__cuda_compile_check(program->name, prefix,
                                            program->defines, architecture);
  const char *message = "";
  if (status != CK_OK)
    ck_error_get_last(&message);
  CHECK_MSG(status == CK_OK, "sm_%d: %s%s (%s): %s", architecture,
            program->name, prefix ? " with a user objective" : "",
            program->defines, message);
}

static void check_compiles(void) {
  /* sm_90, and the oldest architecture the build serves (sm_75 by
   * default), where the native kernels take their fallbacks for what
   * older GPUs lack (sm_80's integer warp reductions); clusters are sm_90's
   * alone, and the GA asks for them only there. */
  static const int architectures[] = {90, CK_CUDA_OLDEST_ARCHITECTURE};
  for (size_t a = 0; a < sizeof architectures / sizeof architectures[0]; ++a)
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; ++i) {
      const char *name = programs[i].name, *defines = programs[i].defines;
      int native = strstr(name, ".cu") != NULL;
      int clustered = strstr(defines, "CK_GA_CLUSTER=1 ") == NULL &&
                      strcmp(name, "ga.cu") == 0;
      if (architectures[a] < 90 && (!native || clustered))
        continue;
      if (a > 0 && architectures[a] == 90)
        continue;
      check_compile(&programs[i], NULL, architectures[a]);
    }
  for (size_t i = 0; i < sizeof user_programs / sizeof user_programs[0]; ++i)
    check_compile(&user_programs[i], user_objective, 90);
  /* A GPU newer than NVRTC gets PTX of NVRTC's newest architecture. */
  size_t before = ck__test_value(CK__TEST_CUDA_PTX_BUILDS);
  CHECK_OK(
      ck__cuda_compile_check(programs[1].name, NULL, programs[1].defines, 990));
  CHECK_MSG(ck__test_value(CK__TEST_CUDA_PTX_BUILDS) == before + 1,
            "sm_990: %zu programs built as PTX",
            ck__test_value(CK__TEST_CUDA_PTX_BUILDS) - before);
}
#endif

static void check_queue(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_buffer *buffer = NULL, *copy = NULL;
  CHECK_OK(ck_queue_create(device, &queue));
  if (!queue)
    return;
  enum { COUNT = 1000 };
  uint32_t data[COUNT], back[COUNT];
  for (uint32_t i = 0; i < COUNT; ++i)
    data[i] = i * 2654435761u;
  CHECK_OK(ck_buffer_create(queue, sizeof data, &buffer));
  CHECK_OK(ck_buffer_create(queue, sizeof data, &copy));
  if (!buffer || !copy)
    goto done;
  ck_event *event = NULL;
  CHECK_OK(ck_buffer_write(queue, buffer, 0, sizeof data, data, CK_NONBLOCKING,
                           &event));
  CHECK_OK(ck_event_wait(event));
  uint64_t start = 0, end = 0;
  CHECK_OK(ck_event_get_times(event, &start, &end));
  CHECK(end >= start);
  ck_event_destroy(event);
  /* A pattern of unlike bytes from an odd place, then a uniform one. */
  const uint32_t pattern[2] = {0x01020304u, 0xA0B0C0D0u};
  CHECK_OK(ck_buffer_fill(queue, buffer, pattern, sizeof pattern, 8 * 3,
                          8 * 100, NULL));
  const uint8_t zero = 0;
  CHECK_OK(ck_buffer_fill(queue, buffer, &zero, 1, 4 * 900, 4 * 50, NULL));
  CHECK_OK(ck_buffer_copy(queue, copy, 0, buffer, 0, sizeof data, NULL));
  CHECK_OK(
      ck_buffer_read(queue, copy, 0, sizeof back, back, CK_BLOCKING, NULL));
  int wrong = 0;
  for (uint32_t i = 0; i < COUNT; ++i) {
    uint32_t want = data[i];
    if (i >= 6 && i < 206)
      want = pattern[(i - 6) % 2];
    if (i >= 900 && i < 950)
      want = 0;
    wrong += back[i] != want;
  }
  CHECK_MSG(wrong == 0, "%d words differ after fills and a copy", wrong);
  /* A read past the end is refused before it reaches the device. */
  CHECK(ck_buffer_read(queue, copy, 8, sizeof back, back, CK_BLOCKING, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
done:
  ck_buffer_destroy(buffer);
  ck_buffer_destroy(copy);
  ck_queue_destroy(queue);
}

/*
 * Copies from a queue of `from` into a queue of `to` without the host
 * (ck__peer_copy): the copy waits for the write queued before it, and a
 * fill of the source queued after it waits for the copy. On one device,
 * a queue copies to itself too. Misplaced buffers and bytes past an end
 * are refused.
 */
static void check_peer_copy(const ck_device *from, const ck_device *to) {
  ck_queue *queues[2] = {NULL, NULL};
  ck_buffer *buffers[2] = {NULL, NULL};
  ck__peer *peer = NULL;
  enum { COUNT = 1 << 16, AT = 16 };
  static uint32_t data[COUNT], back[COUNT];
  const uint8_t zero = 0;
  CHECK_OK(ck_queue_create(from, &queues[0]));
  CHECK_OK(ck_queue_create(to, &queues[1]));
  CHECK_OK(ck__peer_open(from, to, &peer));
  CHECK_MSG(peer != NULL, "no copies from %s to %s", from->id, to->id);
  if (!queues[0] || !queues[1] || !peer)
    goto done;
  for (uint32_t i = 0; i < COUNT; ++i)
    data[i] = i * 2654435761u + 1;
  for (int q = 0; q < 2; ++q)
    CHECK_OK(ck_buffer_create(queues[q], sizeof data, &buffers[q]));
  if (!buffers[0] || !buffers[1])
    goto done;
  size_t bytes = sizeof data - AT * sizeof *data;
  CHECK_OK(
      ck_buffer_fill(queues[1], buffers[1], &zero, 1, 0, sizeof data, NULL));
  CHECK_OK(ck_buffer_write(queues[0], buffers[0], 0, sizeof data, data,
                           CK_NONBLOCKING, NULL));
  CHECK_OK(ck__peer_copy(peer, queues[1], buffers[1], AT * sizeof *data,
                         queues[0], buffers[0], 0, bytes));
  CHECK_OK(
      ck_buffer_fill(queues[0], buffers[0], &zero, 1, 0, sizeof data, NULL));
  CHECK_OK(ck_buffer_read(queues[1], buffers[1], 0, sizeof back, back,
                          CK_BLOCKING, NULL));
  int wrong = 0;
  for (uint32_t i = 0; i < COUNT; ++i)
    wrong += back[i] != (i < AT ? 0 : data[i - AT]);
  CHECK_MSG(wrong == 0, "%s to %s: %d words differ after a copy", from->id,
            to->id, wrong);
  if (from->device_index == to->device_index) {
    /* A queue to itself, in its own order. */
    CHECK_OK(ck__peer_copy(peer, queues[1], buffers[1], 0, queues[1],
                           buffers[1], AT * sizeof *data, 4 * AT));
    CHECK_OK(ck_buffer_read(queues[1], buffers[1], 0, 4 * AT, back, CK_BLOCKING,
                            NULL));
    CHECK_MSG(memcmp(back, data, 4 * AT) == 0, "%s: a copy to itself", to->id);
  }
  CHECK(ck__peer_copy(peer, queues[1], buffers[0], 0, queues[0], buffers[0], 0,
                      4) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__peer_copy(peer, queues[1], buffers[1], 8, queues[0], buffers[0], 0,
                      sizeof data) == CK_ERROR_INVALID_ARGUMENT);
done:
  ck__peer_close(peer);
  for (int q = 0; q < 2; ++q) {
    ck_buffer_destroy(buffers[q]);
    if (queues[q])
      ck_queue_destroy(queues[q]);
  }
}

/* 1 where CLKIT_PEER is unset, so that a run may set it for the host
 * path; else says that `whose` copies between members are not checked. */
static int peer_unset(const char *whose) {
  const char *setting = getenv("CLKIT_PEER");
  if (setting)
    printf("CLKIT_PEER=%s: %s copies between members not checked\n", setting,
           whose);
  return !setting;
}

/* A gas of Verlet lists, then of cell lists (one tier, then two tiers:
 * CK__TEST_GAS_TIERS_FROM), 200 steps spread over two members on
 * one device (equal slabs), with what crosses between them (cell
 * lists: each step's leavers and ghosts) going device to device
 * (CLKIT_PEER unset; resident, their counts kept on the device) and
 * through host memory (CLKIT_PEER=0; Verlet lists' either way, the
 * first run's ghosts' positions written on a queue beside the member's
 * own, from CK__TEST_GAS_ASIDE_FROM's one particle a member): only
 * the way they travel differs, so positions, velocities and energies
 * agree bit for bit. The order in which a member's device packs its entries
 * (and so appends them) may differ between the runs, but each sort orders a
 * cell's particles by id, so the slots' order depends on the positions
 * alone. */
static void check_gas_peer(const ck_device *device) {
  enum { N = 3000 };
  static double positions[2][2 * N], velocities[2][2 * N];
  ck_gas_observables observed[2], one_tier = {0};
  if (!peer_unset("the gas's"))
    return;
  for (int pass = 0; pass < 3; ++pass) {
    int cells = pass > 0;
    const char *mode = pass == 2   ? "cell lists in two tiers"
                       : pass == 1 ? "cell lists"
                                   : "Verlet lists";
    ck_gas_config c;
    CHECK_OK(ck_gas_config_init(&c));
    c.particles = N;
    c.temperature = 2.0;
    c.neighbors = cells ? CK_GAS_CELLS : CK_GAS_VERLET;
    c.skin = cells ? c.skin : 0.3;
    c.seed = 7;
    ck_device pair[2] = {*device, *device};
    static const double equal[2] = {1, 1};
    ck_spread spread = {
        .devices = pair, .device_count = 2, .shares = equal, .share_count = 2};
    int made = 0;
    for (int host = 0; host < 2; ++host) {
      ck_gas *gas = NULL;
      if (host)
        setenv("CLKIT_PEER", "0", 1);
      CHECK_OK(ck__test_control(CK__TEST_GAS_TIERS_FROM, pass == 2 ? 1 : 0));
      CHECK_OK(ck__test_control(CK__TEST_GAS_ASIDE_FROM, host ? 0 : 1));
      CHECK_OK(ck_gas_create_spread(&spread, &c, &gas));
      CHECK_OK(ck__test_control(CK__TEST_GAS_TIERS_FROM, 0));
      CHECK_OK(ck__test_control(CK__TEST_GAS_ASIDE_FROM, 0));
      unsetenv("CLKIT_PEER");
      if (!gas)
        break;
      int on_devices = ck__gas_spread_on_devices(ck__gas_spread_of(gas));
      /* Verlet lists' messages go through the host either way. */
      CHECK_MSG(on_devices == (cells && !host),
                "%s twice, %s, CLKIT_PEER %s: messages cross %s", device->id,
                mode, host ? "0" : "unset",
                on_devices ? "device to device" : "through the host");
      CHECK_OK(ck_gas_step(gas, 200));
      /* Cell lists device to device: every step resident. */
      uint64_t resident = ck__gas_spread_resident_steps(ck__gas_spread_of(gas));
      CHECK_MSG(resident == (cells && !host ? 200u : 0u),
                "%s twice, %s, CLKIT_PEER %s: %llu resident steps", device->id,
                mode, host ? "0" : "unset", (unsigned long long)resident);
      CHECK_OK(ck_gas_get_particles(gas, positions[host], velocities[host]));
      CHECK_OK(ck_gas_observe(gas, &observed[host]));
      CHECK_OK(ck_gas_destroy(gas));
      made += 1;
    }
    if (made < 2)
      return;
    CHECK_MSG(memcmp(positions[0], positions[1], sizeof positions[0]) == 0 &&
                  memcmp(velocities[0], velocities[1], sizeof velocities[0]) ==
                      0,
              "%s twice, %s: positions or velocities differ between copies "
              "device to device and through the host",
              device->id, mode);
    CHECK_MSG(observed[0].potential == observed[1].potential &&
                  observed[0].kinetic == observed[1].kinetic &&
                  observed[0].pressure == observed[1].pressure &&
                  observed[0].step == 200,
              "%s twice, %s: potential %.17g and %.17g, kinetic %.17g and "
              "%.17g",
              device->id, mode, observed[0].potential, observed[1].potential,
              observed[0].kinetic, observed[1].kinetic);
    printf("gas spread twice on %s, %s: E %.9f, alike device to device and "
           "through the host\n",
           device->id, mode, observed[0].total);
    /* Two tiers sum each particle's pairs in another order: the same
     * run to rounding, which 200 steps grow a little. */
    if (pass == 1)
      one_tier = observed[0];
    if (pass == 2)
      CHECK_MSG(fabs(observed[0].potential - one_tier.potential) <
                        1e-4 * fabs(one_tier.potential) &&
                    fabs(observed[0].kinetic - one_tier.kinetic) <
                        1e-4 * fabs(one_tier.kinetic),
                "%s twice: potential %.9f in two tiers, %.9f in one; kinetic "
                "%.9f and %.9f",
                device->id, observed[0].potential, one_tier.potential,
                observed[0].kinetic, one_tier.kinetic);
  }
}

/*
 * A GA spread over two CUDA devices, or over one given twice (two
 * members, each with a stream and memory of its own on it), migrating
 * every 5 generations on a ring and on random cycles: its migrants cross
 * device to device (CLKIT_PEER unset: a peer copy, or a device copy on
 * one GPU) or through host memory (CLKIT_PEER=0), and the two runs agree
 * bit for bit. On two GPUs the ring's migrations cross them inside the
 * launches too, each member reading its previous one's relay. Where both GPUs
 * are one model (or one GPU), both are the first device's run alone too.
 */
static void check_ga_peer(const ck_device *first, const ck_device *second) {
  if (!peer_unset("the GA's"))
    return;
  ck_ga_config c;
  CHECK_OK(ck_ga_config_init(&c));
  c.function = "rastrigin";
  c.dim = 16;
  c.islands = 64;
  c.island_size = 64;
  c.migrate_every = 5;
  c.seed = 5;
  ck_device pair[2] = {*first, *second};
  static const double equal[2] = {1, 1};
  ck_spread spread = {
      .devices = pair, .device_count = 2, .shares = equal, .share_count = 2};
  int same_model = strcmp(first->name, second->name) == 0;
  int same_device = strcmp(first->id, second->id) == 0;
  for (int topology = CK_GA_RING; topology <= CK_GA_RANDOM; ++topology) {
    c.topology = (ck_ga_topology)topology;
    double best[3] = {0, 0, 0}, genes[3][16];
    int made = 0;
    for (int run = 0; run < 3; ++run) {
      ck_ga *ga = NULL;
      if (run == 1)
        setenv("CLKIT_PEER", "0", 1);
      CHECK_OK(run == 2 ? ck_ga_create(first, &c, &ga)
                        : ck_ga_create_spread(&spread, &c, &ga));
      unsetenv("CLKIT_PEER");
      if (!ga)
        break;
      if (run < 2)
        CHECK_MSG(ck__ga_spread_on_devices(ga) ==
                      (!run && topology == CK_GA_RING),
                  "GA over %s and %s, CLKIT_PEER %s: migrants cross %s",
                  first->id, second->id, run ? "0" : "unset",
                  ck__ga_spread_on_devices(ga) ? "device to device"
                                               : "through the host");
      /* On two GPUs the ring crosses them inside the launches; on one,
       * or through the host, at each migration. */
      int inside = run == 0 && topology == CK_GA_RING && !same_device;
      if (run < 2)
        CHECK_MSG((ck__ga_spread_span(ga) > 1) == inside,
                  "GA over %s and %s, topology %d, CLKIT_PEER %s: rounds of "
                  "up to %u segments",
                  first->id, second->id, topology, run ? "0" : "unset",
                  (unsigned)ck__ga_spread_span(ga));
      CHECK_OK(ck_ga_step(ga, 100));
      CHECK_OK(ck_ga_get_best(ga, &best[run], genes[run]));
      CHECK_OK(ck_ga_destroy(ga));
      made += 1;
    }
    if (made < 3)
      continue;
    CHECK_MSG(best[0] == best[1] &&
                  memcmp(genes[0], genes[1], sizeof genes[0]) == 0,
              "GA over %s and %s, topology %d: %.9g device to device, %.9g "
              "through the host",
              first->id, second->id, topology, best[0], best[1]);
    CHECK_MSG(!same_model || (best[0] == best[2] &&
                              memcmp(genes[0], genes[2], sizeof genes[0]) == 0),
              "GA over %s and %s, topology %d: %.9g spread, %.9g alone",
              first->id, second->id, topology, best[0], best[2]);
    printf("GA spread over %s and %s, topology %d: best %.9g, alike device "
           "to device and through the host\n",
           first->id, second->id, topology, best[0]);
  }
}

/* The self-check's generating kernel on a queue of its own, with two
 * 4 KB buffers set as its first two arguments. */
typedef struct generator {
  ck_queue *queue;
  ck_program *program;
  ck_kernel *kernel;
  ck_buffer *values, *bits;
} generator;

/* Returns 1 when every part was made; generator_close frees what was. */
static int generator_open(const ck_device *device, generator *made) {
  *made = (generator){0};
  CHECK_OK(ck_queue_create(device, &made->queue));
  if (!made->queue)
    return 0;
  CHECK_OK(ck_program_build(made->queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64",
                            &made->program));
  if (made->program)
    CHECK_OK(ck_kernel_create(made->program, "ck_selfcheck_generate",
                              &made->kernel));
  CHECK_OK(ck_buffer_create(made->queue, 4096, &made->values));
  CHECK_OK(ck_buffer_create(made->queue, 4096, &made->bits));
  if (!made->kernel || !made->values || !made->bits)
    return 0;
  CHECK_OK(ck_kernel_set_buffer(made->kernel, 0, made->values));
  CHECK_OK(ck_kernel_set_buffer(made->kernel, 1, made->bits));
  return 1;
}

static void generator_close(generator *made) {
  ck_buffer_destroy(made->values);
  ck_buffer_destroy(made->bits);
  ck_kernel_destroy(made->kernel);
  ck_program_destroy(made->program);
  ck_queue_destroy(made->queue);
}

/* Kernel arguments are checked against the kernel's parameters, as
 * OpenCL checks them: the last left unset, an index past the last and a
 * value of the wrong size are refused, not launched with what lies
 * beyond the arguments given; two dimensions without a local size make
 * a block CUDA takes. */
static void check_kernel_arguments(const ck_device *device) {
  generator made;
  if (!generator_open(device, &made))
    goto done;
  ck_queue *queue = made.queue;
  ck_kernel *kernel = made.kernel;
  uint32_t count = 1024, zero = 0;
  uint64_t wide = 0;
  CHECK_OK(ck_kernel_set_value(kernel, 2, sizeof count, &count));
  CHECK_OK(ck_kernel_set_value(kernel, 3, sizeof zero, &zero));
  CHECK_OK(ck_kernel_set_value(kernel, 4, sizeof zero, &zero));
  size_t global = 256, local = 64;
  CHECK(ck_queue_launch(queue, kernel, 1, &global, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "argument 5 was never set"), "%s", message);
  CHECK(ck_kernel_set_value(kernel, 6, sizeof zero, &zero) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_kernel_set_value(kernel, 5, sizeof wide, &wide) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ck_kernel_set_value(kernel, 5, sizeof zero, &zero));
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, &local, NULL));
  size_t square[2] = {512, 512};
  CHECK_OK(ck_queue_launch(queue, kernel, 2, square, NULL, NULL));
  CHECK_OK(ck_queue_finish(queue));
done:
  generator_close(&made);
}

/* A queue sums its launches' device time as they end, not only at a
 * finish: a launch waited for by a blocking read counts within the next
 * few launches. Launches past the pool's 4096 count by the finish after
 * them. */
static void check_kernel_times(const ck_device *device) {
  generator made;
  double waited = -1, next = -1, finished = -1;
  uint32_t count = 1024, zero = 0, word = 0;
  size_t global = 256, local = 64;
  if (!generator_open(device, &made))
    goto done;
  ck_queue *queue = made.queue;
  CHECK_OK(ck_kernel_set_value(made.kernel, 2, sizeof count, &count));
  for (unsigned k = 3; k <= 5; ++k)
    CHECK_OK(ck_kernel_set_value(made.kernel, k, sizeof zero, &zero));
  CHECK_OK(ck_queue_launch(queue, made.kernel, 1, &global, &local, NULL));
  CHECK_OK(ck_buffer_read(queue, made.values, 0, sizeof word, &word,
                          CK_BLOCKING, NULL));
  CHECK_OK(ck_queue_get_kernel_seconds(queue, &waited));
  /* Ended launches are summed every few launches (8 in queue_cuda.c). */
  for (int k = 0; k < 8 && !(next > 0); ++k) {
    CHECK_OK(ck_queue_launch(queue, made.kernel, 1, &global, &local, NULL));
    CHECK_OK(ck_queue_get_kernel_seconds(queue, &next));
  }
  CHECK_MSG(waited == 0 && next > 0,
            "kernel seconds %g once waited for, %g within 8 launches", waited,
            next);
  ck_status launched = CK_OK;
  for (int k = 0; k < 5000 && launched == CK_OK; ++k)
    launched = ck_queue_launch(queue, made.kernel, 1, &global, &local, NULL);
  CHECK_OK(launched);
  CHECK_OK(ck_queue_finish(queue));
  CHECK_OK(ck_queue_get_kernel_seconds(queue, &finished));
  CHECK_MSG(finished > next && finished < 60, "kernel seconds %g after %g",
            finished, next);
done:
  generator_close(&made);
}

/* A fault in a kernel loses the context, and every error after it says
 * so: the one that reports the fault and those of later calls. Run last:
 * nothing runs on the device after it. */
static void check_context_lost(const ck_device *device) {
  generator made;
  ck_buffer *after = NULL;
  const char *message = "";
  const char *const lost = "CUDA context is lost";
  if (!generator_open(device, &made))
    goto done;
  /* A count far past the 4 KB buffers: the work-items write gigabytes
   * beyond them, into memory never allocated. */
  uint32_t count = 0xFFFFFFFFu, zero = 0;
  CHECK_OK(ck_kernel_set_value(made.kernel, 2, sizeof count, &count));
  for (unsigned i = 3; i < 6; ++i)
    CHECK_OK(ck_kernel_set_value(made.kernel, i, sizeof zero, &zero));
  size_t global = (size_t)1 << 28, local = 256;
  ck_status launched =
      ck_queue_launch(made.queue, made.kernel, 1, &global, &local, NULL);
  ck_status finished = ck_queue_finish(made.queue);
  ck_status fault = launched != CK_OK ? launched : finished;
  ck_error_get_last(&message);
  CHECK_MSG(fault == CK_ERROR_DEVICE && strstr(message, lost),
            "the fault: status %d, %s", (int)fault, message);
  CHECK(ck_buffer_create(made.queue, 4096, &after) != CK_OK);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, lost), "an allocation after it: %s", message);
  /* A launch that is right in itself fails the same way. */
  count = 1024;
  global = 256;
  CHECK_OK(ck_kernel_set_value(made.kernel, 2, sizeof count, &count));
  ck_error_clear();
  launched = ck_queue_launch(made.queue, made.kernel, 1, &global, &local, NULL);
  finished = ck_queue_finish(made.queue);
  ck_error_get_last(&message);
  CHECK_MSG((launched != CK_OK || finished != CK_OK) && strstr(message, lost),
            "a launch after it: %d and %d, %s", (int)launched, (int)finished,
            message);
done:
  ck_buffer_destroy(after);
  generator_close(&made);
}

/* The workload's demo configuration on ref and on the device. */
static void check_workload(const ck_device_set *set, size_t device_index,
                           const char *name, const ck_param *extra,
                           size_t extra_count) {
  const ck_workload *workload = NULL;
  const ck_param *demo = NULL;
  size_t demo_count = 0;
  CHECK_OK(ck_workload_find(name, &workload));
  if (!workload)
    return;
  CHECK_OK(ck_workload_run_demo(workload, &demo, &demo_count));
  ck_param params[32];
  size_t count = 0;
  for (size_t i = 0; i < demo_count && count < 32; ++i)
    params[count++] = demo[i];
  for (size_t i = 0; i < extra_count && count < 32; ++i)
    params[count++] = extra[i];
  ck_result results[2] = {0};
  size_t produced = 0;
  CHECK_OK(test_compare_run(workload, set, &device_index, 1, 0, params, count,
                            NULL, results, 2, &produced));
  CHECK_MSG(produced == 2, "%s: %zu results", name, produced);
  if (produced != 2) {
    test_results_release(results, 2);
    return;
  }
  CHECK_MSG(results[1].status == CK_OK, "%s on %s: %s", name, results[1].device,
            results[1].error);
  CHECK_MSG(results[1].agrees, "%s on %s: %s %.9g against ref's %.9g", name,
            results[1].device, results[1].best_name, results[1].best,
            results[0].best);
  CHECK_MSG(results[1].kernel_s > 0, "%s: no kernel time counted", name);
  printf("%-10s ref %-14.9g %s %-14.9g agreement %.3g\n", name, results[0].best,
         results[1].device, results[1].best, results[1].agreement);
  test_results_release(results, 2);
}

#if CK_HAVE_CUDA
/* Programs built as PTX, as for a GPU newer than NVRTC, and compiled by
 * the driver when loaded: the self-check, and PSO's native step and its
 * other kernels, still agree with ref. Then the native kernels built as
 * PTX for the build's oldest architecture (sm_75 by default), which take
 * the fallbacks kept for GPUs older than sm_80 (shuffles for the warp's
 * integer reductions), run here and agree with ref too. */
static void check_ptx_programs(const ck_device_set *set, size_t index) {
  size_t before = ck__test_value(CK__TEST_CUDA_PTX_BUILDS);
  CHECK_OK(ck__test_control(CK__TEST_CUDA_AS_PTX, 1));
  ck__build_from_source = 1; /* not a cached build */
  check_workload(set, index, "selfcheck", NULL, 0);
  check_workload(set, index, "pso", NULL, 0);
  CHECK_MSG(ck__test_value(CK__TEST_CUDA_PTX_BUILDS) >= before + 2,
            "%zu programs built as PTX for the self-check and PSO",
            ck__test_value(CK__TEST_CUDA_PTX_BUILDS) - before);
  printf("built as PTX: %zu programs\n",
         ck__test_value(CK__TEST_CUDA_PTX_BUILDS) - before);
  int oldest = CK_CUDA_OLDEST_ARCHITECTURE;
  if (oldest > 0 && oldest < ck__cuda_architecture(&set->devices[index])) {
    before = ck__test_value(CK__TEST_CUDA_PTX_BUILDS);
    CHECK_OK(ck__test_control(CK__TEST_CUDA_AS_PTX, oldest));
    static const char *const native[] = {"pso", "ga", "aco", "gas"};
    for (size_t i = 0; i < sizeof native / sizeof native[0]; ++i)
      check_workload(set, index, native[i], NULL, 0);
    CHECK_MSG(ck__test_value(CK__TEST_CUDA_PTX_BUILDS) >= before + 4,
              "%zu programs built as PTX for compute_%d",
              ck__test_value(CK__TEST_CUDA_PTX_BUILDS) - before, oldest);
    printf("built as PTX for compute_%d: %zu programs\n", oldest,
           ck__test_value(CK__TEST_CUDA_PTX_BUILDS) - before);
  }
  CHECK_OK(ck__test_control(CK__TEST_CUDA_AS_PTX, 0));
  ck__build_from_source = 0;
}
#endif

/* TF32 needs a CUDA device, and learns the spirals about as well as
 * FP32 does on the same device. */
static void check_tf32(const ck_device_set *set, size_t device_index) {
  const ck_workload *workload = NULL;
  CHECK_OK(ck_workload_find("nn", &workload));
  if (!workload)
    return;
  ck_param params[] = {
      {"train", "spirals:2000"}, {"epochs", "30"}, {"math", "tf32"}};
  ck_result tf32_result = {0}, fp32_result = {0};
  CHECK(test_workload_run(workload, &set->devices[0], params, 3, NULL,
                          &tf32_result) == CK_ERROR_UNSUPPORTED);
  CHECK_OK(test_workload_run(workload, &set->devices[device_index], params, 3,
                             NULL, &tf32_result));
  params[2].value = "fp32";
  CHECK_OK(test_workload_run(workload, &set->devices[device_index], params, 3,
                             NULL, &fp32_result));
  double tf32 = 0;
  CHECK_OK(ck_result_get_metric(&tf32_result, "tf32", &tf32));
  CHECK(tf32 == 1);
  CHECK(strstr(tf32_result.throughput_unit, "TF32") != NULL);
  CHECK(strstr(fp32_result.throughput_unit, "TF32") == NULL);
  CHECK_MSG(fabs(tf32_result.best - fp32_result.best) < 0.05 &&
                tf32_result.best > 0.8,
            "TF32 reached %.4f, FP32 %.4f", tf32_result.best, fp32_result.best);
  printf("nn on %s: %s %.4f in TF32, %.4f in FP32\n", tf32_result.device,
         tf32_result.best_name, tf32_result.best, fp32_result.best);
  /* Compared in TF32, the device's row agrees with ref's FP32 one. */
  params[2].value = "tf32";
  ck_result results[2] = {0};
  size_t produced = 0;
  CHECK_OK(test_compare_run(workload, set, &device_index, 1, 0, params, 3, NULL,
                            results, 2, &produced));
  CHECK(produced == 2 && results[1].status == CK_OK);
  CHECK(strstr(results[0].throughput_unit, "TF32") == NULL &&
        strstr(results[1].throughput_unit, "TF32") != NULL);
  CHECK_MSG(results[1].agrees, "TF32 %.4f against ref's FP32 %.4f",
            results[1].best, results[0].best);
  test_results_release(results, 2);
  ck_result_release(&tf32_result);
  ck_result_release(&fp32_result);
}

/* A small labelled CSV data set, two classes by the sign of x y, in a
 * temporary file the caller removes. */
static int write_quadrants(char *path, size_t capacity) {
  snprintf(path, capacity, "/tmp/clkit-test-cuda-XXXXXX");
  int fd = mkstemp(path);
  FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!file)
    return -1;
  uint32_t state = 12345;
  for (int row = 0; row < 512; ++row) {
    double xy[2];
    for (int k = 0; k < 2; ++k) {
      state = state * 1664525u + 1013904223u;
      xy[k] = (double)(state >> 8) / (double)(1u << 24) * 2.0 - 1.0;
    }
    fprintf(file, "%d,%.6f,%.6f\n", xy[0] * xy[1] > 0, xy[0], xy[1]);
  }
  return fclose(file) == 0 ? 0 : -1;
}

/*
 * Objects on two CUDA devices stepped in turn from one thread. CUDA's
 * current device is per thread, and each object's calls leave it at
 * theirs, so every call of the other must name its own device again: its
 * graph launches and events (PSO), its cuBLAS products and native
 * launches (the MLP). The two devices run the same configuration and
 * seed; on the same model they agree bit for bit. With one CUDA device
 * both objects are on it.
 */
static void check_two_devices(const ck_device *first, const ck_device *second) {
  const ck_device *devices[2] = {first, second};
  int same_model = strcmp(first->name, second->name) == 0;
  ck_pso_config pso_config;
  ck_pso *swarms[2] = {NULL, NULL};
  CHECK_OK(ck_pso_config_init(&pso_config));
  pso_config.function = "rastrigin";
  pso_config.dim = 16;
  pso_config.particles = 1024;
  for (int i = 0; i < 2; ++i)
    CHECK_OK(ck_pso_create(devices[i], &pso_config, &swarms[i]));
  double best[2] = {0, 0};
  if (swarms[0] && swarms[1]) {
    for (int round = 0; round < 4; ++round)
      for (int i = 0; i < 2; ++i) {
        ck_status status = ck_pso_step(swarms[i], 25);
        const char *message = "";
        ck_error_get_last(&message);
        CHECK_MSG(status == CK_OK, "pso on %s, round %d: %s", devices[i]->id,
                  round, message);
      }
    for (int i = 0; i < 2; ++i)
      CHECK_OK(ck_pso_get_best(swarms[i], &best[i], NULL));
    CHECK_MSG(!same_model || best[0] == best[1], "pso: %.9g on %s, %.9g on %s",
              best[0], first->id, best[1], second->id);
    CHECK_MSG(best[0] < 200 && best[1] < 200, "pso: %.9g and %.9g", best[0],
              best[1]);
  }
  for (int i = 0; i < 2; ++i)
    if (swarms[i])
      CHECK_OK(ck_pso_destroy(swarms[i]));

  char path[64];
  CHECK(write_quadrants(path, sizeof path) == 0);
  ck_dataset data;
  if (ck_dataset_load(path, NULL, &data) != CK_OK) {
    CHECK_MSG(0, "the quadrants data set did not load");
    unlink(path);
    return;
  }
  unlink(path);
  ck_nn_config config;
  CHECK_OK(ck_nn_config_init(&config));
  config.layer_count = 3;
  config.sizes[0] = 2;
  config.sizes[1] = 64;
  config.sizes[2] = 2;
  config.batch = 32;
  ck_nn *networks[2] = {NULL, NULL};
  for (int i = 0; i < 2; ++i) {
    CHECK_OK(ck_nn_create(devices[i], &config, &networks[i]));
    if (networks[i])
      CHECK_OK(ck_nn_attach(networks[i], CK_NN_TRAIN, &data));
  }
  if (networks[0] && networks[1]) {
    ck_nn_epoch epochs[2];
    for (int round = 0; round < 3; ++round)
      for (int i = 0; i < 2; ++i) {
        ck_status status = ck_nn_train_epoch(networks[i], &epochs[i]);
        const char *message = "";
        ck_error_get_last(&message);
        CHECK_MSG(status == CK_OK, "nn on %s, epoch %d: %s", devices[i]->id,
                  round + 1, message);
      }
    CHECK_MSG(!same_model || epochs[0].train_loss == epochs[1].train_loss,
              "nn: loss %.9g on %s, %.9g on %s", epochs[0].train_loss,
              first->id, epochs[1].train_loss, second->id);
    printf("two devices: pso %.9g and %.9g, nn loss %.6f and %.6f\n", best[0],
           best[1], epochs[0].train_loss, epochs[1].train_loss);
  }
  for (int i = 0; i < 2; ++i)
    if (networks[i])
      CHECK_OK(ck_nn_destroy(networks[i]));
  ck_dataset_free(&data);
}

/* Checks of the host's side that need no device: which code serves an
 * architecture, what a lost context says, and that ref has no peer. */
static void check_host_side(const ck_device *ref) {
#if CK_HAVE_CUDA
  check_reach();
  /* cudaErrorIllegalAddress (700) loses the context; cudaErrorMemoryAllocation
   * (2) does not. */
  CHECK(strstr(ck__cuda_lost_note(700), "context is lost") != NULL);
  CHECK(*ck__cuda_lost_note(2) == '\0');
#endif
  /* Only CUDA devices copy to each other without the host: ref none. */
  ck__peer *none = NULL;
  CHECK_OK(ck__peer_open(ref, ref, &none));
  CHECK(none == NULL);
}

/* test_cuda --compile-only: every program through NVRTC, device or not. */
static int compile_only(const ck_device *ref) {
#if CK_HAVE_CUDA
  check_host_side(ref);
  check_compiles();
  printf("programs compiled for sm_90 and sm_%d\n",
         CK_CUDA_OLDEST_ARCHITECTURE);
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures ? 1 : 0;
#else
  (void)ref;
  CHECK_SKIP("built without CUDA (meson option cuda, or no nvcc): nothing "
             "to compile");
#endif
}

int main(int argc, char **argv) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  if (argc > 1 && strcmp(argv[1], "--compile-only") == 0) {
    int code = compile_only(&set.devices[0]);
    ck_device_set_free(&set);
    return code;
  }
  size_t index = 0;
  for (size_t i = 0; i < set.count && !index; ++i)
    if (set.devices[i].backend == CK_BACKEND_CUDA)
      index = i;
  if (!index) {
    /* A CUDA device asked for by name must be there: a run meant for the
     * GPU must not pass as a skipped one. */
    const char *wanted = getenv("CLKIT_TEST_DEVICE");
    CHECK_MSG(!wanted || strncmp(wanted, "cuda", 4) != 0,
              "CLKIT_TEST_DEVICE=%s but no CUDA device: %s", wanted,
              set.cuda_status != CK_OK ? set.cuda_message : "none listed");
    char why[512];
    snprintf(why, sizeof why, "%s",
             set.cuda_status != CK_OK ? set.cuda_message : "no CUDA device");
    ck_device_set_free(&set);
    if (check_failures)
      return 1;
    CHECK_SKIP("device checks skipped (cuda-compile translates the "
               "programs): %s",
               why);
  }
  check_host_side(&set.devices[0]);
  printf("on %s: %s (%s)\n", set.devices[index].id, set.devices[index].name,
         set.devices[index].platform_version);
  check_queue(&set.devices[index]);
  check_peer_copy(&set.devices[index], &set.devices[index]);
  check_gas_peer(&set.devices[index]);
  check_kernel_arguments(&set.devices[index]);
  check_kernel_times(&set.devices[index]);
  const char *const workloads[] = {"selfcheck", "pso", "ga",
                                   "aco",       "nn",  "gas"};
  for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; ++w)
    check_workload(&set, index, workloads[w], NULL, 0);
  const ck_param list[] = {{"neighbors", "verlet"}};
  check_workload(&set, index, "gas", list, 1);
  check_tf32(&set, index);
#if CK_HAVE_CUDA
  check_ptx_programs(&set, index);
  check_cache_kept(&set.devices[index]);
#endif
  size_t other = 0;
  for (size_t i = index + 1; i < set.count && !other; ++i)
    if (set.devices[i].backend == CK_BACKEND_CUDA)
      other = i;
  if (!other)
    printf("one CUDA device: two objects on it in turn instead of on two "
           "devices\n");
  check_two_devices(&set.devices[index], &set.devices[other ? other : index]);
  check_ga_peer(&set.devices[index], &set.devices[index]);
  if (other) {
    check_peer_copy(&set.devices[index], &set.devices[other]);
    check_peer_copy(&set.devices[other], &set.devices[index]);
    check_ga_peer(&set.devices[index], &set.devices[other]);
  }
  check_context_lost(&set.devices[index]);
  ck_device_set_free(&set);
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures ? 1 : 0;
}
