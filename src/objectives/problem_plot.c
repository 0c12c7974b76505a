/*
 * problem_plot.c - the chart of an optimiser's run (--plot): its best
 * value, and the GA's mean, over the run's seconds, the iterations or
 * generations along the top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/plot.h"
#include "objectives/problem.h"

ck_status ck__problem_plot(const ck__problem_job *job, const ck_result *result,
                           const char *step, const char *details,
                           const double *const *columns,
                           const char *const *names, size_t column_count,
                           size_t count, uint64_t stride,
                           const ck__history *timeline) {
  ck_status status = CK_OK;
  size_t every = ck__history_show_every(count);
  size_t shown =
      count ? (count - 1) / every + 1 + ((count - 1) % every != 0) : 0;
  /* A row a point: seconds, steps, then each column. */
  size_t width = 2 + column_count;
  double *rows = malloc((shown ? shown : 1) * width * sizeof *rows);
  if (!rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s",
                    job->plot);
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i % every && i + 1 != count)
      continue;
    double *row = rows + used++ * width;
    row[1] = (double)i * (double)stride;
    row[0] = ck__plot_timeline_seconds(timeline, row[1]);
    for (size_t c = 0; c < column_count; ++c)
      row[2 + c] = columns[c][i];
  }
  ck__plot_series series[CK__PLOT_MAX_SERIES];
  for (size_t c = 0; c < column_count; ++c)
    series[c] = (ck__plot_series){.name = names[c],
                                  .axis = "objective value",
                                  .x = rows,
                                  .y = rows + 2 + c,
                                  .count = used,
                                  .stride = width};
  const ck__problem_spec *spec = &job->spec;
  char what[200];
  snprintf(what, sizeof what, "%s, %d dimension%s",
           spec->function      ? spec->function
           : spec->source_name ? spec->source_name
                               : "a host objective",
           spec->dim, spec->dim == 1 ? "" : "s");
  const ck__plot plot = {.result = result,
                         .what = what,
                         .details = details,
                         .x_label = "time (s)",
                         .top_label = step,
                         .top_x = rows,
                         .top_value = rows + 1,
                         .top_count = used,
                         .top_stride = width,
                         .series = series,
                         .series_count = column_count};
  status = ck__plot_write(job->plot, &plot);
  free(rows);
  return status;
}
