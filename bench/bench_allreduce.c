/*
 * bench_allreduce.c - what NCCL's all-reduce takes on this machine, at
 * the sizes an MLP spread sums: a 784-1024-1024-10 network's gradients
 * (7.5 MB in single precision, rows padded as the members hold them), and
 * each of its buckets. The spread's exchange time can be read against it.
 *
 *   bench_allreduce [--gpus 2,4] [--bytes N,N,...] [--iterations I]
 *                   [--out DIR]
 *
 * In one process, for each GPU count of --gpus that the machine has, the
 * GPUs' communicators come from ncclCommInitAll, and each size is summed
 * three ways, as the MLP's members can sum:
 *   - grouped: one thread queues every GPU's all-reduce in one group;
 *   - threads: a host thread a GPU, each queueing its own;
 *   - graph: a host thread a GPU, each replaying a CUDA graph that
 *     recorded its all-reduce.
 * Under an MPI launcher with two or more ranks (a build with MPI), each
 * rank takes the GPU of its rank on the node, and each size is summed by
 * NCCL over the ranks, then by MPI_Allreduce in host memory: floats, and
 * doubles of the same count (the host path's 8 bytes a parameter).
 *
 * Each figure is the mean time of I back-to-back sums (default 200) after
 * 20 untimed, in microseconds, with the algorithm bandwidth (bytes / time)
 * and the bus bandwidth (times 2 (n - 1) / n, as nccl-tests reports it).
 * Rows go to standard output and, with --out, to DIR/allreduce.csv
 * (appended; rank 0 alone writes).
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <nccl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "bench_common.h"

#if CK_HAVE_MPI
#include <mpi.h>
#endif

enum { MAX_GPUS = 16, MAX_SIZES = 16, WARM_UP = 20 };

/* The MLP's gradients, rows of 4 reals: the whole, then its buckets. */
static const char *const default_bytes = "7479456,4210688,3227648,41120";

static const char *cuda_words(int code) {
  return cudaGetErrorString((cudaError_t)code);
}

static const char *nccl_words(int code) {
  return ncclGetErrorString((ncclResult_t)code);
}

/* Ends the program on a failed call, with the library's words for it. */
#define MUST(call, ok, words)                                                  \
  do {                                                                         \
    int code_ = (int)(call);                                                   \
    if (code_ != (int)(ok)) {                                                  \
      fprintf(stderr, "bench_allreduce: %s: %s\n", #call, words(code_));       \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CUDA_OK(call) MUST(call, cudaSuccess, cuda_words)
#define NCCL_OK(call) MUST(call, ncclSuccess, nccl_words)

typedef struct options {
  size_t gpus[MAX_GPUS], gpu_counts;
  size_t bytes[MAX_SIZES], sizes;
  int iterations;
  const char *out;
} options;

/* One row of results: written to stdout and to the CSV file. */
static void report(const options *o, const char *way, size_t gpus, size_t bytes,
                   double seconds) {
  double algorithm = (double)bytes / seconds / 1e9;
  double bus = algorithm * 2.0 * (double)(gpus - 1) / (double)gpus;
  printf("%-16s %4zu %12zu %12.1f %10.2f %10.2f\n", way, gpus, bytes,
         seconds * 1e6, algorithm, bus);
  fflush(stdout);
  if (!o->out)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s/allreduce.csv", o->out);
  struct stat seen;
  int fresh = stat(path, &seen) != 0;
  FILE *file = fopen(path, "a");
  if (!file) {
    fprintf(stderr, "bench_allreduce: %s: %s\n", path, strerror(errno));
    exit(1);
  }
  if (fresh)
    fprintf(file, "way,gpus,bytes,microseconds,algorithm_gbps,bus_gbps\n");
  fprintf(file, "%s,%zu,%zu,%.3f,%.4f,%.4f\n", way, gpus, bytes, seconds * 1e6,
          algorithm, bus);
  fclose(file);
}

/* The largest of the sizes, in bytes. */
static size_t largest_size(const options *o) {
  size_t largest = 0;
  for (size_t s = 0; s < o->sizes; ++s)
    largest = o->bytes[s] > largest ? o->bytes[s] : largest;
  return largest;
}

static void header(void) {
  printf("%-16s %4s %12s %12s %10s %10s\n", "way", "gpus", "bytes", "us",
         "alg GB/s", "bus GB/s");
}

/* ---- one process --------------------------------------------------------- */

typedef struct group {
  size_t count;
  ncclComm_t comms[MAX_GPUS];
  cudaStream_t streams[MAX_GPUS];
  float *data[MAX_GPUS];
  pthread_barrier_t barrier;
  size_t floats;
  int iterations, graphs;
  double seconds; /* thread 0's, over the timed iterations */
} group;

typedef struct worker {
  group *g;
  size_t gpu;
} worker;

static void sum_one(group *g, size_t i) {
  NCCL_OK(ncclAllReduce(g->data[i], g->data[i], g->floats, ncclFloat32, ncclSum,
                        g->comms[i], g->streams[i]));
}

/* A GPU's thread: its own all-reduces, queued directly or replayed from
 * a graph; thread 0 times them between barriers. */
static void *work(void *argument) {
  worker *self = argument;
  group *g = self->g;
  size_t i = self->gpu;
  cudaGraphExec_t exec = NULL;
  CUDA_OK(cudaSetDevice((int)i));
  if (g->graphs) {
    cudaGraph_t graph = NULL;
    CUDA_OK(cudaStreamBeginCapture(g->streams[i],
                                   cudaStreamCaptureModeThreadLocal));
    sum_one(g, i);
    CUDA_OK(cudaStreamEndCapture(g->streams[i], &graph));
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_OK(cudaGraphDestroy(graph));
  }
  for (int pass = 0; pass < 2; ++pass) {
    int count = pass ? g->iterations : WARM_UP;
    pthread_barrier_wait(&g->barrier);
    double started = bench_now();
    for (int k = 0; k < count; ++k) {
      if (exec)
        CUDA_OK(cudaGraphLaunch(exec, g->streams[i]));
      else
        sum_one(g, i);
    }
    CUDA_OK(cudaStreamSynchronize(g->streams[i]));
    pthread_barrier_wait(&g->barrier);
    if (i == 0 && pass)
      g->seconds = (bench_now() - started) / count;
  }
  if (exec)
    CUDA_OK(cudaGraphExecDestroy(exec));
  return NULL;
}

static double threaded(group *g, int graphs) {
  pthread_t threads[MAX_GPUS];
  worker workers[MAX_GPUS];
  g->graphs = graphs;
  pthread_barrier_init(&g->barrier, NULL, (unsigned)g->count);
  for (size_t i = 1; i < g->count; ++i) {
    workers[i] = (worker){g, i};
    pthread_create(&threads[i], NULL, work, &workers[i]);
  }
  workers[0] = (worker){g, 0};
  work(&workers[0]);
  for (size_t i = 1; i < g->count; ++i)
    pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&g->barrier);
  return g->seconds;
}

static double grouped(group *g) {
  double started = 0;
  for (int pass = 0; pass < 2; ++pass) {
    int count = pass ? g->iterations : WARM_UP;
    started = bench_now();
    for (int k = 0; k < count; ++k) {
      NCCL_OK(ncclGroupStart());
      for (size_t i = 0; i < g->count; ++i)
        sum_one(g, i);
      NCCL_OK(ncclGroupEnd());
    }
    for (size_t i = 0; i < g->count; ++i) {
      CUDA_OK(cudaSetDevice((int)i));
      CUDA_OK(cudaStreamSynchronize(g->streams[i]));
    }
  }
  return (bench_now() - started) / g->iterations;
}

static void in_process(const options *o) {
  int devices = 0;
  CUDA_OK(cudaGetDeviceCount(&devices));
  size_t largest = largest_size(o);
  for (size_t c = 0; c < o->gpu_counts; ++c) {
    size_t count = o->gpus[c];
    if (count > (size_t)devices) {
      printf("# %zu GPUs: this machine has %d; skipped\n", count, devices);
      continue;
    }
    static group g;
    memset(&g, 0, sizeof g);
    g.count = count;
    g.iterations = o->iterations;
    int list[MAX_GPUS];
    for (size_t i = 0; i < count; ++i) {
      list[i] = (int)i;
      CUDA_OK(cudaSetDevice((int)i));
      CUDA_OK(cudaStreamCreateWithFlags(&g.streams[i], cudaStreamNonBlocking));
      CUDA_OK(cudaMalloc((void **)&g.data[i], largest));
      CUDA_OK(cudaMemset(g.data[i], 0, largest));
    }
    NCCL_OK(ncclCommInitAll(g.comms, (int)count, list));
    for (size_t s = 0; s < o->sizes; ++s) {
      g.floats = o->bytes[s] / sizeof(float);
      report(o, "process-grouped", count, o->bytes[s], grouped(&g));
      report(o, "process-threads", count, o->bytes[s], threaded(&g, 0));
      report(o, "process-graph", count, o->bytes[s], threaded(&g, 1));
    }
    for (size_t i = 0; i < count; ++i) {
      NCCL_OK(ncclCommDestroy(g.comms[i]));
      CUDA_OK(cudaSetDevice((int)i));
      CUDA_OK(cudaFree(g.data[i]));
      CUDA_OK(cudaStreamDestroy(g.streams[i]));
    }
  }
}

/* ---- over MPI ------------------------------------------------------------ */

#if CK_HAVE_MPI
/* One sum over the ranks: count values on the device through NCCL, or
 * in host memory (host) of MPI type through MPI. */
typedef struct rank_sum {
  size_t count;
  float *device;
  ncclComm_t comm;
  cudaStream_t stream;
  void *host;
  MPI_Datatype type;
} rank_sum;

/* The mean seconds of a sum, every rank starting together. */
static double rank_seconds(const options *o, const rank_sum *sum) {
  double started = 0;
  for (int pass = 0; pass < 2; ++pass) {
    int iterations = pass ? o->iterations : WARM_UP;
    MPI_Barrier(MPI_COMM_WORLD);
    started = MPI_Wtime();
    for (int k = 0; k < iterations; ++k) {
      if (sum->host)
        MPI_Allreduce(MPI_IN_PLACE, sum->host, (int)sum->count, sum->type,
                      MPI_SUM, MPI_COMM_WORLD);
      else
        NCCL_OK(ncclAllReduce(sum->device, sum->device, sum->count, ncclFloat32,
                              ncclSum, sum->comm, sum->stream));
    }
    if (!sum->host)
      CUDA_OK(cudaStreamSynchronize(sum->stream));
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return (MPI_Wtime() - started) / o->iterations;
}

static void over_mpi(const options *o, int rank, int ranks) {
  MPI_Comm node;
  int local = 0, devices = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                      &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  CUDA_OK(cudaGetDeviceCount(&devices));
  if (devices < 1) {
    fprintf(stderr, "bench_allreduce: rank %d: no GPU\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  CUDA_OK(cudaSetDevice(local % devices));
  ncclUniqueId id;
  if (rank == 0)
    NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  rank_sum sum = {0};
  NCCL_OK(ncclCommInitRank(&sum.comm, ranks, id, rank));
  CUDA_OK(cudaStreamCreateWithFlags(&sum.stream, cudaStreamNonBlocking));
  size_t largest = largest_size(o);
  double *host = calloc(largest / sizeof(float), sizeof *host);
  if (!host) {
    fprintf(stderr, "bench_allreduce: rank %d: out of host memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  CUDA_OK(cudaMalloc((void **)&sum.device, largest));
  CUDA_OK(cudaMemset(sum.device, 0, largest));
  for (size_t s = 0; s < o->sizes; ++s) {
    sum.count = o->bytes[s] / sizeof(float);
    sum.host = NULL;
    double nccl = rank_seconds(o, &sum);
    sum.host = host;
    sum.type = MPI_FLOAT;
    double floats = rank_seconds(o, &sum);
    sum.type = MPI_DOUBLE;
    double doubles = rank_seconds(o, &sum);
    if (rank == 0) {
      report(o, "mpi-nccl", (size_t)ranks, o->bytes[s], nccl);
      report(o, "mpi-host-float", (size_t)ranks, o->bytes[s], floats);
      report(o, "mpi-host-double", (size_t)ranks, 2 * o->bytes[s], doubles);
    }
  }
  free(host);
  CUDA_OK(cudaFree(sum.device));
  CUDA_OK(cudaStreamDestroy(sum.stream));
  NCCL_OK(ncclCommDestroy(sum.comm));
}
#endif

/* ---- options ------------------------------------------------------------- */

/* A comma list of whole numbers from low to high, at most capacity. */
static int parse_list(const char *option, const char *text, double low,
                      double high, size_t *values, size_t capacity,
                      size_t *count) {
  char copy[512], *save = NULL;
  *count = 0;
  if (strlen(text) >= sizeof copy) {
    fprintf(stderr, "bench_allreduce: --%s: a list of up to %zu characters\n",
            option, sizeof copy - 1);
    return 2;
  }
  snprintf(copy, sizeof copy, "%s", text);
  for (char *item = strtok_r(copy, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    double value = 0;
    if (*count == capacity) {
      fprintf(stderr, "bench_allreduce: --%s: at most %zu values\n", option,
              capacity);
      return 2;
    }
    if (bench_number("bench_allreduce", option, item, low, high, 1, &value))
      return 2;
    values[(*count)++] = (size_t)value;
  }
  if (*count)
    return 0;
  fprintf(stderr, "bench_allreduce: --%s: no values\n", option);
  return 2;
}

static void usage(FILE *out) {
  fprintf(out, "usage: bench_allreduce [--gpus 2,4] [--bytes N,N,...] "
               "[--iterations I] [--out DIR]\n");
}

int main(int argc, char **argv) {
  options o = {.iterations = 200};
  const char *gpus = "2,4", *bytes = default_bytes;
  static const struct option longs[] = {
      {"gpus", required_argument, NULL, 'g'},
      {"bytes", required_argument, NULL, 'b'},
      {"iterations", required_argument, NULL, 'i'},
      {"out", required_argument, NULL, 'o'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int option;
  double value = 0;
  while ((option = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    switch (option) {
    case 'g':
      gpus = optarg;
      break;
    case 'b':
      bytes = optarg;
      break;
    case 'i':
      if (bench_number("bench_allreduce", "iterations", optarg, 1, 1e6, 1,
                       &value))
        return 2;
      o.iterations = (int)value;
      break;
    case 'o':
      o.out = optarg;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (bench_no_operands("bench_allreduce", argc, argv, optind) ||
      parse_list("gpus", gpus, 2, MAX_GPUS, o.gpus, MAX_GPUS, &o.gpu_counts) ||
      parse_list("bytes", bytes, 4, 1 << 30, o.bytes, MAX_SIZES, &o.sizes))
    return 2;
  if (o.out && mkdir(o.out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "bench_allreduce: --out %s: %s\n", o.out, strerror(errno));
    return 1;
  }
  int rank = 0, ranks = 1;
#if CK_HAVE_MPI
  int launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
                 getenv("PMIX_RANK") || getenv("SLURM_PROCID");
  if (launched) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
#endif
  if (rank == 0) {
    int version = 0;
    ncclGetVersion(&version);
    printf("# NCCL %d, %s\n", version,
           ranks > 1 ? "over MPI ranks" : "in one process");
    header();
  }
#if CK_HAVE_MPI
  if (ranks > 1)
    over_mpi(&o, rank, ranks);
  else
    in_process(&o);
  if (launched)
    MPI_Finalize();
#else
  in_process(&o);
#endif
  return 0;
}
