/*
 * fuzz_model.c - model files, .ckn (ck_nn_load on the ref device). The
 * low bit of the first byte says whether the rest gets a fresh SHA-256
 * after it or is read as it is (fuzz.h). An accepted model must have the
 * layer widths of the file's header, and a name for every output class.
 */
#include "fuzz.h"

#include "clkit/dataset.h"
#include "clkit/nn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_file file;
  const char *path = fuzz_sealed_file(&file, data, size);
  ck_nn *nn = NULL;
  if (ck_nn_load(fuzz_ref_device(), path, NULL, &nn) != CK_OK) {
    FUZZ_CHECK(nn == NULL);
    return 0;
  }
  ck_nn_config config;
  FUZZ_CHECK(ck_nn_describe(nn, &config) == CK_OK);
  /* The header: magic, version, then the count of widths at byte 12 and
   * the widths from byte 32 (docs/nn.md). */
  const uint8_t *header = data + 1;
  FUZZ_CHECK(config.layer_count == ck__get_u32(header + 12));
  for (size_t l = 0; l < config.layer_count; ++l)
    FUZZ_CHECK(config.sizes[l] == ck__get_u32(header + 32 + 4 * l));
  char name[CK_DATASET_MAX_NAME + 1];
  for (size_t k = 0; k < config.sizes[config.layer_count - 1]; ++k)
    FUZZ_CHECK(ck_nn_get_class_name(nn, k, name, sizeof name) == CK_OK &&
               name[0]);
  ck_nn_destroy(nn);
  return 0;
}
