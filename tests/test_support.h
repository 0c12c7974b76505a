/*
 * test_support.h - helpers several test executables share: a strict JSON
 * validator (for output that must be machine-readable), removal of a
 * temporary directory tree, writing files inside one, and copies of ref
 * that stand for a spread's members.
 */
#ifndef CK_TEST_SUPPORT_H
#define CK_TEST_SUPPORT_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clkit/device.h"
#include "clkit/objectives.h"
#include "clkit/status.h"

/* ---- a small JSON validator ---------------------------------------------- */

typedef struct json_reader {
  const char *at;
  int depth;
} json_reader;

static inline int json_value(json_reader *reader);

static inline void json_space(json_reader *reader) {
  while (*reader->at == ' ' || *reader->at == '\t' || *reader->at == '\n' ||
         *reader->at == '\r')
    ++reader->at;
}

static inline int json_string(json_reader *reader) {
  if (*reader->at != '"')
    return 0;
  ++reader->at;
  for (;;) {
    unsigned char c = (unsigned char)*reader->at;
    if (c == '\0' || c < 0x20)
      return 0;
    ++reader->at;
    if (c == '"')
      return 1;
    if (c != '\\')
      continue;
    c = (unsigned char)*reader->at++;
    if (c == 'u') {
      for (int i = 0; i < 4; ++i, ++reader->at)
        if (!strchr("0123456789abcdefABCDEF", *reader->at) || !*reader->at)
          return 0;
    } else if (!c || !strchr("\"\\/bfnrt", c)) {
      return 0;
    }
  }
}

static inline int json_digits(json_reader *reader) {
  if (*reader->at < '0' || *reader->at > '9')
    return 0;
  while (*reader->at >= '0' && *reader->at <= '9')
    ++reader->at;
  return 1;
}

static inline int json_number(json_reader *reader) {
  if (*reader->at == '-')
    ++reader->at;
  if (*reader->at == '0')
    ++reader->at;
  else if (!json_digits(reader))
    return 0;
  if (*reader->at == '.') {
    ++reader->at;
    if (!json_digits(reader))
      return 0;
  }
  if (*reader->at == 'e' || *reader->at == 'E') {
    ++reader->at;
    if (*reader->at == '+' || *reader->at == '-')
      ++reader->at;
    if (!json_digits(reader))
      return 0;
  }
  return 1;
}

static inline int json_literal(json_reader *reader, const char *word) {
  size_t length = strlen(word);
  if (strncmp(reader->at, word, length) != 0)
    return 0;
  reader->at += length;
  return 1;
}

static inline int json_container(json_reader *reader, char close, int object) {
  ++reader->at;
  if (++reader->depth > 64)
    return 0;
  json_space(reader);
  if (*reader->at == close) {
    ++reader->at;
    --reader->depth;
    return 1;
  }
  for (;;) {
    json_space(reader);
    if (object) {
      if (!json_string(reader))
        return 0;
      json_space(reader);
      if (*reader->at++ != ':')
        return 0;
    }
    if (!json_value(reader))
      return 0;
    json_space(reader);
    char c = *reader->at++;
    if (c == close) {
      --reader->depth;
      return 1;
    }
    if (c != ',')
      return 0;
  }
}

static inline int json_value(json_reader *reader) {
  json_space(reader);
  switch (*reader->at) {
  case '{':
    return json_container(reader, '}', 1);
  case '[':
    return json_container(reader, ']', 0);
  case '"':
    return json_string(reader);
  case 't':
    return json_literal(reader, "true");
  case 'f':
    return json_literal(reader, "false");
  case 'n':
    return json_literal(reader, "null");
  default:
    return json_number(reader);
  }
}

/* One JSON object and nothing else. */
static inline int json_is_object(const char *text) {
  json_reader reader = {text, 0};
  json_space(&reader);
  if (*reader.at != '{' || !json_value(&reader))
    return 0;
  json_space(&reader);
  return *reader.at == '\0';
}

/* Deletes a file or a directory and everything below it. */
/* The whole of a file, NUL-terminated, in malloc()ed memory (caller
 * frees); its size into *size when size is not NULL. NULL if unreadable. */
static inline char *test_read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  size_t used = 0, capacity = 4096;
  char *text = malloc(capacity);
  while (text) {
    size_t got = fread(text + used, 1, capacity - used - 1, file);
    used += got;
    if (got == 0)
      break;
    if (capacity - used - 1 == 0) {
      char *grown = realloc(text, capacity * 2);
      if (!grown) {
        free(text);
        text = NULL;
        break;
      }
      text = grown;
      capacity *= 2;
    }
  }
  fclose(file);
  if (text)
    text[used] = '\0';
  if (size)
    *size = text ? used : 0;
  return text;
}

static inline void remove_tree(const char *path) {
  struct stat info;
  if (lstat(path, &info) != 0)
    return;
  if (S_ISDIR(info.st_mode)) {
    DIR *dir = opendir(path);
    if (dir) {
      struct dirent *entry;
      while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
          continue;
        char child[4096];
        int written =
            snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
        if (written > 0 && (size_t)written < sizeof child)
          remove_tree(child);
      }
      closedir(dir);
    }
    rmdir(path);
  } else {
    unlink(path);
  }
}

#ifdef CK_TEST_CHECK_H
/* An lsq fit on generated data: the coefficients near the truth, and the
 * device's best value near the exact objective at them. */
static inline void check_lsq_fit(const char *device, int mode,
                                 const ck_lsq_data *data,
                                 const double *position, const double *truth,
                                 double best, double coefficient_tolerance,
                                 double absolute_tolerance) {
  double worst = 0, exact = NAN;
  for (size_t d = 0; d < data->dim; ++d)
    worst = fmax(worst, fabs(position[d] - truth[d]));
  CHECK_MSG(worst < coefficient_tolerance,
            "%s lsq mode %d: coefficients off by %g (best %g)", device, mode,
            worst, best);
  CHECK_OK(ck_lsq_evaluate(data, position, &exact));
  CHECK_MSG(fabs(exact - best) <= 1e-3 * exact + absolute_tolerance,
            "%s lsq: device %g, exact %g", device, best, exact);
}
#endif

/* ---- files in a test's temporary directory --------------------------------
 */

/* path = directory/name (capacity bytes). */
static inline void test_path_in(const char *directory, const char *name,
                                char *path, size_t capacity) {
  snprintf(path, capacity, "%s/%s", directory, name);
}

/* Writes size bytes to path: 0, or -1 on failure. */
static inline int test_write_bytes(const char *path, const void *bytes,
                                   size_t size) {
  FILE *file = fopen(path, "wb");
  if (!file)
    return -1;
  size_t put = size ? fwrite(bytes, 1, size, file) : 0;
  int closed = fclose(file);
  return put == size && closed == 0 ? 0 : -1;
}

#ifdef CK_TEST_CHECK_H
/* Writes text to directory/name, checked; the path goes to path. */
static inline void test_write_text(const char *directory, const char *name,
                                   const char *text, char *path,
                                   size_t capacity) {
  test_path_in(directory, name, path, capacity);
  CHECK_MSG(test_write_bytes(path, text, strlen(text)) == 0, "cannot write %s",
            path);
}

/* An optimiser run (count params; objective, where not NULL, evaluated
 * on the host) whose best cannot be reported fails as a mismatch whose
 * message holds expected. */
static inline void check_unreported_best(const char *workload_name,
                                         const ck_device *device,
                                         const ck_param *params, size_t count,
                                         ck_objective_fn objective,
                                         const char *expected) {
  const ck_workload *workload;
  CHECK_OK(ck_workload_find(workload_name, &workload));
  ck_run_options options = {.seed = 1, .objective = objective};
  ck_result result = {0};
  ck_status status =
      ck_workload_run(workload, device, params, count, &options, &result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_MISMATCH && strstr(message, expected),
            "%s on %s: status %d, '%s'", workload_name, device->id, (int)status,
            message);
  ck_result_release(&result);
}

/* An optimiser run in which every evaluation overflows says so, rather
 * than report a best. */
static inline void check_no_finite_best(const char *workload_name,
                                        const ck_device *device,
                                        const ck_param *params, size_t count) {
  check_unreported_best(workload_name, device, params, count, NULL,
                        "no evaluation gave a finite");
}

/* ck_workload_check refuses each of `count` sets of one or two options
 * (a second whose name is NULL is absent) as the run would: with
 * CK_ERROR_INVALID_ARGUMENT, before any device. */
static inline void check_refused_by_check(const ck_workload *workload,
                                          const ck_param (*sets)[2],
                                          size_t count) {
  for (size_t k = 0; k < count; ++k) {
    size_t given = sets[k][1].name ? 2 : 1;
    ck_status status = ck_workload_check(workload, sets[k], given);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT,
              "check of --%s %s: status %d, message '%s'", sets[k][0].name,
              sets[k][0].value, (int)status, message);
  }
}
#endif

/* What a host objective saw (clkit/pso.h's ck_objective_fn), and the
 * call (counted from 1) at which it fails with CK_ERROR_CANCELLED, or 0. */
typedef struct test_host_seen {
  uint64_t calls, fail_at;
  size_t count, dim;
} test_host_seen;

/* Sphere in double, summed in coordinate order as the built-in sums it;
 * user is a test_host_seen, or NULL. */
static inline ck_status test_host_sphere(const double *x, size_t count,
                                         size_t dim, double *f, void *user) {
  test_host_seen *seen = user;
  if (seen) {
    seen->count = count;
    seen->dim = dim;
    if (++seen->calls == seen->fail_at)
      return CK_ERROR_CANCELLED;
  }
  for (size_t i = 0; i < count; ++i) {
    double sum = 0;
    for (size_t d = 0; d < dim; ++d)
      sum += x[i * dim + d] * x[i * dim + d];
    f[i] = sum;
  }
  return CK_OK;
}

/* A device objective's values, for test_batch_sphere. */
typedef struct test_batch_values {
  double f[256];
  uint64_t calls;
} test_batch_values;

/* Sphere over a device batch copied to host memory (off CUDA devices),
 * summed in double as test_host_sphere sums it, its values left in user
 * (a test_batch_values) in host memory. */
static inline ck_status test_batch_sphere(ck_device_batch *batch, void *user) {
  test_batch_values *out = user;
  CHECK_MSG(batch->x_on_host && batch->ordinal == -1 && !batch->stream &&
                batch->count <= 256 && batch->stride == batch->count,
            "a batch of %zu positions, on host %d, ordinal %d, stride %zu",
            batch->count, batch->x_on_host, batch->ordinal, batch->stride);
  if (!batch->x_on_host || batch->count > 256)
    return CK_ERROR_MISMATCH;
  for (size_t i = 0; i < batch->count; ++i) {
    double sum = 0;
    for (size_t d = 0; d < batch->dim; ++d) {
      size_t at = d * batch->stride + i;
      double value = batch->real_size == 8 ? ((const double *)batch->x)[at]
                                           : ((const float *)batch->x)[at];
      sum += value * value;
    }
    out->f[i] = sum;
  }
  batch->values = out->f;
  batch->value_size = 8;
  batch->value_stride = 1;
  batch->values_on_host = 1;
  out->calls++;
  return CK_OK;
}

/* A device objective (clkit/objectives.h) that must never be called:
 * the tests give it where the swarm or GA is refused. */
static inline ck_status never_on_device(ck_device_batch *batch, void *user) {
  (void)batch, (void)user;
  CHECK_MSG(0, "a device objective ran off a CUDA device");
  return CK_ERROR_CANCELLED;
}

/* count copies of ref under ids of their own ("ref0", "ref1", ...): a
 * spread's members that no device work distinguishes. 0 where the devices
 * could not be listed. */
static inline int test_ref_members(ck_device *devices, size_t count) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  if (check_failures)
    return 0;
  for (size_t m = 0; m < count; ++m) {
    devices[m] = set.devices[0];
    snprintf(devices[m].id, sizeof devices[m].id, "ref%zu", m);
  }
  ck_device_set_free(&set);
  return 1;
}

/* One user objective twice: without data (the optimisers evaluate it
 * where they make each point) and taking a data pointer it ignores
 * (evaluated by ck_evaluate_user after): the same values, bit for bit. */
#define TEST_USER_BODY                                                         \
  "  float s = 0.0f;\n"                                                        \
  "  for (int i = 0; i < dim; ++i)\n"                                          \
  "    s += (x[i] - 0.5f) * (x[i] - 0.5f) + sin(3.0f * x[i]);\n"               \
  "  return s;\n"                                                              \
  "}\n"
#define TEST_USER_PLAIN                                                        \
  "float objective(const float *x, int dim) {\n" TEST_USER_BODY
#define TEST_USER_IGNORING                                                     \
  "float objective(const float *x, int dim, __global const float *d) "         \
  "{\n" TEST_USER_BODY

#endif /* CK_TEST_SUPPORT_H */
