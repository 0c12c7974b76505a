/*
 * model.c - MLP model files: safetensors, written for other tools, and
 * clkit's own (.ckn), which it writes and reads. A .ckn file holds the
 * architecture, the normalisation, the class names and the weights,
 * little-endian, ending in a SHA-256 of everything before it. docs/nn.md
 * gives both layouts:
 *
 *   offset  size  field
 *        0     8  magic "CKNNMODL"
 *        8     4  format version (1)
 *       12     4  S, the number of layer widths (2 .. 17)
 *       16     4  loss: 0 softmax + cross-entropy, 1 sigmoid + MSE
 *       20     4  normalisation: 0 none, 1 z-score, 2 min-max
 *       24     4  C, the number of named classes (0: integer classes)
 *       28     4  what the names stand for (ck_nn_class_type; 0 when C
 *                 is 0)
 *       32   4 S  widths, input first
 *            4 (S - 2)  hidden activations: 0 sigmoid, 1 tanh, 2 relu
 *                 C names, each a uint32 length (1 .. 63) and its bytes
 *            8 F  with normalisation: F float32 offsets, F float32 scales
 *                 (F = the input width)
 *                 per layer l = 1 .. S - 1: widths[l] x (widths[l-1] + 1)
 *                 float32 weights, row-major, the bias last in each row
 *           32    SHA-256 of all the bytes above
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clkit/dataset.h"
#include "nn/nn_internal.h"

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two classes of one name could not be told apart in predictions: a
 * failure of code. */
static ck_status check_names_distinct(ck_status code, const char *path,
                                      char **names, size_t count) {
  char **sorted = malloc((count ? count : 1) * sizeof *sorted);
  if (!sorted)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  memcpy(sorted, names, count * sizeof *sorted);
  qsort(sorted, count, sizeof *sorted, compare_names);
  ck_status status = CK_OK;
  for (size_t k = 1; k < count && status == CK_OK; ++k)
    if (strcmp(sorted[k - 1], sorted[k]) == 0)
      status = ck__fail(code, "%s: two classes are named '%s'", path,
                        ck__text_quote(sorted[k]).text);
  free(sorted);
  return status;
}

/* A class name a model file holds: 1 to CK_DATASET_MAX_NAME bytes (a NUL
 * inside would shorten it), without a control character, which would
 * split the lines of --predict's output. NULL name: the length alone.
 * code and the file's path make the failure. */
static ck_status check_class_name(ck_status code, const char *path, size_t k,
                                  const char *name, size_t length) {
  if (length < 1 || length > CK_DATASET_MAX_NAME)
    return ck__fail(code,
                    "%s: class name %zu has length %zu (1 to %d bytes "
                    "allowed)",
                    path, k, length, CK_DATASET_MAX_NAME);
  if (name && (strlen(name) != length || ck__text_control_byte(name) >= 0))
    return ck__fail(code, "%s: class name %zu holds a control character", path,
                    k);
  return CK_OK;
}

/* The network's class names, each one a file can hold and no two
 * alike: a save refuses what a load would. */
static ck_status check_names_writable(const ck_nn *nn, const char *path) {
  ck_status status = CK_OK;
  if (!nn->class_names)
    return CK_OK;
  for (size_t k = 0; k < nn->class_count && !status; ++k)
    status = check_class_name(CK_ERROR_INVALID_ARGUMENT, path, k,
                              nn->class_names[k], strlen(nn->class_names[k]));
  if (!status)
    status = check_names_distinct(CK_ERROR_INVALID_ARGUMENT, path,
                                  nn->class_names, nn->class_count);
  return status;
}

static const char model_magic[8] = {'C', 'K', 'N', 'N', 'M', 'O', 'D', 'L'};
#define MODEL_VERSION 1u
#define HEADER_BYTES 32u

/* ---- safetensors ------------------------------------------------------ */

/* A JSON string of text: '"', '\\' and control characters escaped, and
 * each byte outside well-formed UTF-8 as the code point of its value. */
static void put_json_string(ck__byte_writer *w, const char *text) {
  char escape[8];
  ck__bytes_put(w, "\"", 1);
  while (*text) {
    long bad = ck__text_invalid_utf8_byte(text);
    size_t good = bad < 0 ? strlen(text) : (size_t)bad;
    for (size_t i = 0; i < good; ++i) {
      unsigned char c = (unsigned char)text[i];
      if (c < 0x20) {
        snprintf(escape, sizeof escape, "\\u%04x", c);
        ck__bytes_put(w, escape, strlen(escape));
      } else if (c == '"' || c == '\\') {
        ck__bytes_put(w, "\\", 1);
        ck__bytes_put(w, &text[i], 1);
      } else {
        ck__bytes_put(w, &text[i], 1);
      }
    }
    text += good;
    if (*text) {
      snprintf(escape, sizeof escape, "\\u%04x", (unsigned char)*text);
      ck__bytes_put(w, escape, strlen(escape));
      ++text;
    }
  }
  ck__bytes_put(w, "\"", 1);
}

/* Text into a writer: the header's punctuation. */
static void put_text(ck__byte_writer *w, const char *text) {
  ck__bytes_put(w, text, strlen(text));
}

/* One string of the header's __metadata__, after the first. */
static void put_metadata(ck__byte_writer *w, const char *key,
                         const char *value) {
  put_text(w, ",");
  put_json_string(w, key);
  put_text(w, ":");
  put_json_string(w, value);
}

/* A tensor's entry: float32 of one or two dimensions, its data from *at
 * on (advanced past it). */
static void put_tensor(ck__byte_writer *w, const char *name, size_t rows,
                       size_t columns, uint64_t *at) {
  uint64_t bytes = (uint64_t)rows * (columns ? columns : 1) * 4;
  char entry[160];
  if (columns)
    snprintf(entry, sizeof entry, "[%zu,%zu]", rows, columns);
  else
    snprintf(entry, sizeof entry, "[%zu]", rows);
  put_text(w, ",");
  put_json_string(w, name);
  put_text(w, ":{\"dtype\":\"F32\",\"shape\":");
  put_text(w, entry);
  snprintf(entry, sizeof entry, ",\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
           *at, *at + bytes);
  put_text(w, entry);
  *at += bytes;
}

/* The model's metadata: its shape, activations, loss, normalisation and
 * classes, each a string (docs/nn.md). */
static ck_status put_model_metadata(ck__byte_writer *w, ck_nn *nn) {
  static const char *const activations[] = {"sigmoid", "tanh", "relu"};
  static const char *const kinds[] = {"none", "zscore", "minmax"};
  const nn_state *state = &nn->state;
  char text[(CK_NN_MAX_LAYERS + 1) * 12];
  size_t used = 0;
  text[0] = '\0';
  put_text(w, "\"__metadata__\":{\"format\":\"pt\"");
  for (int l = 0; l <= state->layers; ++l)
    used += (size_t)snprintf(text + used, sizeof text - used, "%s%u",
                             l ? "," : "", state->sizes[l]);
  put_metadata(w, "layers", text);
  used = 0;
  text[0] = '\0';
  for (int l = 0; l + 1 < state->layers; ++l)
    used +=
        (size_t)snprintf(text + used, sizeof text - used, "%s%s", l ? "," : "",
                         activations[nn->config.activations[l]]);
  put_metadata(w, "activations", text);
  int ce = nn->config.loss == CK_NN_CROSS_ENTROPY;
  put_metadata(w, "loss", ce ? "ce" : "mse");
  put_metadata(w, "output", ce ? "softmax" : "sigmoid");
  put_metadata(w, "normalize", kinds[nn->normalization.kind]);
  /* The class names as a JSON list, itself a string of the metadata. */
  ck__byte_writer names = {0};
  char name[CK_DATASET_MAX_NAME + 1];
  size_t classes = state->sizes[state->layers];
  put_text(&names, "[");
  for (size_t k = 0; k < classes; ++k) {
    ck_status status = ck_nn_get_class_name(nn, k, name, sizeof name);
    if (status != CK_OK) {
      ck__bytes_free(&names);
      return status;
    }
    put_text(&names, k ? "," : "");
    put_json_string(&names, name);
  }
  put_text(&names, "]");
  ck__bytes_put(&names, "", 1);
  if (!names.failed)
    put_metadata(w, "classes", (const char *)names.bytes);
  w->failed |= names.failed;
  ck__bytes_free(&names);
  static const char *const types[] = {"data",    "integer", "real",
                                      "boolean", "bytes",   "text"};
  ck_nn_class_type type = CK_NN_CLASS_DATA;
  ck_nn_get_class_type(nn, &type);
  put_metadata(w, "class_type", types[type]);
  put_text(w, "}");
  return CK_OK;
}

/* The model as a safetensors file: an 8-byte header length, the JSON
 * header (padded with blanks to a multiple of 8 bytes), then the tensors'
 * float32 data, little-endian, in the header's order. Layer l's weights
 * and bias are "2(l-1).weight" (out x in) and "2(l-1).bias", as PyTorch
 * names the nn.Linear modules of an nn.Sequential with an activation
 * module between each two. */
static ck_status save_safetensors(ck_nn *nn, const char *path) {
  ck_status status = CK_OK;
  ck__byte_writer header = {0}, data = {0};
  float *weights = NULL;
  nn_state *state = &nn->state;
  uint64_t at = 0;
  char name[32];
  put_text(&header, "{");
  CK_TRY(put_model_metadata(&header, nn));
  if (nn->normalization.kind != CK_NORMALIZE_NONE) {
    put_tensor(&header, "normalize.offset", state->sizes[0], 0, &at);
    put_tensor(&header, "normalize.scale", state->sizes[0], 0, &at);
    for (size_t f = 0; f < state->sizes[0]; ++f)
      ck__bytes_put_f32(&data, nn->normalization.offset[f]);
    for (size_t f = 0; f < state->sizes[0]; ++f)
      ck__bytes_put_f32(&data, nn->normalization.scale[f]);
  }
  for (int l = 1; l <= state->layers; ++l) {
    size_t in = state->sizes[l - 1], out = state->sizes[l];
    snprintf(name, sizeof name, "%d.weight", 2 * (l - 1));
    put_tensor(&header, name, out, in, &at);
    snprintf(name, sizeof name, "%d.bias", 2 * (l - 1));
    put_tensor(&header, name, out, 0, &at);
    weights = malloc(out * (in + 1) * sizeof *weights);
    if (!weights)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory saving the model",
              path);
    CK_TRY(ck__nn_layer_read(nn, l, weights));
    for (size_t o = 0; o < out; ++o)
      for (size_t i = 0; i < in; ++i)
        ck__bytes_put_f32(&data, weights[o * (in + 1) + i]);
    for (size_t o = 0; o < out; ++o)
      ck__bytes_put_f32(&data, weights[o * (in + 1) + in]);
    free(weights);
    weights = NULL;
  }
  put_text(&header, "}");
  while (header.size % 8)
    ck__bytes_put(&header, " ", 1);
  ck__byte_writer file = {0};
  ck__bytes_put_u64(&file, header.size);
  ck__bytes_put(&file, header.bytes, header.size);
  ck__bytes_put(&file, data.bytes, data.size);
  if (header.failed || data.failed || file.failed)
    status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "%s: out of host memory", path);
  else
    status = ck__file_write_atomic(path, file.bytes, file.size);
  ck__bytes_free(&file);
fail:
  free(weights);
  ck__bytes_free(&header);
  ck__bytes_free(&data);
  return status;
}

/* The format a path asks for: safetensors by its name's ending, in any
 * case, as ck_file_check_format reads extensions. */
static int names_safetensors(const char *path) {
  static const char ending[] = ".safetensors";
  size_t length = strlen(path), size = sizeof ending - 1;
  return length > size && strcasecmp(path + length - size, ending) == 0;
}

/* ---- clkit's own format ---------------------------------------------- */

ck_status ck__nn_model_save(ck_nn *nn, const char *path, ck_nn_format format) {
  ck_status status = check_names_writable(nn, path);
  if (status != CK_OK)
    return status;
  if (format == CK_NN_FORMAT_SAFETENSORS ||
      (format == CK_NN_FORMAT_AUTO && names_safetensors(path)))
    return save_safetensors(nn, path);
  ck__byte_writer w = {0};
  float *weights = NULL;
  nn_state *state = &nn->state;
  uint32_t widths = (uint32_t)state->layers + 1;
  ck__bytes_put(&w, model_magic, sizeof model_magic);
  ck__bytes_put_u32(&w, MODEL_VERSION);
  ck__bytes_put_u32(&w, widths);
  ck__bytes_put_u32(&w, (uint32_t)nn->config.loss);
  ck__bytes_put_u32(&w, (uint32_t)nn->normalization.kind);
  ck__bytes_put_u32(&w, nn->class_names ? (uint32_t)nn->class_count : 0u);
  ck__bytes_put_u32(&w, nn->class_names ? (uint32_t)nn->class_type : 0u);
  for (uint32_t l = 0; l < widths; ++l)
    ck__bytes_put_u32(&w, state->sizes[l]);
  for (uint32_t l = 0; l + 2 < widths; ++l)
    ck__bytes_put_u32(&w, (uint32_t)nn->config.activations[l]);
  for (size_t k = 0; nn->class_names && k < nn->class_count; ++k) {
    size_t length = strlen(nn->class_names[k]);
    ck__bytes_put_u32(&w, (uint32_t)length);
    ck__bytes_put(&w, nn->class_names[k], length);
  }
  if (nn->normalization.kind != CK_NORMALIZE_NONE) {
    for (size_t f = 0; f < state->sizes[0]; ++f)
      ck__bytes_put_f32(&w, nn->normalization.offset[f]);
    for (size_t f = 0; f < state->sizes[0]; ++f)
      ck__bytes_put_f32(&w, nn->normalization.scale[f]);
  }
  for (int l = 1; l <= state->layers; ++l) {
    size_t count = (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
    weights = malloc(count * sizeof *weights);
    if (!weights)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory saving the model",
              path);
    CK_TRY(ck__nn_layer_read(nn, l, weights));
    for (size_t i = 0; i < count; ++i)
      ck__bytes_put_f32(&w, weights[i]);
    free(weights);
    weights = NULL;
  }
  CK_TRY(ck__bytes_save(&w, path));
fail:
  free(weights);
  ck__bytes_free(&w);
  return status;
}

typedef struct model_reader {
  const char *path;
  const uint8_t *bytes;
  size_t size, at;
} model_reader;

/* The next count bytes, or NULL (with a message) past the end. */
static const uint8_t *reader_take(model_reader *r, size_t count,
                                  const char *what, ck_status *status) {
  if (count > r->size - r->at) {
    *status = ck__fail(CK_ERROR_PARSE,
                       "%s: truncated: the file ends at byte %zu, inside %s",
                       r->path, r->size, what);
    return NULL;
  }
  const uint8_t *at = r->bytes + r->at;
  r->at += count;
  return at;
}

static ck_status reader_u32(model_reader *r, const char *what,
                            uint32_t *value) {
  ck_status status = CK_OK;
  const uint8_t *at = reader_take(r, 4, what, &status);
  if (at)
    *value = ck__get_u32(at);
  return status;
}

static ck_status reader_floats(model_reader *r, size_t count, const char *what,
                               float *values) {
  ck_status status = CK_OK;
  if (count > SIZE_MAX / 4)
    return ck__fail(CK_ERROR_PARSE, "%s: %s is too large", r->path, what);
  const uint8_t *at = reader_take(r, count * 4, what, &status);
  if (!at)
    return status;
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = ck__get_u32(at + 4 * i);
    memcpy(&values[i], &bits, 4);
    if (!isfinite(values[i]))
      return ck__fail(CK_ERROR_PARSE, "%s: value %zu of %s is not finite",
                      r->path, i, what);
  }
  return CK_OK;
}

/* The file's frame: its magic, its size, its version and its checksum,
 * then the header's words; r ends where the checksum begins. */
static ck_status read_header(model_reader *r, uint32_t *widths, uint32_t *loss,
                             uint32_t *kind, uint32_t *name_count,
                             uint32_t *class_type) {
  ck_status status = CK_OK;
  const char *path = r->path;
  size_t size = r->size;
  if ((size < sizeof model_magic ||
       memcmp(r->bytes, model_magic, sizeof model_magic) != 0) &&
      names_safetensors(path))
    CK_FAIL(CK_ERROR_PARSE,
            "%s: clkit writes safetensors files for other tools and reads "
            "its own models (.ckn) alone",
            path);
  if (size < sizeof model_magic ||
      memcmp(r->bytes, model_magic, sizeof model_magic) != 0)
    CK_FAIL(CK_ERROR_PARSE, "%s: not a clkit model (no CKNNMODL header)", path);
  if (size < HEADER_BYTES + 32)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: truncated: %zu bytes, shorter than a model's header and "
            "checksum",
            path, size);
  uint8_t digest[32];
  ck__sha256(r->bytes, size - 32, digest);
  uint32_t version = ck__get_u32(r->bytes + 8);
  if (version != MODEL_VERSION)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: model format version %u; this clkit reads version %u", path,
            version, MODEL_VERSION);
  if (memcmp(digest, r->bytes + size - 32, 32) != 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: checksum mismatch: the file is damaged or truncated", path);
  r->size = size - 32; /* the fields end where the checksum begins */
  r->at = 12;
  CK_TRY(reader_u32(r, "the header", widths));
  CK_TRY(reader_u32(r, "the header", loss));
  CK_TRY(reader_u32(r, "the header", kind));
  CK_TRY(reader_u32(r, "the header", name_count));
  CK_TRY(reader_u32(r, "the header", class_type));
  if (*widths < 2 || *widths > CK_NN_MAX_LAYERS + 1)
    CK_FAIL(CK_ERROR_PARSE, "%s: %u layer widths (2 .. %d allowed)", path,
            *widths, CK_NN_MAX_LAYERS + 1);
  if (*loss > CK_NN_MSE)
    CK_FAIL(CK_ERROR_PARSE, "%s: unknown loss %u", path, *loss);
  if (*kind > CK_NORMALIZE_MINMAX)
    CK_FAIL(CK_ERROR_PARSE, "%s: unknown normalisation %u", path, *kind);
  if (*class_type > CK_NN_CLASS_TEXT)
    CK_FAIL(CK_ERROR_PARSE, "%s: unknown class type %u", path, *class_type);
  if (*class_type != CK_NN_CLASS_DATA && *name_count == 0)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: class type %u, but the classes have no names (0 .. k - 1)",
            path, *class_type);
fail:
  return status;
}

/* The layer widths and the hidden activations, into c. */
static ck_status read_layers(model_reader *r, uint32_t widths,
                             ck_nn_config *c) {
  ck_status status = CK_OK;
  const char *path = r->path;
  for (uint32_t l = 0; l < widths; ++l) {
    uint32_t width = 0;
    CK_TRY(reader_u32(r, "the layer widths", &width));
    if (width < 1 || width > CK_NN_MAX_WIDTH)
      CK_FAIL(CK_ERROR_PARSE, "%s: layer %u has width %u (1 .. %d allowed)",
              path, l, width, CK_NN_MAX_WIDTH);
    c->sizes[l] = width;
  }
  for (uint32_t l = 0; l + 2 < widths; ++l) {
    uint32_t activation = 0;
    CK_TRY(reader_u32(r, "the activations", &activation));
    if (activation > CK_NN_RELU)
      CK_FAIL(CK_ERROR_PARSE, "%s: unknown activation %u of layer %u", path,
              activation, l + 1);
    c->activations[l] = (ck_nn_activation)activation;
  }
fail:
  return status;
}

/* The class names, count of them for a network of `outputs` outputs.
 * *names is the caller's as soon as it is set, failure or not: count
 * entries, those not read yet NULL. */
static ck_status read_class_names(model_reader *r, uint32_t count,
                                  size_t outputs, char ***names) {
  ck_status status = CK_OK;
  const char *path = r->path;
  if (count > outputs)
    CK_FAIL(CK_ERROR_PARSE, "%s: %u class names for %zu outputs", path, count,
            outputs);
  if (!count)
    return CK_OK;
  *names = calloc(count, sizeof **names);
  if (!*names)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t length = 0;
    CK_TRY(reader_u32(r, "the class names", &length));
    CK_TRY(check_class_name(CK_ERROR_PARSE, path, k, NULL, length));
    const uint8_t *at = reader_take(r, length, "the class names", &status);
    if (!at)
      goto fail;
    char *name = (*names)[k] = malloc(length + 1);
    if (!name)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(name, at, length);
    name[length] = '\0';
    CK_TRY(check_class_name(CK_ERROR_PARSE, path, k, name, length));
  }
  CK_TRY(check_names_distinct(CK_ERROR_PARSE, path, *names, count));
fail:
  return status;
}

/* The normalisation of kind over `features` inputs; its arrays are the
 * caller's, failure or not. */
static ck_status read_normalization(model_reader *r, uint32_t kind,
                                    size_t features,
                                    ck_normalization *normalization) {
  ck_status status = CK_OK;
  if (kind == CK_NORMALIZE_NONE)
    return CK_OK;
  normalization->kind = (ck_normalization_kind)kind;
  normalization->features = features;
  normalization->offset = malloc(features * sizeof(float));
  normalization->scale = malloc(features * sizeof(float));
  if (!normalization->offset || !normalization->scale)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", r->path);
  CK_TRY(reader_floats(r, features, "the normalisation offsets",
                       normalization->offset));
  CK_TRY(reader_floats(r, features, "the normalisation scales",
                       normalization->scale));
fail:
  return status;
}

/* The weights, which must fill the rest of the file exactly, on a network
 * of c's shape allocated for them (ck__nn_allocate). */
static ck_status read_weights(model_reader *r, const ck_device *device,
                              const ck_nn_config *c,
                              const ck__nn_tuning *tuning, ck_nn **nn) {
  ck_status status = CK_OK;
  float *values = NULL;
  const char *path = r->path;
  size_t widths = c->layer_count, expected = 0;
  for (size_t l = 1; l < widths; ++l)
    expected += c->sizes[l] * (c->sizes[l - 1] + 1) * 4;
  if (r->size - r->at != expected)
    CK_FAIL(CK_ERROR_PARSE,
            "%s: %zu bytes of weights where the layer widths need %zu", path,
            r->size - r->at, expected);
  CK_TRY(ck__nn_allocate(device, c, 0, tuning, nn));
  for (size_t l = 1; l < widths; ++l) {
    size_t count = c->sizes[l] * (c->sizes[l - 1] + 1);
    values = malloc(count * sizeof *values);
    if (!values)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    CK_TRY(reader_floats(r, count, "the weights", values));
    CK_TRY(ck__nn_layer_write(*nn, (int)l, values));
    free(values);
    values = NULL;
  }
fail:
  free(values);
  return status;
}

ck_status ck__nn_model_allocate(const ck_device *device, const char *path,
                                const ck_nn_config *config,
                                const ck__nn_tuning *tuning, ck_nn **result) {
  ck_status status = CK_OK;
  char *text = NULL;
  size_t size = 0;
  ck_nn *nn = NULL;
  char **names = NULL;
  uint32_t name_count = 0;
  ck_normalization normalization = {0};
  *result = NULL;
  CK_TRY(ck__file_read_bytes(path, ck__file_binary_max_bytes(), model_magic,
                             sizeof model_magic, &text, &size));
  model_reader r = {path, (const uint8_t *)text, size, 0};
  uint32_t widths = 0, loss = 0, kind = 0, class_type = 0;
  CK_TRY(read_header(&r, &widths, &loss, &kind, &name_count, &class_type));
  ck_nn_config c;
  if (config)
    c = *config;
  else
    ck_nn_config_init(&c);
  c.layer_count = widths;
  c.loss = (ck_nn_loss)loss;
  CK_TRY(read_layers(&r, widths, &c));
  CK_TRY(read_class_names(&r, name_count, c.sizes[widths - 1], &names));
  CK_TRY(read_normalization(&r, kind, c.sizes[0], &normalization));
  CK_TRY(read_weights(&r, device, &c, tuning, &nn));
  nn->normalization = normalization;
  memset(&normalization, 0, sizeof normalization);
  nn->class_names = names;
  nn->class_count = name_count;
  nn->class_type = (ck_nn_class_type)class_type;
  names = NULL;
  *result = nn;
  nn = NULL;
fail:
  for (uint32_t k = 0; names && k < name_count; ++k)
    free(names[k]);
  free(names);
  ck_dataset_normalization_free(&normalization);
  ck_nn_destroy(nn);
  free(text);
  return status;
}

/* A model's network on one device: a spread of one member. */
ck_status ck__nn_model_load(const ck_device *device, const char *path,
                            const ck_nn_config *config,
                            const ck__nn_tuning *tuning, ck_nn **result) {
  const ck_spread one = {.devices = device, .device_count = 1};
  return ck__nn_spread_create(&one, config, path, 0, tuning, result);
}
