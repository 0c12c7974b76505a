/*
 * bench_nn.c - MLP training throughput per device: for each network and
 * batch size, training samples per second over whole epochs of synthetic
 * data (after one warm-up epoch), and the arithmetic rate that implies.
 * Flops a sample, a multiply-add counting 2 and a bias as the weight of a
 * constant input (W weights, biases included; n0, n1, ... the widths):
 * 2 W forward, 2 W for the gradient, and 2 n(l-1) n(l) for the deltas of
 * each layer l >= 2 (biases take no part in them). Backpropagation stops
 * at the first layer, whose input deltas no step needs, so the count is
 * 6 W - 2 n0 n1 - 2 (n1 + n2 + ...): 6 W would overstate 784-256-128-10
 * by 40%. The activations, the loss and the optimiser are not counted.
 *
 *   bench_nn [--device SEL] [--rows N] [--epochs E] [--math fp32|tf32]
 *            [--networks 784-256-128-10,...] [--batches 64,256,...]
 *
 * --math tf32 runs the products on tensor cores (CUDA devices only); the
 * rows of such runs say TF32.
 */
#include <getopt.h>
#include <string.h>

#include "bench_common.h"

enum { MAX_ITEMS = 16 };

/* A network "784-256-10": 2 to CK_NN_MAX_LAYERS + 1 widths of 1 to
 * CK_NN_MAX_WIDTH joined by '-'; 0, or a message and 2 (the usage exit
 * status). */
static int parse_sizes(const char *text, size_t *sizes, size_t *count) {
  char copy[512], *save = NULL;
  size_t length = strlen(text);
  int ok = length > 0 && length < sizeof copy && text[0] != '-' &&
           text[length - 1] != '-' && !strstr(text, "--");
  *count = 0;
  snprintf(copy, sizeof copy, "%s", text);
  for (char *item = strtok_r(copy, "-", &save); ok && item;
       item = strtok_r(NULL, "-", &save)) {
    double width = 0;
    if (*count == CK_NN_MAX_LAYERS + 1)
      ok = 0;
    else if (bench_number("bench_nn", "networks", item, 1, CK_NN_MAX_WIDTH, 1,
                          &width))
      return 2;
    else
      sizes[(*count)++] = (size_t)width;
  }
  if (ok && *count >= 2)
    return 0;
  fprintf(stderr,
          "bench_nn: --networks: '%s' is not 2 to %d widths joined by '-', "
          "such as 784-256-10\n",
          text, CK_NN_MAX_LAYERS + 1);
  return 2;
}

/* Every network of --networks and batch of --batches (comma lists), before
 * any device is touched; 0, or a message and 2. */
static int check_lists(const char *networks, const char *batches) {
  char list[512], *save = NULL;
  size_t sizes[CK_NN_MAX_LAYERS + 1], count = 0;
  double batch = 0;
  if (strlen(networks) >= sizeof list || strlen(batches) >= sizeof list)
    return fprintf(stderr,
                   "bench_nn: --networks and --batches take up to "
                   "%zu characters\n",
                   sizeof list - 1),
           2;
  snprintf(list, sizeof list, "%s", networks);
  for (char *net = strtok_r(list, ",", &save); net;
       net = strtok_r(NULL, ",", &save))
    if (parse_sizes(net, sizes, &count))
      return 2;
  snprintf(list, sizeof list, "%s", batches);
  for (char *b = strtok_r(list, ",", &save); b; b = strtok_r(NULL, ",", &save))
    if (bench_number("bench_nn", "batches", b, 1, 1 << 24, 1, &batch))
      return 2;
  return 0;
}

/* Random features and labels: throughput does not depend on the values. */
static int make_data(size_t rows, size_t features, size_t classes,
                     ck_dataset *data) {
  memset(data, 0, sizeof *data);
  data->rows = rows;
  data->features = features;
  data->classes = classes;
  data->values = malloc(rows * features * sizeof(float));
  data->labels = malloc(rows * sizeof(int32_t));
  if (!data->values || !data->labels)
    return -1;
  uint32_t state = 12345;
  for (size_t i = 0; i < rows * features; ++i) {
    state = state * 1664525u + 1013904223u;
    data->values[i] = (float)(state >> 8) / 16777216.0f;
  }
  for (size_t r = 0; r < rows; ++r)
    data->labels[r] = (int32_t)(r % classes);
  return 0;
}

int main(int argc, char **argv) {
  const char *selector = "all";
  const char *networks = "16-256-256-26,784-256-128-10,784-1024-1024-10";
  const char *batches = "64,256,1024";
  size_t rows = 16384;
  int epochs = 3;
  double number = 0;
  ck_nn_math math = CK_NN_FP32;
  static const struct option long_options[] = {
      {"device", required_argument, NULL, 'd'},
      {"rows", required_argument, NULL, 'r'},
      {"epochs", required_argument, NULL, 'e'},
      {"networks", required_argument, NULL, 'n'},
      {"batches", required_argument, NULL, 'b'},
      {"math", required_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  static const char usage[] =
      "usage: bench_nn [--device SEL] [--rows N] [--epochs E] "
      "[--math fp32|tf32] [--networks A-B-C,...] [--batches N,...]\n";
  int option;
  while ((option = getopt_long(argc, argv, "d:h", long_options, NULL)) != -1) {
    switch (option) {
    case 'd':
      selector = optarg;
      break;
    case 'r':
      if (bench_number("bench_nn", "rows", optarg, 1, 1e9, 1, &number))
        return 2;
      rows = (size_t)number;
      break;
    case 'e':
      if (bench_number("bench_nn", "epochs", optarg, 1, 1000, 1, &number))
        return 2;
      epochs = (int)number;
      break;
    case 'n':
      networks = optarg;
      break;
    case 'b':
      batches = optarg;
      break;
    case 'm':
      if (strcmp(optarg, "fp32") && strcmp(optarg, "tf32"))
        return fprintf(stderr, "bench_nn: --math is fp32 or tf32\n"), 2;
      math = strcmp(optarg, "tf32") == 0 ? CK_NN_TF32 : CK_NN_FP32;
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      fputs(usage, stderr);
      return 2;
    }
  }
  if (bench_no_operands("bench_nn", argc, argv, optind))
    return 2;
  if (check_lists(networks, batches))
    return 2;
  ck_device_set set;
  size_t indices[64], device_count = 0;
  if (bench_select(selector, &set, indices, &device_count))
    return 1;
  int failed = 0;
  printf("%-10s %-20s %6s %14s %10s %10s %s\n", "device", "network", "batch",
         "samples/s", "GFLOP/s", "epoch_s", "math");
  for (size_t d = 0; d < device_count; ++d) {
    const ck_device *device = &set.devices[indices[d]];
    char list[512]; /* check_lists took the lengths */
    snprintf(list, sizeof list, "%s", networks);
    char *save = NULL;
    for (char *net = strtok_r(list, ",", &save); net;
         net = strtok_r(NULL, ",", &save)) {
      ck_nn_config config;
      ck_nn_config_init(&config);
      config.math = math;
      if (parse_sizes(net, config.sizes, &config.layer_count)) {
        failed = 2; /* not reached: check_lists read every network */
        break;
      }
      /* Flops a sample, as the header counts them. */
      double flops = 0;
      for (size_t l = 1; l < config.layer_count; ++l) {
        double in = (double)config.sizes[l - 1], out = (double)config.sizes[l];
        flops += 4.0 * (in + 1.0) * out + (l >= 2 ? 2.0 * in * out : 0.0);
      }
      ck_dataset data;
      if (make_data(rows, config.sizes[0], config.sizes[config.layer_count - 1],
                    &data)) {
        fprintf(stderr, "bench_nn: out of memory\n");
        ck_dataset_free(&data);
        failed = 1;
        break;
      }
      char batch_list[512];
      snprintf(batch_list, sizeof batch_list, "%s", batches);
      char *batch_save = NULL;
      for (char *b = strtok_r(batch_list, ",", &batch_save); b;
           b = strtok_r(NULL, ",", &batch_save)) {
        config.batch = strtoul(b, NULL, 10);
        ck_nn *nn = NULL;
        double *seconds = calloc((size_t)epochs, sizeof *seconds);
        int ok = seconds && !ck_nn_create(device, &config, &nn) &&
                 !ck_nn_set_preprocessing(nn, &data, CK_NORMALIZE_NONE) &&
                 !ck_nn_attach(nn, CK_NN_TRAIN, &data) &&
                 !ck_nn_train_epoch(nn, NULL);
        for (int e = 0; ok && e < epochs; ++e) {
          double started = bench_now();
          ok = !ck_nn_train_epoch(nn, NULL);
          seconds[e] = bench_now() - started;
        }
        if (!ok) {
          bench_report(net);
          failed = 1;
        } else {
          double epoch_s = bench_median(seconds, epochs);
          double rate = (double)rows / epoch_s;
          printf("%-10s %-20s %6zu %14.0f %10.1f %10.4f %s\n", device->id, net,
                 config.batch, rate, flops * rate * 1e-9, epoch_s,
                 math == CK_NN_TF32 ? "TF32" : "FP32");
          fflush(stdout);
        }
        free(seconds);
        ck_nn_destroy(nn);
      }
      ck_dataset_free(&data);
    }
  }
  ck_device_set_free(&set);
  return failed;
}
