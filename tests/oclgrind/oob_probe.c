/*
 * oob_probe.c - runs one deliberately broken kernel, so that the kernel
 * check can prove it catches what it is meant to catch.
 *
 * usage: oob_probe [NAME [SELECTOR]]
 *
 * Builds program NAME (default "oob") from NAME.cl in $CLKIT_KERNEL_DIR
 * (tests/oclgrind/broken/), then launches its kernel of the same name on
 * the device chosen by SELECTOR (default "oclgrind") over COUNT
 * work-items in groups of GROUP, with arguments (buffer of COUNT uints,
 * uint COUNT). Every API call is expected to succeed: the bug is only
 * visible to a checker such as Oclgrind. Exit status 0 when the kernel
 * ran, 1 when any step failed (with the reason on stderr), 2 for usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clkit/clkit.h"

enum { COUNT = 64, GROUP = 64, MAX_DEVICES = 64 };

static int report(const char *step, ck_status status) {
  const char *message = "";
  ck_error_get_last(&message);
  fprintf(stderr, "oob_probe: %s failed (status %d): %s\n", step, (int)status,
          message && *message ? message : "no message");
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 3) {
    fprintf(stderr, "usage: oob_probe [NAME [SELECTOR]]\n");
    return 2;
  }
  const char *name = argc > 1 ? argv[1] : "oob";
  const char *selector = argc > 2 ? argv[2] : "oclgrind";
  if (!getenv("CLKIT_KERNEL_DIR"))
    fprintf(stderr,
            "oob_probe: warning: CLKIT_KERNEL_DIR is not set, so "
            "'%s' is looked up among the embedded sources\n",
            name);

  ck_device_set set = {0};
  ck_queue *queue = NULL;
  ck_buffer *buffer = NULL;
  ck_program *program = NULL;
  ck_kernel *kernel = NULL;
  int exit_code = 1;
  ck_status status;
  size_t indices[MAX_DEVICES], matches = 0;
  const uint32_t count = COUNT;
  const size_t global = COUNT, local = GROUP;
  uint32_t results[COUNT];

  if ((status = ck_device_enumerate(&set)) != CK_OK) {
    report("ck_device_enumerate", status);
    goto done;
  }
  status = ck_device_select(&set, selector, indices, MAX_DEVICES, &matches);
  if (status != CK_OK) {
    report("ck_device_select", status);
    goto done;
  }
  const ck_device *device = &set.devices[indices[0]];
  if (device->backend != CK_BACKEND_OPENCL) {
    fprintf(stderr,
            "oob_probe: selector '%s' chose %s, not an OpenCL "
            "device\n",
            selector, device->id);
    goto done;
  }
  printf("oob_probe: kernel %s on %s (%s)\n", name, device->id, device->name);

  if ((status = ck_queue_create(device, &queue)) != CK_OK) {
    report("ck_queue_create", status);
    goto done;
  }
  if ((status = ck_buffer_create(queue, COUNT * sizeof(uint32_t), &buffer))) {
    report("ck_buffer_create", status);
    goto done;
  }
  if ((status = ck_program_build(queue, name, NULL, &program)) != CK_OK) {
    report("ck_program_build", status);
    goto done;
  }
  if ((status = ck_kernel_create(program, name, &kernel)) != CK_OK) {
    report("ck_kernel_create", status);
    goto done;
  }
  if ((status = ck_kernel_set_buffer(kernel, 0, buffer)) != CK_OK ||
      (status = ck_kernel_set_value(kernel, 1, sizeof count, &count))) {
    report("setting the kernel arguments", status);
    goto done;
  }
  if ((status = ck_queue_launch(queue, kernel, 1, &global, &local, NULL))) {
    report("ck_queue_launch", status);
    goto done;
  }
  if ((status = ck_queue_finish(queue)) != CK_OK) {
    report("ck_queue_finish", status);
    goto done;
  }
  /* Read back what the kernel wrote (elements 1 .. COUNT-1 for oob). */
  if ((status = ck_buffer_read(queue, buffer, sizeof(uint32_t),
                               (COUNT - 1) * sizeof(uint32_t), results,
                               CK_BLOCKING, NULL)) != CK_OK) {
    report("ck_buffer_read", status);
    goto done;
  }
  printf("oob_probe: kernel %s ran\n", name);
  exit_code = 0;

done:
  ck_kernel_destroy(kernel);
  ck_program_destroy(program);
  ck_buffer_destroy(buffer);
  ck_queue_destroy(queue);
  ck_device_set_free(&set);
  return exit_code;
}
