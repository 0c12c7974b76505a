/*
 * test_session.c - sessions (clkit/session.h) on ref and on an OpenCL
 * device: runs on a session's device equal runs on the plain device; a
 * second run reuses the kept queue, programs and buffers; one objective
 * read from two files builds once, and its build errors name its file;
 * two queues of one device at once; rounds of runs at once build each
 * program once and make no queue after the first; a failed run leaves the
 * session usable; a destroyed session refuses its devices while its
 * queues live on, and a run that destroys its own session finishes; a
 * child forked after OpenCL was used is refused OpenCL at once, and runs
 * ref; and the arguments refused.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "opencl_device.h"
#include "test_support.h"

static char work_dir[256];

static const char objective_text[] =
    "float objective(const float *x, int dim) {\n"
    "  float sum = 0.0f;\n"
    "  for (int d = 0; d < dim; ++d)\n"
    "    sum += (x[d] - 0.5f) * (x[d] - 0.5f);\n"
    "  return sum;\n"
    "}\n";

/* A session of the plain device's id and, in *device, its device; NULL
 * where it could not be made. */
static ck_session *session_of(const ck_device *plain,
                              const ck_device **device) {
  ck_session *session = NULL;
  size_t count = 0;
  *device = NULL;
  CHECK_OK(ck_session_create(plain->id, &session));
  if (session)
    CHECK_OK(ck_session_get_devices(session, device, &count));
  CHECK(count == 1);
  return session;
}

static ck_session_stats stats_of(const ck_session *session) {
  ck_session_stats stats;
  memset(&stats, 0, sizeof stats);
  CHECK_OK(ck_session_query(session, &stats));
  return stats;
}

/* A PSO run's best value, or NAN where it failed. */
static double pso_best(const ck_device *device, const ck_param *params,
                       size_t count, double *position) {
  const ck_workload *pso = NULL;
  ck_result result;
  double best = NAN;
  CHECK_OK(ck_workload_find("pso", &pso));
  ck_run_options options = {.seed = 7};
  ck_status status =
      ck_workload_run(pso, device, params, count, &options, &result);
  CHECK_OK(status);
  if (status != CK_OK)
    return NAN;
  best = result.best;
  if (position && result.position)
    memcpy(position, result.position, 4 * sizeof *position);
  ck_result_release(&result);
  return best;
}

/* A progress callback that stops a run once it has made steps. */
static int stop_midway(void *user, const ck_progress *progress) {
  (void)user;
  return progress->steps > 0;
}

/* Runs on a session's device equal the plain device's, and the second
 * reuses what the first left. */
static void runs(const ck_device *plain) {
  const ck_device *devices = NULL;
  printf("runs on a session of %s\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  CHECK(strcmp(devices[0].id, plain->id) == 0);
  CHECK(devices[0].session != 0 && plain->session == 0);
  const ck_param params[] = {
      {"fn", "rastrigin"}, {"dim", "4"}, {"particles", "64"}, {"iters", "30"}};
  double alone[4], first[4], second[4];
  double best = pso_best(plain, params, 4, alone);
  CHECK(pso_best(&devices[0], params, 4, first) == best);
  ck_session_stats once = stats_of(session);
  CHECK(pso_best(&devices[0], params, 4, second) == best);
  CHECK(memcmp(alone, first, sizeof first) == 0);
  CHECK(memcmp(alone, second, sizeof second) == 0);
  ck_session_stats twice = stats_of(session);
  CHECK(once.runs == 1 && twice.runs == 2);
  CHECK_MSG(twice.queues_made == 1 && twice.queues_lent == 1,
            "%llu made, %llu lent", twice.queues_made, twice.queues_lent);
  if (plain->backend != CK_BACKEND_REF) {
    CHECK_MSG(once.programs_built >= 1, "%llu built", once.programs_built);
    CHECK(twice.programs_built == once.programs_built);
    CHECK(twice.programs_reused == once.programs_built);
    CHECK(twice.programs == once.programs_built);
    CHECK(once.buffers > 0 && twice.buffers_reused > 0);
  } else {
    CHECK(twice.programs_built == 0 && twice.buffers == 0);
  }
  /* A run that fails (an option out of range, found as the run reads it)
   * leaves the session as it was for the next. */
  const ck_param bad[] = {{"fn", "rastrigin"}, {"particles", "0"}};
  const ck_workload *pso = NULL;
  ck_result result;
  ck_run_options options = {.seed = 7};
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK(ck_workload_run(pso, &devices[0], bad, 2, &options, &result) ==
        CK_ERROR_INVALID_ARGUMENT);
  CHECK(pso_best(&devices[0], params, 4, second) == best);
  /* So does one that its caller stops midway, its kernels running. */
  options.progress = stop_midway;
  CHECK(ck_workload_run(pso, &devices[0], params, 4, &options, &result) ==
        CK_ERROR_CANCELLED);
  CHECK(pso_best(&devices[0], params, 4, second) == best);
  CHECK(memcmp(alone, second, sizeof second) == 0);
  CHECK(ck_session_destroy(session) == CK_OK);
}

/* One objective read from two files is one program: the second run
 * builds nothing. A source that does not build names its file. */
static void user_objective(const ck_device *plain) {
  char first[300], second[300], broken[300];
  test_write_text(work_dir, "first.cl", objective_text, first, sizeof first);
  test_write_text(work_dir, "second.cl", objective_text, second, sizeof second);
  test_write_text(work_dir, "broken.cl",
                  "float objective(const float *x, int dim) {\n"
                  "  return x[0] +;\n"
                  "}\n",
                  broken, sizeof broken);
  const ck_device *devices = NULL;
  printf("a user objective on a session of %s\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  ck_param params[] = {{"objective", first}, {"lo", "-2"},
                       {"hi", "2"},          {"dim", "3"},
                       {"particles", "32"},  {"iters", "10"}};
  double best = pso_best(&devices[0], params, 6, NULL);
  ck_session_stats once = stats_of(session);
  params[0].value = second;
  CHECK(pso_best(&devices[0], params, 6, NULL) == best);
  ck_session_stats twice = stats_of(session);
  CHECK_MSG(twice.programs_built == once.programs_built,
            "built %llu, then %llu", once.programs_built, twice.programs_built);
  CHECK(twice.programs_reused > once.programs_reused);

  params[0].value = broken;
  const ck_workload *pso = NULL;
  ck_result result;
  ck_run_options options = {.seed = 7};
  CHECK_OK(ck_workload_find("pso", &pso));
  ck_status status =
      ck_workload_run(pso, &devices[0], params, 6, &options, &result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK(status == CK_ERROR_BUILD);
  CHECK_MSG(strstr(message, "broken.cl:2") != NULL, "%.300s", message);
  CHECK_MSG(strstr(message, "ck_user_source") == NULL, "%.300s", message);
  CHECK(pso_best(&devices[0], params, 0, NULL) >= 0);
  ck_session_destroy(session);
}

/* With CLKIT_KERNEL_DIR the sources may change between runs: the key is
 * the assembled source's, and the same sources still build once. */
static void kernel_dir(const ck_device *plain) {
  const char *directory = getenv("CLKIT_KERNEL_DIR_FOR_TESTS");
  if (!directory || !*directory)
    return;
  const ck_device *devices = NULL;
  printf("CLKIT_KERNEL_DIR on a session of %s\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  const ck_param params[] = {{"fn", "sphere"}, {"dim", "3"}, {"iters", "5"}};
  double best = pso_best(&devices[0], params, 3, NULL);
  ck_session_stats embedded = stats_of(session);
  setenv("CLKIT_KERNEL_DIR", directory, 1);
  CHECK(pso_best(&devices[0], params, 3, NULL) == best);
  ck_session_stats once = stats_of(session);
  CHECK(pso_best(&devices[0], params, 3, NULL) == best);
  ck_session_stats twice = stats_of(session);
  unsetenv("CLKIT_KERNEL_DIR");
  CHECK_MSG(once.programs_built == 2 * embedded.programs_built,
            "%llu built, then %llu", embedded.programs_built,
            once.programs_built);
  CHECK(twice.programs_built == once.programs_built);
  CHECK(twice.programs_reused ==
        once.programs_reused + embedded.programs_built);
  ck_session_destroy(session);
}

/* Two queues of one device at once: the second is new, beside the kept
 * one; each program and buffer stays with its queue. A destroyed session
 * refuses its devices, while a queue made on it lives on. */
static void queues(const ck_device *plain) {
  const ck_device *devices = NULL;
  printf("queues of a session of %s\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  ck_device copy = devices[0];
  ck_queue *first = NULL, *second = NULL;
  ck_buffer *a = NULL, *b = NULL;
  CHECK_OK(ck_queue_create(&copy, &first));
  CHECK_OK(ck_queue_create(&devices[0], &second));
  CHECK_OK(ck_buffer_create(first, 64, &a));
  CHECK_OK(ck_buffer_create(second, 64, &b));
  uint32_t words[16] = {1, 2, 3}, back[16] = {0};
  if (first && second && a && b) {
    CHECK_INVALID(ck_buffer_write(second, a, 0, 64, words, CK_BLOCKING, NULL),
                  "another queue");
    CHECK_OK(ck_buffer_write(first, a, 0, 64, words, CK_BLOCKING, NULL));
    CHECK_OK(ck_buffer_copy(first, a, 32, a, 0, 4, NULL));
  }
  if (plain->backend != CK_BACKEND_REF && first && second) {
    ck_program *p = NULL, *q = NULL;
    ck_program_stats stats;
    CHECK_OK(
        ck_program_build(first, "selfcheck", "-DCK_SELFCHECK_GROUP=1", &p));
    CHECK_OK(
        ck_program_build(second, "selfcheck", "-DCK_SELFCHECK_GROUP=1", &q));
    /* The kept one serves both queues at once. */
    if (q && ck_program_query(q, &stats) == CK_OK)
      CHECK(stats.from_session);
    ck_kernel *kernel = NULL;
    if (q)
      CHECK_OK(ck_kernel_create(q, "ck_selfcheck_generate", &kernel));
    ck_kernel_destroy(kernel);
    ck_program_destroy(p);
    ck_program_destroy(q);
  }
  ck_buffer_destroy(b);
  ck_queue_destroy(second);

  /* Destroyed: new queues and runs on its devices are refused. */
  CHECK_OK(ck_session_destroy(session));
  ck_queue *late = NULL;
  CHECK_INVALID(ck_queue_create(&copy, &late), "was destroyed");
  const ck_workload *pso = NULL;
  ck_result result;
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_INVALID(ck_workload_run(pso, &copy, NULL, 0, NULL, &result),
                "was destroyed");
  /* The queue made before lives on. */
  if (first && a) {
    CHECK_OK(ck_buffer_read(first, a, 0, 64, back, CK_BLOCKING, NULL));
    CHECK(back[0] == 1 && back[2] == 3 && back[8] == 1);
  }
  ck_buffer_destroy(a);
  ck_queue_destroy(first);
}

/* Runs at once on one device: ROUND_RUNS threads, ROUNDS times. */
enum { ROUND_RUNS = 4, ROUNDS = 3 };

static const ck_param round_params[] = {
    {"fn", "rastrigin"}, {"dim", "3"}, {"particles", "32"}, {"iters", "5"}};

typedef struct racer {
  const ck_device *device;
  pthread_barrier_t *start;
  ck_status status;
  double best;
} racer;

static void *race(void *argument) {
  racer *self = argument;
  const ck_workload *pso = NULL;
  ck_result result;
  ck_run_options options = {.seed = 7}; /* as pso_best's */
  pthread_barrier_wait(self->start);
  self->status = ck_workload_find("pso", &pso);
  if (self->status == CK_OK)
    self->status = ck_workload_run(pso, self->device, round_params,
                                   sizeof round_params / sizeof *round_params,
                                   &options, &result);
  if (self->status == CK_OK) {
    self->best = result.best;
    ck_result_release(&result);
  }
  return NULL;
}

/* Rounds of runs at once on a session's device: a kept program serves
 * them all, so each is built once, by the first round; and the queues
 * made beside the kept one for the first round serve the later ones. */
static void rounds(const ck_device *plain) {
  const ck_device *devices = NULL;
  printf("rounds of runs at once on a session of %s\n", plain->id);
  ck_session *alone = session_of(plain, &devices);
  if (!alone)
    return;
  double best = pso_best(&devices[0], round_params, 4, NULL);
  ck_session_stats once = stats_of(alone);
  ck_session_destroy(alone);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, ROUND_RUNS);
  racer racers[ROUND_RUNS];
  pthread_t threads[ROUND_RUNS];
  ck_session_stats first = {0};
  for (int round = 0; round < ROUNDS; ++round) {
    for (int i = 0; i < ROUND_RUNS; ++i) {
      racers[i] = (racer){.device = &devices[0], .start = &start, .best = NAN};
      pthread_create(&threads[i], NULL, race, &racers[i]);
    }
    for (int i = 0; i < ROUND_RUNS; ++i) {
      pthread_join(threads[i], NULL);
      CHECK_MSG(racers[i].status == CK_OK && racers[i].best == best,
                "round %d, run %d: status %d, best %g of %g", round, i,
                (int)racers[i].status, racers[i].best, best);
    }
    if (round == 0)
      first = stats_of(session);
  }
  pthread_barrier_destroy(&start);
  ck_session_stats last = stats_of(session);
  CHECK_MSG(once.programs_built >= 1 &&
                last.programs_built == once.programs_built,
            "a run builds %llu programs; %d rounds of %d runs built %llu",
            once.programs_built, ROUNDS, ROUND_RUNS, last.programs_built);
  CHECK_MSG(last.queues_made == first.queues_made &&
                last.queues_made <= ROUND_RUNS,
            "%llu queues made by the first round, %llu by %d",
            first.queues_made, last.queues_made, ROUNDS);
  CHECK(last.runs == ROUNDS * ROUND_RUNS);
  CHECK(last.programs == once.programs);
  ck_session_destroy(session);
}

/* Destroys the session user points at, at the run's first check. */
static int destroy_session(void *user, const ck_progress *progress) {
  (void)progress;
  ck_session **session = user;
  if (*session)
    CHECK_OK(ck_session_destroy(*session));
  *session = NULL;
  return 0;
}

/* A progress callback that destroys the run's session, before the run
 * has made its queue: the run finishes, and a later one is refused. */
static void destroyed_by_the_run(const ck_device *plain) {
  const ck_device *devices = NULL;
  printf("a run that destroys its session of %s\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  ck_device copy = devices[0];
  const ck_workload *pso = NULL;
  ck_result result;
  ck_run_options options = {
      .seed = 7, .progress = destroy_session, .progress_user = &session};
  CHECK_OK(ck_workload_find("pso", &pso));
  ck_status status =
      ck_workload_run(pso, &copy, round_params, 4, &options, &result);
  CHECK_OK(status);
  CHECK(session == NULL);
  if (status == CK_OK) {
    CHECK(result.best == pso_best(plain, round_params, 4, NULL));
    ck_result_release(&result);
  }
  options.progress = NULL;
  CHECK_INVALID(ck_workload_run(pso, &copy, round_params, 4, &options, &result),
                "was destroyed");
}

/* The child's share of forked(): 0, or the first check that failed. */
static int forked_child(const ck_device *plain, ck_session *session,
                        const ck_device *kept, ck_queue *queue) {
  const char *message = "";
  ck_buffer *buffer = NULL;
  ck_queue *made = NULL;
  ck_device_set set;
  ck_session *own = NULL;
  if (ck_queue_create(plain, &made) != CK_ERROR_UNSUPPORTED)
    return 1;
  ck_error_get_last(&message);
  if (!strstr(message, plain->id) || !strstr(message, "forked") ||
      !strstr(message, "exec"))
    return 2;
  if (ck_buffer_create(queue, 64, &buffer) != CK_ERROR_UNSUPPORTED ||
      ck_queue_finish(queue) != CK_ERROR_UNSUPPORTED)
    return 3;
  if (ck_device_enumerate(&set) != CK_ERROR_UNSUPPORTED ||
      ck_session_create(plain->id, &own) != CK_ERROR_UNSUPPORTED)
    return 4;
  const ck_workload *pso = NULL;
  ck_result result;
  if (ck_workload_find("pso", &pso) != CK_OK ||
      ck_workload_run(pso, kept, round_params, 4, NULL, &result) !=
          CK_ERROR_UNSUPPORTED)
    return 5;
  /* What the parent made is let go of without a call into OpenCL. */
  ck_queue_destroy(queue);
  ck_session_destroy(session);
  /* ref runs, its devices listed alone. */
  if (ck_session_create("ref", &own) != CK_OK)
    return 6;
  const ck_device *ref = NULL;
  size_t count = 0;
  ck_session_get_devices(own, &ref, &count);
  if (ck_workload_run(pso, &ref[0], round_params, 4, NULL, &result) != CK_OK)
    return 7;
  ck_result_release(&result);
  ck_session_destroy(own);
  return 0;
}

/* A child forked after OpenCL was used: every OpenCL call fails at once,
 * naming the fork and the way round it, where it would wait forever for
 * the runtime's threads (PoCL's), which the child lacks. An alarm ends a
 * child that hangs, which fails the check. */
static void forked(const ck_device *plain) {
  const ck_device *devices = NULL;
  printf("a child forked after %s was used\n", plain->id);
  ck_session *session = session_of(plain, &devices);
  if (!session)
    return;
  CHECK(pso_best(&devices[0], round_params, 4, NULL) >= 0);
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(plain, &queue));
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child == 0) {
    alarm(60);
    _exit(forked_child(plain, session, &devices[0], queue));
  }
  int status = 0;
  CHECK(child > 0 && waitpid(child, &status, 0) == child);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child %s %d",
            WIFEXITED(status) ? "failed check" : "got signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  /* The parent's OpenCL goes on. */
  CHECK(pso_best(&devices[0], round_params, 4, NULL) >= 0);
  ck_queue_destroy(queue);
  ck_session_destroy(session);
}

static void arguments(void) {
  ck_session *session = NULL;
  ck_session_stats stats;
  const ck_device *devices = NULL;
  size_t count = 0;
  CHECK_INVALID(ck_session_create("ref", NULL), "session is NULL");
  CHECK(ck_session_create("no such device", &session) == CK_ERROR_NOT_FOUND);
  CHECK(session == NULL);
  CHECK_INVALID(ck_session_create("ref,,", &session), "empty");
  CHECK(ck_session_destroy(NULL) == CK_OK);
  CHECK_OK(ck_session_create("ref", &session));
  CHECK_INVALID(ck_session_query(session, NULL), "stats is NULL");
  CHECK_INVALID(ck_session_query(NULL, &stats), "session is NULL");
  CHECK_INVALID(ck_session_get_devices(session, NULL, &count), "devices");
  CHECK_INVALID(ck_session_get_devices(session, &devices, NULL), "count");
  CHECK_OK(ck_session_get_devices(session, &devices, &count));
  CHECK(count == 1 && devices[0].backend == CK_BACKEND_REF);
  stats = stats_of(session);
  CHECK(stats.devices == 1 && stats.runs == 0 && stats.queues_made == 0);
  ck_session_destroy(session);
}

int main(void) {
  const char *temporary = getenv("TMPDIR");
  snprintf(work_dir, sizeof work_dir, "%s/clkit-session-XXXXXX",
           temporary && *temporary ? temporary : "/tmp");
  if (!mkdtemp(work_dir))
    return 1;
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  long opencl = test_opencl_device(&set);
  arguments();
  runs(&set.devices[0]);
  queues(&set.devices[0]);
  destroyed_by_the_run(&set.devices[0]);
  if (opencl >= 0) {
    runs(&set.devices[opencl]);
    queues(&set.devices[opencl]);
    rounds(&set.devices[opencl]);
    destroyed_by_the_run(&set.devices[opencl]);
    user_objective(&set.devices[opencl]);
    kernel_dir(&set.devices[opencl]);
    if (set.devices[opencl].backend == CK_BACKEND_OPENCL)
      forked(&set.devices[opencl]);
  }
  ck_device_set_free(&set);
  remove_tree(work_dir);
  return CHECK_DONE();
}
