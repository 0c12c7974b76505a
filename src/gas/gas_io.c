/*
 * gas_io.c - the extended XYZ reader of the two-dimensional gas, and the
 * check for coincident particles. The writers are gas_io_write.c's, the
 * PNG pictures gas_png.c's.
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
 */
#include "gas/gas_io.h"

#include "clkit/gas.h"
#include "util/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Particles the reader makes room for first. */
#define FIRST_CAPACITY ((size_t)1024)
/* The most columns one property may span. */
#define PROPERTY_MAX_COLUMNS ((size_t)10000)
/* Room for one line of the RDF file: three numbers and separators. */

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
  size_t columns;                       /* on every particle line */
  size_t needed;                        /* columns up to the last one read */
  size_t pos_column, pos_count;         /* first column (from 0); 2 or 3 */
  size_t velo_column, velo_count;       /* velo_count 0: no velo */
  size_t momenta_column, momenta_count; /* momenta_count 0: no momenta */
  size_t mass_column;                   /* where mass_name is given */
  const char *mass_name;                /* masses or mass; NULL: none */
  size_t species_column;                /* where have_species is set */
  int have_species;
} column_layout;

/* Names of per-particle motion, in any case. Only velo and momenta, so
 * spelled, are read (ASE writes momenta, OVITO velo); a column of another
 * of these names is refused rather than skipped, since the run would
 * draw new velocities in its place. */
static const char *const motion_names[] = {
    "velo", "momenta", "vel",      "vels", "velocity", "velocities", "v", "vx",
    "vy",   "vz",      "momentum", "px",   "py",       "pz",         NULL};

/* Whether name (any case) is one of motion_names. */
static int names_motion(const char *name) {
  for (const char *const *motion = motion_names; *motion; ++motion)
    if (strcasecmp(name, *motion) == 0)
      return 1;
  return 0;
}

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

/* Cuts property number property, name:type:count, from *at in place into
 * parts, and checks its name, type and *count; *more when another
 * follows. whole is the Properties value, for messages. */
static ck_status cut_property(const ck__text_lines *reader, char **at,
                              size_t property, const char *whole,
                              char *parts[3], size_t *count, int *more) {
  for (int part = 0; part < 3; ++part) {
    parts[part] = *at;
    while (**at && **at != ':')
      ++*at;
    if (part < 2 && **at != ':')
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Properties \"%s\" must be name:type:count "
                              "triples; property %zu is cut short",
                              whole, property);
    *more = **at == ':';
    if (**at)
      *(*at)++ = '\0';
  }
  const char *name = parts[0], *type = parts[1], *count_text = parts[2];
  if (!*name)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Properties: property %zu has no name", property);
  if (strlen(type) != 1 || !strchr("SRILsril", type[0]))
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Properties: %s has type \"%s\"; the types are S, "
                            "R, I and L",
                            ck__text_quote(name).text,
                            ck__text_quote(type).text);
  *count = 0;
  const char *digit = count_text;
  for (; *digit >= '0' && *digit <= '9' && *count <= PROPERTY_MAX_COLUMNS;
       ++digit)
    *count = *count * 10 + (size_t)(*digit - '0');
  if (digit == count_text || *digit || *count < 1 ||
      *count > PROPERTY_MAX_COLUMNS)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Properties: %s has column count \"%s\"; expected "
                            "1..%zu",
                            ck__text_quote(name).text,
                            ck__text_quote(count_text).text,
                            PROPERTY_MAX_COLUMNS);
  return CK_OK;
}

/* Records where a property (name, type, count; count columns) lies in
 * the layout read so far, or refuses it. */
static ck_status place_property(const ck__text_lines *reader,
                                column_layout *read, int *have_pos,
                                char *parts[3], size_t count) {
  const char *name = parts[0], *type = parts[1], *count_text = parts[2];
  int is_pos = strcmp(name, "pos") == 0;
  int is_velo = strcmp(name, "velo") == 0;
  int is_momenta = strcmp(name, "momenta") == 0;
  if (!is_velo && !is_momenta && names_motion(name))
    return ck__text_fail_at(
        CK_ERROR_PARSE, reader, 2,
        "Properties: %s holds per-particle motion in a form clkit does "
        "not read; give velocities as velo (R:2 or R:3) or momenta (R:2 "
        "or R:3, masses 1)",
        ck__text_quote(name).text);
  if (is_pos || is_velo || is_momenta) {
    if ((is_pos && *have_pos) || (is_velo && read->velo_count) ||
        (is_momenta && read->momenta_count))
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Properties names %s twice", name);
    if ((type[0] != 'R' && type[0] != 'r') || count < 2 || count > 3)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Properties: %s must be R:2 or R:3, found %s:%s",
                              name, ck__text_quote(type).text,
                              ck__text_quote(count_text).text);
    if (is_pos) {
      *have_pos = 1;
      read->pos_column = read->columns;
      read->pos_count = count;
    } else if (is_velo) {
      read->velo_column = read->columns;
      read->velo_count = count;
    } else {
      read->momenta_column = read->columns;
      read->momenta_count = count;
    }
  } else if (strcasecmp(name, "masses") == 0 || strcasecmp(name, "mass") == 0) {
    /* ASE writes masses, OVITO mass: either way clkit's particles have
     * mass 1, which every row must then say. */
    if (read->mass_name)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                              "Properties names masses twice (%s and %s)",
                              ck__text_quote(read->mass_name).text,
                              ck__text_quote(name).text);
    if ((type[0] != 'R' && type[0] != 'r') || count != 1)
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, 2, "Properties: %s must be R:1, found %s:%s",
          ck__text_quote(name).text, ck__text_quote(type).text,
          ck__text_quote(count_text).text);
    read->mass_name = name;
    read->mass_column = read->columns;
  } else if (strcmp(name, "species") == 0 && count == 1) {
    read->have_species = 1;
    read->species_column = read->columns;
  }
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
    size_t count = 0;
    int more = 0; /* a ':' after the count: another property follows */
    ck_status status =
        cut_property(reader, &at, property, whole.text, parts, &count, &more);
    if (status == CK_OK)
      status = place_property(reader, &read, &have_pos, parts, count);
    if (status != CK_OK)
      return status;
    read.columns += count;
    if (!more)
      break;
  }
  if (!have_pos)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, 2,
                            "Properties \"%s\" has no pos column (positions)",
                            whole.text);
  /* Without masses, ASE gives each particle its species' mass: 1 only for
   * X, its dummy species, which read_particle checks row by row. */
  if (read.momenta_count && !read.mass_name && !read.have_species)
    return ck__text_fail_at(
        CK_ERROR_PARSE, reader, 2,
        "Properties: momenta without masses or species: the velocities "
        "(momenta over masses) are unknown; add masses:R:1 of 1");
  read.needed = read.pos_column + read.pos_count;
  size_t ends[] = {
      read.velo_count ? read.velo_column + read.velo_count : 0,
      read.momenta_count ? read.momenta_column + read.momenta_count : 0,
      read.mass_name ? read.mass_column + 1 : 0,
      read.momenta_count && !read.mass_name ? read.species_column + 1 : 0};
  for (size_t i = 0; i < sizeof ends / sizeof ends[0]; ++i)
    read.needed = ends[i] > read.needed ? ends[i] : read.needed;
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
  *layout = (column_layout){
      .columns = 4, .needed = 4, .pos_column = 1, .pos_count = 3};
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
 * a third must be finite too, and 0 where column names a motion (a run is
 * two-dimensional: motion along z would be dropped). names are the
 * components' names for messages. */
static ck_status read_vector(const ck__text_lines *reader, size_t particle,
                             char **fields, size_t first, size_t count,
                             const char *const *names, const char *column,
                             double *out) {
  for (size_t k = 0; k < count; ++k) {
    double value = 0;
    ck__text_number_kind kind = ck__text_read_real(fields[first + k], &value);
    if (kind != CK__TEXT_NUMBER_OK)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, reader->line,
                              "particle %zu: %s \"%s\" %s", particle, names[k],
                              ck__text_quote(fields[first + k]).text,
                              number_problem(kind));
    if (k == 2 && column && value != 0)
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, reader->line,
          "particle %zu: %s has %s = %s, not 0: a run is two-dimensional",
          particle, column, names[k], ck__text_quote(fields[first + k]).text);
    if (k < 2 && out)
      out[k] = value;
  }
  return CK_OK;
}

/* The particle's mass, where a column gives it, and, for momenta without
 * masses, its species: both must mean mass 1. */
static ck_status check_mass(const ck__text_lines *reader, size_t particle,
                            char **fields, const column_layout *layout) {
  if (layout->mass_name) {
    const char *field = fields[layout->mass_column];
    double mass = 0;
    ck__text_number_kind kind = ck__text_read_real(field, &mass);
    if (kind != CK__TEXT_NUMBER_OK)
      return ck__text_fail_at(CK_ERROR_PARSE, reader, reader->line,
                              "particle %zu: %s \"%s\" %s", particle,
                              ck__text_quote(layout->mass_name).text,
                              ck__text_quote(field).text, number_problem(kind));
    if (mass != 1)
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, reader->line,
          "particle %zu: %s \"%s\" is not 1: clkit's particles have mass 1 "
          "(reduced units)",
          particle, ck__text_quote(layout->mass_name).text,
          ck__text_quote(field).text);
  } else if (layout->momenta_count) {
    const char *species = fields[layout->species_column];
    if (strcasecmp(species, "X") != 0)
      return ck__text_fail_at(
          CK_ERROR_PARSE, reader, reader->line,
          "particle %zu: momenta without masses: ASE gives species \"%s\" "
          "its element's mass, and clkit's particles have mass 1; add "
          "masses:R:1 of 1 or give velo",
          particle, ck__text_quote(species).text);
  }
  return CK_OK;
}

/* One particle line, its columns as layout says. velocity (NULL: none
 * read) comes from velo, else from momenta (mass 1); where both are given
 * they must agree to the digits ASE writes (8 decimals). */
static ck_status read_particle(const ck__text_lines *reader, char *line,
                               const column_layout *layout, size_t particle,
                               double *position, double *velocity) {
  static const char *const position_names[] = {"x", "y", "z"};
  static const char *const velocity_names[] = {"vx", "vy", "vz"};
  static const char *const momentum_names[] = {"px", "py", "pz"};
  size_t found = count_fields(line);
  if (found != layout->columns)
    return ck__text_fail_at(CK_ERROR_PARSE, reader, reader->line,
                            "particle %zu: expected %zu columns, found %zu",
                            particle, layout->columns, found);
  /* Only the columns up to the last one read need cutting. */
  size_t needed = layout->needed;
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
  double momentum[2] = {0, 0};
  ck_status status =
      read_vector(reader, particle, fields, layout->pos_column,
                  layout->pos_count, position_names, NULL, position);
  if (status == CK_OK && layout->velo_count)
    status = read_vector(reader, particle, fields, layout->velo_column,
                         layout->velo_count, velocity_names, "velo", velocity);
  if (status == CK_OK && layout->momenta_count)
    status =
        read_vector(reader, particle, fields, layout->momenta_column,
                    layout->momenta_count, momentum_names, "momenta", momentum);
  if (status == CK_OK)
    status = check_mass(reader, particle, fields, layout);
  if (status == CK_OK && layout->momenta_count && layout->velo_count) {
    for (int k = 0; k < 2 && status == CK_OK; ++k)
      if (fabs(velocity[k] - momentum[k]) >
          1e-6 * fmax(fabs(velocity[k]), fabs(momentum[k])) + 1e-8)
        status = ck__text_fail_at(
            CK_ERROR_PARSE, reader, reader->line,
            "particle %zu: velo gives %s = %.9g and momenta %s = %.9g, which "
            "at mass 1 differ; give one",
            particle, velocity_names[k], velocity[k], momentum_names[k],
            momentum[k]);
  } else if (status == CK_OK && layout->momenta_count) {
    velocity[0] = momentum[0];
    velocity[1] = momentum[1];
  }
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

/* Particle i's place as the search compares it: in float where single
 * is set, and -0 as 0. */
static void place_of(const double *positions, size_t i, int single, double *x,
                     double *y) {
  double px = positions[2 * i], py = positions[2 * i + 1];
  if (single) {
    /* Through volatile floats: GCC 12's SLP vectoriser at -O2 drops a
     * plain (double)(float)x round trip in such a loop. */
    volatile float rounded_x = (float)px, rounded_y = (float)py;
    px = rounded_x;
    py = rounded_y;
  }
  *x = px + 0.0;
  *y = py + 0.0;
}

static uint64_t place_hash(double x, double y) {
  uint64_t bits_x, bits_y;
  memcpy(&bits_x, &x, sizeof bits_x);
  memcpy(&bits_y, &y, sizeof bits_y);
  return ck__mix64(bits_x ^ ck__mix64(bits_y));
}

ck_status ck__gas_find_coincident(size_t particles, const double *positions,
                                  int single, size_t *first, size_t *second) {
  *first = *second = particles;
  if (particles < 2)
    return CK_OK;
  /* An open-addressed table at most half full, of the first particle
   * (index + 1; 0 empty) at each place: particles are entered in index
   * order, so the first to meet an entry is the second least there. */
  size_t capacity = 4;
  while (capacity < 2 * particles)
    capacity *= 2;
  size_t *table = calloc(capacity, sizeof *table);
  if (!table)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory comparing the positions of %zu particles",
                    particles);
  double best_x = 0, best_y = 0;
  for (size_t i = 0; i < particles; ++i) {
    double x, y;
    place_of(positions, i, single, &x, &y);
    size_t slot = (size_t)place_hash(x, y) & (capacity - 1);
    for (;; slot = (slot + 1) & (capacity - 1)) {
      if (!table[slot]) {
        table[slot] = i + 1;
        break;
      }
      double seen_x, seen_y;
      place_of(positions, table[slot] - 1, single, &seen_x, &seen_y);
      if (seen_x != x || seen_y != y)
        continue;
      /* The pair at the least place (x, then y) is the one reported. */
      if (*second == particles || x < best_x || (x == best_x && y < best_y)) {
        *first = table[slot] - 1;
        *second = i;
        best_x = x;
        best_y = y;
      }
      break;
    }
  }
  free(table);
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
  int moving = layout.velo_count || layout.momenta_count;
  read.velocity_column = layout.velo_count      ? "velo"
                         : layout.momenta_count ? "momenta"
                                                : NULL;
  for (size_t i = 0; i < read.particles; ++i) {
    CK_TRY(ck__text_next_line(&reader, &line));
    if (!line)
      CK__TEXT_FAIL_AT(
          CK_ERROR_PARSE, &reader, reader.line + 1,
          "truncated: the file ends after %zu of its %zu particle lines", i,
          read.particles);
    if (i == capacity)
      CK_TRY(grow_frame(&reader, &read, &capacity, moving));
    CK_TRY(read_particle(&reader, line, &layout, i + 1, read.positions + 2 * i,
                         moving ? read.velocities + 2 * i : NULL));
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
