/*
 * program.c - backend-neutral program builds: assemble the source, add
 * the device's build options, time the build, hand it to the backend.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/backend.h"

/* The name a caller's source goes by in the assembled text, whatever its
 * file: one source is then one program to the caches (clkit's, PoCL's,
 * NVIDIA's), whichever path it was read from. A caller that writes its
 * text to a new temporary file each time would build it each time if the
 * path were in the text. Messages name the caller's file (renamed). */
static const char prefix_line_name[] = "ck_user_source.cl";

/* A copy of text with every `from` replaced by `to` (malloc'd; NULL when
 * out of memory). */
static char *renamed(const char *text, const char *from, const char *to) {
  assert(text && from && *from && to);
  size_t count = 0, from_length = strlen(from), to_length = strlen(to);
  for (const char *at = strstr(text, from); at;
       at = strstr(at + from_length, from))
    ++count;
  char *out = malloc(strlen(text) + count * to_length + 1);
  if (!out)
    return NULL;
  char *end = out;
  for (const char *at = text;;) {
    const char *found = strstr(at, from);
    size_t keep = found ? (size_t)(found - at) : strlen(at);
    memcpy(end, at, keep);
    end += keep;
    if (!found)
      break;
    memcpy(end, to, to_length);
    end += to_length;
    at = found + from_length;
  }
  *end = '\0';
  return out;
}

/* Puts text (named prefix_name) before the assembled source, mapping its
 * lines to prefix_name, sanitised as messages show it; the text's #line
 * names it prefix_line_name. */
static ck_status prepend(const char *prefix_name, const char *prefix_text,
                         char **source, ck__source_map *map) {
  ck_status status = CK_OK;
  assert(prefix_text && source && *source && map);
  char shown[200];
  snprintf(shown, sizeof shown, "%s", prefix_name ? prefix_name : "objective");
  for (char *c = shown; *c; ++c)
    if (*c == '"' || *c == '\\' || (unsigned char)*c < 32)
      *c = '_';
  size_t lines = 1;
  for (const char *c = prefix_text; *c; ++c)
    lines += *c == '\n';
  size_t length =
      sizeof prefix_line_name + strlen(prefix_text) + strlen(*source) + 64;
  char *joined = malloc(length);
  ck__line_origin *origins =
      malloc((map->line_count + lines + 2) * sizeof *origins);
  if (!joined || !origins)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", shown);
  snprintf(joined, length, "#line 1 \"%s\"\n%s\n%s", prefix_line_name,
           prefix_text, *source);
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

/* The backend's build of source, told to the run's build watch; a failed
 * build's message points at cl/ files even where the compiler ignored
 * #line, and at the caller's file (prefixed) where it did not. */
static ck_status build(ck_queue *queue, ck_program *program, const char *source,
                       const char *options, const ck__source_map *map,
                       int prefixed, double started) {
  assert(queue && queue->ops->program_build && program && source && options);
  assert(map && (!prefixed || map->line_count >= 1));
  const ck__build_watch *watch = ck__build_watching;
  if (watch)
    watch->started(watch->user, program->name);
  ck_status status = queue->ops->program_build(queue, program, source, options);
  if (watch)
    watch->ended(watch->user, program->name, ck__seconds() - started,
                 status != CK_OK);
  if (status != CK_ERROR_BUILD)
    return status;
  const char *message = "";
  ck_error_get_last(&message);
  char *named =
      prefixed ? renamed(message, prefix_line_name, map->lines[0].file) : NULL;
  char *rewritten = ck__source_map_rewrite(map, named ? named : message);
  char *ordered = ck__build_errors_first(rewritten ? rewritten
                                         : named   ? named
                                                   : message);
  if (ordered)
    ck__fail(CK_ERROR_BUILD, "%s", ordered);
  free(ordered);
  free(rewritten);
  free(named);
  return status;
}

/* The device's build options for program name, then the caller's
 * defines, into options (capacity bytes). */
static ck_status build_options(ck_queue *queue, const char *name,
                               const char *defines, char *options,
                               size_t capacity) {
  ck_status status = CK_OK;
  CK_TRY(ck__device_build_options(&queue->device, options, capacity));
  if (defines && *defines) {
    size_t used = strlen(options);
    if (used + 1 + strlen(defines) + 1 > capacity)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "build options for program '%s' are longer than %zu bytes", name,
              capacity);
    snprintf(options + used, capacity - used, " %s", defines);
  }
fail:
  return status;
}

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
  CK_TRY(build_options(queue, name, defines, options, sizeof options));
  snprintf(made->stats.options, sizeof made->stats.options, "%s", options);
  /* A session's queue: a program it keeps built needs no build. The
   * embedded sources do not change in a process, so there the program's
   * name and the caller's text stand for the assembled source: a key
   * made in microseconds, where hashing the source took a millisecond. */
  uint8_t key[32];
  int keyed = queue->kept && queue->ops->program_key && !ck__build_from_source;
  const char *directory = getenv("CLKIT_KERNEL_DIR");
  int embedded = !directory || !*directory;
  int served = 0;
  if (keyed && embedded) {
    char identity[80] = "embedded ";
    uint8_t digest[32];
    const char *parts[] = {name, prefix_text ? prefix_text : ""};
    ck__sha256_strings(parts, 2, digest);
    ck__hex(digest, sizeof digest, identity + strlen(identity));
    CK_TRY(queue->ops->program_key(queue, identity, options, key));
    served = ck__session_program_take(made, key);
  }
  if (!served) {
    CK_TRY(ck__kernels_assemble_mapped(name, &source, NULL, &map));
    if (prefix_text)
      CK_TRY(prepend(prefix_name, prefix_text, &source, &map));
    if (keyed && !embedded) {
      CK_TRY(queue->ops->program_key(queue, source, options, key));
      served = ck__session_program_take(made, key);
    }
  }
  if (!served) {
    CK_TRY(build(queue, made, source, options, &map, prefix_text != NULL,
                 started));
    if (keyed)
      ck__session_program_keep(made);
  }
  made->stats.from_session = served;
  made->stats.build_seconds = ck__seconds() - started;
  free(source);
  ck__source_map_free(&map);
  *program = made;
  return CK_OK;
fail:
  free(source);
  ck__source_map_free(&map);
  if (made && made->kept) /* its build, which others may wait for, failed */
    ck__session_program_give(made);
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
  if (program->kept)
    ck__session_program_give(program);
  else
    program->queue->ops->program_destroy(program);
  free(program);
  return CK_OK;
}
