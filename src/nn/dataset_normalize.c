/*
 * Per-feature normalisation of a data set (clkit/dataset.h): z-score or
 * min-max, fitted to one data set and applied to any of its width.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "nn/nn_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A spread below this, relative to a feature's largest magnitude, counts
 * as a constant feature. */
#define CONSTANT_RELATIVE 1e-12

/* The scale for a spread (stddev or range) of a feature whose values
 * reach magnitude: 1 for a constant feature. */
static float scale_for(double spread, double magnitude) {
  if (!(spread > CONSTANT_RELATIVE * magnitude) || !(spread > 0.0))
    return 1.0f;
  double scale = 1.0 / spread;
  if (!(scale <= FLT_MAX))
    return 1.0f;
  return (float)scale;
}

/* Fits offset and scale of each feature for kind (ZSCORE or MINMAX), in
 * work of 3 doubles a feature. */
static void fit_features(const ck_dataset *dataset, ck_normalization_kind kind,
                         double *work, float *offset, float *scale) {
  size_t rows = dataset->rows, features = dataset->features;
  /* ZSCORE: sum, sum of squared deviations, largest magnitude.
   * MINMAX: min, max. */
  double *first = work, *second = work + features,
         *magnitude = work + 2 * features;
  const float *values = dataset->values;
  for (size_t f = 0; f < features; ++f) {
    first[f] = kind == CK_NORMALIZE_ZSCORE ? 0.0 : values[f];
    second[f] = kind == CK_NORMALIZE_ZSCORE ? 0.0 : values[f];
    magnitude[f] = 0.0;
  }
  for (size_t r = 0; r < rows; ++r) {
    const float *row = values + r * features;
    for (size_t f = 0; f < features; ++f) {
      double x = row[f];
      if (kind == CK_NORMALIZE_ZSCORE) {
        first[f] += x;
        if (fabs(x) > magnitude[f])
          magnitude[f] = fabs(x);
      } else {
        if (x < first[f])
          first[f] = x;
        if (x > second[f])
          second[f] = x;
      }
    }
  }
  if (kind == CK_NORMALIZE_ZSCORE) {
    for (size_t f = 0; f < features; ++f)
      first[f] /= (double)rows;
    for (size_t r = 0; r < rows; ++r) {
      const float *row = values + r * features;
      for (size_t f = 0; f < features; ++f) {
        double deviation = row[f] - first[f];
        second[f] += deviation * deviation;
      }
    }
    for (size_t f = 0; f < features; ++f) {
      offset[f] = (float)first[f];
      scale[f] = scale_for(sqrt(second[f] / (double)rows), magnitude[f]);
    }
  } else {
    for (size_t f = 0; f < features; ++f) {
      double largest = fmax(fabs(first[f]), fabs(second[f]));
      offset[f] = (float)first[f];
      scale[f] = scale_for(second[f] - first[f], largest);
    }
  }
}

ck_status ck_dataset_normalization_fit(const ck_dataset *dataset,
                                       ck_normalization_kind kind,
                                       ck_normalization *normalization) {
  static const char function[] = "ck_dataset_normalization_fit";
  ck_status status = CK_OK;
  float *offset = NULL, *scale = NULL;
  double *work = NULL;
  if (!normalization)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: normalization is NULL",
                    function);
  memset(normalization, 0, sizeof *normalization);
  CK_TRY(ck__dataset_check(dataset, function));
  if (kind != CK_NORMALIZE_NONE && kind != CK_NORMALIZE_ZSCORE &&
      kind != CK_NORMALIZE_MINMAX)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s: unknown normalisation kind %d",
            function, (int)kind);
  size_t features = dataset->features;
  if (kind == CK_NORMALIZE_NONE) {
    normalization->kind = kind;
    normalization->features = features;
    return CK_OK;
  }
  if (features > SIZE_MAX / 3 / sizeof *work)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: %zu features overflow memory",
            function, features);
  offset = malloc(features * sizeof *offset);
  scale = malloc(features * sizeof *scale);
  work = malloc(3 * features * sizeof *work);
  if (!offset || !scale || !work)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu features",
            function, features);
  fit_features(dataset, kind, work, offset, scale);
  free(work);
  normalization->kind = kind;
  normalization->features = features;
  normalization->offset = offset;
  normalization->scale = scale;
  return CK_OK;

fail:
  free(offset);
  free(scale);
  free(work);
  return status;
}

ck_status ck_dataset_normalize(const ck_normalization *normalization,
                               ck_dataset *dataset) {
  static const char function[] = "ck_dataset_normalize";
  if (!normalization)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: normalization is NULL",
                    function);
  if (normalization->kind == CK_NORMALIZE_NONE) {
    /* Nothing to apply, but a normalisation fitted to another width is
     * still the wrong one for this data set. */
    if (!dataset)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: dataset is NULL",
                      function);
    if (normalization->features != dataset->features)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: the normalisation has %zu features, the data set "
                      "%zu",
                      function, normalization->features, dataset->features);
    return CK_OK;
  }
  if (normalization->kind != CK_NORMALIZE_ZSCORE &&
      normalization->kind != CK_NORMALIZE_MINMAX)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: unknown normalisation kind %d", function,
                    (int)normalization->kind);
  if (!normalization->offset || !normalization->scale)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the normalisation's offset or scale is NULL",
                    function);
  ck_status status = ck__dataset_check(dataset, function);
  if (status != CK_OK)
    return status;
  if (normalization->features != dataset->features)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the normalisation has %zu features, the data set %zu",
                    function, normalization->features, dataset->features);
  size_t features = dataset->features;
  for (size_t r = 0; r < dataset->rows; ++r) {
    float *row = dataset->values + r * features;
    for (size_t f = 0; f < features; ++f)
      row[f] = (float)(((double)row[f] - normalization->offset[f]) *
                       normalization->scale[f]);
  }
  return CK_OK;
}

ck_status ck_dataset_normalization_free(ck_normalization *normalization) {
  if (!normalization)
    return CK_OK;
  free(normalization->offset);
  free(normalization->scale);
  memset(normalization, 0, sizeof *normalization);
  return CK_OK;
}
