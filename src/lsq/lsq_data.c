/*
 * Data sets of the least-squares objective: the CSV and binary file
 * formats described in clkit/lsq.h, a seeded generator and the reference
 * value of the objective.
 *
 * Files are read with plain read() in large chunks. The CSV reader keeps
 * the unfinished tail of a chunk and reads on behind it, growing its
 * buffer for a long line up to CSV_MAX_LINE bytes; every line is cut at
 * its newline and split at commas in place, and each field goes through
 * strtod() under the C locale (the line and field helpers of util/csv.c,
 * shared with the data sets of nn). Rows are stored in arrays that double
 * as they fill and are trimmed to size at the end.
 *
 * Writers fill a temporary file ".<name>.tmp.<token>" in the target's
 * directory, flush it to disk and rename() it over the target, so a
 * reader never sees a partial file.
 */
#include "util/util.h"

#include "clkit/lsq.h"

#include "ck_philox.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define LSQ_HEADER_SIZE 24
#define LSQ_VERSION 1u
/* Bytes asked of read() at a time, and the most a single line may take. */
#define CSV_CHUNK ((size_t)1 << 20)
#define CSV_MAX_LINE ((size_t)16 << 20)
/* Rows the CSV reader makes room for first. */
#define CSV_FIRST_CAPACITY ((size_t)4096)
/* Room for one "%.17g" value: "-1.2345678901234567e-308" and a separator. */
#define NUMBER_ROOM 32

/*
 * Philox streams of the generator: one for the coefficients and one per
 * row (LSQ_STREAM_ROWS + j). Within a row, block i holds a_j,2i and
 * a_j,2i+1; the noise comes from a block of its own far past those, so
 * a row's noise does not depend on dim.
 */
#define LSQ_STREAM_COEFFICIENTS UINT64_C(0x6c73710000000000)
#define LSQ_STREAM_ROWS UINT64_C(0x6c73710100000000)
#define LSQ_NOISE_BLOCK UINT64_C(0xffffffff)

static const char lsq_magic[8] = {'C', 'K', 'L', 'S', 'Q', 'F', '6', '4'};
/* Files starting with this much of the magic are read as binary. */
#define LSQ_MAGIC_PREFIX 5

/* ---- little helpers ------------------------------------------------------ */

static void put_f64(uint8_t *out, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  ck__put_u64(out, bits);
}

static double get_f64(const uint8_t *in) {
  uint64_t bits = ck__get_u64(in);
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

/* One read(), retried on EINTR. */
static ssize_t read_some(int fd, void *buffer, size_t size) {
  for (;;) {
    ssize_t got = read(fd, buffer, size);
    if (got >= 0 || errno != EINTR)
      return got;
  }
}

/* Reads until size bytes or end of file; *got says how many. -1 on error. */
static int read_full(int fd, void *buffer, size_t size, size_t *got) {
  uint8_t *at = buffer;
  *got = 0;
  while (*got < size) {
    ssize_t n = read_some(fd, at + *got, size - *got);
    if (n < 0)
      return -1;
    if (n == 0)
      break;
    *got += (size_t)n;
  }
  return 0;
}

/* Checks a caller's data set; name is the function for the message. */
static ck_status check_data(const ck_lsq_data *data, const char *name) {
  if (!data)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: data is NULL", name);
  if (data->rows == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: the data set has no rows",
                    name);
  if (data->dim < 1 || data->dim > CK_LSQ_MAX_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: dim %zu is outside 1..%d",
                    name, data->dim, CK_LSQ_MAX_DIM);
  if (!data->a || !data->b)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the data set's arrays a and b are required", name);
  if (data->rows > SIZE_MAX / sizeof(double) / data->dim)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: %zu rows of dim %zu do not fit in memory", name,
                    data->rows, data->dim);
  return CK_OK;
}

/* Allocates a (rows * dim doubles) and b (rows doubles). */
static ck_status allocate_rows(size_t rows, size_t dim, double **a, double **b,
                               const char *what) {
  ck_status status = CK_OK;
  *a = NULL;
  *b = NULL;
  if (rows > SIZE_MAX / sizeof(double) / dim)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory for %s: %zu rows of dim %zu overflow the "
                    "address space",
                    what, rows, dim);
  /* Past the host's memory an allocation may still succeed, over-committed,
   * and the out-of-memory killer end the run as the rows are written. */
  double bytes = (double)rows * (double)(dim + 1) * sizeof(double);
  unsigned long long memory = ck__host_memory();
  if (ck__memory_exceeded(bytes, memory))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory for %s: %zu rows of dim %zu need about "
                    "%.3g GB; the host has %.3g GB",
                    what, rows, dim, bytes * 1e-9, (double)memory * 1e-9);
  *a = malloc(rows * dim * sizeof(double));
  if (!*a)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory for %s: %zu bytes for a (%zu rows of dim %zu)", what,
            rows * dim * sizeof(double), rows, dim);
  *b = malloc(rows * sizeof(double));
  if (!*b)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory for %s: %zu bytes for b (%zu rows)", what,
            rows * sizeof(double), rows);
  return CK_OK;
fail:
  /* The caller sees both NULL, as before anything was allocated. */
  free(*a);
  free(*b);
  *a = NULL;
  *b = NULL;
  return status;
}

/* The model's prediction for one row; generator and evaluation share it. */
static double row_dot(const double *x, const double *row, size_t dim) {
  double sum = 0.0;
  for (size_t d = 0; d < dim; ++d)
    sum += x[d] * row[d];
  return sum;
}

/* ---- binary reader ------------------------------------------------------- */

/* Copies up to 8 bytes of a bad magic with unprintable bytes as '?'. */
static void printable_magic(const uint8_t *in, char out[9]) {
  for (int i = 0; i < 8; ++i)
    out[i] =
        (in[i] >= 0x20 && in[i] < 0x7f && in[i] != '"') ? (char)in[i] : '?';
  out[8] = '\0';
}

/* The shape a binary file's header declares. */
typedef struct binary_shape {
  uint32_t dim;
  uint64_t rows;
  uint64_t row_bytes; /* (dim + 1) doubles */
  uint64_t expected;  /* the file's size: the header and the rows */
} binary_shape;

/* Reads the header in head into *shape and checks it, and a regular
 * file's size, before anything is allocated. */
static ck_status read_binary_header(const char *path, const struct stat *info,
                                    const uint8_t *head, size_t head_size,
                                    binary_shape *shape) {
  char magic[9];
  if (head_size < LSQ_HEADER_SIZE)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: truncated header: expected %d bytes, found %zu", path,
                    LSQ_HEADER_SIZE, head_size);
  if (memcmp(head, lsq_magic, sizeof lsq_magic) != 0) {
    printable_magic(head, magic);
    return ck__fail(CK_ERROR_PARSE,
                    "%s: bad magic \"%s\" (expected \"CKLSQF64\")", path,
                    magic);
  }
  uint32_t version = ck__get_u32(head + 8);
  uint32_t dim = ck__get_u32(head + 12);
  uint64_t rows = ck__get_u64(head + 16);
  if (version != LSQ_VERSION)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: unsupported format version %u (expected %u)", path,
                    (unsigned)version, LSQ_VERSION);
  if (dim < 1 || dim > CK_LSQ_MAX_DIM)
    return ck__fail(CK_ERROR_PARSE, "%s: dim %u is outside 1..%d", path,
                    (unsigned)dim, CK_LSQ_MAX_DIM);
  if (rows == 0)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: rows is 0; a data set needs at least 1 row", path);

  uint64_t row_bytes = ((uint64_t)dim + 1) * 8;
  if (rows > (UINT64_MAX - LSQ_HEADER_SIZE) / row_bytes)
    return ck__fail(CK_ERROR_PARSE,
                    "%s: rows %llu is too large: the payload size overflows",
                    path, (unsigned long long)rows);
  uint64_t expected = LSQ_HEADER_SIZE + rows * row_bytes;
  /* A regular file can be checked before anything is allocated. */
  if (S_ISREG(info->st_mode) && (uint64_t)info->st_size != expected)
    return ck__fail(
        CK_ERROR_PARSE,
        "%s: %s: expected %llu bytes (%llu rows of dim %u), found %llu", path,
        (uint64_t)info->st_size < expected ? "truncated" : "trailing bytes",
        (unsigned long long)expected, (unsigned long long)rows, (unsigned)dim,
        (unsigned long long)info->st_size);
  if (rows > SIZE_MAX)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: %llu rows do not fit in memory", path,
                    (unsigned long long)rows);
  *shape = (binary_shape){dim, rows, row_bytes, expected};
  return CK_OK;
}

/* Stores count rows read into chunk as rows first.. of a and b; every
 * value must be finite. */
static ck_status decode_rows(const char *path, const uint8_t *chunk,
                             size_t first, size_t count, uint32_t dim,
                             double *a, double *b) {
  const uint8_t *at = chunk;
  for (size_t r = 0; r < count; ++r) {
    size_t row = first + r;
    for (uint32_t k = 0; k <= dim; ++k, at += 8) {
      double value = get_f64(at);
      if (!isfinite(value)) {
        char name[16] = "b";
        if (k < dim)
          snprintf(name, sizeof name, "a_%u", (unsigned)k + 1);
        return ck__fail(CK_ERROR_PARSE, "%s: row %zu: %s is not finite (%s)",
                        path, row + 1, name, isnan(value) ? "NaN" : "infinity");
      }
      if (k < dim)
        a[row * dim + k] = value;
      else
        b[row] = value;
    }
  }
  return CK_OK;
}

/* Reads the rows of shape from fd into a and b, a chunk at a time. */
static ck_status read_binary_rows(const char *path, int fd,
                                  const binary_shape *shape, double *a,
                                  double *b) {
  ck_status status = CK_OK;
  size_t rows = (size_t)shape->rows, row_bytes = (size_t)shape->row_bytes;
  size_t chunk_rows = CSV_CHUNK / row_bytes;
  if (chunk_rows == 0)
    chunk_rows = 1;
  if (chunk_rows > rows)
    chunk_rows = rows;
  uint8_t *chunk = malloc(chunk_rows * row_bytes);
  if (!chunk)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory: %zu bytes for a buffer",
            path, chunk_rows * row_bytes);

  for (size_t done = 0; done < rows;) {
    size_t count = rows - done < chunk_rows ? rows - done : chunk_rows;
    size_t want = count * row_bytes, got = 0;
    if (read_full(fd, chunk, want, &got) != 0)
      CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
    if (got < want)
      CK_FAIL(CK_ERROR_PARSE, "%s: truncated: expected %llu bytes, found %llu",
              path, (unsigned long long)shape->expected,
              (unsigned long long)(LSQ_HEADER_SIZE + done * shape->row_bytes +
                                   got));
    CK_TRY(decode_rows(path, chunk, done, count, shape->dim, a, b));
    done += count;
  }
fail:
  free(chunk);
  return status;
}

static ck_status load_binary(const char *path, int fd, const struct stat *info,
                             const uint8_t *head, size_t head_size,
                             ck_lsq_data *data) {
  ck_status status = CK_OK;
  double *a = NULL, *b = NULL;
  binary_shape shape = {0};

  CK_TRY(read_binary_header(path, info, head, head_size, &shape));
  CK_TRY(allocate_rows((size_t)shape.rows, shape.dim, &a, &b, path));
  CK_TRY(read_binary_rows(path, fd, &shape, a, b));
  /* A file that is not regular (or grew meanwhile) may still run on. */
  uint8_t extra;
  ssize_t more = read_some(fd, &extra, 1);
  if (more < 0)
    CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
  if (more > 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: trailing bytes: expected %llu bytes, found more", path,
            (unsigned long long)shape.expected);

  data->rows = (size_t)shape.rows;
  data->dim = shape.dim;
  data->a = a;
  data->b = b;
  return CK_OK;

fail:
  free(a);
  free(b);
  return status;
}

/* ---- CSV reader ---------------------------------------------------------- */

typedef struct csv_reader {
  const char *path;
  size_t line; /* 1-based number of the line being read */
  size_t dim;  /* 0 until the first data row */
  int content; /* 1 once a line other than a blank or a comment is read */
  size_t rows, capacity;
  double *a, *b;
} csv_reader;

/* Doubles; messages say "data.csv: line 3, field 2: \"x\" is ...". */
static const ck__csv_dialect lsq_dialect = {
    DBL_MAX, "a double", '"', ": line ", " contains a NUL byte", ", "};

/* 1 when some field of the line reads as a number (finite or not). */
static int line_has_number(const char *begin, const char *end) {
  for (const char *field = begin;; ++field) {
    const char *stop = ck__csv_field_end(field, end);
    double value;
    ck__csv_field_kind kind =
        ck__csv_read_number(&lsq_dialect, field, stop, &value);
    if (kind != CK__CSV_EMPTY && kind != CK__CSV_NOT_A_NUMBER)
      return 1;
    if (stop == end)
      return 0;
    field = stop;
  }
}

/* Makes room for one more row. */
static ck_status csv_reserve(csv_reader *csv) {
  if (csv->rows < csv->capacity)
    return CK_OK;
  size_t capacity = csv->capacity ? csv->capacity : CSV_FIRST_CAPACITY / 2;
  if (capacity > SIZE_MAX / 2 / sizeof(double) / csv->dim)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %zu rows of dim %zu overflow "
                    "the address space",
                    csv->path, csv->rows, csv->dim);
  capacity *= 2;
  double *a = realloc(csv->a, capacity * csv->dim * sizeof(double));
  if (!a)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %zu bytes for %zu rows of dim "
                    "%zu",
                    csv->path, capacity * csv->dim * sizeof(double), capacity,
                    csv->dim);
  csv->a = a;
  double *b = realloc(csv->b, capacity * sizeof(double));
  if (!b)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %zu bytes for %zu rows",
                    csv->path, capacity * sizeof(double), capacity);
  csv->b = b;
  csv->capacity = capacity;
  return CK_OK;
}

/* Handles one line [begin, end); *end is a NUL the reader put there. */
static ck_status csv_line(csv_reader *csv, char *begin, char *end) {
  ck__csv_line line;
  ck_status status = ck__csv_line_prepare(&lsq_dialect, csv->path, csv->line,
                                          begin, end, &line);
  if (status != CK_OK || line.fields == 0)
    return status;
  begin = line.begin;
  end = line.end;
  size_t fields = line.fields;
  int first = !csv->content;
  csv->content = 1;
  if (csv->dim == 0) {
    if (first && !line_has_number(begin, end))
      return CK_OK; /* the header, which comments may precede */
    if (fields < 2)
      return ck__fail(CK_ERROR_PARSE,
                      "%s: line %zu: 1 field; need at least 2, separated by "
                      "commas (dim >= 1 values a, then b)",
                      csv->path, csv->line);
    if (fields > CK_LSQ_MAX_DIM + 1)
      return ck__fail(CK_ERROR_PARSE,
                      "%s: line %zu: %zu fields; at most %d allowed (dim <= "
                      "%d)",
                      csv->path, csv->line, fields, CK_LSQ_MAX_DIM + 1,
                      CK_LSQ_MAX_DIM);
    csv->dim = fields - 1;
  } else if (fields != csv->dim + 1) {
    return ck__fail(CK_ERROR_PARSE, "%s: line %zu: %zu field%s, expected %zu",
                    csv->path, csv->line, fields, fields == 1 ? "" : "s",
                    csv->dim + 1);
  }

  status = csv_reserve(csv);
  if (status != CK_OK)
    return status;
  double *row = csv->a + csv->rows * csv->dim;
  const char *field = begin;
  for (size_t k = 0; k <= csv->dim; ++k) {
    const char *stop = ck__csv_field_end(field, end);
    double value = 0.0;
    ck__csv_field_kind kind =
        ck__csv_read_number(&lsq_dialect, field, stop, &value);
    if (kind != CK__CSV_NUMBER) {
      if (!line_has_number(begin, end))
        return ck__fail(CK_ERROR_PARSE,
                        "%s: line %zu: no field is a number; a header is "
                        "allowed only as the first line",
                        csv->path, csv->line);
      return ck__csv_field_error(&lsq_dialect, csv->path, csv->line, field,
                                 stop, k + 1, kind);
    }
    if (k < csv->dim)
      row[k] = value;
    else
      csv->b[csv->rows] = value;
    field = stop + 1;
  }
  csv->rows += 1;
  return CK_OK;
}

/* Handles the complete lines from *line up to limit, cutting each at its
 * newline; *line is then the unfinished tail. */
static ck_status csv_lines(csv_reader *csv, char **line, char *limit) {
  ck_status status = CK_OK;
  char *newline;
  while ((newline = memchr(*line, '\n', (size_t)(limit - *line))) != NULL) {
    *newline = '\0';
    CK_TRY(csv_line(csv, *line, newline));
    csv->line += 1;
    *line = newline + 1;
  }
fail:
  return status;
}

/* Doubles the buffer, which holds one unfinished line of capacity bytes,
 * up to CSV_MAX_LINE; line is its number for the messages. */
static ck_status grow_line_buffer(const char *path, size_t line, char **buffer,
                                  size_t *capacity) {
  if (*capacity >= CSV_MAX_LINE)
    return ck__fail(CK_ERROR_PARSE, "%s: line %zu is longer than %zu bytes",
                    path, line, CSV_MAX_LINE);
  char *grown = realloc(*buffer, 2 * *capacity + 1);
  if (!grown)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %zu bytes for line %zu", path,
                    2 * *capacity + 1, line);
  *buffer = grown;
  *capacity *= 2;
  return CK_OK;
}

/* Hands the rows read to data, giving back what the doubling reserved
 * (or keeping the larger blocks where that fails). */
static void csv_hand_over(csv_reader *csv, ck_lsq_data *data) {
  double *a = realloc(csv->a, csv->rows * csv->dim * sizeof(double));
  if (a)
    csv->a = a;
  double *b = realloc(csv->b, csv->rows * sizeof(double));
  if (b)
    csv->b = b;
  data->rows = csv->rows;
  data->dim = csv->dim;
  data->a = csv->a;
  data->b = csv->b;
}

static ck_status load_csv(const char *path, int fd, const uint8_t *head,
                          size_t head_size, ck_lsq_data *data) {
  ck_status status = CK_OK;
  csv_reader csv = {path, 1, 0, 0, 0, 0, NULL, NULL};
  ck__c_locale locale = {0};
  size_t capacity = CSV_CHUNK;
  size_t used = head_size;
  unsigned long long total = head_size;
  int at_end = 0;
  /* One byte more than capacity, for the NUL after a last unended line. */
  char *buffer = malloc(capacity + 1);
  if (!buffer)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory reading %s: %zu bytes for a buffer", path,
            capacity + 1);
  memcpy(buffer, head, head_size);
  CK_TRY(ck__c_locale_enter(&locale, path));

  for (;;) {
    char *line = buffer;
    char *limit = buffer + used;
    CK_TRY(csv_lines(&csv, &line, limit));
    size_t rest = (size_t)(limit - line);
    if (at_end) {
      if (rest > 0) {
        *limit = '\0';
        CK_TRY(csv_line(&csv, line, limit));
      }
      break;
    }
    memmove(buffer, line, rest);
    used = rest;
    /* The whole buffer is one unfinished line. */
    if (used == capacity)
      CK_TRY(grow_line_buffer(path, csv.line, &buffer, &capacity));
    ssize_t got = read_some(fd, buffer + used, capacity - used);
    if (got < 0)
      CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
    if (got == 0)
      at_end = 1;
    used += (size_t)got;
    total += (unsigned long long)got;
    /* A stream that runs on (yes 1,2 | ...) ends here, not at the end of
     * memory; the binary layout has no such limit. */
    if (total > CK__DATA_FILE_MAX_BYTES)
      CK_FAIL(CK_ERROR_UNSUPPORTED,
              "%s: more than %zu bytes; clkit reads CSV files of at most that "
              "size (the binary layout has no such limit)",
              path, CK__DATA_FILE_MAX_BYTES);
  }

  if (total == 0)
    CK_FAIL(CK_ERROR_PARSE, "%s is empty", path);
  if (csv.rows == 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: no data rows (only a header, comments or blank lines)", path);
  ck__c_locale_leave(&locale);
  free(buffer);
  csv_hand_over(&csv, data);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free(buffer);
  free(csv.a);
  free(csv.b);
  return status;
}

ck_status ck_lsq_load(const char *path, ck_lsq_data *data) {
  ck_status status = CK_OK;
  uint8_t head[LSQ_HEADER_SIZE];
  size_t head_size = 0;
  struct stat info;
  int fd = -1;

  if (!data)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_lsq_load: data is NULL");
  memset(data, 0, sizeof *data);
  if (!path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_lsq_load: path is NULL");

  fd = ck__file_open_input(path);
  if (fd < 0)
    CK_FAIL(CK_ERROR_IO, "cannot open %s: %s", path, strerror(errno));
  if (fstat(fd, &info) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot stat %s: %s", path, strerror(errno));
  if (read_full(fd, head, sizeof head, &head_size) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot read %s: %s", path, strerror(errno));
  if (head_size >= LSQ_MAGIC_PREFIX &&
      memcmp(head, lsq_magic, LSQ_MAGIC_PREFIX) == 0)
    CK_TRY(load_binary(path, fd, &info, head, head_size, data));
  else
    CK_TRY(load_csv(path, fd, head, head_size, data));
  close(fd);
  return CK_OK;

fail:
  if (fd >= 0)
    close(fd);
  memset(data, 0, sizeof *data);
  return status;
}

/* ---- writers ------------------------------------------------------------- */

/* Appends the text of the data set to fd through buffer. */
static int write_csv(int fd, const ck_lsq_data *data, char *buffer,
                     size_t capacity) {
  size_t used = 0;
  size_t row_room = (data->dim + 1) * NUMBER_ROOM;
  for (size_t d = 0; d < data->dim; ++d)
    used += (size_t)snprintf(buffer + used, capacity - used, "a%zu,", d + 1);
  buffer[used++] = 'b';
  buffer[used++] = '\n';
  for (size_t j = 0; j < data->rows; ++j) {
    if (capacity - used < row_room) {
      if (ck__write_all(fd, buffer, used) != 0)
        return -1;
      used = 0;
    }
    const double *row = data->a + j * data->dim;
    for (size_t d = 0; d < data->dim; ++d) {
      used += (size_t)snprintf(buffer + used, NUMBER_ROOM, "%.17g", row[d]);
      buffer[used++] = ',';
    }
    used += (size_t)snprintf(buffer + used, NUMBER_ROOM, "%.17g", data->b[j]);
    buffer[used++] = '\n';
  }
  return ck__write_all(fd, buffer, used);
}

static int write_binary(int fd, const ck_lsq_data *data, uint8_t *buffer,
                        size_t capacity) {
  size_t used = LSQ_HEADER_SIZE;
  size_t row_bytes = (data->dim + 1) * 8;
  memcpy(buffer, lsq_magic, sizeof lsq_magic);
  ck__put_u32(buffer + 8, LSQ_VERSION);
  ck__put_u32(buffer + 12, (uint32_t)data->dim);
  ck__put_u64(buffer + 16, (uint64_t)data->rows);
  for (size_t j = 0; j < data->rows; ++j) {
    if (capacity - used < row_bytes) {
      if (ck__write_all(fd, buffer, used) != 0)
        return -1;
      used = 0;
    }
    const double *row = data->a + j * data->dim;
    for (size_t d = 0; d < data->dim; ++d, used += 8)
      put_f64(buffer + used, row[d]);
    put_f64(buffer + used, data->b[j]);
    used += 8;
  }
  return ck__write_all(fd, buffer, used);
}

ck_status ck_lsq_save(const char *path, const ck_lsq_data *data,
                      ck_lsq_format format) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  char *temp = NULL;
  void *buffer = NULL;
  int fd = -1;
  int written;

  if (!path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_lsq_save: path is NULL");
  CK_TRY(check_data(data, "ck_lsq_save"));
  if (format != CK_LSQ_CSV && format != CK_LSQ_BINARY)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_lsq_save: unknown format %d",
                    (int)format);
  /* Refuse what could not be read back. */
  for (size_t j = 0; j < data->rows; ++j) {
    for (size_t d = 0; d < data->dim; ++d)
      if (!isfinite(data->a[j * data->dim + d]))
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "ck_lsq_save: row %zu: a_%zu is not finite", j + 1,
                        d + 1);
    if (!isfinite(data->b[j]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_lsq_save: row %zu: b is not finite", j + 1);
  }

  if (format == CK_LSQ_BINARY)
    CK_TRY(ck__file_check_binary(path));
  /* Room for the header line (or block) plus at least one row. */
  size_t capacity = CSV_CHUNK + (CK_LSQ_MAX_DIM + 1) * NUMBER_ROOM;
  buffer = malloc(capacity);
  if (!buffer)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: %zu bytes for a buffer", path, capacity);
  CK_TRY(ck__file_open_temporary(path, &temp, &fd));
  if (format == CK_LSQ_CSV) {
    CK_TRY(ck__c_locale_enter(&locale, path));
    written = write_csv(fd, data, buffer, capacity);
    ck__c_locale_leave(&locale);
  } else {
    written = write_binary(fd, data, buffer, capacity);
  }
  if (written != 0)
    CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  status = ck__file_commit(fd, temp, path);
  fd = -1;
  temp = NULL;
  free(buffer);
  return status;

fail:
  ck__c_locale_leave(&locale);
  ck__file_abandon(fd, temp, path);
  free(buffer);
  return status;
}

ck_status ck_lsq_save_coefficients(const char *path, const double *x,
                                   size_t dim) {
  char text[CK_LSQ_MAX_DIM * 32];
  size_t used = 0;
  ck__c_locale locale = {0};
  CK__REQUIRE(path);
  CK__REQUIRE(x);
  if (dim < 1 || dim > CK_LSQ_MAX_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_lsq_save_coefficients: dim is %zu, outside 1..%d", dim,
                    CK_LSQ_MAX_DIM);
  /* As ck_lsq_save: what would not read back is not written. */
  for (size_t d = 0; d < dim; ++d)
    if (!isfinite(x[d]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_lsq_save_coefficients: coefficient %zu is %g; "
                      "coefficients must be finite",
                      d + 1, x[d]);
  ck_status status = ck__c_locale_enter(&locale, path);
  if (status)
    return status;
  for (size_t d = 0; d < dim; ++d)
    used += (size_t)snprintf(text + used, sizeof text - used, "%.17g\n", x[d]);
  ck__c_locale_leave(&locale);
  return ck__file_write_atomic(path, text, used);
}

ck_status ck_lsq_save_generated(const char *data_path, const ck_lsq_data *data,
                                ck_lsq_format format,
                                const char *coefficients_path,
                                const double *x) {
  CK__REQUIRE(data_path);
  CK__REQUIRE(data);
  CK__REQUIRE(coefficients_path);
  CK__REQUIRE(x);
  /* The hold keeps the data's rename back until the coefficients are
   * written too. */
  int held = ck__file_hold_begin();
  ck_status status = ck_lsq_save(data_path, data, format);
  if (status == CK_OK)
    status = ck_lsq_save_coefficients(coefficients_path, x, data->dim);
  ck_status committed = ck__file_hold_end(held, status == CK_OK);
  return status != CK_OK ? status : committed;
}

/* ---- generator and objective --------------------------------------------- */

ck_status ck_lsq_generate(size_t rows, size_t dim, uint64_t seed, double noise,
                          ck_lsq_data *data, double *coefficients) {
  ck_status status = CK_OK;
  double *a = NULL, *b = NULL;
  double x[CK_LSQ_MAX_DIM];

  if (!data)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_lsq_generate: data is NULL");
  memset(data, 0, sizeof *data);
  if (rows < 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_lsq_generate: rows must be at least 1");
  if (dim < 1 || dim > CK_LSQ_MAX_DIM)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_lsq_generate: dim %zu is outside 1..%d", dim,
                    CK_LSQ_MAX_DIM);
  if (!isfinite(noise) || noise < 0.0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_lsq_generate: noise %g must be finite and >= 0", noise);
  CK_TRY(allocate_rows(rows, dim, &a, &b, "ck_lsq_generate"));

  for (size_t d = 0; d < dim; d += 2) {
    ck_philox_counter block =
        ck_philox_block(seed, LSQ_STREAM_COEFFICIENTS, d / 2);
    x[d] = 4.0 * ck_uniform_double(block.v[0], block.v[1]) - 2.0;
    if (d + 1 < dim)
      x[d + 1] = 4.0 * ck_uniform_double(block.v[2], block.v[3]) - 2.0;
  }
  for (size_t j = 0; j < rows; ++j) {
    uint64_t stream = LSQ_STREAM_ROWS + (uint64_t)j;
    double *row = a + j * dim;
    for (size_t d = 0; d < dim; d += 2) {
      ck_philox_counter block = ck_philox_block(seed, stream, d / 2);
      row[d] = 2.0 * ck_uniform_double(block.v[0], block.v[1]) - 1.0;
      if (d + 1 < dim)
        row[d + 1] = 2.0 * ck_uniform_double(block.v[2], block.v[3]) - 1.0;
    }
    double value = row_dot(x, row, dim);
    if (noise > 0.0) {
      ck_philox_counter block = ck_philox_block(seed, stream, LSQ_NOISE_BLOCK);
      float z0, z1;
      ck_normal_float2(block.v[0], block.v[1], &z0, &z1);
      value += noise * (double)z0;
    }
    b[j] = value;
  }

  if (coefficients)
    memcpy(coefficients, x, dim * sizeof(double));
  data->rows = rows;
  data->dim = dim;
  data->a = a;
  data->b = b;
  return CK_OK;

fail:
  free(a);
  free(b);
  return status;
}

ck_status ck_lsq_evaluate(const ck_lsq_data *data, const double *x,
                          double *value) {
  ck_status status = check_data(data, "ck_lsq_evaluate");
  if (status != CK_OK)
    return status;
  CK__REQUIRE(x);
  CK__REQUIRE(value);
  /* Neumaier's variant of Kahan summation: the lost low part is kept. */
  double sum = 0.0, lost = 0.0;
  for (size_t j = 0; j < data->rows; ++j) {
    double residual =
        data->b[j] - row_dot(x, data->a + j * data->dim, data->dim);
    double term = residual * residual;
    double next = sum + term;
    if (fabs(sum) >= fabs(term))
      lost += (sum - next) + term;
    else
      lost += (term - next) + sum;
    sum = next;
  }
  *value = sum + lost;
  return CK_OK;
}

ck_status ck_lsq_free(ck_lsq_data *data) {
  if (!data)
    return CK_OK;
  free(data->a);
  free(data->b);
  memset(data, 0, sizeof *data);
  return CK_OK;
}
