/*
 * cli_help.c - the help of clkit itself, and of run and compare: the
 * commands, the options every workload takes, and each workload's own
 * options with their defaults and examples.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_bench.h"

/* Help lines end by this column, as a terminal's and a man page's do. */
enum { HELP_WIDTH = 80 };

/* A blank that print_wrapped prints but does not break at. */
#define UNBROKEN_BLANK '\x1f'

/* Prints "  LEFT" and then text from column `column` on, wrapped at
 * HELP_WIDTH under that column; a LEFT too wide for it stands alone. */
static void print_wrapped(FILE *out, const char *left, int column,
                          const char *text) {
  int used = fprintf(out, "  %s", left);
  if (used < 0 || used >= column) {
    fputc('\n', out);
    used = 0;
  }
  size_t room = (size_t)(HELP_WIDTH - column);
  for (const char *at = text; *at;) {
    size_t length = strlen(at);
    if (length > room) {
      /* The last blank that fits, else the end of a word too long. */
      length = room;
      while (length > 0 && at[length] != ' ')
        --length;
      if (length == 0)
        length = strcspn(at, " ");
    }
    fprintf(out, "%*s", column - used, "");
    for (size_t k = 0; k < length; ++k)
      fputc(at[k] == UNBROKEN_BLANK ? ' ' : at[k], out);
    fputc('\n', out);
    used = 0;
    at += length;
    while (*at == ' ')
      ++at;
  }
  if (used)
    fputc('\n', out);
}

static void print_workloads(FILE *out) {
  const ck_workload *const *workloads;
  size_t count = 0;
  ck_workload_list(&workloads, &count);
  for (size_t i = 0; i < count; ++i) {
    const char *name, *summary;
    ck_workload_describe(workloads[i], &name, &summary, NULL);
    print_wrapped(out, name, 23, summary);
  }
}

void cli_print_main_help(FILE *out) {
  fprintf(
      out,
      "usage: clkit <command> [options]\n"
      "\n"
      "Commands:\n"
      "  devices              list devices (ref, ocl:P.D, cuda:N)\n"
      "  peak                 measure each device's bandwidth, flops and "
      "latency\n"
      "  run <workload>       run a workload on the selected device(s)\n"
      "  compare <workload>   run one configuration on several devices\n"
      "  bench                measure each workload on the selected "
      "device(s)\n"
      "  kernels [list|show]  list or print the embedded OpenCL C sources\n"
      "  cache [info|clear]   show or empty the kernel binary cache\n"
      "  gen lsq              write synthetic least-squares data\n"
      "  tsp eval|info        check a TSPLIB tour's length, describe an "
      "instance\n"
      "  demo                 run each workload briefly on the default "
      "device\n"
      "  version              print the version\n"
      "  help [command]       this text, or a command's options\n"
      "\n"
      "Device selectors (--device, or CLKIT_DEVICE): an id (ref, ocl:0.1,\n"
      "cuda:0), ocl:P for a whole platform, opencl or cuda for every device\n"
      "of that API, gpu, cpu, accelerator, all, or a case-insensitive part of\n"
      "a vendor, platform or device name; several separated by commas. The\n"
      "default is CLKIT_DEVICE's, else the fastest device (by the peaks that\n"
      "clkit peak measured, where it did), for run and demo; every device for\n"
      "compare, bench, peak and devices --probe.\n"
      "\n"
      "Workloads:\n");
  print_workloads(out);
}

/* Two or three commands each workload's help ends with, as the docs
 * show them (tests/test_cli.c finds each in README.md or docs/). */
static const struct {
  const char *workload;
  const char *commands[4]; /* NULL-ended */
} workload_examples[] = {
    {"selfcheck",
     {"clkit run selfcheck --device pocl --count 4e6 --passes 8",
      "clkit run selfcheck --json", "clkit compare selfcheck --devices all"}},
    {"pso",
     {"clkit run pso --fn rastrigin --dim 30 --particles 4096 --iters 2000",
      "clkit run pso --fn lsq --data data.csv --out fit.txt",
      "clkit run pso --objective my.cl --lo -5 --hi 5 --dim 8 --trace "
      "best.csv"}},
    {"ga",
     {"clkit run ga --fn rastrigin --dim 32 --islands 256 --island-size 64",
      "clkit run ga --fn sphere --target 1e-8 --trace ga.csv --trace-islands",
      "clkit compare ga --fn ackley --dim 20 --devices all"}},
    {"aco",
     {"clkit run aco examples/data/pr1002.tsp --time 10 --tour-out "
      "best.tour",
      "clkit run aco eil51.tsp --optima optima.txt --target-gap 0",
      "clkit run aco random:1000 --iters 100"}},
    {"nn",
     {"clkit compare nn --train spirals:2000 --epochs 5",
      "clkit run nn --load model.ckn --predict rows.csv --out classes.txt"}},
    {"gas",
     {"clkit run gas --particles 1000 --rho 0.7 --T 1.0 --steps 10000",
      "clkit run gas --restart run.ckg --steps 1000",
      "clkit compare gas --particles 2000 --steps 500"}},
};

/* A workload's options, each help wrapped with its default, then its
 * examples. */
static void print_workload_options(FILE *out, const ck_workload *workload) {
  const char *name;
  const ck_option *options;
  ck_workload_describe(workload, &name, NULL, &options);
  for (const ck_option *option = options; option->name; ++option) {
    char left[64], text[2048];
    snprintf(left, sizeof left, "--%s%s%s", option->name,
             option->value_name ? " " : "",
             option->value_name ? option->value_name : "");
    /* "(default X)" stays on one line: \x1f is UNBROKEN_BLANK. */
    snprintf(text, sizeof text, "%s%s%s%s", option->help,
             option->default_value ? " (default\x1f" : "",
             option->default_value ? option->default_value : "",
             option->default_value ? ")" : "");
    print_wrapped(out, left, 27, text);
  }
  for (size_t i = 0; i < sizeof workload_examples / sizeof workload_examples[0];
       ++i) {
    if (strcmp(workload_examples[i].workload, name) != 0)
      continue;
    fputs("\nExamples:\n", out);
    for (const char *const *command = workload_examples[i].commands; *command;
         ++command)
      fprintf(out, "  %s\n", *command);
  }
}

/* The device options of run and compare, then the options both share. */
static const char run_device_help[] =
    "  -d, --device, --devices SEL\n"
    "                           device selector (default: CLKIT_DEVICE, else\n"
    "                           the fastest device); several run one after\n"
    "                           another\n"
    "      --spread             one run shared by the selected devices (by\n"
    "                           default the fastest device and its like), and\n"
    "                           by the processes of mpirun\n"
    "      --shares W,W,...     with --spread: each device's share of the\n"
    "                           work (default: by each one's measured speed)\n";
static const char compare_device_help[] =
    "  -d, --device, --devices SEL\n"
    "                           devices to compare (default: all); ref always\n"
    "                           runs as the oracle. Over all devices, one "
    "that\n"
    "                           refuses the run is skipped; one named fails "
    "it\n";
static const char common_run_help[] =
    "      --seed N             the run's seed, used on every backend "
    "(default 1)\n"
    "      --json               print the result as one JSON object a line\n"
    "      --quiet              no progress or log lines but warnings\n"
    "      --verbose            show what device compilers wrote as kernels\n"
    "                           built (else shown only when a build fails)\n"
    "  -h, --help               this text\n";

void cli_print_run_help(const char *command) {
  int is_compare = strcmp(command, "compare") == 0;
  printf("usage: clkit %s <workload> [options]\n'clkit %s <workload> "
         "--help' lists a workload's options.\n\nCommon options:\n%s%s%s\n"
         "Workloads:\n",
         command, command, is_compare ? compare_device_help : run_device_help,
         is_compare ? cli_bench_help : "", common_run_help);
  print_workloads(stdout);
}

void cli_print_workload_help(const char *command, const char *name,
                             const ck_workload *workload) {
  int is_compare = strcmp(command, "compare") == 0;
  printf("usage: clkit %s %s [options]\n\nCommon options:\n%s%s%s"
         "\nOptions of %s:\n",
         command, name, is_compare ? compare_device_help : run_device_help,
         is_compare ? cli_bench_help : "", common_run_help, name);
  print_workload_options(stdout, workload);
}
