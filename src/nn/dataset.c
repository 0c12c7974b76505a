/*
 * Data sets for classification (clkit/dataset.h): the IDX and CSV
 * readers, copies of parts of a data set, and per-feature normalisation.
 *
 * A file is read whole into memory, through zlib's inflate() when it
 * starts with the gzip magic 1f 8b, and parsed there. A file whose first
 * byte (after decompression) is zero is IDX: the magic begins 00 00 and
 * text never starts with a NUL. Anything else is CSV.
 *
 * IDX: the header is checked against the file's size before anything is
 * allocated; elements are converted to float one type at a time. The
 * labels come from a second IDX file of one integer dimension; with
 * labelled = -1, a derived labels file that does not exist (or a name
 * that derives none) makes the data unlabelled.
 *
 * CSV: lines are cut at '\n' in place and split at commas; numbers go
 * through strtod() under the C locale (the line and field helpers of
 * util/csv.c, shared with the lsq reader). The arrays are sized once, from
 * an upper bound on the rows left when the first line is seen (each data
 * row takes at least as many bytes as it has fields), and trimmed at the
 * end. Labels are kept as text, NUL-terminated in the buffer, until every
 * row has been read: only then is it known whether they are all integers
 * or names, and names become classes in strcmp() order. Whether rows
 * carry a label at all is settled at the first line (labelled = -1
 * compares its field count with options->features); unlabelled rows keep
 * no label text, and get labels of 0 and no classes at the end.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "ck_philox.h"
#include "nn/nn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef CK_HAVE_ZLIB
#include <zlib.h>
#endif

/* The most bytes a data file may hold (after decompression). */
#define FILE_MAX_BYTES CK__DATA_FILE_MAX_BYTES
/* The most bytes handed to zlib at once (its counts are 32-bit). */
#define ZLIB_CHUNK ((size_t)1 << 30)
/* The Philox stream of ck_dataset_split_random ("dsplit" in ASCII). */
#define SPLIT_STREAM UINT64_C(0x00006473706c6974)
/* A spread below this, relative to a feature's largest magnitude, counts
 * as a constant feature. */
#define CONSTANT_RELATIVE 1e-12
/* A CSV column looks like class labels when it holds whole numbers 0 ..
 * CK_DATASET_MAX_CLASSES - 1 of at least 2 and at most this many distinct
 * values, and at most half as many as it has rows. */
#define LABEL_LIKE_MAX_CLASSES 1000

/* ---- small helpers ------------------------------------------------------ */

/* A malloc'd copy of a string, or NULL. */
static char *copy_string(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy)
    memcpy(copy, text, length + 1);
  return copy;
}

static void free_class_names(char **names, size_t count) {
  if (!names)
    return;
  for (size_t k = 0; k < count; ++k)
    free(names[k]);
  free(names);
}

/* Copies count names into a fresh array *out; what is for the message. */
static ck_status copy_class_names(char *const *names, size_t count, char ***out,
                                  const char *what) {
  ck_status status = CK_OK;
  *out = NULL;
  if (count == 0)
    return CK_OK;
  char **copy = calloc(count, sizeof *copy);
  if (!copy)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu class names",
            what, count);
  for (size_t k = 0; k < count; ++k) {
    copy[k] = copy_string(names[k]);
    if (!copy[k])
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "%s: out of memory copying class name %zu", what, k);
  }
  *out = copy;
  return CK_OK;
fail:
  free_class_names(copy, count); /* NULL past the failed copy */
  return status;
}

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

/* The checks every function taking a filled data set makes. */
static ck_status check_dataset(const ck_dataset *dataset,
                               const char *function) {
  if (!dataset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: dataset is NULL", function);
  if (dataset->rows == 0 || dataset->features == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the data set is empty (%zu rows of %zu features)",
                    function, dataset->rows, dataset->features);
  if (!dataset->values || !dataset->labels)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the data set's values or labels are NULL", function);
  if (dataset->rows > SIZE_MAX / sizeof(float) / dataset->features)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: %zu rows of %zu features overflow the address space",
                    function, dataset->rows, dataset->features);
  return CK_OK;
}

/* ---- reading files ------------------------------------------------------ */

#ifdef CK_HAVE_ZLIB
/* The next size of a growing output buffer: double, but never past one
 * byte over the limit, which is enough to tell that the data is too large
 * without inflating (or holding) twice the limit first. */
static size_t grown_capacity(size_t capacity) {
  return capacity < FILE_MAX_BYTES / 2 ? 2 * capacity : FILE_MAX_BYTES + 1;
}

/* Inflates the gzip data in[0 .. in_size) (one member or several) into a
 * malloc'd buffer with a NUL after its end. */
static ck_status gunzip(const char *path, const uint8_t *in, size_t in_size,
                        uint8_t **out, size_t *out_size) {
  ck_status status = CK_OK;
  z_stream stream;
  int started = 0;
  uint8_t *data = NULL;
  size_t used = 0, given = 0, capacity;
  memset(&stream, 0, sizeof stream);

  /* The trailer's size (modulo 2^32) sizes the buffer when plausible:
   * deflate cannot expand by more than about 1032 times. */
  uint32_t stated = 0;
  if (in_size >= 18)
    for (int i = 0; i < 4; ++i)
      stated |= (uint32_t)in[in_size - 4 + (size_t)i] << (8 * i);
  if (stated > 0 && stated <= FILE_MAX_BYTES && stated / 1032 <= in_size)
    capacity = (size_t)stated + 1;
  else
    capacity =
        in_size < FILE_MAX_BYTES / 4 ? 4 * in_size + 4096 : FILE_MAX_BYTES + 1;
  data = malloc(capacity + 1);
  if (!data)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory: %zu bytes", path,
            capacity + 1);
  int result = inflateInit2(&stream, 15 + 16); /* gzip wrapper only */
  if (result != Z_OK)
    CK_FAIL(result == Z_MEM_ERROR ? CK_ERROR_OUT_OF_MEMORY : CK_ERROR_IO,
            "%s: cannot start zlib: %s", path,
            stream.msg ? stream.msg : "inflateInit2 failed");
  started = 1;

  for (;;) {
    if (stream.avail_in == 0 && given < in_size) {
      size_t chunk =
          in_size - given < ZLIB_CHUNK ? in_size - given : ZLIB_CHUNK;
      stream.next_in = (Bytef *)(uintptr_t)(in + given);
      stream.avail_in = (uInt)chunk;
      given += chunk;
    }
    if (used == capacity) {
      if (capacity > FILE_MAX_BYTES)
        CK_FAIL(CK_ERROR_UNSUPPORTED,
                "%s: more than %zu bytes after decompression; clkit reads "
                "data files of at most that size",
                path, FILE_MAX_BYTES);
      size_t larger = grown_capacity(capacity);
      uint8_t *grown = realloc(data, larger + 1);
      if (!grown)
        CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
                "%s: out of memory: %zu bytes for the decompressed data", path,
                larger + 1);
      data = grown;
      capacity = larger;
    }
    size_t room = capacity - used < ZLIB_CHUNK ? capacity - used : ZLIB_CHUNK;
    stream.next_out = data + used;
    stream.avail_out = (uInt)room;
    result = inflate(&stream, Z_NO_FLUSH);
    used += room - stream.avail_out;
    if (result == Z_STREAM_END) {
      /* What zlib has not taken lies contiguous up to the end of in. */
      const uint8_t *next = stream.avail_in ? stream.next_in : in + given;
      size_t left = (size_t)(in + in_size - next);
      if (left == 0)
        break;
      /* Another gzip member follows (as cat a.gz b.gz makes). */
      if (left >= 2 && next[0] == 0x1f && next[1] == 0x8b) {
        if (inflateReset(&stream) != Z_OK)
          CK_FAIL(CK_ERROR_PARSE, "%s: corrupt gzip data after %zu bytes", path,
                  in_size - left);
        continue;
      }
      CK_FAIL(CK_ERROR_PARSE,
              "%s: corrupt gzip data: %zu bytes of trailing garbage after the "
              "compressed stream",
              path, left);
    }
    if (result == Z_OK)
      continue;
    if (result == Z_BUF_ERROR) {
      if (stream.avail_in == 0 && given == in_size)
        CK_FAIL(CK_ERROR_PARSE,
                "%s: truncated gzip stream (the compressed data ends after "
                "%zu bytes, %zu bytes decompressed)",
                path, in_size, used);
      continue; /* room for more output, or more input, is coming */
    }
    if (result == Z_MEM_ERROR)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory in zlib", path);
    CK_FAIL(CK_ERROR_PARSE, "%s: corrupt gzip data: %s", path,
            stream.msg ? stream.msg : "invalid stream");
  }
  inflateEnd(&stream);
  data[used] = 0;
  *out = data;
  *out_size = used;
  return CK_OK;

fail:
  if (started)
    inflateEnd(&stream);
  free(data);
  return status;
}
#endif

/* A data file, decompressed when it is gzip, with a NUL after its end. */
static ck_status read_data_file(const char *path, uint8_t **bytes,
                                size_t *size) {
  ck_status status = CK_OK;
  uint8_t *raw = NULL;
  size_t raw_size = 0;
  *bytes = NULL;
  *size = 0;
  CK_TRY(ck__file_read_bytes(path, FILE_MAX_BYTES, NULL, 0, (char **)&raw,
                             &raw_size));
  if (raw_size >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
#ifdef CK_HAVE_ZLIB
    CK_TRY(gunzip(path, raw, raw_size, bytes, size));
    free(raw);
    return CK_OK;
#else
    CK_FAIL(CK_ERROR_UNSUPPORTED,
            "%s: gzip-compressed, but clkit was built without zlib", path);
#endif
  }
  *bytes = raw;
  *size = raw_size;
  return CK_OK;

fail:
  free(raw);
  return status;
}

/* ---- IDX ------------------------------------------------------------------
 */

typedef struct idx_header {
  uint8_t type;
  size_t element_size;
  unsigned dimensions;
  size_t rows;         /* the size of dimension 1 */
  size_t row_elements; /* the product of the others (1 for one dimension) */
  const uint8_t *payload;
} idx_header;

static size_t idx_element_size(uint8_t type) {
  switch (type) {
  case 0x08:
  case 0x09:
    return 1;
  case 0x0B:
    return 2;
  case 0x0C:
  case 0x0D:
    return 4;
  case 0x0E:
    return 8;
  default:
    return 0;
  }
}

static const char *idx_type_name(uint8_t type) {
  switch (type) {
  case 0x08:
    return "unsigned byte";
  case 0x09:
    return "signed byte";
  case 0x0B:
    return "int16";
  case 0x0C:
    return "int32";
  case 0x0D:
    return "float32";
  default:
    return "float64";
  }
}

static uint32_t get_be32(const uint8_t *in) {
  return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 |
         (uint32_t)in[3];
}

static uint64_t get_be64(const uint8_t *in) {
  return (uint64_t)get_be32(in) << 32 | get_be32(in + 4);
}

/* Checks the header of an IDX file against its size. */
static ck_status idx_read_header(const char *path, const uint8_t *bytes,
                                 size_t size, idx_header *header) {
  memset(header, 0, sizeof *header);
  if (size < 4)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: truncated IDX header (%zu of at least 4 bytes)", path,
                    size);
  if (bytes[0] != 0 || bytes[1] != 0)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: not an IDX file: bad magic %02x %02x %02x %02x (bytes "
                    "0-1 must be 00 00)",
                    path, bytes[0], bytes[1], bytes[2], bytes[3]);
  header->type = bytes[2];
  header->element_size = idx_element_size(bytes[2]);
  if (header->element_size == 0)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: unknown IDX element type 0x%02X (known: 0x08, 0x09, "
                    "0x0B, 0x0C, 0x0D, 0x0E)",
                    path, bytes[2]);
  header->dimensions = bytes[3];
  if (header->dimensions == 0)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: the IDX header gives 0 dimensions; at least 1 is "
                    "needed",
                    path);
  size_t header_size = 4 + 4 * (size_t)header->dimensions;
  if (size < header_size)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: truncated IDX header (%zu of %zu bytes for %u "
                    "dimensions)",
                    path, size, header_size, header->dimensions);
  size_t row_elements = 1;
  for (unsigned d = 0; d < header->dimensions; ++d) {
    uint32_t extent = get_be32(bytes + 4 + 4 * (size_t)d);
    if (extent == 0)
      return ck__fail(CK_ERROR_PARSE,
                      "%s: dimension %u of %u has size 0 in the IDX header",
                      path, d + 1, header->dimensions);
    if (d == 0) {
      header->rows = extent;
      continue;
    }
    if (row_elements > SIZE_MAX / header->element_size / extent)
      return ck__fail(CK_ERROR_PARSE,
                      "%s: the IDX sizes overflow the address space "
                      "(dimension %u)",
                      path, d + 1);
    row_elements *= extent;
  }
  header->row_elements = row_elements;
  size_t record_bytes = row_elements * header->element_size;
  if (header->rows > (SIZE_MAX - header_size) / record_bytes)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: %zu records of %zu bytes overflow the address space",
                    path, header->rows, record_bytes);
  size_t expected = header_size + header->rows * record_bytes;
  if (size < expected)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: record %zu: truncated (file ends after %zu of %zu "
                    "bytes)",
                    path, (size - header_size) / record_bytes + 1, size,
                    expected);
  if (size > expected)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: %zu trailing byte%s after the last record (the header "
                    "gives %zu bytes, the file has %zu)",
                    path, size - expected, size - expected == 1 ? "" : "s",
                    expected, size);
  header->payload = bytes + header_size;
  return CK_OK;
}

/* Converts the features of an IDX file to float. */
static ck_status idx_features(const char *path, const idx_header *header,
                              float *values) {
  size_t count = header->rows * header->row_elements;
  const uint8_t *in = header->payload;
  switch (header->type) {
  case 0x08:
    for (size_t i = 0; i < count; ++i)
      values[i] = (float)in[i];
    return CK_OK;
  case 0x09:
    for (size_t i = 0; i < count; ++i)
      values[i] = (float)(int8_t)in[i];
    return CK_OK;
  case 0x0B:
    for (size_t i = 0; i < count; ++i)
      values[i] = (float)(int16_t)(uint16_t)(in[2 * i] << 8 | in[2 * i + 1]);
    return CK_OK;
  case 0x0C:
    for (size_t i = 0; i < count; ++i)
      values[i] = (float)(int32_t)get_be32(in + 4 * i);
    return CK_OK;
  default:
    break;
  }
  for (size_t i = 0; i < count; ++i) {
    double value;
    if (header->type == 0x0D) {
      uint32_t bits = get_be32(in + 4 * i);
      float single;
      memcpy(&single, &bits, sizeof single);
      value = single;
    } else {
      uint64_t bits = get_be64(in + 8 * i);
      memcpy(&value, &bits, sizeof value);
    }
    if (!isfinite(value) || fabs(value) > FLT_MAX)
      return ck__fail(CK_ERROR_PARSE, "%s: record %zu: element %zu: %s", path,
                      i / header->row_elements + 1,
                      i % header->row_elements + 1,
                      isnan(value)   ? "NaN is not allowed"
                      : isinf(value) ? "infinity is not allowed"
                                     : "the value is out of range for a float");
    values[i] = (float)value;
  }
  return CK_OK;
}

static const char IDX_IMAGES[] = "images-idx3", IDX_LABELS[] = "labels-idx1";

/* Where the base name of path holds "images-idx3", or NULL. */
static const char *idx_images_part(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return strstr(base, IDX_IMAGES);
}

ck_status ck__idx_labels_path(const char *path, char **labels_path) {
  const char *at = idx_images_part(path);
  *labels_path = NULL;
  if (!at)
    return CK_OK;
  size_t length = strlen(path);
  char *derived = malloc(length + 1);
  if (!derived)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: out of memory for the labels file's name", path);
  memcpy(derived, path, length + 1);
  memcpy(derived + (at - path), IDX_LABELS, sizeof IDX_LABELS - 1);
  *labels_path = derived;
  return CK_OK;
}

/* ck__idx_labels_path, where a name that derives none is a failure. */
static ck_status idx_labels_path(const char *path, char **labels_path) {
  ck_status status = ck__idx_labels_path(path, labels_path);
  if (status == CK_OK && !*labels_path && strcmp(path, "-") == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "- (standard input): an IDX features file needs a "
                    "labels file, and standard input has no name to derive "
                    "one from: give the labels file's path");
  if (status == CK_OK && !*labels_path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: an IDX features file needs a labels file: give its "
                    "path (the name has no \"%s\" to replace with \"%s\"), "
                    "or load it unlabelled",
                    path, IDX_IMAGES, IDX_LABELS);
  return status;
}

/* Whether an IDX features file has labels: labelled = -1 becomes 1 when
 * the labels file is given or the derived one exists (*derived is then
 * its malloc'd name), and 0 when no name derives or the file is absent. */
static ck_status idx_labelled(const char *path,
                              const ck_dataset_options *options, int *labelled,
                              char **derived) {
  *labelled = options->labelled;
  *derived = NULL;
  if (*labelled == 0)
    return CK_OK;
  if (options->labels_path) {
    *labelled = 1;
    return CK_OK;
  }
  if (*labelled == -1 && !idx_images_part(path)) {
    *labelled = 0;
    return CK_OK;
  }
  ck_status status = idx_labels_path(path, derived);
  if (status != CK_OK || *labelled == 1)
    return status;
  *labelled = 1;
  if (access(*derived, F_OK) != 0 && errno == ENOENT) {
    free(*derived);
    *derived = NULL;
    *labelled = 0;
  }
  return CK_OK;
}

static ck_status load_idx(const char *path, const uint8_t *bytes, size_t size,
                          const ck_dataset_options *options,
                          ck_dataset *dataset) {
  ck_status status = CK_OK;
  idx_header features, labels;
  char *derived = NULL;
  uint8_t *label_bytes = NULL;
  size_t label_size = 0;
  float *values = NULL;
  int32_t *classes = NULL;
  int labelled = 0;
  const ck_dataset *from = options->classes_from;
  memset(&labels, 0, sizeof labels);

  CK_TRY(idx_read_header(path, bytes, size, &features));
  if (options->features && features.row_elements != options->features)
    CK_FAIL(CK_ERROR_PARSE, "%s: %zu feature%s, but %zu %s expected", path,
            features.row_elements, features.row_elements == 1 ? "" : "s",
            options->features, options->features == 1 ? "is" : "are");
  if (features.rows > SIZE_MAX / sizeof(float) / features.row_elements)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: %zu rows of %zu features overflow the address space", path,
            features.rows, features.row_elements);

  CK_TRY(idx_labelled(path, options, &labelled, &derived));
  const char *labels_path = derived ? derived : options->labels_path;
  if (labelled) {
    status = read_data_file(labels_path, &label_bytes, &label_size);
    if (status != CK_OK) {
      if (derived)
        ck__fail_append(" (the labels file of %s, named after it; give the "
                        "labels file to use another)",
                        path);
      else
        ck__fail_append(" (the labels file of %s)", path);
      goto fail;
    }
    CK_TRY(idx_read_header(labels_path, label_bytes, label_size, &labels));
    if (labels.dimensions != 1)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: a labels file has 1 dimension, but this one has %u",
              labels_path, labels.dimensions);
    if (labels.type == 0x0D || labels.type == 0x0E)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: labels of element type 0x%02X (%s); labels need an integer "
              "type",
              labels_path, labels.type, idx_type_name(labels.type));
    if (labels.rows != features.rows)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: %zu labels, but the features file %s has %zu "
              "rows",
              labels_path, labels.rows, path, features.rows);
    if (from && from->class_names)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: the labels are integers, but the classes to use (of "
              "the training data or model) are names",
              labels_path);
  }

  values = malloc(features.rows * features.row_elements * sizeof *values);
  classes = calloc(features.rows, sizeof *classes);
  if (!values || !classes)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for %zu rows of %zu features", path,
            features.rows, features.row_elements);
  CK_TRY(idx_features(path, &features, values));

  int64_t largest = 0;
  for (size_t r = 0; r < labels.rows; ++r) {
    const uint8_t *in = labels.payload + r * labels.element_size;
    int64_t label;
    switch (labels.type) {
    case 0x08:
      label = in[0];
      break;
    case 0x09:
      label = (int8_t)in[0];
      break;
    case 0x0B:
      label = (int16_t)(uint16_t)(in[0] << 8 | in[1]);
      break;
    default:
      label = (int32_t)get_be32(in);
      break;
    }
    if (label < 0)
      CK_FAIL(CK_ERROR_PARSE, "%s: record %zu: label %lld is negative",
              labels_path, r + 1, (long long)label);
    if (label >= CK_DATASET_MAX_CLASSES)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: record %zu: label %lld is above %d, the largest class",
              labels_path, r + 1, (long long)label, CK_DATASET_MAX_CLASSES - 1);
    if (options->class_limit && (uint64_t)label >= options->class_limit)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: record %zu: label %lld is not below the class limit %zu",
              labels_path, r + 1, (long long)label, options->class_limit);
    if (from && (uint64_t)label >= from->classes)
      CK_FAIL(CK_ERROR_PARSE,
              "%s: record %zu: label %lld is not one of the %zu classes "
              "(0 .. %zu) of the training data or model",
              labels_path, r + 1, (long long)label, from->classes,
              from->classes - 1);
    classes[r] = (int32_t)label;
    if (label > largest)
      largest = label;
  }

  free(derived);
  free(label_bytes);
  dataset->rows = features.rows;
  dataset->features = features.row_elements;
  dataset->values = values;
  dataset->labels = classes;
  dataset->classes = !labelled ? 0 : from ? from->classes : (size_t)largest + 1;
  dataset->class_names = NULL;
  return CK_OK;

fail:
  free(derived);
  free(label_bytes);
  free(values);
  free(classes);
  return status;
}

/* ---- CSV ------------------------------------------------------------------
 */

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
  CK_TRY(copy_class_names(from->class_names, from->classes, class_names,
                          csv->path));
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
  CK_TRY(copy_class_names(sorted, distinct, &names, csv->path));
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

static ck_status load_csv(const char *path, char *text, size_t size,
                          const ck_dataset_options *options,
                          ck__dataset_request *request, ck_dataset *dataset) {
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
  free_class_names(class_names, class_count);
  return status;
}

/* ---- loading ------------------------------------------------------------ */

ck_status ck_dataset_options_init(ck_dataset_options *options) {
  if (!options)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_options_init: options is NULL");
  memset(options, 0, sizeof *options);
  ck__fields_init(options, ck__dataset_fields, CK__DATASET_FIELDS);
  return CK_OK;
}

static ck_status check_options(const ck_dataset_options *options,
                               const ck_dataset *dataset) {
  if (options->labelled < -1 || options->labelled > 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: labelled %d: give 1 (rows carry labels), "
                    "0 (none) or -1 (decide per file)",
                    options->labelled);
  if (options->labelled != 0 && options->label_column < -1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: label_column %d: give a column counted "
                    "from 0, or -1 for the last",
                    options->label_column);
  if (options->header < -1 || options->header > 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: header %d: give 1 (a header), 0 (none) "
                    "or -1 (decide from the first line)",
                    options->header);
  /* Unlabelled data ignores classes_from. */
  const ck_dataset *from = options->classes_from;
  if (!from || options->labelled == 0)
    return CK_OK;
  if (from == dataset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: classes_from is the data set being "
                    "loaded");
  if (from->classes == 0 || from->classes > CK_DATASET_MAX_CLASSES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: classes_from has %zu classes; it needs "
                    "1 .. %d",
                    from->classes, CK_DATASET_MAX_CLASSES);
  if (from->class_names)
    for (size_t k = 0; k < from->classes; ++k)
      if (!from->class_names[k])
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "ck_dataset_load: classes_from's class name %zu is "
                        "NULL",
                        k);
  return CK_OK;
}

ck_status ck_dataset_load(const char *path, const ck_dataset_options *options,
                          ck_dataset *dataset) {
  ck__dataset_request request;
  memset(&request, 0, sizeof request);
  return ck__dataset_load(path, options, &request, dataset);
}

static const char *format_name(ck__dataset_format format) {
  return format == CK__DATASET_IDX ? "IDX" : "CSV";
}

ck_status ck__dataset_load(const char *path, const ck_dataset_options *options,
                           ck__dataset_request *request, ck_dataset *dataset) {
  ck_status status = CK_OK;
  ck__dataset_format *format = &request->format;
  ck__dataset_format required = request->required;
  *format = CK__DATASET_UNKNOWN;
  request->warning[0] = '\0';
  ck_dataset_options defaults;
  uint8_t *bytes = NULL;
  size_t size = 0;
  if (!dataset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_load: dataset is NULL");
  if (!options) {
    ck_dataset_options_init(&defaults);
    options = &defaults;
  }
  CK_TRY(check_options(options, dataset));
  memset(dataset, 0, sizeof *dataset);
  if (!path)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "ck_dataset_load: path is NULL");
  CK_TRY(read_data_file(path, &bytes, &size));
  *format = size > 0 && bytes[0] == 0 ? CK__DATASET_IDX : CK__DATASET_CSV;
  /* Before parsing: read in the other format's terms, the file would fail
   * on something beside the point (a label beyond the classes, a count of
   * features) or, worse, load as data it is not. */
  if (required != CK__DATASET_UNKNOWN && *format != required)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s is %s, not %s", path,
            format_name(*format), format_name(required));
  if (*format == CK__DATASET_IDX) {
    CK_TRY(load_idx(path, bytes, size, options, dataset));
  } else {
    /* A CSV row carries its label: a labels file would be dropped. */
    if (options->labels_path && options->labelled != 0)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s is CSV, whose rows carry their labels; a labels file (%s) "
              "goes with IDX features",
              path, options->labels_path);
    CK_TRY(load_csv(path, (char *)bytes, size, options, request, dataset));
  }
  free(bytes);
  return CK_OK;

fail:
  free(bytes);
  memset(dataset, 0, sizeof *dataset);
  request->warning[0] = '\0';
  return status;
}

/* ---- splits ------------------------------------------------------------- */

/* Copies the count rows r of [begin, end) with !in_tail or in_tail[r] ==
 * want into *out. */
static ck_status copy_rows(const ck_dataset *source, size_t begin, size_t end,
                           const uint8_t *in_tail, uint8_t want, size_t count,
                           ck_dataset *out, const char *function) {
  ck_status status = CK_OK;
  ck_dataset part;
  size_t features = source->features;
  memset(&part, 0, sizeof part);
  part.rows = count;
  part.features = features;
  part.values = malloc(count * features * sizeof *part.values);
  part.labels = malloc(count * sizeof *part.labels);
  if (!part.values || !part.labels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for %zu rows of %zu features", function, count,
            features);
  if (source->class_names)
    CK_TRY(copy_class_names(source->class_names, source->classes,
                            &part.class_names, function));
  part.classes = source->classes;
  size_t at = 0;
  for (size_t r = begin; r < end && at < count; ++r) {
    if (in_tail && in_tail[r] != want)
      continue;
    memcpy(part.values + at * features, source->values + r * features,
           features * sizeof *part.values);
    part.labels[at] = source->labels[r];
    ++at;
  }
  *out = part;
  return CK_OK;

fail:
  ck_dataset_free(&part);
  return status;
}

static ck_status check_parts(const ck_dataset *dataset, const ck_dataset *head,
                             const ck_dataset *tail, const char *function) {
  if (head && head == tail)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: head and tail are the same data set", function);
  if (head == dataset || tail == dataset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: head or tail is the data set being split", function);
  return CK_OK;
}

ck_status ck_dataset_split(const ck_dataset *dataset, size_t first,
                           ck_dataset *head, ck_dataset *tail) {
  static const char function[] = "ck_dataset_split";
  ck_status status = CK_OK;
  ck_dataset head_part, tail_part;
  memset(&head_part, 0, sizeof head_part);
  memset(&tail_part, 0, sizeof tail_part);
  CK_TRY(check_dataset(dataset, function));
  CK_TRY(check_parts(dataset, head, tail, function));
  if (first == 0 || first >= dataset->rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: first is %zu; it must lie in 1 .. %zu, as the data set has "
            "%zu rows",
            function, first, dataset->rows - 1, dataset->rows);
  if (head)
    CK_TRY(copy_rows(dataset, 0, first, NULL, 0, first, &head_part, function));
  if (tail)
    CK_TRY(copy_rows(dataset, first, dataset->rows, NULL, 0,
                     dataset->rows - first, &tail_part, function));
  if (head)
    *head = head_part;
  if (tail)
    *tail = tail_part;
  return CK_OK;

fail:
  ck_dataset_free(&head_part);
  ck_dataset_free(&tail_part);
  if (head && head != dataset)
    memset(head, 0, sizeof *head);
  if (tail && tail != dataset)
    memset(tail, 0, sizeof *tail);
  return status;
}

/* A uniform integer in [0, bound) from one Philox block (bound >= 1). */
static size_t uniform_below(ck_philox_counter block, size_t bound) {
  if ((uint64_t)bound <= UINT64_C(0x100000000))
    return (size_t)(((uint64_t)block.v[0] * (uint64_t)bound) >> 32);
  uint64_t wide = (uint64_t)block.v[1] << 32 | block.v[0];
  return (size_t)(wide % (uint64_t)bound);
}

ck_status ck_dataset_split_random(const ck_dataset *dataset, double fraction,
                                  uint64_t seed, ck_dataset *head,
                                  ck_dataset *tail) {
  static const char function[] = "ck_dataset_split_random";
  ck_status status = CK_OK;
  ck_dataset head_part, tail_part;
  size_t *order = NULL;
  uint8_t *in_tail = NULL;
  memset(&head_part, 0, sizeof head_part);
  memset(&tail_part, 0, sizeof tail_part);
  CK_TRY(check_dataset(dataset, function));
  CK_TRY(check_parts(dataset, head, tail, function));
  if (!(fraction > 0.0 && fraction < 1.0))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s: fraction %g is outside (0, 1)",
            function, fraction);
  size_t rows = dataset->rows;
  double wanted = floor(fraction * (double)rows + 0.5);
  if (wanted < 1.0 || wanted >= (double)rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: a fraction of %g of %zu rows leaves %s part empty", function,
            fraction, rows, wanted < 1.0 ? "the tail" : "the head");
  size_t count = (size_t)wanted;

  order = malloc(rows * sizeof *order);
  in_tail = calloc(rows, 1);
  if (!order || !in_tail)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu rows", function,
            rows);
  for (size_t r = 0; r < rows; ++r)
    order[r] = r;
  /* The first count steps of a Fisher-Yates shuffle draw the tail. */
  for (size_t i = 0; i < count; ++i) {
    ck_philox_counter block = ck_philox_block(seed, SPLIT_STREAM, i);
    size_t j = i + uniform_below(block, rows - i);
    size_t swap = order[i];
    order[i] = order[j];
    order[j] = swap;
    in_tail[order[i]] = 1;
  }
  if (head)
    CK_TRY(copy_rows(dataset, 0, rows, in_tail, 0, rows - count, &head_part,
                     function));
  if (tail)
    CK_TRY(
        copy_rows(dataset, 0, rows, in_tail, 1, count, &tail_part, function));
  free(order);
  free(in_tail);
  if (head)
    *head = head_part;
  if (tail)
    *tail = tail_part;
  return CK_OK;

fail:
  free(order);
  free(in_tail);
  ck_dataset_free(&head_part);
  ck_dataset_free(&tail_part);
  if (head && head != dataset)
    memset(head, 0, sizeof *head);
  if (tail && tail != dataset)
    memset(tail, 0, sizeof *tail);
  return status;
}

/* ---- classes and release ------------------------------------------------ */

ck_status ck_dataset_get_class_name(const ck_dataset *dataset, size_t k,
                                    char *buffer, size_t capacity) {
  CK__REQUIRE(dataset);
  CK__REQUIRE(buffer);
  if (!capacity)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_dataset_get_class_name: capacity is 0");
  buffer[0] = '\0';
  if (k >= dataset->classes)
    return ck__fail(
        CK_ERROR_INVALID_ARGUMENT,
        "ck_dataset_get_class_name: %zu is not a class; the data set "
        "has %zu",
        k, dataset->classes);
  return ck__class_name_write("ck_dataset_get_class_name",
                              dataset->class_names ? dataset->class_names[k]
                                                   : NULL,
                              k, buffer, capacity);
}

ck_status ck__class_name_write(const char *function, const char *name, size_t k,
                               char *buffer, size_t capacity) {
  int written = name ? snprintf(buffer, capacity, "%s", name)
                     : snprintf(buffer, capacity, "%zu", k);
  if (written < 0 || (size_t)written >= capacity) {
    buffer[0] = '\0';
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: class %zu's name takes %d bytes and a NUL; the "
                    "buffer has %zu",
                    function, k, written, capacity);
  }
  return CK_OK;
}

ck_status ck_dataset_free(ck_dataset *dataset) {
  if (!dataset)
    return CK_OK;
  free(dataset->values);
  free(dataset->labels);
  free_class_names(dataset->class_names, dataset->classes);
  memset(dataset, 0, sizeof *dataset);
  return CK_OK;
}

/* ---- normalisation ------------------------------------------------------ */

/* The scale for a spread (stddev or range) of a feature whose values
 * reach magnitude: 1 for a constant feature. */
static float scale_for(double spread, double magnitude) {
  if (!(spread > CONSTANT_RELATIVE * magnitude) || !(spread > 0.0))
    return 1.0f;
  double scale = 1.0 / spread;
  if (!(scale <= FLT_MAX))
    return 1.0f;
  return (float)scale;
}

ck_status ck_dataset_normalization_fit(const ck_dataset *dataset,
                                       ck_normalization_kind kind,
                                       ck_normalization *normalization) {
  static const char function[] = "ck_dataset_normalization_fit";
  ck_status status = CK_OK;
  float *offset = NULL, *scale = NULL;
  double *work = NULL;
  if (!normalization)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: normalization is NULL",
                    function);
  memset(normalization, 0, sizeof *normalization);
  CK_TRY(check_dataset(dataset, function));
  if (kind != CK_NORMALIZE_NONE && kind != CK_NORMALIZE_ZSCORE &&
      kind != CK_NORMALIZE_MINMAX)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s: unknown normalisation kind %d",
            function, (int)kind);
  size_t rows = dataset->rows, features = dataset->features;
  if (kind == CK_NORMALIZE_NONE) {
    normalization->kind = kind;
    normalization->features = features;
    return CK_OK;
  }
  if (features > SIZE_MAX / 3 / sizeof *work)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: %zu features overflow memory",
            function, features);
  offset = malloc(features * sizeof *offset);
  scale = malloc(features * sizeof *scale);
  work = malloc(3 * features * sizeof *work);
  if (!offset || !scale || !work)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu features",
            function, features);
  /* ZSCORE: sum, sum of squared deviations, largest magnitude.
   * MINMAX: min, max. */
  double *first = work, *second = work + features,
         *magnitude = work + 2 * features;
  const float *values = dataset->values;
  for (size_t f = 0; f < features; ++f) {
    first[f] = kind == CK_NORMALIZE_ZSCORE ? 0.0 : values[f];
    second[f] = kind == CK_NORMALIZE_ZSCORE ? 0.0 : values[f];
    magnitude[f] = 0.0;
  }
  for (size_t r = 0; r < rows; ++r) {
    const float *row = values + r * features;
    for (size_t f = 0; f < features; ++f) {
      double x = row[f];
      if (kind == CK_NORMALIZE_ZSCORE) {
        first[f] += x;
        if (fabs(x) > magnitude[f])
          magnitude[f] = fabs(x);
      } else {
        if (x < first[f])
          first[f] = x;
        if (x > second[f])
          second[f] = x;
      }
    }
  }
  if (kind == CK_NORMALIZE_ZSCORE) {
    for (size_t f = 0; f < features; ++f)
      first[f] /= (double)rows;
    for (size_t r = 0; r < rows; ++r) {
      const float *row = values + r * features;
      for (size_t f = 0; f < features; ++f) {
        double deviation = row[f] - first[f];
        second[f] += deviation * deviation;
      }
    }
    for (size_t f = 0; f < features; ++f) {
      offset[f] = (float)first[f];
      scale[f] = scale_for(sqrt(second[f] / (double)rows), magnitude[f]);
    }
  } else {
    for (size_t f = 0; f < features; ++f) {
      double largest = fmax(fabs(first[f]), fabs(second[f]));
      offset[f] = (float)first[f];
      scale[f] = scale_for(second[f] - first[f], largest);
    }
  }
  free(work);
  normalization->kind = kind;
  normalization->features = features;
  normalization->offset = offset;
  normalization->scale = scale;
  return CK_OK;

fail:
  free(offset);
  free(scale);
  free(work);
  return status;
}

ck_status ck_dataset_normalize(const ck_normalization *normalization,
                               ck_dataset *dataset) {
  static const char function[] = "ck_dataset_normalize";
  if (!normalization)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: normalization is NULL",
                    function);
  if (normalization->kind == CK_NORMALIZE_NONE) {
    /* Nothing to apply, but a normalisation fitted to another width is
     * still the wrong one for this data set. */
    if (!dataset)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: dataset is NULL",
                      function);
    if (normalization->features != dataset->features)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: the normalisation has %zu features, the data set "
                      "%zu",
                      function, normalization->features, dataset->features);
    return CK_OK;
  }
  if (normalization->kind != CK_NORMALIZE_ZSCORE &&
      normalization->kind != CK_NORMALIZE_MINMAX)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: unknown normalisation kind %d", function,
                    (int)normalization->kind);
  if (!normalization->offset || !normalization->scale)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the normalisation's offset or scale is NULL",
                    function);
  ck_status status = check_dataset(dataset, function);
  if (status != CK_OK)
    return status;
  if (normalization->features != dataset->features)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the normalisation has %zu features, the data set %zu",
                    function, normalization->features, dataset->features);
  size_t features = dataset->features;
  for (size_t r = 0; r < dataset->rows; ++r) {
    float *row = dataset->values + r * features;
    for (size_t f = 0; f < features; ++f)
      row[f] = (float)(((double)row[f] - normalization->offset[f]) *
                       normalization->scale[f]);
  }
  return CK_OK;
}

ck_status ck_dataset_normalization_free(ck_normalization *normalization) {
  if (!normalization)
    return CK_OK;
  free(normalization->offset);
  free(normalization->scale);
  memset(normalization, 0, sizeof *normalization);
  return CK_OK;
}
