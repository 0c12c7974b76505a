/*
 * plot.h - charts of a run's history (--plot FILE.svg or FILE.png): the
 * optimisers' best value over time, the gas's energies, temperature and
 * pressure over its steps, the MLP's loss and accuracy per epoch.
 *
 * A workload describes its chart as series: a name, the y axis it is
 * drawn on (a label with its unit), x and y arrays. Series on one axis
 * share a panel; panels are stacked over one x axis. One writer draws
 * every workload's chart, as a self-contained SVG (no script, no external
 * font or link) or as a PNG of the same layout (a built-in bitmap font).
 *
 * A panel's y axis is logarithmic where its values are all above 0 and
 * span two decades or more; a value at or below 0 keeps it linear.
 * Points that are not finite are left out of their line.
 */
#ifndef CK_PLOT_H
#define CK_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/workload.h"
#include "framework/history.h"

enum { CK__PLOT_MAX_SERIES = 8, CK__PLOT_MAX_PANELS = 4 };

typedef struct ck__plot_series {
  const char *name; /* in the legend: "potential" */
  /* Its y axis, with the unit: "energy per particle (ε)". Series of one
   * axis share a panel, the panels in the order their axes come. */
  const char *axis;
  const double *x, *y; /* count points, stride doubles apart (0: 1) */
  size_t count, stride;
  /* A best so far, known where it improved: the line holds each value
   * level until the next point (2 count - 1 vertices), and the last until
   * x = until where that lies past it (one vertex more). */
  int steps;
  double until;
} ck__plot_series;

typedef struct ck__plot {
  /* The title, "WORKLOAD on DEVICE: WHAT", and the subtitle, "DEVICE NAME
   * · seed N · DETAILS" (the key options), from the run's result: its
   * workload, device and seed. details may be NULL. */
  const ck_result *result;
  const char *what, *details;
  const char *x_label; /* with the unit: "time (s)" */
  /* Optional: a second scale of x along the top, top_value[i] at
   * top_x[i], both increasing (stride doubles apart, 0: 1): iterations
   * over seconds. NULL top_label: none. */
  const char *top_label;
  const double *top_x, *top_value;
  size_t top_count, top_stride;
  const ck__plot_series *series;
  size_t series_count; /* 1 to CK__PLOT_MAX_SERIES */
} ck__plot;

/* The option --plot of params into *path (NULL when not given): a path
 * ending in .svg or .png, letters in any case. Returns CK_OK;
 * CK_ERROR_INVALID_ARGUMENT naming the option for another ending;
 * CK_ERROR_UNSUPPORTED naming it for .png where clkit was built without
 * libpng. */
ck_status ck__plot_option(const ck_param *params, size_t count,
                          const char **path);

/* Writes the chart to path (SVG or PNG, by its ending), atomically.
 * Returns CK_OK; CK_ERROR_INVALID_ARGUMENT for a chart without series or
 * with more than the limits; CK_ERROR_IO naming path;
 * CK_ERROR_OUT_OF_MEMORY; CK_ERROR_UNSUPPORTED for PNG without libpng. */
ck_status ck__plot_write(const char *path, const ck__plot *plot);

/* The seconds at which a run reached `steps`, from its timeline
 * (ck__loop_rules.timeline: rows of steps and seconds, one a read),
 * interpolated between its reads; its first or last row's seconds
 * outside them, and NaN for an empty timeline. */
double ck__plot_timeline_seconds(const ck__history *timeline, double steps);

#endif /* CK_PLOT_H */
