/*
 * test_queue.c - the queue abstraction on ref and on an OpenCL device:
 * buffer round trips (blocking and not), fill, copy, range errors, a
 * kernel launch whose output is checked against the host Philox, events
 * and kernel timing; buffers and kernels of one queue refused by another,
 * launch sizes whose products pass a size_t, and kernels of two queues
 * taking turns on PoCL before 5.
 */
#include <stdint.h>

#include "check.h"
#include "ck_philox.h"
#include "opencl_device.h"
#include "runtime/runtime.h"

enum { WORDS = 4099 }; /* not a multiple of any work-group size */

static void round_trips(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_buffer *a = NULL, *b = NULL;
  uint32_t source[WORDS], back[WORDS];
  ck_event *event = NULL;
  printf("round trips on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  if (!queue)
    return;
  CHECK_OK(ck_buffer_create(queue, sizeof source, &a));
  CHECK_OK(ck_buffer_create(queue, sizeof source, &b));
  size_t size = 0;
  CHECK_OK(ck_buffer_get_size(a, &size));
  CHECK(size == sizeof source);
  for (uint32_t i = 0; i < WORDS; ++i)
    source[i] = i * 2654435761u;

  /* Blocking write, blocking read. */
  memset(back, 0xAB, sizeof back);
  CHECK_OK(
      ck_buffer_write(queue, a, 0, sizeof source, source, CK_BLOCKING, NULL));
  CHECK_OK(ck_buffer_read(queue, a, 0, sizeof back, back, CK_BLOCKING, NULL));
  CHECK(memcmp(source, back, sizeof back) == 0);

  /* Non-blocking read of a sub-range at an offset, completed by its event. */
  memset(back, 0, sizeof back);
  CHECK_OK(ck_buffer_read(queue, a, 40, 400, back, CK_NONBLOCKING, &event));
  CHECK(event != NULL);
  CHECK_OK(ck_event_wait(event));
  CHECK(memcmp(back, source + 10, 400) == 0);
  ck_event_destroy(event);
  event = NULL;

  /* Non-blocking write at an offset, completed by finish. */
  uint32_t patch[3] = {7, 8, 9};
  CHECK_OK(ck_buffer_write(queue, a, 4 * 100, sizeof patch, patch,
                           CK_NONBLOCKING, NULL));
  CHECK_OK(ck_queue_finish(queue));
  CHECK_OK(ck_buffer_read(queue, a, 4 * 99, 5 * 4, back, CK_BLOCKING, NULL));
  CHECK(back[0] == source[99] && back[1] == 7 && back[2] == 8 && back[3] == 9 &&
        back[4] == source[103]);

  /* Copy between buffers. */
  CHECK_OK(ck_buffer_copy(queue, b, 8, a, 0, 4 * 50, NULL));
  CHECK_OK(ck_buffer_read(queue, b, 8, 4 * 50, back, CK_BLOCKING, NULL));
  CHECK(memcmp(back, source, 4 * 50) == 0);

  /* Fill with 1-, 4- and 16-byte patterns. */
  uint8_t byte = 0x5A;
  CHECK_OK(ck_buffer_fill(queue, b, &byte, 1, 3, 5, NULL));
  uint32_t word = 0xDEADBEEF;
  CHECK_OK(ck_buffer_fill(queue, b, &word, 4, 64, 4 * 10, NULL));
  uint32_t quad[4] = {1, 2, 3, 4};
  CHECK_OK(ck_buffer_fill(queue, b, quad, 16, 4096, 64, NULL));
  uint8_t bytes[16];
  CHECK_OK(ck_buffer_read(queue, b, 0, 16, bytes, CK_BLOCKING, NULL));
  for (int i = 3; i < 8; ++i)
    CHECK(bytes[i] == 0x5A);
  CHECK_OK(ck_buffer_read(queue, b, 64, 40, back, CK_BLOCKING, NULL));
  for (int i = 0; i < 10; ++i)
    CHECK(back[i] == 0xDEADBEEF);
  CHECK_OK(ck_buffer_read(queue, b, 4096, 64, back, CK_BLOCKING, NULL));
  for (int i = 0; i < 16; ++i)
    CHECK(back[i] == (uint32_t)(i % 4 + 1));

  /* Bad requests are refused with clear statuses, never performed. */
  CHECK(ck_buffer_read(queue, a, sizeof source - 4, 8, back, CK_BLOCKING,
                       NULL) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_buffer_write(queue, a, 0, 0, source, CK_BLOCKING, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_buffer_fill(queue, a, quad, 3, 0, 12, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_buffer_fill(queue, a, quad, 8, 4, 16, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_buffer_copy(queue, a, 0, a, 8, 16, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_buffer *huge = NULL;
  CHECK(ck_buffer_create(queue, 0, &huge) == CK_ERROR_INVALID_ARGUMENT);
  if (device->max_alloc && device->max_alloc < SIZE_MAX / 2) {
    CHECK(ck_buffer_create(queue, (size_t)device->max_alloc * 2, &huge) ==
          CK_ERROR_DEVICE_MEMORY);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, device->id) != NULL, "%s", message);
  }
  CHECK(huge == NULL);

  void *pointer = NULL;
  ck_status host = ck_buffer_get_host_pointer(a, &pointer);
  if (device->backend == CK_BACKEND_REF) {
    CHECK(host == CK_OK && pointer != NULL);
  } else {
    CHECK(host == CK_ERROR_UNSUPPORTED);
  }
  ck_buffer_destroy(a);
  ck_buffer_destroy(b);
  ck_queue_destroy(queue);
}

/* A status of CK_ERROR_INVALID_ARGUMENT whose message says the buffer (or
 * kernel) belongs to another queue. */
static int refused_as_foreign(ck_status status) {
  const char *message = "";
  ck_error_get_last(&message);
  if (status != CK_ERROR_INVALID_ARGUMENT ||
      !strstr(message, "another queue")) {
    fprintf(stderr, "  status %d: %s\n", (int)status, message);
    return 0;
  }
  return 1;
}

/* Every transfer refuses a buffer made on another queue, of the same
 * backend or another, and leaves both buffers as they were: a ref queue
 * must not copy over an OpenCL buffer's handle, nor an OpenCL queue take
 * host memory for a cl_mem. */
static void foreign_buffers(const ck_device *mine, const ck_device *other) {
  ck_queue *queue = NULL, *elsewhere = NULL;
  ck_buffer *own = NULL, *foreign = NULL;
  enum { BYTES = 64 };
  uint8_t source[BYTES], back[BYTES];
  printf("buffers of %s used on a queue of %s\n", other->id, mine->id);
  CHECK_OK(ck_queue_create(mine, &queue));
  CHECK_OK(ck_queue_create(other, &elsewhere));
  if (queue)
    CHECK_OK(ck_buffer_create(queue, BYTES, &own));
  if (elsewhere)
    CHECK_OK(ck_buffer_create(elsewhere, BYTES, &foreign));
  if (!own || !foreign)
    goto done;
  memset(source, 0x11, sizeof source);
  CHECK_OK(ck_buffer_write(queue, own, 0, BYTES, source, CK_BLOCKING, NULL));
  memset(source, 0x22, sizeof source);
  CHECK_OK(
      ck_buffer_write(elsewhere, foreign, 0, BYTES, source, CK_BLOCKING, NULL));

  memset(source, 0x33, sizeof source);
  uint32_t word = 0x44444444u;
  ck_event *event = NULL;
  CHECK(refused_as_foreign(
      ck_buffer_write(queue, foreign, 0, BYTES, source, CK_BLOCKING, &event)));
  CHECK(refused_as_foreign(
      ck_buffer_write(queue, foreign, 0, BYTES, source, CK_NONBLOCKING, NULL)));
  CHECK(refused_as_foreign(
      ck_buffer_read(queue, foreign, 0, BYTES, back, CK_BLOCKING, &event)));
  CHECK(
      refused_as_foreign(ck_buffer_copy(queue, own, 0, foreign, 0, 16, NULL)));
  CHECK(
      refused_as_foreign(ck_buffer_copy(queue, foreign, 0, own, 0, 16, NULL)));
  CHECK(refused_as_foreign(
      ck_buffer_fill(queue, foreign, &word, 4, 0, BYTES, &event)));
  CHECK(event == NULL);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, other->id) && strstr(message, mine->id), "%s",
            message);

  /* Nothing moved. */
  CHECK_OK(ck_buffer_read(queue, own, 0, BYTES, back, CK_BLOCKING, NULL));
  int changed = 0;
  for (int i = 0; i < BYTES; ++i)
    changed += back[i] != 0x11;
  CHECK_MSG(changed == 0, "%d bytes of the queue's own buffer changed",
            changed);
  CHECK_OK(
      ck_buffer_read(elsewhere, foreign, 0, BYTES, back, CK_BLOCKING, NULL));
  changed = 0;
  for (int i = 0; i < BYTES; ++i)
    changed += back[i] != 0x22;
  CHECK_MSG(changed == 0, "%d bytes of the other queue's buffer changed",
            changed);
done:
  ck_buffer_destroy(own);
  ck_buffer_destroy(foreign);
  ck_queue_destroy(queue);
  ck_queue_destroy(elsewhere);
}

/* A kernel takes buffers only of the queue its program was built on, and
 * is launched only there: not a ref buffer (host memory), nor one of a
 * second queue on the same device (another context). */
static void foreign_kernel_arguments(const ck_device *ref,
                                     const ck_device *device) {
  ck_queue *queue = NULL, *second = NULL, *host = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  ck_buffer *own = NULL, *other = NULL, *host_buffer = NULL;
  printf("foreign kernel arguments on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  CHECK_OK(ck_queue_create(device, &second));
  CHECK_OK(ck_queue_create(ref, &host));
  if (!queue || !second || !host)
    goto done;
  CHECK_OK(ck_program_build(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64",
                            &program));
  if (program)
    CHECK_OK(ck_kernel_create(program, "ck_selfcheck_generate", &kernel));
  CHECK_OK(ck_buffer_create(queue, 64, &own));
  CHECK_OK(ck_buffer_create(second, 64, &other));
  CHECK_OK(ck_buffer_create(host, 64, &host_buffer));
  if (!kernel || !own || !other || !host_buffer)
    goto done;
  CHECK_OK(ck_kernel_set_buffer(kernel, 0, own));
  CHECK(refused_as_foreign(ck_kernel_set_buffer(kernel, 1, host_buffer)));
  CHECK(refused_as_foreign(ck_kernel_set_buffer(kernel, 1, other)));
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_selfcheck_generate") &&
                strstr(message, "argument 1"),
            "%s", message);
  CHECK_OK(ck_kernel_set_buffer(kernel, 1, own));
  uint32_t count = 16, zero = 0;
  CHECK_OK(ck_kernel_set_value(kernel, 2, sizeof count, &count));
  for (unsigned index = 3; index < 6; ++index)
    CHECK_OK(ck_kernel_set_value(kernel, index, sizeof zero, &zero));
  size_t global = 64, local = 64;
  CHECK(refused_as_foreign(
      ck_queue_launch(second, kernel, 1, &global, &local, NULL)));
  CHECK(refused_as_foreign(
      ck_queue_launch(host, kernel, 1, &global, &local, NULL)));
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, &local, NULL));
  CHECK_OK(ck_queue_finish(queue));
done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(own);
  ck_buffer_destroy(other);
  ck_buffer_destroy(host_buffer);
  ck_queue_destroy(queue);
  ck_queue_destroy(second);
  ck_queue_destroy(host);
}

static void ref_runs_no_kernels(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  CHECK_OK(ck_queue_create(device, &queue));
  CHECK(ck_program_build(queue, "selfcheck", NULL, &program) ==
        CK_ERROR_UNSUPPORTED);
  CHECK(program == NULL);
  ck_queue_destroy(queue);
}

/* ck_selfcheck_generate's arguments: WORDS values and their bits from
 * GENERATE_SEED, at pass `pass`. */
#define GENERATE_SEED 0x0123456789ABCDEFull
static void set_generate_args(ck_kernel *kernel, ck_buffer *values,
                              ck_buffer *bits, uint32_t pass) {
  uint32_t count = WORDS, low = (uint32_t)GENERATE_SEED,
           high = (uint32_t)(GENERATE_SEED >> 32);
  CHECK_OK(ck_kernel_set_buffer(kernel, 0, values));
  CHECK_OK(ck_kernel_set_buffer(kernel, 1, bits));
  CHECK_OK(ck_kernel_set_value(kernel, 2, sizeof count, &count));
  CHECK_OK(ck_kernel_set_value(kernel, 3, sizeof low, &low));
  CHECK_OK(ck_kernel_set_value(kernel, 4, sizeof high, &high));
  CHECK_OK(ck_kernel_set_value(kernel, 5, sizeof pass, &pass));
}

/* The generate kernel must reproduce the host's Philox words exactly. */
static void kernel_launch(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL, *missing = NULL;
  ck_buffer *values = NULL, *bits = NULL;
  ck_event *event = NULL;
  static float got_values[WORDS];
  static uint32_t got_bits[WORDS];
  printf("kernel launch on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  if (!queue)
    return;
  CHECK_OK(ck_program_build(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64",
                            &program));
  if (!program)
    goto done;
  CHECK(ck_kernel_create(program, "no_such_kernel", &missing) ==
        CK_ERROR_NOT_FOUND);
  /* A name past the limit is refused, not cut to another's. */
  char long_name[200];
  memset(long_name, 'k', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  memcpy(long_name, "ck_selfcheck_generate", 21);
  CHECK(ck_kernel_create(program, long_name, &missing) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(missing == NULL);
  CHECK_OK(ck_kernel_create(program, "ck_selfcheck_generate", &kernel));
  CHECK_OK(ck_buffer_create(queue, sizeof got_values, &values));
  CHECK_OK(ck_buffer_create(queue, sizeof got_bits, &bits));
  if (!kernel || !values || !bits)
    goto done;
  uint32_t count = WORDS, pass = 3;
  uint64_t seed = GENERATE_SEED;
  set_generate_args(kernel, values, bits, pass);
  size_t local = 64, global = (WORDS / 4 + 64) / 64 * 64, odd = 100;
  CHECK(ck_queue_launch(queue, kernel, 1, &odd, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_queue_launch(queue, kernel, 4, &global, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  /* Sizes whose products pass a size_t are refused, not wrapped: local
   * sizes of 2^33 by 2^33 made a work-group of 0, under any maximum. */
  size_t square[2] = {128, 128};
  CHECK(ck_queue_launch(queue, kernel, 2, square, square, NULL) ==
        CK_ERROR_INVALID_ARGUMENT); /* over every device's maximum */
#if SIZE_MAX > 0xFFFFFFFFu
  size_t wide[2] = {(size_t)1 << 33, (size_t)1 << 33};
  CHECK(ck_queue_launch(queue, kernel, 2, wide, wide, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "8589934592 x 8589934592"), "%s", message);
  CHECK(ck_queue_launch(queue, kernel, 2, wide, NULL, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  size_t tall[3] = {1, SIZE_MAX, 2};
  CHECK(ck_queue_launch(queue, kernel, 3, tall, NULL, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  /* 2^33 work-groups: PoCL's scheduler aborted the process on them. */
  size_t groups = (size_t)1 << 39;
  CHECK(ck_queue_launch(queue, kernel, 1, &groups, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  size_t last = SIZE_MAX - 63;
  CHECK(ck_queue_launch(queue, kernel, 1, &last, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
#endif
  /* Poison the outputs so that unwritten elements show. */
  uint32_t poison = 0xFFFFFFFFu;
  CHECK_OK(ck_buffer_fill(queue, bits, &poison, 4, 0, sizeof got_bits, NULL));
  CHECK_OK(
      ck_buffer_fill(queue, values, &poison, 4, 0, sizeof got_values, NULL));
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, &local, &event));
  CHECK_OK(ck_buffer_read(queue, bits, 0, sizeof got_bits, got_bits,
                          CK_BLOCKING, NULL));
  CHECK_OK(ck_buffer_read(queue, values, 0, sizeof got_values, got_values,
                          CK_BLOCKING, NULL));
  CHECK_OK(ck_queue_finish(queue));
  int bits_wrong = 0, values_wrong = 0;
  for (uint32_t item = 0; 4 * item < count; ++item) {
    ck_philox_counter block = ck_philox_block(seed, pass, item);
    for (uint32_t k = 0; k < 4 && 4 * item + k < count; ++k) {
      bits_wrong += got_bits[4 * item + k] != block.v[k];
      values_wrong += got_values[4 * item + k] != ck_uniform_float(block.v[k]);
    }
  }
  CHECK_MSG(bits_wrong == 0, "%d words differ from the host Philox",
            bits_wrong);
  CHECK_MSG(values_wrong == 0, "%d floats differ", values_wrong);
  uint64_t start = 0, end = 0;
  CHECK_OK(ck_event_get_times(event, &start, &end));
  CHECK_MSG(end >= start && end > 0, "start %llu end %llu",
            (unsigned long long)start, (unsigned long long)end);
  double seconds = -1;
  CHECK_OK(ck_queue_get_kernel_seconds(queue, &seconds));
  CHECK_MSG(seconds >= 0 && seconds < 60, "kernel seconds %g", seconds);
done:
  ck_event_destroy(event);
  ck_kernel_destroy(kernel);
  ck_kernel_destroy(missing);
  ck_program_destroy(program);
  ck_buffer_destroy(values);
  ck_buffer_destroy(bits);
  ck_queue_destroy(queue);
}

/* A queue beside another (ck__queue_beside) uses that queue's buffers
 * and kernels: a write through it reads back through home, and a kernel
 * built on home and launched on it writes what home's launch writes.
 * A buffer of any other queue stays refused, and home refuses the one
 * made on the queue beside. */
static void queue_beside(const ck_device *device) {
  ck_queue *home = NULL, *beside = NULL, *elsewhere = NULL;
  ck_buffer *words = NULL, *foreign = NULL, *its_own = NULL;
  ck_buffer *values = NULL, *bits = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  static uint32_t source[WORDS], back[WORDS], on_home[WORDS];
  printf("a queue beside another on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &home));
  CHECK_OK(ck_queue_create(device, &elsewhere));
  if (home)
    CHECK_OK(ck__queue_beside(home, &beside));
  if (!home || !beside || !elsewhere)
    goto done;
  CHECK_OK(ck_buffer_create(home, sizeof source, &words));
  CHECK_OK(ck_buffer_create(elsewhere, 64, &foreign));
  CHECK_OK(ck_buffer_create(beside, 64, &its_own));
  if (!words || !foreign || !its_own)
    goto done;
  for (uint32_t i = 0; i < WORDS; ++i)
    source[i] = 0x9E3779B9u * i;
  CHECK_OK(ck_buffer_write(beside, words, 0, sizeof source, source, CK_BLOCKING,
                           NULL));
  CHECK_OK(
      ck_buffer_read(home, words, 0, sizeof back, back, CK_BLOCKING, NULL));
  CHECK(memcmp(source, back, sizeof back) == 0);
  CHECK(refused_as_foreign(
      ck_buffer_write(beside, foreign, 0, 64, source, CK_BLOCKING, NULL)));
  CHECK(refused_as_foreign(
      ck_buffer_read(home, its_own, 0, 64, back, CK_BLOCKING, NULL)));
  if (!ck__device_runs_kernels(device))
    goto done;
  CHECK_OK(
      ck_program_build(home, "selfcheck", "-DCK_SELFCHECK_GROUP=64", &program));
  if (program)
    CHECK_OK(ck_kernel_create(program, "ck_selfcheck_generate", &kernel));
  CHECK_OK(ck_buffer_create(home, sizeof back, &values));
  CHECK_OK(ck_buffer_create(home, sizeof back, &bits));
  if (!kernel || !values || !bits)
    goto done;
  set_generate_args(kernel, values, bits, 5);
  size_t local = 64, global = (WORDS / 4 + 64) / 64 * 64;
  CHECK_OK(ck_queue_launch(home, kernel, 1, &global, &local, NULL));
  CHECK_OK(ck_buffer_read(home, bits, 0, sizeof on_home, on_home, CK_BLOCKING,
                          NULL));
  uint32_t poison = 0xFFFFFFFFu;
  CHECK_OK(ck_buffer_fill(beside, bits, &poison, 4, 0, sizeof back, NULL));
  CHECK_OK(ck_queue_launch(beside, kernel, 1, &global, &local, NULL));
  CHECK_OK(ck_queue_finish(beside));
  CHECK_OK(ck_buffer_read(home, bits, 0, sizeof back, back, CK_BLOCKING, NULL));
  CHECK(memcmp(on_home, back, sizeof back) == 0);
  CHECK(refused_as_foreign(
      ck_queue_launch(elsewhere, kernel, 1, &global, &local, NULL)));
done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(values);
  ck_buffer_destroy(bits);
  ck_buffer_destroy(words);
  ck_buffer_destroy(foreign);
  ck_buffer_destroy(its_own);
  ck_queue_destroy(beside);
  ck_queue_destroy(home);
  ck_queue_destroy(elsewhere);
}

/* What a queue beside home has queued is done before home's later work
 * where home follows its mark. The queue beside takes a long run of fills
 * (1 GiB written, far longer on a GPU than the host takes to queue the
 * rest), then a last fill of a few words, and marks; a read through home,
 * which follows the mark, must see that last fill. */
static void beside_order(const ck_device *device) {
  enum { LONG = 128 << 20, FILLS = 8, FEW = 64 };
  ck_queue *home = NULL, *beside = NULL;
  ck_buffer *slow = NULL, *few = NULL;
  uint32_t back[FEW / 4], zero = 0, last = 0xA5A5F00Du;
  printf("marks order a queue beside home on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &home));
  if (home)
    CHECK_OK(ck__queue_beside(home, &beside));
  if (!beside)
    goto done;
  CHECK_OK(ck_buffer_create(home, LONG, &slow));
  CHECK_OK(ck_buffer_create(home, FEW, &few));
  if (!slow || !few)
    goto done;
  CHECK_OK(ck_buffer_fill(home, few, &zero, 4, 0, FEW, NULL));
  CHECK_OK(ck_queue_finish(home));
  for (uint32_t f = 0; f < FILLS; ++f)
    CHECK_OK(ck_buffer_fill(beside, slow, &f, 4, 0, LONG, NULL));
  CHECK_OK(ck_buffer_fill(beside, few, &last, 4, 0, FEW, NULL));
  CHECK_OK(ck__queue_mark(beside));
  CHECK_OK(ck__queue_follow(home, beside));
  CHECK_OK(ck_buffer_read(home, few, 0, FEW, back, CK_BLOCKING, NULL));
  int seen = 1;
  for (int w = 0; w < FEW / 4; ++w)
    seen &= back[w] == last;
  CHECK(seen);
done:
  ck_buffer_destroy(slow);
  ck_buffer_destroy(few);
  ck_queue_destroy(beside);
  ck_queue_destroy(home);
}

/* cl/peak.cl's multiply-add kernels against their host twins: for
 * ck_peak_fma (bench_gas's FP32 peak), work-item i's eight accumulators of
 * each lane start at 1e-6 i + 1e-3 lane + 0.1 j, take ITERATIONS rounds
 * of a = a x scale + offset, and are summed; for ck_peak_chain, one
 * accumulator a lane starts at 1e-6 i + 1e-3 lane and takes 8 x
 * ITERATIONS rounds. mad may round once or twice, so the sums agree to a
 * relative 1e-5, well inside what a lost round (0.4% or more at scale
 * 0.99, where the values are still far from their limit of 50) or a lost
 * lane would move them. An OpenCL benchmark kernel:
 * CUDA devices measure their peak otherwise. */
static double peak_twin(int chain, int lanes, int item, int iterations,
                        double scale, double offset) {
  double sum = 0;
  for (int lane = 0; lane < lanes; ++lane)
    for (int j = 0; j < (chain ? 1 : 8); ++j) {
      double a = 1e-6 * item + 1e-3 * lane + 0.1 * j;
      for (int round = 0; round < (chain ? 8 : 1) * iterations; ++round)
        a = a * scale + offset;
      sum += a;
    }
  return sum;
}

static void peak_kernel(const ck_device *device) {
  enum { ITEMS = 64, ITERATIONS = 16 };
  if (device->backend != CK_BACKEND_OPENCL)
    return;
  static const int widths[] = {1, 4};
  static const char *const names[] = {"ck_peak_fma", "ck_peak_chain"};
  const float scale = 0.99f, offset = 0.5f;
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(device, &queue));
  for (size_t w = 0; queue && w < sizeof widths / sizeof widths[0]; ++w) {
    ck_program *program = NULL;
    ck_buffer *result = NULL;
    float got[ITEMS];
    char options[96];
    snprintf(options, sizeof options,
             "-DCK_PEAK_ITERATIONS=%d -DCK_PEAK_WIDTH=%d", ITERATIONS,
             widths[w]);
    CHECK_OK(ck_program_build(queue, "peak", options, &program));
    CHECK_OK(ck_buffer_create(queue, sizeof got, &result));
    for (int chain = 0; chain < 2 && program && result; ++chain) {
      ck_kernel *kernel = NULL;
      CHECK_OK(ck_kernel_create(program, names[chain], &kernel));
      if (!kernel)
        continue;
      size_t global = ITEMS;
      CHECK_OK(ck_kernel_set_buffer(kernel, 0, result));
      CHECK_OK(ck_kernel_set_value(kernel, 1, sizeof scale, &scale));
      CHECK_OK(ck_kernel_set_value(kernel, 2, sizeof offset, &offset));
      CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, NULL, NULL));
      CHECK_OK(
          ck_buffer_read(queue, result, 0, sizeof got, got, CK_BLOCKING, NULL));
      int wrong = 0;
      for (int i = 0; i < ITEMS; ++i) {
        double want = peak_twin(chain, widths[w], i, ITERATIONS, scale, offset);
        int differs = !(fabs(got[i] - want) <= 1e-5 * fabs(want));
        wrong += differs;
        if (i == 0 || (differs && wrong == 1))
          printf("  %s width %d item %d: %.7g (host %.7g)\n", names[chain],
                 widths[w], i, got[i], want);
      }
      CHECK_MSG(wrong == 0, "%s width %d: %d of %d sums differ", names[chain],
                widths[w], wrong, ITEMS);
      ck_kernel_destroy(kernel);
    }
    ck_buffer_destroy(result);
    ck_program_destroy(program);
  }
  ck_queue_destroy(queue);
}

/* PoCL before 5 ends the process when launches of one kernel at two grid
 * sizes run at once from two queues (queue_opencl.c's gate). There a
 * queue's kernel starts only after the other queue's last one ended: a
 * long multiply-add kernel on one queue, then a short launch of it on
 * another, whose start must not come before the long one's end. */
static void pocl_queues_take_turns(const ck_device *device) {
  int pocl = ck__device_pocl_major(device);
  if (pocl <= 0 || pocl >= 5)
    return;
  const float scale = 0.9f, offset = 0.5f;
  ck_queue *queues[2] = {NULL, NULL};
  ck_program *programs[2] = {NULL, NULL};
  ck_kernel *kernels[2] = {NULL, NULL};
  ck_buffer *results[2] = {NULL, NULL};
  ck_event *events[2] = {NULL, NULL};
  static const size_t sizes[2] = {1 << 16, 64};
  for (int i = 0; i < 2; ++i) {
    CHECK_OK(ck_queue_create(device, &queues[i]));
    if (!queues[i])
      goto done;
    CHECK_OK(ck_program_build(queues[i], "peak",
                              "-DCK_PEAK_ITERATIONS=512 -DCK_PEAK_WIDTH=1",
                              &programs[i]));
    if (programs[i])
      CHECK_OK(ck_kernel_create(programs[i], "ck_peak_fma", &kernels[i]));
    CHECK_OK(
        ck_buffer_create(queues[i], sizes[i] * sizeof(float), &results[i]));
    if (!kernels[i] || !results[i])
      goto done;
    CHECK_OK(ck_kernel_set_buffer(kernels[i], 0, results[i]));
    CHECK_OK(ck_kernel_set_value(kernels[i], 1, sizeof scale, &scale));
    CHECK_OK(ck_kernel_set_value(kernels[i], 2, sizeof offset, &offset));
  }
  for (int i = 0; i < 2; ++i)
    CHECK_OK(
        ck_queue_launch(queues[i], kernels[i], 1, &sizes[i], NULL, &events[i]));
  uint64_t start[2] = {0, 0}, end[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    CHECK_OK(ck_queue_finish(queues[i]));
    if (events[i])
      CHECK_OK(ck_event_get_times(events[i], &start[i], &end[i]));
  }
  printf("PoCL %d, two queues: the long kernel ran %.1f ms; the short one "
         "started %.3f ms after it ended\n",
         pocl, (double)(end[0] - start[0]) * 1e-6,
         ((double)start[1] - (double)end[0]) * 1e-6);
  CHECK_MSG(end[0] > start[0] && start[1] >= end[0],
            "the second queue's kernel started at %llu, before the first's "
            "end at %llu",
            (unsigned long long)start[1], (unsigned long long)end[0]);
done:
  for (int i = 0; i < 2; ++i) {
    ck_event_destroy(events[i]);
    ck_kernel_destroy(kernels[i]);
    ck_program_destroy(programs[i]);
    ck_buffer_destroy(results[i]);
    ck_queue_destroy(queues[i]);
  }
}

/* A device the caller filled in without a largest allocation: ref
 * refuses a size whose 64-byte rounding would wrap to a tiny block. */
static void wrapping_sizes(const ck_device *ref) {
  ck_device unlimited = *ref;
  unlimited.max_alloc = 0;
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(&unlimited, &queue));
  if (!queue)
    return;
  size_t sizes[] = {SIZE_MAX - 10, SIZE_MAX - 62, SIZE_MAX};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    ck_buffer *buffer = NULL;
    CHECK_MSG(ck_buffer_create(queue, sizes[i], &buffer) ==
                  CK_ERROR_DEVICE_MEMORY,
              "size %zu", sizes[i]);
    CHECK(buffer == NULL);
    ck_buffer_destroy(buffer);
  }
  ck_queue_destroy(queue);
}

/* ---- NULL arguments, named ----------------------------------------------- */

/* What the calls below pass where their parameter is not the NULL one;
 * program and kernel only where the device builds programs. */
typedef struct null_context {
  const ck_device *device;
  ck_queue *queue;
  ck_buffer *a, *b;
  ck_program *program;
  ck_kernel *kernel;
} null_context;

static ck_status null_queue_create(void *context, int which) {
  null_context *c = context;
  ck_queue *queue = NULL;
  ck_status status = ck_queue_create(NULL_AT(0, c->device), NULL_AT(1, &queue));
  ck_queue_destroy(queue);
  return status;
}

static ck_status null_queue_get_device(void *context, int which) {
  null_context *c = context;
  const ck_device *device = NULL;
  return ck_queue_get_device(NULL_AT(0, c->queue), NULL_AT(1, &device));
}

static ck_status null_queue_get_kernel_seconds(void *context, int which) {
  null_context *c = context;
  double seconds = 0;
  return ck_queue_get_kernel_seconds(NULL_AT(0, c->queue),
                                     NULL_AT(1, &seconds));
}

static ck_status null_buffer_create(void *context, int which) {
  null_context *c = context;
  ck_buffer *buffer = NULL;
  ck_status status =
      ck_buffer_create(NULL_AT(0, c->queue), 64, NULL_AT(1, &buffer));
  ck_buffer_destroy(buffer);
  return status;
}

static ck_status null_buffer_get_size(void *context, int which) {
  null_context *c = context;
  size_t size = 0;
  return ck_buffer_get_size(NULL_AT(0, c->a), NULL_AT(1, &size));
}

static ck_status null_buffer_get_host_pointer(void *context, int which) {
  null_context *c = context;
  void *pointer = NULL;
  return ck_buffer_get_host_pointer(NULL_AT(0, c->a), NULL_AT(1, &pointer));
}

static ck_status null_buffer_write(void *context, int which) {
  null_context *c = context;
  uint32_t words[4] = {0};
  return ck_buffer_write(NULL_AT(0, c->queue), NULL_AT(1, c->a), 0,
                         sizeof words, NULL_AT(2, words), CK_BLOCKING, NULL);
}

static ck_status null_buffer_read(void *context, int which) {
  null_context *c = context;
  uint32_t words[4];
  return ck_buffer_read(NULL_AT(0, c->queue), NULL_AT(1, c->a), 0, sizeof words,
                        NULL_AT(2, words), CK_BLOCKING, NULL);
}

static ck_status null_buffer_copy(void *context, int which) {
  null_context *c = context;
  return ck_buffer_copy(NULL_AT(0, c->queue), NULL_AT(1, c->b), 0,
                        NULL_AT(2, c->a), 0, 16, NULL);
}

static ck_status null_buffer_fill(void *context, int which) {
  null_context *c = context;
  uint32_t word = 0;
  return ck_buffer_fill(NULL_AT(0, c->queue), NULL_AT(1, c->a),
                        NULL_AT(2, &word), sizeof word, 0, 16, NULL);
}

static ck_status null_program_build(void *context, int which) {
  null_context *c = context;
  ck_program *program = NULL;
  ck_status status =
      ck_program_build(NULL_AT(0, c->queue), NULL_AT(1, "selfcheck"),
                       "-DCK_SELFCHECK_GROUP=64", NULL_AT(2, &program));
  ck_program_destroy(program);
  return status;
}

static ck_status null_program_query(void *context, int which) {
  null_context *c = context;
  ck_program_stats stats;
  return ck_program_query(NULL_AT(0, c->program), NULL_AT(1, &stats));
}

static ck_status null_kernel_create(void *context, int which) {
  null_context *c = context;
  ck_kernel *kernel = NULL;
  ck_status status = ck_kernel_create(NULL_AT(0, c->program),
                                      NULL_AT(1, "ck_selfcheck_generate"),
                                      NULL_AT(2, &kernel));
  ck_kernel_destroy(kernel);
  return status;
}

static ck_status null_kernel_set_buffer(void *context, int which) {
  null_context *c = context;
  return ck_kernel_set_buffer(NULL_AT(0, c->kernel), 0, NULL_AT(1, c->a));
}

static ck_status null_kernel_set_value(void *context, int which) {
  null_context *c = context;
  uint32_t count = 16;
  return ck_kernel_set_value(NULL_AT(0, c->kernel), 2, sizeof count,
                             NULL_AT(1, &count));
}

static ck_status null_kernel_args_begin(void *context, int which) {
  null_context *c = context;
  ck_kernel_args args;
  return ck_kernel_args_begin(NULL_AT(0, c->kernel), NULL_AT(1, &args));
}

static ck_status null_kernel_args_buffer(void *context, int which) {
  null_context *c = context;
  ck_kernel_args args;
  ck_kernel_args_begin(c->kernel, &args);
  return ck_kernel_args_buffer(NULL_AT(0, &args), NULL_AT(1, c->a));
}

static ck_status null_kernel_args_end(void *context, int which) {
  (void)context;
  return ck_kernel_args_end(NULL_AT(0, (ck_kernel_args *)NULL));
}

static ck_status null_queue_launch(void *context, int which) {
  null_context *c = context;
  size_t global = 64;
  return ck_queue_launch(NULL_AT(0, c->queue), NULL_AT(1, c->kernel), 1,
                         NULL_AT(2, &global), NULL, NULL);
}

/* Queue and buffer calls on every device; program and kernel calls on one
 * that builds programs (not ref). */
static void null_arguments(const ck_device *device) {
  static const check_null_case queue_cases[] = {
      {"ck_queue_create", {"device", "queue"}, null_queue_create},
      {"ck_queue_get_device", {"queue", "device"}, null_queue_get_device},
      {"ck_queue_get_kernel_seconds",
       {"queue", "seconds"},
       null_queue_get_kernel_seconds},
      {"ck_buffer_create", {"queue", "buffer"}, null_buffer_create},
      {"ck_buffer_get_size", {"buffer", "size"}, null_buffer_get_size},
      {"ck_buffer_get_host_pointer",
       {"buffer", "pointer"},
       null_buffer_get_host_pointer},
      {"ck_buffer_write", {"queue", "buffer", "source"}, null_buffer_write},
      {"ck_buffer_read", {"queue", "buffer", "destination"}, null_buffer_read},
      {"ck_buffer_copy", {"queue", "destination", "source"}, null_buffer_copy},
      {"ck_buffer_fill", {"queue", "buffer", "pattern"}, null_buffer_fill},
      {"ck_program_build", {"queue", "name", "program"}, null_program_build},
  };
  static const check_null_case kernel_cases[] = {
      {"ck_program_query", {"program", "stats"}, null_program_query},
      {"ck_kernel_create", {"program", "name", "kernel"}, null_kernel_create},
      {"ck_kernel_set_buffer", {"kernel", "buffer"}, null_kernel_set_buffer},
      {"ck_kernel_set_value", {"kernel", "value"}, null_kernel_set_value},
      {"ck_queue_launch", {"queue", "kernel", "global"}, null_queue_launch},
      {"ck_kernel_args_begin", {"kernel", "args"}, null_kernel_args_begin},
      {"ck_kernel_args_buffer", {"args", "buffer"}, null_kernel_args_buffer},
      {"ck_kernel_args_end", {"args"}, null_kernel_args_end},
  };
  null_context c = {.device = device};
  printf("NULL arguments on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &c.queue));
  if (c.queue) {
    CHECK_OK(ck_buffer_create(c.queue, 64, &c.a));
    CHECK_OK(ck_buffer_create(c.queue, 64, &c.b));
  }
  if (!c.a || !c.b)
    goto done;
  check_null_arguments(queue_cases, sizeof queue_cases / sizeof queue_cases[0],
                       &c);
  if (device->backend == CK_BACKEND_REF)
    goto done;
  CHECK_OK(ck_program_build(c.queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64",
                            &c.program));
  if (c.program)
    CHECK_OK(ck_kernel_create(c.program, "ck_selfcheck_generate", &c.kernel));
  if (!c.kernel)
    goto done;
  check_null_arguments(kernel_cases,
                       sizeof kernel_cases / sizeof kernel_cases[0], &c);
  uint32_t count = 16;
  CHECK_INVALID(ck_kernel_set_value(c.kernel, 2, 0, &count),
                "ck_kernel_set_value: size is 0");
done:
  ck_kernel_destroy(c.kernel);
  ck_program_destroy(c.program);
  ck_buffer_destroy(c.a);
  ck_buffer_destroy(c.b);
  ck_queue_destroy(c.queue);
}

/* ---- Calls between processes (CUDA IPC) --------------------------------- */

/* A handle's room: CUDA's IPC handles are 64 bytes. */
static unsigned char ipc_handle[64];

static ck_status null_ipc_buffer_handle(void *context, int which) {
  null_context *c = context;
  return ck__ipc_buffer_handle(NULL_AT(0, c->a), NULL_AT(1, ipc_handle));
}

static ck_status null_ipc_buffer_open(void *context, int which) {
  null_context *c = context;
  uint64_t address = 1;
  return ck__ipc_buffer_open(NULL_AT(0, c->queue), NULL_AT(1, ipc_handle),
                             NULL_AT(2, &address));
}

static ck_status null_ipc_event_make(void *context, int which) {
  null_context *c = context;
  ck__ipc_event *event = NULL;
  ck_status status = ck__ipc_event_make(
      NULL_AT(0, c->queue), NULL_AT(1, &event), NULL_AT(2, ipc_handle));
  ck__ipc_event_close(event);
  return status;
}

static ck_status null_ipc_event_open(void *context, int which) {
  null_context *c = context;
  ck__ipc_event *event = NULL;
  ck_status status = ck__ipc_event_open(
      NULL_AT(0, c->queue), NULL_AT(1, ipc_handle), NULL_AT(2, &event));
  ck__ipc_event_close(event);
  return status;
}

/* Each NULL argument named; a queue of a device other than CUDA refused,
 * with nothing made and what it would make cleared. */
static void ipc_refusals(const ck_device *device) {
  static const check_null_case cases[] = {
      {"ck__ipc_buffer_handle", {"buffer", "handle"}, null_ipc_buffer_handle},
      {"ck__ipc_buffer_open",
       {"queue", "handle", "address"},
       null_ipc_buffer_open},
      {"ck__ipc_event_make", {"queue", "event", "handle"}, null_ipc_event_make},
      {"ck__ipc_event_open", {"queue", "handle", "event"}, null_ipc_event_open},
  };
  null_context c = {.device = device};
  CHECK_OK(ck_queue_create(device, &c.queue));
  if (c.queue)
    CHECK_OK(ck_buffer_create(c.queue, 64, &c.a));
  if (!c.a)
    goto done;
  check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
  if (device->backend == CK_BACKEND_CUDA)
    goto done;
  uint64_t address = 1;
  ck__ipc_event *event = (ck__ipc_event *)&address;
  CHECK(ck__ipc_buffer_handle(c.a, ipc_handle) == CK_ERROR_UNSUPPORTED);
  CHECK(ck__ipc_buffer_open(c.queue, ipc_handle, &address) ==
            CK_ERROR_UNSUPPORTED &&
        address == 0);
  CHECK(ck__ipc_event_make(c.queue, &event, ipc_handle) ==
            CK_ERROR_UNSUPPORTED &&
        event == NULL);
  event = (ck__ipc_event *)&address;
  CHECK(ck__ipc_event_open(c.queue, ipc_handle, &event) ==
            CK_ERROR_UNSUPPORTED &&
        event == NULL);
done:
  ck_buffer_destroy(c.a);
  ck_queue_destroy(c.queue);
}

/* Copies between two ref queues without the host (ck__peer): none
 * without the tests' switch, nor with CLKIT_PEER=0, nor to an OpenCL
 * device; with it, bytes land where asked at the call, the destination
 * reads the source at its host address, and bad ranges are refused. */
static void ref_peers(const ck_device *ref, const ck_device *other) {
  ck__peer *peer = (ck__peer *)&peer;
  CHECK_OK(ck__peer_open(ref, ref, &peer));
  CHECK_MSG(peer == NULL, "ref copies without the tests' switch");
  CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 1));
  if (other) {
    CHECK_OK(ck__peer_open(ref, other, &peer));
    CHECK_MSG(peer == NULL, "copies from ref to %s", other->id);
  }
  setenv("CLKIT_PEER", "0", 1);
  CHECK_OK(ck__peer_open(ref, ref, &peer));
  CHECK_MSG(peer == NULL, "ref copies with CLKIT_PEER=0");
  unsetenv("CLKIT_PEER");
  ck_queue *from = NULL, *to = NULL;
  ck_buffer *source = NULL, *destination = NULL;
  CHECK_OK(ck__peer_open(ref, ref, &peer));
  CHECK_OK(ck_queue_create(ref, &from));
  CHECK_OK(ck_queue_create(ref, &to));
  if (from && to) {
    CHECK_OK(ck_buffer_create(from, 16, &source));
    CHECK_OK(ck_buffer_create(to, 16, &destination));
  }
  if (!peer || !source || !destination)
    goto done;
  const unsigned char bytes[16] = {1, 2,  3,  4,  5,  6,  7,  8,
                                   9, 10, 11, 12, 13, 14, 15, 16};
  unsigned char got[16] = {0};
  CHECK_OK(ck_buffer_write(from, source, 0, 16, bytes, CK_BLOCKING, NULL));
  CHECK_OK(ck_buffer_fill(to, destination, &got[0], 1, 0, 16, NULL));
  CHECK_OK(ck__peer_mark(peer, from));
  CHECK_OK(ck__peer_copy(peer, to, destination, 4, from, source, 2, 8));
  CHECK_OK(ck__peer_follow(peer, to));
  CHECK_OK(ck_buffer_read(to, destination, 0, 16, got, CK_BLOCKING, NULL));
  for (int k = 0; k < 16; ++k)
    CHECK_MSG(got[k] == (k >= 4 && k < 12 ? bytes[k - 2] : 0),
              "byte %d copied: %d", k, got[k]);
  CHECK(ck__peer_direct(peer));
  uint64_t address = 0;
  CHECK_OK(ck__peer_address(peer, source, &address));
  CHECK(address && !memcmp((const void *)(uintptr_t)address, bytes, 16));
  CHECK(ck__peer_copy(peer, to, destination, 12, from, source, 0, 8) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__peer_copy(peer, from, destination, 0, from, source, 0, 8) ==
        CK_ERROR_INVALID_ARGUMENT);
done:
  CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
  ck__peer_close(peer);
  ck_buffer_destroy(source);
  ck_buffer_destroy(destination);
  ck_queue_destroy(from);
  ck_queue_destroy(to);
}

/* Words of ck_selfcheck_generate's bits that differ from the host Philox
 * of seed and pass; every word is poisoned first, so unwritten ones show. */
static int generate_differs(ck_queue *queue, ck_kernel *kernel, ck_buffer *bits,
                            uint32_t count, uint64_t seed, uint32_t pass) {
  static uint32_t got[WORDS];
  uint32_t poison = 0xFFFFFFFFu;
  size_t local = 64, global = (count / 4 + 64) / 64 * 64;
  int wrong = 0;
  CHECK_OK(ck_buffer_fill(queue, bits, &poison, 4, 0, 4 * (size_t)count, NULL));
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, &local, NULL));
  CHECK_OK(ck_buffer_read(queue, bits, 0, 4 * (size_t)count, got, CK_BLOCKING,
                          NULL));
  for (uint32_t item = 0; 4 * item < count; ++item) {
    ck_philox_counter block = ck_philox_block(seed, pass, item);
    for (uint32_t k = 0; k < 4 && 4 * item + k < count; ++k)
      wrong += got[4 * item + k] != block.v[k];
  }
  return wrong;
}

/* The generate kernel's six arguments through a cursor. */
static ck_status generate_arguments(ck_kernel_args *args, ck_kernel *kernel,
                                    ck_buffer *values, ck_buffer *bits,
                                    uint32_t count, uint64_t seed,
                                    uint32_t pass) {
  ck_kernel_args_begin(kernel, args);
  ck_kernel_args_buffer(args, values);
  ck_kernel_args_buffer(args, bits);
  ck_kernel_args_u32(args, count);
  ck_kernel_args_u32(args, (uint32_t)seed);
  ck_kernel_args_u32(args, (uint32_t)(seed >> 32));
  return ck_kernel_args_u32(args, pass);
}

/* ck_kernel_args: a whole sequence launches as numbered calls do; a
 * cursor at a named position sets one argument again; the end refuses
 * too few arguments, a sequence keeps its first failure (later calls do
 * nothing), and one past the kernel's last is refused. A list
 * (ck__kernel_args_add, over ck__kernel_args_list) sets what the calls
 * set, is counted the same, and refuses an unknown letter. */
static void kernel_args_cursor(const ck_device *device) {
  ck_queue *queue = NULL, *second = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  ck_buffer *values = NULL, *bits = NULL, *other = NULL;
  const char *message = "";
  const uint32_t count = WORDS;
  const uint64_t seed = 0x0123456789ABCDEFull;
  printf("kernel arguments by cursor on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  CHECK_OK(ck_queue_create(device, &second));
  if (!queue || !second)
    goto done;
  CHECK_OK(ck_program_build(queue, "selfcheck", "-DCK_SELFCHECK_GROUP=64",
                            &program));
  if (program)
    CHECK_OK(ck_kernel_create(program, "ck_selfcheck_generate", &kernel));
  CHECK_OK(ck_buffer_create(queue, 4 * WORDS, &values));
  CHECK_OK(ck_buffer_create(queue, 4 * WORDS, &bits));
  CHECK_OK(ck_buffer_create(second, 4 * WORDS, &other));
  if (!kernel || !values || !bits || !other)
    goto done;

  ck_kernel_args args;
  CHECK_OK(generate_arguments(&args, kernel, values, bits, count, seed, 3));
  CHECK_OK(ck_kernel_args_end(&args));
  CHECK(generate_differs(queue, kernel, bits, count, seed, 3) == 0);

  /* The pass alone, at its position (the kernel's sixth argument). */
  enum { GENERATE_PASS = 5 };
  CHECK_OK(ck_kernel_args_at(kernel, GENERATE_PASS, &args));
  CHECK_OK(ck_kernel_args_u32(&args, 8));
  CHECK_OK(ck_kernel_args_end(&args));
  CHECK(generate_differs(queue, kernel, bits, count, seed, 8) == 0);

  /* The six from a list, of another seed and pass: 'i' sets the four
   * bytes that 'u' does. */
  const uint64_t listed = 0x2468ACE013579BDFull;
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_OK(ck__kernel_args_add(&args, 0, "bbuuiu", values, bits, count,
                               (unsigned)listed, (int)(listed >> 32), 9u));
  CHECK_OK(ck_kernel_args_end(&args));
  CHECK(generate_differs(queue, kernel, bits, count, listed, 9) == 0);

  /* Five of the six from a list: the end counts them. */
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_OK(ck__kernel_args_add(&args, 0, "bbuuu", values, bits, count, count,
                               count));
  CHECK_INVALID(ck_kernel_args_end(&args), "5 arguments set, but it takes 6");

  /* An unknown letter: the letters before it are set, and its failure is
   * kept past later lists. */
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_INVALID(ck__kernel_args_add(&args, 0, "bqu", values, count), "'q'");
  CHECK(args.next == 1);
  CHECK(ck__kernel_args_add(&args, 0, "u", count) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(args.next == 1);
  CHECK_INVALID(ck_kernel_args_end(&args), "'q'");

  /* Five of the six: every call succeeds, the end counts. */
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_OK(ck_kernel_args_buffer(&args, values));
  CHECK_OK(ck_kernel_args_buffer(&args, bits));
  for (int i = 0; i < 3; ++i)
    CHECK_OK(ck_kernel_args_u32(&args, count));
  CHECK_INVALID(ck_kernel_args_end(&args), "5 arguments set, but it takes 6");

  /* A foreign buffer first: the failure is kept, and its message. */
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK(refused_as_foreign(ck_kernel_args_buffer(&args, other)));
  CHECK(ck_kernel_args_buffer(&args, bits) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_kernel_args_u32(&args, count) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(args.next == 1);
  CHECK(refused_as_foreign(ck_kernel_args_end(&args)));
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "argument 0"), "%s", message);

  /* One past the last: the runtime refuses it, and the end says so. */
  CHECK_OK(generate_arguments(&args, kernel, values, bits, count, seed, 3));
  CHECK(ck_kernel_args_u32(&args, 0) == CK_ERROR_INVALID_ARGUMENT);
  CHECK_INVALID(ck_kernel_args_end(&args), "argument 6");

  /* A NULL buffer or value is kept as the sequence's failure. */
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_INVALID(ck_kernel_args_value(&args, 4, NULL),
                "ck_kernel_args_value: value is NULL");
  CHECK_INVALID(ck_kernel_args_end(&args),
                "ck_kernel_args_value: value is NULL");
  CHECK_INVALID(ck_kernel_args_begin(NULL, &args),
                "ck_kernel_args_begin: kernel is NULL");
  CHECK(ck_kernel_args_u32(&args, 1) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_kernel_args_end(&args) == CK_ERROR_INVALID_ARGUMENT);
done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(values);
  ck_buffer_destroy(bits);
  ck_buffer_destroy(other);
  ck_queue_destroy(queue);
  ck_queue_destroy(second);
}

/* ck_peak_fma's result[0] with CK_PEAK_ITERATIONS=16 and CK_PEAK_WIDTH=1:
 * its eight accumulators start at 0.1 j and take 16 rounds of
 * a = a x scale + offset. */
static double peak_fma_first(double scale, double offset) {
  double sum = 0;
  for (int j = 0; j < 8; ++j) {
    double a = 0.1 * j;
    for (int round = 0; round < 16; ++round)
      a = a * scale + offset;
    sum += a;
  }
  return sum;
}

/* ck_kernel_args_real: a float where the program is single precision (the
 * peak kernel's scale and offset), a double otherwise, which a float
 * parameter refuses by its size. A list's 'r' sets the same. */
static void kernel_args_real(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  ck_buffer *result = NULL;
  float got[64];
  printf("real kernel arguments on %s\n", device->id);
  CHECK_OK(ck_queue_create(device, &queue));
  if (queue)
    CHECK_OK(ck_program_build(
        queue, "peak", "-DCK_PEAK_ITERATIONS=16 -DCK_PEAK_WIDTH=1", &program));
  if (program)
    CHECK_OK(ck_kernel_create(program, "ck_peak_fma", &kernel));
  if (queue)
    CHECK_OK(ck_buffer_create(queue, sizeof got, &result));
  if (!kernel || !result)
    goto done;
  ck_kernel_args args;
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_OK(ck_kernel_args_buffer(&args, result));
  CHECK_OK(ck_kernel_args_real(&args, 0.5, 0));
  CHECK_OK(ck_kernel_args_real(&args, 1.0 / 3.0, 0));
  CHECK_OK(ck_kernel_args_end(&args));
  size_t global = 64;
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, NULL, NULL));
  CHECK_OK(
      ck_buffer_read(queue, result, 0, sizeof got, got, CK_BLOCKING, NULL));
  double want = peak_fma_first(0.5, 1.0 / 3.0);
  CHECK_MSG(fabs(got[0] - want) <= 1e-5 * want, "%.7g (want %.7g)", got[0],
            want);
  CHECK_OK(ck_kernel_args_begin(kernel, &args));
  CHECK_OK(ck__kernel_args_add(&args, 0, "brr", result, 0.25, 0.75));
  CHECK_OK(ck_kernel_args_end(&args));
  CHECK_OK(ck_queue_launch(queue, kernel, 1, &global, NULL, NULL));
  CHECK_OK(
      ck_buffer_read(queue, result, 0, sizeof got, got, CK_BLOCKING, NULL));
  want = peak_fma_first(0.25, 0.75);
  CHECK_MSG(fabs(got[0] - want) <= 1e-5 * want, "%.7g (want %.7g)", got[0],
            want);
  CHECK_OK(ck_kernel_args_at(kernel, 1, &args));
  CHECK(ck_kernel_args_real(&args, 0.5, 1) == CK_ERROR_INVALID_ARGUMENT);
done:
  ck_buffer_destroy(result);
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_queue_destroy(queue);
}

/* A queue's staging (runtime.h): pieces written as one from its write
 * side without a wait, room that grows by half again and keeps what fits,
 * and a read side of its own that ranges are read into. */
static void staging(const ck_device *device) {
  ck_queue *queue = NULL;
  ck_buffer *buffer = NULL;
  ck__staging s;
  memset(&s, 0, sizeof s);
  CHECK_OK(ck_queue_create(device, &queue));
  CHECK_OK(ck_buffer_create(queue, 64, &buffer));
  if (!queue || !buffer)
    goto done;
  const char first[] = "abcd", second[] = "efghij";
  const void *pieces[2] = {first, second};
  const size_t sizes[2] = {4, 6};
  CHECK_OK(ck__staging_write(&s, queue, buffer, 8, 2, pieces, sizes));
  /* The write's own event, waited for alone: not the queue. */
  CHECK(s.written != NULL && s.write_bytes == 15);
  void *kept = s.write;
  /* What fits is written from the same memory, once the last is done. */
  CHECK_OK(ck__staging_write(&s, queue, buffer, 0, 1, pieces, sizes));
  CHECK(s.write == kept && s.write_bytes == 15);
  CHECK_OK(ck__staging_settle(&s));
  CHECK(s.written == NULL);
  char back[18] = {0};
  CHECK_OK(ck_buffer_read(queue, buffer, 0, 18, back, CK_BLOCKING, NULL));
  CHECK(memcmp(back, "abcd", 4) == 0 &&
        memcmp(back + 8, "abcdefghij", 10) == 0);
  /* Nothing to write: nothing queued. */
  CHECK_OK(ck__staging_write(&s, queue, buffer, 0, 0, pieces, sizes));
  CHECK(s.written == NULL);
  CHECK_OK(ck__staging_hold(&s, queue, &s.read, &s.read_bytes, 100));
  CHECK(s.read != NULL && s.read_bytes == 150 && s.write_bytes == 15);
  CHECK_OK(ck__staging_hold(&s, queue, &s.read, &s.read_bytes, 150));
  CHECK(s.read_bytes == 150);
  /* Ranges read one after another, those that follow each other in the
   * buffer at once; an empty one is NULL; the tail's room fits. */
  const void *got[4];
  const size_t at[4] = {8, 12, 12, 0}, lengths[4] = {4, 0, 6, 4};
  void *room = NULL;
  CHECK_OK(
      ck__staging_read(&s, queue, buffer, 4, at, lengths, 100, got, &room));
  CHECK_OK(ck_queue_finish(queue));
  const char *read = s.read;
  CHECK(s.read_bytes == 150 && got[0] == read && got[1] == NULL &&
        got[2] == read + 4 && got[3] == read + 10);
  CHECK(room == read + 14);
  CHECK(memcmp(read, "abcdefghijabcd", 14) == 0);
  /* One pending at the end goes with it. */
  CHECK_OK(ck__staging_write(&s, queue, buffer, 0, 1, pieces, sizes));
  ck__staging_free(&s, queue);
  CHECK(!s.write && !s.read && s.write_bytes == 0 && !s.written);
done:
  ck_buffer_destroy(buffer);
  ck_queue_destroy(queue);
}

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  CHECK(set.count >= 1 && set.devices[0].backend == CK_BACKEND_REF);
  round_trips(&set.devices[0]);
  ref_runs_no_kernels(&set.devices[0]);
  foreign_buffers(&set.devices[0], &set.devices[0]);
  wrapping_sizes(&set.devices[0]);
  null_arguments(&set.devices[0]);
  ipc_refusals(&set.devices[0]);
  staging(&set.devices[0]);
  queue_beside(&set.devices[0]);
  beside_order(&set.devices[0]);
  long opencl = test_opencl_device(&set);
  ref_peers(&set.devices[0], opencl >= 0 ? &set.devices[opencl] : NULL);
  if (opencl >= 0) {
    round_trips(&set.devices[opencl]);
    kernel_launch(&set.devices[opencl]);
    queue_beside(&set.devices[opencl]);
    beside_order(&set.devices[opencl]);
    peak_kernel(&set.devices[opencl]);
    pocl_queues_take_turns(&set.devices[opencl]);
    foreign_buffers(&set.devices[0], &set.devices[opencl]);
    foreign_buffers(&set.devices[opencl], &set.devices[0]);
    foreign_buffers(&set.devices[opencl], &set.devices[opencl]);
    foreign_kernel_arguments(&set.devices[0], &set.devices[opencl]);
    null_arguments(&set.devices[opencl]);
    ipc_refusals(&set.devices[opencl]);
    staging(&set.devices[opencl]);
    kernel_args_cursor(&set.devices[opencl]);
    if (set.devices[opencl].backend == CK_BACKEND_OPENCL)
      kernel_args_real(&set.devices[opencl]);
  }
  ck_device_set_free(&set);
  return CHECK_DONE();
}
