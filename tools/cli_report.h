/*
 * cli_report.h - what bench's and compare's report writers share: the
 * text they grow and figures in words (cli_report.c), for the text,
 * JSON, CSV and Markdown writers there and the HTML page
 * (cli_report_html.c).
 */
#ifndef CK_CLI_REPORT_H
#define CK_CLI_REPORT_H

#include <stddef.h>

#include "cli_bench.h"

/* A text that grows as it is written; zeroed to begin. After a failed
 * allocation it takes no more, and cli_text_finish gives NULL. */
typedef struct cli_text {
  char *data;
  size_t used, capacity;
  int failed;
} cli_text;

/* Appends printf's output to t. */
void cli_put(cli_text *t, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* The text, handed to the caller (NULL when it could not be made). */
char *cli_text_finish(cli_text *t);

/* Figures in words: each writes into buffer (of size bytes) and returns
 * it, "-" for none. A number in 3 significant digits ("1.20e+06"); a
 * speed-up ("12.3x"); a row's percent of its bounding peak, and which
 * ("42.5% memory"). */
const char *cli_figure(char *buffer, size_t size, double value);
const char *cli_times(char *buffer, size_t size, double value);
const char *cli_percent(char *buffer, size_t size, const cli_bench_row *row);

/* The device's kind in words ("gpu"). */
const char *cli_kind_name(const ck_device *device);

#endif
