/*
 * fuzz_optima.c - files of known optima (ck_tsp_optimum_find). The first
 * byte picks the instance's name and path from the tables below (the
 * lookup tries NAME, NAME without ".tsp" and the path's base name); the
 * rest is the file. A found optimum must be at least 1.
 */
#include "fuzz.h"

#include "clkit/tsp.h"

static const char *const names[] = {"berlin52", "berlin52.tsp", "kroA100",
                                    "a280.tsp", "st70",         "x"};
static const char *const paths[] = {NULL, "data/eil51.tsp", "st70",
                                    "tsp/berlin52.tsp"};
#define COUNT(array) (sizeof array / sizeof array[0])

/* One line for the whole file, which the CLI prints as it is. */
static void warn(void *user, const char *line) {
  FUZZ_CHECK(strncmp(line, "warning: ", 9) == 0 && !strchr(line, '\n'));
  ++*(int *)user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  if (size < 1)
    return 0;
  const char *name = names[data[0] % COUNT(names)];
  const char *instance_path = paths[data[0] / COUNT(names) % COUNT(paths)];
  const char *path = fuzz_file_write(&file, data + 1, size - 1, NULL, 0);
  int64_t optimum = 0;
  int warnings = 0;
  ck_status status =
      ck_tsp_optimum_find(path, name, instance_path, warn, &warnings, &optimum);
  FUZZ_CHECK(warnings <= 1);
  if (status == CK_OK)
    FUZZ_CHECK(optimum >= 1);
  return 0;
}
