/*
 * nn_cuda.c - the CUDA steps of the MLP: the three matrix products on
 * cuBLAS (tensor cores in TF32 mode, when asked), their element-wise ends
 * in nn_cuda.cu, and the OpenCL steps' kernels, built for CUDA, for the
 * rest (gathering a batch, scoring the output, the loss sums).
 *
 * Layouts are the OpenCL kernels' (row-major, weights N x (K + 1) with
 * the biases last), except that rows of weights are pitch[l] reals apart:
 * K + 1 rounded up to a multiple of ROW_MULTIPLE. cuBLAS, column-major,
 * sees each row-major matrix as its transpose, so every product below is
 * written transposed.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_cuda.h"
#include "nn/nn_internal.h"
#include "runtime/runtime.h"

/* Weights rows on 16-byte boundaries: cuBLAS reads unaligned leading
 * dimensions (K + 1 reals) with narrower loads and older kernels. On an
 * H100, the products of a batch-1024 TF32 step of 784-1024-1024-10 took
 * 191 us with rows of K + 1 and 125 us with rows of a multiple of 4
 * (bench/results/h100-2026-11-24-graph/gemm-rows.txt). */
#define ROW_MULTIPLE 4

/* cuBLAS's workspace: the sizes its documentation recommends (Hopper's,
 * and the others'). Its own would do for a step run directly; a step
 * recorded as a graph should not depend on a pool cuBLAS may grow. */
#define WORKSPACE_HOPPER (32u << 20)
#define WORKSPACE_OTHERS (4u << 20)

static ck_status blas_fail(const nn_state *state, cublasStatus_t code,
                           const char *what) {
  return ck__fail(code == CUBLAS_STATUS_ALLOC_FAILED ? CK_ERROR_DEVICE_MEMORY
                                                     : CK_ERROR_DEVICE,
                  "device %s: cuBLAS %s failed: %s", state->device.id, what,
                  cublasGetStatusString(code));
}

static ck_status launch_fail(const nn_state *state, const char *what,
                             int code) {
  return ck__fail(ck__nn_cuda_out_of_memory(code) ? CK_ERROR_DEVICE_MEMORY
                                                  : CK_ERROR_DEVICE,
                  "device %s: launching %s failed: %s%s", state->device.id,
                  what, ck__nn_cuda_error_name(code), ck__cuda_lost_note(code));
}

/* Jumps to fail: with a status already reported. */
#define FAIL_WITH(expr)                                                        \
  do {                                                                         \
    status = (expr);                                                           \
    goto fail;                                                                 \
  } while (0)

static float *pointer(ck_buffer *buffer) {
  return (float *)ck__cuda_pointer(buffer);
}

static ck_status cuda_setup(nn_state *state) {
  ck_status status = CK_OK;
  cublasHandle_t handle = NULL;
  cublasStatus_t code;
  CK_TRY(ck__nn_opencl_steps.setup(state));
  /* The handle belongs to the device current when it is made. */
  CK_TRY(ck__cuda_use_device(state->queue));
  if ((code = cublasCreate(&handle)) != CUBLAS_STATUS_SUCCESS)
    FAIL_WITH(blas_fail(state, code, "cublasCreate"));
  state->blas = handle;
  if ((code = cublasSetStream(handle,
                              (cudaStream_t)ck__cuda_stream(state->queue))) !=
          CUBLAS_STATUS_SUCCESS ||
      (code = cublasSetMathMode(handle, state->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                    : CUBLAS_DEFAULT_MATH)) !=
          CUBLAS_STATUS_SUCCESS)
    FAIL_WITH(blas_fail(state, code, "setup"));
  size_t workspace = ck__cuda_architecture(&state->device) >= 90
                         ? WORKSPACE_HOPPER
                         : WORKSPACE_OTHERS;
  CK_TRY(ck_buffer_create(state->queue, workspace, &state->workspace));
  /* After cublasSetStream, which puts the handle back on its own pool. */
  if ((code = cublasSetWorkspace(handle, ck__cuda_pointer(state->workspace),
                                 workspace)) != CUBLAS_STATUS_SUCCESS)
    FAIL_WITH(blas_fail(state, code, "setting its workspace"));
  /* One layer's gradient at a time: the largest layer's. */
  size_t largest = 1;
  for (int layer = 1; layer <= state->layers; ++layer) {
    size_t size = (size_t)state->sizes[layer] * state->pitch[layer];
    largest = size > largest ? size : largest;
  }
  CK_TRY(ck_buffer_create(state->queue, largest * sizeof(float),
                          &state->gradient));
  CK_TRY(ck_buffer_create(state->queue, sizeof(ck_nn_cuda_step), &state->step));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_gather_step",
                          &state->gather_step_kernel));
  CK_TRY(ck_kernel_create(state->program, "ck_nn_output_step",
                          &state->output_step_kernel));
fail:
  return status;
}

/* Ends the timing span of a cuBLAS call that returned code. */
static ck_status blas_done(nn_state *state, void *span, cublasStatus_t code,
                           const char *what) {
  if (code != CUBLAS_STATUS_SUCCESS) {
    ck__cuda_kernel_abandon(state->queue, span);
    return blas_fail(state, code, what);
  }
  return ck__cuda_kernel_end(state->queue, span);
}

static ck_status sgemm(nn_state *state, cublasOperation_t a_op,
                       cublasOperation_t b_op, int m, int n, int k,
                       const float *a, int lda, const float *b, int ldb,
                       float *c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  void *span = NULL;
  ck_status status = ck__cuda_kernel_begin(state->queue, &span);
  if (status != CK_OK)
    return status;
  return blas_done(state, span,
                   cublasSgemm((cublasHandle_t)state->blas, a_op, b_op, m, n, k,
                               &one, a, lda, b, ldb, &zero, c, ldc),
                   "cublasSgemm");
}

/* Runs one launcher between timing marks; nonzero from it is a failure. */
#define TIMED(state, what, call)                                               \
  do {                                                                         \
    void *span = NULL;                                                         \
    CK_TRY(ck__cuda_kernel_begin((state)->queue, &span));                      \
    int code = (call);                                                         \
    if (code != 0) {                                                           \
      ck__cuda_kernel_abandon((state)->queue, span);                           \
      FAIL_WITH(launch_fail((state), (what), code));                           \
    }                                                                          \
    CK_TRY(ck__cuda_kernel_end((state)->queue, span));                         \
  } while (0)

/* output (count x N) = act(input (count x K) . W^T + b): in cuBLAS's
 * terms output^T (N x count) = W (N x K, ld pitch)^T-view . input^T. */
static ck_status cuda_forward(nn_state *state, int layer, ck_buffer *input,
                              uint32_t first, uint32_t count) {
  ck_status status = CK_OK;
  int N = (int)state->sizes[layer], K = (int)state->sizes[layer - 1];
  float *weights = pointer(state->weights[layer]);
  float *output = pointer(state->activations[layer]);
  int pitch = (int)state->pitch[layer];
  CK_TRY(sgemm(state, CUBLAS_OP_T, CUBLAS_OP_N, N, (int)count, K, weights,
               pitch, pointer(input) + (size_t)first * K, K, output, N));
  TIMED(state, "the bias and activation",
        ck__nn_cuda_bias_activate(ck__cuda_stream(state->queue), (int)count, N,
                                  K, pitch, state->activation[layer], weights,
                                  output));
fail:
  return status;
}

/* previous (count x N) = (delta (count x K) . W[:, :N]) x slope: in
 * cuBLAS's terms previous^T = W(:, :N)^T (N x K, ld pitch) . delta^T. */
static ck_status cuda_backward(nn_state *state, int layer, uint32_t count) {
  ck_status status = CK_OK;
  int N = (int)state->sizes[layer - 1], K = (int)state->sizes[layer];
  float *previous = pointer(state->deltas[layer - 1]);
  CK_TRY(sgemm(state, CUBLAS_OP_N, CUBLAS_OP_N, N, (int)count, K,
               pointer(state->weights[layer]), (int)state->pitch[layer],
               pointer(state->deltas[layer]), K, previous, N));
  TIMED(state, "the activation slope",
        ck__nn_cuda_slope(ck__cuda_stream(state->queue), (size_t)count * N,
                          state->activation[layer - 1],
                          pointer(state->activations[layer - 1]), previous));
fail:
  return status;
}

/* count ones, for the bias gradient's sums: grown to the largest count
 * asked for. */
static ck_status ensure_ones(nn_state *state, uint32_t count) {
  ck_status status = CK_OK;
  float *ones = NULL;
  if (count <= state->ones_count)
    return CK_OK;
  ck_buffer_destroy(state->ones);
  state->ones = NULL;
  state->ones_count = 0;
  if (!(ones = malloc(count * sizeof *ones)))
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for the bias sums");
  for (uint32_t i = 0; i < count; ++i)
    ones[i] = 1.0f;
  CK_TRY(ck_buffer_create(state->queue, count * sizeof *ones, &state->ones));
  CK_TRY(ck_buffer_write(state->queue, state->ones, 0, count * sizeof *ones,
                         ones, CK_BLOCKING, NULL));
  state->ones_count = count;
fail:
  free(ones);
  return status;
}

/* The gradient of layer's weights (out x (in + 1), ld pitch) over count
 * rows, into `into`. The weights' part is delta^T (out x count) . input (count
 * x in): in cuBLAS's terms gradient^T = input^T . delta. The bias column (in)
 * is delta^T . ones, a cuBLAS product too: a thread per bias summing its column
 * of delta waits on memory count times. */
static ck_status layer_gradient(nn_state *state, int layer, uint32_t count,
                                ck_buffer *into) {
  ck_status status = CK_OK;
  int out = (int)state->sizes[layer], in = (int)state->sizes[layer - 1];
  int pitch = (int)state->pitch[layer];
  const float one = 1.0f, zero = 0.0f;
  float *gradient = pointer(into);
  float *delta = pointer(state->deltas[layer]);
  void *span = NULL;
  CK_TRY(ensure_ones(state, count));
  CK_TRY(sgemm(state, CUBLAS_OP_N, CUBLAS_OP_T, in, out, (int)count,
               pointer(state->activations[layer - 1]), in, delta, out, gradient,
               pitch));
  CK_TRY(ck__cuda_kernel_begin(state->queue, &span));
  status =
      blas_done(state, span,
                cublasSgemv((cublasHandle_t)state->blas, CUBLAS_OP_N, out,
                            (int)count, &one, delta, out, pointer(state->ones),
                            1, &zero, gradient + in, pitch),
                "cublasSgemv");
fail:
  return status;
}

/* Puts a step's settings (offset, position, update; NULL: none) on the
 * device, in stream order, where the step's kernels read them. */
static ck_status set_step(nn_state *state, uint32_t offset, uint32_t position,
                          const ck__nn_update *update) {
  ck_status status = CK_OK;
  const ck__nn_update none = {0};
  if (!update)
    update = &none;
  ck_nn_cuda_step settings = {
      offset,
      position,
      {(float)update->decay, (float)update->rate, (float)update->momentum,
       (float)update->beta1, (float)update->beta2, (float)update->epsilon,
       (float)update->correction1, (float)update->correction2}};
  TIMED(state, "the step's settings",
        ck__nn_cuda_set_step(ck__cuda_stream(state->queue),
                             (ck_nn_cuda_step *)ck__cuda_pointer(state->step),
                             &settings));
fail:
  return status;
}

/* The optimiser step of layer from gradient, with the settings on the
 * device: in a training step, those step_begin put there (update's own);
 * called outside one, update's, put there first. */
static ck_status optimize(nn_state *state, int layer, ck_buffer *gradient,
                          const ck__nn_update *update) {
  ck_status status = CK_OK;
  int out = (int)state->sizes[layer], in = (int)state->sizes[layer - 1];
  if (!state->in_step)
    CK_TRY(set_step(state, 0, 0, update));
  TIMED(state, "the optimiser step",
        ck__nn_cuda_optimize(
            ck__cuda_stream(state->queue), out, in + 1,
            (int)state->pitch[layer], state->optimizer, pointer(gradient),
            pointer(state->weights[layer]), pointer(state->first[layer]),
            pointer(state->second[layer]),
            (const ck_nn_cuda_step *)ck__cuda_pointer(state->step)));
fail:
  return status;
}

static ck_status cuda_update(nn_state *state, int layer, uint32_t count,
                             const ck__nn_update *update) {
  ck_status status = CK_OK;
  CK_TRY(layer_gradient(state, layer, count, state->gradient));
  CK_TRY(optimize(state, layer, state->gradient, update));
fail:
  return status;
}

/* A spread member's halves of cuda_update. */
static ck_status cuda_gradient(nn_state *state, int layer, uint32_t count) {
  return layer_gradient(state, layer, count, state->gradients[layer]);
}

static ck_status cuda_apply(nn_state *state, int layer,
                            const ck__nn_update *update) {
  return optimize(state, layer, state->gradients[layer], update);
}

static ck_status sum_fail(const nn_state *state, cudaError_t code,
                          const char *what) {
  cudaGetLastError();
  return ck__fail(code == cudaErrorMemoryAllocation ? CK_ERROR_DEVICE_MEMORY
                                                    : CK_ERROR_DEVICE,
                  "device %s: %s failed: %s%s", state->device.id, what,
                  cudaGetErrorString(code), ck__cuda_lost_note((int)code));
}

/* The sums' stream and events, once, for a member whose sums are its own
 * (state->exchange); before any recording. */
static ck_status ensure_sum_stream(nn_state *state) {
  ck_status status = CK_OK;
  cudaError_t code = cudaSuccess;
  if (!state->exchange || state->sum_joined)
    return CK_OK;
  CK_TRY(ck__cuda_use_device(state->queue));
  if (!state->sum_stream)
    code = cudaStreamCreateWithFlags((cudaStream_t *)&state->sum_stream,
                                     cudaStreamNonBlocking);
  if (code == cudaSuccess && !state->sum_fork)
    code = cudaEventCreateWithFlags((cudaEvent_t *)&state->sum_fork,
                                    cudaEventDisableTiming);
  if (code == cudaSuccess)
    code = cudaEventCreateWithFlags((cudaEvent_t *)&state->sum_joined,
                                    cudaEventDisableTiming);
  if (code != cudaSuccess)
    FAIL_WITH(sum_fail(state, code, "making the gradient sums' stream"));
fail:
  return status;
}

/* The stream `to` waits for what `from` has queued so far, through event:
 * in a recording, `to` joins it. */
static cudaError_t follow(void *to, void *from, void *event) {
  cudaError_t code = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)from);
  return code == cudaSuccess
             ? cudaStreamWaitEvent((cudaStream_t)to, (cudaEvent_t)event, 0)
             : code;
}

/* gradients[high] .. gradients[low] summed over every member through the
 * member's NCCL communicator, on the sums' stream once the step's stream
 * has computed them: the step's next launches overlap the sum. */
static ck_status cuda_sum(nn_state *state, int low, int high, int average) {
  ck_status status = CK_OK;
  void *data[CK_NN_MAX_LAYERS];
  size_t counts[CK_NN_MAX_LAYERS], n = 0;
  CK_TRY(ensure_sum_stream(state));
  CK_TRY(ck__cuda_use_device(state->queue));
  cudaError_t code =
      follow(state->sum_stream, ck__cuda_stream(state->queue), state->sum_fork);
  if (code != cudaSuccess)
    FAIL_WITH(sum_fail(state, code, "starting a gradient sum"));
  for (int l = high; l >= low; --l, ++n) {
    data[n] = pointer(state->gradients[l]);
    counts[n] = (size_t)state->sizes[l] * state->pitch[l];
  }
  if ((status = ck__exchange_member_sum(state->exchange, state->member,
                                        state->sum_stream, data, counts, n, 0,
                                        average)))
    CK_FAIL_PREFIX(status, "device %s: summing gradients: ", state->device.id);
fail:
  return status;
}

/* The step's stream waits for every sum queued on the sums' stream. */
static ck_status cuda_join(nn_state *state) {
  ck_status status = CK_OK;
  CK_TRY(ck__cuda_use_device(state->queue));
  cudaError_t code = follow(ck__cuda_stream(state->queue), state->sum_stream,
                            state->sum_joined);
  if (code != cudaSuccess)
    FAIL_WITH(sum_fail(state, code, "waiting for the gradient sums"));
fail:
  return status;
}

/* Every device address a training step's launches hold, in a fixed
 * order, into addresses (room for ADDRESS_LIMIT); returns how many. */
#define ADDRESS_LIMIT                                                          \
  (sizeof((nn_state *)0)->graph_addresses /                                    \
   sizeof((nn_state *)0)->graph_addresses[0])
static size_t step_addresses(const nn_state *state, const void **addresses) {
  ck_buffer *held[] = {state->index,
                       state->sets[CK_NN_TRAIN].features,
                       state->sets[CK_NN_TRAIN].labels,
                       state->batch_labels,
                       state->losses,
                       state->hits,
                       state->predictions,
                       state->ones,
                       state->gradient,
                       state->step,
                       state->workspace};
  size_t n = 0;
  for (size_t i = 0; i < sizeof held / sizeof held[0]; ++i)
    addresses[n++] = held[i] ? ck__cuda_pointer(held[i]) : NULL;
  for (int l = 0; l <= state->layers; ++l) {
    ck_buffer *layer[] = {state->activations[l], state->deltas[l],
                          state->weights[l],     state->first[l],
                          state->second[l],      state->gradients[l]};
    for (size_t i = 0; i < sizeof layer / sizeof layer[0]; ++i)
      addresses[n++] = layer[i] ? ck__cuda_pointer(layer[i]) : NULL;
  }
  return n;
}

/* The step's settings go to the device first. A step of the rows and
 * delta scale recorded, on the same buffers, replays the recording (with
 * a member's gradient sums, where they are its own); the first step (or
 * the first after buffers changed) is recorded while the driver makes its
 * calls, and step_end runs it; steps of other rows or scale (an epoch's
 * last, short batch) are launched one call at a time. */
static ck_status cuda_step_begin(nn_state *state, const ck__nn_step *step,
                                 int *replayed) {
  ck_status status = CK_OK;
  uint32_t count = step->count;
  *replayed = 0;
  /* Before any recording: growing the ones writes and waits. */
  CK_TRY(ensure_ones(state, count));
  CK_TRY(ensure_sum_stream(state));
  CK_TRY(set_step(state, step->offset, step->position, step->update));
  const void *addresses[ADDRESS_LIMIT];
  size_t n = step_addresses(state, addresses);
  if (state->graph &&
      memcmp(addresses, state->graph_addresses, n * sizeof *addresses) != 0) {
    ck__cuda_graph_destroy(state->graph);
    state->graph = NULL;
  }
  if (state->graph && count == state->graph_count &&
      step->scale == state->graph_scale) {
    *replayed = 1;
    if (step->record_only)
      return CK_OK;
    CK_TRY(ck__cuda_graph_launch(state->queue, state->graph));
    ++state->replays;
    return CK_OK;
  }
  /* A step that holds its sums is recorded only where NCCL records them;
   * elsewhere it is launched one call at a time. */
  int recordable = !step->buckets || ck__exchange_captures(state->exchange);
  if (!state->graph && !state->recording_refused && count && recordable) {
    CK_TRY(ck__cuda_capture_begin(state->queue));
    state->recording = 1;
    state->recording_only = step->record_only;
    state->graph_count = count;
    state->graph_scale = step->scale;
    memcpy(state->graph_addresses, addresses, n * sizeof *addresses);
    if (state->tuning.spoil_recording) {
      (void)cudaStreamSynchronize((cudaStream_t)ck__cuda_stream(state->queue));
      (void)cudaGetLastError();
    }
  } else if (step->record_only) {
    /* Nothing to record, and nothing may run. */
    *replayed = 1;
    return CK_OK;
  }
  state->in_step = 1;
fail:
  return status;
}

static ck_status cuda_step_end(nn_state *state, ck_status status, int *again) {
  state->in_step = 0;
  if (!state->recording)
    return status;
  state->recording = 0;
  int only = state->recording_only;
  state->recording_only = 0;
  void *graph = NULL;
  ck_status ended = ck__cuda_capture_end(state->queue, &graph);
  if (status == CK_OK && ended == CK_OK) {
    state->graph = graph;
    return only ? CK_OK : ck__cuda_graph_launch(state->queue, graph);
  }
  if (only) {
    /* Steps are then made call by call, as after any failed recording;
     * this one runs nothing. */
    ck__cuda_graph_destroy(graph);
    state->recording_refused = 1;
    return CK_OK;
  }
  /* Recording only saves launches: a step whose recording failed (a call
   * no recording takes, or the recording itself refused) is made again
   * call by call, as every later step is. Nothing of it has run. A call
   * that failed for another reason fails again, and that is reported. */
  ck__cuda_graph_destroy(graph);
  state->recording_refused = 1;
  *again = 1;
  return CK_OK;
}

/* Every product of a training step of count rows, on the scratch buffers
 * (activations, deltas, the product gradient) and never the weights:
 * cuBLAS picks and loads its kernels for each shape on its first call. */
static ck_status cuda_prepare(nn_state *state, uint32_t count) {
  ck_status status = CK_OK;
  CK_TRY(ensure_sum_stream(state));
  for (int layer = 1; layer <= state->layers; ++layer)
    CK_TRY(cuda_forward(state, layer, state->activations[layer - 1], 0, count));
  for (int layer = state->layers; layer >= 1; --layer) {
    if (layer >= 2)
      CK_TRY(cuda_backward(state, layer, count));
    CK_TRY(layer_gradient(state, layer, count, state->gradient));
  }
fail:
  return status;
}

static void cuda_teardown(nn_state *state) {
  /* The handle belongs to the queue's device, which must be current. */
  if (state->blas) {
    (void)ck__cuda_use_device(state->queue);
    cublasDestroy((cublasHandle_t)state->blas);
  }
  state->blas = NULL;
  ck_buffer_destroy(state->gradient);
  state->gradient = NULL;
  ck_buffer_destroy(state->ones);
  state->ones = NULL;
  state->ones_count = 0;
  ck__cuda_graph_destroy(state->graph);
  state->graph = NULL;
  if (state->sum_stream) {
    (void)ck__cuda_use_device(state->queue);
    cudaStreamDestroy((cudaStream_t)state->sum_stream);
  }
  if (state->sum_fork)
    cudaEventDestroy((cudaEvent_t)state->sum_fork);
  if (state->sum_joined)
    cudaEventDestroy((cudaEvent_t)state->sum_joined);
  state->sum_stream = state->sum_fork = state->sum_joined = NULL;
  ck_buffer_destroy(state->step);
  state->step = NULL;
  ck_buffer_destroy(state->workspace);
  state->workspace = NULL;
  ck_kernel_destroy(state->gather_step_kernel);
  ck_kernel_destroy(state->output_step_kernel);
  state->gather_step_kernel = state->output_step_kernel = NULL;
  ck__nn_opencl_steps.teardown(state);
}

/* Gathering a batch, scoring the output and the loss sums: the OpenCL
 * steps' kernels, built for CUDA. In a training step, the forms that read
 * the step's offset from the device (the same as offset and position). */
static ck_status cuda_gather(nn_state *state, uint32_t offset, uint32_t count) {
  return ck__nn_opencl_gather_launch(
      state, offset, state->in_step ? state->step : NULL, count);
}

static ck_status cuda_output(nn_state *state, ck_buffer *labels, uint32_t first,
                             uint32_t count, double delta_scale,
                             uint32_t position) {
  return ck__nn_opencl_output_launch(state, labels, first, count, delta_scale,
                                     position,
                                     state->in_step ? state->step : NULL);
}

static unsigned cuda_row_multiple(void) {
  return ROW_MULTIPLE;
}

/* Single precision only: double-precision runs use the OpenCL steps'
 * kernels, built for CUDA. The loss sums are the OpenCL step. */
const ck__nn_steps ck__nn_cuda_steps = {
    .setup = cuda_setup,
    .gather = cuda_gather,
    .forward = cuda_forward,
    .output = cuda_output,
    .backward = cuda_backward,
    .update = cuda_update,
    .gradient = cuda_gradient,
    .apply = cuda_apply,
    .teardown = cuda_teardown,
    .prepare = cuda_prepare,
    .row_multiple = cuda_row_multiple,
    .step_begin = cuda_step_begin,
    .step_end = cuda_step_end,
    .sum = cuda_sum,
    .join = cuda_join,
};
