/*
 * test_tsp - TSPLIB instances, tours and candidate lists: every metric
 * against values worked out by hand from the TSPLIB definitions, the
 * optimal tours of six TSPLIB instances against their known optima, a
 * table of malformed files and every truncation of valid ones, candidate
 * lists against brute force, tour files both ways and the optima list.
 *
 * Instance data comes from $CLKIT_TEST_DATA/tsplib; files written by the
 * tests live in a fresh directory made with mkdtemp and removed at the end.
 */
#include "clkit/tsp.h"

#include "check.h"
#include "test_support.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char work_dir[512];
static const char *data_dir;

static void data_path(const char *name, char *path, size_t capacity) {
  snprintf(path, capacity, "%s/tsplib/%s", data_dir, name);
}

static int write_text(const char *path, const char *text) {
  FILE *file = fopen(path, "wb");
  if (!file)
    return -1;
  size_t size = strlen(text);
  size_t put = size ? fwrite(text, 1, size, file) : 0;
  int closed = fclose(file);
  return put == size && closed == 0 ? 0 : -1;
}

static int instance_is_zeroed(const ck_tsp_instance *instance) {
  ck_tsp_instance zero;
  memset(&zero, 0, sizeof zero);
  return memcmp(instance, &zero, sizeof zero) == 0;
}

/* A parse that must succeed. */
static int parse_ok(const char *label, const char *text,
                    ck_tsp_instance *instance) {
  ck_status status = ck_tsp_parse(text, strlen(text), "fixture.tsp", instance);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_OK, "%s: status %d: %s", label, (int)status, message);
  return status == CK_OK;
}

static int64_t distance_or(const ck_tsp_instance *instance, uint32_t i,
                           uint32_t j) {
  int64_t distance = -12345;
  CHECK_OK(ck_tsp_get_distance(instance, i, j, &distance));
  return distance;
}

/* Every pair of the instance against expected (n x n, row-major). */
static void check_matrix(const char *label, const ck_tsp_instance *instance,
                         const int64_t *expected, uint32_t n) {
  CHECK_MSG(instance->cities == n, "%s: %" PRIu32 " cities", label,
            instance->cities);
  if (instance->cities != n)
    return;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      int64_t got = distance_or(instance, i, j);
      CHECK_MSG(got == expected[i * n + j],
                "%s: d(%" PRIu32 ", %" PRIu32 ") = %" PRId64
                ", expected %" PRId64,
                label, i + 1, j + 1, got, expected[i * n + j]);
    }
}

/* ---- (a) the metrics ----------------------------------------------------- */

static void test_euc_ceil_att(void) {
  /* CRLF endings, "KEY: VALUE" without a space, trailing blanks and a
   * section keyword with a trailing space, as real files have them. */
  static const char euc[] =
      "NAME: euc\r\nTYPE: TSP\r\nCOMMENT : first\r\nCOMMENT : second\r\n"
      "DIMENSION: 4  \r\nEDGE_WEIGHT_TYPE:EUC_2D\r\nNODE_COORD_SECTION \r\n"
      "1 0 0\r\n3 2.5 0\r\n2 3 4\r\n4 0 1.5\r\nEOF\r\n";
  /*
   * dx, dy and sqrt(dx^2 + dy^2):  1-2: 3,4: 5   1-3: 2.5,0: 2.5
   * 1-4: 0,1.5: 1.5   2-3: 0.5,4: 4.031   2-4: 3,2.5: 3.905
   * 3-4: 2.5,1.5: 2.915.  EUC_2D rounds half up: 2.5 -> 3, 1.5 -> 2.
   */
  static const int64_t euc_expected[] = {0, 5, 3, 2, 5, 0, 4, 4,
                                         3, 4, 0, 3, 2, 4, 3, 0};
  /* CEIL_2D rounds every fraction up: 4.031 -> 5. */
  static const int64_t ceil_expected[] = {0, 5, 3, 2, 5, 0, 5, 4,
                                          3, 5, 0, 3, 2, 4, 3, 0};
  ck_tsp_instance instance;
  if (parse_ok("EUC_2D", euc, &instance)) {
    CHECK(strcmp(instance.name, "euc") == 0);
    CHECK(strcmp(instance.comment, "first") == 0);
    CHECK(instance.metric == CK_TSP_EUC_2D);
    CHECK(instance.x && instance.y && !instance.matrix);
    CHECK(instance.x && instance.x[2] == 2.5 && instance.y[3] == 1.5);
    check_matrix("EUC_2D", &instance, euc_expected, 4);
    ck_tsp_free(&instance);
    CHECK(instance_is_zeroed(&instance));
  }
  /* A byte order mark before the first keyword (an editor's UTF-8) is
   * not part of it. */
  static const char marked[] =
      "\xEF\xBB\xBFNAME: euc\nTYPE: TSP\nDIMENSION: 4\n"
      "EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n"
      "1 0 0\n3 2.5 0\n2 3 4\n4 0 1.5\nEOF\n";
  if (parse_ok("EUC_2D after a byte order mark", marked, &instance)) {
    CHECK(strcmp(instance.name, "euc") == 0);
    check_matrix("EUC_2D after a byte order mark", &instance, euc_expected, 4);
    ck_tsp_free(&instance);
  }
  /* The same cities in CEIL_2D, numbers spelled with exponents, ids out of
   * order and no EOF (the section is complete). */
  static const char ceil[] = "NAME : ceil\nTYPE : TSP\nDIMENSION : 4\n"
                             "EDGE_WEIGHT_TYPE : CEIL_2D\n"
                             "NODE_COORD_SECTION\n"
                             "4 0.0E+00 1.5e0\n2 3.000 4E0\n"
                             "\n1 0 -0\n3 25E-1 0.0\n";
  if (parse_ok("CEIL_2D", ceil, &instance)) {
    check_matrix("CEIL_2D", &instance, ceil_expected, 4);
    ck_tsp_free(&instance);
  }
  /*
   * ATT: r = sqrt((dx^2 + dy^2) / 10), t = nint(r), t + 1 if t < r.
   *   1-2 (10,0):  r = sqrt(10) = 3.162, t = 3 < r        -> 4
   *   1-3 (30,40): r = sqrt(250) = 15.811, t = 16 >= r    -> 16
   *   1-4 (3,1):   r = sqrt(1) = 1, t = 1, not below r    -> 1
   *   2-3 (20,40): r = sqrt(200) = 14.142, t = 14 < r     -> 15
   *   2-4 (7,1):   r = sqrt(5) = 2.236, t = 2 < r         -> 3
   *   3-4 (27,39): r = sqrt(225) = 15, t = 15             -> 15
   */
  static const char att[] = "NAME : att\nTYPE : TSP\nDIMENSION : 4\n"
                            "EDGE_WEIGHT_TYPE : ATT\nNODE_COORD_SECTION\n"
                            "1 0 0\n2 10 0\n3 30 40\n4 3 1\nEOF\n";
  static const int64_t att_expected[] = {0,  4,  16, 1,  4, 0, 15, 3,
                                         16, 15, 0,  15, 1, 3, 15, 0};
  if (parse_ok("ATT", att, &instance)) {
    check_matrix("ATT", &instance, att_expected, 4);
    ck_tsp_free(&instance);
  }
}

static void test_geo(void) {
  /*
   * GEO, coordinates DDD.MM: deg = (int)x (towards zero), min = x - deg,
   * radians = 3.141592 * (deg + 5 * min / 3) / 180; then
   * d = (int)(6378.388 * acos(((1 + q1) q2 - (1 - q1) q3) / 2) + 1) with
   * q1 = cos(lon_i - lon_j), q2 = cos(lat_i - lat_j), q3 = cos(lat_i +
   * lat_j).
   *   city 1  16.47  96.10  lat 0.292924365  lon 1.678424615
   *   city 2  16.47  94.44  lat 0.292924365  lon 1.653408234
   *   city 3 -33.55 151.52  lat -0.591957381 lon 2.650572806
   *           (-33 - 55/60 degrees; minutes >= .50 and negative)
   *   city 4  48.51  -2.35  lat 0.852593162  lon -0.045087663
   * 6378.388 * acos(...) + 1 works out to:
   *   1-2 153.767 (burma14's first edge is 153 too)   1-3 8166.091
   *   1-4 9242.675   2-3 8276.047   2-4 9142.294   3-4 17356.260
   */
  static const char geo[] = "NAME : geo\nTYPE : TSP\nDIMENSION : 4\n"
                            "EDGE_WEIGHT_TYPE : GEO\nNODE_COORD_SECTION\n"
                            "1 16.47 96.10\n2 16.47 94.44\n"
                            "3 -33.55 151.52\n4 48.51 -2.35\nEOF\n";
  static const int64_t expected[] = {0,    153,  8166,  9242, 153, 0,
                                     8276, 9142, 8166,  8276, 0,   17356,
                                     9242, 9142, 17356, 0};
  ck_tsp_instance instance;
  if (parse_ok("GEO", geo, &instance)) {
    CHECK(instance.metric == CK_TSP_GEO);
    check_matrix("GEO", &instance, expected, 4);
    ck_tsp_free(&instance);
  }
  /* Two cities at one place: GEO's formula gives 1, a city to itself 0. */
  static const char same[] = "NAME : same\nTYPE : TSP\nDIMENSION : 3\n"
                             "EDGE_WEIGHT_TYPE : GEO\nNODE_COORD_SECTION\n"
                             "1 10.00 10.00\n2 10.00 10.00\n3 0 0\n";
  if (parse_ok("GEO duplicates", same, &instance)) {
    CHECK(distance_or(&instance, 0, 1) == 1);
    CHECK(distance_or(&instance, 0, 0) == 0);
    CHECK(distance_or(&instance, 2, 2) == 0);
    ck_tsp_free(&instance);
  }
}

static void test_explicit(void) {
  /* One matrix in the four formats, values wrapped at odd places. */
  static const int64_t expected[] = {0,  12, 27, 31, 12, 0,  45, 58,
                                     27, 45, 0,  66, 31, 58, 66, 0};
  static const char head[] = "NAME : mat\nTYPE : TSP\nDIMENSION : 4\n"
                             "EDGE_WEIGHT_TYPE : EXPLICIT\n";
  static const struct {
    const char *format;
    const char *values;
  } cases[] = {
      {"FULL_MATRIX", "0 12 27\n31 12 0 45 58 27\n45 0 66 31 58 66\n0\n"},
      {"UPPER_ROW", "12 27 31\n45 58\n66\n"},
      {"UPPER_ROW", "12 27 31 45 58 66\n"},
      {"LOWER_DIAG_ROW", "0\n12 0\n27 45 0\n31 58 66 0\n"},
      {"LOWER_DIAG_ROW", "0 12 0 27\n45 0 31 58 66\n0\n"},
      {"UPPER_DIAG_ROW", "0 12 27 31\n0 45 58\n0 66\n0\n"},
      {"UPPER_DIAG_ROW", "0\t12 27 31 0\n 45 58 0\n 66 0\n"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char text[1024], label[64];
    snprintf(text, sizeof text,
             "%sEDGE_WEIGHT_FORMAT : %s\nEDGE_WEIGHT_SECTION\n%sEOF\n", head,
             cases[c].format, cases[c].values);
    snprintf(label, sizeof label, "EXPLICIT %s (%zu)", cases[c].format, c);
    ck_tsp_instance instance;
    if (!parse_ok(label, text, &instance))
      continue;
    CHECK(instance.metric == CK_TSP_EXPLICIT);
    CHECK(instance.matrix && !instance.x && !instance.y);
    check_matrix(label, &instance, expected, 4);
    for (uint32_t i = 0; instance.matrix && i < 16; ++i)
      CHECK_MSG(instance.matrix[i] == expected[i], "%s: matrix[%" PRIu32 "]",
                label, i);
    ck_tsp_free(&instance);
  }
  /* Display data gives an EXPLICIT instance coordinates for drawing. */
  static const char display[] =
      "NAME : shown\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
      "EDGE_WEIGHT_FORMAT : UPPER_ROW\nDISPLAY_DATA_TYPE : TWOD_DISPLAY\n"
      "EDGE_WEIGHT_SECTION\n 7 9\n 8\nDISPLAY_DATA_SECTION\n"
      "1 1.0 2.0\n2 3.0 4.0\n3 5.0 6.0\nEOF\n";
  ck_tsp_instance instance;
  if (parse_ok("EXPLICIT with display data", display, &instance)) {
    CHECK(instance.x && instance.y && instance.x[2] == 5.0 &&
          instance.y[0] == 2.0);
    CHECK(distance_or(&instance, 0, 2) == 9 &&
          distance_or(&instance, 2, 1) == 8);
    ck_tsp_free(&instance);
  }
}

/* The distance limits: coordinates of magnitude CK_TSP_MAX_COORDINATE
 * and weights of CK_TSP_MAX_DISTANCE are read, and no metric's distance
 * then passes CK_TSP_MAX_DISTANCE (so that four add up in an int). */
static void test_limits(void) {
  CHECK(CK_TSP_MAX_DISTANCE == (1 << 29) - 1);
  /* Opposite corners of the square: dx = dy = 3.6e8, e = 509116882.45. */
  static const struct {
    const char *type;
    int64_t far; /* d(1, 2) */
  } metrics[] = {{"EUC_2D", 509116882},
                 {"CEIL_2D", 509116883},
                 /* r = e / sqrt(10) = 160996894.38, t = 160996894 < r */
                 {"ATT", 160996895}};
  for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; ++m) {
    char text[512];
    snprintf(text, sizeof text,
             "NAME : corners\nTYPE : TSP\nDIMENSION : 3\n"
             "EDGE_WEIGHT_TYPE : %s\nNODE_COORD_SECTION\n"
             "1 -180000000 -1.8e8\n2 1.8E8 180000000.0\n3 0 0\nEOF\n",
             metrics[m].type);
    ck_tsp_instance instance;
    if (!parse_ok(metrics[m].type, text, &instance))
      continue;
    int64_t far = distance_or(&instance, 0, 1);
    CHECK_MSG(far == metrics[m].far && far <= CK_TSP_MAX_DISTANCE,
              "%s: corners %" PRId64 " apart, expected %" PRId64,
              metrics[m].type, far, metrics[m].far);
    ck_tsp_free(&instance);
  }
  /* GEO at the limit: a defined distance, at most half the globe. */
  static const char geo[] = "NAME : g\nTYPE : TSP\nDIMENSION : 3\n"
                            "EDGE_WEIGHT_TYPE : GEO\nNODE_COORD_SECTION\n"
                            "1 -1.8e8 1.8e8\n2 1.8e8 -1.8e8\n3 0 0\n";
  ck_tsp_instance instance;
  if (parse_ok("GEO at the limit", geo, &instance)) {
    int64_t d = distance_or(&instance, 0, 1);
    CHECK_MSG(d >= 0 && d <= 20040, "GEO at the limit: %" PRId64, d);
    ck_tsp_free(&instance);
  }
  /* The largest weight in every format; the diagonal is not read (any
   * 32-bit value is taken there) and holds 0 in the matrix. A matrix
   * symmetric but for its diagonal is symmetric. */
  static const int64_t expected[] = {0, 536870911, 7, 536870911, 0, 9, 7, 9, 0};
  static const struct {
    const char *format;
    const char *values;
  } cases[] = {
      {"FULL_MATRIX", "2147483647 536870911 7\n536870911 -2147483648 9\n7 9 "
                      "-1\n"},
      {"UPPER_ROW", "536870911 7\n9\n"},
      {"LOWER_DIAG_ROW", "0\n536870911 2147483647\n7 9 536870912\n"},
      {"UPPER_DIAG_ROW", "1 536870911 7\n0 9\n2147483647\n"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    char text[512];
    snprintf(text, sizeof text,
             "NAME : w\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : "
             "EXPLICIT\nEDGE_WEIGHT_FORMAT : %s\nEDGE_WEIGHT_SECTION\n%sEOF\n",
             cases[c].format, cases[c].values);
    if (!parse_ok(cases[c].format, text, &instance))
      continue;
    check_matrix(cases[c].format, &instance, expected, 3);
    for (uint32_t i = 0; instance.matrix && i < 9; ++i)
      CHECK_MSG(instance.matrix[i] == expected[i], "%s: matrix[%" PRIu32 "]",
                cases[c].format, i);
    ck_tsp_free(&instance);
  }
}

static void test_misc_good(void) {
  ck_tsp_instance instance;
  /* No NAME: the source's base name without .tsp. */
  static const char nameless[] = "TYPE : TSP\nDIMENSION : 3\n"
                                 "EDGE_WEIGHT_TYPE : EUC_2D\n"
                                 "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\n";
  CHECK_OK(
      ck_tsp_parse(nameless, strlen(nameless), "some/dir/tiny.tsp", &instance));
  CHECK_MSG(strcmp(instance.name, "tiny") == 0, "name \"%s\"", instance.name);
  CHECK(instance.comment[0] == '\0');
  ck_tsp_free(&instance);
  /* Not NUL-terminated: only length bytes are read. */
  char buffer[sizeof nameless + 8];
  memcpy(buffer, nameless, sizeof nameless - 1);
  memset(buffer + sizeof nameless - 1, 'Z', 9);
  CHECK_OK(ck_tsp_parse(buffer, sizeof nameless - 1, "x.tsp", &instance));
  ck_tsp_free(&instance);
  /* From a file: the name defaults to the file name. */
  char path[1024];
  test_path_in(work_dir, "from_file.tsp", path, sizeof path);
  CHECK(write_text(path, nameless) == 0);
  CHECK_OK(ck_tsp_load(path, &instance));
  CHECK(strcmp(instance.name, "from_file") == 0);
  ck_tsp_free(&instance);
  /* A file name that is not UTF-8 text, or holds a control character,
   * names the instance with '?' for each such byte ("\xc3\xa9" is é). */
  test_path_in(work_dir, "a\xff\xc3\xa9\tb\xe0\x80.tsp", path, sizeof path);
  CHECK(write_text(path, nameless) == 0);
  CHECK_OK(ck_tsp_load(path, &instance));
  CHECK_MSG(strcmp(instance.name, "a?\xc3\xa9?b??") == 0, "name \"%s\"",
            instance.name);
  ck_tsp_free(&instance);
  remove(path);
  /* A long name and comment are cut to fit. */
  char text[2048];
  char long_name[400];
  memset(long_name, 'n', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  snprintf(text, sizeof text,
           "NAME : %s\nCOMMENT : %s\nTYPE : TSP\nDIMENSION : 3\n"
           "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 0 1\n"
           "3 1 0\nEOF\n",
           long_name, long_name);
  if (parse_ok("long name", text, &instance)) {
    CHECK(strlen(instance.name) == sizeof instance.name - 1);
    CHECK(strlen(instance.comment) == sizeof instance.comment - 1);
    ck_tsp_free(&instance);
  }
  /* Cut between characters, not inside one: 199 two-byte é take 126 of
   * the name's 127 bytes. */
  char accents[400];
  for (int k = 0; k < 199; ++k)
    memcpy(accents + 2 * k, "\xc3\xa9", 2);
  accents[398] = '\0';
  snprintf(text, sizeof text,
           "NAME : %s\nTYPE : TSP\nDIMENSION : 3\n"
           "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 0 1\n"
           "3 1 0\nEOF\n",
           accents);
  if (parse_ok("long UTF-8 name", text, &instance)) {
    CHECK(strlen(instance.name) == sizeof instance.name - 2);
    CHECK(memcmp(instance.name, accents, sizeof instance.name - 2) == 0);
    ck_tsp_free(&instance);
  }
  /* Whatever follows EOF is not read. */
  static const char after_eof[] =
      "NAME : t\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"
      "NODE_COORD_SECTION\n1 0 0\n2 0 1\n3 1 0\nEOF\n\ngarbage here\n";
  if (parse_ok("after EOF", after_eof, &instance))
    ck_tsp_free(&instance);

  /* Arguments. */
  CHECK(ck_tsp_parse(nameless, 5, "x", NULL) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_tsp_parse(NULL, 5, "x", &instance) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_tsp_load(NULL, &instance) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck_tsp_load(path, NULL) == CK_ERROR_INVALID_ARGUMENT);
  test_path_in(work_dir, "missing.tsp", path, sizeof path);
  const char *message = "";
  CHECK(ck_tsp_load(path, &instance) == CK_ERROR_IO);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "missing.tsp") != NULL, "%s", message);
  CHECK(instance_is_zeroed(&instance));
  CHECK_OK(ck_tsp_free(NULL));
  CHECK_OK(ck_tsp_free(&instance));
  int64_t distance = 0;
  CHECK(ck_tsp_get_distance(&instance, 0, 0, &distance) ==
        CK_ERROR_INVALID_ARGUMENT);
  if (parse_ok("nameless", nameless, &instance)) {
    CHECK(ck_tsp_get_distance(&instance, 3, 0, &distance) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK(ck_tsp_get_distance(&instance, 0, 3, &distance) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK(ck_tsp_get_distance(&instance, 0, 1, NULL) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK(ck_tsp_get_distance(NULL, 0, 1, &distance) ==
          CK_ERROR_INVALID_ARGUMENT);
    ck_tsp_free(&instance);
  }
}

/* ---- (b) optimal tours ----------------------------------------------------
 */

static void test_optimal_tours(void) {
  static const char *const names[] = {"eil51",   "berlin52", "st70",
                                      "kroA100", "ch150",    "a280"};
  char optima[1024];
  data_path("optima.txt", optima, sizeof optima);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char file[256], path[1024], tour_path[1024];
    snprintf(file, sizeof file, "%s.tsp", names[i]);
    data_path(file, path, sizeof path);
    snprintf(file, sizeof file, "tours/%s.opt.tour", names[i]);
    data_path(file, tour_path, sizeof tour_path);
    ck_tsp_instance instance;
    uint32_t *tour = NULL;
    int64_t length = -1, optimum = -2;
    CHECK_OK(ck_tsp_load(path, &instance));
    CHECK_MSG(strcmp(instance.name, names[i]) == 0, "name %s", instance.name);
    CHECK(instance.metric == CK_TSP_EUC_2D);
    CHECK_OK(ck_tsp_tour_load(tour_path, instance.cities, &tour));
    CHECK_OK(
        ck_tsp_optimum_find(optima, instance.name, path, NULL, NULL, &optimum));
    if (tour) {
      CHECK_OK(ck_tsp_tour_measure(&instance, tour, &length));
      CHECK_MSG(length == optimum,
                "%s: the optimal tour has length %" PRId64
                ", the optimum is %" PRId64,
                names[i], length, optimum);
    }
    free(tour);
    ck_tsp_free(&instance);
  }
}

/* ---- (c) malformed instances ---------------------------------------------
 */

typedef struct bad_case {
  const char *label;
  const char *text;
  size_t size; /* 0: strlen(text) */
  ck_status status;
  const char *needle; /* with the line: "bad.tsp:LINE: ..." */
} bad_case;

#define HEAD3                                                                  \
  "NAME : t\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\n"           \
  "NODE_COORD_SECTION\n"
#define EXPLICIT3                                                              \
  "NAME : t\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n"

/* A node section whose x has digits lines long. */
static char *long_number_file(size_t digits) {
  const char head[] = HEAD3 "1 ";
  char *text = malloc(sizeof head + digits + 32);
  if (!text)
    return NULL;
  memcpy(text, head, sizeof head - 1);
  memset(text + sizeof head - 1, '7', digits);
  strcpy(text + sizeof head - 1 + digits, " 0\n2 0 0\n3 1 1\n");
  return text;
}

static void expect_parse_failure(const bad_case *c) {
  ck_tsp_instance instance;
  memset(&instance, 0x5a, sizeof instance);
  const char *message = "";
  size_t size = c->size ? c->size : strlen(c->text);
  ck_error_clear();
  ck_status status = ck_tsp_parse(c->text, size, "bad.tsp", &instance);
  ck_error_get_last(&message);
  CHECK_MSG(status == c->status, "%s: status %d, expected %d (%s)", c->label,
            (int)status, (int)c->status, message);
  CHECK_MSG(strstr(message, c->needle) != NULL, "%s: \"%s\" lacks \"%s\"",
            c->label, message, c->needle);
  CHECK_MSG(instance_is_zeroed(&instance), "%s: instance not zeroed", c->label);
  if (status == CK_OK)
    ck_tsp_free(&instance);
}

static void test_malformed(void) {
  char *long_number = long_number_file((size_t)1 << 20);
  CHECK(long_number != NULL);
  const bad_case cases[] = {
      {"empty file", "", 0, CK_ERROR_PARSE, "bad.tsp:1: the file is empty"},
      {"blank lines only", "\n  \n\r\n\t\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: the file is empty"},
      {"no DIMENSION", "NAME : t\nTYPE : TSP\nEDGE_WEIGHT_TYPE : EUC_2D\nEOF\n",
       0, CK_ERROR_PARSE, "bad.tsp:4: no DIMENSION before EOF"},
      {"no DIMENSION, no EOF", "NAME : t\nTYPE : TSP\n", 0, CK_ERROR_PARSE,
       "bad.tsp:2: no DIMENSION before the end of the file"},
      {"section before DIMENSION",
       "NAME : t\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n", 0,
       CK_ERROR_PARSE, "bad.tsp:3: NODE_COORD_SECTION before DIMENSION"},
      {"DIMENSION 2", "NAME : t\nTYPE : TSP\nDIMENSION : 2\n", 0,
       CK_ERROR_PARSE, "bad.tsp:3: DIMENSION 2 is outside 3..10000000"},
      {"DIMENSION too large", "DIMENSION : 10000001\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: DIMENSION 10000001 is outside"},
      {"DIMENSION overflowing", "\nDIMENSION: 99999999999999999999999\n", 0,
       CK_ERROR_PARSE, "bad.tsp:2: DIMENSION 99999999999999999999999"},
      {"DIMENSION not a number", "NAME : t\nDIMENSION : fifty\n", 0,
       CK_ERROR_PARSE, "bad.tsp:2: DIMENSION \"fifty\" is not a whole number"},
      {"DIMENSION with a fraction", "DIMENSION : 5.0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: DIMENSION \"5.0\""},
      {"DIMENSION twice", "DIMENSION : 5\nDIMENSION : 6\n", 0, CK_ERROR_PARSE,
       "bad.tsp:2: DIMENSION given twice (first on line 1)"},
      {"truncated nodes", HEAD3 "1 0 0\n2 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: truncated: the end of the file reached after 2 of the 3 "
       "nodes of NODE_COORD_SECTION (begun on line 5)"},
      {"nodes cut short by EOF", HEAD3 "1 0 0\nEOF\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: truncated NODE_COORD_SECTION: EOF after 1 of its 3 nodes"},
      {"nodes cut short by a section",
       HEAD3 "1 0 0\n2 1 1\nDISPLAY_DATA_SECTION\n", 0, CK_ERROR_PARSE,
       "bad.tsp:8: truncated NODE_COORD_SECTION: DISPLAY_DATA_SECTION after "
       "2 of its 3 nodes"},
      {"too many nodes", HEAD3 "1 0 0\n2 1 1\n3 2 2\n4 3 3\n", 0,
       CK_ERROR_PARSE, "bad.tsp:9: more data than NODE_COORD_SECTION holds"},
      {"non-numeric x", HEAD3 "1 0 0\n2 abc 1\n3 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: x coordinate \"abc\" of node 2 is not a number"},
      {"non-numeric y", HEAD3 "1 0 0\n2 1 1,5\n3 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: y coordinate \"1,5\" of node 2 is not a number"},
      {"nan", HEAD3 "1 nan 0\n2 1 1\n3 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: x coordinate \"nan\" of node 1 is not a number"},
      {"inf", HEAD3 "1 0 -inf\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: y coordinate \"-inf\""},
      {"hex", HEAD3 "1 0x10 0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: x coordinate \"0x10\""},
      {"overflowing coordinate", HEAD3 "1 0 0\n2 1e999 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: x coordinate 1e999 of node 2 is out of "
       "range"},
      {"huge coordinate", HEAD3 "1 0 0\n2 1 -6e8\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: y coordinate -6e8 of node 2 is out of range"},
      /* Beyond +-1.8e8 a distance can pass 2^29 - 1, and four of them an
       * int in the local search's gains (4.9e8 overflowed them). */
      {"coordinate past the limit", HEAD3 "1 0 0\n2 -4.9e8 1\n3 1 1\n", 0,
       CK_ERROR_PARSE,
       "bad.tsp:7: x coordinate -4.9e8 of node 2 is out of range (at most "
       "1.8e+08 in magnitude)"},
      {"coordinate just past the limit",
       HEAD3 "1 0 180000000.5\n2 0 0\n3 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: y coordinate 180000000.5 of node 1"},
      {"display data past the limit",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2 3\nDISPLAY_DATA_SECTION\n1 0 0\n2 2e8 0\n3 1 1\n",
       0, CK_ERROR_PARSE, "bad.tsp:10: x coordinate 2e8 of node 2"},
      {"a megabyte of digits", long_number ? long_number : "", 0,
       CK_ERROR_PARSE,
       long_number ? "bad.tsp:6: x coordinate 7777" : "bad.tsp:1"},
      {"extra field", HEAD3 "1 0 0\n2 1 1 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: extra field \"1\" after \"id x y\""},
      {"missing field", HEAD3 "1 0 0\n2 1\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: expected \"id x y\" in NODE_COORD_SECTION, found \"2 1\""},
      {"duplicate id", HEAD3 "1 0 0\n2 1 1\n2 2 2\n", 0, CK_ERROR_PARSE,
       "bad.tsp:8: node id 2 appears twice"},
      {"id 0", HEAD3 "0 0 0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: node id 0 is outside 1..3"},
      {"id above DIMENSION", HEAD3 "1 0 0\n4 0 0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:7: node id 4 is outside 1..3"},
      {"negative id", HEAD3 "-1 0 0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: node id -1 is outside"},
      {"fractional id", HEAD3 "1.5 0 0\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: node id \"1.5\" is not a whole number"},
      {"NUL byte", HEAD3 "1 0\0 0\n2 1 1\n3 2 2\n", sizeof(HEAD3) - 1 + 19,
       CK_ERROR_PARSE, "bad.tsp:6: the line contains a NUL byte"},
      {"unknown keyword", "NAME : t\nFOO : bar\n", 0, CK_ERROR_PARSE,
       "bad.tsp:2: unknown keyword \"FOO\""},
      {"keyword without colon", "NAME berlin\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: expected \"KEYWORD : value\", found \"NAME berlin\""},
      {"garbage", "\x01\x02\xff\xfe binary\n", 0, CK_ERROR_PARSE, "bad.tsp:1:"},
      {"data outside a section", "1 2 3\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: data \"1 2 3\" outside any section"},
      {"TYPE ATSP", "NAME : t\nTYPE : ATSP\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:2: TYPE ATSP is not supported"},
      {"TYPE HCP", "TYPE : HCP\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:1: TYPE HCP is not supported"},
      {"TYPE CVRP", "NAME : v\r\nTYPE : CVRP\r\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:2: TYPE CVRP"},
      {"TYPE TOUR", "NAME : x\nCOMMENT : c\nTYPE : TOUR\n", 0,
       CK_ERROR_UNSUPPORTED, "bad.tsp:3: TYPE TOUR"},
      {"EUC_3D", "DIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_3D\n", 0,
       CK_ERROR_UNSUPPORTED,
       "bad.tsp:2: EDGE_WEIGHT_TYPE EUC_3D is not "
       "supported"},
      {"MAN_2D", "EDGE_WEIGHT_TYPE : MAN_2D\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:1: EDGE_WEIGHT_TYPE MAN_2D"},
      {"MAX_2D", "EDGE_WEIGHT_TYPE: MAX_2D\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:1: EDGE_WEIGHT_TYPE MAX_2D"},
      {"XRAY1", "\n\nEDGE_WEIGHT_TYPE : XRAY1\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:3: EDGE_WEIGHT_TYPE XRAY1"},
      {"SPECIAL", "EDGE_WEIGHT_TYPE : SPECIAL\n", 0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:1: EDGE_WEIGHT_TYPE SPECIAL"},
      {"3D coordinates", "NODE_COORD_TYPE : THREED_COORDS\n", 0,
       CK_ERROR_UNSUPPORTED, "bad.tsp:1: NODE_COORD_TYPE THREED_COORDS"},
      {"fixed edges", HEAD3 "1 0 0\n2 1 1\n3 2 2\nFIXED_EDGES_SECTION\n", 0,
       CK_ERROR_UNSUPPORTED, "bad.tsp:9: FIXED_EDGES_SECTION is not supported"},
      {"no NODE_COORD_SECTION",
       "NAME : t\nTYPE : TSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EUC_2D\nEOF\n",
       0, CK_ERROR_PARSE, "bad.tsp:5: no NODE_COORD_SECTION before EOF"},
      {"no EDGE_WEIGHT_TYPE",
       "NAME : t\nDIMENSION : 3\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n3 2 2\n", 0,
       CK_ERROR_PARSE, "bad.tsp:6: no EDGE_WEIGHT_TYPE"},
      {"EXPLICIT without format", EXPLICIT3 "EDGE_WEIGHT_SECTION\n1 2 3\n", 0,
       CK_ERROR_PARSE,
       "bad.tsp:5: EDGE_WEIGHT_SECTION needs an "
       "EDGE_WEIGHT_FORMAT"},
      {"EXPLICIT without format or section", EXPLICIT3 "EOF\n", 0,
       CK_ERROR_PARSE, "bad.tsp:5: no EDGE_WEIGHT_FORMAT"},
      {"EXPLICIT without section",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEOF\n", 0, CK_ERROR_PARSE,
       "bad.tsp:6: no EDGE_WEIGHT_SECTION before EOF"},
      {"EXPLICIT too large",
       "NAME : t\nTYPE : TSP\nDIMENSION : 20001\n"
       "EDGE_WEIGHT_TYPE : EXPLICIT\n",
       0, CK_ERROR_UNSUPPORTED,
       "bad.tsp:4: EDGE_WEIGHT_TYPE EXPLICIT with "
       "DIMENSION 20001"},
      {"EXPLICIT too large, type first",
       "EDGE_WEIGHT_TYPE : EXPLICIT\nDIMENSION : 1000000\n", 0,
       CK_ERROR_UNSUPPORTED, "bad.tsp:2: EDGE_WEIGHT_TYPE EXPLICIT"},
      {"weights for a coordinate type",
       HEAD3 "1 0 0\n2 1 1\n3 2 2\nEDGE_WEIGHT_SECTION\n", 0, CK_ERROR_PARSE,
       "bad.tsp:9: EDGE_WEIGHT_SECTION needs EDGE_WEIGHT_TYPE : EXPLICIT"},
      {"LOWER_ROW", EXPLICIT3 "EDGE_WEIGHT_FORMAT : LOWER_ROW\n", 0,
       CK_ERROR_UNSUPPORTED, "bad.tsp:5: EDGE_WEIGHT_FORMAT LOWER_ROW"},
      {"negative weight",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2\n-5\n",
       0, CK_ERROR_PARSE, "bad.tsp:8: edge weight -5 is negative"},
      {"fractional weight",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2.5 3\n",
       0, CK_ERROR_PARSE, "bad.tsp:7: edge weight \"2.5\" is not a whole"},
      {"weight beyond 32 bits",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2 4294967296\n",
       0, CK_ERROR_PARSE, "bad.tsp:7: edge weight 4294967296 is out of range"},
      /* Weights past 2^29 - 1 off the diagonal, named by line, row and
       * column in each format (2147483647 crashed the ACO). */
      {"weight of 2^31 - 1",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "2147483647 2147483647\n2147483647\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:7: edge weight 2147483647 is out of range (at most "
       "536870911, so that sums of distances fit 32-bit integers): row 1, "
       "column 2"},
      {"UPPER_ROW weight past the limit",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 536870911\n536870912\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:8: edge weight 536870912 is out of range (at most "
       "536870911, so that sums of distances fit 32-bit integers): row 2, "
       "column 3"},
      {"FULL_MATRIX weight past the limit",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2\n1 0 600000000\n2 600000000 0\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:8: edge weight 600000000 is out of range (at most "
       "536870911, so that sums of distances fit 32-bit integers): row 2, "
       "column 3"},
      {"LOWER_DIAG_ROW weight past the limit",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n"
                 "0 1 0\n2 536870912 0\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:8: edge weight 536870912 is out of "
       "range (at most 536870911, so that sums of distances fit 32-bit "
       "integers): row 3, column 2"},
      {"UPPER_DIAG_ROW weight past the limit",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2 0\n999999999 0\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:8: edge weight 999999999 is out of "
       "range (at most 536870911, so that sums of distances fit 32-bit "
       "integers): row 2, column 3"},
      {"diagonal weight beyond 32 bits",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2147483648\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:7: edge weight 2147483648 is out of range (a 32-bit "
       "integer on the diagonal): row 2, column 2"},
      {"diagonal weight below 32 bits",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n"
                 "-2147483649 1 2\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:7: edge weight -2147483649 is out of range (a 32-bit "
       "integer on the diagonal): row 1, column 1"},
      /* clkit reads symmetric instances: the first entry below the
       * diagonal that differs from its mirror, by line, row and column. */
      {"asymmetric FULL_MATRIX",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2\n1 0 3\n2 4 0\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:9: edge weight 4 at row 3, column 2 differs from 3 at row "
       "2, column 3: clkit reads symmetric instances only"},
      {"asymmetric FULL_MATRIX, first row",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2 5 0\n3 2 4 0\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:7: edge weight 5 at row 2, column 1 differs from 1 at row "
       "1, column 2"},
      {"extra weight",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2 3 4\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:7: extra value \"4\": EDGE_WEIGHT_FORMAT "
       "UPPER_ROW with DIMENSION 3 has 3 values"},
      {"extra weight line",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
                 "1 2 3\n4\nEOF\n",
       0, CK_ERROR_PARSE, "bad.tsp:8: more data than EDGE_WEIGHT_SECTION"},
      {"truncated weights",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n"
                 "0 1 2\n1 0 3\n2 3\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:9: truncated: the end of the file reached "
       "after 8 of the 9 values"},
      {"weights cut short by EOF",
       EXPLICIT3 "EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW\nEDGE_WEIGHT_SECTION\n"
                 "0 1 0\nEOF\n",
       0, CK_ERROR_PARSE,
       "bad.tsp:8: truncated EDGE_WEIGHT_SECTION: EOF "
       "after 3 of its 6 values"},
      {"section twice", HEAD3 "1 0 0\n2 1 1\n3 2 2\nNODE_COORD_SECTION\n", 0,
       CK_ERROR_PARSE,
       "bad.tsp:9: NODE_COORD_SECTION given twice (first on line 5)"},
      {"section with a value", "DIMENSION : 3\nNODE_COORD_SECTION : 5\n", 0,
       CK_ERROR_PARSE, "bad.tsp:2: NODE_COORD_SECTION takes no value"},
      {"TYPE without a value", "TYPE :\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: TYPE has no value"},
      {"NAME with a tab", "NAME : a\tb\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME holds a control character"},
      {"NAME not UTF-8", "NAME : a\xff\xfe\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME is not UTF-8 text"},
      {"NAME with an overlong form", "NAME : \xc0\xaf\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME is not UTF-8 text"},
      {"NAME with a surrogate", "NAME : \xed\xa0\x80\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME is not UTF-8 text"},
      {"NAME past U+10FFFF", "NAME : \xf4\x90\x80\x80\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME is not UTF-8 text"},
      {"NAME cut inside a character", "NAME : ab\xe2\x82\n", 0, CK_ERROR_PARSE,
       "bad.tsp:1: NAME is not UTF-8 text"},
      {"bad DISPLAY_DATA_TYPE", "DISPLAY_DATA_TYPE : PRETTY\n", 0,
       CK_ERROR_PARSE, "bad.tsp:1: unknown DISPLAY_DATA_TYPE \"PRETTY\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    expect_parse_failure(&cases[i]);
  CHECK(sizeof cases / sizeof cases[0] >= 20);

  /* ck_tsp_load reports the same through the file name. */
  char path[1024];
  test_path_in(work_dir, "bad.tsp", path, sizeof path);
  CHECK(write_text(path, HEAD3 "1 0 0\n2 1 1\n2 2 2\n") == 0);
  ck_tsp_instance instance;
  const char *message = "";
  CHECK(ck_tsp_load(path, &instance) == CK_ERROR_PARSE);
  ck_error_get_last(&message);
  char needle[1100];
  snprintf(needle, sizeof needle, "%s:8: node id 2 appears twice", path);
  CHECK_MSG(strstr(message, needle) != NULL, "\"%s\" lacks \"%s\"", message,
            needle);
  free(long_number);
}

/* A small deterministic generator for the fuzzing and random instances. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void) {
  uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Parses every prefix of text, and copies with bytes changed: each must
 * give a status (and, when it succeeds, a usable instance). */
static void fuzz_text(const char *label, const char *text, size_t size) {
  size_t ok = 0;
  for (size_t cut = 0; cut <= size; ++cut) {
    ck_tsp_instance instance;
    ck_status status = ck_tsp_parse(text, cut, "cut.tsp", &instance);
    if (status == CK_OK) {
      int64_t distance = -1;
      CHECK_OK(
          ck_tsp_get_distance(&instance, 0, instance.cities - 1, &distance));
      CHECK(distance >= 0);
      ++ok;
    } else {
      CHECK_MSG(status == CK_ERROR_PARSE || status == CK_ERROR_UNSUPPORTED,
                "%s cut at %zu: status %d", label, cut, (int)status);
      CHECK_MSG(instance_is_zeroed(&instance), "%s cut at %zu", label, cut);
    }
    ck_tsp_free(&instance);
  }
  /* The whole text parses; a few cuts near the end do too (a missing EOF,
   * or the last line's final digits cut to another valid number). */
  CHECK_MSG(ok >= 1, "%s: no prefix parsed", label);
  char *copy = malloc(size + 1);
  if (!copy)
    return;
  static const char garbage[] = "\0\n\r :-+.eE9x\xff";
  for (int round = 0; round < 3000; ++round) {
    memcpy(copy, text, size);
    int changes = 1 + (int)(next_random() % 4);
    for (int c = 0; c < changes; ++c)
      copy[next_random() % size] =
          garbage[next_random() % (sizeof garbage - 1)];
    ck_tsp_instance instance;
    ck_status status = ck_tsp_parse(copy, size, "fuzz.tsp", &instance);
    if (status == CK_OK) {
      int64_t length = 0;
      uint32_t *tour = malloc(instance.cities * sizeof *tour);
      for (uint32_t i = 0; tour && i < instance.cities; ++i)
        tour[i] = i;
      if (tour)
        CHECK_OK(ck_tsp_tour_measure(&instance, tour, &length));
      free(tour);
    }
    ck_tsp_free(&instance);
  }
  free(copy);
}

static void test_fuzz(void) {
  static const char coords[] =
      "NAME : f\r\nTYPE : TSP\r\nCOMMENT : c\r\nDIMENSION : 5\r\n"
      "EDGE_WEIGHT_TYPE : ATT\r\nNODE_COORD_SECTION\r\n1 1.5E+02 -3\r\n"
      "3 7 8\r\n2 0 0\r\n5 10 10\r\n4 99 1\r\nEOF\r\n";
  static const char matrix[] =
      "NAME: m\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EXPLICIT\n"
      "EDGE_WEIGHT_FORMAT: LOWER_DIAG_ROW\nDISPLAY_DATA_TYPE: TWOD_DISPLAY\n"
      "EDGE_WEIGHT_SECTION\n0 12 0\n27 45 0 31\n58 66 0\n"
      "DISPLAY_DATA_SECTION\n1 0 0\n2 1 1\n3 2 2\n4 3 3\nEOF\n";
  fuzz_text("coordinates", coords, sizeof coords - 1);
  fuzz_text("matrix", matrix, sizeof matrix - 1);
  char path[1024];
  data_path("berlin52.tsp", path, sizeof path);
  size_t size = 0;
  char *berlin = test_read_file(path, &size);
  CHECK(berlin != NULL);
  if (berlin)
    fuzz_text("berlin52", berlin, size);
  free(berlin);
}

/* ---- (d) candidates ------------------------------------------------------
 */

typedef struct pair_key {
  int64_t distance;
  uint32_t index;
} pair_key;

static int compare_pairs(const void *a, const void *b) {
  const pair_key *p = a, *q = b;
  if (p->distance != q->distance)
    return p->distance < q->distance ? -1 : 1;
  return p->index < q->index ? -1 : p->index > q->index;
}

/* The k nearest of city i by brute force. */
static void brute_force_row(const ck_tsp_instance *instance, uint32_t i,
                            uint32_t k, pair_key *scratch, uint32_t *out) {
  uint32_t count = 0;
  for (uint32_t j = 0; j < instance->cities; ++j)
    if (j != i) {
      scratch[count].index = j;
      ck_tsp_get_distance(instance, i, j, &scratch[count].distance);
      ++count;
    }
  qsort(scratch, count, sizeof *scratch, compare_pairs);
  for (uint32_t t = 0; t < k; ++t)
    out[t] = scratch[t].index;
}

/* Candidates against brute force for the rows listed (all when rows is
 * NULL). */
static void check_candidates(const char *label, const ck_tsp_instance *instance,
                             uint32_t k, const uint32_t *rows,
                             uint32_t row_count) {
  uint32_t n = instance->cities;
  uint32_t *got = malloc((size_t)n * k * sizeof *got);
  uint32_t *want = malloc((size_t)k * sizeof *want);
  pair_key *scratch = malloc((size_t)n * sizeof *scratch);
  CHECK(got && want && scratch);
  if (got && want && scratch) {
    CHECK_OK(ck_tsp_find_candidates(instance, k, got));
    uint32_t count = rows ? row_count : n;
    int reported = 0;
    for (uint32_t r = 0; r < count; ++r) {
      uint32_t i = rows ? rows[r] : r;
      brute_force_row(instance, i, k, scratch, want);
      if (memcmp(got + (size_t)i * k, want, k * sizeof *want) != 0 &&
          reported++ < 3) {
        uint32_t t = 0;
        while (got[(size_t)i * k + t] == want[t])
          ++t;
        CHECK_MSG(0,
                  "%s, k %" PRIu32 ": city %" PRIu32 ", entry %" PRIu32
                  ": %" PRIu32 ", brute force %" PRIu32,
                  label, k, i, t, got[(size_t)i * k + t], want[t]);
      }
    }
    CHECK_MSG(reported == 0, "%s, k %" PRIu32 ": %d rows differ", label, k,
              reported);
  }
  free(got);
  free(want);
  free(scratch);
}

/* An instance of n cities with coordinates from make(). */
static int make_instance(ck_tsp_instance *instance, ck_tsp_metric metric,
                         uint32_t n) {
  memset(instance, 0, sizeof *instance);
  instance->cities = n;
  instance->metric = metric;
  instance->x = malloc(n * sizeof(double));
  instance->y = malloc(n * sizeof(double));
  snprintf(instance->name, sizeof instance->name, "random%" PRIu32, n);
  return instance->x && instance->y;
}

static double uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)(next_random() >> 11) * 0x1p-53;
}

static void test_candidates_random(void) {
  static const ck_tsp_metric metrics[] = {CK_TSP_EUC_2D, CK_TSP_CEIL_2D,
                                          CK_TSP_ATT, CK_TSP_GEO};
  static const char *const metric_label[] = {"EUC_2D", "CEIL_2D", "ATT", "GEO"};
  /* Layouts: integer points on a small square (duplicates and many ties
   * after rounding), real points, points on a line, one point repeated,
   * two tight clusters far apart, a small patch far from the origin
   * (where the grid's arithmetic rounds most). */
  enum { SMALL_GRID, REAL, LINE, SAME, CLUSTERS, FAR, LAYOUTS };
  static const char *const layout_label[] = {
      "small integer grid", "real", "line", "one point", "clusters", "far"};
  for (int m = 0; m < 4; ++m)
    for (int layout = 0; layout < LAYOUTS; ++layout) {
      uint32_t n = layout == SAME ? 40 : 400;
      ck_tsp_instance instance;
      if (!make_instance(&instance, metrics[m], n)) {
        CHECK(0);
        ck_tsp_free(&instance);
        continue;
      }
      for (uint32_t i = 0; i < n; ++i) {
        double x = 0, y = 0;
        switch (layout) {
        case SMALL_GRID:
          x = (double)(next_random() % 12);
          y = (double)(next_random() % 12);
          break;
        case REAL:
          x = uniform(-50, 50);
          y = uniform(-50, 50);
          break;
        case LINE:
          x = (double)(next_random() % 60) * 0.5;
          y = 7.25;
          break;
        case SAME:
          x = 3.5;
          y = -1.25;
          break;
        case CLUSTERS:
          x = (i % 2 ? 40.0 : -40.0) + uniform(0, 2);
          y = uniform(0, 3);
          break;
        default:
          x = CK_TSP_MAX_COORDINATE - uniform(0, 30);
          y = -CK_TSP_MAX_COORDINATE + (double)(next_random() % 20);
          break;
        }
        if (metrics[m] == CK_TSP_GEO) {
          /* DDD.MM with minutes below 60. */
          x = (double)((int)x % 80) + (double)(next_random() % 60) / 100.0;
          y = (double)((int)y * 3 % 170) + (double)(next_random() % 60) / 100.0;
        }
        instance.x[i] = x;
        instance.y[i] = y;
      }
      char label[128];
      snprintf(label, sizeof label, "%s %s", metric_label[m],
               layout_label[layout]);
      static const uint32_t ks[] = {1, 5, 16};
      for (size_t t = 0; t < 3; ++t)
        check_candidates(label, &instance, ks[t], NULL, 0);
      check_candidates(label, &instance, n - 1, NULL, 0);
      ck_tsp_free(&instance);
    }
}

/* Hand-made instances whose distances cannot be computed: the candidate
 * lists, a tour's length and one distance refuse each alike, naming the
 * fault, through one check. */
static void test_unusable_instances(void) {
  double x[4] = {0, 1, 2, 3}, y[4] = {0, 1, 2, 3};
  double far_x[4] = {0, 1, 2e8, 3}, nan_y[4] = {0, NAN, 2, 3};
  uint32_t tour[4] = {0, 1, 2, 3}, neighbours[4 * 2];
  const struct {
    const char *label;
    ck_tsp_instance instance;
    const char *needle;
  } cases[] = {
      {"a coordinate past the limit",
       {"far", "", 4, CK_TSP_EUC_2D, far_x, y, NULL},
       "city 2 has coordinates (2e+08, 2) beyond"},
      {"a NaN coordinate",
       {"nan", "", 4, CK_TSP_ATT, x, nan_y, NULL},
       "city 1 has coordinates"},
      {"no coordinates",
       {"bare", "", 4, CK_TSP_CEIL_2D, NULL, NULL, NULL},
       "without coordinates"},
      {"EXPLICIT without a matrix",
       {"bare", "", 4, CK_TSP_EXPLICIT, x, y, NULL},
       "without its matrix"},
      {"an unknown metric",
       {"odd", "", 4, (ck_tsp_metric)99, x, y, NULL},
       "unknown metric 99"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const ck_tsp_instance *instance = &cases[c].instance;
    static const char *const functions[] = {
        "ck_tsp_find_candidates", "ck_tsp_tour_measure", "ck_tsp_get_distance"};
    for (size_t f = 0; f < 3; ++f) {
      int64_t length = -1;
      const char *message = "";
      ck_error_clear();
      ck_status status =
          f == 0   ? ck_tsp_find_candidates(instance, 2, neighbours)
          : f == 1 ? ck_tsp_tour_measure(instance, tour, &length)
                   : ck_tsp_get_distance(instance, 1, 2, &length);
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && length == -1,
                "%s: %s gave %d", cases[c].label, functions[f], (int)status);
      CHECK_MSG(strstr(message, functions[f]) == message &&
                    strstr(message, cases[c].needle) != NULL,
                "%s: %s said \"%s\"", cases[c].label, functions[f], message);
    }
  }
}

static void test_candidates_instances(void) {
  char path[1024];
  data_path("eil51.tsp", path, sizeof path);
  ck_tsp_instance instance;
  CHECK_OK(ck_tsp_load(path, &instance));
  if (instance.cities == 51) {
    check_candidates("eil51", &instance, 1, NULL, 0);
    check_candidates("eil51", &instance, 8, NULL, 0);
    check_candidates("eil51", &instance, 50, NULL, 0);
    uint32_t neighbours[51 * 2];
    CHECK(ck_tsp_find_candidates(&instance, 0, neighbours) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK(ck_tsp_find_candidates(&instance, 51, neighbours) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK_INVALID(ck_tsp_find_candidates(&instance, 2, NULL),
                  "ck_tsp_find_candidates: neighbours is NULL");
    CHECK_INVALID(ck_tsp_find_candidates(NULL, 2, neighbours),
                  "ck_tsp_find_candidates: instance is NULL");
  }
  ck_tsp_free(&instance);
  data_path("a280.tsp", path, sizeof path);
  CHECK_OK(ck_tsp_load(path, &instance));
  if (instance.cities == 280)
    check_candidates("a280", &instance, 10, NULL, 0);
  ck_tsp_free(&instance);

  /* EXPLICIT: ties broken by index. */
  static const char explicit_text[] =
      "NAME : m\nTYPE : TSP\nDIMENSION : 5\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
      "EDGE_WEIGHT_FORMAT : UPPER_ROW\nEDGE_WEIGHT_SECTION\n"
      "3 3 1 3\n2 2 2\n5 1\n3\n";
  if (parse_ok("EXPLICIT candidates", explicit_text, &instance)) {
    check_candidates("EXPLICIT", &instance, 1, NULL, 0);
    check_candidates("EXPLICIT", &instance, 3, NULL, 0);
    check_candidates("EXPLICIT", &instance, 4, NULL, 0);
    uint32_t neighbours[5 * 4];
    CHECK_OK(ck_tsp_find_candidates(&instance, 4, neighbours));
    /* City 1: d = 3 3 1 3 to cities 2..5 -> 4, then 1, 2, 4. */
    CHECK(neighbours[0] == 3 && neighbours[1] == 1 && neighbours[2] == 2 &&
          neighbours[3] == 4);
    ck_tsp_free(&instance);
  }

  /* A large instance: fast, and equal to brute force on sampled rows. */
  uint32_t n = 100000, k = 32;
  if (make_instance(&instance, CK_TSP_EUC_2D, n)) {
    for (uint32_t i = 0; i < n; ++i) {
      instance.x[i] = (double)(next_random() % 100000);
      instance.y[i] = (double)(next_random() % 100000);
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint32_t *neighbours = malloc((size_t)n * k * sizeof *neighbours);
    CHECK(neighbours != NULL);
    if (neighbours)
      CHECK_OK(ck_tsp_find_candidates(&instance, k, neighbours));
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) +
                     1e-9 * (double)(end.tv_nsec - start.tv_nsec);
    printf("candidates: n %" PRIu32 ", k %" PRIu32 ": %.3f s\n", n, k, seconds);
    free(neighbours);
    uint32_t rows[64];
    for (int r = 0; r < 64; ++r)
      rows[r] = (uint32_t)(next_random() % n);
    check_candidates("100000 random cities", &instance, k, rows, 64);
  }
  ck_tsp_free(&instance);
}

/* ---- (e) tour files ------------------------------------------------------
 */

static void expect_tour_failure(const char *label, const char *text,
                                uint32_t cities, const char *needle) {
  char path[1024];
  test_path_in(work_dir, "bad.tour", path, sizeof path);
  CHECK(write_text(path, text) == 0);
  uint32_t *tour = (uint32_t *)&tour;
  const char *message = "";
  ck_status status = ck_tsp_tour_load(path, cities, &tour);
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_PARSE, "%s: status %d (%s)", label, (int)status,
            message);
  char full[1200];
  snprintf(full, sizeof full, "%s:%s", path, needle);
  CHECK_MSG(strstr(message, full) != NULL, "%s: \"%s\" lacks \"%s\"", label,
            message, full);
  CHECK_MSG(tour == NULL, "%s: tour not NULL after a failure", label);
}

static void test_tours(void) {
  char path[1024], tour_path[1024], out[1024];
  data_path("berlin52.tsp", path, sizeof path);
  data_path("tours/berlin52.opt.tour", tour_path, sizeof tour_path);
  test_path_in(work_dir, "berlin52.tour", out, sizeof out);
  ck_tsp_instance instance;
  uint32_t *tour = NULL, *again = NULL;
  int64_t length = 0, length_again = 0;
  CHECK_OK(ck_tsp_load(path, &instance));
  CHECK_OK(ck_tsp_tour_load(tour_path, instance.cities, &tour));
  if (tour) {
    CHECK_OK(ck_tsp_tour_measure(&instance, tour, &length));
    CHECK(length == 7542);
    CHECK_OK(
        ck_tsp_tour_save(out, instance.name, tour, instance.cities, length));
    CHECK_OK(ck_tsp_tour_load(out, instance.cities, &again));
    if (again) {
      CHECK(memcmp(tour, again, instance.cities * sizeof *tour) == 0);
      CHECK_OK(ck_tsp_tour_measure(&instance, again, &length_again));
      CHECK(length_again == 7542);
    }
    static const char expected_head[] =
        "NAME : berlin52.tour\nCOMMENT : Length 7542\nTYPE : TOUR\n"
        "DIMENSION : 52\nTOUR_SECTION\n1\n49\n";
    char *text = test_read_file(out, NULL);
    CHECK(text && strncmp(text, expected_head, sizeof expected_head - 1) == 0);
    CHECK(text && strlen(text) > 7 &&
          strcmp(text + strlen(text) - 7, "-1\nEOF\n") == 0);
    free(text);
    /* No temporary file left beside it. */
    int hidden = 0;
    DIR *dir = opendir(work_dir);
    struct dirent *entry;
    while (dir && (entry = readdir(dir)) != NULL)
      hidden += entry->d_name[0] == '.' && strcmp(entry->d_name, ".") != 0 &&
                strcmp(entry->d_name, "..") != 0;
    if (dir)
      closedir(dir);
    CHECK(hidden == 0);
    /* Saving refuses what could not be read back. */
    uint32_t saved = tour[5];
    tour[5] = tour[6];
    CHECK(ck_tsp_tour_save(out, "x", tour, instance.cities, 0) ==
          CK_ERROR_INVALID_ARGUMENT);
    tour[5] = saved;
    CHECK(ck_tsp_tour_save(out, "two\nlines", tour, instance.cities, 0) ==
          CK_ERROR_INVALID_ARGUMENT);
    CHECK_INVALID(ck_tsp_tour_save(NULL, "x", tour, instance.cities, 0),
                  "ck_tsp_tour_save: path is NULL");
    CHECK_INVALID(ck_tsp_tour_save(out, NULL, tour, instance.cities, 0),
                  "ck_tsp_tour_save: name is NULL");
    CHECK_INVALID(ck_tsp_tour_save(out, "x", NULL, instance.cities, 0),
                  "ck_tsp_tour_save: tour is NULL");
    /* Fewer cities than a tour file may hold, as ck_tsp_tour_load reads. */
    CHECK_INVALID(ck_tsp_tour_save(out, "x", tour, 2, 0),
                  "ck_tsp_tour_save: cities is 2");
    char directory_name[1100];
    snprintf(directory_name, sizeof directory_name, "%s/", work_dir);
    CHECK_INVALID(
        ck_tsp_tour_save(directory_name, "x", tour, instance.cities, 0),
        "names a directory");
    char no_dir[1100];
    snprintf(no_dir, sizeof no_dir, "%s/no/such/dir/x.tour", work_dir);
    CHECK(ck_tsp_tour_save(no_dir, "x", tour, instance.cities, 0) ==
          CK_ERROR_IO);
  }
  free(tour);
  free(again);
  ck_tsp_free(&instance);

  /* Several ids a line, -1 on the last one, no EOF. */
  char good[1024];
  test_path_in(work_dir, "good.tour", good, sizeof good);
  CHECK(write_text(good, "NAME : g\nTYPE : TOUR\nTOUR_SECTION\n3 1\n"
                         "2 4 -1\n") == 0);
  tour = NULL;
  CHECK_OK(ck_tsp_tour_load(good, 4, &tour));
  CHECK(tour && tour[0] == 2 && tour[1] == 0 && tour[2] == 1 && tour[3] == 3);
  free(tour);
  /* EOF without -1, then the closing -1 of the section and EOF. */
  CHECK(write_text(good, "TOUR_SECTION\r\n1\r\n2\r\n3\r\nEOF\r\n") == 0);
  tour = NULL;
  CHECK_OK(ck_tsp_tour_load(good, 3, &tour));
  free(tour);
  CHECK(write_text(good, "TOUR_SECTION\n1 2 3 -1\n-1\nEOF\n") == 0);
  tour = NULL;
  CHECK_OK(ck_tsp_tour_load(good, 3, &tour));
  free(tour);

  static const char head[] = "NAME : t.tour\nTYPE : TOUR\nDIMENSION : 4\n"
                             "TOUR_SECTION\n";
  char text[512];
  snprintf(text, sizeof text, "%s1\n2\n2\n4\n-1\nEOF\n", head);
  expect_tour_failure("repeated id", text, 4,
                      "7: city id 2 is repeated (it is already city 2");
  snprintf(text, sizeof text, "%s1\n0\n2\n3\n-1\n", head);
  expect_tour_failure("id 0", text, 4, "6: city id 0 is outside 1..4");
  snprintf(text, sizeof text, "%s1 2 3\n5\n-1\n", head);
  expect_tour_failure("id above n", text, 4, "6: city id 5 is outside 1..4");
  snprintf(text, sizeof text, "%s1\n2\n3\n-1\nEOF\n", head);
  expect_tour_failure("too few", text, 4,
                      "9: the tour ends after 3 of 4 cities");
  snprintf(text, sizeof text, "%s1\n2\n3\n", head);
  expect_tour_failure("too few, no end", text, 4,
                      "7: the tour ends after 3 of 4 cities");
  snprintf(text, sizeof text, "%s1 2 3 4 1\n-1\n", head);
  expect_tour_failure("too many", text, 4,
                      "5: more than 4 cities in TOUR_SECTION");
  snprintf(text, sizeof text, "%s1 2 x 4\n-1\n", head);
  expect_tour_failure("not a number", text, 4,
                      "5: tour entry \"x\" is not a whole number");
  snprintf(text, sizeof text, "%s1 2 3 4\n-1\n5 6\n", head);
  expect_tour_failure("a second tour", text, 4,
                      "7: \"5\" after the tour's closing -1");
  expect_tour_failure("DIMENSION mismatch", head, 5,
                      "3: DIMENSION 4 does not match the instance's 5 cities");
  expect_tour_failure("TYPE TSP", "NAME : x\nTYPE : TSP\n", 4,
                      "2: TYPE \"TSP\" where a tour file has TYPE : TOUR");
  expect_tour_failure("no TOUR_SECTION", "NAME : x\nTYPE : TOUR\nEOF\n", 4,
                      "3: no TOUR_SECTION");
  expect_tour_failure("empty", "", 4, "1: no TOUR_SECTION");
  expect_tour_failure("unknown keyword", "NAME : x\nCOLOUR : red\n", 4,
                      "2: unknown keyword \"COLOUR\"");

  tour = NULL;
  CHECK(ck_tsp_tour_load(good, 2, &tour) == CK_ERROR_INVALID_ARGUMENT);
  CHECK_INVALID(ck_tsp_tour_load(NULL, 3, &tour),
                "ck_tsp_tour_load: path is NULL");
  CHECK_INVALID(ck_tsp_tour_load(good, 3, NULL),
                "ck_tsp_tour_load: tour is NULL");
  test_path_in(work_dir, "missing.tour", path, sizeof path);
  CHECK(ck_tsp_tour_load(path, 3, &tour) == CK_ERROR_IO);
  CHECK(tour == NULL);
}

/* ---- (f) tour lengths ----------------------------------------------------
 */

static void test_tour_length(void) {
  static const char square[] =
      "NAME : sq\nTYPE : TSP\nDIMENSION : 4\nEDGE_WEIGHT_TYPE : EUC_2D\n"
      "NODE_COORD_SECTION\n1 0 0\n2 10 0\n3 10 10\n4 0 10\nEOF\n";
  ck_tsp_instance instance;
  if (!parse_ok("square", square, &instance))
    return;
  int64_t length = 0;
  const char *message = "";
  uint32_t around[] = {0, 1, 2, 3}, across[] = {0, 2, 1, 3};
  CHECK_OK(ck_tsp_tour_measure(&instance, around, &length));
  CHECK(length == 40);
  CHECK_OK(ck_tsp_tour_measure(&instance, across, &length));
  CHECK(length == 10 + 14 + 14 + 10);
  uint32_t repeated[] = {0, 1, 2, 1};
  CHECK(ck_tsp_tour_measure(&instance, repeated, &length) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "tour[3] = 1 repeats tour[1]") != NULL, "%s",
            message);
  uint32_t outside[] = {0, 1, 4, 3};
  CHECK(ck_tsp_tour_measure(&instance, outside, &length) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "tour[2] = 4 is outside 0..3") != NULL, "%s",
            message);
  uint32_t huge[] = {0, 1, UINT32_MAX, 3};
  CHECK(ck_tsp_tour_measure(&instance, huge, &length) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK_INVALID(ck_tsp_tour_measure(&instance, NULL, &length),
                "ck_tsp_tour_measure: tour is NULL");
  CHECK_INVALID(ck_tsp_tour_measure(&instance, around, NULL),
                "ck_tsp_tour_measure: length is NULL");
  CHECK_INVALID(ck_tsp_tour_measure(NULL, around, &length),
                "ck_tsp_tour_measure: instance is NULL");
  ck_tsp_free(&instance);
  /* A long tour's length needs 64 bits: 8 edges of 3e8. */
  static const char far[] =
      "NAME : far\nTYPE : TSP\nDIMENSION : 8\nEDGE_WEIGHT_TYPE : CEIL_2D\n"
      "NODE_COORD_SECTION\n1 -1.5e8 0\n2 1.5e8 0\n3 -1.5e8 0\n4 1.5e8 0\n"
      "5 -1.5e8 0\n6 1.5e8 0\n7 -1.5e8 0\n8 1.5e8 0\n";
  uint32_t zigzag[] = {0, 1, 2, 3, 4, 5, 6, 7};
  if (parse_ok("far", far, &instance)) {
    CHECK_OK(ck_tsp_tour_measure(&instance, zigzag, &length));
    CHECK(length == INT64_C(2400000000));
    ck_tsp_free(&instance);
  }
}

/* ---- (g) the optima list -------------------------------------------------
 */

/* The warnings of an optima lookup: how many, and the last. */
typedef struct warnings {
  int count;
  char last[2048];
} warnings;

static void note_warning(void *user, const char *line) {
  warnings *seen = user;
  seen->count += 1;
  snprintf(seen->last, sizeof seen->last, "%s", line);
}

static void test_optima(void) {
  char path[1024];
  int64_t optimum = -1;
  const char *message = "";
  data_path("optima.txt", path, sizeof path);
  CHECK_OK(ck_tsp_optimum_find(path, "berlin52", NULL, NULL, NULL, &optimum));
  CHECK(optimum == 7542);
  CHECK_OK(ck_tsp_optimum_find(path, "pla33810", NULL, NULL, NULL, &optimum));
  CHECK(optimum == 66048945);
  optimum = -1;
  CHECK(ck_tsp_optimum_find(path, "berlin5", NULL, NULL, NULL, &optimum) ==
        CK_ERROR_NOT_FOUND);
  CHECK(optimum == -1);

  /* Each case: the file, the instance's NAME and file, and what the
   * lookup gives: the optimum, or the error's text after the optima
   * file's path; and the warning's text after its path, if any. */
  static const struct {
    const char *text, *name, *file;
    ck_status status;
    int64_t optimum;
    const char *message, *warning;
  } cases[] = {
      /* Good files. */
      {"a280 : 2579\n", "a280", NULL, CK_OK, 2579, NULL, NULL},
      {"# known optima\n\n  # indented comment\r\na280 : 2579\r\nmy inst:12\n",
       "my inst", NULL, CK_OK, 12, NULL, NULL},
      {"a280 : 2579\na280 : +2579\n", "a280", NULL, CK_OK, 2579, NULL, NULL},
      {"", "a280", NULL, CK_ERROR_NOT_FOUND, 0, " does not list \"a280\"",
       NULL},
      {"# none\n", "a280", "d/a280.tsp", CK_ERROR_NOT_FOUND, 0,
       " does not list \"a280\"", NULL},
      /* The names an instance goes by: NAME, NAME without .tsp, the
       * file's base name without .tsp; the first listed wins. */
      {"x : 10\n", "x.tsp", NULL, CK_OK, 10, NULL, NULL},
      {"x : 10\n", "x.TSP", NULL, CK_OK, 10, NULL, NULL},
      {"x : 10\nx.tsp : 11\n", "x.tsp", NULL, CK_OK, 11, NULL, NULL},
      {"bar : 7\n", "foo", "dir/bar.tsp", CK_OK, 7, NULL, NULL},
      {"bar : 7\n", "foo", "bar", CK_OK, 7, NULL, NULL},
      {"bar : 7\nfoo : 8\n", "foo", "dir/bar.tsp", CK_OK, 8, NULL, NULL},
      {"x.tsp : 9\n", "x", "x.tsp", CK_ERROR_NOT_FOUND, 0,
       " does not list \"x\"", NULL},
      {"z : 1\n", "x.tsp", "d/y.tsp", CK_ERROR_NOT_FOUND, 0,
       " lists none of \"x.tsp\", \"x\" and \"y\"", NULL},
      {"berlin5 : 3\nberlin52x : 4\n", "berlin52", NULL, CK_ERROR_NOT_FOUND, 0,
       " does not list \"berlin52\"", NULL},
      /* A malformed line that names another instance: skipped, with one
       * warning naming it. */
      {"pla : 18660188 (CEIL_2D)\na280 : 2579\n", "a280", NULL, CK_OK, 2579,
       NULL,
       ":1: the optimum of pla, \"18660188 (CEIL_2D)\", is not a whole number "
       ">= 1; the line is skipped"},
      {"a280 : 2579\nberlin52 7542\n", "a280", NULL, CK_OK, 2579, NULL,
       ":2: expected \"name : optimum\", found \"berlin52 7542\"; the line "
       "is skipped"},
      {"a280 : 2579\n\nx : 12.5\n", "a280", NULL, CK_OK, 2579, NULL,
       ":3: the optimum of x, \"12.5\""},
      {" : 5\na280 : 1\n", "a280", NULL, CK_OK, 1, NULL,
       ":1: expected \"name : optimum\""},
      {"berlin5 7542\nberlin52x 7\na280 : 1\n", "berlin52", NULL,
       CK_ERROR_NOT_FOUND, 0, " does not list \"berlin52\"",
       ":1: expected \"name : optimum\", found \"berlin5 7542\"; the line is "
       "skipped, and 1 other malformed line too"},
      {"p : 1 (x)\nq 2\na280 : 5\nr : \n", "a280", NULL, CK_OK, 5, NULL,
       ":1: the optimum of p, \"1 (x)\", is not a whole number >= 1; the "
       "line is skipped, and 2 other malformed lines too"},
      {"p : 1 (x)\n", "a280", "a280.tsp", CK_ERROR_NOT_FOUND, 0,
       " does not list \"a280\"", ":1: the optimum of p"},
      /* Another name listed twice with two optima is not checked. */
      {"b : 1\nb : 2\na280 : 5\n", "a280", NULL, CK_OK, 5, NULL, NULL},
      /* A malformed line that names the instance, by any of its names. */
      {"pla : 18660188 (CEIL_2D)\na280 : 2579\n", "pla", NULL, CK_ERROR_PARSE,
       0,
       ":1: the optimum of pla, \"18660188 (CEIL_2D)\", is not a whole "
       "number >= 1",
       NULL},
      {"a280 : 2579\nberlin52 7542\n", "berlin52", NULL, CK_ERROR_PARSE, 0,
       ":2: expected \"name : optimum\", found \"berlin52 7542\"", NULL},
      {"a280 : 2579\nberlin52\n", "berlin52", NULL, CK_ERROR_PARSE, 0,
       ":2: expected \"name : optimum\", found \"berlin52\"", NULL},
      {"a280 : 2579\n\nx : 12.5\n", "x", NULL, CK_ERROR_PARSE, 0,
       ":3: the optimum of x, \"12.5\"", NULL},
      {"a280 : \n", "a280", NULL, CK_ERROR_PARSE, 0, ":1: the optimum of a280",
       NULL},
      {"a280 : -3\n", "a280", NULL, CK_ERROR_PARSE, 0,
       ":1: the optimum of a280, \"-3\"", NULL},
      {"a280 : 0\n", "a280", NULL, CK_ERROR_PARSE, 0,
       ":1: the optimum of a280, \"0\", is not a whole number >= 1", NULL},
      {"a280 : 99999999999999999999\n", "a280", NULL, CK_ERROR_PARSE, 0,
       ":1: the optimum of a280, \"99999999999999999999\"", NULL},
      {"a280 : 2579\na280 : 2579 (EUC_2D)\n", "a280", NULL, CK_ERROR_PARSE, 0,
       ":2: the optimum of a280, \"2579 (EUC_2D)\"", NULL},
      {"x : 5 (note)\nx.tsp : 5\n", "x.tsp", NULL, CK_ERROR_PARSE, 0,
       ":1: the optimum of x, \"5 (note)\"", NULL},
      {"bar 7\nfoo : 8\n", "foo", "d/bar.tsp", CK_ERROR_PARSE, 0,
       ":1: expected \"name : optimum\", found \"bar 7\"", NULL},
      {"a280 : 2579\na280 : 2580\n", "a280", NULL, CK_ERROR_PARSE, 0,
       ":2: a280 is listed again with another optimum (2579 on line 1, 2580 "
       "here)",
       NULL},
      {"x : 1\nx.tsp : 2\nx : 3\n", "x.tsp", NULL, CK_ERROR_PARSE, 0,
       ":3: x is listed again", NULL},
  };
  test_path_in(work_dir, "optima.txt", path, sizeof path);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    warnings seen = {0, ""};
    optimum = -1;
    CHECK(write_text(path, cases[i].text) == 0);
    ck_status status = ck_tsp_optimum_find(path, cases[i].name, cases[i].file,
                                           note_warning, &seen, &optimum);
    message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == cases[i].status, "optima case %zu: status %d (%s)", i,
              (int)status, message);
    if (cases[i].status == CK_OK) {
      CHECK_MSG(optimum == cases[i].optimum,
                "optima case %zu: optimum %" PRId64, i, optimum);
    } else {
      char needle[1200];
      snprintf(needle, sizeof needle, "%s%s", path, cases[i].message);
      CHECK_MSG(optimum == -1 && strncmp(message, needle, strlen(needle)) == 0,
                "optima case %zu: \"%s\" does not begin \"%s\"", i, message,
                needle);
    }
    /* Warned once for the file or not at all; a refusal comes unwarned. */
    if (cases[i].warning) {
      char needle[1200];
      snprintf(needle, sizeof needle, "warning: %s%s", path, cases[i].warning);
      CHECK_MSG(seen.count == 1 &&
                    strncmp(seen.last, needle, strlen(needle)) == 0,
                "optima case %zu: %d warnings, the last \"%s\", expected "
                "\"%s\"",
                i, seen.count, seen.last, needle);
    } else {
      CHECK_MSG(seen.count == 0, "optima case %zu: warned \"%s\"", i,
                seen.last);
    }
  }
  /* Without a callback the warning goes nowhere and the lookup stands. */
  CHECK(write_text(path, "p : 1 (x)\na280 : 5\n") == 0);
  CHECK_OK(ck_tsp_optimum_find(path, "a280", NULL, NULL, NULL, &optimum));
  CHECK(optimum == 5);

  test_path_in(work_dir, "no-optima.txt", path, sizeof path);
  CHECK(ck_tsp_optimum_find(path, "a280", NULL, NULL, NULL, &optimum) ==
        CK_ERROR_IO);
  CHECK_INVALID(ck_tsp_optimum_find(NULL, "a280", NULL, NULL, NULL, &optimum),
                "ck_tsp_optimum_find: path is NULL");
  CHECK_INVALID(ck_tsp_optimum_find(path, NULL, NULL, NULL, NULL, &optimum),
                "ck_tsp_optimum_find: name is NULL");
  CHECK_INVALID(ck_tsp_optimum_find(path, "a280", NULL, NULL, NULL, NULL),
                "ck_tsp_optimum_find: optimum is NULL");
}

int main(void) {
  data_dir = getenv("CLKIT_TEST_DATA");
  if (!data_dir || !*data_dir)
    CHECK_SKIP("CLKIT_TEST_DATA is not set");
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  snprintf(work_dir, sizeof work_dir, "%s/clkit-tsp-XXXXXX", base);
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  test_euc_ceil_att();
  test_geo();
  test_explicit();
  test_limits();
  test_misc_good();
  test_optimal_tours();
  test_malformed();
  test_fuzz();
  test_candidates_random();
  test_candidates_instances();
  test_unusable_instances();
  test_tours();
  test_tour_length();
  test_optima();
  remove_tree(work_dir);
  return CHECK_DONE();
}
