/*
 * test_lsq_data - data sets of the least-squares objective: the CSV
 * parser against a table of malformed inputs and a set of good ones, the
 * binary reader against broken headers and payloads, exact save/load
 * round trips in both formats, atomic saving, the generator's determinism
 * and known solution, and the reference objective.
 *
 * Every file lives in a fresh directory made with mkdtemp and removed at
 * the end.
 */
#include "clkit/lsq.h"

#include "check.h"
#include "test_support.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work_dir[512];

static long file_size(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

/* Entries of the work directory whose names start with '.', bar . and .. */
static int hidden_entries(const char *directory) {
  int count = 0;
  DIR *dir = opendir(directory);
  if (!dir)
    return -1;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL)
    if (entry->d_name[0] == '.' && strcmp(entry->d_name, ".") != 0 &&
        strcmp(entry->d_name, "..") != 0)
      ++count;
  closedir(dir);
  return count;
}

/* A load that must fail with status and a message holding needle. */
static void expect_load_failure(const char *label, const char *path,
                                ck_status expected, const char *needle) {
  ck_lsq_data data = {7, 7, (double *)&data, (double *)&data};
  const char *message = "";
  ck_error_clear();
  ck_status status = ck_lsq_load(path, &data);
  ck_error_get_last(&message);
  CHECK_MSG(status == expected, "%s: status %d, expected %d (%s)", label,
            (int)status, (int)expected, message);
  CHECK_MSG(strstr(message, needle) != NULL, "%s: \"%s\" lacks \"%s\"", label,
            message, needle);
  CHECK_MSG(strstr(message, path) != NULL, "%s: \"%s\" does not name the file",
            label, message);
  CHECK_MSG(data.rows == 0 && data.dim == 0 && !data.a && !data.b,
            "%s: data not zeroed after a failure", label);
  ck_lsq_free(&data);
}

/* ---- CSV: malformed input ------------------------------------------------ */

typedef struct csv_case {
  const char *label;
  const char *text;
  size_t size; /* 0: strlen(text) */
  ck_status status;
  const char *needle;
} csv_case;

static char *repeat_fields(size_t count) {
  char *text = malloc(2 * count + 2);
  if (!text)
    return NULL;
  for (size_t i = 0; i < count; ++i) {
    text[2 * i] = '1';
    text[2 * i + 1] = i + 1 < count ? ',' : '\n';
  }
  text[2 * count] = '\0';
  return text;
}

/* Blanks, then a short row: a line of about `blanks` bytes. */
static char *padded_line(size_t blanks, const char *tail) {
  size_t tail_size = strlen(tail);
  char *text = malloc(blanks + tail_size + 1);
  if (!text)
    return NULL;
  memset(text, ' ', blanks);
  memcpy(text + blanks, tail, tail_size + 1);
  return text;
}

static void test_csv_malformed(void) {
  char *fields66 = repeat_fields(66);
  char *fields100k = repeat_fields(100000);
  char *too_long = padded_line((size_t)17 << 20, "1,2\n");
  CHECK(fields66 && fields100k && too_long);
  if (!fields66 || !fields100k || !too_long)
    goto done;
  const csv_case cases[] = {
      {"empty file", "", 0, CK_ERROR_PARSE, "is empty"},
      {"only a header", "a1,a2,b\n", 0, CK_ERROR_PARSE, "no data rows"},
      {"only a header, no newline", "x,y", 0, CK_ERROR_PARSE, "no data rows"},
      {"only blank lines", "\n\n   \n\t\n\r\n", 0, CK_ERROR_PARSE,
       "no data rows"},
      {"only comments", "# one\n  # two\n", 0, CK_ERROR_PARSE, "no data rows"},
      {"ragged row", "1,2,3\n4,5,6\n7,8\n", 0, CK_ERROR_PARSE,
       "line 3: 2 fields, expected 3"},
      {"long row after header and comments", "a,b,c\n# c\n\n1,2,3\n1,2,3,4\n",
       0, CK_ERROR_PARSE, "line 5: 4 fields, expected 3"},
      {"ragged row with CRLF", "1,2\r\n3\r\n", 0, CK_ERROR_PARSE,
       "line 2: 1 field, expected 2"},
      {"non-numeric field in the middle", "1,2,3\n4,abc,6\n", 0, CK_ERROR_PARSE,
       "line 2, field 2: \"abc\" is not a number"},
      {"garbage after a number", "1,2\n3,4x\n", 0, CK_ERROR_PARSE,
       "line 2, field 2: \"4x\""},
      {"hexadecimal", "1,2\n0x10,1\n", 0, CK_ERROR_PARSE,
       "line 2, field 1: \"0x10\" is not a number"},
      {"two numbers in a field", "1 2,3\n", 0, CK_ERROR_PARSE,
       "line 1, field 1"},
      {"carriage return inside a line", "1\r,2\n", 0, CK_ERROR_PARSE,
       "line 1, field 1"},
      {"empty field", "1,,3\n", 0, CK_ERROR_PARSE, "line 1, field 2 is empty"},
      {"trailing comma", "1,2,3\n4,5,\n", 0, CK_ERROR_PARSE,
       "line 2, field 3 is empty"},
      {"nan", "1,2\n3,nan\n", 0, CK_ERROR_PARSE,
       "line 2, field 2: \"nan\" is not finite"},
      {"NaN on line 1", "NaN,1\n", 0, CK_ERROR_PARSE, "line 1, field 1"},
      {"inf", "1,2\n-inf,4\n", 0, CK_ERROR_PARSE,
       "line 2, field 1: \"-inf\" is not finite"},
      {"infinity", "1,Infinity\n", 0, CK_ERROR_PARSE, "line 1, field 2"},
      {"overflowing number", "1,2\n1e999,4\n", 0, CK_ERROR_PARSE,
       "line 2, field 1: \"1e999\" is out of range"},
      {"header on line 2", "1,2\nx,y\n", 0, CK_ERROR_PARSE,
       "line 2: no field is a number"},
      {"header after a data row and a comment", "1,2\n# c\nx,y\n", 0,
       CK_ERROR_PARSE, "line 3: no field is a number"},
      {"two header lines", "x,y\nu,v\n1,2\n", 0, CK_ERROR_PARSE, "line 2"},
      {"line 1 with one numeric field", "x,1,y\n1,2,3\n", 0, CK_ERROR_PARSE,
       "line 1, field 1: \"x\" is not a number"},
      {"single column", "1\n2\n", 0, CK_ERROR_PARSE,
       "line 1: 1 field; need at least 2"},
      {"single column after a header", "b\n1\n2\n", 0, CK_ERROR_PARSE,
       "line 2: 1 field"},
      {"semicolon separators", "1;2;3\n4;5;6\n", 0, CK_ERROR_PARSE,
       "separated by commas"},
      {"66 fields (dim 65)", fields66, 0, CK_ERROR_PARSE,
       "line 1: 66 fields; at most 65"},
      {"100000 fields on one line", fields100k, 0, CK_ERROR_PARSE,
       "line 1: 100000 fields"},
      {"a 17 MiB line", too_long, 0, CK_ERROR_PARSE, "line 1 is longer than"},
      {"a NUL byte", "1,2\n3,\0 4\n", 10, CK_ERROR_PARSE,
       "line 2 contains a NUL byte"},
      {"data after a long quiet stretch", "1,2\n\n\n\n# x\n\n3\n", 0,
       CK_ERROR_PARSE, "line 7: 1 field, expected 2"},
  };
  char path[1024];
  test_path_in(work_dir, "bad.csv", path, sizeof path);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const csv_case *c = &cases[i];
    size_t size = c->size ? c->size : strlen(c->text);
    CHECK(test_write_bytes(path, c->text, size) == 0);
    expect_load_failure(c->label, path, c->status, c->needle);
  }
done:
  free(fields66);
  free(fields100k);
  free(too_long);
}

/* ---- CSV: good input ----------------------------------------------------- */

static void check_small(const char *label, const ck_lsq_data *data) {
  static const double a[] = {1, 2, 4, 5};
  static const double b[] = {3, 6};
  CHECK_MSG(data->rows == 2 && data->dim == 2, "%s: %zu rows of dim %zu", label,
            data->rows, data->dim);
  if (data->rows != 2 || data->dim != 2)
    return;
  CHECK_MSG(memcmp(data->a, a, sizeof a) == 0 &&
                memcmp(data->b, b, sizeof b) == 0,
            "%s: wrong values", label);
}

static void test_csv_good(void) {
  static const struct {
    const char *label, *text;
  } cases[] = {
      {"plain", "1,2,3\n4,5,6\n"},
      {"with a header", "x1,x2,y\n1,2,3\n4,5,6\n"},
      {"a header after a comment", "# made by hand\nx1,x2,y\n1,2,3\n4,5,6\n"},
      {"a header after blank lines", "\n  \nx1,x2,y\n1,2,3\n4,5,6\n"},
      {"with CRLF", "1,2,3\r\n4,5,6\r\n"},
      {"header, CRLF, no final newline", "a,b,c\r\n1,2,3\r\n4,5,6"},
      {"with comments and blank lines",
       "# made by hand\n\n1,2,3\n  \n# more\n\t\n4,5,6\n\n\n"},
      {"blank CRLF lines", "1,2,3\r\n\r\n4,5,6\r\n\r\n"},
      {"without a final newline", "1,2,3\n4,5,6"},
      {"with spaces and tabs", " 1 , 2,3 \n\t4,5 ,\t6\t\n"},
      {"byte order mark and header", "\xEF\xBB\xBF"
                                     "a,b,c\n1,2,3\n4,5,6\n"},
      {"number spellings", "1e0,+2,3.0\n0.4e1,5.,6E0\n"},
  };
  char path[1024];
  test_path_in(work_dir, "good.csv", path, sizeof path);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_lsq_data data = {0, 0, NULL, NULL};
    CHECK(test_write_bytes(path, cases[i].text, strlen(cases[i].text)) == 0);
    CHECK_OK(ck_lsq_load(path, &data));
    check_small(cases[i].label, &data);
    CHECK_OK(ck_lsq_free(&data));
  }

  /* A 3 MiB line makes the reader's buffer grow; it is still valid. */
  char *long_line = padded_line((size_t)3 << 20, "1,2,3\n4,5,6\n");
  CHECK(long_line != NULL);
  if (long_line) {
    ck_lsq_data data = {0, 0, NULL, NULL};
    CHECK(test_write_bytes(path, long_line, strlen(long_line)) == 0);
    CHECK_OK(ck_lsq_load(path, &data));
    check_small("a 3 MiB line", &data);
    ck_lsq_free(&data);
    free(long_line);
  }

  /* The widest rows allowed: dim 64, 65 fields. */
  char *widest = repeat_fields(CK_LSQ_MAX_DIM + 1);
  CHECK(widest != NULL);
  if (widest) {
    ck_lsq_data data = {0, 0, NULL, NULL};
    CHECK(test_write_bytes(path, widest, strlen(widest)) == 0);
    CHECK_OK(ck_lsq_load(path, &data));
    CHECK(data.rows == 1 && data.dim == CK_LSQ_MAX_DIM);
    CHECK(data.b && data.b[0] == 1.0);
    ck_lsq_free(&data);
    free(widest);
  }

  /* Many rows: the row arrays grow several times. */
  size_t rows = 20000;
  char *many = malloc(rows * 16 + 1);
  CHECK(many != NULL);
  if (many) {
    size_t used = 0;
    for (size_t j = 0; j < rows; ++j)
      used += (size_t)sprintf(many + used, "%zu,-%zu.5\n", j, j);
    ck_lsq_data data = {0, 0, NULL, NULL};
    CHECK(test_write_bytes(path, many, used) == 0);
    CHECK_OK(ck_lsq_load(path, &data));
    CHECK(data.rows == rows && data.dim == 1);
    int same = data.rows == rows;
    for (size_t j = 0; same && j < rows; ++j)
      same = data.a[j] == (double)j && data.b[j] == -((double)j + 0.5);
    CHECK(same);
    ck_lsq_free(&data);
    free(many);
  }
}

/* ---- binary: malformed input --------------------------------------------- */

static void put_le(uint8_t *out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[i] = (uint8_t)(value >> (8 * i));
}

static void put_double(uint8_t *out, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  put_le(out, bits, 8);
}

/* A header and `values` doubles 0.5, 1, 1.5, ...; returns the size. */
static size_t make_binary(uint8_t *out, const char *magic, uint32_t version,
                          uint32_t dim, uint64_t rows, size_t values) {
  memcpy(out, magic, 8);
  put_le(out + 8, version, 4);
  put_le(out + 12, dim, 4);
  put_le(out + 16, rows, 8);
  for (size_t i = 0; i < values; ++i)
    put_double(out + 24 + 8 * i, 0.5 * (double)(i + 1));
  return 24 + 8 * values;
}

static void test_binary_malformed(void) {
  uint8_t bytes[24 + 8 * 80];
  char path[1024];
  test_path_in(work_dir, "bad.bin", path, sizeof path);
  struct {
    const char *label;
    size_t size;
    const char *needle;
  } cases[16];
  size_t count = 0;
  /* Each case is written and loaded at once, so bytes can be reused. */
#define BINARY_CASE(label_, size_, needle_)                                    \
  do {                                                                         \
    cases[count].label = (label_);                                             \
    cases[count].size = (size_);                                               \
    cases[count].needle = (needle_);                                           \
    CHECK(test_write_bytes(path, bytes, cases[count].size) == 0);              \
    expect_load_failure(cases[count].label, path, CK_ERROR_PARSE,              \
                        cases[count].needle);                                  \
    ++count;                                                                   \
  } while (0)

  BINARY_CASE("wrong magic", make_binary(bytes, "CKLSQF32", 1, 2, 3, 9),
              "bad magic");
  BINARY_CASE("wrong version", make_binary(bytes, "CKLSQF64", 2, 2, 3, 9),
              "unsupported format version 2");
  BINARY_CASE("dim 0", make_binary(bytes, "CKLSQF64", 1, 0, 3, 3),
              "dim 0 is outside 1..64");
  BINARY_CASE("dim 65", make_binary(bytes, "CKLSQF64", 1, 65, 1, 66),
              "dim 65 is outside 1..64");
  BINARY_CASE("rows 0", make_binary(bytes, "CKLSQF64", 1, 2, 0, 0),
              "rows is 0");
  BINARY_CASE("truncated payload", make_binary(bytes, "CKLSQF64", 1, 2, 3, 6),
              "truncated: expected 96 bytes (3 rows of dim 2), found 72");
  BINARY_CASE("one byte short", make_binary(bytes, "CKLSQF64", 1, 2, 3, 9) - 1,
              "truncated: expected 96 bytes");
  BINARY_CASE("trailing bytes", make_binary(bytes, "CKLSQF64", 1, 2, 3, 10) - 7,
              "trailing bytes: expected 96 bytes (3 rows of dim 2), found 97");
  make_binary(bytes, "CKLSQF64", 1, 2, 3, 9);
  put_double(bytes + 24 + 8 * 5, NAN); /* row 2, b */
  BINARY_CASE("NaN value", 24 + 8 * 9, "row 2: b is not finite (NaN)");
  make_binary(bytes, "CKLSQF64", 1, 2, 3, 9);
  put_double(bytes + 24 + 8 * 1, -INFINITY); /* row 1, a_2 */
  BINARY_CASE("infinite value", 24 + 8 * 9, "row 1: a_2 is not finite");
  make_binary(bytes, "CKLSQF64", 1, 2, 3, 9);
  BINARY_CASE("header cut short", 12,
              "truncated header: expected 24 bytes, found 12");
  BINARY_CASE("magic cut short", 6, "truncated header");
  BINARY_CASE("payload size overflows",
              make_binary(bytes, "CKLSQF64", 1, 64, UINT64_C(1) << 62, 0),
              "too large");
  BINARY_CASE("huge rows, small file",
              make_binary(bytes, "CKLSQF64", 1, 1, UINT64_C(1) << 40, 2),
              "truncated: expected");
#undef BINARY_CASE
  CHECK(count <= sizeof cases / sizeof cases[0]);
}

/* ---- I/O errors ---------------------------------------------------------- */

static void test_io_errors(void) {
  char path[1024];
  ck_lsq_data data = {0, 0, NULL, NULL};
  test_path_in(work_dir, "no-such-file.csv", path, sizeof path);
  expect_load_failure("missing file", path, CK_ERROR_IO, "No such file");
  expect_load_failure("a directory", work_dir, CK_ERROR_IO, "cannot read");
  CHECK(ck_lsq_load(NULL, &data) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_load(path, NULL) == CK_ERROR_INVALID_ARGUMENT);
}

/* ---- round trips --------------------------------------------------------- */

static int same_data(const ck_lsq_data *x, const ck_lsq_data *y) {
  return x->rows == y->rows && x->dim == y->dim && x->a && y->a && x->b &&
         y->b && memcmp(x->a, y->a, x->rows * x->dim * sizeof(double)) == 0 &&
         memcmp(x->b, y->b, x->rows * sizeof(double)) == 0;
}

static void round_trip(const char *label, const ck_lsq_data *data) {
  char csv[1024], bin[1024];
  test_path_in(work_dir, "trip.csv", csv, sizeof csv);
  test_path_in(work_dir, "trip.bin", bin, sizeof bin);
  ck_lsq_data back = {0, 0, NULL, NULL};

  CHECK_OK(ck_lsq_save(csv, data, CK_LSQ_CSV));
  CHECK_OK(ck_lsq_load(csv, &back));
  CHECK_MSG(same_data(data, &back), "%s: CSV round trip differs", label);
  ck_lsq_free(&back);

  CHECK_OK(ck_lsq_save(bin, data, CK_LSQ_BINARY));
  CHECK_MSG(file_size(bin) == (long)(24 + data->rows * (data->dim + 1) * 8),
            "%s: binary file of %ld bytes", label, file_size(bin));
  CHECK_OK(ck_lsq_load(bin, &back));
  CHECK_MSG(same_data(data, &back), "%s: binary round trip differs", label);
  ck_lsq_free(&back);
  CHECK_MSG(hidden_entries(work_dir) == 0, "%s: temporary files left", label);
}

static void test_round_trips(void) {
  double a[] = {0.1,
                -0.0,
                4.9406564584124654e-324,
                DBL_MAX,
                -DBL_MIN,
                1.0 / 3.0,
                3.141592653589793,
                1e300,
                -1e-300,
                123456789.123456789,
                1.0 - DBL_EPSILON / 2,
                -2.5e-310};
  double b[] = {-DBL_MAX, 0.0, 2.0 / 3.0, 1e-17};
  ck_lsq_data special = {4, 3, a, b};
  round_trip("special values", &special);

  ck_lsq_data generated = {0, 0, NULL, NULL};
  CHECK_OK(ck_lsq_generate(1000, 7, 5, 0.3, &generated, NULL));
  round_trip("generated", &generated);

  /* The binary layout, byte by byte. */
  char bin[1024];
  test_path_in(work_dir, "layout.bin", bin, sizeof bin);
  double la[] = {1.0, -2.0};
  double lb[] = {0.5};
  ck_lsq_data tiny = {1, 2, la, lb};
  CHECK_OK(ck_lsq_save(bin, &tiny, CK_LSQ_BINARY));
  uint8_t expected[48], actual[64];
  make_binary(expected, "CKLSQF64", 1, 2, 1, 0);
  put_double(expected + 24, 1.0);
  put_double(expected + 32, -2.0);
  put_double(expected + 40, 0.5);
  FILE *file = fopen(bin, "rb");
  size_t got = file ? fread(actual, 1, sizeof actual, file) : 0;
  if (file)
    fclose(file);
  CHECK(got == sizeof expected && memcmp(actual, expected, got) == 0);

  /* Another process locale must not change the text. */
  if (setlocale(LC_NUMERIC, "de_DE.UTF-8") ||
      setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
    round_trip("decimal comma locale", &generated);
    char csv[1024];
    test_path_in(work_dir, "locale.csv", csv, sizeof csv);
    CHECK_OK(ck_lsq_save(csv, &tiny, CK_LSQ_CSV));
    char text[128] = "";
    file = fopen(csv, "rb");
    got = file ? fread(text, 1, sizeof text - 1, file) : 0;
    if (file)
      fclose(file);
    text[got] = '\0';
    CHECK_MSG(strcmp(text, "a1,a2,b\n1,-2,0.5\n") == 0, "got \"%s\"", text);
    setlocale(LC_NUMERIC, "C");
  }
  ck_lsq_free(&generated);
}

/* ---- saving -------------------------------------------------------------- */

static void test_save(void) {
  char path[1024], missing[1024], directory[1024];
  double a[] = {1, 2, 3, 4};
  double b[] = {5, 6};
  ck_lsq_data data = {2, 2, a, b};
  ck_lsq_data back = {0, 0, NULL, NULL};
  const char *message = "";

  /* Overwriting replaces the old file whole. */
  test_path_in(work_dir, "over.csv", path, sizeof path);
  CHECK_OK(ck_lsq_save(path, &data, CK_LSQ_CSV));
  data.rows = 1;
  CHECK_OK(ck_lsq_save(path, &data, CK_LSQ_CSV));
  data.rows = 2;
  CHECK_OK(ck_lsq_load(path, &back));
  CHECK(back.rows == 1 && back.dim == 2);
  ck_lsq_free(&back);
  CHECK(hidden_entries(work_dir) == 0);

  /* Coefficients that would not read back are not written: the file
   * keeps what it held. */
  char coefficients[1024];
  test_path_in(work_dir, "truth.txt", coefficients, sizeof coefficients);
  double x[3] = {1.5, -2, 0.25};
  CHECK_OK(ck_lsq_save_coefficients(coefficients, x, 3));
  x[1] = NAN;
  CHECK(ck_lsq_save_coefficients(coefficients, x, 3) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "coefficient 2 is nan") != NULL, "message '%s'",
            message);
  char *kept = test_read_file(coefficients, NULL);
  CHECK(kept && strcmp(kept, "1.5\n-2\n0.25\n") == 0);
  free(kept);
  /* Refusals name the argument at fault, and a bad count its value. */
  CHECK_INVALID(ck_lsq_save_coefficients(NULL, x, 3),
                "ck_lsq_save_coefficients: path is NULL");
  CHECK_INVALID(ck_lsq_save_coefficients(coefficients, NULL, 3),
                "ck_lsq_save_coefficients: x is NULL");
  CHECK_INVALID(ck_lsq_save_coefficients(coefficients, x, 0),
                "ck_lsq_save_coefficients: dim is 0");
  CHECK_INVALID(ck_lsq_save_coefficients(coefficients, x, CK_LSQ_MAX_DIM + 1),
                "ck_lsq_save_coefficients: dim is 65");

  /* Data and coefficients together: both replaced, or neither. */
  char pair[1024];
  test_path_in(work_dir, "pair.csv", pair, sizeof pair);
  double made_a[] = {1, 2, 3, 4, 5, 6};
  double made_b[] = {7, 8};
  ck_lsq_data made = {2, 3, made_a, made_b};
  x[1] = -2;
  CHECK_OK(ck_lsq_save_generated(pair, &made, CK_LSQ_CSV, coefficients, x));
  CHECK_OK(ck_lsq_load(pair, &back));
  CHECK(back.rows == 2 && back.dim == 3 && back.b[1] == 8);
  ck_lsq_free(&back);
  made_b[1] = 9;
  x[2] = INFINITY;
  CHECK(ck_lsq_save_generated(pair, &made, CK_LSQ_CSV, coefficients, x) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "coefficient 3 is inf") != NULL, "message '%s'",
            message);
  CHECK_OK(ck_lsq_load(pair, &back));
  CHECK_MSG(back.rows == 2 && back.b[1] == 8, "the data file was replaced");
  ck_lsq_free(&back);
  kept = test_read_file(coefficients, NULL);
  CHECK(kept && strcmp(kept, "1.5\n-2\n0.25\n") == 0);
  free(kept);
  CHECK(hidden_entries(work_dir) == 0);
  x[2] = 0.25;
  CHECK_INVALID(ck_lsq_save_generated(NULL, &made, CK_LSQ_CSV, coefficients, x),
                "ck_lsq_save_generated: data_path is NULL");
  CHECK_INVALID(ck_lsq_save_generated(pair, NULL, CK_LSQ_CSV, coefficients, x),
                "ck_lsq_save_generated: data is NULL");
  CHECK_INVALID(ck_lsq_save_generated(pair, &made, CK_LSQ_CSV, NULL, x),
                "ck_lsq_save_generated: coefficients_path is NULL");
  CHECK_INVALID(
      ck_lsq_save_generated(pair, &made, CK_LSQ_CSV, coefficients, NULL),
      "ck_lsq_save_generated: x is NULL");

  /* Into a directory that does not exist: an I/O error and no file. */
  test_path_in(work_dir, "missing", directory, sizeof directory);
  test_path_in(work_dir, "missing/out.csv", missing, sizeof missing);
  CHECK(ck_lsq_save(missing, &data, CK_LSQ_CSV) == CK_ERROR_IO);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, missing) && strstr(message, "No such file"),
            "message \"%s\"", message);
  CHECK(file_size(missing) < 0 && file_size(directory) < 0);
  CHECK(ck_lsq_save(missing, &data, CK_LSQ_BINARY) == CK_ERROR_IO);
  CHECK(hidden_entries(work_dir) == 0);

  /* Over a directory: refused before a temporary file is made. */
  test_path_in(work_dir, "a-directory", directory, sizeof directory);
  CHECK(mkdir(directory, 0700) == 0);
  CHECK(ck_lsq_save(directory, &data, CK_LSQ_BINARY) == CK_ERROR_IO);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "it is a directory"), "message \"%s\"", message);
  CHECK(hidden_entries(work_dir) == 0);
  CHECK(hidden_entries(directory) == 0);

  /* Arguments. */
  snprintf(directory, sizeof directory, "%s/", work_dir);
  CHECK(ck_lsq_save(directory, &data, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_save(NULL, &data, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_save(path, NULL, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_save(path, &data, (ck_lsq_format)7) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_lsq_data empty = {0, 2, a, b};
  CHECK(ck_lsq_save(path, &empty, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);
  ck_lsq_data wide = {1, CK_LSQ_MAX_DIM + 1, a, b};
  CHECK(ck_lsq_save(path, &wide, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);

  /* Values that could not be read back are refused before any writing. */
  test_path_in(work_dir, "nan.csv", path, sizeof path);
  a[3] = NAN;
  CHECK(ck_lsq_save(path, &data, CK_LSQ_CSV) == CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "row 2: a_2"), "message \"%s\"", message);
  a[3] = 4;
  b[0] = INFINITY;
  CHECK(ck_lsq_save(path, &data, CK_LSQ_BINARY) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(file_size(path) < 0);
  CHECK(hidden_entries(work_dir) == 0);
}

/* ---- generator ----------------------------------------------------------- */

static void test_generate(void) {
  enum { ROWS = 10000, DIM = 16 };
  double x[DIM], y[DIM];
  ck_lsq_data data = {0, 0, NULL, NULL}, again = {0, 0, NULL, NULL};
  double value = -1;

  CHECK_OK(ck_lsq_generate(ROWS, DIM, 42, 0.0, &data, x));
  CHECK(data.rows == ROWS && data.dim == DIM && data.a && data.b);
  int in_range = 1;
  for (int d = 0; d < DIM; ++d)
    in_range &= x[d] >= -2.0 && x[d] < 2.0;
  for (size_t i = 0; data.a && i < (size_t)ROWS * DIM; ++i)
    in_range &= data.a[i] >= -1.0 && data.a[i] < 1.0;
  CHECK(in_range);

  /* The true coefficients solve the noiseless problem exactly. */
  CHECK_OK(ck_lsq_evaluate(&data, x, &value));
  CHECK_MSG(value >= 0.0 && value <= 1e-20 * ROWS, "f(x*) = %g", value);
  memcpy(y, x, sizeof y);
  y[3] += 1e-3;
  CHECK_OK(ck_lsq_evaluate(&data, y, &value));
  /* E[a^2] = 1/3, so f is about ROWS * 1e-6 / 3. */
  CHECK_MSG(value > 0.8 * ROWS * 1e-6 / 3 && value < 1.2 * ROWS * 1e-6 / 3,
            "f(perturbed) = %g", value);

  /* Same seed, same bits; another seed, other data. */
  CHECK_OK(ck_lsq_generate(ROWS, DIM, 42, 0.0, &again, y));
  CHECK(same_data(&data, &again) && memcmp(x, y, sizeof x) == 0);
  ck_lsq_free(&again);
  CHECK_OK(ck_lsq_generate(ROWS, DIM, 43, 0.0, &again, y));
  CHECK(again.a && data.a &&
        memcmp(again.a, data.a, (size_t)ROWS * DIM * sizeof(double)) != 0);
  CHECK(memcmp(x, y, sizeof x) != 0);
  ck_lsq_free(&again);

  /* Noise sigma: f(x*) / rows estimates sigma^2. */
  CHECK_OK(ck_lsq_generate(ROWS, 5, 7, 0.5, &again, y));
  CHECK_OK(ck_lsq_evaluate(&again, y, &value));
  CHECK_MSG(fabs(value / ROWS - 0.25) < 0.025, "f(x*)/rows = %g", value / ROWS);
  ck_lsq_free(&again);

  /* An odd dim, one row, and no coefficients wanted. */
  CHECK_OK(ck_lsq_generate(1, 1, 9, 0.0, &again, NULL));
  CHECK(again.rows == 1 && again.dim == 1);
  ck_lsq_free(&again);
  ck_lsq_free(&data);

  /* Arguments. */
  CHECK(ck_lsq_generate(0, 2, 1, 0.0, &data, x) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_generate(5, 0, 1, 0.0, &data, x) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_generate(5, CK_LSQ_MAX_DIM + 1, 1, 0.0, &data, x) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_generate(5, 2, 1, -1.0, &data, x) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_generate(5, 2, 1, NAN, &data, x) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_generate(5, 2, 1, 0.0, NULL, x) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(data.a == NULL && data.rows == 0);
  /* Past the host's memory: refused with the figures before an allocation
   * the host might over-commit (10^13 rows of dim 8: 720 TB). */
  CHECK(ck_lsq_generate(10000000000000ull, 8, 1, 0.0, &data, x) ==
        CK_ERROR_OUT_OF_MEMORY);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "10000000000000 rows of dim 8 need about "
                            "7.2e+05 GB; the host has") != NULL,
            "past the host's memory: %s", message);
  CHECK(data.a == NULL && data.rows == 0);
}

/* ---- objective ----------------------------------------------------------- */

static void test_evaluate(void) {
  double a[] = {1, 0, 0, 1, 1, 1};
  double b[] = {1, 2, 4};
  ck_lsq_data data = {3, 2, a, b};
  double x[] = {1, 2}, zero[] = {0, 0};
  double value = -1;
  CHECK_OK(ck_lsq_evaluate(&data, x, &value));
  CHECK(value == 1.0);
  CHECK_OK(ck_lsq_evaluate(&data, zero, &value));
  CHECK(value == 21.0);

  /* 1e16 and then 1000 ones: plain summation would lose every one. */
  enum { ROWS = 1001 };
  double *column = calloc(ROWS, sizeof(double));
  double *targets = malloc(ROWS * sizeof(double));
  CHECK(column && targets);
  if (column && targets) {
    targets[0] = 1e8;
    for (int j = 1; j < ROWS; ++j)
      targets[j] = 1.0;
    ck_lsq_data big = {ROWS, 1, column, targets};
    CHECK_OK(ck_lsq_evaluate(&big, zero, &value));
    CHECK_MSG(value == 1e16 + 1000.0, "%.17g", value);
  }
  free(column);
  free(targets);

  ck_lsq_data empty = {0, 0, NULL, NULL};
  CHECK(ck_lsq_evaluate(&empty, x, &value) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_lsq_evaluate(NULL, x, &value) == CK_ERROR_INVALID_ARGUMENT);
  CHECK_INVALID(ck_lsq_evaluate(&data, NULL, &value),
                "ck_lsq_evaluate: x is NULL");
  CHECK_INVALID(ck_lsq_evaluate(&data, x, NULL),
                "ck_lsq_evaluate: value is NULL");

  /* Freeing a zeroed struct, NULL, or twice is harmless. */
  CHECK_OK(ck_lsq_free(&empty));
  CHECK_OK(ck_lsq_free(NULL));
  ck_lsq_data owned = {0, 0, NULL, NULL};
  CHECK_OK(ck_lsq_generate(3, 2, 1, 0.0, &owned, NULL));
  CHECK_OK(ck_lsq_free(&owned));
  CHECK(owned.a == NULL && owned.b == NULL && owned.rows == 0);
  CHECK_OK(ck_lsq_free(&owned));
}

int main(void) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  snprintf(work_dir, sizeof work_dir, "%s/clkit-lsq-XXXXXX", base);
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  test_csv_malformed();
  test_csv_good();
  test_binary_malformed();
  test_io_errors();
  test_round_trips();
  test_save();
  test_generate();
  test_evaluate();
  remove_tree(work_dir);
  return CHECK_DONE();
}
