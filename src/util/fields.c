/*
 * fields.c - the defaults and ranges of a public config's fields, from the
 * one table its driver keeps (util.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

double ck__field_get(const void *config, const ck__field *field) {
  const char *at = (const char *)config + field->offset;
  switch (field->type) {
  case CK__FIELD_INT:
    return *(const int *)at;
  case CK__FIELD_UINT:
    return *(const unsigned *)at;
  case CK__FIELD_SIZE:
    return (double)*(const size_t *)at;
  case CK__FIELD_UINT64:
    return (double)*(const uint64_t *)at;
  case CK__FIELD_INT64:
    return (double)*(const int64_t *)at;
  case CK__FIELD_REAL:
    return *(const double *)at;
  case CK__FIELD_TEXT:
    break;
  }
  return 0;
}

void ck__field_set(void *config, const ck__field *field, double value) {
  char *at = (char *)config + field->offset;
  switch (field->type) {
  case CK__FIELD_INT:
    *(int *)at = (int)value;
    break;
  case CK__FIELD_UINT:
    *(unsigned *)at = (unsigned)value;
    break;
  case CK__FIELD_SIZE:
    *(size_t *)at = (size_t)value;
    break;
  case CK__FIELD_UINT64:
    *(uint64_t *)at = (uint64_t)value;
    break;
  case CK__FIELD_INT64:
    *(int64_t *)at = (int64_t)value;
    break;
  case CK__FIELD_REAL:
    *(double *)at = value;
    break;
  case CK__FIELD_TEXT:
    break;
  }
}

void ck__fields_init(void *config, const ck__field *fields, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (fields[i].type == CK__FIELD_TEXT)
      memcpy((char *)config + fields[i].offset, &fields[i].text,
             sizeof fields[i].text);
    else
      ck__field_set(config, &fields[i], fields[i].value);
  }
}

const char *ck__field_word_of(const ck__field *field, double value) {
  for (const ck__field_word *word = field->words; word && word->word; ++word)
    if (word->value == value)
      return word->word;
  return NULL;
}

const ck__field_word *ck__field_word_named(const ck__field *field,
                                           const char *text, size_t length) {
  for (const ck__field_word *word = field->words; word && word->word; ++word)
    if (strlen(word->word) == length && strncmp(word->word, text, length) == 0)
      return word;
  return NULL;
}

int ck__field_in_range(const ck__field *field, double value) {
  /* Written so that NaN is out. */
  int above = field->flags & CK__FIELD_ABOVE ? value > field->minimum
                                             : value >= field->minimum;
  int below = field->flags & CK__FIELD_BELOW ? value < field->maximum
                                             : value <= field->maximum;
  return above && below;
}

/* A bound or a value as messages write it: whole numbers in full
 * (1000000000000000, not 1e+15), others to 15 digits. */
static void number_text(double value, char *text, size_t size) {
  if (value == floor(value) && fabs(value) < 1e17)
    snprintf(text, size, "%.0f", value);
  else
    snprintf(text, size, "%.15g", value);
}

void ck__field_range_text(const ck__field *field, char *text, size_t size) {
  char low[40], high[40];
  if (field->minimum > field->maximum) {
    snprintf(text, size, "%s", "");
    return;
  }
  number_text(field->minimum, low, sizeof low);
  number_text(field->maximum, high, sizeof high);
  snprintf(text, size, "%c%s, %s%c", field->flags & CK__FIELD_ABOVE ? '(' : '[',
           low, high, field->flags & CK__FIELD_BELOW ? ')' : ']');
}

ck_status ck__field_check_value(const char *config, const ck__field *field,
                                double value) {
  if (field->type == CK__FIELD_TEXT || ck__field_in_range(field, value) ||
      ck__field_word_of(field, value) ||
      (field->flags & CK__FIELD_UNSET && value == 0))
    return CK_OK;
  char range[96], number[40];
  ck__field_range_text(field, range, sizeof range);
  number_text(value, number, sizeof number);
  if (config)
    ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s.%s: ", config, field->name);
  else
    ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s", "");
  if (*range)
    ck__fail_append("%s is outside %s", number, range);
  else
    ck__fail_append("%s is none of", number);
  const char *joint = *range ? ", or" : "";
  for (const ck__field_word *word = field->words; word && word->word;
       ++word, joint = ",") {
    number_text(word->value, number, sizeof number);
    /* A word that is its number ("0") is named once. */
    if (strcmp(number, word->word) == 0)
      ck__fail_append("%s %s", joint, number);
    else
      ck__fail_append("%s %s (%s)", joint, number, word->word);
  }
  return CK_ERROR_INVALID_ARGUMENT;
}

ck_status ck__field_check(const char *config_name, const void *config,
                          const ck__field *field) {
  return ck__field_check_value(config_name, field,
                               ck__field_get(config, field));
}

ck_status ck__fields_check(const char *config_name, const void *config,
                           const ck__field *fields, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    ck_status status = fields[i].flags & CK__FIELD_APART
                           ? CK_OK
                           : ck__field_check(config_name, config, &fields[i]);
    if (status)
      return status;
  }
  return CK_OK;
}
