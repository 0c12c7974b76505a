/*
 * test_window.c - a member's buffers opened to its neighbours' processes
 * (framework/window.h). In one process, and between processes whose
 * devices share nothing (ref), no window opens. Under mpirun with
 * CLKIT_TEST_DEVICE=cuda, a GPU a process (rank r takes GPU r mod the
 * GPUs), each rank offers two buffers of values of its own and reads its
 * neighbours' through the views: by CUDA IPC, or with CLKIT_IPC=0 from
 * mirrors that NCCL fills. A rank that is not ready closes every
 * process's window for good. A window by IPC alone, to the previous
 * neighbour alone, opens where IPC goes and reads that neighbour's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clkit/clkit.h"
#include "framework/window.h"
#include "runtime/runtime.h"
#include "test_support.h"

#if CK_HAVE_MPI
#include <mpi.h>
#endif

/* Each buffer's values: rank r's k-th value in buffer b. */
static const size_t counts[CK__WINDOW_BUFFERS] = {16, 80, 8};

static double value_of(int rank, int b, size_t k) {
  return 1000.0 * rank + 100.0 * b + (double)k;
}

/* No window where the run is one process, or where `able` is 0. */
static void none(const ck_spread *spread) {
  ck__spread_run run;
  /* Not NULL before the call, so that a call that leaves it is seen. */
  static char untouched;
  ck__window *window = (ck__window *)(void *)&untouched;
  CHECK_OK(ck__spread_begin(spread, "cells", &run));
  CHECK_OK(ck__window_open(&run, 0, 0, &window));
  CHECK(window == NULL);
  CHECK_OK(ck__window_open(&run, 1, 0, &window));
  CHECK_MSG(window == NULL || ck__exchange_ranks(run.exchange) > 1,
            "a window in one process");
  if (ck__device_shares_between_processes(&run.devices[0]) == 0)
    CHECK_MSG(window == NULL, "a window on %s", run.devices[0].id);
  ck__window_close(window);
  ck__spread_end(&run);
}

#if CK_HAVE_MPI
/* Each buffer of the rank's offer, made and filled. */
static void fill(ck_queue *queue, int rank,
                 ck_buffer *buffers[CK__WINDOW_BUFFERS]) {
  for (int b = 0; b < CK__WINDOW_BUFFERS; ++b) {
    float values[80];
    for (size_t k = 0; k < counts[b]; ++k)
      values[k] = (float)value_of(rank, b, k);
    CHECK_OK(ck_buffer_create(queue, counts[b] * sizeof(float), &buffers[b]));
    CHECK_OK(ck_buffer_write(queue, buffers[b], 0, counts[b] * sizeof(float),
                             values, CK_BLOCKING, NULL));
  }
}

/* With mirrors: the rank's buffers sent whole to its next, then to its
 * previous; its previous's, then its next's, received into the views. */
static void send_whole(ck__spread_run *run, ck_queue *queue,
                       ck_buffer *buffers[CK__WINDOW_BUFFERS],
                       const ck__window_view views[2],
                       const size_t neighbour[2]) {
  enum { PIECES = 2 * CK__WINDOW_BUFFERS };
  ck__exchange_piece sends[PIECES], receives[PIECES];
  void *address = NULL, *stream = NULL;
  int ordinal = 0;
  for (int k = 0; k < 2; ++k)
    for (int b = 0; b < CK__WINDOW_BUFFERS; ++b) {
      size_t bytes = counts[b] * sizeof(float);
      CHECK_OK(ck__queue_lend(queue, buffers[b], &address, &ordinal, &stream));
      size_t at = (size_t)k * CK__WINDOW_BUFFERS + (size_t)b;
      sends[at] = (ck__exchange_piece){address, bytes, neighbour[!k]};
      receives[at] = (ck__exchange_piece){
          (void *)(uintptr_t)views[k].address[b], bytes, neighbour[k]};
    }
  CHECK_OK(ck__exchange_member_swap(run->exchange, 0, stream, sends, PIECES,
                                    receives, PIECES));
  CHECK_OK(ck_queue_finish(queue));
}

/* Every value the neighbours offered (`sides` of them: the previous
 * first), read through their views. */
static void read_views(ck_queue *queue, const ck__window_view views[2],
                       const size_t neighbour[2], int sides) {
  void *address = NULL, *stream = NULL;
  int ordinal = 0;
  ck_buffer *any = NULL;
  CHECK_OK(ck_buffer_create(queue, 4, &any));
  CHECK_OK(ck__queue_lend(queue, any, &address, &ordinal, &stream));
  for (int side = 0; side < sides; ++side)
    for (int b = 0; b < CK__WINDOW_BUFFERS; ++b) {
      double got[80];
      CHECK_OK(ck__lent_values_read(
          ordinal, stream, (const void *)(uintptr_t)views[side].address[b], 4,
          1, got, counts[b]));
      size_t wrong = 0;
      for (size_t k = 0; k < counts[b]; ++k)
        wrong += got[k] != value_of((int)neighbour[side], b, k);
      CHECK_MSG(wrong == 0, "side %d, buffer %d: %zu values wrong", side, b,
                wrong);
    }
  ck_buffer_destroy(any);
}

/* A window by IPC alone, to the previous neighbour alone, on GPUs of
 * the processes' own, offering two buffers: none with CLKIT_IPC=0. */
static void previous_only(ck__spread_run *run, ck_queue *queue,
                          ck_buffer *buffers[CK__WINDOW_BUFFERS], int rank,
                          const size_t neighbour[2], int mirrored) {
  ck__window *window = NULL;
  ck__window_view views[2];
  int usable = 0;
  /* The GA's rules: no marks, as its kernels never wait on them. */
  unsigned rules = CK__WINDOW_IPC_ONLY | CK__WINDOW_OWN_GPUS |
                   CK__WINDOW_PREVIOUS_ONLY | CK__WINDOW_NO_MARKS;
  CHECK_OK(ck__window_open(run, 1, rules, &window));
  CHECK_MSG((window == NULL) == mirrored, "rank %d: window %p, mirrored %d",
            rank, (void *)window, mirrored);
  if (!window)
    return;
  ck__window_offer offer = {.buffers = {buffers[0], buffers[1]},
                            .generation = 1,
                            .words = {(uint32_t)rank, 3}};
  CHECK_OK(ck__window_swap(window, &offer, 1, views, &usable));
  CHECK(usable == 1 && views[0].words[0] == neighbour[0] &&
        views[0].words[1] == 3 && views[0].address[2] == 0);
  CHECK(views[1].address[0] == 0 && views[1].words[0] == 0);
  double got[16];
  void *address = NULL, *stream = NULL;
  int ordinal = 0;
  CHECK_OK(ck__queue_lend(queue, buffers[0], &address, &ordinal, &stream));
  CHECK_OK(ck__lent_values_read(ordinal, stream,
                                (const void *)(uintptr_t)views[0].address[0], 4,
                                1, got, counts[0]));
  size_t wrong = 0;
  for (size_t k = 0; k < counts[0]; ++k)
    wrong += got[k] != value_of((int)neighbour[0], 0, k);
  CHECK_MSG(wrong == 0, "rank %d: %zu values wrong", rank, wrong);
  ck__window_close(window);
}

/* Over the processes, a GPU each. */
static void across(const ck_device *device, MPI_Comm *world, int rank,
                   int ranks) {
  ck_spread spread = {
      .devices = device, .device_count = 1, .communicator = world};
  ck__spread_run run;
  ck__window *window = NULL;
  ck_queue *queue = NULL;
  ck_buffer *buffers[CK__WINDOW_BUFFERS] = {NULL, NULL, NULL};
  ck__window_view views[2];
  int usable = 0;
  size_t neighbour[2] = {(size_t)(rank + ranks - 1) % (size_t)ranks,
                         (size_t)(rank + 1) % (size_t)ranks};
  CHECK_OK(ck__spread_begin(&spread, "cells", &run));
  CHECK_OK(ck_queue_create(device, &queue));
  fill(queue, rank, buffers);
  CHECK_OK(ck__window_open(&run, 1, 0, &window));
  CHECK_MSG(window != NULL, "rank %d: no window", rank);
  if (!window)
    goto done;
  int mirrored = ck__window_mirrored(window);
  if (mirrored) {
    CHECK_OK(ck__window_connect(window, queue, &usable));
    CHECK_MSG(usable, "rank %d: NCCL does not swap", rank);
  }
  ck__window_offer offer = {.buffers = {buffers[0], buffers[1], buffers[2]},
                            .generation = 1,
                            .words = {(uint32_t)rank, 7}};
  CHECK_OK(ck__window_swap(window, &offer, 1, views, &usable));
  CHECK(usable == 1);
  for (int side = 0; side < 2; ++side)
    CHECK_MSG(views[side].words[0] == neighbour[side] &&
                  views[side].words[1] == 7,
              "rank %d, side %d: words %u %u", rank, side, views[side].words[0],
              views[side].words[1]);
  if (mirrored) {
    send_whole(&run, queue, buffers, views, neighbour);
  } else {
    CHECK_OK(ck__window_mark(window, queue));
    MPI_Barrier(*world); /* every mark made before any follows */
    for (int side = 0; side < 2; ++side)
      CHECK_OK(ck__window_follow(window, side, queue));
  }
  read_views(queue, views, neighbour, 2);
  /* Offered again, unchanged: the same views. */
  ck__window_view again[2];
  CHECK_OK(ck__window_swap(window, &offer, 1, again, &usable));
  CHECK(usable == 1 && memcmp(again, views, sizeof again) == 0);
  /* Rank 0 not ready: closed on every rank, and it stays so. */
  CHECK_OK(ck__window_swap(window, &offer, rank != 0, views, &usable));
  CHECK_MSG(usable == 0, "rank %d: still usable", rank);
  CHECK_OK(ck__window_swap(window, &offer, 1, views, &usable));
  CHECK(usable == 0);
  ck__window_close(window);
  previous_only(&run, queue, buffers, rank, neighbour, mirrored);
done:
  for (int b = 0; b < CK__WINDOW_BUFFERS; ++b)
    ck_buffer_destroy(buffers[b]);
  ck_queue_destroy(queue);
  ck__spread_end(&run);
}

/* The GPU rank r takes, where CLKIT_TEST_DEVICE asks for CUDA. */
static int cuda_device(int rank, ck_device *device) {
  const char *wanted = getenv("CLKIT_TEST_DEVICE");
  ck_device_set set;
  size_t indices[16], count = 0;
  if (!wanted || strncmp(wanted, "cuda", 4) != 0)
    return 0;
  CHECK_OK(ck_device_enumerate(&set));
  CHECK_OK(ck_device_select(&set, "cuda", indices, 16, &count));
  if (count > 0)
    *device = set.devices[indices[(size_t)rank % count]];
  ck_device_set_free(&set);
  return count > 0;
}
#endif

int main(int argc, char **argv) {
  ck_device ref[1];
  (void)argc;
  (void)argv;
  if (!test_ref_members(ref, 1))
    return CHECK_DONE();
  ck_spread one = {.devices = ref, .device_count = 1};
#if CK_HAVE_MPI
  if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
      getenv("PMIX_RANK")) {
    MPI_Comm world = MPI_COMM_WORLD;
    int rank = 0, ranks = 1;
    ck_device gpu;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &ranks);
    ck_spread all = {.devices = ref, .device_count = 1, .communicator = &world};
    none(&all);
    if (cuda_device(rank, &gpu))
      across(&gpu, &world, rank, ranks);
    int code = CHECK_DONE();
    MPI_Finalize();
    return code;
  }
#endif
  none(&one);
  return CHECK_DONE();
}
