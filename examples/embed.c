/*
 * embed.c - a program built against an installed clkit through pkg-config:
 *
 *   cc embed.c $(pkg-config --cflags --libs clkit) -o embed
 *   ./embed [selector]
 *
 * It lists the devices, runs the self-check workload on the selected one
 * (default: the fastest) and on ref, and then uses the queue directly: a
 * buffer round trip and a kernel taken from clkit's embedded sources.
 */
#include <clkit/clkit.h>
#include <stdio.h>
#include <string.h>

static int fail(ck_status status) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "embed: %s\n", message);
  return status == CK_ERROR_INVALID_ARGUMENT ? 2 : 1;
}

int main(int argc, char **argv) {
  ck_device_set set;
  ck_status status = ck_device_enumerate(&set);
  if (status != CK_OK)
    return fail(status);
  for (size_t i = 0; i < set.count; ++i)
    printf("device %-8s %s\n", set.devices[i].id, set.devices[i].name);

  size_t chosen = 0, count = 0;
  status =
      ck_device_select(&set, argc > 1 ? argv[1] : NULL, &chosen, 1, &count);
  if (status != CK_OK) {
    int code = fail(status);
    ck_device_set_free(&set);
    /* A selector that matches nothing is a usage error, as in the CLI. */
    return status == CK_ERROR_NOT_FOUND ? 2 : code;
  }
  const ck_device *device = &set.devices[chosen];

  /* A workload through the C API, compared with ref. */
  const ck_workload *selfcheck;
  ck_result results[2];
  size_t produced = 0;
  const ck_param params[] = {{"count", "100000"}, {"passes", "2"}};
  ck_run_options options = {.seed = 2024};
  if ((status = ck_workload_find("selfcheck", &selfcheck)) != CK_OK ||
      (status = ck_compare_run(selfcheck, &set, &chosen, 1, 0, params, 2,
                               &options, results, 2, &produced)) != CK_OK)
    return fail(status);
  for (size_t i = 0; i < produced; ++i) {
    printf("selfcheck on %-8s mean %.8f  %s\n", results[i].device,
           results[i].best, results[i].agrees ? "agrees with ref" : "DIFFERS");
    ck_result_release(&results[i]); /* a result owns its options */
  }

  /* The queue directly: write, read back, compare. */
  ck_queue *queue = NULL;
  ck_buffer *buffer = NULL;
  float in[256], out[256];
  for (int i = 0; i < 256; ++i)
    in[i] = (float)i * 0.5f;
  if ((status = ck_queue_create(device, &queue)) != CK_OK ||
      (status = ck_buffer_create(queue, sizeof in, &buffer)) != CK_OK ||
      (status = ck_buffer_write(queue, buffer, 0, sizeof in, in, CK_BLOCKING,
                                NULL)) != CK_OK ||
      (status = ck_buffer_read(queue, buffer, 0, sizeof out, out, CK_BLOCKING,
                               NULL)) != CK_OK) {
    int code = fail(status);
    ck_buffer_destroy(buffer);
    ck_queue_destroy(queue);
    ck_device_set_free(&set);
    return code;
  }
  printf("buffer round trip on %s: %s\n", device->id,
         memcmp(in, out, sizeof in) == 0 ? "ok" : "MISMATCH");

  /* A kernel source another tool could build itself. */
  char *source = NULL;
  size_t size = 0;
  if (ck_kernels_assemble("selfcheck", &source, &size) == CK_OK) {
    printf("assembled cl/selfcheck.cl: %zu bytes, self-contained\n", size);
    ck_memory_free(source);
  }
  int agreed = produced == 2 ? results[1].agrees : 1;
  ck_buffer_destroy(buffer);
  ck_queue_destroy(queue);
  ck_device_set_free(&set);
  return agreed && memcmp(in, out, sizeof in) == 0 ? 0 : 1;
}
