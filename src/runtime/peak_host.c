/*
 * peak_host.c - ref's peaks: the measures of peak.c in plain C over
 * host memory, timed as the kernels' runs are.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

enum { HOST_ACCUMULATORS = 16 }; /* ref's multiply-add accumulators */

typedef struct host_run {
  float *in, *out; /* count floats each */
  size_t count;
  unsigned long long rounds; /* of a multiply-add run */
  int fp64;
  /* The multiply-adds' operands, read at each run so that the compiler
   * cannot fold them, and what a run computed, so that it cannot be
   * dropped. */
  volatile double scale, offset, sink;
} host_run;

static ck_status host_read(void *user, double *seconds) {
  host_run *h = user;
  double started = ck__seconds();
  float sums[HOST_ACCUMULATORS] = {0};
  for (size_t i = 0; i + HOST_ACCUMULATORS <= h->count; i += HOST_ACCUMULATORS)
    for (int k = 0; k < HOST_ACCUMULATORS; ++k)
      sums[k] += h->in[i + (size_t)k];
  double total = 0;
  for (int k = 0; k < HOST_ACCUMULATORS; ++k)
    total += sums[k];
  *seconds = ck__seconds() - started;
  h->sink = total;
  return CK_OK;
}

static ck_status host_write(void *user, double *seconds) {
  host_run *h = user;
  double started = ck__seconds();
  for (size_t i = 0; i < h->count; ++i)
    h->out[i] = 2.0f;
  *seconds = ck__seconds() - started;
  return CK_OK;
}

static ck_status host_copy(void *user, double *seconds) {
  host_run *h = user;
  double started = ck__seconds();
  memcpy(h->out, h->in, h->count * sizeof *h->in);
  *seconds = ck__seconds() - started;
  return CK_OK;
}

/* rounds of a = a x scale + offset on HOST_ACCUMULATORS accumulators,
 * none waiting on another. */
#define CK__HOST_MULTIPLY_ADDS(name, real)                                     \
  static double name(unsigned long long rounds, real scale, real offset) {     \
    real a[HOST_ACCUMULATORS];                                                 \
    for (int k = 0; k < HOST_ACCUMULATORS; ++k)                                \
      a[k] = (real)0.01 * (real)k;                                             \
    for (unsigned long long r = 0; r < rounds; ++r)                            \
      for (int k = 0; k < HOST_ACCUMULATORS; ++k)                              \
        a[k] = a[k] * scale + offset;                                          \
    double total = 0;                                                          \
    for (int k = 0; k < HOST_ACCUMULATORS; ++k)                                \
      total += a[k];                                                           \
    return total;                                                              \
  }
CK__HOST_MULTIPLY_ADDS(host_multiply_adds_f32, float)
CK__HOST_MULTIPLY_ADDS(host_multiply_adds_f64, double)

static ck_status host_arithmetic(void *user, double *seconds) {
  host_run *h = user;
  double scale = h->scale, offset = h->offset;
  double started = ck__seconds();
  double total =
      h->fp64 ? host_multiply_adds_f64(h->rounds, scale, offset)
              : host_multiply_adds_f32(h->rounds, (float)scale, (float)offset);
  *seconds = ck__seconds() - started;
  h->sink = total;
  return isfinite(total)
             ? CK_OK
             : ck__fail(CK_ERROR_MISMATCH, "the multiply-adds gave %g", total);
}

/* ref's read, write and copy over the two arrays of bytes each. */
static void measure_memory(host_run *h, size_t bytes,
                           const ck_peak_options *options, ck_peak *peak,
                           ck__peak_timing *timing) {
  static const struct {
    ck_peak_metric metric;
    ck__peak_run run;
    double moved; /* bytes moved per byte of an array */
  } memory[] = {{CK_PEAK_READ, host_read, 1},
                {CK_PEAK_WRITE, host_write, 1},
                {CK_PEAK_COPY, host_copy, 2}};
  for (size_t k = 0; k < 3; ++k) {
    ck_peak_value *value = &peak->values[memory[k].metric];
    double seconds = 0;
    unsigned runs = 0;
    if (!((options->metrics >> memory[k].metric) & 1u))
      continue;
    if (ck__peak_time_runs(timing, memory[k].run, h, &seconds, &runs) !=
        CK_OK) {
      ck__peak_note_failure(value, -1);
      continue;
    }
    /* The last run's work, checked: a read's sum, the last float
     * written or copied. */
    int right = memory[k].metric == CK_PEAK_READ    ? h->sink > 0
                : memory[k].metric == CK_PEAK_WRITE ? h->out[h->count - 1] == 2
                                                    : h->out[h->count - 1] == 1;
    if (!right) {
      const char *name = "";
      ck_peak_describe(memory[k].metric, &name, NULL);
      ck__fail(CK_ERROR_MISMATCH, "the host's %s gave a wrong result", name);
      ck__peak_note_failure(value, -1);
      continue;
    }
    double moved = (double)bytes * memory[k].moved;
    ck__peak_note(value, -1, moved / seconds * 1e-9, (unsigned long long)moved,
                  runs, seconds);
  }
}

/* ref's multiply-adds in each precision: their rounds double until a run
 * lasts options->seconds / options->runs. */
static void measure_arithmetic(host_run *h, const ck_peak_options *options,
                               ck_peak *peak, ck__peak_timing *timing) {
  for (h->fp64 = 0; h->fp64 < 2; ++h->fp64) {
    ck_peak_metric metric = h->fp64 ? CK_PEAK_FP64 : CK_PEAK_FP32;
    ck_peak_value *value = &peak->values[metric];
    double seconds = 0, once = 0;
    unsigned runs = 0;
    if (!((options->metrics >> metric) & 1u))
      continue;
    h->rounds = 1u << 12;
    if (host_arithmetic(h, &once) == CK_OK)
      while (once < options->seconds / options->runs &&
             h->rounds < (1ull << 40))
        if (h->rounds *= 2, host_arithmetic(h, &once) != CK_OK)
          break;
    if (ck__peak_time_runs(timing, host_arithmetic, h, &seconds, &runs) !=
        CK_OK) {
      ck__peak_note_failure(value, -1);
      continue;
    }
    unsigned long long size = HOST_ACCUMULATORS * h->rounds;
    ck__peak_note(value, -1, 2.0 * (double)size / seconds * 1e-9, size, runs,
                  seconds);
  }
}

void ck__peak_measure_host(const ck_device *device,
                           const ck_peak_options *options, ck_peak *peak,
                           ck__peak_timing *timing) {
  static const char *const no_transfer =
      "ref's buffers are host memory: nothing is transferred";
  ck__peak_mark(&peak->values[CK_PEAK_LAUNCH], CK_PEAK_NOT_APPLICABLE,
                "ref runs no kernels: its steps are plain C calls");
  for (int m = CK_PEAK_HOST_TO_DEVICE; m <= CK_PEAK_DEVICE_TO_HOST_PINNED; ++m)
    ck__peak_mark(&peak->values[m], CK_PEAK_NOT_APPLICABLE, no_transfer);
  for (int m = CK_PEAK_FP32_CHAIN; m <= CK_PEAK_FP64_CHAIN; ++m)
    ck__peak_mark(&peak->values[m], CK_PEAK_NOT_APPLICABLE,
                  "ref runs no work-items, whose chains clpeak's kernels "
                  "time: its fp32 and fp64 are its peaks");
  host_run h = {.scale = 0.999, .offset = 0.001};
  size_t bytes = (size_t)ck__peak_buffer_bytes(device, options);
  h.count = bytes / sizeof(float);
  h.in = bytes ? aligned_alloc(64, bytes) : NULL;
  h.out = bytes ? aligned_alloc(64, bytes) : NULL;
  if (!h.in || !h.out) {
    ck__fail(CK_ERROR_OUT_OF_MEMORY,
             "out of host memory for two arrays of "
             "%zu bytes",
             bytes);
    ck__peak_fail_rest(peak, options->metrics);
    goto done;
  }
  for (size_t i = 0; i < h.count; ++i)
    h.in[i] = 1.0f, h.out[i] = 0.0f;
  measure_memory(&h, bytes, options, peak, timing);
  measure_arithmetic(&h, options, peak, timing);
done:
  free(h.in);
  free(h.out);
}
