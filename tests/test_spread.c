/*
 * test_spread.c - a spread run's phases (ck__spread_each,
 * framework/spread.h): every local member at once, each on a thread of its
 * own, or in turn with CLKIT_SPREAD_THREADS=0; their times, their
 * failures and the thread-local state that follows the caller; and which
 * workloads take a device twice. The members are copies of ref under ids
 * of their own: no device works.
 */
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clkit/clkit.h"
#include "framework/spread.h"
#include "runtime/runtime.h"
#include "test_support.h"
#include "util/util.h"

#define MAX_MEMBERS 8

static ck_device devices[MAX_MEMBERS];

/* A run of `local` members in this process alone. */
static int begin(size_t local, ck__spread_run *run) {
  ck_spread spread = {.devices = devices, .device_count = local};
  ck_status status = ck__spread_begin(&spread, "units", run);
  CHECK_OK(status);
  return status == CK_OK;
}

static const char *last_message(void) {
  const char *message = "";
  ck_error_get_last(&message);
  return message;
}

static void rest(double seconds) {
  struct timespec pause = {0, (long)(seconds * 1e9)};
  nanosleep(&pause, NULL);
}

/* ---- at once, and in turn ----------------------------------------------- */

typedef struct gathering {
  size_t local;
  atomic_uint entered;
  pthread_t caller;
  pthread_t threads[MAX_MEMBERS];
  int all_met[MAX_MEMBERS];
  int c_locale[MAX_MEMBERS];
  size_t order[MAX_MEMBERS];
  atomic_uint ran;
} gathering;

/* Waits, 5 s at most, until every member has entered: members run one
 * after another would wait in vain. */
static ck_status meet(void *context, size_t member) {
  gathering *g = context;
  g->threads[member] = pthread_self();
  char half[8];
  snprintf(half, sizeof half, "%.1f", 0.5);
  g->c_locale[member] =
      strcmp(half, "0.5") == 0 &&
      (member == 0 || uselocale((locale_t)0) != LC_GLOBAL_LOCALE);
  atomic_fetch_add(&g->entered, 1);
  double until = ck__seconds() + 5;
  while (atomic_load(&g->entered) < g->local && ck__seconds() < until)
    sched_yield();
  g->all_met[member] = atomic_load(&g->entered) == g->local;
  return CK_OK;
}

static void at_once(size_t local) {
  ck__spread_run run;
  if (!begin(local, &run))
    return;
  for (int call = 0; call < 3; ++call) {
    gathering g = {.local = local, .caller = pthread_self()};
    CHECK_OK(ck__spread_each(&run, meet, &g));
    for (size_t m = 0; m < local; ++m) {
      CHECK_MSG(g.all_met[m], "%zu members: member %zu met no one", local, m);
      CHECK_MSG(g.c_locale[m], "member %zu: not in the C locale", m);
      CHECK_MSG(pthread_equal(g.threads[m], g.caller) == (m == 0),
                "member %zu ran on the %s thread", m,
                m == 0 ? "wrong" : "caller's");
      for (size_t k = 1; k < m; ++k)
        CHECK_MSG(!pthread_equal(g.threads[m], g.threads[k]),
                  "members %zu and %zu shared a thread", k, m);
    }
  }
  ck__spread_end(&run);
}

static ck_status in_order(void *context, size_t member) {
  gathering *g = context;
  g->threads[member] = pthread_self();
  g->order[atomic_fetch_add(&g->ran, 1)] = member;
  return CK_OK;
}

static void in_turn(void) {
  setenv("CLKIT_SPREAD_THREADS", "0", 1);
  ck__spread_run run;
  if (begin(4, &run)) {
    gathering g = {.local = 4, .caller = pthread_self()};
    CHECK_OK(ck__spread_each(&run, in_order, &g));
    CHECK(atomic_load(&g.ran) == 4);
    for (size_t m = 0; m < 4; ++m) {
      CHECK_MSG(g.order[m] == m, "call %zu was member %zu's", m, g.order[m]);
      CHECK_MSG(pthread_equal(g.threads[m], g.caller),
                "member %zu left the caller's thread", m);
    }
    ck__spread_end(&run);
  }
  unsetenv("CLKIT_SPREAD_THREADS");
}

/* ---- times -------------------------------------------------------------- */

/* Member m takes (m + 1) ms. */
static ck_status take_time(void *context, size_t member) {
  (void)context;
  rest(1e-3 * (double)(member + 1));
  return CK_OK;
}

static void times(void) {
  ck__spread_run run;
  if (!begin(3, &run))
    return;
  for (int call = 0; call < 4; ++call)
    CHECK_OK(ck__spread_each(&run, take_time, NULL));
  for (size_t m = 0; m < 3; ++m)
    CHECK_MSG(run.compute_s[m] >= 4e-3 * (double)(m + 1),
              "member %zu: %g s over 4 calls", m, run.compute_s[m]);
  /* The report counts from the clocks' start: the fifth call alone. */
  double before[3];
  memcpy(before, run.compute_s, sizeof before);
  ck__spread_clocks_start(&run);
  CHECK_OK(ck__spread_each(&run, take_time, NULL));
  for (int queues = 0; queues < 2; ++queues) {
    ck_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(queues ? ck__spread_report_queues(&run, &r)
                    : ck__spread_report(&run, &r));
    CHECK(r.member_count == 3);
    for (size_t m = 0; m < 3 && m < r.member_count; ++m) {
      double since = run.compute_s[m] - before[m];
      CHECK_MSG(r.members[m].compute_s == since &&
                    since >= 1e-3 * (double)(m + 1) &&
                    r.members[m].exchange_s >= 0,
                "member %zu: %g s reported, %g s since the start, %g s in "
                "all",
                m, r.members[m].compute_s, since, run.compute_s[m]);
    }
    ck_result_release(&r);
  }
  ck__spread_end(&run);
}

/* ---- failures ----------------------------------------------------------- */

/* The members that fail, each with a status and a message of its own. */
typedef struct failing {
  unsigned mask;
  atomic_uint ran;
} failing;

static ck_status fail_some(void *context, size_t member) {
  failing *f = context;
  atomic_fetch_add(&f->ran, 1);
  if (!(f->mask >> member & 1))
    return CK_OK;
  return ck__fail(member % 2 ? CK_ERROR_DEVICE_MEMORY : CK_ERROR_DEVICE,
                  "member %zu's own trouble", member);
}

static void failures(int in_turn) {
  static const unsigned masks[] = {1u << 2, 1u << 1 | 1u << 2, 1u | 1u << 3};
  if (in_turn)
    setenv("CLKIT_SPREAD_THREADS", "0", 1);
  for (size_t k = 0; k < sizeof masks / sizeof masks[0]; ++k) {
    ck__spread_run run;
    if (!begin(4, &run))
      break;
    CHECK_OK(ck__spread_each(&run, fail_some, &(failing){0}));
    ck__fail(CK_ERROR_PARSE, "the caller's old message");
    failing f = {.mask = masks[k]};
    ck_status status = ck__spread_each(&run, fail_some, &f);
    size_t first = 0;
    while (!(masks[k] >> first & 1))
      ++first;
    char who[64], what[64];
    snprintf(who, sizeof who, "member %zu (ref%zu) failed: ", first, first);
    snprintf(what, sizeof what, "member %zu's own trouble", first);
    const char *message = last_message();
    CHECK_MSG(status == (first % 2 ? CK_ERROR_DEVICE_MEMORY : CK_ERROR_DEVICE),
              "mask %#x: status %d", masks[k], (int)status);
    CHECK_MSG(strncmp(message, who, strlen(who)) == 0 && strstr(message, what),
              "mask %#x%s: \"%s\"", masks[k], in_turn ? ", in turn" : "",
              message);
    CHECK(atomic_load(&f.ran) == 4);
    /* The next phase goes on. */
    CHECK_OK(ck__spread_each(&run, fail_some, &(failing){0}));
    ck__spread_end(&run);
  }
  unsetenv("CLKIT_SPREAD_THREADS");
}

/* A thread the system refuses fails its member before any member runs;
 * the next call makes it. */
static void refused_thread(void) {
  ck__spread_run run;
  if (!begin(4, &run))
    return;
  failing f = {0};
  CHECK_OK(ck__test_control(CK__TEST_SPREAD_THREAD_FAILS, 2));
  ck_status status = ck__spread_each(&run, fail_some, &f);
  CHECK_MSG(status == CK_ERROR_OUT_OF_MEMORY &&
                strstr(last_message(), "member 2 (ref2) failed: cannot "
                                       "start a host thread"),
            "status %d: \"%s\"", (int)status, last_message());
  CHECK(atomic_load(&f.ran) == 0);
  CHECK(ck__test_value(CK__TEST_SPREAD_THREAD_FAILS) == 0);
  CHECK_OK(ck__spread_each(&run, fail_some, &f));
  CHECK(atomic_load(&f.ran) == 4);
  ck__spread_end(&run);

  /* Refused at once, then ended with one worker made. */
  if (!begin(4, &run))
    return;
  CHECK_OK(ck__test_control(CK__TEST_SPREAD_THREAD_FAILS, 2));
  CHECK(ck__spread_each(&run, fail_some, &f) == CK_ERROR_OUT_OF_MEMORY);
  ck__spread_end(&run);
  CHECK(run.crew == NULL && run.exchange == NULL);
}

/* ---- what follows the caller: the build watch ---------------------------- */

typedef struct builds {
  size_t started, ended; /* plain: the relay tells one build at a time */
  double seconds;
} builds;

static void build_started(void *user, const char *program) {
  builds *b = user;
  b->started += strcmp(program, "p") == 0;
}

static void build_ended(void *user, const char *program, double seconds,
                        int failed) {
  builds *b = user;
  b->ended += strcmp(program, "p") == 0 && !failed;
  b->seconds += seconds;
}

static ck_status build(void *context, size_t member) {
  (void)context;
  (void)member;
  const ck__build_watch *watch = ck__build_watching;
  if (!watch)
    return ck__fail(CK_ERROR_MISMATCH, "no build watch");
  if (ck__build_from_source != 1)
    return ck__fail(CK_ERROR_MISMATCH, "ck__build_from_source is %d",
                    ck__build_from_source);
  watch->started(watch->user, "p");
  watch->ended(watch->user, "p", 0.5, 0);
  return CK_OK;
}

static void build_watch(void) {
  ck__spread_run run;
  if (!begin(MAX_MEMBERS, &run))
    return;
  builds b = {0};
  const ck__build_watch watch = {build_started, build_ended, &b};
  ck__build_watching = &watch;
  ck__build_from_source = 1;
  for (int call = 0; call < 50; ++call)
    CHECK_OK(ck__spread_each(&run, build, NULL));
  CHECK(ck__build_watching == &watch);
  CHECK_MSG(b.started == 50 * MAX_MEMBERS && b.ended == 50 * MAX_MEMBERS &&
                b.seconds == 0.5 * 50 * MAX_MEMBERS,
            "%zu builds began, %zu ended, %g s", b.started, b.ended, b.seconds);
  ck__build_watching = NULL;
  ck__build_from_source = 0;
  /* No watch: none in the workers either. */
  CHECK(ck__spread_each(&run, build, NULL) == CK_ERROR_MISMATCH);
  ck__spread_end(&run);
}

/* ---- many phases in a row ------------------------------------------------ */

static ck_status nothing(void *context, size_t member) {
  (void)context;
  (void)member;
  return CK_OK;
}

/* calls empty phases in batches; the fastest batch's time a phase is
 * printed and bounded, so that a moment of load on a shared machine does
 * not fail the test. */
static void many(size_t local, int calls) {
  ck__spread_run run;
  if (!begin(local, &run))
    return;
  enum { BATCHES = 4 };
  double each = INFINITY;
  for (int batch = 0; batch < BATCHES; ++batch) {
    double started = ck__seconds();
    for (int call = 0; call < calls / BATCHES; ++call)
      CHECK_OK(ck__spread_each(&run, nothing, NULL));
    double seconds = (ck__seconds() - started) / (calls / BATCHES);
    each = seconds < each ? seconds : each;
  }
  const char *setting = getenv("CLKIT_SPREAD_THREADS");
  printf("%zu members%s: %.2f us a phase (the best of %d batches of %d)\n",
         local, setting && strcmp(setting, "0") == 0 ? ", in turn" : "",
         each * 1e6, BATCHES, calls / BATCHES);
  CHECK_MSG(each < 5e-3, "%zu members: %g s a phase", local, each);
  ck__spread_end(&run);
}

/* A device given twice: refused by a workload whose members each take a
 * device of their own, naming it and its index; the gas's and the GA's
 * may share one. */
static void repeated_devices(void) {
  const ck_workload *pso = NULL, *shared[2] = {NULL, NULL};
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_OK(ck_workload_find("gas", &shared[0]));
  CHECK_OK(ck_workload_find("ga", &shared[1]));
  if (!pso || !shared[0] || !shared[1])
    return;
  const ck_device twice[3] = {devices[0], devices[1], devices[0]};
  size_t repeated = 0;
  CHECK_INVALID(ck_workload_check_spread_devices(pso, twice, 3, &repeated),
                "ck_spread: device ref0 is given twice");
  CHECK(repeated == 2);
  for (int w = 0; w < 2; ++w) {
    repeated = 0;
    CHECK_OK(ck_workload_check_spread_devices(shared[w], twice, 3, &repeated));
    CHECK(repeated == 3);
  }
  CHECK_OK(ck_workload_check_spread_devices(pso, twice, 2, &repeated));
  CHECK(repeated == 2);
}

/* ---- dealing the work ----------------------------------------------------
 */

/*
 * Shares deal the units in proportion, by the largest remainder method:
 * each member's quota rounded down (to one granule at least), the rest
 * one each to the largest remainders, ties to the larger share. The
 * same shares in the other order give the same counts in that order;
 * units short of a whole granule go to the last member.
 */
static void deal_in_proportion(void) {
  enum { MOST = 3 };
  static const struct {
    size_t members;
    double shares[MOST];
    uint64_t total, granule;
    uint64_t units[MOST], reversed[MOST]; /* the shares as given, reversed */
  } cases[] = {
      {2, {1, 3}, 1024, 1, {256, 768}, {768, 256}},
      {2, {1, 3}, 1024, 32, {256, 768}, {768, 256}},
      {2, {1, 3}, 1000, 1, {250, 750}, {750, 250}},
      {2, {1, 2}, 10, 1, {3, 7}, {7, 3}},
      {3, {1, 2, 4}, 10, 1, {1, 3, 6}, {6, 3, 1}},
      {3, {1, 1, 2}, 5, 1, {1, 1, 3}, {3, 1, 1}},
      {3, {0.1, 0.2, 0.7}, 10, 1, {1, 2, 7}, {7, 2, 1}},
      {2, {2, 5}, 7, 1, {2, 5}, {5, 2}},
      /* One unit each at least, taken from the largest quota. */
      {2, {1, 1000}, 10, 1, {1, 9}, {9, 1}},
      {2, {1, 3}, 2, 1, {1, 1}, {1, 1}},
      /* Equal shares: a tie goes to the lower index, either way. */
      {3, {1, 1, 1}, 10, 1, {4, 3, 3}, {4, 3, 3}},
      {2, {1e308, 1e308}, 7, 1, {4, 3}, {4, 3}},
      /* 31 granules of 32 and 8 units over, which the last member takes. */
      {2, {1, 3}, 1000, 32, {256, 744}, {736, 264}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int reversed = 0; reversed < 2; ++reversed) {
      size_t members = cases[c].members;
      double shares[MOST];
      const uint64_t *want = reversed ? cases[c].reversed : cases[c].units;
      for (size_t m = 0; m < members; ++m)
        shares[m] = cases[c].shares[reversed ? members - 1 - m : m];
      ck_spread spread = {.devices = devices,
                          .device_count = members,
                          .shares = shares,
                          .share_count = members};
      ck__spread_run run;
      ck_status begun = ck__spread_begin(&spread, "units", &run);
      CHECK_OK(begun);
      if (begun != CK_OK)
        continue;
      CHECK_OK(ck__spread_deal(&run, &spread, cases[c].total, cases[c].granule,
                               NULL));
      uint64_t start = 0;
      for (size_t m = 0; m < members; ++m) {
        CHECK_MSG(run.units[m] == want[m] && run.first[m] == start,
                  "case %zu%s, member %zu: %llu units from %llu; want %llu "
                  "from %llu",
                  c, reversed ? " reversed" : "", m,
                  (unsigned long long)run.units[m],
                  (unsigned long long)run.first[m], (unsigned long long)want[m],
                  (unsigned long long)start);
        start += want[m];
      }
      ck__spread_end(&run);
    }
}

/* Where the processes stand: one process here, so one host; ref devices
 * cannot tell their GPUs apart; able as the caller says. */
static void places(void) {
  printf("places\n");
  for (int able = 0; able <= 1; ++able) {
    ck__spread_run run;
    if (!begin(2, &run))
      continue;
    ck__spread_places found = {-1, -1, -1};
    CHECK_OK(ck__spread_places_find(&run, able, &found));
    CHECK_MSG(found.able == able && found.one_host == 1 && found.own_gpus == 0,
              "able %d: found able %d, one host %d, own GPUs %d", able,
              found.able, found.one_host, found.own_gpus);
    ck__spread_end(&run);
  }
}

/* Copies around the ring of local members: none between ref devices,
 * every one under the test control, from the previous member and (two
 * sides) from the next; closing clears them. */
static void peers(void) {
  printf("peers\n");
  for (int sides = 1; sides <= 2; ++sides)
    for (int copies = 0; copies <= 1; ++copies) {
      ck__spread_run run;
      if (!begin(3, &run))
        continue;
      ck__peer *made[2][CK_SPREAD_MAX_LOCAL] = {{NULL}};
      CHECK_OK(ck__test_control(CK__TEST_PEER_REF, copies));
      CHECK_OK(ck__spread_peers_open(&run, sides, made));
      CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
      for (int side = 0; side < 2; ++side)
        for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
          CHECK_MSG((made[side][i] != NULL) ==
                        (copies && side < sides && i < 3),
                    "sides %d, copies %d: peers[%d][%zu] %s", sides, copies,
                    side, i, made[side][i] ? "made" : "not made");
      ck__spread_peers_close(made);
      for (int side = 0; side < 2; ++side)
        for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
          CHECK(made[side][i] == NULL);
      ck__spread_end(&run);
    }
}

int main(void) {
  if (!test_ref_members(devices, MAX_MEMBERS))
    return CHECK_DONE();

  /* Ended with no call made. */
  ck__spread_run run;
  if (begin(4, &run))
    ck__spread_end(&run);

  for (size_t local = 2; local <= MAX_MEMBERS; local *= 2)
    at_once(local);
  in_turn();
  times();
  failures(0);
  failures(1);
  refused_thread();
  build_watch();
  repeated_devices();
  deal_in_proportion();
  places();
  peers();

  many(1, 20000);
  for (size_t local = 2; local <= MAX_MEMBERS; local *= 2)
    many(local, 20000);
  setenv("CLKIT_SPREAD_THREADS", "0", 1);
  many(MAX_MEMBERS, 20000);
  unsetenv("CLKIT_SPREAD_THREADS");
  return CHECK_DONE();
}
