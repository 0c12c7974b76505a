/*
 * nn_members.c - a network's members. A network on one device is a
 * spread of one member, through the same engine. A spread network (over
 * several devices and processes) is data parallel: every member holds the
 * whole network, from the same seed or model file, and every attached
 * set. Each takes a contiguous part of every batch's rows, from the order
 * all compute alike; the gradients of their parts are summed over all
 * members (nn_spread.c), and each member takes the same optimiser step
 * from the sum, so the weights stay the same everywhere.
 *
 * The member engine (framework/engine.h) makes the members and runs each
 * phase on every member of the process at once, a host thread a member
 * (ck__engine_each; one member runs on the calling thread, summing
 * nothing).
 *
 * Rows are dealt in proportion to the shares, or to the speeds a short
 * probe measures before training: a full batch is dealt, and any other
 * count of rows (an epoch's last batch, a set evaluated) is cut at the
 * same proportions.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_members.h"

/* Rows a member that the first deal, before any training, deals; a set
 * evaluated then is cut in its proportions. */
#define FIRST_DEAL_ROWS 1024u

/* The first member of this process is member `first` of all. */
static size_t first_member(const ck__nn_spread *spread) {
  return ck__exchange_first(spread->exchange);
}

void ck__nn_spread_cut(const ck_nn *nn, size_t i, uint32_t total,
                       uint32_t *start, uint32_t *count) {
  assert(nn->spread);
  uint64_t first = 0, rows = 0;
  ck__engine_share(nn->spread->engine, first_member(nn->spread) + i, total,
                   &first, &rows);
  *start = (uint32_t)first;
  *count = (uint32_t)rows;
}

ck_status ck__nn_spread_each(ck_nn *nn, ck_status (*fn)(void *, size_t),
                             void *context) {
  assert(nn->spread);
  return ck__engine_each(nn->spread->engine, fn, context);
}

void ck__nn_spread_destroy(ck__nn_spread *spread) {
  if (!spread)
    return;
  /* No sum in flight when the exchange goes. */
  for (size_t i = 0; spread->engine && i < spread->local; ++i)
    if (spread->members[i])
      (void)ck_queue_finish(spread->members[i]->state.queue);
  ck__engine_destroy(spread->engine);
  free(spread->members);
  free(spread->gradients);
  free(spread->scratch);
  free(spread);
}

/* What the members are made of. */
typedef struct make_call {
  const ck_nn_config *config;
  const char *model;
  const ck__nn_tuning *tuning;
  int double_precision;
} make_call;

/* A member: the whole network on its device (the engine's allocate). */
static ck_status allocate(void *self, const ck__engine_member *member,
                          ck_queue **queue) {
  ck__nn_spread *spread = self;
  const make_call *call = spread->making;
  ck_nn **made = &spread->members[member->index];
  ck_status status =
      call->model ? ck__nn_model_allocate(member->device, call->model,
                                          call->config, call->tuning, made)
                  : ck__nn_allocate(member->device, call->config,
                                    call->double_precision, call->tuning, made);
  if (status == CK_OK)
    *queue = (*made)->state.queue;
  return status;
}

static ck_status set_up(void *self, size_t i) {
  ck__nn_spread *spread = self;
  return ck__nn_set_up(spread->members[i], !spread->making->model);
}

/* The first member, once made, is the network, which its owner
 * destroys. */
static void teardown(void *self, size_t i) {
  ck__nn_spread *spread = self;
  if (i > 0 || !spread->owned)
    ck_nn_destroy(spread->members[i]);
  spread->members[i] = NULL;
}

/* The MLP's members for the engine: every member holds the whole
 * network; rows are dealt at the first batch (ck__nn_spread_prepare). */
static const ck__engine_kind nn_kind = {.unit_name = "samples",
                                        .granule = 1,
                                        .allocate = allocate,
                                        .set_up = set_up,
                                        .teardown = teardown};

ck_status ck__nn_spread_create(const ck_spread *given,
                               const ck_nn_config *config, const char *model,
                               int double_precision,
                               const ck__nn_tuning *tuning, ck_nn **made) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = calloc(1, sizeof *spread);
  *made = NULL;
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  make_call call = {config, model, tuning, double_precision};
  spread->making = &call;
  spread->shares = given->shares != NULL;
  spread->members = calloc(given->device_count, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* A network too large for its device is known before any member draws
   * its weights and builds its kernels, which can take many seconds. */
  CK_TRY(ck__engine_create(&nn_kind, spread, given, FIRST_DEAL_ROWS,
                           &spread->engine));
  spread->making = NULL;
  spread->exchange = ck__engine_run(spread->engine)->exchange;
  spread->local = ck__engine_local(spread->engine);
  spread->count = ck__engine_members(spread->engine);
  /* Equal parts until the first batch deals them. */
  CK_TRY(ck__engine_deal(spread->engine,
                         (uint64_t)spread->count * FIRST_DEAL_ROWS, NULL));
  ck_nn *network = spread->members[0];
  network->spread = spread;
  network->members = spread->members;
  network->local = spread->local;
  spread->owned = 1;
  *made = network;
  return CK_OK;
fail:
  ck__nn_spread_destroy(spread);
  return status;
}

ck_status ck_nn_create_spread(const ck_spread *spread,
                              const ck_nn_config *config, ck_nn **nn) {
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(nn);
  return ck__nn_spread_create(spread, config, NULL, 0, NULL, nn);
}

/* ---- before training ---------------------------------------------------- */

ck_status ck__nn_spread_prepare(ck_nn *nn, uint32_t batch) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  assert(spread);
  double speeds[CK_SPREAD_MAX_LOCAL] = {0};
  int measured = 0;
  /* One member's steps update its weights from its own gradient, fused,
   * and sum nothing. */
  spread->way = SUM_NONE;
  if (spread->count > 1)
    CK_TRY(ck__nn_spread_measure(spread, batch, speeds, &measured));
  if ((status =
           ck__engine_deal(spread->engine, batch, measured ? speeds : NULL)))
    CK_FAIL_PREFIX(status, "batch: ");
  if (spread->count > 1)
    CK_TRY(ck__nn_spread_choose_sums(spread));
fail:
  return status;
}

/* ---- training ----------------------------------------------------------- */

/* Member i's step on its rows of the batch, ending as the sum's way says.
 * Its deltas are scaled by 1 / the batch's rows, as one device scales
 * them, so that the members' gradients sum to the batch's; where the sum
 * averages, by 1 / its rows. */
ck_status ck__nn_batch_member(void *context, size_t i) {
  const batch_call *call = context;
  ck_nn *nn = call->nn, *member = nn->members[i];
  sum_way way = nn->spread->way;
  uint32_t start, rows;
  ck__nn_spread_cut(nn, i, call->count, &start, &rows);
  ck__nn_step step = {.offset = call->offset + start,
                      .count = rows,
                      .position = member->position,
                      .scale = 1.0 / call->count,
                      .update = call->update,
                      .record_only = call->record_only};
  if (!call->record_only)
    member->position += rows;
  if (way == SUM_MEMBERS)
    step.buckets = &nn->spread->buckets;
  else if (way != SUM_NONE)
    step.update = NULL;
  if (call->average) {
    step.average = 1;
    step.scale = 1.0 / rows;
  }
  ck_status status = ck__nn_train_step(member, &step);
  if (status == CK_OK && way == SUM_HOST)
    status = ck__nn_spread_read_gradient(nn->spread, i);
  return status;
}

ck_status ck__nn_spread_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                              const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  batch_call call = {nn, offset, count, update, 0, 0};
  call.average =
      spread->way != SUM_NONE && ck__nn_spread_averages(spread, count);
  CK_TRY(ck__nn_spread_each(nn, ck__nn_batch_member, &call));
  if (spread->way != SUM_NONE)
    CK_TRY(ck__nn_spread_sum(spread, &call));
fail:
  return status;
}

/* ---- results ------------------------------------------------------------ */

/* What the members found of their rows: the epoch's (forward 0) or an
 * attached set's, forward now, each member its cut of the rows. */

typedef struct results_call {
  ck_nn *nn;
  ck_nn_set which;
  int forward, reduce;
  int32_t *predicted;                  /* every row's, or NULL */
  double sums[CK_SPREAD_MAX_LOCAL][2]; /* each local member's loss, hits */
} results_call;

static ck_status results_member(void *context, size_t i) {
  ck_status status = CK_OK;
  results_call *call = context;
  ck_nn *member = call->nn->members[i];
  nn_state *state = &member->state;
  uint32_t start = 0, count = member->position;
  uint64_t hits = 0;
  call->sums[i][0] = call->sums[i][1] = 0;
  if (call->forward) {
    ck__nn_spread_cut(call->nn, i, state->sets[call->which].rows, &start,
                      &count);
    if (count)
      CK_TRY(ck__nn_forward_rows(member, call->which, start, count));
  }
  if (call->reduce && count)
    CK_TRY(member->steps->reduce(state, count, &call->sums[i][0], &hits));
  call->sums[i][1] = (double)hits;
  if (call->predicted && count)
    CK_TRY(ck_buffer_read(state->queue, state->predictions, 0,
                          count * sizeof *call->predicted,
                          call->predicted + start, CK_BLOCKING, NULL));
fail:
  return status;
}

/* The members' results, their sums over every member, and (where asked)
 * every member's predictions on every process. */
static ck_status results(ck_nn *nn, results_call *call, double *loss,
                         uint64_t *hits) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  call->nn = nn;
  call->reduce = loss || hits;
  CK_TRY(ck__nn_spread_each(nn, results_member, call));
  double total[2] = {call->sums[0][0], call->sums[0][1]};
  /* Several members' sums, and their predictions to every process. */
  if (spread->count > 1)
    CK_TRY(ck__nn_spread_combine(spread, call->reduce ? call->sums : NULL,
                                 total, call->predicted,
                                 nn->state.sets[call->which].rows));
  if (loss)
    *loss = total[0];
  if (hits)
    *hits = (uint64_t)total[1];
fail:
  return status;
}

ck_status ck__nn_spread_reduce(ck_nn *nn, double *loss, uint64_t *hits) {
  results_call call = {.which = CK_NN_TRAIN};
  return results(nn, &call, loss, hits);
}

ck_status ck__nn_spread_forward(ck_nn *nn, ck_nn_set which, double *loss,
                                uint64_t *hits, int32_t *predicted) {
  results_call call = {.which = which, .forward = 1, .predicted = predicted};
  return results(nn, &call, loss, hits);
}

ck_status ck__nn_spread_report(ck_nn *nn, ck_result *result) {
  return ck__engine_report(nn->spread->engine, result);
}

void ck__nn_spread_clocks_start(ck_nn *nn) {
  assert(nn && nn->spread);
  ck__engine_clocks_start(nn->spread->engine);
}

int ck__nn_spread_rank(const ck_nn *nn) {
  assert(nn && nn->spread);
  return ck__engine_rank(nn->spread->engine);
}
