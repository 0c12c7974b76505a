/*
 * test_queue.c - the queue abstraction on ref and on an OpenCL device:
 * buffer round trips (blocking and not), fill, copy, range errors, a
 * kernel launch whose output is checked against the host Philox, events
 * and kernel timing.
 */
#include <stdint.h>

#include "check.h"
#include "ck_philox.h"
#include "opencl_device.h"

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
  CHECK_OK(ck_buffer_size(a, &size));
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
    ck_error_last(&message);
    CHECK_MSG(strstr(message, device->id) != NULL, "%s", message);
  }
  CHECK(huge == NULL);

  void *pointer = NULL;
  ck_status host = ck_buffer_host_pointer(a, &pointer);
  if (device->backend == CK_BACKEND_REF) {
    CHECK(host == CK_OK && pointer != NULL);
  } else {
    CHECK(host == CK_ERROR_UNSUPPORTED);
  }
  ck_buffer_destroy(a);
  ck_buffer_destroy(b);
  ck_queue_destroy(queue);
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
  CHECK_OK(ck_kernel_create(program, "ck_selfcheck_generate", &kernel));
  CHECK_OK(ck_buffer_create(queue, sizeof got_values, &values));
  CHECK_OK(ck_buffer_create(queue, sizeof got_bits, &bits));
  if (!kernel || !values || !bits)
    goto done;
  uint32_t count = WORDS, pass = 3;
  uint64_t seed = 0x0123456789ABCDEFull;
  uint32_t seed_low = (uint32_t)seed, seed_high = (uint32_t)(seed >> 32);
  CHECK_OK(ck_kernel_set_buffer(kernel, 0, values));
  CHECK_OK(ck_kernel_set_buffer(kernel, 1, bits));
  CHECK_OK(ck_kernel_set_value(kernel, 2, sizeof count, &count));
  CHECK_OK(ck_kernel_set_value(kernel, 3, sizeof seed_low, &seed_low));
  CHECK_OK(ck_kernel_set_value(kernel, 4, sizeof seed_high, &seed_high));
  CHECK_OK(ck_kernel_set_value(kernel, 5, sizeof pass, &pass));
  size_t local = 64, global = (WORDS / 4 + 64) / 64 * 64, odd = 100;
  CHECK(ck_queue_launch(queue, kernel, 1, &odd, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_queue_launch(queue, kernel, 4, &global, &local, NULL) ==
        CK_ERROR_INVALID_ARGUMENT);
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
  CHECK_OK(ck_event_times(event, &start, &end));
  CHECK_MSG(end >= start && end > 0, "start %llu end %llu",
            (unsigned long long)start, (unsigned long long)end);
  double seconds = -1;
  CHECK_OK(ck_queue_kernel_seconds(queue, &seconds));
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

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  CHECK(set.count >= 1 && set.devices[0].backend == CK_BACKEND_REF);
  round_trips(&set.devices[0]);
  ref_runs_no_kernels(&set.devices[0]);
  long opencl = test_opencl_device(&set);
  if (opencl >= 0) {
    round_trips(&set.devices[opencl]);
    kernel_launch(&set.devices[opencl]);
  }
  ck_device_set_free(&set);
  return CHECK_DONE();
}
