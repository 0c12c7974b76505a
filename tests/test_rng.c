/*
 * test_rng - the shared Philox4x32-10 header (cl/ck_philox.h) on the host:
 * published known-answer vectors, bit-exact agreement with Random123 where
 * its header is installed, the clkit stream convention, and the ranges and
 * moments of the uniform and normal conversions.
 *
 * The host build is the reference the OpenCL and CUDA builds of the same
 * header are compared against, so it must match Random123 exactly.
 */
#include "check.h"

#include "ck_philox.h"

#include <float.h>
#include <stdint.h>

#ifdef CK_HAVE_RANDOM123
#include <Random123/philox.h>
#endif

static uint64_t rng_state = 0x243f6a8885a308d3ull;

/* splitmix64, to draw test counters and keys from a fixed seed. */
static uint64_t next_random(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static ck_philox_counter make_counter(ck_u32 a, ck_u32 b, ck_u32 c, ck_u32 d) {
  ck_philox_counter counter;
  counter.v[0] = a;
  counter.v[1] = b;
  counter.v[2] = c;
  counter.v[3] = d;
  return counter;
}

static ck_philox_key make_key(ck_u32 a, ck_u32 b) {
  ck_philox_key key;
  key.v[0] = a;
  key.v[1] = b;
  return key;
}

static int same_counter(ck_philox_counter a, ck_philox_counter b) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2] &&
         a.v[3] == b.v[3];
}

/*
 * Philox4x32-10 vectors from Random123's kat_vectors file (the same values
 * that Random123 1.14's philox4x32_R(10, ...) produces).
 */
static void test_known_answers(void) {
  static const struct {
    ck_u32 counter[4];
    ck_u32 key[2];
    ck_u32 expected[4];
  } vectors[] = {
      {{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u},
       {0x00000000u, 0x00000000u},
       {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; ++i) {
    ck_philox_counter counter =
        make_counter(vectors[i].counter[0], vectors[i].counter[1],
                     vectors[i].counter[2], vectors[i].counter[3]);
    ck_philox_key key = make_key(vectors[i].key[0], vectors[i].key[1]);
    ck_philox_counter got = ck_philox4x32_10(counter, key);
    for (int j = 0; j < 4; ++j)
      CHECK_MSG(got.v[j] == vectors[i].expected[j],
                "vector %zu word %d: %08x, expected %08x", i, j,
                (unsigned)got.v[j], (unsigned)vectors[i].expected[j]);
  }
}

static void test_against_random123(void) {
#ifdef CK_HAVE_RANDOM123
  int mismatches = 0;
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = next_random(), b = next_random(), c = next_random();
    ck_philox_counter counter = make_counter((ck_u32)a, (ck_u32)(a >> 32),
                                             (ck_u32)b, (ck_u32)(b >> 32));
    ck_philox_key key = make_key((ck_u32)c, (ck_u32)(c >> 32));
    philox4x32_ctr_t theirs_counter = {
        {counter.v[0], counter.v[1], counter.v[2], counter.v[3]}};
    philox4x32_key_t theirs_key = {{key.v[0], key.v[1]}};
    philox4x32_ctr_t theirs = philox4x32_R(10, theirs_counter, theirs_key);
    ck_philox_counter ours = ck_philox4x32_10(counter, key);
    if (ours.v[0] != theirs.v[0] || ours.v[1] != theirs.v[1] ||
        ours.v[2] != theirs.v[2] || ours.v[3] != theirs.v[3]) {
      if (mismatches++ < 5)
        fprintf(stderr, "mismatch at draw %d\n", i);
    }
  }
  CHECK_MSG(mismatches == 0, "%d of 100000 blocks differ from Random123",
            mismatches);
#else
  printf("Random123 not found: bit-exact comparison skipped\n");
#endif
}

static void test_stream_convention(void) {
  ck_u64 seed = 0x0123456789abcdefull;
  ck_u64 stream = 0xfedcba9876543210ull;
  ck_u64 index = 0x1122334455667788ull;
  ck_philox_counter block = ck_philox_block(seed, stream, index);
  ck_philox_counter direct = ck_philox4x32_10(
      make_counter(0x55667788u, 0x11223344u, 0x76543210u, 0xfedcba98u),
      make_key(0x89abcdefu, 0x01234567u));
  CHECK(same_counter(block, direct));
  /* Computed with Random123's philox4x32_R(10, ...) for that counter/key. */
  CHECK(same_counter(
      block, make_counter(0x7fa77140u, 0xb9611ec1u, 0xd90cd420u, 0x119570ecu)));

  /* Each of seed, stream and index must reach the output. */
  CHECK(!same_counter(block, ck_philox_block(seed ^ 1, stream, index)));
  CHECK(!same_counter(block,
                      ck_philox_block(seed ^ (1ull << 63), stream, index)));
  CHECK(!same_counter(block, ck_philox_block(seed, stream ^ 1, index)));
  CHECK(!same_counter(block,
                      ck_philox_block(seed, stream ^ (1ull << 63), index)));
  CHECK(!same_counter(block, ck_philox_block(seed, stream, index + 1)));
  CHECK(!same_counter(block,
                      ck_philox_block(seed, stream, index ^ (1ull << 63))));
}

static void test_uniform_ranges(void) {
  CHECK(ck_uniform_float(0) == 0.0f);
  CHECK(ck_uniform_float(0xffffffffu) < 1.0f);
  CHECK(ck_uniform_float(0xffffffffu) == 1.0f - 1.0f / 16777216.0f);
  CHECK(ck_uniform_float(0x80000000u) == 0.5f);
  CHECK(ck_uniform_double(0, 0) == 0.0);
  CHECK(ck_uniform_double(0xffffffffu, 0xffffffffu) < 1.0);
  CHECK(ck_uniform_double(0xffffffffu, 0xffffffffu) ==
        1.0 - 1.0 / 9007199254740992.0);
  CHECK(ck_uniform_double(0x80000000u, 0) == 0.5);

  /* 53 distinct bits: the low word must matter. */
  CHECK(ck_uniform_double(0, 0x40u) > 0.0);

  int out_of_range = 0;
  for (int i = 0; i < 100000; ++i) {
    uint64_t r = next_random();
    float f = ck_uniform_float((ck_u32)r);
    double d = ck_uniform_double((ck_u32)(r >> 32), (ck_u32)r);
    if (!(f >= 0.0f && f < 1.0f) || !(d >= 0.0 && d < 1.0))
      ++out_of_range;
  }
  CHECK(out_of_range == 0);
}

static void test_uniform_mean(void) {
  double sum = 0.0;
  long count = 0;
  int out_of_range = 0;
  for (ck_u64 index = 0; count < 1000000; ++index) {
    ck_philox_counter block = ck_philox_block(20240601u, 7u, index);
    for (int j = 0; j < 4; ++j) {
      float f = ck_uniform_float(block.v[j]);
      if (!(f >= 0.0f && f < 1.0f))
        ++out_of_range;
      sum += f;
      ++count;
    }
  }
  CHECK(out_of_range == 0);
  CHECK_NEAR(sum / (double)count, 0.5, 0.002);
}

static void test_normal_moments(void) {
  double sum = 0.0, sum_squares = 0.0;
  long count = 0;
  int not_finite = 0;
  for (ck_u64 index = 0; count < 200000; ++index) {
    ck_philox_counter block = ck_philox_block(42u, 3u, index);
    for (int j = 0; j < 4; j += 2) {
      float z[2];
      ck_normal_float2(block.v[j], block.v[j + 1], &z[0], &z[1]);
      for (int k = 0; k < 2; ++k) {
        if (!isfinite(z[k]))
          ++not_finite;
        sum += z[k];
        sum_squares += (double)z[k] * z[k];
        ++count;
      }
    }
  }
  double mean = sum / (double)count;
  double variance = sum_squares / (double)count - mean * mean;
  CHECK(not_finite == 0);
  CHECK_NEAR(mean, 0.0, 0.01);
  CHECK_NEAR(variance, 1.0, 0.02);

  /* The extreme words: u1 = 2^-24 gives the largest radius, u1 = 1 zero. */
  float z0, z1;
  ck_normal_float2(0, 0, &z0, &z1);
  CHECK(isfinite(z0) && isfinite(z1));
  CHECK_NEAR(z0, sqrt(2.0 * 24.0 * log(2.0)), 1e-4);
  ck_normal_float2(0xffffffffu, 0xffffffffu, &z0, &z1);
  CHECK(isfinite(z0) && isfinite(z1));
  CHECK_NEAR(z0, 0.0, 1e-6);
  CHECK_NEAR(z1, 0.0, 1e-6);
}

int main(void) {
  test_known_answers();
  test_against_random123();
  test_stream_convention();
  test_uniform_ranges();
  test_uniform_mean();
  test_normal_moments();
  return CHECK_DONE();
}
