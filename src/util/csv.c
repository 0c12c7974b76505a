/*
 * csv.c - the lines and fields of the CSV readers (lsq data sets, nn data
 * sets): preparing a line, finding and trimming its fields, reading a
 * number from one, and the message for a field that is not one. Each
 * reader's dialect keeps its own range and wording.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int is_blank(char c) {
  return c == ' ' || c == '\t';
}

char *ck__csv_trim_start(const char *begin, const char *end) {
  while (begin < end && is_blank(*begin))
    ++begin;
  return (char *)begin;
}

char *ck__csv_trim_end(const char *begin, const char *end) {
  while (end > begin && is_blank(end[-1]))
    --end;
  return (char *)end;
}

char *ck__csv_field_end(const char *begin, const char *end) {
  const char *comma = memchr(begin, ',', (size_t)(end - begin));
  return (char *)(comma ? comma : end);
}

ck_status ck__csv_line_prepare(const ck__csv_dialect *dialect, const char *path,
                               size_t line_number, char *begin, char *end,
                               ck__csv_line *line) {
  size_t length = (size_t)(end - begin);
  if (line_number == 1 && length >= 3 &&
      memcmp(begin, "\xEF\xBB\xBF", 3) == 0) {
    begin += 3; /* a UTF-8 byte order mark */
    length -= 3;
  }
  if (length > 0 && begin[length - 1] == '\r')
    begin[--length] = '\0';
  end = begin + length;
  line->begin = begin;
  line->end = end;
  line->fields = 0;
  if (memchr(begin, '\0', length))
    return ck__fail(CK_ERROR_PARSE, "%s%s%zu%s (is this a binary file?)", path,
                    dialect->line_label, line_number, dialect->nul_byte);
  const char *first = ck__csv_trim_start(begin, end);
  if (first == end || *first == '#')
    return CK_OK;
  line->fields = 1;
  for (const char *comma = begin;
       (comma = memchr(comma, ',', (size_t)(end - comma))) != NULL; ++comma)
    ++line->fields;
  return CK_OK;
}

ck__csv_field_kind ck__csv_read_number(const ck__csv_dialect *dialect,
                                       const char *begin, const char *end,
                                       double *value) {
  begin = ck__csv_trim_start(begin, end);
  end = ck__csv_trim_end(begin, end);
  if (begin == end)
    return CK__CSV_EMPTY;
  char *stop = NULL;
  errno = 0;
  double number = strtod(begin, &stop);
  if (stop != end)
    return CK__CSV_NOT_A_NUMBER;
  if (isnan(number))
    return CK__CSV_NOT_FINITE;
  if (isinf(number))
    return errno == ERANGE ? CK__CSV_OUT_OF_RANGE : CK__CSV_NOT_FINITE;
  /* Decimal only, as option values are read: strtod would also take
   * hexadecimal ("0x10" as 16). */
  for (const char *at = begin; at < end; ++at)
    if (!strchr("0123456789.eE+-", *at))
      return CK__CSV_NOT_A_NUMBER;
  if (fabs(number) > dialect->largest)
    return CK__CSV_OUT_OF_RANGE;
  *value = number;
  return CK__CSV_NUMBER;
}

ck_status ck__csv_field_error(const ck__csv_dialect *dialect, const char *path,
                              size_t line_number, const char *begin,
                              const char *end, size_t field_number,
                              ck__csv_field_kind kind) {
  begin = ck__csv_trim_start(begin, end);
  end = ck__csv_trim_end(begin, end);
  int length =
      end - begin > CK__CSV_QUOTE_MAX ? CK__CSV_QUOTE_MAX : (int)(end - begin);
  const char *more = end - begin > CK__CSV_QUOTE_MAX ? "..." : "";
  const char *label = dialect->line_label, *before = dialect->before_field;
  char quote = dialect->quote;
  switch (kind) {
  case CK__CSV_EMPTY:
    return ck__fail(CK_ERROR_PARSE, "%s%s%zu%sfield %zu is empty", path, label,
                    line_number, before, field_number);
  case CK__CSV_NOT_FINITE:
    return ck__fail(CK_ERROR_PARSE,
                    "%s%s%zu%sfield %zu: %c%.*s%s%c is not finite (NaN and "
                    "infinity are not allowed)",
                    path, label, line_number, before, field_number, quote,
                    length, begin, more, quote);
  case CK__CSV_OUT_OF_RANGE:
    return ck__fail(CK_ERROR_PARSE,
                    "%s%s%zu%sfield %zu: %c%.*s%s%c is out of range for %s",
                    path, label, line_number, before, field_number, quote,
                    length, begin, more, quote, dialect->number_type);
  default:
    return ck__fail(CK_ERROR_PARSE,
                    "%s%s%zu%sfield %zu: %c%.*s%s%c is not a number", path,
                    label, line_number, before, field_number, quote, length,
                    begin, more, quote);
  }
}
