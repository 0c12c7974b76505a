/*
 * program.c - backend-neutral program builds: assemble the source, add
 * the device's build options, time the build, hand it to the backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* Puts text (named prefix_name) before the assembled source, mapping its
 * lines; the caller's name is sanitised for use in a #line directive. */
static ck_status prepend(const char *prefix_name, const char *prefix_text,
                         char **source, ck__source_map *map) {
  ck_status status = CK_OK;
  char shown[200];
  snprintf(shown, sizeof shown, "%s", prefix_name ? prefix_name : "objective");
  for (char *c = shown; *c; ++c)
    if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
      *c = '_';
  size_t lines = 1;
  for (const char *c = prefix_text; *c; ++c)
    lines += *c == '\n';
  size_t length = strlen(shown) + strlen(prefix_text) + strlen(*source) + 64;
  char *joined = malloc(length);
  ck__line_origin *origins =
      malloc((map->line_count + lines + 2) * sizeof *origins);
  if (!joined || !origins)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", shown);
  snprintf(joined, length, "#line 1 \"%s\"\n%s\n%s", shown, prefix_text,
           *source);
  size_t at = 0;
  snprintf(origins[at].file, sizeof origins[at].file, "%s", shown);
  origins[at++].line = 0;
  for (size_t line = 1; line <= lines; ++line, ++at) {
    snprintf(origins[at].file, sizeof origins[at].file, "%s", shown);
    origins[at].line = line;
  }
  memcpy(origins + at, map->lines, map->line_count * sizeof *origins);
  free(map->lines);
  map->lines = origins;
  map->line_count += at;
  map->line_capacity = map->line_count;
  free(*source);
  *source = joined;
  return CK_OK;
fail:
  free(joined);
  free(origins);
  return status;
}

_Thread_local const ck__build_watch *ck__build_watching;

ck_status ck_program_build(ck_queue *queue, const char *name,
                           const char *defines, ck_program **program) {
  return ck__program_build_prefixed(queue, name, defines, NULL, NULL, program);
}

ck_status ck__program_build_prefixed(ck_queue *queue, const char *name,
                                     const char *defines,
                                     const char *prefix_name,
                                     const char *prefix_text,
                                     ck_program **program) {
  ck_status status = CK_OK;
  ck_program *made = NULL;
  char *source = NULL;
  ck__source_map map = {0};
  char options[1024];
  CK__REQUIRE_IN("ck_program_build", queue);
  CK__REQUIRE_IN("ck_program_build", name);
  CK__REQUIRE_IN("ck_program_build", program);
  *program = NULL;
  double started = ck__seconds();
  made = calloc(1, sizeof *made);
  if (!made)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a program");
  made->queue = queue;
  snprintf(made->name, sizeof made->name, "%s", name);
  if (queue->device.backend == CK_BACKEND_REF)
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "device %s runs no kernels: ref work is plain C in each "
            "workload's ref steps",
            queue->device.id);
  CK_TRY(ck__device_build_options(&queue->device, options, sizeof options));
  if (defines && *defines) {
    size_t used = strlen(options);
    if (used + 1 + strlen(defines) + 1 > sizeof options)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "build options for program '%s' are longer than %zu bytes", name,
              sizeof options);
    snprintf(options + used, sizeof options - used, " %s", defines);
  }
  snprintf(made->stats.options, sizeof made->stats.options, "%s", options);
  CK_TRY(ck__kernels_assemble_mapped(name, &source, NULL, &map));
  if (prefix_text)
    CK_TRY(prepend(prefix_name, prefix_text, &source, &map));
  const ck__build_watch *watch = ck__build_watching;
  if (watch)
    watch->started(watch->user, name);
  status = queue->ops->program_build(queue, made, source, options);
  if (watch)
    watch->ended(watch->user, name, ck__seconds() - started, status != CK_OK);
  if (status == CK_ERROR_BUILD) {
    /* Point the log at cl/ files even where the compiler ignored #line. */
    const char *message = "";
    ck_error_get_last(&message);
    char *rewritten = ck__source_map_rewrite(&map, message);
    char *ordered = ck__build_errors_first(rewritten ? rewritten : message);
    if (ordered)
      ck__fail(CK_ERROR_BUILD, "%s", ordered);
    free(ordered);
    free(rewritten);
  }
  if (status != CK_OK)
    goto fail;
  made->stats.build_seconds = ck__seconds() - started;
  free(source);
  ck__source_map_free(&map);
  *program = made;
  return CK_OK;
fail:
  free(source);
  ck__source_map_free(&map);
  free(made);
  return status;
}

ck_status ck_program_query(const ck_program *program, ck_program_stats *stats) {
  CK__REQUIRE(program);
  CK__REQUIRE(stats);
  *stats = program->stats;
  return CK_OK;
}

ck_status ck_program_destroy(ck_program *program) {
  if (!program)
    return CK_OK;
  program->queue->ops->program_destroy(program);
  free(program);
  return CK_OK;
}
