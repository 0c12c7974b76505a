/*
 * nn_spread.c - an MLP trained over several devices (and processes), data
 * parallel. Every member holds the whole network, from the same seed or
 * model file, and every attached set. Each takes a contiguous part of
 * every batch's rows, from the order all compute alike; the gradients of
 * their parts are summed over all members, and each member takes the same
 * optimiser step from the sum, so the weights stay the same everywhere.
 *
 * Rows are dealt in proportion to the shares, or to the speeds a short
 * probe measures before training: a full batch is dealt, and any other
 * count of rows (an epoch's last batch, a set evaluated) is cut at the
 * same proportions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "nn/nn_internal.h"

/* Rows a member that the first deal, before any training, deals; a set
 * evaluated then is cut in its proportions. */
#define FIRST_DEAL_ROWS 1024u

struct ck__nn_spread {
  ck__spread_run run;
  ck_spread given;         /* the caller's, over the copies below */
  ck_device *devices;      /* this process's devices, copied */
  double *shares;          /* the shares, copied, or NULL */
  ck_nn **members;         /* local ones; the first is the network */
  size_t count;            /* members over every process */
  uint64_t *first, *units; /* every member's slice of run.total */
  size_t parameters;       /* weights and biases of all layers */
  double *gradients;       /* local + 1 runs of parameters: each local
                              member's gradient, then their sum */
  double *scratch;         /* one layer in a member's weights' layout */
  uint32_t positions[CK_SPREAD_MAX_LOCAL]; /* per-sample entries this epoch */
};

/* The rows of total (a batch, a set) that member m takes: its slice of
 * the deal, scaled. Neighbours' cuts meet, and cover 0 .. total. */
static void cut(const ck__nn_spread *spread, size_t m, uint32_t total,
                uint32_t *start, uint32_t *count) {
  uint64_t dealt = spread->run.total;
  uint64_t from = spread->first[m] * total / dealt;
  uint64_t to = (spread->first[m] + spread->units[m]) * total / dealt;
  *start = (uint32_t)from;
  *count = (uint32_t)(to - from);
}

/* Deals total rows (by shares, else by speeds; NULL: equally), and
 * learns every member's slice. */
static ck_status deal(ck__nn_spread *spread, uint64_t total,
                      const double *speeds) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  uint64_t local[CK_SPREAD_MAX_LOCAL][2];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(2 * spread->count, sizeof *all);
  if (!all)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_deal(run, &spread->given, total, 1, speeds));
  for (size_t i = 0; i < run->local; ++i) {
    local[i][0] = run->first[i];
    local[i][1] = run->units[i];
    pieces[i] = local[i];
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof local[0], all));
  for (size_t m = 0; m < spread->count; ++m) {
    spread->first[m] = all[2 * m];
    spread->units[m] = all[2 * m + 1];
  }
fail:
  free(all);
  return status;
}

/* The first member of this process is member `first` of all. */
static size_t first_member(const ck__nn_spread *spread) {
  return ck__exchange_first(spread->run.exchange);
}

ck_status ck__nn_spread_agree(ck__nn_spread *spread,
                              const ck_status *statuses) {
  return ck__exchange_agree(spread->run.exchange, statuses);
}

/* Each layer's gradient buffer on a member, once. */
static ck_status make_gradients(ck_nn *member) {
  ck_status status = CK_OK;
  nn_state *state = &member->state;
  for (int l = 1; l <= state->layers; ++l)
    if (!state->gradients[l])
      CK_TRY(ck__buffer_make_zeroed(
          state->queue, (size_t)state->sizes[l] * state->pitch[l],
          state->real_size, "gradients", &state->gradients[l]));
fail:
  return status;
}

void ck__nn_spread_destroy(ck__nn_spread *spread) {
  if (!spread)
    return;
  /* The first member is the network, which its owner destroys. */
  for (size_t i = 1; spread->members && i < spread->run.local; ++i)
    ck_nn_destroy(spread->members[i]);
  free(spread->members);
  free(spread->devices);
  free(spread->shares);
  free(spread->first);
  free(spread->units);
  free(spread->gradients);
  free(spread->scratch);
  ck__spread_end(&spread->run);
  free(spread);
}

/* The host's room for the gradients: every local member's and their sum,
 * packed, and one layer in the widest layout. */
static ck_status make_staging(ck__nn_spread *spread) {
  const nn_state *state = &spread->members[0]->state;
  size_t widest = 0;
  spread->parameters = 0;
  for (int l = 1; l <= state->layers; ++l)
    spread->parameters += (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
  for (size_t i = 0; i < spread->run.local; ++i) {
    const nn_state *member = &spread->members[i]->state;
    for (int l = 1; l <= member->layers; ++l) {
      size_t reals = (size_t)member->sizes[l] * member->pitch[l];
      widest = reals > widest ? reals : widest;
    }
  }
  spread->gradients = calloc((spread->run.local + 1) * spread->parameters,
                             sizeof *spread->gradients);
  spread->scratch = calloc(widest, sizeof *spread->scratch);
  if (!spread->gradients || !spread->scratch)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for the gradients of %zu parameters",
                    spread->parameters);
  return CK_OK;
}

/* The caller's devices and shares, copied: the spread is read during
 * the call that takes it, and the report names the devices at the end. */
static ck_status copy_spread(ck__nn_spread *spread, const ck_spread *given) {
  size_t local = given->device_count;
  spread->devices = calloc(local, sizeof *spread->devices);
  spread->members = calloc(local, sizeof *spread->members);
  spread->first = calloc(spread->count, sizeof *spread->first);
  spread->units = calloc(spread->count, sizeof *spread->units);
  if (given->shares)
    spread->shares = calloc(given->share_count, sizeof *spread->shares);
  if (!spread->devices || !spread->members || !spread->first ||
      !spread->units || (given->shares && !spread->shares))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(spread->devices, given->devices, local * sizeof *spread->devices);
  if (given->shares)
    memcpy(spread->shares, given->shares,
           given->share_count * sizeof *spread->shares);
  spread->given = (ck_spread){.devices = spread->devices,
                              .device_count = local,
                              .shares = spread->shares,
                              .share_count = given->share_count};
  spread->run.devices = spread->devices;
  return CK_OK;
}

ck_status ck__nn_spread_create(const ck_spread *given,
                               const ck_nn_config *config, const char *model,
                               const ck__nn_tuning *tuning, ck_nn **made) {
  ck_status status = CK_OK;
  ck_nn *network = NULL;
  ck__nn_spread *spread = calloc(1, sizeof *spread);
  *made = NULL;
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(given, "samples", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->count = ck__exchange_members(run->exchange);
  CK_TRY(copy_spread(spread, given));
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    const ck_device *device = &spread->devices[i];
    ck_nn **member = &spread->members[i];
    statuses[i] =
        model ? ck__nn_model_allocate(device, model, config, tuning, member)
              : ck__nn_allocate(device, config, 0, tuning, member);
    if (statuses[i] == CK_OK)
      run->queues[i] = (*member)->state.queue;
    run->compute_s[i] += ck__seconds() - started;
  }
  /* A network too large for its device is known before any member draws
   * its weights and builds its kernels, which can take many seconds. */
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__nn_set_up(spread->members[i], !model);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(make_staging(spread));
  CK_TRY(deal(spread, (uint64_t)spread->count * FIRST_DEAL_ROWS, NULL));
  network = spread->members[0];
  network->spread = spread;
  network->members = spread->members;
  network->local = run->local;
  *made = network;
  return CK_OK;
fail:
  if (spread->members)
    ck_nn_destroy(spread->members[0]);
  ck__nn_spread_destroy(spread);
  return status;
}

ck_status ck_nn_create_spread(const ck_spread *spread,
                              const ck_nn_config *config, ck_nn **nn) {
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(nn);
  return ck__nn_spread_create(spread, config, NULL, NULL, nn);
}

/* One member's gradient passes over a trial share, for the probe. */
typedef struct probe_trial {
  ck_nn *member;
  uint32_t rows, batch;
} probe_trial;

static ck_status probe_passes(void *context, uint64_t count) {
  probe_trial *trial = context;
  nn_state *state = &trial->member->state;
  ck_status status = CK_OK;
  for (uint64_t k = 0; k < count && status == CK_OK; ++k)
    status = ck__nn_pass(state, trial->member->steps, 0, trial->rows,
                         1.0 / trial->batch, 0, NULL);
  return status == CK_OK ? ck_queue_finish(state->queue) : status;
}

/* Each device's rows a second on an equal share of the batch, from
 * gradient passes alone (the weights stay): the speeds rows are dealt by. */
static ck_status probe(ck__nn_spread *spread, uint32_t batch, double *speeds) {
  ck__spread_run *run = &spread->run;
  uint32_t rows = batch / (uint32_t)spread->count;
  if (rows < 1)
    rows = 1;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    probe_trial trial = {spread->members[i], rows, batch};
    double passes = 0;
    statuses[i] = ck__nn_ensure_capacity(trial.member, rows);
    if (statuses[i] == CK_OK)
      statuses[i] = ck__spread_time(probe_passes, &trial, 64, &passes);
    speeds[i] = passes * rows;
  }
  return ck__exchange_agree(run->exchange, statuses);
}

ck_status ck__nn_spread_prepare(ck_nn *nn, uint32_t batch) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  ck__spread_run *run = &spread->run;
  uint32_t rows = nn->state.sets[CK_NN_TRAIN].rows;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i)
    statuses[i] = make_gradients(spread->members[i]);
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  double speeds[CK_SPREAD_MAX_LOCAL];
  int measure = !spread->shares && spread->count > 1;
  if (measure)
    CK_TRY(probe(spread, batch, speeds));
  if ((status = deal(spread, batch, measure ? speeds : NULL)))
    CK_FAIL_PREFIX(status, "batch: ");
  /* Each member's part of a full batch, and of the epoch's last. */
  for (size_t i = 0; i < run->local; ++i) {
    ck_nn *member = spread->members[i];
    uint32_t start, count, last;
    cut(spread, first_member(spread) + i, batch, &start, &count);
    cut(spread, first_member(spread) + i, rows % batch, &start, &last);
    statuses[i] = ck__nn_ensure_capacity(member, count ? count : 1);
    if (statuses[i] == CK_OK && member->steps->prepare && count)
      statuses[i] = member->steps->prepare(&member->state, count);
    if (statuses[i] == CK_OK && member->steps->prepare && last && last != count)
      statuses[i] = member->steps->prepare(&member->state, last);
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  /* Whether gradients are summed device to device, and NCCL's setup
   * (near a second across processes), before the clocks start. */
  int on_devices = 0;
  CK_TRY(ck__exchange_on_devices(run->exchange, run->queues, &on_devices));
fail:
  return status;
}

void ck__nn_spread_epoch_begin(ck_nn *nn) {
  memset(nn->spread->positions, 0, sizeof nn->spread->positions);
}

/* Member i's gradient, read into its run of the staging (zero where it
 * took no rows). */
static ck_status read_gradient(ck__nn_spread *spread, size_t i, int rows) {
  ck_status status = CK_OK;
  nn_state *state = &spread->members[i]->state;
  double *into = spread->gradients + i * spread->parameters;
  for (int l = 1; l <= state->layers; ++l) {
    size_t reals = (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
    if (rows) {
      CK_TRY(ck__nn_layer_load(state, l, state->gradients[l], spread->scratch));
      memcpy(into, spread->scratch, reals * sizeof *into);
    } else {
      memset(into, 0, reals * sizeof *into);
    }
    into += reals;
  }
fail:
  return status;
}

/* The summed gradient written to member i, and its optimiser step. */
static ck_status apply_sum(ck__nn_spread *spread, size_t i,
                           const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck_nn *member = spread->members[i];
  nn_state *state = &member->state;
  const double *sum =
      spread->gradients + spread->run.local * spread->parameters;
  for (int l = 1; l <= state->layers; ++l) {
    size_t reals = (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
    memcpy(spread->scratch, sum, reals * sizeof *sum);
    CK_TRY(ck__nn_layer_store(state, l, state->gradients[l], spread->scratch));
    CK_TRY(member->steps->apply(state, l, update));
    sum += reals;
  }
fail:
  return status;
}

/* The gradients summed device to device (NCCL), layer by layer, then
 * every member's optimiser step, all queued: no host round trip. A
 * member that took no rows offers zeros. */
static ck_status sum_on_devices(ck__nn_spread *spread, const uint32_t *rows,
                                ck_queue *const *queues,
                                const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  ck_buffer *buffers[CK_SPREAD_MAX_LOCAL];
  nn_state *first = &spread->members[0]->state;
  for (size_t i = 0; i < run->local; ++i) {
    nn_state *state = &spread->members[i]->state;
    statuses[i] = CK_OK;
    for (int l = 1; !rows[i] && statuses[i] == CK_OK && l <= state->layers;
         ++l) {
      uint32_t zero = 0;
      size_t size = 0;
      statuses[i] = ck_buffer_get_size(state->gradients[l], &size);
      if (statuses[i] == CK_OK)
        statuses[i] = ck_buffer_fill(state->queue, state->gradients[l], &zero,
                                     sizeof zero, 0, size, NULL);
    }
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (int l = 1; l <= first->layers; ++l) {
    size_t size = 0;
    for (size_t i = 0; i < run->local; ++i)
      buffers[i] = spread->members[i]->state.gradients[l];
    CK_TRY(ck_buffer_get_size(buffers[0], &size));
    CK_TRY(ck__exchange_sum_buffers(run->exchange, queues, buffers,
                                    size / first->real_size,
                                    first->double_precision));
  }
  for (size_t i = 0; i < run->local; ++i) {
    ck_nn *member = spread->members[i];
    statuses[i] = CK_OK;
    for (int l = 1; statuses[i] == CK_OK && l <= member->state.layers; ++l)
      statuses[i] = member->steps->apply(&member->state, l, update);
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
fail:
  return status;
}

ck_status ck__nn_spread_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                              const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  uint32_t rows[CK_SPREAD_MAX_LOCAL];
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  /* Every member's pass is queued before any gradient is read. The loss
   * averages over the whole batch: each part's deltas are scaled by
   * 1 / count, as one device scales them. */
  for (size_t i = 0; i < run->local; ++i) {
    ck_nn *member = spread->members[i];
    uint32_t start;
    cut(spread, first_member(spread) + i, count, &start, &rows[i]);
    double started = ck__seconds();
    statuses[i] = CK_OK;
    if (rows[i])
      statuses[i] = ck__nn_ensure_capacity(member, rows[i]);
    if (rows[i] && statuses[i] == CK_OK)
      statuses[i] =
          ck__nn_pass(&member->state, member->steps, offset + start, rows[i],
                      1.0 / count, spread->positions[i], NULL);
    spread->positions[i] += rows[i];
    run->compute_s[i] += ck__seconds() - started;
  }
  int on_devices = 0;
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_on_devices(run->exchange, run->queues, &on_devices));
  if (on_devices)
    return sum_on_devices(spread, rows, run->queues, update);
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    if (statuses[i] == CK_OK)
      statuses[i] = read_gradient(spread, i, rows[i]);
    pieces[i] = spread->gradients + i * spread->parameters;
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_sum(run->exchange, pieces,
                          spread->gradients + run->local * spread->parameters,
                          spread->parameters));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = apply_sum(spread, i, update);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
fail:
  return status;
}

/* Sums each local member's loss and hits (of its first entries[i]
 * per-sample results) over all members. */
static ck_status sum_results(ck__nn_spread *spread, const uint32_t *entries,
                             double *loss, uint64_t *hits) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  double local[CK_SPREAD_MAX_LOCAL][2];
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ck_nn *member = spread->members[i];
    uint64_t count = 0;
    local[i][0] = local[i][1] = 0;
    statuses[i] = entries[i] ? member->steps->reduce(&member->state, entries[i],
                                                     &local[i][0], &count)
                             : CK_OK;
    local[i][1] = (double)count;
    pieces[i] = local[i];
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  double total[2];
  CK_TRY(ck__exchange_sum(run->exchange, pieces, total, 2));
  if (loss)
    *loss = total[0];
  if (hits)
    *hits = (uint64_t)total[1];
fail:
  return status;
}

ck_status ck__nn_spread_reduce(ck_nn *nn, double *loss, uint64_t *hits) {
  return sum_results(nn->spread, nn->spread->positions, loss, hits);
}

ck_status ck__nn_spread_forward(ck_nn *nn, ck_nn_set which, double *loss,
                                uint64_t *hits, int32_t *predicted) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  ck__spread_run *run = &spread->run;
  uint32_t rows = nn->state.sets[which].rows;
  uint32_t starts[CK_SPREAD_MAX_LOCAL], counts[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    cut(spread, first_member(spread) + i, rows, &starts[i], &counts[i]);
    statuses[i] = counts[i] ? ck__nn_forward_rows(spread->members[i], which,
                                                  starts[i], counts[i])
                            : CK_OK;
  }
  for (size_t i = 0; predicted && i < run->local; ++i) {
    nn_state *state = &spread->members[i]->state;
    if (statuses[i] == CK_OK && counts[i])
      statuses[i] = ck_buffer_read(state->queue, state->predictions, 0,
                                   counts[i] * sizeof *predicted,
                                   predicted + starts[i], CK_BLOCKING, NULL);
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  if (loss || hits)
    CK_TRY(sum_results(spread, counts, loss, hits));
  /* Every member's predictions to every process, a member at a time. */
  for (size_t m = 0;
       predicted && ck__exchange_ranks(run->exchange) > 1 && m < spread->count;
       ++m) {
    uint32_t start, count;
    cut(spread, m, rows, &start, &count);
    if (count)
      CK_TRY(ck__exchange_broadcast(run->exchange, m, predicted + start,
                                    count * sizeof *predicted));
  }
fail:
  return status;
}

ck_status ck__nn_spread_report(ck_nn *nn, ck_result *result) {
  return ck__spread_report_queues(&nn->spread->run, result);
}

int ck__nn_spread_rank(const ck_nn *nn) {
  return nn && nn->spread ? ck__exchange_rank(nn->spread->run.exchange) : 0;
}
