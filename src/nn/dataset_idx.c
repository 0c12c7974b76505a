/*
 * The IDX reader of data sets (dataset.c loads through it).
 *
 * The header is checked against the file's size before anything is
 * allocated; elements are converted to float one type at a time. The
 * labels come from a second IDX file of one integer dimension; with
 * labelled = -1, a derived labels file that does not exist (or a name
 * that derives none) makes the data unlabelled.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "nn/nn_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Reads the header of the labels file of an IDX features file of rows
 * records, and checks that it is one of theirs. */
static ck_status idx_check_labels(const char *path, size_t rows,
                                  const char *labels_path,
                                  const uint8_t *label_bytes, size_t label_size,
                                  const ck_dataset *from, idx_header *labels) {
  ck_status status =
      idx_read_header(labels_path, label_bytes, label_size, labels);
  if (status != CK_OK)
    return status;
  if (labels->dimensions != 1)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: a labels file has 1 dimension, but this one has %u",
                    labels_path, labels->dimensions);
  if (labels->type == 0x0D || labels->type == 0x0E)
    return ck__fail(
        CK_ERROR_PARSE,
        "%s: labels of element type 0x%02X (%s); labels need an integer "
        "type",
        labels_path, labels->type, idx_type_name(labels->type));
  if (labels->rows != rows)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: %zu labels, but the features file %s has %zu "
                    "rows",
                    labels_path, labels->rows, path, rows);
  if (from && from->class_names)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: the labels are integers, but the classes to use (of "
                    "the training data or model) are names",
                    labels_path);
  return CK_OK;
}

/* The classes of an IDX labels file's records, checked against the
 * options; *largest is the largest. */
static ck_status idx_classes(const char *labels_path, const idx_header *labels,
                             const ck_dataset_options *options,
                             int32_t *classes, int64_t *largest) {
  const ck_dataset *from = options->classes_from;
  for (size_t r = 0; r < labels->rows; ++r) {
    const uint8_t *in = labels->payload + r * labels->element_size;
    int64_t label;
    switch (labels->type) {
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
      return ck__fail(CK_ERROR_PARSE, "%s: record %zu: label %lld is negative",
                      labels_path, r + 1, (long long)label);
    if (label >= CK_DATASET_MAX_CLASSES)
      return ck__fail(
          CK_ERROR_PARSE,
          "%s: record %zu: label %lld is above %d, the largest class",
          labels_path, r + 1, (long long)label, CK_DATASET_MAX_CLASSES - 1);
    if (options->class_limit && (uint64_t)label >= options->class_limit)
      return ck__fail(
          CK_ERROR_PARSE,
          "%s: record %zu: label %lld is not below the class limit %zu",
          labels_path, r + 1, (long long)label, options->class_limit);
    if (from && (uint64_t)label >= from->classes)
      return ck__fail(
          CK_ERROR_PARSE,
          "%s: record %zu: label %lld is not one of the %zu classes "
          "(0 .. %zu) of the training data or model",
          labels_path, r + 1, (long long)label, from->classes,
          from->classes - 1);
    classes[r] = (int32_t)label;
    if (label > *largest)
      *largest = label;
  }
  return CK_OK;
}

ck_status ck__dataset_load_idx(const char *path, const uint8_t *bytes,
                               size_t size, const ck_dataset_options *options,
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
    status = ck__dataset_read_file(labels_path, &label_bytes, &label_size);
    if (status != CK_OK) {
      if (derived)
        ck__fail_append(" (the labels file of %s, named after it; give the "
                        "labels file to use another)",
                        path);
      else
        ck__fail_append(" (the labels file of %s)", path);
      goto fail;
    }
    CK_TRY(idx_check_labels(path, features.rows, labels_path, label_bytes,
                            label_size, from, &labels));
  }

  values = malloc(features.rows * features.row_elements * sizeof *values);
  classes = calloc(features.rows, sizeof *classes);
  if (!values || !classes)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for %zu rows of %zu features", path,
            features.rows, features.row_elements);
  CK_TRY(idx_features(path, &features, values));

  int64_t largest = 0;
  CK_TRY(idx_classes(labels_path, &labels, options, classes, &largest));

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
