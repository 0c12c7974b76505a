/*
 * text.c - the tokens and numbers of the line-oriented text readers
 * (TSPLIB files, extended XYZ): blanks, blank-separated fields, lines cut
 * in place, numbers in plain decimal syntax, pieces of input quoted for
 * messages and failures that name "FILE:LINE". Each reader keeps its own
 * grammar and wording; what is here is what they read alike.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

/* Room for the text of one message before the "FILE:LINE: " prefix. */
#define MESSAGE_ROOM 1024

int ck__text_is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int ck__text_list_holds(const char *list, const char *word, size_t length) {
  for (const char *at = list; at && *at;) {
    size_t span = strcspn(at, " ");
    if (span == length && strncmp(at, word, length) == 0)
      return 1;
    at += span + (at[span] == ' ');
  }
  return 0;
}

int ck__text_contains_caseless(const char *haystack, const char *needle) {
  size_t length = strlen(needle);
  if (length == 0)
    return 0;
  for (; *haystack; ++haystack) {
    size_t i = 0;
    while (i < length && haystack[i] &&
           tolower((unsigned char)haystack[i]) ==
               tolower((unsigned char)needle[i]))
      ++i;
    if (i == length)
      return 1;
  }
  return 0;
}

long ck__text_control_byte(const char *text) {
  for (long i = 0; text[i]; ++i)
    if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
      return i;
  return -1;
}

long ck__text_invalid_utf8_byte(const char *text) {
  const unsigned char *at = (const unsigned char *)text;
  for (long i = 0; at[i];) {
    unsigned lead = at[i];
    int extra = lead < 0x80                    ? 0
                : lead >= 0xC2 && lead <= 0xDF ? 1
                : lead >= 0xE0 && lead <= 0xEF ? 2
                : lead >= 0xF0 && lead <= 0xF4 ? 3
                                               : -1;
    if (extra < 0)
      return i;
    /* The second byte's range rules out overlong forms, surrogates and
     * code points past U+10FFFF. */
    unsigned low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
    unsigned high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
    for (int k = 1; k <= extra; ++k) {
      unsigned byte = at[i + k];
      if (k == 1 ? byte < low || byte > high : (byte & 0xC0) != 0x80)
        return i;
    }
    i += 1 + extra;
  }
  return -1;
}

size_t ck__text_utf8_cut(const char *text, size_t most) {
  size_t length = strlen(text);
  if (length <= most)
    return length;
  while (most > 0 && ((unsigned char)text[most] & 0xC0) == 0x80)
    --most;
  return most;
}

ck__text_quoted ck__text_quote(const char *text) {
  ck__text_quoted out;
  size_t used = 0;
  for (; used < CK__TEXT_QUOTE_MAX && text[used]; ++used) {
    unsigned char c = (unsigned char)text[used];
    out.text[used] = c >= 0x20 && c < 0x7f && c != '"' ? (char)c : '?';
  }
  if (text[used]) {
    memcpy(out.text + used, "...", 3);
    used += 3;
  }
  out.text[used] = '\0';
  return out;
}

char *ck__text_next_field(char **cursor) {
  char *at = *cursor;
  while (ck__text_is_blank(*at))
    ++at;
  if (!*at) {
    *cursor = at;
    return NULL;
  }
  char *start = at;
  while (*at && !ck__text_is_blank(*at))
    ++at;
  if (*at)
    *at++ = '\0';
  *cursor = at;
  return start;
}

/* [+-] digits [. digits] [(e|E) [+-] digits], digits on at least one side
 * of the point. */
static int decimal_syntax(const char *text) {
  const char *at = text;
  size_t digits = 0;
  if (*at == '+' || *at == '-')
    ++at;
  for (; *at >= '0' && *at <= '9'; ++at)
    ++digits;
  if (*at == '.')
    for (++at; *at >= '0' && *at <= '9'; ++at)
      ++digits;
  if (digits == 0)
    return 0;
  if (*at == 'e' || *at == 'E') {
    ++at;
    if (*at == '+' || *at == '-')
      ++at;
    if (*at < '0' || *at > '9')
      return 0;
    while (*at >= '0' && *at <= '9')
      ++at;
  }
  return *at == '\0';
}

ck__text_number_kind ck__text_read_real(const char *text, double *value) {
  if (!decimal_syntax(text)) {
    const char *word = text + (*text == '+' || *text == '-');
    if (strcasecmp(word, "nan") == 0 || strcasecmp(word, "inf") == 0 ||
        strcasecmp(word, "infinity") == 0)
      return CK__TEXT_NUMBER_NOT_FINITE;
    return CK__TEXT_NUMBER_SYNTAX;
  }
  double read = strtod(text, NULL);
  /* Underflow to a tiny value or zero is harmless; overflow is not. */
  if (!isfinite(read))
    return CK__TEXT_NUMBER_RANGE;
  *value = read;
  return CK__TEXT_NUMBER_OK;
}

ck__text_number_kind ck__text_read_integer(const char *text, int64_t *value) {
  const char *at = text;
  int negative = 0;
  uint64_t magnitude = 0;
  if (*at == '+' || *at == '-')
    negative = *at++ == '-';
  if (*at < '0' || *at > '9')
    return CK__TEXT_NUMBER_SYNTAX;
  int overflow = 0;
  for (; *at >= '0' && *at <= '9'; ++at) {
    unsigned digit = (unsigned)(*at - '0');
    if (magnitude > (UINT64_C(1) << 63) / 10 ||
        magnitude * 10 + digit > (UINT64_C(1) << 63))
      overflow = 1;
    else
      magnitude = magnitude * 10 + digit;
  }
  if (*at)
    return CK__TEXT_NUMBER_SYNTAX;
  if (overflow || (!negative && magnitude > (uint64_t)INT64_MAX))
    return CK__TEXT_NUMBER_RANGE;
  *value = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
  return CK__TEXT_NUMBER_OK;
}

ck_status ck__text_fail_at(ck_status status, const ck__text_lines *lines,
                           size_t line, const char *format, ...) {
  char message[MESSAGE_ROOM];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return ck__fail(status, "%s:%zu: %s", lines->source, line ? line : 1,
                  message);
}

ck_status ck__text_next_line(ck__text_lines *lines, char **line) {
  *line = NULL;
  if (lines->next >= lines->length)
    return CK_OK;
  char *start = lines->text + lines->next;
  size_t rest = lines->length - lines->next;
  char *newline = memchr(start, '\n', rest);
  size_t size = newline ? (size_t)(newline - start) : rest;
  lines->line += 1;
  lines->next += newline ? size + 1 : size;
  if (memchr(start, '\0', size))
    return ck__text_fail_at(CK_ERROR_PARSE, lines, lines->line,
                            "the line contains a NUL byte (is this a binary "
                            "file?)");
  start[size] = '\0';
  if (lines->line == 1 && size >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0)
    start += 3, size -= 3; /* a UTF-8 byte order mark */
  while (size > 0 && ck__text_is_blank(start[size - 1]))
    start[--size] = '\0';
  *line = start;
  return CK_OK;
}

/* ---- The name a mistyped word meant ------------------------------------ */

/* Names longer than this are never suggested, nor words this long given
 * a suggestion: the distance's rows live on the stack. */
#define NEAREST_LONGEST 64

static int lower(char c) {
  return tolower((unsigned char)c);
}

/* The optimal string alignment distance of a and b, letters in any case:
 * how many letters to change, insert, delete or swap with the next. */
static int edit_distance(const char *a, size_t a_length, const char *b,
                         size_t b_length) {
  int rows[3][NEAREST_LONGEST + 1];
  int *before = rows[0], *above = rows[1], *row = rows[2];
  for (size_t j = 0; j <= b_length; ++j)
    above[j] = (int)j;
  for (size_t i = 1; i <= a_length; ++i) {
    row[0] = (int)i;
    for (size_t j = 1; j <= b_length; ++j) {
      int same = lower(a[i - 1]) == lower(b[j - 1]);
      int best = above[j - 1] + !same;
      if (above[j] + 1 < best)
        best = above[j] + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]) && before[j - 2] + 1 < best)
        best = before[j - 2] + 1;
      row[j] = best;
    }
    int *spare = before;
    before = above;
    above = row;
    row = spare;
  }
  return above[b_length];
}

/* Whether the shorter of a and b is the longer with letters left out,
 * the first three kept: an abbreviation ("iters" of "iterations"). */
static int abbreviates(const char *a, size_t a_length, const char *b,
                       size_t b_length) {
  const char *shorter = a_length <= b_length ? a : b;
  const char *longer = a_length <= b_length ? b : a;
  size_t length = a_length <= b_length ? a_length : b_length;
  if (length < 3)
    return 0;
  for (size_t k = 0; k < 3; ++k)
    if (lower(shorter[k]) != lower(longer[k]))
      return 0;
  for (; *shorter && *longer; ++longer)
    if (lower(*shorter) == lower(*longer))
      ++shorter;
  return *shorter == '\0';
}

void ck__nearest_begin(ck__nearest *nearest, const char *word) {
  nearest->word = word;
  nearest->best = NULL;
  nearest->distance = 0;
  nearest->prefix = 0;
}

void ck__nearest_offer(ck__nearest *nearest, const char *name) {
  size_t word_length = strlen(nearest->word), length = name ? strlen(name) : 0;
  if (!name || !length || !word_length || word_length > NEAREST_LONGEST ||
      length > NEAREST_LONGEST)
    return;
  int distance = edit_distance(nearest->word, word_length, name, length);
  /* About one letter in three may be wrong. */
  int limit = word_length < 6 ? 1 : (int)(word_length / 3);
  if (distance > limit &&
      !abbreviates(nearest->word, word_length, name, length))
    return;
  size_t prefix = 0;
  while (prefix < length && lower(name[prefix]) == lower(nearest->word[prefix]))
    ++prefix;
  /* The fewest edits, then the longest common beginning, then the first. */
  if (!nearest->best || distance < nearest->distance ||
      (distance == nearest->distance && prefix > nearest->prefix)) {
    nearest->best = name;
    nearest->distance = distance;
    nearest->prefix = prefix;
  }
}

ck_status ck__nearest_append(const ck__nearest *nearest, const char *prefix) {
  const char *message = NULL;
  if (!nearest->best)
    return ck_error_get_last(&message);
  return ck__fail_append("; did you mean %s%s?", prefix, nearest->best);
}

ck_status ck_param_suggest(const char *word, const char *const *names,
                           size_t count, const char **nearest) {
  CK__REQUIRE(word);
  CK__REQUIRE(nearest);
  if (count && !names)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_param_suggest: names is NULL but count is %zu", count);
  ck__nearest found;
  ck__nearest_begin(&found, word);
  for (size_t i = 0; i < count; ++i)
    ck__nearest_offer(&found, names[i]);
  *nearest = found.best;
  return CK_OK;
}

const char *ck__text_xml_entity(char c) {
  return c == '<'    ? "&lt;"
         : c == '>'  ? "&gt;"
         : c == '&'  ? "&amp;"
         : c == '"'  ? "&quot;"
         : c == '\'' ? "&apos;"
                     : NULL;
}

void ck__text_vput(ck__text_buffer *text, const char *format, va_list args) {
  if (text->failed)
    return;
  for (;;) {
    va_list copy;
    va_copy(copy, args);
    size_t room = text->capacity - text->size;
    int length = vsnprintf(text->data ? text->data + text->size : NULL, room,
                           format, copy);
    va_end(copy);
    if (length < 0) {
      text->failed = 1;
      return;
    }
    if ((size_t)length < room) {
      text->size += (size_t)length;
      return;
    }
    size_t capacity = 2 * text->capacity + (size_t)length + 256;
    char *grown = realloc(text->data, capacity);
    if (!grown) {
      text->failed = 1;
      return;
    }
    text->data = grown;
    text->capacity = capacity;
  }
}

void ck__text_put(ck__text_buffer *text, const char *format, ...) {
  va_list args;
  va_start(args, format);
  ck__text_vput(text, format, args);
  va_end(args);
}
