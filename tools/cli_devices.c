/*
 * cli_devices.c - clkit devices: the device list, or each device probed
 * (its builds timed, its self-check against ref); with --peak, the
 * measured peaks (cli_peak.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The options of devices: -1 to go on, else an exit status (0 after
 * --help). */
static int parse_devices_options(int argc, char **argv, int *json, int *probe,
                                 const char **selector) {
  static const struct option options[] = {
      {"json", no_argument, NULL, CLI_OPT_JSON},
      {"probe", no_argument, NULL, CLI_OPT_PROBE},
      {"device", required_argument, NULL, CLI_OPT_DEVICE},
      {"help", no_argument, NULL, CLI_OPT_HELP},
      {NULL, 0, NULL, 0}};
  int c;
  while ((c = cli_next_option(argc, argv, ":hd:", options)) != -1) {
    switch (c) {
    case CLI_OPT_JSON:
      *json = 1;
      break;
    case CLI_OPT_PROBE:
      *probe = 1;
      break;
    case CLI_OPT_DEVICE:
      if (cli_take_selector("devices", optarg, selector) >= 0)
        return EXIT_USAGE;
      break;
    case CLI_OPT_HELP:
      printf("usage: clkit devices [--json] [--probe [--device SEL]]\n"
             "  --json      print the list as JSON\n"
             "  --probe     build and run the self-check on each device:\n"
             "              cold and warm build times, agreement with ref\n"
             "  --peak      each device's measured peaks (clkit peak)\n"
             "  -d, --device SEL\n"
             "              probe only these devices (default: all)\n");
      return EXIT_OK;
    default:
      return cli_option_error("devices", argv, c, options);
    }
  }
  if (optind < argc)
    return cli_unexpected("devices", argv[optind]);
  if (*selector && !*probe)
    return cli_usage_error("devices", "--device chooses what --probe probes; "
                                      "'clkit devices' lists every device");
  return -1;
}

/* One device's probe, as a JSON object (the first of the list where
 * first) or a line. */
static void print_probe(const ck_device *device,
                        const ck_device_probe_result *result, int json,
                        int first) {
  if (json)
    printf("%s{\"device\":\"%s\",\"cold_build_s\":%.6f,\"warm_build_s\":"
           "%.6f,\"warm_from_cache\":%s,\"runtime_cache\":%s,"
           "\"selfcheck_s\":%.6f,\"selfcheck_agrees\":%s}",
           first ? "" : ",", device->id, result->cold_build_s,
           result->warm_build_s, result->warm_from_cache ? "true" : "false",
           result->runtime_cache ? "true" : "false", result->selfcheck_s,
           result->selfcheck_agrees ? "true" : "false");
  else
    printf("%-9s %-40.40s build cold %8.3f s, warm %8.3f s%s; "
           "selfcheck %s (%.3f s)\n",
           device->id, device->name, result->cold_build_s, result->warm_build_s,
           result->warm_from_cache || device->backend == CK_BACKEND_REF ? ""
           : result->runtime_cache ? " (runtime's cache)"
                                   : " (cache off)",
           result->selfcheck_agrees ? "agrees with ref" : "DISAGREES",
           result->selfcheck_s);
}

/* Probes each device selector picks (all by default). */
static int probe_devices(const ck_device_set *set, const char *selector,
                         int json) {
  size_t indices[CLI_MAX_DEVICES], count = 0;
  int exit_code =
      cli_select_devices(set, selector ? selector : "all", indices, &count);
  if (exit_code == EXIT_OK && json)
    printf("{\"probes\":[");
  for (size_t k = 0; exit_code == EXIT_OK && k < count; ++k) {
    const ck_device *device = &set->devices[indices[k]];
    ck_device_probe_result result;
    ck_status status = ck_device_probe(device, &result);
    if (status != CK_OK) {
      exit_code = cli_report(status);
      break;
    }
    print_probe(device, &result, json, k == 0);
    if (!result.selfcheck_agrees)
      exit_code = EXIT_FAILURE_RUN;
  }
  if (json && count)
    printf("]}\n");
  return exit_code;
}

int cli_devices(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; ++i)
    if (strcmp(argv[i], "--peak") == 0)
      return cli_peak(argc, argv);
  int json = 0, probe = 0;
  const char *selector = NULL;
  int exit_code = parse_devices_options(argc, argv, &json, &probe, &selector);
  if (exit_code >= 0)
    return exit_code;
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return cli_report(status);
  exit_code = EXIT_OK;
  if (!probe)
    cli_print_devices(stdout, &set, json);
  else
    exit_code = probe_devices(&set, selector, json);
  ck_device_set_free(&set);
  return exit_code;
}
