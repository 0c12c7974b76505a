/*
 * options.c - reading a workload's options: the parameter helpers every
 * workload uses, and the number readers behind them.
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "framework/framework.h"

ck_status ck__option_suggest(const ck__option *options, const char *name) {
  assert(options && name);
  ck__nearest nearest;
  ck__nearest_begin(&nearest, name);
  for (const ck__option *option = options; option->name; ++option)
    ck__nearest_offer(&nearest, option->name);
  return ck__nearest_append(&nearest, "--");
}

const char *ck__param_find(const ck_param *params, size_t count,
                           const char *name) {
  assert(name && (params || count == 0));
  const char *value = NULL;
  for (size_t i = 0; i < count; ++i)
    if (params[i].name && strcmp(params[i].name, name) == 0)
      value = params[i].value;
  return value;
}

ck_status ck__param_files_apart(const ck_param *params, size_t count,
                                const char *const *reads,
                                const char *const *writes,
                                const char *replacing, const char *replaced) {
  assert(reads && writes && (!replacing || replaced));
  for (size_t w = 0; writes[w]; ++w) {
    int replaces = replacing && strcmp(writes[w], replacing) == 0;
    const char *written = ck__param_find(params, count, writes[w]);
    struct stat target;
    /* A device or a pipe is written in place, and /dev/null may take
     * every output of a run. */
    if (!written)
      continue;
    /* Before the run, so that a bad path costs neither the run nor the
     * outputs that it writes before this one. */
    ck_status status = ck_file_check_writable(written);
    if (status)
      return ck__fail_prefix(status, "option --%s: ", writes[w]);
    for (size_t o = w + 1; writes[o]; ++o) {
      const char *other = ck__param_find(params, count, writes[o]);
      if (other && (status = ck__file_descriptors_apart(writes[w], written,
                                                        writes[o], other)))
        return status;
    }
    if ((stat(written, &target) == 0 && !S_ISREG(target.st_mode)) ||
        ck__file_descriptor_named(written) >= 0)
      continue;
    /* Each later output, then every input. */
    for (int pass = 0; pass < 2; ++pass) {
      const char *const *others = pass ? reads : writes + w + 1;
      for (size_t o = 0; others[o]; ++o) {
        if (pass && replaces && strcmp(others[o], replaced) == 0)
          continue;
        const char *other = ck__param_find(params, count, others[o]);
        int same = 0;
        if (!other)
          continue;
        status = ck_file_check_same(written, other, &same);
        if (status)
          return ck__fail_prefix(status, "option --%s: ", writes[w]);
        if (same)
          return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                          "--%s and --%s both name '%s'; %s", writes[w],
                          others[o], written,
                          pass ? "an output may not replace that file"
                               : "give each output its own file");
      }
    }
  }
  return CK_OK;
}

ck_status ck__param_parts(const ck_param *params, size_t count,
                          const ck__option_part *parts, size_t part_count) {
  assert(parts || part_count == 0);
  for (size_t i = 0; i < part_count; ++i)
    if (parts[i].missing && ck__param_find(params, count, parts[i].option))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "option --%s applies only with %s", parts[i].option,
                      parts[i].part);
  return CK_OK;
}

ck_status ck__param_not_spread(const ck_param *params, size_t count,
                               const char *option, int refused,
                               const char *why) {
  const char *value = ck__param_find(params, count, option);
  if (!refused)
    return CK_OK;
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "option --%s: %s%swith --spread: %s", option,
                  value ? value : "", value ? " " : "", why);
}

int ck__parse_decimal(const char *begin, const char *end, double *value) {
  assert(begin && end && begin <= end && value);
  char copy[64];
  size_t length = (size_t)(end - begin);
  if (length == 0)
    return 0;
  /* strtod alone would also take leading blanks, hexadecimal, inf and nan. */
  for (size_t i = 0; i < length; ++i)
    if (!begin[i] || !strchr("0123456789.eE+-", begin[i]))
      return 0;
  /* strtod reads on past end: a span within a longer text is read from a
   * copy of it. */
  const char *text = begin;
  if (*end) {
    if (length >= sizeof copy)
      return 0;
    memcpy(copy, begin, length);
    copy[length] = '\0';
    text = copy;
  }
  char *stop = NULL;
  errno = 0;
  *value = strtod(text, &stop);
  if (stop != text + length || !isfinite(*value))
    return 0; /* overflow gives HUGE_VAL */
  /* ERANGE also marks underflow: a subnormal result (4.9e-324) is a
   * number; digits that round to 0 (1e-400) are past a double's range. */
  return errno != ERANGE || *value != 0;
}

int ck__parse_two_fields(const char *text, const char *prefix,
                         const char **first, const char **second) {
  assert(text && prefix && first && second);
  size_t length = strlen(prefix);
  if (strncmp(text, prefix, length) != 0)
    return 0;
  const char *colon = strchr(text + length, ':');
  if (!colon)
    return 0;
  *first = text + length;
  *second = colon + 1;
  return 1;
}

int ck__parse_whole(const char *begin, const char *end, long long minimum,
                    long long maximum, long long *value) {
  assert(value);
  double parsed = 0; /* 1e6 as well as 1000000 */
  if (!ck__parse_decimal(begin, end, &parsed) || parsed != floor(parsed))
    return 0;
  /* Compared as doubles: a bound such as 1e18 is not exact in a double,
   * and a number past LLONG_MAX must not be converted. */
  if (parsed < (double)minimum || parsed > (double)maximum)
    return -1;
  *value = (long long)parsed;
  return 1;
}

ck_status ck__param_real(const ck_param *params, size_t count, const char *name,
                         double fallback, double minimum, double maximum,
                         double *value) {
  assert(name && value);
  const char *text = ck__param_find(params, count, name);
  if (!text) {
    *value = fallback;
    return CK_OK;
  }
  double parsed = 0;
  if (!ck__parse_decimal(text, text + strlen(text), &parsed))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: '%s' is not a number", name, text);
  if (parsed < minimum || parsed > maximum)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --%s: %s is outside [%g, %g]", name, text, minimum,
                    maximum);
  *value = parsed;
  return CK_OK;
}

ck_status ck_param_parse_number(const char *text, double *value) {
  double parsed = 0;
  ck__c_locale locale = {0};
  CK__REQUIRE(text);
  CK__REQUIRE(value);
  ck_status status = ck__c_locale_enter(&locale, "ck_param_parse_number");
  if (status != CK_OK)
    return status;
  int read = ck__parse_decimal(text, text + strlen(text), &parsed);
  ck__c_locale_leave(&locale);
  if (!read)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "'%s' is not a plain decimal number", text);
  *value = parsed;
  return CK_OK;
}

/* ---- Options with fields ------------------------------------------------ */

static int field_is_integer(const ck__field *field) {
  return field->type != CK__FIELD_REAL && field->type != CK__FIELD_TEXT;
}

static int field_is_enum(const ck__field *field) {
  return field->minimum > field->maximum;
}

/* "option --NAME: CONFIG.FIELD: " as a failure's beginning. */
static void fail_option(const char *name, const char *config,
                        const ck__field *field) {
  ck__fail(CK_ERROR_INVALID_ARGUMENT, "option --%s: ", name);
  if (config)
    ck__fail_append("%s.%s: ", config, field->name);
}

ck_status ck__fail_word(const char *option, const char *config,
                        const ck__field *field, const char *text,
                        size_t length) {
  fail_option(option, config, field);
  ck__fail_append("unknown value '%.*s'; one of:", (int)length, text);
  for (const ck__field_word *word = field->words; word && word->word; ++word)
    ck__fail_append(" %s", word->word);
  return CK_ERROR_INVALID_ARGUMENT;
}

static ck_status read_field(const ck__option *option, const char *text,
                            void *job) {
  assert(option && option->field && text && job);
  const ck__field *field = option->field;
  double value = 0;
  job = (char *)job + option->base;
  if (!option->value_name) {
    ck__field_set(job, field, option->flags & CK__OPTION_CLEARS ? 0 : 1);
    return CK_OK;
  }
  const ck__field_word *word = ck__field_word_named(field, text, strlen(text));
  if (word) {
    ck__field_set(job, field, word->value);
    return CK_OK;
  }
  if (field->type == CK__FIELD_TEXT) {
    memcpy((char *)job + field->offset, &text, sizeof text);
    return CK_OK;
  }
  int number = !field_is_enum(field) &&
               ck__parse_decimal(text, text + strlen(text), &value);
  if (field_is_enum(field))
    return ck__fail_word(option->name, option->config, field, text,
                         strlen(text));
  if (!number || (field_is_integer(field) && value != floor(value))) {
    fail_option(option->name, option->config, field);
    ck__fail_append("'%s' is not a %s", text,
                    field_is_integer(field) ? "whole number" : "number");
    const char *joint = " or ";
    for (word = field->words; word && word->word; ++word, joint = ", ")
      ck__fail_append("%s%s", joint, word->word);
    return CK_ERROR_INVALID_ARGUMENT;
  }
  if (!ck__field_in_range(field, value)) {
    char range[96];
    ck__field_range_text(field, range, sizeof range);
    fail_option(option->name, option->config, field);
    return ck__fail_append("%s is outside %s", text, range);
  }
  ck__field_set(job, field, value);
  return CK_OK;
}

/* Readings of an option table on this thread (ck__options_reads). */
static _Thread_local uint64_t readings;

uint64_t ck__options_reads(void) {
  return readings;
}

ck_status ck__options_read(const ck__option *options, const ck_param *params,
                           size_t count, void *job) {
  assert(options && (params || count == 0));
  ++readings;
  for (const ck__option *option = options; option->name; ++option) {
    const char *text = ck__param_find(params, count, option->name);
    ck_status status = CK_OK;
    if (!text || !(option->read || option->field))
      continue;
    status =
        option->read ? option->read(text, job) : read_field(option, text, job);
    if (status)
      return status;
  }
  return CK_OK;
}

static const ck__option *option_of_field(const ck__option *options,
                                         const char *config,
                                         size_t config_length, const char *name,
                                         size_t length) {
  for (const ck__option *option = options; option->name; ++option) {
    if (!option->config || strlen(option->config) != config_length ||
        strncmp(option->config, config, config_length) != 0)
      continue;
    if ((option->field && strlen(option->field->name) == length &&
         strncmp(option->field->name, name, length) == 0) ||
        ck__text_list_holds(option->sets, name, length))
      return option;
  }
  return NULL;
}

ck_status ck__option_name_field(const ck__option *options, ck_status status) {
  const char *message = "";
  if (status == CK_OK || ck_error_get_last(&message) != status)
    return status;
  /* "CONFIG.FIELD: ", each a C name, at the start or after a file's
   * "PATH: ". */
  static const char name_characters[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
  for (size_t at = 0; message[at]; at += strcspn(message + at + 1, " ") + 1) {
    if (at > 0 && !(message[at] == ' ' && message[at - 1] == ':'))
      continue;
    size_t begin = at + (at > 0);
    size_t config = strspn(message + begin, name_characters);
    const char *name = message + begin + config + 1;
    size_t length = strspn(name, name_characters);
    if (config == 0 || message[begin + config] != '.' || length == 0 ||
        name[length] != ':')
      continue;
    const ck__option *option =
        option_of_field(options, message + begin, config, name, length);
    char named[80];
    int length_named =
        option ? snprintf(named, sizeof named, "option --%s: ", option->name)
               : 0;
    /* None, or named already (the option's own reader). */
    if (!option || ((size_t)length_named <= begin &&
                    strncmp(message + begin - length_named, named,
                            (size_t)length_named) == 0))
      return status;
    ck__error_saved saved;
    ck__error_save(&saved);
    return ck__fail(status, "%.*soption --%s: %s", (int)begin, saved.message,
                    option->name, saved.message + begin);
  }
  return status;
}
