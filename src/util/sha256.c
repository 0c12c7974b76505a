/*
 * SHA-256 (FIPS 180-4). Used for cache keys and entry checksums, so it
 * only needs to be correct and portable, not fast; words are assembled
 * byte by byte so that host endianness never matters.
 */
#include "util/util.h"

#include <string.h>

static const uint32_t round_constants[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu,
    0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u, 0xd807aa98u, 0x12835b01u,
    0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u,
    0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
    0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u,
    0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u,
    0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u,
    0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u, 0x1e376c08u,
    0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu,
    0x682e6ff3u, 0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
    0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

static uint32_t rotate_right(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32u - n));
}

static void compress(uint32_t state[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
           (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^
                  (w[i - 15] >> 3);
    uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^
                  (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }

  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t sum1 =
        rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + sum1 + choose + round_constants[i] + w[i];
    uint32_t sum0 =
        rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = sum0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void ck__sha256_init(ck__sha256_context *context) {
  static const uint32_t initial[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u,
                                      0xa54ff53au, 0x510e527fu, 0x9b05688cu,
                                      0x1f83d9abu, 0x5be0cd19u};
  memcpy(context->state, initial, sizeof initial);
  context->length = 0;
  context->used = 0;
}

void ck__sha256_update(ck__sha256_context *context, const void *data,
                       size_t size) {
  const uint8_t *bytes = data;
  context->length += (uint64_t)size;
  /* Top up a partial block first; whole blocks then bypass the copy. */
  if (context->used > 0) {
    size_t take = 64 - context->used;
    if (take > size)
      take = size;
    memcpy(context->block + context->used, bytes, take);
    context->used += take;
    bytes += take;
    size -= take;
    if (context->used < 64)
      return;
    compress(context->state, context->block);
    context->used = 0;
  }
  while (size >= 64) {
    compress(context->state, bytes);
    bytes += 64;
    size -= 64;
  }
  if (size > 0) {
    memcpy(context->block, bytes, size);
    context->used = size;
  }
}

void ck__sha256_final(ck__sha256_context *context, uint8_t digest[32]) {
  uint64_t bits = context->length * 8u;
  context->block[context->used++] = 0x80;
  /* The 64-bit length must fit in the same block, else pad a whole one. */
  if (context->used > 56) {
    memset(context->block + context->used, 0, 64 - context->used);
    compress(context->state, context->block);
    context->used = 0;
  }
  memset(context->block + context->used, 0, 56 - context->used);
  for (int i = 0; i < 8; ++i)
    context->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  compress(context->state, context->block);
  for (int i = 0; i < 8; ++i) {
    digest[4 * i] = (uint8_t)(context->state[i] >> 24);
    digest[4 * i + 1] = (uint8_t)(context->state[i] >> 16);
    digest[4 * i + 2] = (uint8_t)(context->state[i] >> 8);
    digest[4 * i + 3] = (uint8_t)context->state[i];
  }
}

void ck__sha256(const void *data, size_t size, uint8_t digest[32]) {
  ck__sha256_context context;
  ck__sha256_init(&context);
  ck__sha256_update(&context, data, size);
  ck__sha256_final(&context, digest);
}

void ck__hex(const uint8_t *bytes, size_t count, char *hex) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < count; ++i) {
    hex[2 * i] = digits[bytes[i] >> 4];
    hex[2 * i + 1] = digits[bytes[i] & 15];
  }
  hex[2 * count] = '\0';
}

void ck__sha256_strings(const char *const *parts, size_t count,
                        uint8_t digest[32]) {
  ck__sha256_context context;
  ck__sha256_init(&context);
  for (size_t i = 0; i < count; ++i)
    ck__sha256_update(&context, parts[i], strlen(parts[i]) + 1);
  ck__sha256_final(&context, digest);
}
