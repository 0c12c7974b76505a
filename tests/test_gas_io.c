/*
 * test_gas_io - files of the gas: extended XYZ frames written and read
 * back, plain XYZ, a table of malformed files and every truncation of a
 * valid one, trajectories committed and abandoned, the RDF of an ideal
 * gas, and the PNG picture's header (or its refusal without libpng).
 *
 * Files live in a fresh directory made with mkdtemp and removed at the
 * end.
 */
#include "gas/gas_io.h"

#include "check.h"
#include "test_support.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work_dir[512];

static int write_bytes(const char *path, const char *text, size_t size) {
  FILE *file = fopen(path, "wb");
  if (!file)
    return -1;
  size_t put = size ? fwrite(text, 1, size, file) : 0;
  int closed = fclose(file);
  return put == size && closed == 0 ? 0 : -1;
}

static int write_text(const char *path, const char *text) {
  return write_bytes(path, text, strlen(text));
}

static int file_exists(const char *path) {
  struct stat info;
  return stat(path, &info) == 0;
}

/* Entries of the work directory that look like temporaries. */
static size_t temporaries_left(void) {
  size_t count = 0;
  DIR *dir = opendir(work_dir);
  if (!dir)
    return 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL)
    if (strstr(entry->d_name, ".tmp."))
      ++count;
  closedir(dir);
  return count;
}

static int frame_is_zeroed(const ck__gas_frame *frame) {
  return frame->particles == 0 && frame->positions == NULL &&
         frame->velocities == NULL && frame->box_x == 0 && frame->box_y == 0 &&
         frame->time == 0;
}

/* Equal to 9 significant digits. */
static int close_9(double a, double b) {
  return fabs(a - b) <= 1e-8 * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* A small configuration with values of every size and sign. */
#define SAMPLE_N 5
static const double sample_positions[2 * SAMPLE_N] = {
    0.5,         0.25, 11.123456789012, 3.0000001, 1e-12, 7.75,
    9.999999999, 0,    -0.0625,         2.5e-5};
static const double sample_velocities[2 * SAMPLE_N] = {
    1.5, -2.25, 0.333333333333, -0.1, 3e-7, 0, -12.5, 4.4, 1e10, -1e-10};

static void test_round_trip(void) {
  char path[600];
  test_path_in(work_dir, "frame.xyz", path, sizeof path);
  const double box_x = 12.649110640673518, box_y = 8.1;
  const double time = 0.015000000000000001;
  CHECK_OK(ck__gas_xyz_write(path, SAMPLE_N, box_x, box_y, 1, sample_positions,
                             sample_velocities, 3, time));
  ck__gas_frame frame;
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.particles == SAMPLE_N);
  CHECK(frame.box_x == box_x);
  CHECK(frame.box_y == box_y);
  CHECK(frame.time == time);
  CHECK(frame.positions != NULL && frame.velocities != NULL);
  CHECK(frame.velocity_column && strcmp(frame.velocity_column, "velo") == 0);
  if (frame.particles == SAMPLE_N && frame.positions && frame.velocities)
    for (size_t i = 0; i < 2 * SAMPLE_N; ++i) {
      CHECK_MSG(close_9(frame.positions[i], sample_positions[i]),
                "position %zu: %.17g vs %.17g", i, frame.positions[i],
                sample_positions[i]);
      CHECK_MSG(close_9(frame.velocities[i], sample_velocities[i]),
                "velocity %zu: %.17g vs %.17g", i, frame.velocities[i],
                sample_velocities[i]);
    }
  CHECK_OK(ck__gas_frame_free(&frame));
  CHECK(frame_is_zeroed(&frame));
  CHECK_OK(ck__gas_frame_free(&frame)); /* twice is harmless */
  CHECK_OK(ck__gas_frame_free(NULL));

  /* The text itself: the documented comment line and columns. */
  char *text = test_read_file(path, NULL);
  CHECK(text != NULL);
  if (text) {
    const char *expected =
        "5\nLattice=\"12.649110640673518 0.0 0.0 0.0 8.1 0.0 "
        "0.0 0.0 1.0\" "
        "Properties=species:S:1:pos:R:3:velo:R:3:momenta:R:3:masses:R:1 "
        "Time=0.015000000000000001 Step=3 pbc=\"T T F\"\n"
        "Ar 0.5 0.25 0 1.5 -2.25 0 1.5 -2.25 0 1\n";
    CHECK_MSG(strncmp(text, expected, strlen(expected)) == 0, "%s", text);
    free(text);
  }
  CHECK(temporaries_left() == 0);

  /* Between walls the box is not periodic, and the file says so. */
  CHECK_OK(ck__gas_xyz_write(path, SAMPLE_N, 4, 5, 0, sample_positions, NULL, 0,
                             0.5));
  text = test_read_file(path, NULL);
  CHECK_MSG(text && strstr(text, " pbc=\"F F F\"\n") &&
                !strstr(text, "\"T T F\""),
            "walls written as %s", text ? text : "(nothing)");
  free(text);
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.particles == SAMPLE_N && frame.box_x == 4 && frame.box_y == 5);
  CHECK_OK(ck__gas_frame_free(&frame));

  /* Without velocities: no velo or momenta columns, and none read back;
   * the masses still say 1. */
  CHECK_OK(ck__gas_xyz_write(path, SAMPLE_N, 4, 5, 1, sample_positions, NULL, 0,
                             0.5));
  text = test_read_file(path, NULL);
  CHECK_MSG(text &&
                strstr(text, "Properties=species:S:1:pos:R:3:masses:R:1 ") &&
                strstr(text, "\nAr 0.5 0.25 0 1\n"),
            "without velocities: %s", text ? text : "(nothing)");
  free(text);
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.particles == SAMPLE_N && frame.velocities == NULL);
  CHECK(frame.velocity_column == NULL);
  CHECK(frame.box_x == 4 && frame.box_y == 5 && frame.time == 0.5);
  if (frame.positions)
    CHECK(close_9(frame.positions[2], sample_positions[2]));
  ck__gas_frame_free(&frame);

  /* The writer refuses what could not be read back, and leaves no file. */
  char refused[600];
  test_path_in(work_dir, "refused.xyz", refused, sizeof refused);
  double bad_positions[2 * SAMPLE_N];
  memcpy(bad_positions, sample_positions, sizeof bad_positions);
  bad_positions[7] = NAN;
  CHECK(ck__gas_xyz_write(refused, SAMPLE_N, 4, 5, 1, bad_positions, NULL, 0,
                          0) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_xyz_write(refused, 0, 4, 5, 1, sample_positions, NULL, 0, 0) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_xyz_write(refused, SAMPLE_N, 0, 5, 1, sample_positions, NULL, 0,
                          0) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_xyz_write(refused, SAMPLE_N, 4, 5, 1, NULL, NULL, 0, 0) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(!file_exists(refused));
  CHECK(temporaries_left() == 0);
  CHECK(ck__gas_xyz_read(NULL, &frame) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_xyz_read(path, NULL) == CK_ERROR_INVALID_ARGUMENT);
  char missing[600];
  test_path_in(work_dir, "missing.xyz", missing, sizeof missing);
  CHECK(ck__gas_xyz_read(missing, &frame) == CK_ERROR_IO);
  CHECK(frame_is_zeroed(&frame));
}

/* A file that must read: returns the status, the frame filled. */
static ck_status read_text(const char *label, const char *text,
                           ck__gas_frame *frame) {
  char path[600];
  test_path_in(work_dir, "good.xyz", path, sizeof path);
  CHECK(write_text(path, text) == 0);
  ck_status status = ck__gas_xyz_read(path, frame);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_OK, "%s: status %d: %s", label, (int)status, message);
  return status;
}

static void test_good_files(void) {
  ck__gas_frame frame;
  /* Plain XYZ: no Properties, free text in the comment. */
  if (read_text("plain",
                "2\nwater, sort of \"quoted\" = text\n"
                "O 0.1 0.2 0.3\nH 1 2e0 -3\n",
                &frame) == CK_OK) {
    CHECK(frame.particles == 2 && frame.velocities == NULL);
    CHECK(frame.box_x == 0 && frame.box_y == 0 && frame.time == 0);
    CHECK(frame.positions[0] == 0.1 && frame.positions[1] == 0.2);
    CHECK(frame.positions[2] == 1 && frame.positions[3] == 2);
    ck__gas_frame_free(&frame);
  }
  /* Columns in another order, 2D vectors, other properties skipped, keys
   * in other cases, blanks around '=', escapes, CRLF endings, blanks
   * around the count, a second frame (not read). */
  if (read_text("extended",
                "  2  \r\nfoo=\"a \\\" b\" lattice = \"3 0 0 0 4 0 0 0 0\" "
                "Properties=id:I:1:velo:R:2:species:S:1:pos:R:2:flag:L:1 "
                "TIME=1.25 pbc=\"F F F\" flag\r\n"
                "7 1 2 Ar 0.5 0.75 T\r\n"
                "8 -1 -2 Ar 1.5 1.75 F\r\n"
                "1\nsecond frame\nAr x y z\n",
                &frame) == CK_OK) {
    CHECK(frame.particles == 2);
    CHECK(frame.box_x == 3 && frame.box_y == 4 && frame.time == 1.25);
    CHECK(frame.velocities != NULL);
    if (frame.velocities) {
      CHECK(frame.positions[0] == 0.5 && frame.positions[1] == 0.75);
      CHECK(frame.positions[2] == 1.5 && frame.positions[3] == 1.75);
      CHECK(frame.velocities[0] == 1 && frame.velocities[1] == 2);
      CHECK(frame.velocities[2] == -1 && frame.velocities[3] == -2);
    }
    ck__gas_frame_free(&frame);
  }
  /* Velocities as ASE writes them: momenta, with masses where they are
   * not the species' own (1 here), or without for species X (mass 1);
   * masses may come before momenta. As OVITO writes them: velo, here in
   * 2D, with its mass column. clkit's own trajectories hold both velo and
   * momenta, which agree to the 8 decimals ASE writes. Other columns, such
   * as forces, are no motion. */
  static const struct {
    const char *label, *text, *column;
    double v[4];
  } moving[] = {
      {"ASE momenta and masses",
       "2\nLattice=\"5.0 0.0 0.0 0.0 5.0 0.0 0.0 0.0 1.0\" "
       "Properties=species:S:1:pos:R:3:momenta:R:3:masses:R:1 pbc=\"T T F\"\n"
       "Ar 0.00000000 0.00000000 0.00000000 0.10000000 0.20000000 0.00000000 "
       "1.00000000\n"
       "Ar 1.50000000 0.00000000 0.00000000 -0.10000000 0.00000000 0.00000000 "
       "1.00000000\n",
       "momenta",
       {0.1, 0.2, -0.1, 0}},
      {"ASE masses before momenta",
       "2\nProperties=species:S:1:pos:R:3:masses:R:1:momenta:R:3\n"
       "Ar 0 0 0 1 1.5 -2 0\nAr 1 1 0 1.00000000 -1.5 2 0\n",
       "momenta",
       {1.5, -2, -1.5, 2}},
      {"ASE momenta of species X",
       "2\nProperties=species:S:1:pos:R:3:momenta:R:3\n"
       "X 0 0 0 1 0 0\nX 1 1 0 -1 0.5 0\n",
       "momenta",
       {1, 0, -1, 0.5}},
      {"OVITO velo and mass in 2D",
       "2\nLattice=\"5.0 0.0 0.0 0.0 5.0 0.0 0.0 0.0 1.0\" pbc=\"T T F\" "
       "Properties=species:S:1:pos:R:2:velo:R:2:mass:R:1\n"
       "Ar 1.0 1.0 0.5 0.25 1.0\nAr 2.0 2.0 -0.5 -0.25 1.0\n",
       "velo",
       {0.5, 0.25, -0.5, -0.25}},
      {"velo and momenta to 8 decimals",
       "2\nProperties=species:S:1:pos:R:3:velo:R:3:momenta:R:3:masses:R:1\n"
       "Ar 0 0 0 0.123456789 -2.5 0 0.12345679 -2.50000000 0 1\n"
       "Ar 1 1 0 1e-9 0 0 0.00000000 0.00000000 0.00000000 1\n",
       "velo",
       {0.123456789, -2.5, 1e-9, 0}},
      {"forces, masses and no motion",
       "2\nProperties=species:S:1:pos:R:3:forces:R:3:masses:R:1\n"
       "Ar 0 0 0 1 2 3 1\nAr 1 1 0 4 5 6 1\n",
       NULL,
       {0, 0, 0, 0}},
  };
  for (size_t i = 0; i < sizeof moving / sizeof moving[0]; ++i) {
    if (read_text(moving[i].label, moving[i].text, &frame) != CK_OK)
      continue;
    CHECK(frame.particles == 2);
    const char *column = frame.velocity_column;
    CHECK_MSG(moving[i].column ? column && strcmp(column, moving[i].column) == 0
                               : column == NULL && frame.velocities == NULL,
              "%s: velocities from %s", moving[i].label,
              column ? column : "nothing");
    if (moving[i].column && frame.velocities)
      for (int k = 0; k < 4; ++k)
        CHECK_MSG(frame.velocities[k] == moving[i].v[k],
                  "%s: velocity %d is %.17g, not %.17g", moving[i].label, k,
                  frame.velocities[k], moving[i].v[k]);
    ck__gas_frame_free(&frame);
  }
  /* A byte order mark before the count (an editor's UTF-8). */
  if (read_text("byte order mark",
                "\xEF\xBB\xBF"
                "1\n\nAr 1 2 3\n",
                &frame) == CK_OK) {
    CHECK(frame.particles == 1 && frame.positions[0] == 1);
    ck__gas_frame_free(&frame);
  }
  /* No newline at the end; an empty comment line. */
  if (read_text("no final newline", "1\n\nAr 1 2 3", &frame) == CK_OK) {
    CHECK(frame.particles == 1 && frame.positions[1] == 2);
    ck__gas_frame_free(&frame);
  }
  /* Neighbours in x or in y alone, and the box at its largest, read. */
  if (read_text("apart in one coordinate",
                "4\nLattice=\"65536 0 0 0 65536 0 0 0 1\"\n"
                "Ar 1 1 0\nAr 1 1.0000000000000002 0\nAr 1.0000000000000002 1 "
                "0\nAr 2 2 0\n",
                &frame) == CK_OK) {
    CHECK(frame.particles == 4 && frame.box_x == 65536);
    ck__gas_frame_free(&frame);
  }
  /* More particles than the reader's first allocation. */
  size_t many = 3000;
  char *big = malloc(many * 16 + 64);
  CHECK(big != NULL);
  if (big) {
    size_t used = (size_t)sprintf(big, "%zu\nProperties=pos:R:2\n", many);
    for (size_t i = 0; i < many; ++i)
      used += (size_t)sprintf(big + used, "%zu %zu\n", i, 2 * i);
    if (read_text("3000 particles", big, &frame) == CK_OK) {
      CHECK(frame.particles == many);
      CHECK(frame.positions[2 * (many - 1)] == (double)(many - 1));
      CHECK(frame.positions[2 * (many - 1) + 1] == (double)(2 * (many - 1)));
      ck__gas_frame_free(&frame);
    }
    free(big);
  }
}

typedef struct bad_case {
  const char *label;
  const char *text;
  ck_status status;
  const char *needle;
} bad_case;

#define COMMENT "Properties=species:S:1:pos:R:3\n"

static void test_malformed(void) {
  static const bad_case cases[] = {
      {"empty file", "", CK_ERROR_PARSE, "bad.xyz:1: the file is empty"},
      {"blank first line", "\n\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:1: the first line must hold the number of particles"},
      {"non-numeric count", "three\n\n", CK_ERROR_PARSE,
       "bad.xyz:1: the first line must hold the number of particles, found "
       "\"three\""},
      {"count with words", "3 atoms\n\n", CK_ERROR_PARSE,
       "bad.xyz:1: the first line must hold the number of particles, found "
       "\"3 atoms\""},
      {"negative count", "-3\n\n", CK_ERROR_PARSE, "bad.xyz:1:"},
      {"fractional count", "2.5\n\n", CK_ERROR_PARSE,
       "bad.xyz:1: the number of particles \"2.5\" is not a whole number"},
      {"huge count", "99999999999999999999999\n\n", CK_ERROR_PARSE,
       "bad.xyz:1: the number of particles 99999999999999999999999 is too "
       "large"},
      {"zero count", "0\n\n", CK_ERROR_PARSE,
       "bad.xyz:1: the number of particles is 0"},
      {"no comment line", "1\n", CK_ERROR_PARSE,
       "bad.xyz:2: truncated: the file ends before the comment line"},
      {"missing lines", "3\n" COMMENT "Ar 0 0 0\nAr 1 1 1\n", CK_ERROR_PARSE,
       "bad.xyz:5: truncated: the file ends after 2 of its 3 particle lines"},
      {"count far beyond the lines", "1000000000000\n" COMMENT "Ar 0 0 0\n",
       CK_ERROR_PARSE, "bad.xyz:4: truncated: the file ends after 1 of its"},
      {"short line", "2\n" COMMENT "Ar 0 0 0\nAr 1 1\n", CK_ERROR_PARSE,
       "bad.xyz:4: particle 2: expected 4 columns, found 3"},
      {"long line", "2\n" COMMENT "Ar 0 0 0 0\nAr 1 1 1\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: expected 4 columns, found 5"},
      {"blank particle line", "2\n" COMMENT "Ar 0 0 0\n\nAr 1 1 1\n",
       CK_ERROR_PARSE, "bad.xyz:4: particle 2: expected 4 columns, found 0"},
      {"non-numeric x", "1\n" COMMENT "Ar abc 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: x \"abc\" is not a number"},
      {"decimal comma", "1\n\nAr 0 1,5 0\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: y \"1,5\" is not a number"},
      {"hex", "1\n\nAr 0x10 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: x \"0x10\" is not a number"},
      {"nan", "2\n\nAr 0 0 0\nAr nan 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:4: particle 2: x \"nan\" is not a finite number"},
      {"inf", "1\n\nAr 0 -inf 0\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: y \"-inf\" is not a finite number"},
      {"z not finite", "1\n\nAr 0 0 Infinity\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: z \"Infinity\" is not a finite number"},
      {"overflow", "1\n\nAr 0 1e999 0\n", CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: y \"1e999\" is out of range"},
      {"velocity nan",
       "1\nProperties=species:S:1:pos:R:3:velo:R:3\nAr 0 0 0 1 NaN 0\n",
       CK_ERROR_PARSE, "bad.xyz:3: particle 1: vy \"NaN\" is not a finite"},
      {"Properties without pos", "1\nProperties=species:S:1:velo:R:3\n",
       CK_ERROR_PARSE,
       "bad.xyz:2: Properties \"species:S:1:velo:R:3\" has no pos column"},
      {"Properties cut short", "1\nProperties=species:S:1:pos:R\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties \"species:S:1:pos:R\" must be "},
      {"Properties trailing colon", "1\nProperties=species:S:1:pos:R:3:\n",
       CK_ERROR_PARSE,
       "bad.xyz:2: Properties \"species:S:1:pos:R:3:\" must be "
       "name:type:count triples; property 3 is cut short"},
      {"Properties bad type", "1\nProperties=species:X:1:pos:R:3\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: species has type \"X\""},
      {"Properties bad count", "1\nProperties=species:S:0:pos:R:3\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: species has column count"},
      {"Properties huge count",
       "1\nProperties=species:S:99999999999999999999999:pos:R:3\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: species has column count"},
      {"pos of integers", "1\nProperties=species:S:1:pos:I:3\n", CK_ERROR_PARSE,
       "bad.xyz:2: Properties: pos must be R:2 or R:3"},
      {"pos of 4", "1\nProperties=pos:R:4\n", CK_ERROR_PARSE,
       "bad.xyz:2: Properties: pos must be R:2 or R:3, found R:4"},
      {"pos twice", "1\nProperties=pos:R:3:pos:R:2\n", CK_ERROR_PARSE,
       "bad.xyz:2: Properties names pos twice"},
      /* Per-particle motion clkit cannot take: refused, naming the
       * column, rather than skipped for velocities drawn anew. */
      {"ASE momenta of argon", /* mass 39.948 by its species */
       "2\nProperties=species:S:1:pos:R:3:momenta:R:3\n"
       "X 0 0 0 1 0 0\nAr 1 1 0 3.9948 0 0\n",
       CK_ERROR_PARSE,
       "bad.xyz:4: particle 2: momenta without masses: ASE gives species "
       "\"Ar\" its element's mass, and clkit's particles have mass 1"},
      {"momenta without masses or species",
       "1\nProperties=pos:R:3:momenta:R:3\n0 0 0 1 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Properties: momenta without masses or species"},
      {"ASE masses of 2",
       "2\nProperties=species:S:1:pos:R:3:momenta:R:3:masses:R:1\n"
       "Ar 0 0 0 1 0 0 1.00000000\nAr 1 1 0 1 0 0 2.00000000\n",
       CK_ERROR_PARSE,
       "bad.xyz:4: particle 2: masses \"2.00000000\" is not 1: clkit's "
       "particles have mass 1"},
      {"OVITO mass of 0.5",
       "1\nProperties=species:S:1:pos:R:2:velo:R:2:mass:R:1\nAr 1 1 0 0 0.5\n",
       CK_ERROR_PARSE, "bad.xyz:3: particle 1: mass \"0.5\" is not 1"},
      {"mass not a number", "1\nProperties=pos:R:2:masses:R:1\n1 1 heavy\n",
       CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: masses \"heavy\" is not a number"},
      {"velocity along z",
       "1\nProperties=species:S:1:pos:R:3:velo:R:3\nAr 0 0 0 1 2 0.5\n",
       CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: velo has vz = 0.5, not 0: a run is "
       "two-dimensional"},
      {"momentum along z",
       "1\nProperties=species:S:1:pos:R:3:momenta:R:3:masses:R:1\n"
       "Ar 0 0 0 1 2 -1e-3 1\n",
       CK_ERROR_PARSE, "bad.xyz:3: particle 1: momenta has pz = -1e-3, not 0"},
      {"velo and momenta apart",
       "1\nProperties=species:S:1:pos:R:3:velo:R:3:momenta:R:3:masses:R:1\n"
       "Ar 0 0 0 1 2 0 1 2.001 0 1\n",
       CK_ERROR_PARSE,
       "bad.xyz:3: particle 1: velo gives vy = 2 and momenta py = 2.001, "
       "which at mass 1 differ"},
      {"vel", "1\nProperties=species:S:1:pos:R:3:vel:R:3\nAr 0 0 0 1 0 0\n",
       CK_ERROR_PARSE,
       "bad.xyz:2: Properties: vel holds per-particle motion in a form clkit "
       "does not read"},
      {"velocities", "1\nProperties=pos:R:2:velocities:R:2\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: velocities holds per-particle"},
      {"OVITO's property name", "1\nProperties=pos:R:2:Velocity:R:2\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: Velocity holds per-particle"},
      {"velo in capitals", "1\nProperties=pos:R:2:VELO:R:2\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: VELO holds per-particle"},
      {"Momenta", "1\nProperties=pos:R:2:Momenta:R:2\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: Momenta holds per-particle"},
      {"momentum", "1\nProperties=pos:R:2:momentum:R:2\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: momentum holds per-particle"},
      {"a component column", "1\nProperties=pos:R:2:vx:R:1:vy:R:1\n0 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: vx holds per-particle"},
      {"v", "1\nProperties=pos:R:2:v:R:2\n0 0 1 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Properties: v holds per-particle"},
      {"momenta of integers", "1\nProperties=pos:R:2:momenta:I:2\n0 0 1 0\n",
       CK_ERROR_PARSE,
       "bad.xyz:2: Properties: momenta must be R:2 or R:3, found I:2"},
      {"momenta twice",
       "1\nProperties=pos:R:2:momenta:R:2:momenta:R:2\n0 0 1 0 1 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties names momenta twice"},
      {"masses twice", "1\nProperties=pos:R:2:masses:R:1:mass:R:1\n0 0 1 1\n",
       CK_ERROR_PARSE,
       "bad.xyz:2: Properties names masses twice (masses and mass)"},
      {"masses of 3", "1\nProperties=pos:R:2:masses:R:3\n0 0 1 1 1\n",
       CK_ERROR_PARSE, "bad.xyz:2: Properties: masses must be R:1, found R:3"},
      {"Lattice with 6 values", "1\nLattice=\"1 0 0 0 1 0\"\nAr 0 0 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: Lattice must hold 9 numbers"},
      {"Lattice with 10 values",
       "1\nLattice=\"1 0 0 0 1 0 0 0 1 1\"\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Lattice must hold 9 numbers (three cell vectors), found "
       "10"},
      {"Lattice not a number", "1\nLattice=\"1 0 0 0 x 0 0 0 1\"\n",
       CK_ERROR_PARSE, "bad.xyz:2: Lattice value 5 \"x\" is not a number"},
      {"Lattice sheared", "1\nLattice=\"1 0 0 0.5 1 0 0 0 1\"\nAr 0 0 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: only rectangular boxes"},
      {"Lattice rotated", "1\nLattice=\"1 0.1 0 0 1 0 0 0 1\"\n",
       CK_ERROR_PARSE, "bad.xyz:2: only rectangular boxes"},
      {"Lattice with a zero side", "1\nLattice=\"0 0 0 0 1 0 0 0 1\"\n",
       CK_ERROR_PARSE, "bad.xyz:2: the box sides from Lattice"},
      {"Lattice beyond the largest box",
       "1\nLattice=\"1e308 0 0 0 10 0 0 0 1\"\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: the box sides from Lattice, ax = 1e+308 and by = 10, must "
       "lie in [1.52588e-05, 65536]"},
      {"Lattice a unit past the largest box",
       "1\nLattice=\"10 0 0 0 65537 0 0 0 1\"\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: the box sides from Lattice, ax = 10 and by = 65537, must "
       "lie in"},
      {"Lattice below the smallest box",
       "1\nLattice=\"1e-300 0 0 0 10 0 0 0 1\"\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: the box sides from Lattice, ax = 1e-300 and by = 10, must "
       "lie in"},
      {"coincident particles, z apart",
       "3\n" COMMENT "Ar 1 1 0\nAr 2 2 0\nAr 1 1 5\n", CK_ERROR_PARSE,
       "bad.xyz:5: particle 3 is at (1, 1), where particle 1 (line 3) is: "
       "coincident particles have no force between them"},
      {"coincident at -0 and 0", "2\n\nAr 0 -0 0\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:4: particle 2 is at (0, 0), where particle 1 (line 3) is"},
      {"coincident in other spellings",
       "3\n\nAr 5 5 0\nAr 0.25 7 0\nAr 2.5e-1 7.000 0\n", CK_ERROR_PARSE,
       "bad.xyz:5: particle 3 is at (0.25, 7), where particle 2 (line 4) is"},
      {"Lattice twice",
       "1\nLattice=\"1 0 0 0 1 0 0 0 1\" Lattice=\"1 0 0 0 1 0 0 0 1\"\n",
       CK_ERROR_PARSE, "bad.xyz:2: Lattice given twice"},
      {"unterminated quote", "1\nLattice=\"1 0 0 0 1 0 0 0 1\nAr 0 0 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: unterminated quote in the value of Lattice"},
      {"unterminated quote, escaped", "1\nfoo=\"abc\\\"\nAr 0 0 0\n",
       CK_ERROR_PARSE, "bad.xyz:2: unterminated quote in the value of foo"},
      {"Time not a number", "1\nTime=soon\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Time \"soon\" is not a number"},
      {"Time of two numbers", "1\nTime=\"1 2\"\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Time \"1 2\" is not a number"},
      {"Time nan", "1\nTime=nan\nAr 0 0 0\n", CK_ERROR_PARSE,
       "bad.xyz:2: Time \"nan\" is not a finite number"},
      {"garbage", "\x01\x02\xff\xfe binary\n", CK_ERROR_PARSE, "bad.xyz:1:"},
  };
  char path[600];
  test_path_in(work_dir, "bad.xyz", path, sizeof path);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const bad_case *bad = &cases[c];
    CHECK(write_text(path, bad->text) == 0);
    ck__gas_frame frame;
    memset(&frame, 0x5a, sizeof frame);
    ck_error_clear();
    ck_status status = ck__gas_xyz_read(path, &frame);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == bad->status, "%s: status %d, expected %d (%s)",
              bad->label, (int)status, (int)bad->status, message);
    CHECK_MSG(strstr(message, bad->needle) != NULL, "%s: \"%s\" lacks \"%s\"",
              bad->label, message, bad->needle);
    CHECK_MSG(strncmp(message, path, strlen(path)) == 0,
              "%s: \"%s\" does not start with the path", bad->label, message);
    CHECK_MSG(frame_is_zeroed(&frame), "%s: frame not zeroed", bad->label);
    if (status == CK_OK)
      ck__gas_frame_free(&frame);
  }
  /* Coincident particles far apart in a file longer than the reader's
   * first allocation: the first and the last of 3001. */
  size_t many = 3000;
  char *big = malloc(many * 24 + 64);
  CHECK(big != NULL);
  if (big) {
    size_t used = (size_t)sprintf(big, "%zu\nProperties=pos:R:2\n", many + 1);
    for (size_t i = 0; i < many; ++i)
      used += (size_t)sprintf(big + used, "%zu.5 %zu\n", many - i, 2 * i);
    sprintf(big + used, "%zu.5 0\n", many);
    CHECK(write_text(path, big) == 0);
    ck__gas_frame frame;
    memset(&frame, 0x5a, sizeof frame); /* must come back zeroed */
    ck_error_clear();
    ck_status status = ck__gas_xyz_read(path, &frame);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_PARSE &&
                  strstr(message, "bad.xyz:3003: particle 3001 is at (3000.5, "
                                  "0), where particle 1 (line 3) is"),
              "3001 particles, the last on the first: status %d: %s",
              (int)status, message);
    CHECK(frame_is_zeroed(&frame));
    free(big);
  }
  /* A NUL byte makes it no text file. */
  CHECK(write_bytes(path, "1\n\nAr 0\0 0 0\n", 13) == 0);
  ck__gas_frame frame;
  CHECK(ck__gas_xyz_read(path, &frame) == CK_ERROR_PARSE);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, ":3: not a text file (a NUL byte)"), "%s", message);
  CHECK(frame_is_zeroed(&frame));
}

/* Every prefix of a valid file reads, or fails with CK_ERROR_PARSE. Its
 * lines end in a one-character column, so a prefix reads only when every
 * line is whole (the final newline aside). */
static void test_truncations(void) {
  char full_path[600], path[600];
  test_path_in(work_dir, "full.xyz", full_path, sizeof full_path);
  test_path_in(work_dir, "cut.xyz", path, sizeof path);
  CHECK_OK(ck__gas_xyz_write(full_path, 3, 10, 10, 1, sample_positions,
                             sample_velocities, 7, 1.5));
  size_t size = 0;
  char *text = test_read_file(full_path, &size);
  CHECK(text != NULL && size > 0);
  if (!text)
    return;
  size_t successes = 0;
  for (size_t length = 0; length <= size; ++length) {
    CHECK(write_bytes(path, text, length) == 0);
    ck__gas_frame frame;
    ck_status status = ck__gas_xyz_read(path, &frame);
    if (status == CK_OK) {
      ++successes;
      CHECK_MSG(length + 1 >= size, "a prefix of %zu of %zu bytes read", length,
                size);
      CHECK(frame.particles == 3 && frame.velocities != NULL);
      if (frame.velocities)
        CHECK(close_9(frame.velocities[5], sample_velocities[5]));
      ck__gas_frame_free(&frame);
    } else {
      const char *message = "";
      ck_error_get_last(&message);
      CHECK_MSG(status == CK_ERROR_PARSE, "prefix %zu: status %d: %s", length,
                (int)status, message);
      CHECK(frame_is_zeroed(&frame));
    }
  }
  CHECK_MSG(successes == 2, "%zu prefixes read", successes);
  free(text);
}

/* The search for coincident particles on its own: the pair at the least
 * position, the two least indices there; float comparison on request. */
static void test_coincident(void) {
  static const double spread[] = {3, 1, 2, 2, 0, 0, 5, 5, 2, 2, 3, 1};
  size_t first = 0, second = 0;
  CHECK_OK(ck__gas_find_coincident(6, spread, 0, &first, &second));
  CHECK_MSG(first == 1 && second == 4, "found %zu and %zu, expected 1 and 4",
            first, second);
  CHECK_OK(ck__gas_find_coincident(3, spread, 0, &first, &second));
  CHECK(first == 3 && second == 3);
  CHECK_OK(ck__gas_find_coincident(1, spread, 0, &first, &second));
  CHECK(first == 1 && second == 1);
  CHECK_OK(ck__gas_find_coincident(0, NULL, 0, &first, &second));
  CHECK(first == 0 && second == 0);
  /* Apart in double, one float: 1 + 1e-8 and 1 + 2e-8 both round to 1. */
  static const double close[] = {5, 5, 1.00000001, 7, 1.00000002, 7};
  CHECK_OK(ck__gas_find_coincident(3, close, 0, &first, &second));
  CHECK(first == 3 && second == 3);
  CHECK_OK(ck__gas_find_coincident(3, close, 1, &first, &second));
  CHECK_MSG(first == 1 && second == 2,
            "in float: found %zu and %zu, expected 1 and 2", first, second);
}

static void test_trajectory(void) {
  char path[600];
  test_path_in(work_dir, "run.xyz", path, sizeof path);
  ck__gas_trajectory *trajectory = NULL;
  CHECK_OK(ck__gas_trajectory_open(path, 1, &trajectory));
  CHECK(trajectory != NULL);
  CHECK(temporaries_left() == 1);
  CHECK(!file_exists(path));
  for (uint64_t step = 0; step < 3; ++step)
    CHECK_OK(ck__gas_trajectory_frame(trajectory, SAMPLE_N, 12, 13,
                                      sample_positions, sample_velocities,
                                      step * 100, (double)step * 0.5));
  /* A refused frame writes nothing and leaves the trajectory usable. */
  CHECK(ck__gas_trajectory_frame(trajectory, SAMPLE_N, 12, -1, sample_positions,
                                 NULL, 0, 0) == CK_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ck__gas_trajectory_close(trajectory, 1));
  CHECK(temporaries_left() == 0);

  size_t size = 0;
  char *text = test_read_file(path, &size);
  CHECK(text != NULL);
  if (text) {
    /* 3 frames of 2 + N lines, each led by its count. */
    size_t lines = 0, counts = 0;
    for (char *line = text; *line;) {
      char *end = strchr(line, '\n');
      CHECK(end != NULL);
      if (!end)
        break;
      if (lines % (2 + SAMPLE_N) == 0)
        counts += (size_t)(end - line) == 1 && line[0] == '0' + SAMPLE_N;
      ++lines;
      line = end + 1;
    }
    CHECK_MSG(lines == 3 * (2 + SAMPLE_N), "%zu lines", lines);
    CHECK_MSG(counts == 3, "%zu count lines", counts);
    CHECK(strstr(text, "Time=1 Step=200 ") != NULL);
    free(text);
  }
  ck__gas_frame frame;
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.particles == SAMPLE_N && frame.time == 0 && frame.box_y == 13);
  ck__gas_frame_free(&frame);

  /* Not committed: no file, no temporary; an existing file stays. */
  char abandoned[600];
  test_path_in(work_dir, "abandoned.xyz", abandoned, sizeof abandoned);
  CHECK_OK(ck__gas_trajectory_open(abandoned, 1, &trajectory));
  CHECK_OK(ck__gas_trajectory_frame(trajectory, SAMPLE_N, 12, 13,
                                    sample_positions, NULL, 0, 0));
  CHECK_OK(ck__gas_trajectory_close(trajectory, 0));
  CHECK(!file_exists(abandoned));
  CHECK(temporaries_left() == 0);
  CHECK_OK(ck__gas_trajectory_open(path, 1, &trajectory));
  CHECK_OK(ck__gas_trajectory_frame(trajectory, 1, 1, 1, sample_positions, NULL,
                                    0, 0));
  CHECK_OK(ck__gas_trajectory_close(trajectory, 0));
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.particles == SAMPLE_N);
  ck__gas_frame_free(&frame);
  CHECK(temporaries_left() == 0);

  /* Many frames: more than one write buffer. */
  CHECK_OK(ck__gas_trajectory_open(path, 1, &trajectory));
  for (uint64_t step = 0; step < 2000; ++step)
    CHECK_OK(ck__gas_trajectory_frame(trajectory, SAMPLE_N, 12, 13,
                                      sample_positions, sample_velocities, step,
                                      (double)step));
  CHECK_OK(ck__gas_trajectory_close(trajectory, 1));
  text = test_read_file(path, &size);
  CHECK(text != NULL);
  if (text) {
    size_t lines = 0;
    for (size_t i = 0; i < size; ++i)
      lines += text[i] == '\n';
    CHECK_MSG(lines == 2000 * (2 + SAMPLE_N), "%zu lines", lines);
    CHECK(strstr(text, "Time=1999 Step=1999 ") != NULL);
    free(text);
  }

  CHECK_OK(ck__gas_trajectory_close(NULL, 1));
  CHECK(ck__gas_trajectory_open(path, 1, NULL) == CK_ERROR_INVALID_ARGUMENT);
  char directory[700];
  snprintf(directory, sizeof directory, "%s/", work_dir);
  CHECK(ck__gas_trajectory_open(directory, 1, &trajectory) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(trajectory == NULL);
  char unwritable[700];
  snprintf(unwritable, sizeof unwritable, "%s/no/such/dir/run.xyz", work_dir);
  CHECK(ck__gas_trajectory_open(unwritable, 1, &trajectory) == CK_ERROR_IO);
  CHECK(trajectory == NULL);
}

static void test_rdf(void) {
  char path[600];
  test_path_in(work_dir, "rdf.csv", path, sizeof path);
  enum { BINS = 50 };
  const double range = 5, area = 400;
  const size_t particles = 100;
  const uint64_t samples = 1000;
  uint64_t counts[BINS];
  const double pi = 3.14159265358979323846;
  double dr = range / BINS;
  /* An ideal gas: pairs in proportion to the ring's area. */
  for (size_t k = 0; k < BINS; ++k) {
    double r = (k + 0.5) * dr;
    counts[k] = (uint64_t)llround((double)samples * particles *
                                  (particles - 1) / 2 * 2 * pi * r * dr / area);
  }
  CHECK_OK(
      ck__gas_rdf_write(path, BINS, range, counts, samples, particles, area));
  char *text = test_read_file(path, NULL);
  CHECK(text != NULL);
  if (text) {
    CHECK(strncmp(text, "r,g,count\n", 10) == 0);
    size_t rows = 0;
    char *line = strchr(text, '\n');
    while (line && line[1]) {
      ++line;
      double r = 0, g = 0;
      uint64_t count = 0;
      int got = sscanf(line, "%lf,%lf,%" SCNu64, &r, &g, &count);
      CHECK_MSG(got == 3, "row %zu: %.30s", rows, line);
      if (got == 3 && rows < BINS) {
        CHECK_NEAR(r, (rows + 0.5) * dr, 1e-9);
        CHECK_NEAR(g, 1, 0.01);
        CHECK(count == counts[rows]);
      }
      ++rows;
      line = strchr(line, '\n');
    }
    CHECK_MSG(rows == BINS, "%zu rows", rows);
    free(text);
  }
  CHECK(temporaries_left() == 0);
  /* Twice the pairs in one bin: g = 2 there. */
  counts[10] *= 2;
  CHECK_OK(
      ck__gas_rdf_write(path, BINS, range, counts, samples, particles, area));
  text = test_read_file(path, NULL);
  if (text) {
    char *line = text;
    for (int k = 0; k <= 10 && line; ++k)
      line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
    double r = 0, g = 0;
    CHECK(line && sscanf(line, "%lf,%lf", &r, &g) == 2);
    CHECK_NEAR(g, 2, 0.02);
    free(text);
  }

  CHECK(ck__gas_rdf_write(path, 0, range, counts, samples, particles, area) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_rdf_write(path, BINS, 0, counts, samples, particles, area) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_rdf_write(path, BINS, range, NULL, samples, particles, area) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_rdf_write(path, BINS, range, counts, 0, particles, area) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_rdf_write(path, BINS, range, counts, samples, 1, area) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_rdf_write(path, BINS, range, counts, samples, particles, NAN) ==
        CK_ERROR_INVALID_ARGUMENT);
}

#ifdef CK_HAVE_PNG
#include <png.h>

static uint32_t big_endian_32(const unsigned char *bytes) {
  return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 |
         (uint32_t)bytes[2] << 8 | bytes[3];
}

/* A decoded picture: RGB, rows top first. */
typedef struct picture {
  uint32_t width, height;
  uint8_t *rgb;
} picture;

/* The PNG's signature and IHDR (8-bit RGB), then its pixels through
 * libpng; 0 when it cannot be read. */
static int read_png(const char *path, picture *out) {
  memset(out, 0, sizeof *out);
  size_t size = 0;
  char *bytes = test_read_file(path, &size);
  CHECK_MSG(bytes != NULL && size > 33, "%s: %zu bytes", path, size);
  if (!bytes || size <= 33) {
    free(bytes);
    return 0;
  }
  const unsigned char *data = (const unsigned char *)bytes;
  int header = memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0 &&
               big_endian_32(data + 8) == 13 &&
               memcmp(data + 12, "IHDR", 4) == 0 && data[24] == 8 &&
               data[25] == 2;
  CHECK_MSG(header, "%s: not an 8-bit RGB PNG", path);
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  int good = header && png_image_begin_read_from_memory(&image, data, size);
  if (good) {
    image.format = PNG_FORMAT_RGB;
    out->rgb = malloc(PNG_IMAGE_SIZE(image));
    good =
        out->rgb && png_image_finish_read(&image, NULL, out->rgb, 0, NULL) != 0;
  }
  CHECK_MSG(good, "%s: libpng cannot read it: %s", path, image.message);
  free(bytes);
  if (!good) {
    png_image_free(&image);
    free(out->rgb);
    out->rgb = NULL;
    return 0;
  }
  out->width = image.width;
  out->height = image.height;
  return 1;
}

static const uint8_t *pixel(const picture *p, uint32_t x, uint32_t y) {
  return p->rgb + ((size_t)y * p->width + x) * 3;
}

static int same_colour(const uint8_t *a, const uint8_t *b, int slack) {
  for (int c = 0; c < 3; ++c)
    if (abs((int)a[c] - (int)b[c]) > slack)
      return 0;
  return 1;
}

/*
 * The colour bar under a box of box_height rows: a row whose pixels,
 * from the first to the last that differ from the legend's background
 * (the bottom left pixel), are the scale's colours from 0 to 1 in order,
 * across at least half the picture. Returns the bar's last row, or 0.
 */
static uint32_t find_colour_bar(const picture *p, uint32_t box_height,
                                ck__gas_scale scale) {
  const uint8_t *background = pixel(p, 0, p->height - 1);
  uint32_t last = 0;
  for (uint32_t y = box_height; y < p->height; ++y) {
    uint32_t x0 = 0, x1 = 0;
    while (x0 < p->width && same_colour(pixel(p, x0, y), background, 0))
      ++x0;
    x1 = p->width;
    while (x1 > x0 && same_colour(pixel(p, x1 - 1, y), background, 0))
      --x1;
    if (x1 <= x0 || x1 - x0 < p->width / 2)
      continue;
    int matches = 1;
    for (uint32_t x = x0; x < x1 && matches; ++x) {
      uint8_t expected[3];
      ck__gas_png_colour(scale, (double)(x - x0) / (x1 - 1 - x0), expected);
      matches = same_colour(pixel(p, x, y), expected, 1);
    }
    if (matches)
      last = y;
    else if (last)
      break;
  }
  return last;
}

/* The fraction of the scale whose colour a pixel has (to 0.001), or -1
 * when no colour of the scale is within 2 levels of it. */
static double scale_fraction(const uint8_t *rgb, ck__gas_scale scale) {
  for (int i = 0; i <= 1000; ++i) {
    uint8_t colour[3];
    ck__gas_png_colour(scale, i / 1000.0, colour);
    if (same_colour(rgb, colour, 2))
      return i / 1000.0;
  }
  return -1;
}

/* Pixels below row `after` that differ from the legend's background. */
static size_t marked_below(const picture *p, uint32_t after) {
  const uint8_t *background = pixel(p, 0, p->height - 1);
  size_t marked = 0;
  for (uint32_t y = after + 1; y < p->height; ++y)
    for (uint32_t x = 0; x < p->width; ++x)
      marked += !same_colour(pixel(p, x, y), background, 0);
  return marked;
}

/* A picture, 200 pixels wide, of a 100 x 100 box whose columns x <
 * columns hold particles on a square lattice of spacing 1 (centres at
 * 0.5, 1.5, ...): discs would be 1 pixel in radius, so it is a density
 * field. Returns 1 with p filled, or 0. */
static int draw_lattice(const char *path, size_t columns, picture *p) {
  size_t n = columns * 100;
  double *positions = malloc(2 * n * sizeof *positions);
  CHECK(positions != NULL);
  if (!positions)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    positions[2 * i] = (double)(i % columns) + 0.5;
    positions[2 * i + 1] = (double)(i / columns) + 0.5;
  }
  ck_status status =
      ck__gas_png_write(path, n, 100, 100, positions, NULL, 200, 0, 1);
  CHECK_OK(status);
  free(positions);
  return status == CK_OK && read_png(path, p);
}
#endif

static void test_png(void) {
  char path[600];
  test_path_in(work_dir, "frame.png", path, sizeof path);
#ifdef CK_HAVE_PNG
  picture p;
  /* Sizes: the box `width` along its longer side at the top left, the
   * legend below, the picture at least 160 wide for its text. */
  static const struct {
    double box_x, box_y;
    unsigned width;
    uint32_t box_width, box_height, picture_width;
  } sizes[] = {{20, 10, 64, 64, 32, 160},
               {5, 10, 40, 20, 40, 160},
               {1000, 1, 10, 10, 1, 160},
               {1, 1, 1, 1, 1, 160},
               {20, 10, 500, 500, 250, 500}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    CHECK_OK(ck__gas_png_write(
        path, SAMPLE_N, sizes[i].box_x, sizes[i].box_y, sample_positions,
        i % 2 ? NULL : sample_velocities, sizes[i].width, 7, 1.25));
    if (read_png(path, &p)) {
      CHECK_MSG(p.width == sizes[i].picture_width &&
                    p.height > sizes[i].box_height + 20,
                "box %g x %g at %u: picture %" PRIu32 " x %" PRIu32,
                sizes[i].box_x, sizes[i].box_y, sizes[i].width, p.width,
                p.height);
      free(p.rgb);
    }
  }

  /* Discs, 6.8 pixels in radius: the background shows between them; the
   * bar holds the speed scale; the caption writes something, and its step
   * with it. */
  enum { MANY = 400 };
  double positions[2 * MANY], velocities[2 * MANY];
  for (int i = 0; i < MANY; ++i) {
    positions[2 * i] = (i % 20) * 1.1 - 3;
    positions[2 * i + 1] = (i / 20) * 1.1 + 0.3;
    velocities[2 * i] = (i % 7) - 3;
    velocities[2 * i + 1] = (i % 5) * 0.5;
  }
  uint8_t *first_caption = NULL;
  size_t caption_bytes = 0;
  for (uint64_t step = 3; step <= 4; ++step) {
    CHECK_OK(ck__gas_png_write(path, MANY, 22, 22, positions, velocities, 300,
                               step, 1.5));
    if (!read_png(path, &p))
      continue;
    CHECK(p.width == 300 && p.height > 300);
    size_t background = 0;
    const uint8_t *corner = pixel(&p, 299, 0); /* no particle there */
    for (uint32_t y = 0; y < 300; ++y)
      for (uint32_t x = 0; x < 300; ++x)
        background += same_colour(pixel(&p, x, y), corner, 0);
    CHECK_MSG(background > 300 * 300 / 10 && background < 300 * 300 * 9 / 10,
              "discs: %zu of the box's pixels are background", background);
    uint32_t bar = find_colour_bar(&p, 300, CK__GAS_SCALE_SPEED);
    CHECK_MSG(bar > 300, "discs: no colour bar of the speed scale");
    size_t marked = bar ? marked_below(&p, bar) : 0;
    CHECK_MSG(marked > 200, "discs: %zu marked pixels under the bar", marked);
    if (bar && step == 3) {
      caption_bytes = (size_t)(p.height - bar) * p.width * 3;
      first_caption = malloc(caption_bytes);
      if (first_caption)
        memcpy(first_caption, pixel(&p, 0, bar), caption_bytes);
    } else if (bar && first_caption) {
      CHECK_MSG(caption_bytes == (size_t)(p.height - bar) * p.width * 3 &&
                    memcmp(first_caption, pixel(&p, 0, bar), caption_bytes),
                "the captions of steps 3 and 4 are alike");
    }
    free(p.rgb);
  }
  free(first_caption);

  /* 10^4 particles on a unit lattice filling the box: near uniform at the
   * top of the scale (the lattice is not quite even in bins 5.6 wide), no
   * background, and the density's colour bar. */
  if (draw_lattice(path, 100, &p)) {
    size_t off = 0;
    double lowest = 1;
    for (uint32_t y = 0; y < 200; ++y)
      for (uint32_t x = 0; x < 200; ++x) {
        double f = scale_fraction(pixel(&p, x, y), CK__GAS_SCALE_DENSITY);
        off += !(f >= 0.9);
        lowest = f < lowest ? f : lowest;
      }
    CHECK_MSG(off == 0,
              "a uniform lattice: %zu of the field's pixels are not near "
              "the top of the density scale (the lowest at %g)",
              off, lowest);
    uint32_t bar = find_colour_bar(&p, 200, CK__GAS_SCALE_DENSITY);
    CHECK_MSG(bar > 200, "a field: no colour bar of the density scale");
    CHECK(bar && marked_below(&p, bar) > 200);
    free(p.rgb);
  }
  /* The left half full, the right empty: the top of the scale on the
   * left, its bottom on the right, and between them a ramp over several
   * pixels that only falls, each step small. */
  if (draw_lattice(path, 50, &p)) {
    uint32_t between = 0;
    int ordered = 1;
    double before = 1;
    for (uint32_t x = 0; x < 200; ++x) {
      double f = scale_fraction(pixel(&p, x, 100), CK__GAS_SCALE_DENSITY);
      if (x < 50)
        ordered &= f >= 0.9;
      else if (x >= 150)
        ordered &= f <= 0.01;
      else
        between += f > 0.01 && f < 0.9;
      ordered &= f <= before + 0.01 && f >= before - 0.1;
      before = f;
    }
    CHECK_MSG(ordered && between >= 8,
              "half a lattice: ordered %d, %" PRIu32 " pixels between", ordered,
              between);
    free(p.rgb);
  }

  CHECK(ck__gas_png_write(path, SAMPLE_N, 20, 10, sample_positions, NULL, 0, 0,
                          1) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ck__gas_png_write(path, SAMPLE_N, 20, 10, sample_positions, NULL,
                          CK__GAS_PNG_MAX_SIDE + 1, 0,
                          1) == CK_ERROR_INVALID_ARGUMENT);
  char unwritable[700];
  snprintf(unwritable, sizeof unwritable, "%s/no/such/dir/x.png", work_dir);
  CHECK(ck__gas_png_write(unwritable, SAMPLE_N, 20, 10, sample_positions, NULL,
                          16, 0, 1) == CK_ERROR_IO);
#else
  const char *message = "";
  CHECK(ck__gas_png_write(path, SAMPLE_N, 20, 10, sample_positions,
                          sample_velocities, 64, 0, 1) == CK_ERROR_UNSUPPORTED);
  ck_error_get_last(&message);
  CHECK(strstr(message, "PNG output needs libpng") != NULL);
  CHECK(!file_exists(path));
#endif
  CHECK(temporaries_left() == 0);
}

/* Numbers stay in the C locale whatever the process set. */
static void test_locale(void) {
  const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                         "fr_FR.utf8"};
  const char *chosen = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !chosen; ++i)
    if (setlocale(LC_NUMERIC, names[i]))
      chosen = names[i];
  if (!chosen)
    return; /* no locale with a decimal comma installed */
  char path[600];
  test_path_in(work_dir, "locale.xyz", path, sizeof path);
  CHECK_OK(ck__gas_xyz_write(path, SAMPLE_N, 2.5, 3.5, 1, sample_positions,
                             sample_velocities, 1, 0.25));
  ck__gas_frame frame;
  CHECK_OK(ck__gas_xyz_read(path, &frame));
  CHECK(frame.box_x == 2.5 && frame.time == 0.25);
  if (frame.positions)
    CHECK(frame.positions[0] == 0.5);
  ck__gas_frame_free(&frame);
  setlocale(LC_NUMERIC, "C");
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(work_dir, sizeof work_dir, "%s/clkit_gas_io_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(work_dir)) {
    fprintf(stderr, "mkdtemp %s: %s\n", work_dir, strerror(errno));
    return 1;
  }
  test_round_trip();
  test_good_files();
  test_malformed();
  test_truncations();
  test_coincident();
  test_trajectory();
  test_rdf();
  test_png();
  test_locale();
  remove_tree(work_dir);
  return CHECK_DONE();
}
