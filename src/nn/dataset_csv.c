/*
 * The CSV reader of data sets (dataset.c loads through it).
 *
 * Lines are cut at '\n' in place and split at commas; numbers go through
 * strtod() under the C locale (the line and field helpers of util/csv.c,
 * shared with the lsq reader). The arrays are sized once, from an upper
 * bound on the rows left when the first line is seen (each data row takes
 * at least as many bytes as it has fields), and trimmed at the end.
 * Labels are kept as text, NUL-terminated in the buffer, until every row
 * has been read: only then is it known whether they are all integers or
 * names, and names become classes in strcmp() order. Whether rows carry a
 * label at all is settled at the first line (labelled = -1 compares its
 * field count with options->features); unlabelled rows keep no label
 * text, and get labels of 0 and no classes at the end.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "nn/nn_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CSV column looks like class labels when it holds whole numbers 0 ..
 * CK_DATASET_MAX_CLASSES - 1 of at least 2 and at most this many distinct
 * values, and at most half as many as it has rows. */
#define LABEL_LIKE_MAX_CLASSES 1000

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A class of a classes_from data set, for lookup by name. */
typedef struct named_class {
  const char *name;
  size_t index;
} named_class;

static int compare_named_classes(const void *a, const void *b) {
  return strcmp(((const named_class *)a)->name, ((const named_class *)b)->name);
}

/* Floats; messages say "data.csv:3: field 2: 'x' is ...". */
static const ck__csv_dialect dataset_dialect = {
    FLT_MAX, "a float", '\'', ":", ": the line holds a NUL byte", ": "};

typedef struct csv_reader {
  const char *path;
  const ck_dataset_options *options;
  const char *label_option; /* see ck__dataset_request; NULL: label_column */
  int training;             /* see ck__dataset_request */
  char *warning;            /* CK__DATASET_WARNING_MAX bytes */
  size_t line;              /* the 1-based number of the line being read */
  size_t fields;       /* fields per line; 0 until the first line is seen */
  size_t first_line;   /* the number of that line */
  int labelled;        /* 1 or 0, resolved at the first line */
  size_t label_column; /* resolved; SIZE_MAX when unlabelled */
  size_t features;
  size_t capacity, rows;
  float *values;
  char **labels; /* each row's label text, NUL-terminated in the buffer;
                    NULL when unlabelled */
  size_t *lines; /* each row's line number; NULL when unlabelled */
} csv_reader;

/* 1 when some feature field of the line (any field, when unlabelled) is
 * not a number. */
static int csv_is_header(const csv_reader *csv, const char *begin,
                         const char *end) {
  /* A header names its columns: not one feature is a number. A row with
   * some numbers and a bad field is data, and is reported as such. */
  const char *field = begin;
  for (size_t k = 0; k < csv->fields; ++k) {
    const char *stop = ck__csv_field_end(field, end);
    double value;
    ck__csv_field_kind kind =
        ck__csv_read_number(&dataset_dialect, field, stop, &value);
    if (k != csv->label_column && kind != CK__CSV_EMPTY &&
        kind != CK__CSV_NOT_A_NUMBER)
      return 0;
    field = stop + 1;
  }
  return 1;
}

/* Sets the shape from the first line that is neither blank nor a comment
 * (and with labelled = -1, whether rows carry labels), and allocates for
 * at most rest_bytes / fields + 1 rows. */
static ck_status csv_first_line(csv_reader *csv, size_t fields,
                                size_t rest_bytes) {
  int column = csv->options->label_column;
  size_t expected = csv->options->features;
  csv->fields = fields;
  csv->first_line = csv->line;
  csv->labelled = csv->options->labelled;
  if (csv->labelled == -1) {
    if (fields != expected && fields - 1 != expected)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: %zu field%s, but the model takes %zu "
                      "feature%s (or %zu + 1 with a label)",
                      csv->path, csv->line, fields, fields == 1 ? "" : "s",
                      expected, expected == 1 ? "" : "s", expected);
    csv->labelled = fields != expected;
  }
  if (csv->labelled) {
    csv->label_column = column < 0 ? fields - 1 : (size_t)column;
    if (csv->label_column >= fields && csv->label_option)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: %s %d is beyond the line's %zu field%s",
                      csv->path, csv->line, csv->label_option, column + 1,
                      fields, fields == 1 ? "" : "s");
    if (csv->label_column >= fields)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: the label column %d (counted from 0) is beyond "
                      "the line's %zu field%s",
                      csv->path, csv->line, column, fields,
                      fields == 1 ? "" : "s");
    if (fields < 2)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: 1 field; a line needs a label and at least 1 "
                      "feature, separated by commas",
                      csv->path, csv->line);
    csv->features = fields - 1;
  } else {
    csv->label_column = SIZE_MAX;
    csv->features = fields;
  }
  if (expected && csv->features != expected)
    return ck__fail(CK_ERROR_PARSE,
                    "%s:%zu: %zu feature%s, but %zu %s expected", csv->path,
                    csv->line, csv->features, csv->features == 1 ? "" : "s",
                    expected, expected == 1 ? "is" : "are");
  /* A data row takes at least fields bytes: fields - 1 commas and a
   * non-empty field or a newline. */
  csv->capacity = rest_bytes / fields + 1;
  if (csv->capacity > SIZE_MAX / sizeof(float) / csv->features)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: %zu rows of %zu features overflow the address space",
                    csv->path, csv->capacity, csv->features);
  csv->values = malloc(csv->capacity * csv->features * sizeof *csv->values);
  if (csv->labelled) {
    csv->labels = malloc(csv->capacity * sizeof *csv->labels);
    csv->lines = malloc(csv->capacity * sizeof *csv->lines);
  }
  if (!csv->values || (csv->labelled && (!csv->labels || !csv->lines)))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: out of memory for up to %zu rows of %zu features",
                    csv->path, csv->capacity, csv->features);
  return CK_OK;
}

/* Handles one line [begin, end); *end is a NUL. text_end is the end of
 * the file's text. */
static ck_status csv_line(csv_reader *csv, char *begin, char *end,
                          const char *text_end) {
  ck_status status = CK_OK;
  ck__csv_line line;
  CK_TRY(ck__csv_line_prepare(&dataset_dialect, csv->path, csv->line, begin,
                              end, &line));
  if (line.fields == 0)
    return CK_OK;
  begin = line.begin;
  end = line.end;
  size_t fields = line.fields;
  if (csv->fields == 0) {
    CK_TRY(csv_first_line(csv, fields, (size_t)(text_end - begin)));
    int header = csv->options->header;
    if (header == 1 || (header == -1 && csv_is_header(csv, begin, end)))
      return CK_OK;
  } else if (fields != csv->fields) {
    return ck__fail(CK_ERROR_PARSE, "%s:%zu: %zu field%s, but line %zu has %zu",
                    csv->path, csv->line, fields, fields == 1 ? "" : "s",
                    csv->first_line, csv->fields);
  }
  if (csv->rows >= csv->capacity) /* cannot happen: the bound holds */
    return ck__fail(CK_ERROR_PARSE, "%s:%zu: more rows than expected",
                    csv->path, csv->line);

  float *row = csv->values + csv->rows * csv->features;
  char *field = begin, *label = NULL, *label_end = NULL;
  size_t feature = 0;
  for (size_t k = 0; k < fields; ++k) {
    char *stop = ck__csv_field_end(field, end);
    if (k == csv->label_column) {
      label = ck__csv_trim_start(field, stop);
      label_end = ck__csv_trim_end(label, stop);
    } else {
      double value = 0.0;
      ck__csv_field_kind kind =
          ck__csv_read_number(&dataset_dialect, field, stop, &value);
      if (kind != CK__CSV_NUMBER)
        return ck__csv_field_error(&dataset_dialect, csv->path, csv->line,
                                   field, stop, k + 1, kind);
      row[feature++] = (float)value;
    }
    field = stop + 1;
  }
  if (label) {
    *label_end = '\0';
    csv->labels[csv->rows] = label;
    csv->lines[csv->rows] = csv->line;
  }
  csv->rows += 1;
  return CK_OK;

fail:
  return status;
}

/* 1 when text is an optional sign and digits; *value saturates far above
 * the largest class. */
static int integer_label(const char *text, long *value) {
  const char *c = text;
  int negative = 0;
  if (*c == '+' || *c == '-')
    negative = *c++ == '-';
  if (*c < '0' || *c > '9')
    return 0;
  long number = 0;
  for (; *c; ++c) {
    if (*c < '0' || *c > '9')
      return 0;
    if (number < 100000000L)
      number = 10 * number + (*c - '0');
  }
  *value = negative ? -number : number;
  return 1;
}

/* Integer labels: the class is the integer. */
static ck_status csv_integer_labels(const csv_reader *csv, int32_t *classes,
                                    size_t *class_count) {
  const ck_dataset *from = csv->options->classes_from;
  size_t limit = csv->options->class_limit;
  size_t field = csv->label_column + 1;
  long largest = 0;
  for (size_t r = 0; r < csv->rows; ++r) {
    const char *text = csv->labels[r];
    size_t line = csv->lines[r];
    long label = 0;
    integer_label(text, &label);
    if (label < 0)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: field %zu: label '%.*s' is negative", csv->path,
                      line, field, CK__CSV_QUOTE_MAX, text);
    if (label >= CK_DATASET_MAX_CLASSES)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: field %zu: label '%.*s' is above %d, the "
                      "largest class",
                      csv->path, line, field, CK__CSV_QUOTE_MAX, text,
                      CK_DATASET_MAX_CLASSES - 1);
    if (limit && (size_t)label >= limit)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: field %zu: label %ld is not below the class "
                      "limit %zu",
                      csv->path, line, field, label, limit);
    if (from && (size_t)label >= from->classes)
      return ck__fail(CK_ERROR_PARSE,
                      "%s:%zu: field %zu: label %ld is not one of the %zu "
                      "classes (0 .. %zu) of the training data or model",
                      csv->path, line, field, label, from->classes,
                      from->classes - 1);
    classes[r] = (int32_t)label;
    if (label > largest)
      largest = label;
  }
  *class_count = from ? from->classes : (size_t)largest + 1;
  return CK_OK;
}

/* Checks one name label: not empty, not too long, no control character
 * (names are written a line each, as predictions and in models). */
static ck_status csv_check_name(const csv_reader *csv, size_t r) {
  const char *text = csv->labels[r];
  size_t length = strlen(text);
  if (length == 0)
    return ck__fail(CK_ERROR_PARSE, "%s:%zu: field %zu: the label is empty",
                    csv->path, csv->lines[r], csv->label_column + 1);
  long control = ck__text_control_byte(text);
  if (control >= 0)
    return ck__fail(CK_ERROR_PARSE,
                    "%s:%zu: field %zu: the label holds a control character "
                    "(byte 0x%02x)",
                    csv->path, csv->lines[r], csv->label_column + 1,
                    (unsigned char)text[control]);
  if (length > CK_DATASET_MAX_NAME)
    return ck__fail(CK_ERROR_PARSE,
                    "%s:%zu: field %zu: the label '%.*s...' is %zu bytes long; "
                    "at most %d are allowed",
                    csv->path, csv->lines[r], csv->label_column + 1,
                    CK__CSV_QUOTE_MAX, text, length, CK_DATASET_MAX_NAME);
  return CK_OK;
}

/* Name labels looked up among the names of options->classes_from. */
static ck_status csv_names_from(const csv_reader *csv, int32_t *classes,
                                size_t *class_count, char ***class_names) {
  ck_status status = CK_OK;
  const ck_dataset *from = csv->options->classes_from;
  size_t limit = csv->options->class_limit;
  named_class *table = malloc(from->classes * sizeof *table);
  if (!table)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu class names",
            csv->path, from->classes);
  for (size_t k = 0; k < from->classes; ++k) {
    table[k].name = from->class_names[k];
    table[k].index = k;
  }
  qsort(table, from->classes, sizeof *table, compare_named_classes);
  for (size_t r = 0; r < csv->rows; ++r) {
    CK_TRY(csv_check_name(csv, r));
    named_class key = {csv->labels[r], 0};
    const named_class *found = bsearch(&key, table, from->classes,
                                       sizeof *table, compare_named_classes);
    if (!found)
      CK_FAIL(CK_ERROR_PARSE,
              "%s:%zu: field %zu: label '%s' is not one of the %zu classes of "
              "the training data or model",
              csv->path, csv->lines[r], csv->label_column + 1, csv->labels[r],
              from->classes);
    if (limit && found->index >= limit)
      CK_FAIL(CK_ERROR_PARSE,
              "%s:%zu: field %zu: label '%s' is class %zu, not below the class "
              "limit %zu",
              csv->path, csv->lines[r], csv->label_column + 1, csv->labels[r],
              found->index, limit);
    classes[r] = (int32_t)found->index;
  }
  CK_TRY(ck__dataset_copy_class_names(from->class_names, from->classes,
                                      class_names, csv->path));
  *class_count = from->classes;
  free(table);
  return CK_OK;

fail:
  free(table);
  return status;
}

/* Name labels: the classes are the distinct names in strcmp() order. */
static ck_status csv_names(const csv_reader *csv, int32_t *classes,
                           size_t *class_count, char ***class_names) {
  ck_status status = CK_OK;
  const ck_dataset *from = csv->options->classes_from;
  char **sorted = NULL, **names = NULL;
  uint8_t *seen = NULL;
  size_t distinct = 0;
  for (size_t r = 0; r < csv->rows; ++r) {
    CK_TRY(csv_check_name(csv, r));
    long ignored;
    if (from && !integer_label(csv->labels[r], &ignored))
      CK_FAIL(CK_ERROR_PARSE,
              "%s:%zu: field %zu: label '%s' is a name, but the classes to "
              "use (of the training data or model) are integers",
              csv->path, csv->lines[r], csv->label_column + 1, csv->labels[r]);
  }
  sorted = malloc(csv->rows * sizeof *sorted);
  if (!sorted)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory sorting %zu labels",
            csv->path, csv->rows);
  memcpy(sorted, csv->labels, csv->rows * sizeof *sorted);
  qsort(sorted, csv->rows, sizeof *sorted, compare_strings);
  for (size_t r = 0; r < csv->rows; ++r)
    if (r == 0 || strcmp(sorted[r], sorted[distinct - 1]) != 0)
      sorted[distinct++] = sorted[r];

  size_t limit = CK_DATASET_MAX_CLASSES;
  if (csv->options->class_limit && csv->options->class_limit < limit)
    limit = csv->options->class_limit;
  for (size_t r = 0; r < csv->rows; ++r) {
    char **found = bsearch(&csv->labels[r], sorted, distinct, sizeof *sorted,
                           compare_strings);
    classes[r] = (int32_t)(found - sorted);
  }
  if (distinct > limit) {
    /* Name the line where one name too many first appears. */
    seen = calloc(distinct, 1);
    if (!seen)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu classes",
              csv->path, distinct);
    size_t count = 0;
    for (size_t r = 0; r < csv->rows; ++r) {
      if (seen[classes[r]])
        continue;
      seen[classes[r]] = 1;
      if (++count > limit)
        CK_FAIL(CK_ERROR_PARSE,
                "%s:%zu: field %zu: label '%s' is distinct label number %zu in "
                "file order, but "
                "at most %zu classes are allowed",
                csv->path, csv->lines[r], csv->label_column + 1, csv->labels[r],
                count, limit);
    }
  }
  CK_TRY(ck__dataset_copy_class_names(sorted, distinct, &names, csv->path));
  free(seen);
  free(sorted);
  *class_count = distinct;
  *class_names = names;
  return CK_OK;

fail:
  free(seen);
  free(sorted);
  return status;
}

/* The classes of the label texts: integers, names, or those of
 * options->classes_from. */
static ck_status csv_classes(const csv_reader *csv, int32_t *classes,
                             size_t *class_count, char ***class_names) {
  const ck_dataset *from = csv->options->classes_from;
  int integers = 1;
  for (size_t r = 0; r < csv->rows && integers; ++r) {
    long ignored;
    integers = integer_label(csv->labels[r], &ignored);
  }
  if (from && from->class_names)
    return csv_names_from(csv, classes, class_count, class_names);
  if (integers)
    return csv_integer_labels(csv, classes, class_count);
  return csv_names(csv, classes, class_count, class_names);
}

/* ---- CSV: does the label column look right? ------------------------------
 * A label column picked wrong (a pixel that is always 0, a measurement)
 * still loads, as integers or names, and a network trains on it. So a
 * column of one value is refused where it would make the classes, and
 * one that looks less like labels than the column at the other end of
 * the line is warned of. */

/* Marks class number k in the bitmap seen: 1 when it was not marked. */
static int mark_class(uint8_t *seen, uint32_t k) {
  uint8_t bit = (uint8_t)(1u << (k % 8));
  int fresh = !(seen[k / 8] & bit);
  seen[k / 8] |= bit;
  return fresh;
}

/* The distinct values among count class numbers (each below
 * CK_DATASET_MAX_CLASSES), with seen as a bitmap of that many bits. */
static size_t distinct_classes(const int32_t *classes, size_t count,
                               uint8_t *seen) {
  size_t distinct = 0;
  memset(seen, 0, CK_DATASET_MAX_CLASSES / 8);
  for (size_t r = 0; r < count; ++r)
    distinct += (size_t)mark_class(seen, (uint32_t)classes[r]);
  return distinct;
}

/* Whether distinct values in rows are as many as class labels would be. */
static int label_like_count(size_t distinct, size_t rows) {
  return distinct >= 2 && distinct <= LABEL_LIKE_MAX_CLASSES &&
         distinct <= rows / 2;
}

/* The distinct values of a feature column where each is a class number
 * (a whole number 0 .. CK_DATASET_MAX_CLASSES - 1) and they are as many
 * as labels would be (label_like_count); else 0. */
static size_t label_like_feature(const csv_reader *csv, size_t feature,
                                 uint8_t *seen) {
  size_t distinct = 0;
  memset(seen, 0, CK_DATASET_MAX_CLASSES / 8);
  for (size_t r = 0; r < csv->rows; ++r) {
    float value = csv->values[r * csv->features + feature];
    if (!(value >= 0 && value < CK_DATASET_MAX_CLASSES) ||
        value != floorf(value))
      return 0;
    distinct += (size_t)mark_class(seen, (uint32_t)value);
  }
  return label_like_count(distinct, csv->rows) ? distinct : 0;
}

/* The end column (0-based) other than the label's that looks like labels,
 * the last tried first, with its distinct values in *distinct; else the
 * last column, or the first where the label is last, and 0. */
static size_t other_end_column(const csv_reader *csv, uint8_t *seen,
                               size_t *distinct) {
  size_t last = csv->fields - 1, label = csv->label_column;
  size_t ends[2] = {last, 0};
  for (int i = 0; i < 2; ++i) {
    if (ends[i] == label)
      continue;
    size_t feature = ends[i] < label ? ends[i] : ends[i] - 1;
    *distinct = label_like_feature(csv, feature, seen);
    if (*distinct)
      return ends[i];
  }
  *distinct = 0;
  return label == last ? 0 : last;
}

/* Advice to take column (0-based), the first or the last, as the label:
 * by the option that set label_column, else by label_column itself. */
static void end_column_advice(const csv_reader *csv, size_t column,
                              char *advice, size_t capacity) {
  int last = column != 0;
  if (csv->label_option)
    snprintf(advice, capacity, "give %s %s", csv->label_option,
             last ? "last" : "first");
  else
    snprintf(advice, capacity, "set label_column to %s",
             last ? "-1 (the last)" : "0 (the first)");
}

/* Refuses a label column of one value where the classes are the file's
 * own (or the rows train), and warns of one that looks less like labels
 * than the other end column: numbers that are not integers, or more
 * distinct values than labels (label_like_count). In the C locale. */
static ck_status csv_check_label_column(const csv_reader *csv,
                                        const int32_t *classes) {
  const ck_dataset *from = csv->options->classes_from;
  uint8_t seen[CK_DATASET_MAX_CLASSES / 8];
  char advice[64];
  size_t label = csv->label_column + 1, other_distinct = 0;
  size_t distinct = distinct_classes(classes, csv->rows, seen);
  if (distinct == 1 && (!from || csv->training)) {
    size_t other = other_end_column(csv, seen, &other_distinct);
    end_column_advice(csv, other, advice, sizeof advice);
    char rows[48] = "its one row";
    if (csv->rows > 1)
      snprintf(rows, sizeof rows, "all %zu rows", csv->rows);
    ck__fail(CK_ERROR_PARSE,
             "%s: column %zu, the label column, holds one value ('%.*s') in "
             "%s; a classifier needs at least 2 classes",
             csv->path, label, CK__CSV_QUOTE_MAX, csv->labels[0], rows);
    if (other_distinct)
      ck__fail_append(". Column %zu holds %zu distinct integers, as labels "
                      "do: %s",
                      other + 1, other_distinct, advice);
    else
      ck__fail_append(". If the label is in another column, %s, or its number",
                      advice);
    return CK_ERROR_PARSE;
  }
  /* Names are labels as they stand; numbers that are not integers are
   * measurements, read as names only because they are not integers. */
  const char *fraction = NULL;
  for (size_t r = 0; r < csv->rows; ++r) {
    const char *text = csv->labels[r];
    double value;
    long integer;
    if (ck__csv_read_number(&dataset_dialect, text, text + strlen(text),
                            &value) != CK__CSV_NUMBER) {
      fraction = NULL;
      break;
    }
    if (!fraction && !integer_label(text, &integer))
      fraction = text;
  }
  int too_many = distinct > LABEL_LIKE_MAX_CLASSES || distinct > csv->rows / 2;
  if (!fraction && !too_many)
    return CK_OK;
  size_t other = other_end_column(csv, seen, &other_distinct);
  if (!other_distinct)
    return CK_OK;
  char what[128];
  if (fraction)
    snprintf(what, sizeof what, "numbers that are not integers ('%.*s')",
             CK__CSV_QUOTE_MAX, fraction);
  else
    snprintf(what, sizeof what, "%zu distinct values in %zu rows", distinct,
             csv->rows);
  end_column_advice(csv, other, advice, sizeof advice);
  snprintf(csv->warning, CK__DATASET_WARNING_MAX,
           "%s: column %zu, the label column, holds %s, while column %zu "
           "holds %zu distinct integers, as labels do; if the label is there, "
           "%s",
           csv->path, label, what, other + 1, other_distinct, advice);
  return CK_OK;
}

ck_status ck__dataset_load_csv(const char *path, char *text, size_t size,
                               const ck_dataset_options *options,
                               ck__dataset_request *request,
                               ck_dataset *dataset) {
  ck_status status = CK_OK;
  csv_reader csv;
  ck__c_locale locale = {0};
  int32_t *classes = NULL;
  char **class_names = NULL;
  size_t class_count = 0;
  memset(&csv, 0, sizeof csv);
  csv.path = path;
  csv.options = options;
  csv.label_option = request->label_option;
  csv.training = request->training;
  csv.warning = request->warning;
  csv.line = 1;
  if (options->labelled == -1 && options->features == 0)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: labelled = -1 needs the expected feature count (features) to "
            "tell whether the rows carry labels",
            path);

  CK_TRY(ck__c_locale_enter(&locale, path));
  char *line = text, *text_end = text + size;
  while (line < text_end) {
    char *newline = memchr(line, '\n', (size_t)(text_end - line));
    char *end = newline ? newline : text_end;
    *end = '\0';
    CK_TRY(csv_line(&csv, line, end, text_end));
    csv.line += 1;
    line = end + 1;
  }
  if (csv.rows == 0)
    CK_FAIL(CK_ERROR_PARSE, "%s: no data rows (%s)", path,
            size == 0 ? "the file is empty"
                      : "only a header, comments or blank lines");

  /* Unlabelled rows keep labels of 0 and no classes. */
  classes = calloc(csv.rows, sizeof *classes);
  if (!classes)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu labels", path,
            csv.rows);
  if (csv.labelled) {
    CK_TRY(csv_classes(&csv, classes, &class_count, &class_names));
    CK_TRY(csv_check_label_column(&csv, classes));
  }
  ck__c_locale_leave(&locale);

  /* Give back what the bound reserved; keep the larger block if not. */
  if (csv.rows < csv.capacity) {
    float *values =
        realloc(csv.values, csv.rows * csv.features * sizeof *values);
    if (values)
      csv.values = values;
  }
  free(csv.labels);
  free(csv.lines);
  dataset->rows = csv.rows;
  dataset->features = csv.features;
  dataset->values = csv.values;
  dataset->labels = classes;
  dataset->classes = class_count;
  dataset->class_names = class_names;
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free(csv.values);
  free(csv.labels);
  free(csv.lines);
  free(classes);
  ck__dataset_free_class_names(class_names, class_count);
  return status;
}
