/*
 * values_cuda.cu - a device objective's values into a swarm's or a
 * population's own array on CUDA devices (ck__cuda_take_values): the
 * objective's array may be float or double and strided, the run's is
 * contiguous in its precision. Values are made comparable as
 * ck__host_values makes a host objective's: NaN the largest value of the
 * run's precision, the rest clamped to its range.
 */
#include <cassert>
#include <cfloat>
#include <cstddef>

#include <cuda_runtime_api.h>

/* Thread i: value i, read from `from` (From, every stride), written to
 * `to` (To). */
template <typename From, typename To>
static __global__ void take(const From *from, size_t stride, To *to,
                            size_t count, double largest) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x) {
    double value = (double)from[i * stride];
    if (!(value <= largest))
      value = largest;
    else if (value < -largest)
      value = -largest;
    to[i] = (To)value;
  }
}

template <typename From>
static void launch(cudaStream_t stream, unsigned blocks, const void *from,
                   size_t stride, void *to, size_t to_size, size_t count) {
  if (to_size == 8)
    take<From, double><<<blocks, 256, 0, stream>>>(
        (const From *)from, stride, (double *)to, count, DBL_MAX);
  else
    take<From, float><<<blocks, 256, 0, stream>>>(
        (const From *)from, stride, (float *)to, count, FLT_MAX);
}

/* count values of from_size bytes (4 or 8), stride apart, into to
 * (to_size bytes each, 4 or 8), on stream: 0, or the CUDA error code of
 * the launch. */
extern "C" int ck__cuda_values_launch(void *stream, const void *from,
                                      size_t from_size, size_t stride,
                                      void *to, size_t to_size, size_t count) {
  assert((from_size == 4 || from_size == 8) && (to_size == 4 || to_size == 8));
  assert(stride >= 1 && ((from && to) || count == 0)); /* values_named */
  size_t wanted = (count + 255) / 256;
  unsigned blocks = (unsigned)(wanted < 65536 ? (wanted ? wanted : 1) : 65536);
  cudaStream_t s = (cudaStream_t)stream;
  if (from_size == 8)
    launch<double>(s, blocks, from, stride, to, to_size, count);
  else
    launch<float>(s, blocks, from, stride, to, to_size, count);
  return (int)cudaGetLastError();
}
