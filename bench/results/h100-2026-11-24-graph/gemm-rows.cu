// gemm-rows.cu - the eight cuBLAS products of a 784-1024-1024-10 training
// step as src/nn/nn_cuda.c calls them (three forward, two deltas, three
// weight gradients), timed with the weights' rows K + 1 reals apart (the
// biases last, packed) and with rows padded to a multiple of 4 or 32
// reals. Prints microseconds a product (the mean of 100 calls after 3)
// and the total, in FP32 and TF32, at batches 256 and 1024. The matrices
// hold zeros: the time of a product does not depend on its values.
//
//   nvcc -O2 -arch=sm_90 -o gemm-rows gemm-rows.cu -lcublas
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

static const int sizes[4] = {784, 1024, 1024, 10};

// Row stride of a row of `row` reals: packed (multiple 0) or padded.
static int stride(int row, int multiple) {
  return multiple ? (row + multiple - 1) / multiple * multiple : row;
}

// Product p of the step (0-2 forward of layers 1-3, 3-4 the deltas of
// layers 3 and 2, 5-7 the gradients of layers 3, 2 and 1).
static void product(cublasHandle_t handle, int p, int batch, int multiple,
                    float *const *buffers) {
  const float one = 1.0f, zero = 0.0f;
  if (p < 3) {
    int layer = p + 1, N = sizes[layer], K = sizes[layer - 1];
    cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, batch, K, &one, buffers[0],
                stride(K + 1, multiple), buffers[1], K, &zero, buffers[2], N);
  } else if (p < 5) {
    int layer = p == 3 ? 3 : 2, N = sizes[layer - 1], K = sizes[layer];
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, batch, K, &one, buffers[0],
                stride(N + 1, multiple), buffers[3], K, &zero, buffers[4], N);
  } else {
    int layer = 8 - p, out = sizes[layer], in = sizes[layer - 1];
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, &one,
                buffers[5], in, buffers[6], out, &zero, buffers[7],
                stride(in + 1, multiple));
  }
}

int main(void) {
  float *buffers[8];
  for (int i = 0; i < 8; ++i) {
    if (cudaMalloc(&buffers[i], 64 << 20) != cudaSuccess)
      return 1;
    cudaMemset(buffers[i], 0, 64 << 20);
  }
  cublasHandle_t handle;
  cublasCreate(&handle);
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  const int multiples[3] = {0, 4, 32};
  for (int tf32 = 0; tf32 < 2; ++tf32) {
    cublasSetMathMode(handle,
                      tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    for (int batch = 256; batch <= 1024; batch *= 4)
      for (int m = 0; m < 3; ++m) {
        float total = 0;
        printf("%s batch %4d, rows %-15s", tf32 ? "tf32" : "fp32", batch,
               m == 0   ? "K + 1 (packed)"
               : m == 1 ? "multiple of 4"
                        : "multiple of 32");
        for (int p = 0; p < 8; ++p) {
          for (int r = 0; r < 3; ++r)
            product(handle, p, batch, multiples[m], buffers);
          cudaEventRecord(start);
          for (int r = 0; r < 100; ++r)
            product(handle, p, batch, multiples[m], buffers);
          cudaEventRecord(end);
          cudaEventSynchronize(end);
          float milliseconds = 0;
          cudaEventElapsedTime(&milliseconds, start, end);
          printf(" %5.1f", milliseconds * 10);
          total += milliseconds * 10;
        }
        printf("  total %6.1f us\n", total);
      }
  }
  cudaError_t code = cudaGetLastError();
  printf("status: %s\n", cudaGetErrorString(code));
  return code != cudaSuccess;
}
