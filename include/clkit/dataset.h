/*
 * clkit/dataset.h - data sets for classification: rows of features with
 * one class label each (or none, for data to predict), read from IDX or
 * CSV files, split into training and test parts, and normalised per
 * feature.
 *
 * Ownership: a ck_dataset filled by ck_dataset_load() or a split owns its
 * arrays (values, labels, class names); release them with
 * ck_dataset_free(). Those functions overwrite *dataset without freeing
 * what it held. A zeroed ck_dataset is a valid empty value. Likewise for
 * ck_normalization and ck_dataset_normalization_fit() /
 * ck_dataset_normalization_free().
 *
 * Formats. ck_dataset_load() reads a file that starts with the IDX magic
 * (after gunzip, when it starts with the gzip magic) as IDX, and anything
 * else as CSV. It tells them apart by the first byte: zero for IDX (text
 * never starts with a NUL), so an IDX file with a wrong magic is reported
 * as such. Files are read whole into memory, at most 1 GiB (after
 * decompression; CK_ERROR_UNSUPPORTED beyond). A gzip file may hold
 * several members one after another; bytes after the last are an error.
 *
 * IDX (the MNIST format; big-endian integers): bytes 0-1 zero, byte 2 the
 * element type (0x08 unsigned byte, 0x09 signed byte, 0x0B int16,
 * 0x0C int32, 0x0D float32, 0x0E float64), byte 3 the number of
 * dimensions, then one uint32 size per dimension, then the elements. A
 * features file has at least 1 dimension: rows, then the sizes of each
 * row, flattened row-major (28 x 28 images give 784 features). Its labels
 * come from a second IDX file of one dimension, the same number of rows
 * and an integer type: options->labels_path, or else the features file's
 * name with "images-idx3" replaced by "labels-idx1". Both files may be
 * gzip-compressed. The payload must have exactly the size the header
 * gives. Records (rows) count from 1 in messages. Unlabelled data
 * (options->labelled) needs no labels file.
 *
 * CSV: one row per line, fields separated by commas with optional spaces
 * or tabs around each. One field is the label (options->label_column);
 * the others are numeric features, the same number on every row. Labels
 * are integers (the class is the integer, 0 .. 65535) when every label
 * of the file reads as one, and otherwise names (letters, words): the
 * classes are then the distinct names in byte order, so A .. Z give
 * 0 .. 25. A label column of one value is an error where the file makes
 * its own classes (options->classes_from NULL): a classifier needs at
 * least 2, and one value most often means that the label is in another
 * column (the message names the column at the other end of the line
 * where that one looks like labels). Line 1 is a header when
 * options->header says so, or when automatic and one of its feature
 * fields is not a number; "line 1" is
 * the first line that is neither blank nor a comment, so comments may
 * come before a header. Its label field is not looked at to decide, and
 * "nan" or "inf" count as numbers there (the line is then data, and an
 * error). Blank lines (at the end or anywhere), lines starting with '#'
 * (after optional blanks), a UTF-8 byte order mark, a trailing "\r" and
 * a missing final newline are accepted. Numbers are read in the C locale.
 * Unlabelled rows (options->labelled) are all features: no field is a
 * label, and every field of line 1 counts towards a header.
 *
 * Labels. options->labelled says whether rows carry labels, or lets each
 * file decide (a CSV file by its field count, against options->features;
 * an IDX file by whether its labels file exists). An unlabelled data set
 * has every label 0, classes 0 and no class names; the functions below
 * take it like any other. options->features, when nonzero, is the number
 * of features every row must have.
 *
 * Errors name the file and the 1-based line and field (CSV) or record
 * (IDX) at fault: CK_ERROR_IO for files that cannot be read,
 * CK_ERROR_PARSE for malformed content (a wrong magic or sizes, ragged
 * rows, non-numeric fields, labels outside the classes, a label column of
 * one value, an empty file, a truncated file), CK_ERROR_UNSUPPORTED for gzip input when clkit was
 * built without zlib.
 */
#ifndef CLKIT_DATASET_H
#define CLKIT_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most classes a data set may have, and the longest class name. */
#define CK_DATASET_MAX_CLASSES 65536
#define CK_DATASET_MAX_NAME 63

typedef struct ck_dataset {
  size_t rows, features;
  float *values;      /* rows x features, row-major */
  int32_t *labels;    /* rows entries, each in 0 .. classes - 1 (all 0
                         when unlabelled) */
  size_t classes;     /* the number of classes (see class_names); 0 for
                         an unlabelled data set */
  char **class_names; /* classes entries: CSV names, or NULL when the
                         labels are integers (class k is named "k") */
} ck_dataset;

typedef struct ck_dataset_options {
  /* CSV: the label's column, 0-based; -1 for the last. Default 0. */
  int label_column;
  /* CSV: 1 when line 1 is a header, 0 when not, -1 (default) to decide
   * from its fields. */
  int header;
  /* Labels must lie below this many classes (integer labels) or name at
   * most this many classes; 0 (default) for no limit. */
  size_t class_limit;
  /* Test data: take the classes (names and count) from this data set, so
   * that both sets number them alike; a label it lacks is an error. NULL
   * (default): the file's own classes. When it has class names, every
   * label is looked up by name, even one that reads as an integer; when
   * it has integer classes, a name label is an error, and so are integer
   * labels of an IDX file when it has names. */
  const struct ck_dataset *classes_from;
  /* IDX: the labels file; NULL (default) derives it from the name. A CSV
   * file's rows carry their labels: given for one that is read labelled,
   * it is CK_ERROR_INVALID_ARGUMENT rather than dropped. */
  const char *labels_path;
  /* Whether rows carry labels: 1 (default) yes; 0 no (CSV rows are all
   * features and label_column is ignored; IDX needs no labels file); -1
   * decide per file: a CSV file whose first data row has exactly
   * `features` fields has no labels and one with features + 1 has them; an
   * IDX file has labels when its labels file (given or derived) exists. An
   * unlabelled set has every label 0, classes 0 and class_names NULL;
   * classes_from and class_limit are then ignored. */
  int labelled;
  /* When nonzero, the number of features every row must have (an error
   * naming the file otherwise); required with labelled = -1 for CSV. */
  size_t features;
} ck_dataset_options;

/* ck_dataset_options_init - the defaults above.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if options is NULL. */
ck_status ck_dataset_options_init(ck_dataset_options *options);

/*
 * ck_dataset_load - read a data set from an IDX or CSV file.
 * Takes: path; options (NULL for the defaults); dataset (filled).
 * Returns: CK_OK; CK_ERROR_IO, CK_ERROR_PARSE or CK_ERROR_UNSUPPORTED as
 * described at the top, with the file and line or record (CK_ERROR_PARSE
 * also for a feature count other than options->features);
 * CK_ERROR_INVALID_ARGUMENT for bad options (labelled outside -1 .. 1, or
 * -1 for a CSV file without options->features, or labels_path for a CSV
 * file read labelled); CK_ERROR_OUT_OF_MEMORY.
 * On failure *dataset is left zeroed.
 */
ck_status ck_dataset_load(const char *path, const ck_dataset_options *options,
                          ck_dataset *dataset);

/*
 * ck_dataset_split - copy rows 0 .. first - 1 into head and the rest into
 * tail (either may be NULL to skip it). Class names are copied to both.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL or empty dataset,
 * when first is 0 or not below the number of rows, or when head and tail
 * are the same or one of them is dataset; CK_ERROR_OUT_OF_MEMORY. On
 * failure head and tail (unless one is dataset) are left zeroed.
 */
ck_status ck_dataset_split(const ck_dataset *dataset, size_t first,
                           ck_dataset *head, ck_dataset *tail);

/*
 * ck_dataset_split_random - a seeded random split: round(fraction x rows)
 * rows, chosen by a Philox shuffle keyed by seed, go to tail, the others
 * to head, both in their original order. Returns: CK_OK;
 * CK_ERROR_INVALID_ARGUMENT when fraction is outside (0, 1) or either part
 * would be empty, head and tail as for ck_dataset_split();
 * CK_ERROR_OUT_OF_MEMORY. Rounding is half away from zero (0.25 of 10
 * rows puts 3 in tail).
 */
ck_status ck_dataset_split_random(const ck_dataset *dataset, double fraction,
                                  uint64_t seed, ck_dataset *head,
                                  ck_dataset *tail);

/* ck_dataset_get_class_name - class k's name: the CSV name, or the integer
 * written into buffer (capacity bytes; CK_DATASET_MAX_NAME + 1 always
 * suffice for a loaded data set). Returns: CK_OK;
 * CK_ERROR_INVALID_ARGUMENT when k is not a class (any k of an
 * unlabelled data set), or buffer is NULL or too small (buffer then holds
 * ""). */
ck_status ck_dataset_get_class_name(const ck_dataset *dataset, size_t k,
                                    char *buffer, size_t capacity);

/* ck_dataset_free - release a data set's arrays and zero it. NULL and a
 * zeroed data set are fine. Returns: CK_OK. */
ck_status ck_dataset_free(ck_dataset *dataset);

typedef enum ck_normalization_kind {
  CK_NORMALIZE_NONE = 0,   /* features as read */
  CK_NORMALIZE_ZSCORE = 1, /* (x - mean) / standard deviation */
  CK_NORMALIZE_MINMAX = 2  /* (x - min) / (max - min), into [0, 1] */
} ck_normalization_kind;

/* Feature f becomes (x - offset[f]) * scale[f]. A constant feature gets
 * scale 1, so it maps to 0 rather than to a division by zero. */
typedef struct ck_normalization {
  ck_normalization_kind kind;
  size_t features;
  float *offset, *scale; /* features entries each; NULL for NONE */
} ck_normalization;

/*
 * ck_dataset_normalization_fit - per-feature offsets and scales of kind,
 * computed (in double precision) over every row of dataset, normally the
 * training set. normalization is filled in (release it with
 * ck_dataset_normalization_free()). Returns: CK_OK;
 * CK_ERROR_INVALID_ARGUMENT for a NULL argument, an empty data set or an
 * unknown kind; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_dataset_normalization_fit(const ck_dataset *dataset,
                                       ck_normalization_kind kind,
                                       ck_normalization *normalization);

/*
 * ck_dataset_normalize - apply a normalisation to every row, in place
 * (CK_NORMALIZE_NONE changes nothing). Returns: CK_OK;
 * CK_ERROR_INVALID_ARGUMENT for a NULL argument, an unknown kind, missing
 * arrays, or when the feature counts differ, whatever the kind.
 */
ck_status ck_dataset_normalize(const ck_normalization *normalization,
                               ck_dataset *dataset);

/* ck_dataset_normalization_free - release and zero a normalisation. NULL
 * is fine. Returns: CK_OK. */
ck_status ck_dataset_normalization_free(ck_normalization *normalization);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_DATASET_H */
