/*
 * peak.cl - the device's FP32 arithmetic rate, measured: a kernel of
 * nothing but multiply-adds on independent accumulators, for
 * bench/bench_gas.c to set the gas kernels' arithmetic against.
 *
 * Build-time defines (chosen by the benchmark):
 *   CK_PEAK_ITERATIONS   rounds a work-item runs (a multiple of 4); a round
 *                        is one multiply-add on each accumulator
 *   CK_PEAK_WIDTH        lanes of each accumulator: 1 (float), 2, 4, 8 or
 *                        16 (floatN); GPUs want 1, CPUs their SIMD width
 *
 * A work-item holds CK_PEAK_ACCUMULATORS (8) accumulators of
 * CK_PEAK_WIDTH floats. The multiply-adds of a round depend on none of
 * the others in that round, so they issue back to back; each depends only
 * on its own accumulator's previous round. Flops a work-item:
 * 2 x CK_PEAK_ACCUMULATORS x CK_PEAK_WIDTH x CK_PEAK_ITERATIONS (a
 * multiply-add counts as 2); the final sum into the result (a few adds)
 * is not counted. mad lets each compiler use its fastest multiply-add: a
 * fused FMA on GPUs and on CPUs that have one.
 */
#if !defined(CK_PEAK_ITERATIONS) || !defined(CK_PEAK_WIDTH)
#error "peak.cl needs CK_PEAK_ITERATIONS and CK_PEAK_WIDTH"
#endif
#if CK_PEAK_ITERATIONS % 4 != 0
#error "CK_PEAK_ITERATIONS must be a multiple of 4"
#endif

#define CK_PEAK_ACCUMULATORS 8

#if CK_PEAK_WIDTH == 1
typedef float ck_peak_vector;
#define CK_PEAK_SUM(v) (v)
#elif CK_PEAK_WIDTH == 2
typedef float2 ck_peak_vector;
#define CK_PEAK_SUM(v) ((v).s0 + (v).s1)
#elif CK_PEAK_WIDTH == 4
typedef float4 ck_peak_vector;
#define CK_PEAK_SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#elif CK_PEAK_WIDTH == 8
typedef float8 ck_peak_vector;
#define CK_PEAK_SUM(v)                                                         \
  ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7)
#elif CK_PEAK_WIDTH == 16
typedef float16 ck_peak_vector;
#define CK_PEAK_SUM(v)                                                         \
  ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7 +     \
   (v).s8 + (v).s9 + (v).sa + (v).sb + (v).sc + (v).sd + (v).se + (v).sf)
#else
#error "CK_PEAK_WIDTH must be 1, 2, 4, 8 or 16"
#endif

/* One round: a multiply-add on each accumulator, none waiting on another. */
#define CK_PEAK_ROUND                                                          \
  a0 = mad(a0, multiplier, addend);                                            \
  a1 = mad(a1, multiplier, addend);                                            \
  a2 = mad(a2, multiplier, addend);                                            \
  a3 = mad(a3, multiplier, addend);                                            \
  a4 = mad(a4, multiplier, addend);                                            \
  a5 = mad(a5, multiplier, addend);                                            \
  a6 = mad(a6, multiplier, addend);                                            \
  a7 = mad(a7, multiplier, addend)

/*
 * Work-item i starts its accumulators from i and their index (different
 * lanes get different values, so that no two are provably equal), runs
 * CK_PEAK_ITERATIONS rounds of a = a x scale + offset, and writes the sum
 * of all its lanes into result[i]: the work cannot be dropped, and with
 * |scale| < 1 the values approach offset / (1 - scale) instead of
 * overflowing. scale and offset are arguments, so the compiler cannot fold
 * the rounds away.
 */
__kernel void ck_peak_fma(__global float *result, float scale, float offset) {
  uint i = (uint)get_global_id(0);
#if CK_PEAK_WIDTH == 1
  ck_peak_vector lane = 0.0f;
#elif CK_PEAK_WIDTH == 2
  ck_peak_vector lane = (float2)(0.0f, 1.0f);
#elif CK_PEAK_WIDTH == 4
  ck_peak_vector lane = (float4)(0.0f, 1.0f, 2.0f, 3.0f);
#elif CK_PEAK_WIDTH == 8
  ck_peak_vector lane =
      (float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
#else
  ck_peak_vector lane =
      (float16)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, 9.0f,
                10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f);
#endif
  ck_peak_vector multiplier = (ck_peak_vector)(scale);
  ck_peak_vector addend = (ck_peak_vector)(offset);
  ck_peak_vector start = (ck_peak_vector)(1e-6f * (float)i) + 1e-3f * lane;
  ck_peak_vector a0 = start, a1 = start + 0.1f, a2 = start + 0.2f;
  ck_peak_vector a3 = start + 0.3f, a4 = start + 0.4f, a5 = start + 0.5f;
  ck_peak_vector a6 = start + 0.6f, a7 = start + 0.7f;
  for (uint round = 0; round < CK_PEAK_ITERATIONS; round += 4) {
    CK_PEAK_ROUND;
    CK_PEAK_ROUND;
    CK_PEAK_ROUND;
    CK_PEAK_ROUND;
  }
  ck_peak_vector total = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
  result[i] = CK_PEAK_SUM(total);
}
