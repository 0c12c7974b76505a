/*
 * gas_io.c - files of the two-dimensional gas: extended XYZ frames and
 * trajectories, the radial distribution function and PNG pictures.
 *
 * The XYZ reader takes the whole file at once (ck__file_read_text) and
 * cuts it in place: each line at its newline, each column at the blank
 * after it, so that columns are plain C strings for the number parser.
 * Numbers go through strtod() under the C locale after a check of their
 * decimal syntax (strtod alone would also take hex, inf and nan). The
 * particle arrays grow as lines are read, up to the count of line 1, so a
 * short file that claims billions of particles costs no more than what it
 * holds.
 *
 * Extended XYZ (as read by ASE, OVITO and VMD): line 1 the number of
 * particles, line 2 key=value pairs, then a line per particle whose
 * columns Properties=name:type:count:... describes. Of the comment line
 * only Lattice, Properties and Time are read (their keys in any case);
 * anything else, free text included, is ignored, but a quoted value must
 * end on the line.
 *
 * Writers gather their text in memory and write it to a temporary file
 * beside the target, which is renamed over it once complete.
 */
#include "gas/gas_io.h"

#include "clkit/gas.h"
#include "core/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef CK_HAVE_PNG
#include <png.h>
#endif

/* Bytes gathered before each write() of a trajectory. */
#define WRITE_CHUNK ((size_t)1 << 16)
/* The most bytes one written line takes (the comment line is longest). */
#define LINE_ROOM ((size_t)512)
/* Particles the reader makes room for first. */
#define FIRST_CAPACITY ((size_t)1024)
/* The most columns one property may span. */
#define PROPERTY_MAX_COLUMNS ((size_t)10000)
/* Room for one line of the RDF file: three numbers and separators. */
#define RDF_LINE_ROOM ((size_t)96)

/* ---- small helpers ------------------------------------------------------- */

/* What is wrong with a number ck__text_read_real() refused, after its name. */
static const char *number_problem(ck__text_number_kind kind) {
  switch (kind) {
  case CK__TEXT_NUMBER_NOT_FINITE:
    return "is not a finite number";
  case CK__TEXT_NUMBER_RANGE:
    return "is out of range";
  default:
    return "is not a number";
  }
}

/* The number of blank-separated fields of text, which is left as it is. */
static size_t count_fields(const char *text) {
  size_t fields = 0;
  while (*text) {
    while (ck__text_is_blank(*text))
      ++text;
    if (!*text)
      break;
    ++fields;
    while (*text && !ck__text_is_blank(*text))
      ++text;
  }
  return fields;
}

/* ---- the XYZ reader: line 1 ---------------------------------------------- */

/* The number of particles, from line 1 (NULL when the file is empty). */
static ck_status read_count(const ck__text_lines *reader, char *line,
                            size_t *particles) {
  if (!line)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1, "the file is empty");
  ck__text_quoted whole = ck__text_quote(line);
  char *cursor = line;
  char *field = ck__text_next_field(&cursor);
  if (!field)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1,
                            "the first line must hold the number of particles; "
                            "it is empty");
  /* A digit first: no '-', and no blanks or words after the count. */
  const char *at = field + (*field == '+');
  if (*at < '0' || *at > '9' || ck__text_next_field(&cursor))
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1,
                            "the first line must hold the number of "
                            "particles, found \"%s\"",
                            whole.text);
  int64_t count = 0;
  ck__text_number_kind kind = ck__text_read_integer(field, &count);
  if (kind == CK__TEXT_NUMBER_SYNTAX)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1,
                            "the number of particles \"%s\" is not a whole "
                            "number",
                            ck__text_quote(field).text);
  if (kind != CK__TEXT_NUMBER_OK ||
      (uint64_t)count > SIZE_MAX / (2 * sizeof(double)))
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1,
                            "the number of particles %s is too large",
                            ck__text_quote(field).text);
  if (count == 0)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 1,
                            "the number of particles is 0: a frame needs at "
                            "least one");
  *particles = (size_t)count;
  return CK_OK;
}

/* ---- the XYZ reader: the comment line ------------------------------------ */

/* Where the numbers of a particle line are. */
typedef struct column_layout {
  size_t columns;                 /* on every particle line */
  size_t pos_column, pos_count;   /* first column (from 0); 2 or 3 */
  size_t velo_column, velo_count; /* velo_count 0: no velocities */
} column_layout;

/* A key=value pair of the comment line, cut in place. */
typedef struct comment_pair {
  char *key;
  char *value; /* NULL for a word without '=' */
} comment_pair;

/*
 * Cuts the next pair out of *cursor; *found is 0 when the line is done.
 * A key runs to a blank or '='; blanks may surround the '='; a value in
 * double quotes runs to the closing quote, a backslash taking the next
 * character as it is, and an unquoted value to a blank.
 */
static ck_status next_pair(const ck__text_lines *reader, char **cursor,
                           comment_pair *pair, int *found) {
  char *at = *cursor;
  *found = 0;
  while (ck__text_is_blank(*at))
    ++at;
  if (!*at) {
    *cursor = at;
    return CK_OK;
  }
  *found = 1;
  pair->key = at;
  pair->value = NULL;
  while (*at && !ck__text_is_blank(*at) && *at != '=')
    ++at;
  char *key_end = at;
  while (ck__text_is_blank(*at))
    ++at;
  if (*at != '=') {
    /* A word alone; what follows the blanks is the next pair. */
    *key_end = '\0';
    *cursor = at;
    return CK_OK;
  }
  ++at;
  while (ck__text_is_blank(*at))
    ++at;
  *key_end = '\0';
  if (*at == '"') {
    char *out = ++at;
    pair->value = out;
    while (*at && *at != '"') {
      if (*at == '\\' && at[1])
        ++at;
      *out++ = *at++;
    }
    if (*at != '"')
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "unterminated quote in the value of %s",
                              ck__text_quote(pair->key).text);
    *out = '\0';
    *cursor = at + 1;
    return CK_OK;
  }
  pair->value = at;
  while (*at && !ck__text_is_blank(*at))
    ++at;
  if (*at)
    *at++ = '\0';
  *cursor = at;
  return CK_OK;
}

/* Lattice="ax ay az bx by bz cx cy cz": the sides of a rectangular box. */
static ck_status read_lattice(const ck__text_lines *reader, char *value,
                              double *box_x, double *box_y) {
  double lattice[9];
  size_t count = count_fields(value);
  if (count != 9)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Lattice must hold 9 numbers (three cell vectors), "
                            "found %zu",
                            count);
  char *cursor = value;
  for (size_t i = 0; i < 9; ++i) {
    char *field = ck__text_next_field(&cursor);
    ck__text_number_kind kind = ck__text_read_real(field, &lattice[i]);
    if (kind != CK__TEXT_NUMBER_OK)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Lattice value %zu \"%s\" %s", i + 1,
                              ck__text_quote(field).text, number_problem(kind));
  }
  if (lattice[1] != 0 || lattice[3] != 0)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "only rectangular boxes are supported: Lattice has "
                            "ay = %g and bx = %g where 0 is needed",
                            lattice[1], lattice[3]);
  if (!(lattice[0] > 0) || !(lattice[4] > 0))
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "the box sides from Lattice, ax = %g and by = %g, "
                            "must be positive",
                            lattice[0], lattice[4]);
  if (lattice[0] < CK_GAS_MIN_SIDE || lattice[0] > CK_GAS_MAX_SIDE ||
      lattice[4] < CK_GAS_MIN_SIDE || lattice[4] > CK_GAS_MAX_SIDE)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "the box sides from Lattice, ax = %g and by = %g, "
                            "must lie in [%g, %g] (single-precision positions)",
                            lattice[0], lattice[4], CK_GAS_MIN_SIDE,
                            CK_GAS_MAX_SIDE);
  *box_x = lattice[0];
  *box_y = lattice[4];
  return CK_OK;
}

/* Properties=name:type:count:...: where pos and velo are. */
static ck_status read_properties(const ck__text_lines *reader, char *value,
                                 column_layout *layout) {
  column_layout read = {0};
  int have_pos = 0;
  ck__text_quoted whole = ck__text_quote(value);
  char *at = value;
  for (size_t property = 1;; ++property) {
    char *parts[3];
    int more = 0; /* a ':' after the count: another property follows */
    for (int part = 0; part < 3; ++part) {
      parts[part] = at;
      while (*at && *at != ':')
        ++at;
      if (part < 2 && *at != ':')
        return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                                "Properties \"%s\" must be name:type:count "
                                "triples; property %zu is cut short",
                                whole.text, property);
      more = *at == ':';
      if (*at)
        *at++ = '\0';
    }
    const char *name = parts[0], *type = parts[1], *count_text = parts[2];
    if (!*name)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Properties: property %zu has no name", property);
    if (strlen(type) != 1 || !strchr("SRILsril", type[0]))
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, 2,
          "Properties: %s has type \"%s\"; the types are S, "
          "R, I and L",
          ck__text_quote(name).text, ck__text_quote(type).text);
    size_t count = 0;
    const char *digit = count_text;
    for (; *digit >= '0' && *digit <= '9' && count <= PROPERTY_MAX_COLUMNS;
         ++digit)
      count = count * 10 + (size_t)(*digit - '0');
    if (digit == count_text || *digit || count < 1 ||
        count > PROPERTY_MAX_COLUMNS)
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, 2,
          "Properties: %s has column count \"%s\"; expected "
          "1..%zu",
          ck__text_quote(name).text, ck__text_quote(count_text).text,
          PROPERTY_MAX_COLUMNS);
    int is_pos = strcmp(name, "pos") == 0;
    int is_velo = strcmp(name, "velo") == 0;
    if (is_pos || is_velo) {
      if ((is_pos && have_pos) || (is_velo && read.velo_count))
        return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                                "Properties names %s twice", name);
      if ((type[0] != 'R' && type[0] != 'r') || count < 2 || count > 3)
        return ck__text_fail_at(
            CK_ERROR_PARSE, reader, 2,
            "Properties: %s must be R:2 or R:3, found %s:%s", name,
            ck__text_quote(type).text, ck__text_quote(count_text).text);
      if (is_pos) {
        have_pos = 1;
        read.pos_column = read.columns;
        read.pos_count = count;
      } else {
        read.velo_column = read.columns;
        read.velo_count = count;
      }
    }
    read.columns += count;
    if (!more)
      break;
  }
  if (!have_pos)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Properties \"%s\" has no pos column (positions)",
                            whole.text);
  *layout = read;
  return CK_OK;
}

/* A key of the comment line read twice is an error. */
static ck_status check_once(const ck__text_lines *reader, int *seen,
                            const char *key) {
  if (*seen)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2, "%s given twice",
                            ck__text_quote(key).text);
  *seen = 1;
  return CK_OK;
}

/* Line 2: the box, the columns and the time. */
static ck_status read_comment(const ck__text_lines *reader, char *line,
                              ck__gas_frame *frame, column_layout *layout) {
  ck_status status = CK_OK;
  int have_lattice = 0, have_properties = 0, have_time = 0, found = 0;
  comment_pair pair;
  /* Plain XYZ: species:S:1:pos:R:3. */
  layout->columns = 4;
  layout->pos_column = 1;
  layout->pos_count = 3;
  layout->velo_column = layout->velo_count = 0;
  for (char *cursor = line;;) {
    CK_TRY(next_pair(reader, &cursor, &pair, &found));
    if (!found)
      break;
    if (!pair.value)
      continue;
    if (strcasecmp(pair.key, "Lattice") == 0) {
      CK_TRY(check_once(reader, &have_lattice, pair.key));
      CK_TRY(read_lattice(reader, pair.value, &frame->box_x, &frame->box_y));
    } else if (strcasecmp(pair.key, "Properties") == 0) {
      CK_TRY(check_once(reader, &have_properties, pair.key));
      CK_TRY(read_properties(reader, pair.value, layout));
    } else if (strcasecmp(pair.key, "Time") == 0) {
      CK_TRY(check_once(reader, &have_time, pair.key));
      ck__text_quoted whole = ck__text_quote(pair.value);
      char *time_cursor = pair.value;
      char *field = ck__text_next_field(&time_cursor);
      ck__text_number_kind kind = field
                                      ? ck__text_read_real(field, &frame->time)
                                      : CK__TEXT_NUMBER_SYNTAX;
      if (kind == CK__TEXT_NUMBER_OK && ck__text_next_field(&time_cursor))
        kind = CK__TEXT_NUMBER_SYNTAX;
      if (kind != CK__TEXT_NUMBER_OK)
        CK__TEXT_FAIL_AT(CK_ERROR_PARSE, reader, 2, "Time \"%s\" %s",
                         whole.text, number_problem(kind));
    }
  }
  return CK_OK;
fail:
  return status;
}

/* ---- the XYZ reader: particle lines -------------------------------------- */

/* Reads count (2 or 3) components starting at fields[first] into out[0..1];
 * a third must be finite too. names are their names for messages. */
static ck_status read_vector(const ck__text_lines *reader, size_t particle,
                             char **fields, size_t first, size_t count,
                             const char *const *names, double *out) {
  for (size_t k = 0; k < count; ++k) {
    double value = 0;
    ck__text_number_kind kind = ck__text_read_real(fields[first + k], &value);
    if (kind != CK__TEXT_NUMBER_OK)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, reader->line,
                              "particle %zu: %s \"%s\" %s", particle, names[k],
                              ck__text_quote(fields[first + k]).text,
                              number_problem(kind));
    if (k < 2 && out)
      out[k] = value;
  }
  return CK_OK;
}

/* One particle line, its columns as layout says. */
static ck_status read_particle(const ck__text_lines *reader, char *line,
                               const column_layout *layout, size_t particle,
                               double *position, double *velocity) {
  static const char *const position_names[] = {"x", "y", "z"};
  static const char *const velocity_names[] = {"vx", "vy", "vz"};
  size_t found = count_fields(line);
  if (found != layout->columns)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, reader->line,
                            "particle %zu: expected %zu columns, found %zu",
                            particle, layout->columns, found);
  /* Only the columns up to the last one read need cutting. */
  size_t needed = layout->pos_column + layout->pos_count;
  if (layout->velo_count && layout->velo_column + layout->velo_count > needed)
    needed = layout->velo_column + layout->velo_count;
  char *fields_small[16];
  char **fields = fields_small;
  if (needed > sizeof fields_small / sizeof fields_small[0]) {
    fields = malloc(needed * sizeof *fields);
    if (!fields)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of memory reading %s: %zu columns", reader->source,
                      needed);
  }
  char *cursor = line;
  for (size_t column = 0; column < needed; ++column)
    fields[column] = ck__text_next_field(&cursor);
  ck_status status = read_vector(reader, particle, fields, layout->pos_column,
                                 layout->pos_count, position_names, position);
  if (status == CK_OK && layout->velo_count)
    status = read_vector(reader, particle, fields, layout->velo_column,
                         layout->velo_count, velocity_names, velocity);
  if (fields != fields_small)
    free(fields);
  return status;
}

/* Makes room for more particles, up to frame->particles. */
static ck_status grow_frame(const ck__text_lines *reader, ck__gas_frame *frame,
                            size_t *capacity, int velocities) {
  size_t wanted = *capacity ? 2 * *capacity : FIRST_CAPACITY;
  if (wanted > frame->particles)
    wanted = frame->particles;
  size_t bytes = wanted * 2 * sizeof(double); /* read_count bounds it */
  double *positions = realloc(frame->positions, bytes);
  if (positions)
    frame->positions = positions;
  double *grown = positions;
  if (positions && velocities) {
    grown = realloc(frame->velocities, bytes);
    if (grown)
      frame->velocities = grown;
  }
  if (!grown)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %zu bytes for %zu particles",
                    reader->source, bytes, wanted);
  *capacity = wanted;
  return CK_OK;
}

/* ---- coincident particles ----------------------------------------------- */

typedef struct placed {
  double x, y;
  size_t index;
} placed;

/* By x, then y, then index; -0 and 0 compare equal. */
static int compare_placed(const void *left, const void *right) {
  const placed *a = left, *b = right;
  if (a->x != b->x)
    return a->x < b->x ? -1 : 1;
  if (a->y != b->y)
    return a->y < b->y ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

ck_status ck__gas_find_coincident(size_t particles, const double *positions,
                                  int single, size_t *first, size_t *second) {
  *first = *second = particles;
  if (particles < 2)
    return CK_OK;
  placed *order = malloc(particles * sizeof *order);
  if (!order)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory comparing the positions of %zu particles",
                    particles);
  for (size_t i = 0; i < particles; ++i) {
    double x = positions[2 * i], y = positions[2 * i + 1];
    if (single) {
      /* Through volatile floats: GCC 12's SLP vectoriser at -O2 drops a
       * plain (double)(float)x round trip in this loop. */
      volatile float rounded_x = (float)x, rounded_y = (float)y;
      x = rounded_x;
      y = rounded_y;
    }
    order[i].x = x;
    order[i].y = y;
    order[i].index = i;
  }
  qsort(order, particles, sizeof *order, compare_placed);
  for (size_t i = 1; i < particles; ++i)
    if (order[i].x == order[i - 1].x && order[i].y == order[i - 1].y) {
      *first = order[i - 1].index;
      *second = order[i].index;
      break;
    }
  free(order);
  return CK_OK;
}

ck_status ck__gas_xyz_read(const char *path, ck__gas_frame *frame) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  ck__text_lines reader = {0};
  ck__gas_frame read = {0};
  column_layout layout;
  size_t capacity = 0;

  if (!frame)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_xyz_read: frame is NULL");
  memset(frame, 0, sizeof *frame);
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_xyz_read: no file name given");
  reader.source = path;
  CK_TRY(ck__file_read_text(path, CK__TEXT_FILE_MAX_BYTES, &reader.text,
                            &reader.length));
  CK_TRY(ck__c_locale_enter(&locale, path));

  char *line;
  CK_TRY(ck__text_next_line(&reader, &line));
  CK_TRY(read_count(&reader, line, &read.particles));
  CK_TRY(ck__text_next_line(&reader, &line));
  if (!line)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader, 2,
                     "truncated: the file ends before the comment line");
  CK_TRY(read_comment(&reader, line, &read, &layout));
  for (size_t i = 0; i < read.particles; ++i) {
    CK_TRY(ck__text_next_line(&reader, &line));
    if (!line)
      CK__TEXT_FAIL_AT(
          CK_ERROR_PARSE, &reader, reader.line + 1,
          "truncated: the file ends after %zu of its %zu particle lines", i,
          read.particles);
    if (i == capacity)
      CK_TRY(grow_frame(&reader, &read, &capacity, layout.velo_count > 0));
    CK_TRY(read_particle(&reader, line, &layout, i + 1, read.positions + 2 * i,
                         layout.velo_count ? read.velocities + 2 * i : NULL));
  }
  /* Two particles at one place have no defined force (the pair terms
   * skip r = 0, so they would not even repel): refused. */
  size_t first, second;
  CK_TRY(ck__gas_find_coincident(read.particles, read.positions, 0, &first,
                                 &second));
  if (second < read.particles)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader, second + 3,
                     "particle %zu is at (%.9g, %.9g), where particle %zu "
                     "(line %zu) is: coincident particles have no force "
                     "between them",
                     second + 1, read.positions[2 * second],
                     read.positions[2 * second + 1], first + 1, first + 3);

  ck__c_locale_leave(&locale);
  free(reader.text);
  *frame = read;
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free(reader.text);
  free(read.positions);
  free(read.velocities);
  return status;
}

ck_status ck__gas_frame_free(ck__gas_frame *frame) {
  if (!frame)
    return CK_OK;
  free(frame->positions);
  free(frame->velocities);
  memset(frame, 0, sizeof *frame);
  return CK_OK;
}

/* ---- the XYZ writer ------------------------------------------------------ */

struct ck__gas_trajectory {
  char *path;   /* a copy, for messages and the rename */
  char *temp;   /* the temporary file being written */
  int fd;       /* open on temp */
  char *buffer; /* WRITE_CHUNK bytes gathered before a write() */
  size_t used;
  int broken;   /* a write failed: the file can only be abandoned */
  int periodic; /* pbc="T T F", else walls: pbc="F F F" */
};

/* Writes out what the buffer holds. */
static ck_status trajectory_flush(ck__gas_trajectory *trajectory) {
  if (trajectory->used == 0)
    return CK_OK;
  if (ck__write_all(trajectory->fd, trajectory->buffer, trajectory->used) !=
      0) {
    trajectory->broken = 1;
    return ck__fail(CK_ERROR_IO, "cannot write %s: %s", trajectory->path,
                    strerror(errno));
  }
  trajectory->used = 0;
  return CK_OK;
}

/* Makes sure LINE_ROOM bytes are free in the buffer. */
static ck_status trajectory_room(ck__gas_trajectory *trajectory) {
  if (WRITE_CHUNK - trajectory->used >= LINE_ROOM)
    return CK_OK;
  return trajectory_flush(trajectory);
}

/* Appends printf-formatted text (at most LINE_ROOM bytes, after
 * trajectory_room()). */
static void trajectory_print(ck__gas_trajectory *trajectory, const char *format,
                             ...) __attribute__((format(printf, 2, 3)));

static void trajectory_print(ck__gas_trajectory *trajectory, const char *format,
                             ...) {
  size_t free_bytes = WRITE_CHUNK - trajectory->used;
  va_list args;
  va_start(args, format);
  int written = vsnprintf(trajectory->buffer + trajectory->used, free_bytes,
                          format, args);
  va_end(args);
  if (written > 0)
    trajectory->used +=
        (size_t)written < free_bytes ? (size_t)written : free_bytes - 1;
}

/* The shortest of %.15g, %.16g and %.17g that reads back as value; the
 * caller has entered the C locale. */
static void format_exact(char *out, size_t size, double value) {
  for (int digits = 15; digits <= 17; ++digits) {
    snprintf(out, size, "%.*g", digits, value);
    if (strtod(out, NULL) == value)
      return;
  }
}

ck_status ck__gas_trajectory_open(const char *path, int periodic,
                                  ck__gas_trajectory **trajectory) {
  ck_status status = CK_OK;
  ck__gas_trajectory *opened = NULL;
  if (!trajectory)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_open: trajectory is NULL");
  *trajectory = NULL;
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_open: no file name given");
  opened = calloc(1, sizeof *opened);
  if (!opened)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory opening %s for a trajectory", path);
  opened->fd = -1;
  opened->periodic = periodic;
  size_t length = strlen(path);
  opened->path = malloc(length + 1);
  opened->buffer = malloc(WRITE_CHUNK);
  if (!opened->path || !opened->buffer)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory opening %s for a trajectory",
            path);
  memcpy(opened->path, path, length + 1);
  CK_TRY(ck__file_open_temporary(path, &opened->temp, &opened->fd));
  *trajectory = opened;
  return CK_OK;

fail:
  free(opened->path);
  free(opened->buffer);
  free(opened);
  return status;
}

/* Refuses a frame that could not be read back. */
static ck_status check_configuration(const char *function, size_t particles,
                                     double box_x, double box_y,
                                     const double *positions,
                                     const double *velocities) {
  if (particles == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: no particles", function);
  if (!positions)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: positions is NULL",
                    function);
  if (!isfinite(box_x) || !isfinite(box_y) || !(box_x > 0) || !(box_y > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the box %g x %g must have finite, positive sides",
                    function, box_x, box_y);
  if (particles > SIZE_MAX / 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: %zu particles are too many",
                    function, particles);
  for (size_t i = 0; i < 2 * particles; ++i) {
    if (!isfinite(positions[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: particle %zu: %s is not finite", function, i / 2 + 1,
                      i % 2 ? "y" : "x");
    if (velocities && !isfinite(velocities[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: particle %zu: %s is not finite", function, i / 2 + 1,
                      i % 2 ? "vy" : "vx");
  }
  return CK_OK;
}

ck_status ck__gas_trajectory_frame(ck__gas_trajectory *trajectory,
                                   size_t particles, double box_x, double box_y,
                                   const double *positions,
                                   const double *velocities, uint64_t step,
                                   double time) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  if (!trajectory)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_frame: trajectory is NULL");
  if (trajectory->broken)
    return ck__fail(CK_ERROR_IO,
                    "cannot write %s: an earlier frame failed; the "
                    "trajectory can only be closed",
                    trajectory->path);
  CK_TRY(check_configuration("ck__gas_trajectory_frame", particles, box_x,
                             box_y, positions, velocities));
  if (!isfinite(time))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_frame: the time is not finite");

  CK_TRY(ck__c_locale_enter(&locale, trajectory->path));
  char side_x[32], side_y[32], time_text[32];
  format_exact(side_x, sizeof side_x, box_x);
  format_exact(side_y, sizeof side_y, box_y);
  format_exact(time_text, sizeof time_text, time);
  CK_TRY(trajectory_room(trajectory));
  trajectory_print(trajectory,
                   "%zu\nLattice=\"%s 0.0 0.0 0.0 %s 0.0 0.0 0.0 1.0\" "
                   "Properties=species:S:1:pos:R:3%s Time=%s Step=%" PRIu64
                   " pbc=\"%s F\"\n",
                   particles, side_x, side_y, velocities ? ":velo:R:3" : "",
                   time_text, step, trajectory->periodic ? "T T" : "F F");
  for (size_t i = 0; i < particles; ++i) {
    CK_TRY(trajectory_room(trajectory));
    if (velocities)
      trajectory_print(trajectory, "Ar %.9g %.9g 0 %.9g %.9g 0\n",
                       positions[2 * i], positions[2 * i + 1],
                       velocities[2 * i], velocities[2 * i + 1]);
    else
      trajectory_print(trajectory, "Ar %.9g %.9g 0\n", positions[2 * i],
                       positions[2 * i + 1]);
  }
  ck__c_locale_leave(&locale);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  return status;
}

ck_status ck__gas_trajectory_close(ck__gas_trajectory *trajectory, int commit) {
  ck_status status = CK_OK;
  if (!trajectory)
    return CK_OK;
  if (commit && trajectory->broken)
    status = ck__fail(CK_ERROR_IO,
                      "%s not written: an earlier frame failed, and the "
                      "partial file was removed",
                      trajectory->path);
  else if (commit)
    status = trajectory_flush(trajectory);
  if (commit && status == CK_OK)
    status =
        ck__file_commit(trajectory->fd, trajectory->temp, trajectory->path);
  else
    ck__file_abandon(trajectory->fd, trajectory->temp, trajectory->path);
  free(trajectory->path);
  free(trajectory->buffer);
  free(trajectory);
  return status;
}

ck_status ck__gas_xyz_write(const char *path, size_t particles, double box_x,
                            double box_y, int periodic, const double *positions,
                            const double *velocities, uint64_t step,
                            double time) {
  ck__gas_trajectory *trajectory = NULL;
  ck_status status = check_configuration("ck__gas_xyz_write", particles, box_x,
                                         box_y, positions, velocities);
  if (status != CK_OK)
    return status;
  status = ck__gas_trajectory_open(path, periodic, &trajectory);
  if (status != CK_OK)
    return status;
  status = ck__gas_trajectory_frame(trajectory, particles, box_x, box_y,
                                    positions, velocities, step, time);
  if (status != CK_OK) {
    ck__gas_trajectory_close(trajectory, 0);
    return status;
  }
  return ck__gas_trajectory_close(trajectory, 1);
}

/* ---- the radial distribution function ------------------------------------ */

ck_status ck__gas_rdf_write(const char *path, size_t bins, double range,
                            const uint64_t *pair_counts, uint64_t samples,
                            size_t particles, double area) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  char *text = NULL;
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: no file name given");
  if (!pair_counts)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: pair_counts is NULL");
  if (bins == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__gas_rdf_write: no bins");
  if (bins > SIZE_MAX / RDF_LINE_ROOM - 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: %zu bins are too many", bins);
  if (!isfinite(range) || !(range > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: the range %g must be finite and "
                    "positive",
                    range);
  if (samples == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__gas_rdf_write: no samples");
  if (particles < 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: %zu particles; pairs need at least 2",
                    particles);
  if (!isfinite(area) || !(area > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: the area %g must be finite and "
                    "positive",
                    area);

  size_t capacity = (bins + 1) * RDF_LINE_ROOM;
  text = malloc(capacity);
  if (!text)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: %zu bytes for %zu bins", path, capacity,
            bins);
  CK_TRY(ck__c_locale_enter(&locale, path));
  double width = range / (double)bins;
  double pairs = (double)particles * ((double)particles - 1) / 2;
  /* Pairs per unit area of an ideal gas, over all samples. */
  double density = (double)samples * pairs / area;
  const double pi = 3.14159265358979323846;
  size_t used = (size_t)snprintf(text, capacity, "r,g,count\n");
  for (size_t k = 0; k < bins; ++k) {
    double r = ((double)k + 0.5) * width;
    double ideal = density * 2 * pi * r * width;
    used += (size_t)snprintf(text + used, capacity - used,
                             "%.9g,%.9g,%" PRIu64 "\n", r,
                             (double)pair_counts[k] / ideal, pair_counts[k]);
  }
  ck__c_locale_leave(&locale);
  CK_TRY(ck__file_write_atomic(path, text, used));
  free(text);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free(text);
  return status;
}

/* ---- PNG pictures -------------------------------------------------------- */

#ifdef CK_HAVE_PNG

/* Where libpng's output and its failure go. */
typedef struct png_sink {
  uint8_t *data;
  size_t size, capacity;
  int out_of_memory;
  char message[256];
} png_sink;

static void png_sink_write(png_structp png, png_bytep bytes, size_t length) {
  png_sink *sink = png_get_io_ptr(png);
  if (length > sink->capacity - sink->size) {
    size_t wanted = sink->capacity ? 2 * sink->capacity : (size_t)1 << 16;
    if (wanted < sink->size + length)
      wanted = sink->size + length;
    uint8_t *grown = length <= SIZE_MAX / 2 - sink->size
                         ? realloc(sink->data, wanted)
                         : NULL;
    if (!grown) {
      sink->out_of_memory = 1;
      png_error(png, "out of memory for the encoded picture");
    }
    sink->data = grown;
    sink->capacity = wanted;
  }
  memcpy(sink->data + sink->size, bytes, length);
  sink->size += length;
}

static void png_sink_flush(png_structp png) {
  (void)png;
}

/* libpng's error handler: keeps the message and returns to the setjmp of
 * png_encode(). */
static void png_failure(png_structp png, png_const_charp message) {
  png_sink *sink = png_get_error_ptr(png);
  snprintf(sink->message, sizeof sink->message, "%s", message);
  png_longjmp(png, 1);
}

/* Warnings are not errors, and the library prints nothing. */
static void png_warning_ignored(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

/* Encodes width x height RGB pixels (rows top first) into sink; 0, or -1
 * with sink->message set. Nothing is allocated after the setjmp but by
 * libpng, which png_destroy_write_struct() releases. */
static int png_encode(png_sink *sink, const uint8_t *pixels, uint32_t width,
                      uint32_t height) {
  volatile int outcome = -1; /* kept across libpng's longjmp */
  png_infop info = NULL;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink,
                                            png_failure, png_warning_ignored);
  if (!png) {
    sink->out_of_memory = 1;
    snprintf(sink->message, sizeof sink->message,
             "cannot create the PNG encoder");
    goto fail;
  }
  info = png_create_info_struct(png);
  if (!info) {
    sink->out_of_memory = 1;
    snprintf(sink->message, sizeof sink->message,
             "cannot create the PNG header");
    goto fail;
  }
  if (setjmp(png_jmpbuf(png)))
    goto fail;
  png_set_write_fn(png, sink, png_sink_write, png_sink_flush);
  png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t row = 0; row < height; ++row)
    png_write_row(png, pixels + (size_t)row * width * 3);
  png_write_end(png, info);
  outcome = 0;
fail:
  if (png)
    png_destroy_write_struct(&png, &info);
  return outcome;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Blue (0) through light grey (0.5) to red (1). */
static void speed_colour(double fraction, uint8_t rgb[3]) {
  static const double stops[3][3] = {
      {59, 76, 192}, {221, 221, 221}, {180, 4, 38}};
  if (!(fraction > 0))
    fraction = 0;
  if (fraction > 1)
    fraction = 1;
  int low = fraction < 0.5 ? 0 : 1;
  double t = fraction < 0.5 ? 2 * fraction : 2 * fraction - 1;
  for (int c = 0; c < 3; ++c)
    rgb[c] = (uint8_t)lround(stops[low][c] +
                             t * (stops[low + 1][c] - stops[low][c]));
}

/* value wrapped into [0, side]. */
static double wrap(double value, double side) {
  double wrapped = value - side * floor(value / side);
  return wrapped >= 0 && wrapped <= side ? wrapped : 0;
}

/* Fills the pixels whose centres lie within radius of (x, y). */
static void draw_disc(uint8_t *pixels, uint32_t width, uint32_t height,
                      double x, double y, double radius, const uint8_t rgb[3]) {
  double left = fmax(0, floor(x - radius)),
         right = fmin(width - 1.0, x + radius);
  double top = fmax(0, floor(y - radius)),
         bottom = fmin(height - 1.0, y + radius);
  if (left > right || top > bottom)
    return;
  for (uint32_t row = (uint32_t)top; row <= (uint32_t)bottom; ++row)
    for (uint32_t column = (uint32_t)left; column <= (uint32_t)right;
         ++column) {
      double dx = column + 0.5 - x, dy = row + 0.5 - y;
      if (dx * dx + dy * dy <= radius * radius)
        memcpy(pixels + ((size_t)row * width + column) * 3, rgb, 3);
    }
}

ck_status ck__gas_png_write(const char *path, size_t particles, double box_x,
                            double box_y, const double *positions,
                            const double *velocities, unsigned width) {
  ck_status status = CK_OK;
  uint8_t *pixels = NULL;
  double *speeds = NULL, *sorted = NULL;
  png_sink sink = {0};
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_png_write: no file name given");
  CK_TRY(check_configuration("ck__gas_png_write", particles, box_x, box_y,
                             positions, velocities));
  if (width < 1 || width > CK__GAS_PNG_MAX_SIDE)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_png_write: width %u is outside 1..%u", width,
                    CK__GAS_PNG_MAX_SIDE);

  /* width pixels along the longer side. */
  double longer = fmax(box_x, box_y);
  uint32_t image_width =
      (uint32_t)fmax(1, lround((double)width * box_x / longer));
  uint32_t image_height =
      (uint32_t)fmax(1, lround((double)width * box_y / longer));
  double scale_x = image_width / box_x, scale_y = image_height / box_y;
  double radius = fmax(1, 0.5 * fmin(scale_x, scale_y));
  size_t bytes = (size_t)image_width * image_height * 3;
  pixels = malloc(bytes);
  if (!pixels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: %zu bytes for a %" PRIu32 " x %" PRIu32
            " picture",
            path, bytes, image_width, image_height);
  for (size_t i = 0; i < bytes; i += 3) {
    pixels[i] = 12;
    pixels[i + 1] = 12;
    pixels[i + 2] = 20;
  }

  /* Speeds scaled by the 99th percentile, so that one fast particle does
   * not leave all the others blue. */
  double top_speed = 0;
  if (velocities) {
    speeds = malloc(particles * sizeof *speeds);
    sorted = malloc(particles * sizeof *sorted);
    if (!speeds || !sorted)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "out of memory writing %s: speeds of %zu particles", path,
              particles);
    for (size_t i = 0; i < particles; ++i)
      speeds[i] = sorted[i] = hypot(velocities[2 * i], velocities[2 * i + 1]);
    qsort(sorted, particles, sizeof *sorted, compare_doubles);
    top_speed = sorted[(size_t)(0.99 * (double)(particles - 1))];
  }
  for (size_t i = 0; i < particles; ++i) {
    uint8_t rgb[3];
    double fraction = 0.5;
    if (velocities)
      fraction = top_speed > 0 ? speeds[i] / top_speed : 0;
    speed_colour(fraction, rgb);
    double x = wrap(positions[2 * i], box_x) * scale_x;
    double y = (box_y - wrap(positions[2 * i + 1], box_y)) * scale_y;
    draw_disc(pixels, image_width, image_height, x, y, radius, rgb);
  }

  if (png_encode(&sink, pixels, image_width, image_height) != 0)
    CK_FAIL(sink.out_of_memory ? CK_ERROR_OUT_OF_MEMORY : CK_ERROR_IO,
            "cannot write %s: libpng: %s", path, sink.message);
  CK_TRY(ck__file_write_atomic(path, sink.data, sink.size));

fail:
  free(pixels);
  free(speeds);
  free(sorted);
  free(sink.data);
  return status;
}

#else /* no libpng */

ck_status ck__gas_png_write(const char *path, size_t particles, double box_x,
                            double box_y, const double *positions,
                            const double *velocities, unsigned width) {
  (void)particles;
  (void)box_x;
  (void)box_y;
  (void)positions;
  (void)velocities;
  (void)width;
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "%s: PNG output needs libpng; clkit was built without it",
                  path ? path : "(no file name)");
}

#endif
