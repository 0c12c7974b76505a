/*
 * Data sets for classification (clkit/dataset.h): reading a data file,
 * the loader that picks its format, class names and release. The formats'
 * readers are dataset_idx.c and dataset_csv.c; splits are dataset_split.c,
 * normalisation dataset_normalize.c.
 *
 * A file is read whole into memory, through zlib's inflate() when it
 * starts with the gzip magic 1f 8b, and parsed there. A file whose first
 * byte (after decompression) is zero is IDX: the magic begins 00 00 and
 * text never starts with a NUL. Anything else is CSV.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "nn/nn_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CK_HAVE_ZLIB
#include <zlib.h>
#endif

/* The most bytes a data file may hold (after decompression). */
#define FILE_MAX_BYTES CK__DATA_FILE_MAX_BYTES
/* The most bytes handed to zlib at once (its counts are 32-bit). */
#define ZLIB_CHUNK ((size_t)1 << 30)

/* ---- small helpers ------------------------------------------------------ */

/* A malloc'd copy of a string, or NULL. */
static char *copy_string(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy)
    memcpy(copy, text, length + 1);
  return copy;
}

void ck__dataset_free_class_names(char **names, size_t count) {
  if (!names)
    return;
  for (size_t k = 0; k < count; ++k)
    free(names[k]);
  free(names);
}

/* Copies count names into a fresh array *out; what is for the message. */
ck_status ck__dataset_copy_class_names(char *const *names, size_t count,
                                       char ***out, const char *what) {
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
  ck__dataset_free_class_names(copy, count); /* NULL past the failed copy */
  return status;
}

/* The checks every function taking a filled data set makes. */
ck_status ck__dataset_check(const ck_dataset *dataset, const char *function) {
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

/* The first size of the output buffer for in[0 .. in_size). The
 * trailer's size (modulo 2^32) gives it when plausible: deflate cannot
 * expand by more than about 1032 times. */
static size_t first_capacity(const uint8_t *in, size_t in_size) {
  uint32_t stated = 0;
  if (in_size >= 18)
    for (int i = 0; i < 4; ++i)
      stated |= (uint32_t)in[in_size - 4 + (size_t)i] << (8 * i);
  if (stated > 0 && stated <= FILE_MAX_BYTES && stated / 1032 <= in_size)
    return (size_t)stated + 1;
  return in_size < FILE_MAX_BYTES / 4 ? 4 * in_size + 4096 : FILE_MAX_BYTES + 1;
}

/* Grows the full output buffer *data of *capacity bytes (and a NUL), or
 * fails where it already holds more than a data file may. */
static ck_status grow_buffer(const char *path, uint8_t **data,
                             size_t *capacity) {
  if (*capacity > FILE_MAX_BYTES)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "%s: more than %zu bytes after decompression; clkit reads "
                    "data files of at most that size",
                    path, FILE_MAX_BYTES);
  size_t larger = grown_capacity(*capacity);
  uint8_t *grown = realloc(*data, larger + 1);
  if (!grown)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: out of memory: %zu bytes for the decompressed data",
                    path, larger + 1);
  *data = grown;
  *capacity = larger;
  return CK_OK;
}

/* Inflates the gzip data in[0 .. in_size) (one member or several) into a
 * malloc'd buffer with a NUL after its end. */
static ck_status gunzip(const char *path, const uint8_t *in, size_t in_size,
                        uint8_t **out, size_t *out_size) {
  ck_status status = CK_OK;
  z_stream stream;
  int started = 0;
  uint8_t *data = NULL;
  size_t used = 0, given = 0, capacity = first_capacity(in, in_size);
  memset(&stream, 0, sizeof stream);

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
    if (used == capacity)
      CK_TRY(grow_buffer(path, &data, &capacity));
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
ck_status ck__dataset_read_file(const char *path, uint8_t **bytes,
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
  CK_TRY(ck__dataset_read_file(path, &bytes, &size));
  *format = size > 0 && bytes[0] == 0 ? CK__DATASET_IDX : CK__DATASET_CSV;
  /* Before parsing: read in the other format's terms, the file would fail
   * on something beside the point (a label beyond the classes, a count of
   * features) or, worse, load as data it is not. */
  if (required != CK__DATASET_UNKNOWN && *format != required)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s is %s, not %s", path,
            format_name(*format), format_name(required));
  if (*format == CK__DATASET_IDX) {
    CK_TRY(ck__dataset_load_idx(path, bytes, size, options, dataset));
  } else {
    /* A CSV row carries its label: a labels file would be dropped. */
    if (options->labels_path && options->labelled != 0)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s is CSV, whose rows carry their labels; a labels file (%s) "
              "goes with IDX features",
              path, options->labels_path);
    CK_TRY(ck__dataset_load_csv(path, (char *)bytes, size, options, request,
                                dataset));
  }
  free(bytes);
  return CK_OK;

fail:
  free(bytes);
  memset(dataset, 0, sizeof *dataset);
  request->warning[0] = '\0';
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
  ck__dataset_free_class_names(dataset->class_names, dataset->classes);
  memset(dataset, 0, sizeof *dataset);
  return CK_OK;
}
