/*
 * bench_aco.c - ACO quality against time on TSPLIB instances, per device:
 * for each instance, one run of S seconds with the default settings, and
 * the time at which the best tour first came within 2%, 1% and 0.5% of
 * the known optimum; tours constructed per second.
 *
 *   bench_aco --data DIR [--device SEL] [--instances a,b,...]
 *             [--seconds S] [--max-cities N] [--ants M] [--partition K]
 *             [--kicks N] [--ls none|2opt|2opt+oropt] [--seed S]
 *
 * DIR holds NAME.tsp files and optima.txt ("name : length" lines).
 */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "bench_common.h"

enum { MAX_INSTANCES = 64 };

typedef struct entry {
  char name[128];
  uint32_t cities;
} entry;

static int by_size(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->cities < y->cities ? -1 : x->cities > y->cities;
}

/* Seconds at which the trace first reached `gap` percent, or -1. */
static double time_to(const ck_aco_trace_point *points, size_t count,
                      int64_t optimum, double gap) {
  for (size_t i = 0; i < count; ++i)
    if ((double)points[i].length <= (double)optimum * (1.0 + gap / 100.0))
      return points[i].time_s;
  return -1;
}

static void print_time(double seconds) {
  if (seconds < 0)
    printf(" %8s", "-");
  else
    printf(" %8.2f", seconds);
}

/* The optima file's warnings (a malformed line skipped), on stderr. */
static void bench_warn(void *user, const char *line) {
  (void)user;
  fprintf(stderr, "bench_aco: %s\n", line);
}

int main(int argc, char **argv) {
  const char *selector = "all", *data = NULL, *only = NULL;
  double seconds = 10;
  const char *tool = "bench_aco";
  unsigned long max_cities = 100000, ants = 0, partition = 0;
  uint64_t seed = 1;
  long kicks = -1; /* -1: the default */
  double number = 0;
  int local_search = CK_ACO_LS_2OPT_OROPT;
  static const struct option options[] = {
      {"device", required_argument, NULL, 'd'},
      {"data", required_argument, NULL, 'D'},
      {"instances", required_argument, NULL, 'i'},
      {"seconds", required_argument, NULL, 's'},
      {"max-cities", required_argument, NULL, 'm'},
      {"ants", required_argument, NULL, 'a'},
      {"partition", required_argument, NULL, 'p'},
      {"ls", required_argument, NULL, 'l'},
      {"kicks", required_argument, NULL, 'k'},
      {"seed", required_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "d:D:i:s:m:a:p:l:k:S:h", options,
                          NULL)) != -1) {
    switch (c) {
    case 'd':
      selector = optarg;
      break;
    case 'D':
      data = optarg;
      break;
    case 'i':
      only = optarg;
      break;
    case 's':
      if (bench_number(tool, "seconds", optarg, 1e-3, 1e6, 0, &seconds))
        return 2;
      break;
    case 'm':
      if (bench_number(tool, "max-cities", optarg, 2, CK_TSP_MAX_CITIES, 1,
                       &number))
        return 2;
      max_cities = (unsigned long)number;
      break;
    case 'a': /* 0: from the device */
      if (bench_number(tool, "ants", optarg, 0, 65536, 1, &number))
        return 2;
      ants = (unsigned long)number;
      break;
    case 'p':
      if (bench_number(tool, "partition", optarg, 0, 1e9, 1, &number))
        return 2;
      partition = (unsigned long)number;
      break;
    case 'k':
      if (bench_number(tool, "kicks", optarg, 0, 1e9, 1, &number))
        return 2;
      kicks = (long)number;
      break;
    case 'S': /* whole numbers a double holds exactly */
      if (bench_number(tool, "seed", optarg, 0, 9007199254740992.0, 1, &number))
        return 2;
      seed = (uint64_t)number;
      break;
    case 'l': {
      static const char *const searches[] = {"none", "2opt", "2opt+oropt",
                                             NULL};
      static const int modes[] = {CK_ACO_LS_NONE, CK_ACO_LS_2OPT,
                                  CK_ACO_LS_2OPT_OROPT};
      int index = 0;
      if (bench_choice(tool, "ls", optarg, searches, &index))
        return 2;
      local_search = modes[index];
      break;
    }
    case 'h':
      printf("usage: bench_aco --data DIR [--device SEL] [--instances "
             "a,b,...] [--seconds S] [--max-cities N] [--ants M] "
             "[--partition K] [--kicks N] [--ls MODE] [--seed S]\n");
      return 0;
    default:
      return 2;
    }
  }
  if (bench_no_operands("bench_aco", argc, argv, optind))
    return 2;
  if (!data) {
    fprintf(stderr, "bench_aco: --data DIR is needed\n");
    return 2;
  }
  /* The instances: every DIR/NAME.tsp (or the listed names), by size. */
  entry entries[MAX_INSTANCES];
  size_t count = 0;
  DIR *folder = opendir(data);
  if (!folder) {
    fprintf(stderr, "bench_aco: cannot open %s\n", data);
    return 1;
  }
  struct dirent *item;
  while ((item = readdir(folder)) && count < MAX_INSTANCES) {
    size_t length = strlen(item->d_name);
    if (length < 5 || strcmp(item->d_name + length - 4, ".tsp") != 0 ||
        length - 4 >= sizeof entries[0].name)
      continue;
    entry *e = &entries[count];
    memcpy(e->name, item->d_name, length - 4);
    e->name[length - 4] = '\0';
    if (only) {
      char wanted[1024];
      snprintf(wanted, sizeof wanted, ",%s,", only);
      char key[160];
      snprintf(key, sizeof key, ",%s,", e->name);
      if (!strstr(wanted, key))
        continue;
    }
    char path[8704];
    snprintf(path, sizeof path, "%s/%s.tsp", data, e->name);
    ck_tsp_instance instance;
    if (ck_tsp_load(path, &instance))
      return bench_report(path);
    e->cities = instance.cities;
    ck_tsp_free(&instance);
    if (e->cities <= max_cities)
      ++count;
  }
  closedir(folder);
  qsort(entries, count, sizeof entries[0], by_size);
  char optima[4096];
  snprintf(optima, sizeof optima, "%s/optima.txt", data);

  ck_device_set set;
  size_t indices[64], devices = 0;
  if (bench_select(selector, &set, indices, &devices))
    return 1;
  int failures = 0;
  for (size_t k = 0; k < devices; ++k) {
    const ck_device *device = &set.devices[indices[k]];
    printf("\n%s %s, %.0f s a run\n", device->id, device->name, seconds);
    printf("%-10s %7s %5s %7s %10s %8s %8s %8s %8s %10s %12s\n", "instance",
           "cities", "ants", "iters", "tours/s", "setup", "2%", "1%", "0.5%",
           "gap %", "best");
    fflush(stdout);
    for (size_t i = 0; i < count; ++i) {
      char path[8704];
      snprintf(path, sizeof path, "%s/%s.tsp", data, entries[i].name);
      ck_tsp_instance instance;
      ck_aco *aco = NULL;
      ck_aco_report report;
      if (ck_tsp_load(path, &instance)) {
        failures += bench_report(path);
        continue;
      }
      ck_aco_config config;
      ck_aco_config_init(&config);
      config.max_iterations = 0;
      config.max_seconds = seconds;
      config.keep_trace = 1;
      config.ants = (uint32_t)ants;
      /* A segment is at most the whole tour. */
      config.partition =
          (uint32_t)(partition < instance.cities ? partition : instance.cities);
      if (kicks >= 0)
        config.kicks = (uint32_t)kicks;
      config.seed = seed;
      config.local_search = (ck_aco_local_search)local_search;
      int64_t optimum = 0;
      if (ck_tsp_optimum_find(optima, instance.name, path, bench_warn, NULL,
                              &optimum))
        optimum = 0;
      config.optimum = optimum;
      if (ck_aco_create(device, &instance, &config, &aco) ||
          ck_aco_run(aco, &report)) {
        failures += bench_report(entries[i].name);
        ck_aco_destroy(aco);
        ck_tsp_free(&instance);
        continue;
      }
      const ck_aco_trace_point *points;
      size_t trace_count;
      ck_aco_get_trace(aco, &points, &trace_count);
      printf("%-10s %7u %5u %7llu %10.1f %8.2f", entries[i].name,
             instance.cities, report.ants,
             (unsigned long long)report.iterations, report.tours_per_s,
             report.setup_s);
      if (optimum) {
        print_time(time_to(points, trace_count, optimum, 2));
        print_time(time_to(points, trace_count, optimum, 1));
        print_time(time_to(points, trace_count, optimum, 0.5));
        printf(" %10.3f", report.gap);
      } else {
        printf(" %8s %8s %8s %10s", "?", "?", "?", "?");
      }
      printf(" %12lld\n", (long long)report.best_length);
      fflush(stdout);
      ck_aco_destroy(aco);
      ck_tsp_free(&instance);
    }
  }
  ck_device_set_free(&set);
  return failures ? 1 : 0;
}
