/*
 * peak_cache.c - a device's measured peaks in the cache (cache.c): the
 * entry's key, from the device's identity, and its payload, encoded
 * and decoded field by field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/runtime.h"

/* The layout of an entry's payload; part of its key. */
enum { FORMAT = 2 };

void ck__peak_host_name(char *name, size_t capacity) {
  if (gethostname(name, capacity) != 0)
    name[0] = '\0';
  name[capacity - 1] = '\0';
}

/* The entry's key: what makes another measurement differ (the device, its
 * driver, the host, clkit's version and this layout), not the device's
 * id, which changes as devices come and go, nor its global memory, which
 * a CPU device derives from the host's free memory. */
static void peak_key(const ck_device *device, const char *version,
                     uint8_t key[32]) {
  char backend[16], units[32], host[256], format[16];
  snprintf(backend, sizeof backend, "%d", (int)device->backend);
  snprintf(units, sizeof units, "%u", device->compute_units);
  snprintf(format, sizeof format, "%d", FORMAT);
  ck__peak_host_name(host, sizeof host);
  const char *parts[] = {"clkit peak",
                         format,
                         backend,
                         device->name,
                         device->vendor,
                         device->platform,
                         device->platform_version,
                         device->driver_version,
                         units,
                         host,
                         version};
  ck__sha256_strings(parts, sizeof parts / sizeof parts[0], key);
}

static void put_text(ck__byte_writer *writer, const char *text) {
  size_t length = strlen(text);
  ck__bytes_put_u32(writer, (uint32_t)length);
  ck__bytes_put(writer, text, length);
}

/* The payload of an entry: every field, little-endian, doubles by their
 * bits (no locale, no rounding). */
static ck_status encode(const ck_peak *peak, ck__byte_writer *writer) {
  ck__bytes_put_u32(writer, FORMAT);
  put_text(writer, peak->device_id);
  put_text(writer, peak->device_name);
  put_text(writer, peak->platform);
  put_text(writer, peak->platform_version);
  put_text(writer, peak->driver_version);
  put_text(writer, peak->clkit_version);
  put_text(writer, peak->host);
  ck__bytes_put_u64(writer, (uint64_t)peak->measured_at);
  ck__bytes_put_f64(writer, peak->duration_s);
  ck__bytes_put_u32(writer, CK_PEAK_METRIC_COUNT);
  for (int m = 0; m < CK_PEAK_METRIC_COUNT; ++m) {
    const ck_peak_value *value = &peak->values[m];
    ck__bytes_put_u32(writer, (uint32_t)value->state);
    ck__bytes_put_f64(writer, value->value);
    ck__bytes_put_u32(writer, value->width);
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      ck__bytes_put_f64(writer, value->widths[w]);
    ck__bytes_put_u64(writer, value->size);
    ck__bytes_put_u32(writer, value->runs);
    ck__bytes_put_f64(writer, value->seconds);
    put_text(writer, value->reason);
  }
  if (writer->failed)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for peaks");
  return CK_OK;
}

/* Reads a payload; any fault leaves ok 0. */
typedef struct reader {
  const uint8_t *at, *end;
  int ok;
} reader;

static const uint8_t *take(reader *in, size_t size) {
  if (!in->ok || (size_t)(in->end - in->at) < size) {
    in->ok = 0;
    return NULL;
  }
  const uint8_t *from = in->at;
  in->at += size;
  return from;
}

static uint32_t get_u32(reader *in) {
  const uint8_t *bytes = take(in, 4);
  return bytes ? ck__get_u32(bytes) : 0;
}

static uint64_t get_u64(reader *in) {
  const uint8_t *bytes = take(in, 8);
  return bytes ? ck__get_u64(bytes) : 0;
}

static double get_f64(reader *in) {
  uint64_t bits = get_u64(in);
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

/* A text of fewer than capacity bytes and no NUL. */
static void get_text(reader *in, char *text, size_t capacity) {
  uint32_t length = get_u32(in);
  const uint8_t *bytes = length < capacity ? take(in, length) : NULL;
  if (!bytes || memchr(bytes, '\0', length)) {
    in->ok = 0;
    text[0] = '\0';
    return;
  }
  memcpy(text, bytes, length);
  text[length] = '\0';
}

static int decode(const void *payload, size_t size, ck_peak *peak) {
  reader in = {payload, (const uint8_t *)payload + size, 1};
  memset(peak, 0, sizeof *peak);
  if (get_u32(&in) != FORMAT)
    return 0;
  get_text(&in, peak->device_id, sizeof peak->device_id);
  get_text(&in, peak->device_name, sizeof peak->device_name);
  get_text(&in, peak->platform, sizeof peak->platform);
  get_text(&in, peak->platform_version, sizeof peak->platform_version);
  get_text(&in, peak->driver_version, sizeof peak->driver_version);
  get_text(&in, peak->clkit_version, sizeof peak->clkit_version);
  get_text(&in, peak->host, sizeof peak->host);
  peak->measured_at = (long long)get_u64(&in);
  peak->duration_s = get_f64(&in);
  if (get_u32(&in) != CK_PEAK_METRIC_COUNT)
    return 0;
  for (int m = 0; m < CK_PEAK_METRIC_COUNT && in.ok; ++m) {
    ck_peak_value *value = &peak->values[m];
    uint32_t state = get_u32(&in);
    value->state = (ck_peak_state)state;
    value->value = get_f64(&in);
    value->width = get_u32(&in);
    for (int w = 0; w < CK_PEAK_WIDTHS; ++w)
      value->widths[w] = get_f64(&in);
    value->size = get_u64(&in);
    value->runs = get_u32(&in);
    value->seconds = get_f64(&in);
    get_text(&in, value->reason, sizeof value->reason);
    /* What a measurement never writes: a state past the last, or a
     * value that is not one where it should be. */
    if (state > CK_PEAK_NOT_ASKED ||
        (state == CK_PEAK_MEASURED) != !isnan(value->value))
      in.ok = 0;
  }
  return in.ok && in.at == in.end;
}

/* The entry kept under the device's key for clkit `version`, into peak:
 * CK_OK, or CK_ERROR_NOT_FOUND without a message. */
static ck_status lookup(const ck_device *device, const char *version,
                        ck_peak *peak) {
  uint8_t key[32];
  void *payload = NULL;
  size_t size = 0;
  peak_key(device, version, key);
  ck__error_saved saved;
  ck__error_save(&saved);
  ck_status status =
      ck__cache_load_kind(CK__CACHE_PEAKS, key, &payload, &size, NULL);
  ck__error_restore(&saved);
  int whole = status == CK_OK && decode(payload, size, peak) &&
              strcmp(peak->device_name, device->name) == 0 &&
              strcmp(peak->clkit_version, version) == 0;
  free(payload);
  if (!whole)
    memset(peak, 0, sizeof *peak);
  return whole ? CK_OK : CK_ERROR_NOT_FOUND;
}

ck_status ck__peak_load_version(const ck_device *device, const char *version,
                                ck_peak *peak) {
  CK__REQUIRE_IN("ck_peak_load", device);
  CK__REQUIRE_IN("ck_peak_load", peak);
  if (lookup(device, version, peak) != CK_OK)
    return ck__fail(CK_ERROR_NOT_FOUND,
                    "no peaks of device %s (%s) are kept for its driver %s "
                    "and clkit %s: 'clkit peak --device %s' measures them",
                    device->id, device->name, device->driver_version, version,
                    device->id);
  peak->from_cache = 1;
  return CK_OK;
}

ck_status ck_peak_load(const ck_device *device, ck_peak *peak) {
  return ck__peak_load_version(device, CK_VERSION_STRING, peak);
}

ck_status ck__peak_store_version(const ck_device *device, const char *version,
                                 const ck_peak *peak) {
  ck_status status = CK_OK;
  ck__byte_writer writer = {0};
  uint8_t key[32];
  CK_TRY(encode(peak, &writer));
  peak_key(device, version, key);
  CK_TRY(ck__cache_store_kind(CK__CACHE_PEAKS, key, NULL, writer.bytes,
                              writer.size));
fail:
  ck__bytes_free(&writer);
  return status;
}

double ck__peak_score(const ck_device *device) {
  ck_peak peak;
  if (lookup(device, CK_VERSION_STRING, &peak) != CK_OK)
    return 0;
  const ck_peak_value *fp32 = &peak.values[CK_PEAK_FP32];
  const ck_peak_value *read = &peak.values[CK_PEAK_READ];
  if (fp32->state != CK_PEAK_MEASURED || read->state != CK_PEAK_MEASURED ||
      !(fp32->value > 0) || !(read->value > 0) || isinf(fp32->value) ||
      isinf(read->value))
    return 0;
  return sqrt(fp32->value * read->value);
}
