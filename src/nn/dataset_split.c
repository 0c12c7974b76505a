/*
 * Splits of a data set (clkit/dataset.h): a head and a tail, cut at a row
 * or drawn at random from a seed.
 */
#include "util/util.h"

#include "clkit/dataset.h"

#include "nn/nn_internal.h"

#include "ck_philox.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The Philox stream of ck_dataset_split_random ("dsplit" in ASCII). */
#define SPLIT_STREAM UINT64_C(0x00006473706c6974)

/* Copies the count rows r of [begin, end) with !in_tail or in_tail[r] ==
 * want into *out. */
static ck_status copy_rows(const ck_dataset *source, size_t begin, size_t end,
                           const uint8_t *in_tail, uint8_t want, size_t count,
                           ck_dataset *out, const char *function) {
  ck_status status = CK_OK;
  ck_dataset part;
  size_t features = source->features;
  memset(&part, 0, sizeof part);
  part.rows = count;
  part.features = features;
  part.values = malloc(count * features * sizeof *part.values);
  part.labels = malloc(count * sizeof *part.labels);
  if (!part.values || !part.labels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for %zu rows of %zu features", function, count,
            features);
  if (source->class_names)
    CK_TRY(ck__dataset_copy_class_names(source->class_names, source->classes,
                                        &part.class_names, function));
  part.classes = source->classes;
  size_t at = 0;
  for (size_t r = begin; r < end && at < count; ++r) {
    if (in_tail && in_tail[r] != want)
      continue;
    memcpy(part.values + at * features, source->values + r * features,
           features * sizeof *part.values);
    part.labels[at] = source->labels[r];
    ++at;
  }
  *out = part;
  return CK_OK;

fail:
  ck_dataset_free(&part);
  return status;
}

static ck_status check_parts(const ck_dataset *dataset, const ck_dataset *head,
                             const ck_dataset *tail, const char *function) {
  if (head && head == tail)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: head and tail are the same data set", function);
  if (head == dataset || tail == dataset)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: head or tail is the data set being split", function);
  return CK_OK;
}

/* On a failure: frees the parts made and clears the caller's, but where
 * one is the data set itself (check_parts refused it). */
static void drop_parts(const ck_dataset *dataset, ck_dataset *head_part,
                       ck_dataset *tail_part, ck_dataset *head,
                       ck_dataset *tail) {
  ck_dataset_free(head_part);
  ck_dataset_free(tail_part);
  if (head && head != dataset)
    memset(head, 0, sizeof *head);
  if (tail && tail != dataset)
    memset(tail, 0, sizeof *tail);
}

ck_status ck_dataset_split(const ck_dataset *dataset, size_t first,
                           ck_dataset *head, ck_dataset *tail) {
  static const char function[] = "ck_dataset_split";
  ck_status status = CK_OK;
  ck_dataset head_part, tail_part;
  memset(&head_part, 0, sizeof head_part);
  memset(&tail_part, 0, sizeof tail_part);
  CK_TRY(ck__dataset_check(dataset, function));
  CK_TRY(check_parts(dataset, head, tail, function));
  if (first == 0 || first >= dataset->rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: first is %zu; it must lie in 1 .. %zu, as the data set has "
            "%zu rows",
            function, first, dataset->rows - 1, dataset->rows);
  if (head)
    CK_TRY(copy_rows(dataset, 0, first, NULL, 0, first, &head_part, function));
  if (tail)
    CK_TRY(copy_rows(dataset, first, dataset->rows, NULL, 0,
                     dataset->rows - first, &tail_part, function));
  if (head)
    *head = head_part;
  if (tail)
    *tail = tail_part;
  return CK_OK;

fail:
  drop_parts(dataset, &head_part, &tail_part, head, tail);
  return status;
}

/* A uniform integer in [0, bound) from one Philox block (bound >= 1). */
static size_t uniform_below(ck_philox_counter block, size_t bound) {
  if ((uint64_t)bound <= UINT64_C(0x100000000))
    return (size_t)(((uint64_t)block.v[0] * (uint64_t)bound) >> 32);
  uint64_t wide = (uint64_t)block.v[1] << 32 | block.v[0];
  return (size_t)(wide % (uint64_t)bound);
}

ck_status ck_dataset_split_random(const ck_dataset *dataset, double fraction,
                                  uint64_t seed, ck_dataset *head,
                                  ck_dataset *tail) {
  static const char function[] = "ck_dataset_split_random";
  ck_status status = CK_OK;
  ck_dataset head_part, tail_part;
  size_t *order = NULL;
  uint8_t *in_tail = NULL;
  memset(&head_part, 0, sizeof head_part);
  memset(&tail_part, 0, sizeof tail_part);
  CK_TRY(ck__dataset_check(dataset, function));
  CK_TRY(check_parts(dataset, head, tail, function));
  if (!(fraction > 0.0 && fraction < 1.0))
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%s: fraction %g is outside (0, 1)",
            function, fraction);
  size_t rows = dataset->rows;
  double wanted = floor(fraction * (double)rows + 0.5);
  if (wanted < 1.0 || wanted >= (double)rows)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "%s: a fraction of %g of %zu rows leaves %s part empty", function,
            fraction, rows, wanted < 1.0 ? "the tail" : "the head");
  size_t count = (size_t)wanted;

  order = malloc(rows * sizeof *order);
  in_tail = calloc(rows, 1);
  if (!order || !in_tail)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu rows", function,
            rows);
  for (size_t r = 0; r < rows; ++r)
    order[r] = r;
  /* The first count steps of a Fisher-Yates shuffle draw the tail. */
  for (size_t i = 0; i < count; ++i) {
    ck_philox_counter block = ck_philox_block(seed, SPLIT_STREAM, i);
    size_t j = i + uniform_below(block, rows - i);
    size_t swap = order[i];
    order[i] = order[j];
    order[j] = swap;
    in_tail[order[i]] = 1;
  }
  if (head)
    CK_TRY(copy_rows(dataset, 0, rows, in_tail, 0, rows - count, &head_part,
                     function));
  if (tail)
    CK_TRY(
        copy_rows(dataset, 0, rows, in_tail, 1, count, &tail_part, function));
  free(order);
  free(in_tail);
  if (head)
    *head = head_part;
  if (tail)
    *tail = tail_part;
  return CK_OK;

fail:
  free(order);
  free(in_tail);
  drop_parts(dataset, &head_part, &tail_part, head, tail);
  return status;
}
