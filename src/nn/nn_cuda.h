/*
 * nn_cuda.h - the launchers of nn_cuda.cu, callable from C. Each enqueues
 * one kernel on stream (a cudaStream_t) and returns 0, or the CUDA error
 * code (a cudaError_t) when the launch is refused:
 * ck__nn_cuda_error_name() says what it means.
 */
#ifndef CK_NN_CUDA_H
#define CK_NN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One optimiser step's settings, in the kernels' precision. */
typedef struct ck_nn_cuda_update {
  float decay, rate, momentum, beta1, beta2, epsilon, correction1, correction2;
} ck_nn_cuda_update;

/* A training step's settings, kept in device memory where the step's
 * kernels read them, so that launches recorded once replay for every
 * step: the first row of the batch in the training order and the first
 * entry of its per-sample results (the words that cl/nn.cl's _step
 * kernels read), then the optimiser's. */
typedef struct ck_nn_cuda_step {
  uint32_t offset, position;
  ck_nn_cuda_update update;
} ck_nn_cuda_step;

/* *step (device memory) = value, in stream order. */
int ck__nn_cuda_set_step(void *stream, ck_nn_cuda_step *step,
                         const ck_nn_cuda_step *value);

/* output (M x N) = activate(output + bias column K of weights, whose N
 * rows start pitch reals apart). */
int ck__nn_cuda_bias_activate(void *stream, int M, int N, int K, int pitch,
                              int activation, const float *weights,
                              float *output);
/* previous[i] *= slope(activation, values[i]) for i < total. */
int ck__nn_cuda_slope(void *stream, size_t total, int activation,
                      const float *values, float *previous);
/* The optimiser step of weights (M x N, biases last, rows pitch reals
 * apart) from gradient, first and second (the same layout), with the
 * settings of step->update (step in device memory). */
int ck__nn_cuda_optimize(void *stream, int M, int N, int pitch, int optimizer,
                         const float *gradient, float *weights, float *first,
                         float *second, const ck_nn_cuda_step *step);
/* The words for a code a launcher returned. */
const char *ck__nn_cuda_error_name(int code);
/* Whether that code says the device ran out of memory. */
int ck__nn_cuda_out_of_memory(int code);

#ifdef __cplusplus
}
#endif
#endif /* CK_NN_CUDA_H */
