/*
 * tsplib_internal.h - what the TSPLIB readers (tsplib.c,
 * tsplib_sections.c, tours.c, optima.c) share among themselves: the line
 * helpers, the names of metrics and weight formats, and the instance
 * reader's state.
 */
#ifndef CK_TSPLIB_INTERNAL_H
#define CK_TSPLIB_INTERNAL_H

#include "util/util.h"

#include "clkit/tsp.h"

#include <stddef.h>
#include <stdint.h>

/* EDGE_WEIGHT_FORMAT values the reader takes. */
typedef enum ck__tsp_weight_format {
  CK__TSP_FORMAT_NONE = 0,
  CK__TSP_FORMAT_FUNCTION, /* allowed with a coordinate metric; no matrix */
  CK__TSP_FORMAT_FULL_MATRIX,
  CK__TSP_FORMAT_UPPER_ROW,
  CK__TSP_FORMAT_LOWER_DIAG_ROW,
  CK__TSP_FORMAT_UPPER_DIAG_ROW
} ck__tsp_weight_format;

/* A section read node by node (NODE_COORD_SECTION, DISPLAY_DATA_SECTION). */
typedef struct ck__tsp_node_block {
  const char *title;
  double *x, *y;
  uint8_t *seen; /* one flag per id */
  size_t count;  /* nodes read */
  size_t line;   /* where the section began; 0 while absent */
} ck__tsp_node_block;

typedef enum ck__tsp_section {
  CK__TSP_SECTION_NONE = 0,
  CK__TSP_SECTION_NODES,
  CK__TSP_SECTION_DISPLAY,
  CK__TSP_SECTION_WEIGHTS
} ck__tsp_section;

/* The instance reader's state: the header keywords seen, and the section
 * being read. */
typedef struct ck__tsp_reader {
  ck__text_lines lines;
  int content; /* a line other than blanks was seen */
  char name[sizeof((ck_tsp_instance *)0)->name];
  char comment[sizeof((ck_tsp_instance *)0)->comment];
  /* Where each header keyword was given; 0 while absent. */
  size_t name_line, comment_line, type_line, dimension_line, metric_line,
      format_line, display_type_line, coord_type_line;
  uint32_t cities;
  ck_tsp_metric metric;
  ck__tsp_weight_format format;
  ck__tsp_node_block coords, display;
  /* EDGE_WEIGHT_SECTION: values as read, weights_needed of them. */
  int32_t *weights;
  size_t weight_count, weight_capacity, weights_needed, weights_line;
  size_t row, column;      /* of the next weight in the full matrix, 0-based */
  ck__tsp_section current; /* the section being read */
  ck__tsp_section
      ended; /* the section completed last, for "too many" messages */
} ck__tsp_reader;

/* ---- the line helpers (tsplib.c) ---- */

/* Splits "KEY : VALUE", "KEY: VALUE" or "KEY" in place. *value is NULL
 * when the line has no ':' and otherwise the trimmed text after it. */
void ck__tsp_split_keyword(char *line, char **key, char **value);

/* The next line, its newline and surrounding blanks cut off, or NULL at the
 * end of the text. */
ck_status ck__tsp_next_line(ck__text_lines *lines, char **line);

/* Splits "KEY : VALUE", or "KEY" alone (only sections and EOF come
 * without a value), in place; refuses a line that is neither. Instances
 * and tour files share it. */
ck_status ck__tsp_split_key_line(const ck__text_lines *lines, size_t at,
                                 char *line, char **key, char **value);

/* 4 when name ends in TSPLIB's file extension, ".tsp" in any case, after
 * something else; 0 otherwise. */
size_t ck__tsp_extension(const char *name);

/* The names of the metrics, by ck_tsp_metric, and of the weight formats,
 * by ck__tsp_weight_format (tsplib.c). */
extern const char *const ck__tsp_metric_names[5];
extern const char *const ck__tsp_format_names[6];

/* ---- the data sections (tsplib_sections.c) ---- */

/* The count of EDGE_WEIGHT_SECTION's values in format for n cities. */
size_t ck__tsp_weights_for(ck__tsp_weight_format format, size_t n);

/* Allocates a node section's arrays for the reader's cities. */
ck_status ck__tsp_open_node_block(ck__tsp_reader *reader,
                                  ck__tsp_node_block *block);

/* Frees a node section's arrays; they may be NULL. */
void ck__tsp_free_node_block(ck__tsp_node_block *block);

/* One "id x y" line of a node section. */
ck_status ck__tsp_read_node(ck__tsp_reader *reader, ck__tsp_node_block *block,
                            char *line);

/* The values of one line of EDGE_WEIGHT_SECTION. */
ck_status ck__tsp_read_weights(ck__tsp_reader *reader, char *line);

/* The full n x n matrix from the values of the file's format; a full
 * matrix is taken from the reader as it stands. */
ck_status ck__tsp_expand_matrix(ck__tsp_reader *reader, int32_t **matrix);

#endif /* CK_TSPLIB_INTERNAL_H */
