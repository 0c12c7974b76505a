/*
 * The list of known optima (clkit/tsp.h): "name : optimum" lines, looked
 * up by an instance's name or file name.
 */
#include "util/util.h"

#include "clkit/tsp.h"

#include "tsp/tsp_internal.h"
#include "tsp/tsplib_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The room for a malformed line's fault: two quoted texts and words. */
#define FAULT_MAX (2 * CK__TEXT_QUOTE_MAX + 80)

/* A name an instance is looked up by (length bytes of text, not cut out
 * of it), and where the optima file lists it. */
typedef struct optimum_name {
  const char *text;
  size_t length;
  int64_t optimum;
  size_t line; /* 0 while not listed */
} optimum_name;

/* Adds a name unless it is empty or already there; returns the count. */
static size_t add_optimum_name(optimum_name *names, size_t count,
                               const char *text, size_t length) {
  if (length == 0)
    return count;
  for (size_t i = 0; i < count; ++i)
    if (names[i].length == length && memcmp(names[i].text, text, length) == 0)
      return count;
  names[count].text = text;
  names[count].length = length;
  names[count].optimum = 0;
  names[count].line = 0;
  return count + 1;
}

/* Which of the names a line's key is (whole_line: a line without ':',
 * which names one when it begins with it and a blank); -1 for none. */
static int find_optimum_name(const optimum_name *names, size_t count,
                             const char *key, int whole_line) {
  for (size_t i = 0; i < count; ++i) {
    size_t length = names[i].length;
    if (strncmp(key, names[i].text, length) != 0)
      continue;
    if (!key[length] || (whole_line && ck__text_is_blank(key[length])))
      return (int)i;
  }
  return -1;
}

/* "OPTIMA lists none of "a", "b" and "c"", the error of a lookup that
 * found none of the names. */
static ck_status fail_not_listed(const char *path, const optimum_name *names,
                                 size_t count) {
  char list[3 * (CK__TEXT_QUOTE_MAX + 16)];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    char name[CK__TEXT_QUOTE_MAX + 4];
    size_t length =
        names[i].length < sizeof name - 1 ? names[i].length : sizeof name - 1;
    memcpy(name, names[i].text, length);
    name[length] = '\0';
    used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                             i == 0           ? ""
                             : i + 1 == count ? " and "
                                              : ", ",
                             ck__text_quote(name).text);
  }
  return count == 1
             ? ck__fail(CK_ERROR_NOT_FOUND, "%s does not list %s", path, list)
             : ck__fail(CK_ERROR_NOT_FOUND, "%s lists none of %s", path, list);
}

/* The optimum of the first name listed, or a failure naming them all. */
static ck_status listed_optimum(const char *path, const optimum_name *names,
                                size_t count, int64_t *optimum) {
  for (size_t i = 0; i < count; ++i)
    if (names[i].line) {
      *optimum = names[i].optimum;
      return CK_OK;
    }
  return fail_not_listed(path, names, count);
}

/* The names an instance is looked up by: NAME as given, without the file
 * extension some files put in it, and the file's own name; the first of
 * them that is listed counts. Returns their count. */
static size_t gather_names(const char *name, const char *instance_path,
                           optimum_name names[3]) {
  size_t count = 0;
  size_t length = strlen(name);
  count = add_optimum_name(names, count, name, length);
  count =
      add_optimum_name(names, count, name, length - ck__tsp_extension(name));
  if (instance_path) {
    const char *slash = strrchr(instance_path, '/');
    const char *base = slash ? slash + 1 : instance_path;
    count = add_optimum_name(names, count, base,
                             strlen(base) - ck__tsp_extension(base));
  }
  return count;
}

/* Warns of the skipped lines: one line for the whole file, naming the
 * first line skipped. */
static void warn_skipped(const char *path, size_t skipped, size_t first_skipped,
                         const char *first_fault,
                         void (*warn)(void *user, const char *line),
                         void *warn_user) {
  char message[FAULT_MAX + 4200];
  int used = snprintf(message, sizeof message,
                      "warning: %.4000s:%zu: %s; the line is skipped", path,
                      first_skipped, first_fault);
  if (skipped > 1 && used > 0 && (size_t)used < sizeof message)
    snprintf(message + used, sizeof message - (size_t)used,
             ", and %zu other malformed line%s too", skipped - 1,
             skipped > 2 ? "s" : "");
  warn(warn_user, message);
}

ck_status ck_tsp_optimum_find(const char *path, const char *name,
                              const char *instance_path,
                              void (*warn)(void *user, const char *line),
                              void *warn_user, int64_t *optimum) {
  ck_status status = CK_OK;
  char *text = NULL;
  size_t size = 0, skipped = 0, first_skipped = 0;
  char fault[FAULT_MAX], first_fault[sizeof fault];
  optimum_name names[3];
  size_t count = 0;
  ck__text_lines lines;
  CK__REQUIRE(path);
  CK__REQUIRE(name);
  CK__REQUIRE(optimum);
  count = gather_names(name, instance_path, names);
  CK_TRY(ck__file_read_text(path, CK__TEXT_FILE_MAX_BYTES, &text, &size));
  memset(&lines, 0, sizeof lines);
  lines.source = path;
  lines.text = text;
  lines.length = size;
  /* The whole file is read: a malformed line that names the instance is
   * refused wherever it is, and the others are counted for the warning. */
  for (;;) {
    char *line, *key, *value;
    CK_TRY(ck__tsp_next_line(&lines, &line));
    if (!line)
      break;
    if (!*line || *line == '#')
      continue;
    size_t at = lines.line;
    ck__text_quoted whole = ck__text_quote(line);
    ck__tsp_split_keyword(line, &key, &value);
    int64_t number = 0;
    int which;
    if (!value || !*key) {
      snprintf(fault, sizeof fault, "expected \"name : optimum\", found \"%s\"",
               whole.text);
      which = value ? -1 : find_optimum_name(names, count, key, 1);
    } else if (ck__text_read_integer(value, &number) != CK__TEXT_NUMBER_OK ||
               number < 1) {
      /* At least 1, as --optimum: a gap is measured against it. */
      snprintf(fault, sizeof fault,
               "the optimum of %s, \"%s\", is not a whole number >= 1",
               ck__text_quote(key).text, ck__text_quote(value).text);
      which = find_optimum_name(names, count, key, 0);
    } else {
      which = find_optimum_name(names, count, key, 0);
      if (which < 0)
        continue;
      optimum_name *listed = &names[which];
      if (listed->line && number != listed->optimum)
        CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &lines, at,
                         "%s is listed again with another optimum (%" PRId64
                         " on line %zu, %" PRId64 " here)",
                         ck__text_quote(key).text, listed->optimum,
                         listed->line, number);
      if (!listed->line) {
        listed->line = at;
        listed->optimum = number;
      }
      continue;
    }
    if (which >= 0)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &lines, at, "%s", fault);
    if (skipped++ == 0) {
      first_skipped = at;
      memcpy(first_fault, fault, sizeof fault);
    }
  }
  if (skipped && warn)
    warn_skipped(path, skipped, first_skipped, first_fault, warn, warn_user);
  status = listed_optimum(path, names, count, optimum);

fail:
  free(text);
  return status;
}
