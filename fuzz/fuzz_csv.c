/*
 * fuzz_csv.c - CSV data sets (ck_dataset_load). The input is
 *   byte 0   options: bits 0-1 the label column (0, last, 1, 2); bits 2-3
 *            the header (decide, none, one, decide); bits 4-5 labelled
 *            (yes, no, decide, yes); bits 6-7 the features expected (0,
 *            1, 2, 3; 2 where 0 and labelled is "decide", which needs it)
 *   byte 1   bits 0-1 the class limit (0, 2, 3, 65536); bit 2 loads the
 *            file a second time with the classes of the first; bit 3
 *            loads it as training rows (one label value is refused)
 *   then     the file.
 * An accepted set must be as clkit/dataset.h describes it.
 */
#include "fuzz.h"

#include <math.h>

#include "clkit/dataset.h"
#include "nn/nn_internal.h"

static void check_dataset(const ck_dataset *dataset,
                          const ck_dataset_options *options) {
  FUZZ_CHECK(dataset->rows >= 1 && dataset->features >= 1);
  FUZZ_CHECK(!options->features || dataset->features == options->features);
  FUZZ_CHECK(dataset->classes <= CK_DATASET_MAX_CLASSES);
  for (size_t i = 0; i < dataset->rows * dataset->features; ++i)
    FUZZ_CHECK(isfinite(dataset->values[i]));
  for (size_t r = 0; r < dataset->rows; ++r)
    FUZZ_CHECK(dataset->labels[r] >= 0 &&
               (size_t)dataset->labels[r] <
                   (dataset->classes ? dataset->classes : 1));
  for (size_t k = 0; dataset->class_names && k < dataset->classes; ++k) {
    const char *name = dataset->class_names[k];
    FUZZ_CHECK(name && *name && strlen(name) <= CK_DATASET_MAX_NAME);
    /* In strcmp() order, so each once. */
    FUZZ_CHECK(k == 0 || strcmp(dataset->class_names[k - 1], name) < 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  static const int columns[] = {0, -1, 1, 2}, headers[] = {-1, 0, 1, -1},
                   labelled[] = {1, 0, -1, 1};
  static const size_t limits[] = {0, 2, 3, 65536};
  if (size < 2)
    return 0;
  ck_dataset_options options;
  ck_dataset_options_init(&options);
  options.label_column = columns[data[0] & 3];
  options.header = headers[data[0] >> 2 & 3];
  options.labelled = labelled[data[0] >> 4 & 3];
  options.features = data[0] >> 6;
  if (options.labelled == -1 && options.features == 0)
    options.features = 2;
  options.class_limit = limits[data[1] & 3];
  int again = data[1] & 4;
  const char *path = fuzz_file_write(&file, data + 2, size - 2, NULL, 0);

  ck_dataset first, second;
  ck__dataset_request request = {.required = CK__DATASET_CSV,
                                 .training = data[1] & 8 ? 1 : 0};
  if (ck__dataset_load(path, &options, &request, &first) != CK_OK)
    return 0;
  FUZZ_CHECK(request.format == CK__DATASET_CSV);
  check_dataset(&first, &options);
  if (again && first.classes) {
    options.classes_from = &first;
    if (ck__dataset_load(path, &options, &request, &second) == CK_OK) {
      check_dataset(&second, &options);
      FUZZ_CHECK(second.classes == first.classes);
      ck_dataset_free(&second);
    }
  }
  ck_dataset_free(&first);
  return 0;
}
