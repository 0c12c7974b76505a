/*
 * nn_cuda.h - the launchers of nn_cuda.cu, callable from C. Each enqueues
 * one kernel on stream (a cudaStream_t) and returns 0, or the CUDA error
 * code (a cudaError_t) when the launch is refused:
 * ck__nn_cuda_error_name() says what it means.
 */
#ifndef CK_NN_CUDA_H
#define CK_NN_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One optimiser step's settings, in the kernels' precision. */
typedef struct ck_nn_cuda_update {
  float decay, rate, momentum, beta1, beta2, epsilon, correction1, correction2;
} ck_nn_cuda_update;

/* output (M x N) = activate(output + bias column K of weights). */
int ck__nn_cuda_bias_activate(void *stream, int M, int N, int K, int activation,
                              const float *weights, float *output);
/* previous[i] *= slope(activation, values[i]) for i < total. */
int ck__nn_cuda_slope(void *stream, size_t total, int activation,
                      const float *values, float *previous);
/* The optimiser step of weights (M x N, biases last) from the product
 * gradient (M x N, bias column unused) and the count rows of delta. */
int ck__nn_cuda_optimize(void *stream, int M, int N, int count, int optimizer,
                         const float *delta, const float *gradient,
                         float *weights, float *first, float *second,
                         const ck_nn_cuda_update *update);
/* The words for a code a launcher returned. */
const char *ck__nn_cuda_error_name(int code);
/* Whether that code says the device ran out of memory. */
int ck__nn_cuda_out_of_memory(int code);

#ifdef __cplusplus
}
#endif
#endif /* CK_NN_CUDA_H */
