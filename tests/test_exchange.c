/*
 * test_exchange.c - the collectives of a spread run (runtime/exchange.h),
 * in one process with one to three members, and, when started by mpirun
 * in a build with MPI, across its processes: rank r then holds r % 3 + 1
 * members, so that processes begin at uneven member numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clkit/clkit.h"
#include "framework/spread.h"
#include "runtime/exchange.h"
#include "runtime/exchange_backend.h"
#include "runtime/runtime.h"
#include "util/util.h"

#if CK_HAVE_MPI
#include <mpi.h>
#endif

#define MAX_LOCAL 3

/* Each collective once, over `local` members here and whatever processes
 * the communicator holds. */
static void collectives(size_t local, const void *communicator) {
  const char *names[MAX_LOCAL] = {"ref", "ocl:0.0", "ocl:0.1"};
  ck__exchange *ex = NULL;
  CHECK_OK(ck__exchange_create(local, names, communicator, &ex));
  if (!ex)
    return;
  size_t members = ck__exchange_members(ex), first = ck__exchange_first(ex);
  CHECK(ck__exchange_local(ex) == local);
  CHECK(first + local <= members);
  CHECK(ck__exchange_rank_of(ex, first) == ck__exchange_rank(ex));

  /* Agreement: all well; then member `bad` fails, and every process
   * returns its status, naming it. */
  CHECK_OK(ck__exchange_agree(ex, NULL));
  for (size_t bad = 0; bad<members; bad += members> 2 ? members - 1 : 1) {
    ck_status statuses[MAX_LOCAL] = {CK_OK, CK_OK, CK_OK};
    if (bad >= first && bad < first + local) {
      ck__fail(CK_ERROR_DEVICE_MEMORY, "buffer too large");
      statuses[bad - first] = CK_ERROR_DEVICE_MEMORY;
    }
    ck_status status = ck__exchange_agree(ex, statuses);
    const char *message = "";
    ck_error_get_last(&message);
    char expected[32];
    snprintf(expected, sizeof expected, "member %zu ", bad);
    CHECK_MSG(status == CK_ERROR_DEVICE_MEMORY && strstr(message, expected),
              "member %zu failed: status %d, message \"%s\"", bad, status,
              message);
    if (bad >= first && bad < first + local)
      CHECK_MSG(strstr(message, "buffer too large") &&
                    strstr(message, names[bad - first]),
                "the failed member's own message: \"%s\"", message);
  }

  /* Sums of whole numbers, exact in any order: member m offers m + k. */
  double values[MAX_LOCAL][4], total[4];
  const double *rows[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    for (int k = 0; k < 4; ++k)
      values[i][k] = (double)(first + i) + k;
    rows[i] = values[i];
  }
  CHECK_OK(ck__exchange_sum(ex, rows, total, 4));
  for (int k = 0; k < 4; ++k)
    CHECK_MSG(total[k] == members * (members - 1) / 2.0 + members * k,
              "sum %d: %g", k, total[k]);

  /* The least value: a tie between the last two members goes to the lower
   * index, whichever member offers it; NaN never wins over a number. */
  double offered[MAX_LOCAL];
  uint64_t indices[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    size_t m = first + i;
    offered[i] = m + 2 >= members ? -1.0 : (m == 0 ? NAN : (double)m);
    indices[i] = m + 2 >= members ? 100 - m : m;
  }
  double min = 0;
  uint64_t index = 0;
  size_t member = 0;
  CHECK_OK(ck__exchange_min(ex, offered, indices, &min, &index, &member));
  if (members == 1)
    CHECK_MSG(min == -1.0 && index == 100 && member == 0,
              "min %g at %llu of member %zu", min, (unsigned long long)index,
              member);
  else
    CHECK_MSG(
        min == -1.0 && index == 100 - (members - 1) && member == members - 1,
        "min %g at %llu of member %zu", min, (unsigned long long)index, member);
  for (size_t i = 0; i < local; ++i)
    offered[i] = NAN;
  CHECK_OK(ck__exchange_min(ex, offered, indices, &min, &index, &member));
  CHECK_MSG(isnan(min), "every value NaN: %g", min);

  /* Gather: every member's three bytes in member order. */
  unsigned char bytes[MAX_LOCAL][3], *all = calloc(members, 3);
  const void *pieces[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    memset(bytes[i], (int)(first + i + 1), 3);
    pieces[i] = bytes[i];
  }
  if (all) {
    CHECK_OK(ck__exchange_gather(ex, pieces, 3, all));
    for (size_t m = 0; m < members; ++m)
      CHECK_MSG(all[3 * m] == m + 1 && all[3 * m + 2] == m + 1,
                "gathered member %zu: %d", m, all[3 * m]);
  }
  free(all);

  /* Broadcast from the last member. */
  double word = first + local == members ? 42.5 : -1;
  CHECK_OK(ck__exchange_broadcast(ex, members - 1, &word, sizeof word));
  CHECK_MSG(word == 42.5, "broadcast: %g", word);

  /* A ring: member m hears from m - 1. */
  uint64_t sent[MAX_LOCAL], heard[MAX_LOCAL];
  const void *send[MAX_LOCAL];
  void *receive[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    sent[i] = 1000 + first + i;
    heard[i] = 0;
    send[i] = &sent[i];
    receive[i] = &heard[i];
  }
  CHECK_OK(ck__exchange_ring(ex, send, receive, sizeof(uint64_t)));
  for (size_t i = 0; i < local; ++i) {
    size_t from = (first + i + members - 1) % members;
    CHECK_MSG(heard[i] == 1000 + from, "member %zu heard %llu, not %zu",
              first + i, (unsigned long long)heard[i], 1000 + from);
  }
  CHECK(ck__exchange_seconds(ex) >= 0);
  /* What each member sent: its part of the sum, both leasts, the gather
   * and (the last member) the broadcast to every other member, and its
   * ring message; nothing where it is alone. */
  for (size_t i = 0; i < local; ++i) {
    uint64_t others = members - 1;
    uint64_t want =
        others * (4 * sizeof(double) + 2 * sizeof(ck__exchange_min_entry) + 3) +
        (first + i == members - 1 ? others * sizeof word : 0) +
        (members > 1 ? sizeof(uint64_t) : 0);
    CHECK_MSG(ck__exchange_sent(ex, i) == want,
              "member %zu sent %llu bytes, not %llu", first + i,
              (unsigned long long)ck__exchange_sent(ex, i),
              (unsigned long long)want);
  }
  ck__exchange_destroy(ex);
}

/* Sums of buffers on ref queues, through the host (ref is no CUDA
 * device): each of three members ends with the sum in floats, and with
 * the average in doubles. No member sums on the devices alone. */
static void buffer_sums(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const char *names[3] = {"ref", "ref", "ref"};
  ck__exchange *ex = NULL;
  ck_queue *queues[3] = {NULL, NULL, NULL};
  ck_buffer *buffers[3] = {NULL, NULL, NULL};
  CHECK_OK(ck__exchange_create(3, names, NULL, &ex));
  for (int precision = 0; ex && precision < 2; ++precision) {
    for (int i = 0; i < 3; ++i) {
      CHECK_OK(ck_queue_create(&set.devices[0], &queues[i]));
      CHECK_OK(ck_buffer_create(queues[i], 5 * 8, &buffers[i]));
      double values[5];
      for (int k = 0; k < 5; ++k)
        values[k] = 10.0 * i + k + 0.5;
      CHECK_OK(ck__reals_write(queues[i], buffers[i], precision, values, 5));
    }
    int on_devices = 1, swaps = 1;
    CHECK_OK(ck__exchange_on_devices(ex, queues, &on_devices));
    CHECK(on_devices == 0 && !ck__exchange_averages(ex) &&
          !ck__exchange_captures(ex));
    CHECK_OK(ck__exchange_swaps(ex, queues, &swaps));
    CHECK_MSG(swaps == 0, "ref members swap on devices: %d", swaps);
    int average = precision;
    CHECK_OK(
        ck__exchange_sum_buffers(ex, queues, buffers, 5, precision, average));
    for (int i = 0; i < 3; ++i) {
      double sums[5] = {0};
      CHECK_OK(ck__reals_read(queues[i], buffers[i], precision, sums, 5));
      for (int k = 0; k < 5; ++k)
        CHECK_MSG(sums[k] == (30.0 + 3.0 * k + 1.5) / (average ? 3 : 1),
                  "member %d, value %d: %g", i, k, sums[k]);
      ck_buffer_destroy(buffers[i]);
      ck_queue_destroy(queues[i]);
    }
  }
  size_t count = 5;
  void *data = NULL;
  if (ex) {
    const char *message = "";
    ck_status status =
        ck__exchange_member_sum(ex, 0, NULL, &data, &count, 1, 0, 0);
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED &&
                  strstr(message, "NCCL is not used"),
              "a member's sum without NCCL: %d, %s", (int)status, message);
    ck__exchange_piece piece = {&count, sizeof count, 1};
    status = ck__exchange_member_swap(ex, 0, NULL, &piece, 1, &piece, 1);
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED &&
                  strstr(message, "NCCL is not used"),
              "a member's swap without NCCL: %d, %s", (int)status, message);
    /* Nothing in flight: aborting is harmless, and sums still go. */
    ck__exchange_abort_devices(ex);
  }
  ck__exchange_destroy(ex);
  ck_device_set_free(&set);
}

/* Variable sizes: member m sends m % 3 + (forward ? 1 : 0) words each way
 * (none at all for some), each naming it and the word's place; then each
 * member's m % 3 words are gathered on every process. */
static const char *last_message(void) {
  const char *message = NULL;
  ck_error_get_last(&message);
  return message ? message : "";
}

/* Records by key: member m offers keys 2m + 1 and 2m (a pair, then a
 * single, of 10 key and 100 key); an array not asked for takes none. A
 * count other than the members', a key out of range, a key twice and a
 * key that is not a whole number fail. */
static void keyed(ck__exchange *ex, size_t local, size_t first,
                  size_t members) {
  double records[MAX_LOCAL][2][4];
  const void *send[MAX_LOCAL];
  size_t counts[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    for (size_t r = 0; r < 2; ++r) {
      double key = (double)(2 * (first + i) + 1 - r);
      double record[4] = {key, 10 * key, 10 * key + 1, 100 * key};
      memcpy(records[i][r], record, sizeof record);
    }
    send[i] = records[i];
    counts[i] = 2;
  }
  size_t total = 2 * members;
  double *pairs = calloc(2 * total, sizeof *pairs);
  double *singles = calloc(total, sizeof *singles);
  double *into[3] = {pairs, NULL, singles};
  const size_t widths[3] = {2, 5, 1};
  if (!pairs || !singles)
    goto done;
  CHECK_OK(ck__exchange_gather_keyed(ex, 4, send, counts, total, 3, into,
                                     widths, "records"));
  for (size_t k = 0; k < total; ++k)
    CHECK_MSG(pairs[2 * k] == 10.0 * k && pairs[2 * k + 1] == 10.0 * k + 1 &&
                  singles[k] == 100.0 * k,
              "record %zu: %g %g %g", k, pairs[2 * k], pairs[2 * k + 1],
              singles[k]);
  CHECK(ck__exchange_gather_keyed(ex, 4, send, counts, total + 1, 3, into,
                                  widths, "records") == CK_ERROR_MISMATCH);
  CHECK(strstr(last_message(), "hold") != NULL);
  if (first == 0)
    records[0][1][0] = (double)total;
  CHECK(ck__exchange_gather_keyed(ex, 4, send, counts, total, 3, into, widths,
                                  "records") == CK_ERROR_MISMATCH);
  CHECK(strstr(last_message(), "keyed") != NULL);
  /* Member 0's single keyed as its pair: the right count, in range, and
   * one key twice (another would stay unwritten). */
  if (first == 0)
    records[0][1][0] = records[0][0][0];
  CHECK(ck__exchange_gather_keyed(ex, 4, send, counts, total, 3, into, widths,
                                  "records") == CK_ERROR_MISMATCH);
  CHECK(strstr(last_message(), "two of the records are keyed 1") != NULL);
  if (first == 0)
    records[0][1][0] = 0.5;
  CHECK(ck__exchange_gather_keyed(ex, 4, send, counts, total, 3, into, widths,
                                  "records") == CK_ERROR_MISMATCH);
  CHECK(strstr(last_message(), "whole number") != NULL);
done:
  free(pairs);
  free(singles);
}

static void varied(size_t local, const void *communicator) {
  const char *names[MAX_LOCAL] = {"ref", "ocl:0.0", "ocl:0.1"};
  ck__exchange *ex = NULL;
  CHECK_OK(ck__exchange_create(local, names, communicator, &ex));
  if (!ex)
    return;
  size_t members = ck__exchange_members(ex), first = ck__exchange_first(ex);
  uint32_t words[MAX_LOCAL][4];
  const void *send[MAX_LOCAL];
  size_t counts[MAX_LOCAL];
  ck__exchange_buffer received[MAX_LOCAL];
  memset(received, 0, sizeof received);
  for (int forward = 1; forward >= 0; --forward) {
    for (size_t i = 0; i < local; ++i) {
      size_t m = first + i;
      counts[i] = m % 3 + (size_t)forward;
      for (size_t k = 0; k < counts[i]; ++k)
        words[i][k] = (uint32_t)(1000 * m + 10 * k + (size_t)forward);
      send[i] = words[i];
    }
    CHECK_OK(ck__exchange_pass(ex, forward, sizeof(uint32_t), send, counts,
                               received));
    for (size_t i = 0; i < local; ++i) {
      size_t m = first + i;
      size_t from = forward ? (m + members - 1) % members : (m + 1) % members;
      size_t expected = from % 3 + (size_t)forward;
      const uint32_t *got = received[i].data;
      CHECK_MSG(received[i].count == expected,
                "member %zu, forward %d: %zu words from %zu, not %zu", m,
                forward, received[i].count, from, expected);
      for (size_t k = 0; k < received[i].count && k < expected; ++k)
        CHECK_MSG(got[k] == 1000 * from + 10 * k + (size_t)forward,
                  "member %zu, forward %d: word %zu is %u", m, forward, k,
                  got[k]);
    }
  }
  for (size_t i = 0; i < local; ++i)
    counts[i] = (first + i) % 3;
  ck__exchange_buffer all = {0};
  size_t *each = calloc(members, sizeof *each);
  CHECK_OK(ck__exchange_gather_items(ex, sizeof(uint32_t), send, counts, &all,
                                     each));
  size_t at = 0;
  const uint32_t *got = all.data;
  for (size_t m = 0; each && m < members; ++m) {
    CHECK_MSG(each[m] == m % 3, "gathered %zu words of member %zu", each[m], m);
    for (size_t k = 0; k < m % 3 && at < all.count; ++k, ++at)
      CHECK_MSG(got[at] == 1000 * m + 10 * k, "gathered word %zu: %u", at,
                got[at]);
  }
  CHECK_MSG(all.count == at, "gathered %zu words, not %zu", all.count, at);
  free(each);
  free(all.data);
  keyed(ex, local, first, members);
  /* Routes: member m sends to m + shift (mod members), for every shift;
   * and in pairs of rows of two (a grid's columns), m to m ^ 1. */
  for (size_t shift = 0; shift <= members; ++shift) {
    size_t to[MAX_LOCAL], from[MAX_LOCAL];
    int rows = shift == members;
    if (rows && members % 2)
      break;
    for (size_t i = 0; i < local; ++i) {
      size_t m = first + i;
      to[i] = rows ? m ^ 1u : (m + shift) % members;
      from[i] = rows ? m ^ 1u : (m + members - shift) % members;
      counts[i] = (m + shift) % 4;
      for (size_t k = 0; k < counts[i]; ++k)
        words[i][k] = (uint32_t)(1000 * m + 10 * k + shift);
      send[i] = words[i];
    }
    CHECK_OK(ck__exchange_route(ex, sizeof(uint32_t), send, counts, to, from,
                                received));
    for (size_t i = 0; i < local; ++i) {
      size_t m = first + i, expected = (from[i] + shift) % 4;
      const uint32_t *got = received[i].data;
      CHECK_MSG(received[i].count == expected,
                "route %zu: member %zu got %zu words from %zu, not %zu", shift,
                m, received[i].count, from[i], expected);
      for (size_t k = 0; k < received[i].count && k < expected; ++k)
        CHECK_MSG(got[k] == 1000 * from[i] + 10 * k + shift,
                  "route %zu: member %zu's word %zu is %u", shift, m, k,
                  got[k]);
    }
  }
  size_t beyond[MAX_LOCAL];
  for (size_t i = 0; i < local; ++i)
    beyond[i] = members;
  CHECK_MSG(ck__exchange_route(ex, 4, send, counts, beyond, beyond, received) ==
                CK_ERROR_INVALID_ARGUMENT,
            "a route to a member out of range is refused");
  /* Across processes, what one message cannot carry is refused on every
   * process, after the counts cross and before any item does: a count
   * past 2^31 - 1 at the end of each process's line, items of no bytes. */
  if (ck__exchange_ranks(ex) > 1) {
    for (size_t i = 0; i < local; ++i) {
      counts[i] = i + 1 == local ? (size_t)1 << 31 : 0;
      send[i] = words[i];
    }
    const char *message = "";
    ck_status status = ck__exchange_pass(ex, 1, 1, send, counts, received);
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED &&
                  strstr(message, "2147483648 items between processes"),
              "a pass of 2^31 items: %d, %s", (int)status, message);
    counts[local - 1] = 1;
    status = ck__exchange_pass(ex, 0, 0, send, counts, received);
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED &&
                  strstr(message, "items of 0 bytes"),
              "a pass of empty items: %d, %s", (int)status, message);
  }
  for (size_t i = 0; i < local; ++i)
    free(received[i].data);
  ck__exchange_destroy(ex);
}

/* What a group refuses. */
static void refusals(void) {
  const char *names[1] = {"ref"};
  ck__exchange *ex = NULL;
  CHECK(ck__exchange_create(0, names, NULL, &ex) == CK_ERROR_INVALID_ARGUMENT);
  CHECK(ex == NULL);
  /* More members in one process than a spread holds. */
  const char *many[CK__EXCHANGE_MAX_LOCAL + 1];
  for (size_t i = 0; i <= CK__EXCHANGE_MAX_LOCAL; ++i)
    many[i] = "ref";
  CHECK(ck__exchange_create(CK__EXCHANGE_MAX_LOCAL + 1, many, NULL, &ex) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(ex == NULL);
  ck__exchange_destroy(ex);
#if !CK_HAVE_MPI
  int fake = 0;
  CHECK(ck__exchange_create(1, names, &fake, &ex) == CK_ERROR_INVALID_ARGUMENT);
#endif
}

/* Shares are dealt in proportion, however large: 1e308 twice is 1 and 1,
 * though their sum overflows. 1:3 of 62 blocks of 32 is 15.5:46.5, a tie
 * that goes to the larger weight; the 16 short of a block go last. */
static void spread_deals(void) {
  ck_device devices[2] = {{.id = "a"}, {.id = "b"}};
  const double shares[][2] = {{1, 1}, {1e308, 1e308}, {1, 3}, {5e307, 1.5e308}};
  const uint64_t first_units[] = {992, 992, 480, 480};
  for (size_t c = 0; c < sizeof shares / sizeof shares[0]; ++c) {
    ck_spread spread = {.devices = devices,
                        .device_count = 2,
                        .shares = shares[c],
                        .share_count = 2};
    ck__spread_run run;
    CHECK_OK(ck__spread_begin(&spread, "particles", &run));
    CHECK_OK(ck__spread_deal(&run, &spread, 2000, 32, NULL));
    CHECK_MSG(run.units && run.units[0] == first_units[c] &&
                  run.units[1] == 2000 - first_units[c],
              "shares %g,%g: %llu and %llu particles", shares[c][0],
              shares[c][1], run.units ? (unsigned long long)run.units[0] : 0,
              run.units ? (unsigned long long)run.units[1] : 0);
    ck__spread_end(&run);
  }
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  const void *communicator = NULL;
#if CK_HAVE_MPI
  /* Under mpirun (Open MPI or another PMI launcher): across processes. */
  int under_mpirun = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") ||
                     getenv("PMIX_RANK");
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0;
  if (under_mpirun) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    communicator = &world;
  }
  if (communicator) {
    collectives((size_t)(rank % MAX_LOCAL) + 1, communicator);
    collectives(1, communicator);
    varied((size_t)(rank % MAX_LOCAL) + 1, communicator);
    varied(1, communicator);
  } else
#endif
  {
    for (size_t local = 1; local <= MAX_LOCAL; ++local) {
      collectives(local, communicator);
      varied(local, communicator);
    }
    refusals();
    buffer_sums();
    spread_deals();
  }
  int code = CHECK_DONE();
#if CK_HAVE_MPI
  if (communicator)
    MPI_Finalize();
#endif
  return code;
}
