/*
 * engine.c - the member engine (framework/engine.h): a run's members,
 * their phases, and what crosses between them.
 *
 * What crosses, crosses on the calling thread between the members'
 * phases. A failure of the calling thread (a workload's reduced) waits
 * for the next agreement, which every process reaches: the next phase,
 * or the end of the step, so that no process leaves the others waiting in
 * a collective.
 */
#include "framework/engine.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "util/util.h"

struct ck__engine {
  ck__engine_kind kind; /* the workload's, copied */
  void *self;
  ck__spread_run run;
  ck_device *devices; /* the spread's, copied, and its shares */
  double *shares;
  ck_spread spread;
  size_t members, first; /* in the run, and this process's first */
  uint64_t total;        /* the units dealt */
  int alone;             /* the run's one member */
  uint64_t (*slices)[2]; /* every member's first unit and units */
  ck__engine_member *local;
  ck__engine_offer *offers; /* each local member's, from its last post */
  int made;                 /* allocate began: the members' teardown owed */
  /* The least best so far, its index, holder and item; the sums. */
  double best;
  uint64_t best_index;
  size_t holder;
  unsigned char *best_item;
  double *sums;
  ck__exchange_buffer sum_rows; /* ck__engine_sum_each's, kept */
  /* The halos: the passes each way that fill them, what each local member
   * received each way in the last pass, and what it sends. */
  size_t passes[2];
  ck__exchange_buffer *from[2], *out;
  /* A failure of the calling thread, for the next agreement. */
  ck_status pending;
  ck__error_saved pending_error;
  ck__spread_clock clock;
  const ck__loop_driver *driver; /* the workload's, in ck__engine_loop */
};

/* ---- phases and agreement ---------------------------------------------- */

/* The pending failure of the calling thread, agreed: every process
 * returns the first failed member's. */
static ck_status agree_pending(ck__engine *engine) {
  assert(engine->pending != CK_OK && !engine->alone);
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {engine->pending};
  engine->pending = CK_OK;
  ck__error_restore(&engine->pending_error);
  return ck__exchange_agree(engine->run.exchange, statuses);
}

ck_status ck__engine_agree(ck__engine *engine, ck_status status) {
  assert(engine && engine->run.exchange);
  if (engine->alone)
    return status;
  if (status == CK_OK && engine->pending == CK_OK)
    return ck__exchange_agree(engine->run.exchange, NULL);
  if (engine->pending == CK_OK) {
    engine->pending = status;
    ck__error_save(&engine->pending_error);
  }
  return agree_pending(engine);
}

ck_status ck__engine_each(ck__engine *engine,
                          ck_status (*fn)(void *context, size_t i),
                          void *context) {
  assert(engine && fn && engine->run.local >= 1);
  if (engine->pending)
    return agree_pending(engine);
  if (!engine->alone)
    return ck__spread_each(&engine->run, fn, context);
  /* Alone: on the calling thread, its message its own. */
  double started = ck__seconds();
  ck_status status = fn(context, 0);
  engine->run.compute_s[0] += ck__seconds() - started;
  return status;
}

/* A sum's phase: the workload's fill, into member i's row. */
typedef struct sum_call {
  ck_status (*fill)(void *context, size_t i, double *row);
  void *context;
  double *rows;
  size_t count;
} sum_call;

/* Without rows (no room for them), every member fails: the phase agrees
 * that, with no collective of its own. */
static ck_status fill_row(void *context, size_t i) {
  const sum_call *call = context;
  if (!call->rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu sums",
                    call->count);
  memset(call->rows + i * call->count, 0, call->count * sizeof(double));
  return call->fill(call->context, i, call->rows + i * call->count);
}

ck_status ck__engine_sum_each(ck__engine *engine,
                              ck_status (*fill)(void *context, size_t i,
                                                double *row),
                              void *context, size_t count, double *sums) {
  ck_status status = CK_OK;
  assert(engine && fill && sums && count > 0);
  size_t local = engine->run.local;
  ck__exchange_buffer *held = &engine->sum_rows;
  int room =
      ck__exchange_buffer_hold(held, count * sizeof(double), local) == CK_OK;
  sum_call call = {fill, context, room ? held->data : NULL, count};
  const double *rows[CK_SPREAD_MAX_LOCAL];
  CK_TRY(ck__engine_each(engine, fill_row, &call));
  for (size_t i = 0; i < local; ++i)
    rows[i] = call.rows + i * count;
  CK_TRY(ck__exchange_sum(engine->run.exchange, rows, sums, count));
fail:
  return status;
}

static ck_status allocate_phase(void *context, size_t i) {
  ck__engine *engine = context;
  assert(i < engine->run.local && engine->local[i].index == i);
  return engine->kind.allocate(engine->self, &engine->local[i],
                               &engine->run.queues[i]);
}

static ck_status post_phase(void *context, size_t i) {
  ck__engine *engine = context;
  return engine->kind.post ? engine->kind.post(engine->self, i) : CK_OK;
}

/* Set up; several members post their first offers. */
static ck_status set_up_phase(void *context, size_t i) {
  ck__engine *engine = context;
  ck_status status = engine->kind.set_up(engine->self, i);
  if (status == CK_OK && !engine->alone)
    status = post_phase(context, i);
  return status;
}

/* A round of a member: its steps, then (several members) its post. */
typedef struct round_call {
  ck__engine *engine;
  uint64_t first, count;
} round_call;

static ck_status round_phase(void *context, size_t i) {
  const round_call *call = context;
  ck__engine *engine = call->engine;
  ck_status status =
      engine->kind.step(engine->self, i, call->first, call->count);
  if (status == CK_OK && !engine->alone)
    status = post_phase(engine, i);
  return status;
}

/* Every local member's offer, from its last post. */
static void take_offers(ck__engine *engine) {
  for (size_t i = 0; engine->kind.offer && i < engine->run.local; ++i) {
    ck__engine_offer *offer = &engine->offers[i];
    memset(offer, 0, sizeof *offer);
    engine->kind.offer(engine->self, i, offer);
    /* A better best lies in its slice (alone: whatever it holds). */
    assert(
        !engine->kind.best ||
        (offer->item && (engine->alone || offer->index < engine->run.units[i] ||
                         !(offer->value < engine->best))));
    assert(!engine->kind.sum_count || offer->sums);
  }
}

/* ---- halos ------------------------------------------------------------- */

/* A local member's own end items toward `side`'s neighbour. */
static uint64_t own_ends(const ck__engine *engine, int side, size_t i) {
  uint64_t halo = engine->kind.halo[side], units = engine->run.units[i];
  return halo < units ? halo : units;
}

/* The items local member i sends `side`'s way in a pass: its own end
 * items with what it received that way before, in ring order; at most
 * the halo's count, those nearest the receiver. */
static void to_send(ck__engine *engine, int side, size_t i, const void **send,
                    size_t *count) {
  const ck__exchange_buffer *got = &engine->from[side][i];
  ck__exchange_buffer *out = &engine->out[i];
  size_t item = engine->kind.item_bytes;
  size_t own = (size_t)own_ends(engine, side, i), all = got->count + own;
  const void *mine = engine->offers[i].ends[side];
  assert(!own || mine);
  /* Room was held at the creation: this holds no more. */
  ck_status held = ck__exchange_buffer_hold(out, item, all);
  assert(held == CK_OK);
  (void)held;
  unsigned char *at = out->data;
  /* Before: what came from before, then its own; after: its own, then
   * what came from after. */
  if (got->count)
    memcpy(at + (side == CK__ENGINE_BEFORE ? 0 : own * item), got->data,
           got->count * item);
  if (own)
    memcpy(at + (side == CK__ENGINE_BEFORE ? got->count * item : 0), mine,
           own * item);
  size_t halo = (size_t)engine->kind.halo[side];
  *count = all < halo ? all : halo;
  *send = side == CK__ENGINE_BEFORE ? at + (all - *count) * item : at;
}

/* The halos for the next round, from the members' last offers: each
 * member's last units go forward to the next member, its first back to
 * the previous, and on again, with what came, where slices are smaller
 * than the halo. Each member then takes its halo, before then after. */
static ck_status pass_halos(ck__engine *engine) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  size_t item = engine->kind.item_bytes;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  assert(!engine->alone && engine->kind.take_halo);
  for (int side = CK__ENGINE_BEFORE; side <= CK__ENGINE_AFTER; ++side) {
    for (size_t i = 0; i < run->local; ++i)
      engine->from[side][i].count = 0;
    for (size_t pass = 0; pass < engine->passes[side]; ++pass) {
      for (size_t i = 0; i < run->local; ++i)
        to_send(engine, side, i, &send[i], &counts[i]);
      CK_TRY(ck__exchange_pass(run->exchange, side == CK__ENGINE_BEFORE, item,
                               send, counts, engine->from[side]));
    }
  }
  for (size_t i = 0; i < run->local; ++i) {
    const ck__exchange_buffer *before = &engine->from[CK__ENGINE_BEFORE][i],
                              *after = &engine->from[CK__ENGINE_AFTER][i];
    ck__exchange_buffer *halo = &engine->out[i];
    assert(before->count == engine->kind.halo[CK__ENGINE_BEFORE] &&
           after->count == engine->kind.halo[CK__ENGINE_AFTER]);
    halo->count = before->count + after->count;
    assert(halo->count * item <= halo->capacity);
    if (before->count)
      memcpy(halo->data, before->data, before->count * item);
    if (after->count)
      memcpy((unsigned char *)halo->data + before->count * item, after->data,
             after->count * item);
    engine->kind.take_halo(engine->self, i, halo->data);
  }
fail:
  return status;
}

/* The passes each way that fill every member's halo: as many as the
 * fewest consecutive slices that hold it need (one where every slice
 * holds a halo). Every process finds the same, from all members' slices. */
static void plan_passes(ck__engine *engine) {
  size_t members = engine->members;
  for (int side = CK__ENGINE_BEFORE; side <= CK__ENGINE_AFTER; ++side) {
    engine->passes[side] = 0;
    for (size_t m = 0; m < members; ++m) {
      size_t passes = 0;
      for (uint64_t got = 0; got < engine->kind.halo[side]; ++passes)
        got +=
            engine->slices[side == CK__ENGINE_BEFORE
                               ? (m + members - 1 - passes % members) % members
                               : (m + 1 + passes) % members][1];
      /* The halo holds fewer than the run's units. */
      assert(passes <= members);
      if (passes > engine->passes[side])
        engine->passes[side] = passes;
    }
  }
}

/* ---- after a round ----------------------------------------------------- */

/* The least of the members' bests (a member that found nothing better
 * offers the run's; of each round: the round's alone), ties to the lowest
 * index; where it improves, the holder's item goes to every process. */
static ck_status agree_best(ck__engine *engine, int *changed) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t indices[CK_SPREAD_MAX_LOCAL];
  assert(engine->kind.best && !engine->alone);
  *changed = 0;
  if (engine->kind.best == CK__ENGINE_BEST_OF_ROUND) {
    engine->best = INFINITY;
    engine->best_index = UINT64_MAX;
  }
  for (size_t i = 0; i < run->local; ++i) {
    const ck__engine_offer *offer = &engine->offers[i];
    int better = offer->value < engine->best;
    values[i] = better ? offer->value : engine->best;
    indices[i] = better ? run->first[i] + offer->index : engine->best_index;
  }
  double best = 0;
  uint64_t index = 0;
  size_t holder = 0;
  CK_TRY(
      ck__exchange_min(run->exchange, values, indices, &best, &index, &holder));
  if (!(best < engine->best))
    return CK_OK;
  engine->best = best;
  engine->best_index = index;
  engine->holder = holder;
  if (holder >= engine->first && holder < engine->first + run->local)
    memcpy(engine->best_item, engine->offers[holder - engine->first].item,
           engine->kind.item_bytes);
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, engine->best_item,
                                engine->kind.item_bytes));
  *changed = 1;
fail:
  return status;
}

/* What crosses after the members' set-up (count 0) or a round: the
 * kind's cross, the best, the sums; then the kind's reduced, whose
 * failure waits for the next agreement. Collective. */
static ck_status exchange(ck__engine *engine, uint64_t first, uint64_t count) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  const ck__engine_kind *kind = &engine->kind;
  assert(!engine->alone && engine->pending == CK_OK);
  take_offers(engine);
  if (kind->cross)
    CK_TRY(kind->cross(engine->self, engine, first, count));
  int changed = 0;
  if (kind->best)
    CK_TRY(agree_best(engine, &changed));
  if (kind->sum_count) {
    const double *pieces[CK_SPREAD_MAX_LOCAL];
    for (size_t i = 0; i < run->local; ++i)
      pieces[i] = engine->offers[i].sums;
    CK_TRY(
        ck__exchange_sum(run->exchange, pieces, engine->sums, kind->sum_count));
  }
  if (!kind->reduced)
    return CK_OK;
  ck__engine_round round = {
      first,          count,
      engine->best,   engine->best_index,
      engine->holder, kind->best ? engine->best_item : NULL,
      changed,        engine->sums};
  engine->pending = kind->reduced(engine->self, &round);
  if (engine->pending)
    ck__error_save(&engine->pending_error);
fail:
  return status;
}

ck_status ck__engine_step(ck__engine *engine, uint64_t first, uint64_t count) {
  ck_status status = CK_OK;
  assert(engine && engine->made && engine->kind.step);
  if (engine->alone) {
    round_call call = {engine, first, count};
    return count ? ck__engine_each(engine, round_phase, &call) : CK_OK;
  }
  const ck__engine_kind *kind = &engine->kind;
  for (uint64_t done = 0; done < count;) {
    round_call call = {engine, first + done, 1};
    if (kind->round)
      call.count = kind->round(engine->self, call.first, count - done);
    assert(call.count >= 1 && call.count <= count - done);
    if (kind->halo[CK__ENGINE_BEFORE] + kind->halo[CK__ENGINE_AFTER])
      CK_TRY(pass_halos(engine));
    CK_TRY(ck__engine_each(engine, round_phase, &call));
    CK_TRY(exchange(engine, call.first, call.count));
    done += call.count;
  }
  /* A failure of the last round's reduced, agreed (only reduced fails
   * on the calling thread). */
  if (kind->reduced)
    CK_TRY(ck__engine_agree(engine, CK_OK));
fail:
  return status;
}

/* ---- creation ---------------------------------------------------------- */

/* The caller's devices and shares (which ck__spread_begin checked),
 * copied: the report names the devices at the end. */
static ck_status copy_spread(ck__engine *engine, const ck_spread *given) {
  size_t local = given->device_count;
  assert(given->devices && local >= 1 &&
         (!given->shares || given->share_count >= 1));
  engine->devices = calloc(local, sizeof *engine->devices);
  if (given->shares)
    engine->shares = calloc(given->share_count, sizeof *engine->shares);
  if (!engine->devices || (given->shares && !engine->shares))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  memcpy(engine->devices, given->devices, local * sizeof *engine->devices);
  if (given->shares)
    memcpy(engine->shares, given->shares,
           given->share_count * sizeof *engine->shares);
  engine->spread = *given;
  engine->spread.devices = engine->devices;
  engine->spread.shares = engine->shares;
  return CK_OK;
}

/* The halo buffers' room, held once: a pass sends at most its halo and
 * the member's own ends, and a halo holds both sides. */
static ck_status hold_halos(ck__engine *engine, size_t i) {
  ck_status status = CK_OK;
  const uint64_t *halo = engine->kind.halo;
  size_t item = engine->kind.item_bytes;
  uint64_t most = halo[0] + halo[1];
  for (int side = CK__ENGINE_BEFORE; side <= CK__ENGINE_AFTER; ++side) {
    uint64_t send = halo[side] + own_ends(engine, side, i);
    most = send > most ? send : most;
    CK_TRY(ck__exchange_buffer_hold(&engine->from[side][i], item,
                                    (size_t)halo[side]));
    engine->from[side][i].count = 0;
  }
  CK_TRY(ck__exchange_buffer_hold(&engine->out[i], item, (size_t)most));
fail:
  return status;
}

/* The engine's host memory for this process's members and every member's
 * slice. */
static ck_status make_room(ck__engine *engine) {
  size_t local = engine->run.local;
  engine->slices = calloc(engine->members, sizeof *engine->slices);
  engine->local = calloc(local, sizeof *engine->local);
  engine->offers = calloc(local, sizeof *engine->offers);
  engine->best_item = calloc(1, engine->kind.item_bytes + 1);
  engine->sums = calloc(engine->kind.sum_count + 1, sizeof *engine->sums);
  for (int side = 0; side < 2; ++side)
    engine->from[side] = calloc(local, sizeof *engine->from[side]);
  engine->out = calloc(local, sizeof *engine->out);
  if (!engine->slices || !engine->local || !engine->offers ||
      !engine->best_item || !engine->sums || !engine->from[0] ||
      !engine->from[1] || !engine->out)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return CK_OK;
}

/* Local member i as its phases see it, with a slice of the total. */
static ck__engine_member describe(const ck__engine *engine, size_t i,
                                  uint64_t first, uint64_t units,
                                  uint64_t total) {
  assert(i < engine->run.local && first + units <= total);
  ck__engine_member member = {.index = i,
                              .number = engine->first + i,
                              .members = engine->members,
                              .device = &engine->devices[i],
                              .first = first,
                              .units = units,
                              .total = total};
  memcpy(member.halo, engine->kind.halo, sizeof member.halo);
  member.widest = ck__engine_widest(engine);
  if (!member.widest)
    member.widest = units; /* a probe's trial, before the deal */
  return member;
}

/* A trial member of an equal share on each local device, timed. */
typedef struct probe_call {
  ck__engine *engine;
  ck__engine_member trials[CK_SPREAD_MAX_LOCAL];
  double speeds[CK_SPREAD_MAX_LOCAL];
} probe_call;

static ck_status probe_phase(void *context, size_t i) {
  probe_call *call = context;
  return call->engine->kind.probe(call->engine->self, &call->trials[i],
                                  &call->speeds[i]);
}

/* Each local device's speed, the units are dealt by; its time is not the
 * run's. */
static ck_status probe(ck__engine *engine, uint64_t total, probe_call *call) {
  ck__spread_run *run = &engine->run;
  uint64_t share = total / engine->members;
  for (size_t i = 0; i < run->local; ++i)
    call->trials[i] = describe(engine, i, 0, share ? share : 1, total);
  ck_status status = ck__engine_each(engine, probe_phase, call);
  ck__spread_clocks_start(run);
  return status;
}

ck_status ck__engine_deal(ck__engine *engine, uint64_t total,
                          const double *speeds) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  uint64_t mine[CK_SPREAD_MAX_LOCAL][2];
  CK_TRY(ck__spread_deal(run, &engine->spread, total, engine->kind.granule,
                         speeds));
  for (size_t i = 0; i < run->local; ++i) {
    mine[i][0] = run->first[i];
    mine[i][1] = run->units[i];
  }
  CK_TRY(ck__exchange_gather_rows(run->exchange, mine, sizeof mine[0],
                                  sizeof mine[0], engine->slices));
  uint64_t dealt = 0;
  for (size_t m = 0; m < engine->members; ++m) {
    assert(engine->slices[m][0] == dealt && engine->slices[m][1] >= 1);
    dealt += engine->slices[m][1];
  }
  assert(dealt == total);
  for (size_t i = 0; i < run->local; ++i)
    engine->local[i] = describe(engine, i, run->first[i], run->units[i], total);
fail:
  return status;
}

/* The exchange and this process's members, before any unit is dealt. */
static ck_status open_members(ck__engine *engine, const ck_spread *spread) {
  ck_status status = CK_OK;
  CK_TRY((engine->kind.shares_devices ? ck__spread_begin_shared
                                       : ck__spread_begin)(
      spread, engine->kind.unit_name, &engine->run));
  ck__spread_run *run = &engine->run;
  engine->members = ck__exchange_members(run->exchange);
  engine->first = ck__exchange_first(run->exchange);
  engine->alone = engine->members == 1;
  /* A member alone keeps no halo: its ring closes on itself. */
  if (engine->alone)
    engine->kind.halo[0] = engine->kind.halo[1] = 0;
  status = copy_spread(engine, spread);
  CK_TRY(ck__engine_agree(engine, status ? status : make_room(engine)));
  run->devices = engine->devices;
fail:
  return status;
}

/* The kind's own deal: every member's slice from the counts it cut,
 * one after another in member order. */
static ck_status deal_cut(ck__engine *engine, uint64_t total) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  uint64_t units[CK_SPREAD_MAX_LOCAL] = {0};
  uint64_t *cut = calloc(engine->members, sizeof *cut);
  /* Agreed before the cut, whose collectives every process must reach. */
  CK_TRY(ck__engine_agree(
      engine,
      cut ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  CK_TRY(
      ck__engine_agree(engine, engine->kind.cut(engine->self, engine, units)));
  CK_TRY(ck__exchange_gather_rows(run->exchange, units, sizeof units[0],
                                  sizeof units[0], cut));
  uint64_t dealt = 0;
  for (size_t m = 0; m < engine->members; ++m) {
    engine->slices[m][0] = dealt;
    engine->slices[m][1] = cut[m];
    dealt += cut[m];
  }
  /* Every process judges the same counts alike. */
  if (dealt != total)
    CK_FAIL(CK_ERROR_MISMATCH, "the members hold %llu %s, not %llu",
            (unsigned long long)dealt, engine->kind.unit_name,
            (unsigned long long)total);
  for (size_t i = 0; i < run->local; ++i) {
    run->first[i] = engine->slices[engine->first + i][0];
    run->units[i] = engine->slices[engine->first + i][1];
    engine->local[i] = describe(engine, i, run->first[i], run->units[i], total);
  }
  run->total = total;
fail:
  free(cut);
  return status;
}

/* The probe (several members without shares, units enough for one
 * each), the deal (or the kind's cut), and the halos' room. */
static ck_status deal_first(ck__engine *engine, uint64_t total) {
  ck_status status = CK_OK;
  ck__spread_run *run = &engine->run;
  probe_call *call = NULL;
  engine->total = total;
  if (!engine->kind.cut && !engine->spread.shares && !engine->alone &&
      engine->kind.probe && total >= engine->members) {
    call = calloc(1, sizeof *call);
    CK_TRY(ck__engine_agree(
        engine,
        call ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
    call->engine = engine;
    status = probe(engine, total, call);
  }
  if (status == CK_OK)
    status = engine->kind.cut
                 ? deal_cut(engine, total)
                 : ck__engine_deal(engine, total, call ? call->speeds : NULL);
  free(call);
  call = NULL;
  CK_TRY(status);
  ck_status held = CK_OK;
  for (size_t i = 0; i < run->local && held == CK_OK && !engine->alone; ++i)
    held = hold_halos(engine, i);
  CK_TRY(ck__engine_agree(engine, held));
  if (engine->kind.halo[0] + engine->kind.halo[1])
    plan_passes(engine);
fail:
  free(call);
  return status;
}

ck_status ck__engine_open(const ck__engine_kind *kind, void *self,
                          const ck_spread *spread, ck__engine **made) {
  ck_status status = CK_OK;
  assert(kind && spread && made && kind->unit_name);
  assert(kind->allocate && kind->set_up && kind->teardown);
  assert(kind->step || !(kind->best || kind->sum_count || kind->halo[0] +
                                                            kind->halo[1]));
  assert(!kind->best || (kind->item_bytes && kind->post && kind->offer));
  assert(!(kind->halo[0] + kind->halo[1]) ||
         (kind->item_bytes && kind->take_halo && kind->post && kind->offer));
  assert(!kind->sum_count || (kind->post && kind->offer));
  *made = NULL;
  ck__engine *engine = calloc(1, sizeof *engine);
  if (!engine)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  engine->kind = *kind;
  engine->self = self;
  engine->best = INFINITY;
  engine->best_index = UINT64_MAX;
  CK_TRY(open_members(engine, spread));
  *made = engine;
  return CK_OK;
fail:
  ck__engine_destroy(engine);
  return status;
}

/* Allocate on every member, connect, set_up; several members then
 * exchange once. A member too large for its device is known before any
 * member builds its kernels and makes its state, which can take many
 * seconds. */
static ck_status make_members(ck__engine *engine) {
  ck_status status = CK_OK;
  assert(!engine->made);
  engine->made = 1;
  CK_TRY(ck__engine_each(engine, allocate_phase, engine));
  if (engine->kind.connect)
    CK_TRY(
        ck__engine_agree(engine, engine->kind.connect(engine->self, engine)));
  CK_TRY(ck__engine_each(engine, set_up_phase, engine));
  if (!engine->alone) {
    CK_TRY(exchange(engine, 0, 0));
    CK_TRY(ck__engine_agree(engine, CK_OK));
  }
fail:
  return status;
}

ck_status ck__engine_populate(ck__engine *engine, uint64_t total) {
  ck_status status = CK_OK;
  assert(engine && !engine->made);
  assert(engine->kind.halo[0] + engine->kind.halo[1] < total);
  CK_TRY(deal_first(engine, total));
  CK_TRY(make_members(engine));
fail:
  return status;
}

ck_status ck__engine_remake(ck__engine *engine) {
  ck_status status = CK_OK;
  assert(engine && engine->made && engine->pending == CK_OK);
  ck__spread_run *run = &engine->run;
  for (size_t i = 0; i < run->local; ++i) {
    engine->kind.teardown(engine->self, i);
    run->queues[i] = NULL;
  }
  engine->made = 0;
  if (engine->kind.cut)
    CK_TRY(deal_cut(engine, engine->total));
  CK_TRY(make_members(engine));
fail:
  return status;
}

ck_status ck__engine_create(const ck__engine_kind *kind, void *self,
                            const ck_spread *spread, uint64_t total,
                            ck__engine **made) {
  ck__engine *engine = NULL;
  ck_status status = ck__engine_open(kind, self, spread, &engine);
  if (status == CK_OK)
    status = ck__engine_populate(engine, total);
  if (status == CK_OK)
    *made = engine;
  else
    ck__engine_destroy(engine);
  return status;
}

/* ---- the run's loop ---------------------------------------------------- */

static ck_status loop_step(void *self, uint64_t steps) {
  const ck__loop_driver *driver = ((ck__engine *)self)->driver;
  return driver->step(driver->self, steps);
}

/* The driver's read, then the clock the processes agree on. */
static ck_status loop_read(void *self, uint64_t steps,
                           ck__loop_reading *reading) {
  ck__engine *engine = self;
  const ck__loop_driver *driver = engine->driver;
  ck_status status =
      driver->read ? driver->read(driver->self, steps, reading) : CK_OK;
  return status ? status
                : ck__spread_clock_read(&engine->run, &engine->clock, steps,
                                        reading);
}

static uint64_t loop_due(void *self, uint64_t steps) {
  (void)steps;
  return ((ck__engine *)self)->clock.chunk;
}

ck_status ck__engine_loop(ck__engine *engine, const ck__loop_rules *rules,
                          const ck__loop_driver *driver,
                          ck__loop_outcome *outcome) {
  /* A driver's own due (work it must do at a step) is not combined with
   * the agreed clock's reads yet. */
  assert(engine && rules && driver && driver->step && !driver->due);
  ck__engine_clocks_start(engine);
  if (engine->alone)
    return ck__loop_run(rules, driver, outcome);
  ck__loop_rules agreed = *rules;
  ck__loop_driver wrapped = {engine, loop_step, loop_read, NULL};
  ck__spread_clock_start(&engine->clock, &agreed, &wrapped, loop_due);
  engine->driver = driver;
  ck_status status = ck__loop_run(&agreed, &wrapped, outcome);
  engine->driver = NULL;
  return status;
}

/* ---- what the run found ------------------------------------------------ */

ck_status ck__engine_best(ck__engine *engine, double *value, uint64_t *index,
                          const void **item) {
  assert(engine && engine->made && engine->kind.best);
  if (engine->alone) {
    /* Its device holds the best: posted now, taken as it is. */
    ck_status status = ck__engine_each(engine, post_phase, engine);
    if (status)
      return status;
    take_offers(engine);
    engine->best = engine->offers[0].value;
    engine->best_index = engine->offers[0].index;
    engine->holder = 0;
    memcpy(engine->best_item, engine->offers[0].item, engine->kind.item_bytes);
  }
  if (value)
    *value = engine->best;
  if (index)
    *index = engine->best_index;
  if (item)
    *item = engine->best_item;
  return CK_OK;
}

ck_status ck__engine_report(ck__engine *engine, ck_result *result) {
  assert(engine && result);
  return ck__spread_report_queues(&engine->run, result);
}

void ck__engine_clocks_start(ck__engine *engine) {
  assert(engine);
  ck__spread_clocks_start(&engine->run);
}

double ck__engine_kernel_seconds(ck__engine *engine) {
  return ck__spread_kernel_seconds(&engine->run);
}

int ck__engine_rank(const ck__engine *engine) {
  return ck__exchange_rank(engine->run.exchange);
}

size_t ck__engine_local(const ck__engine *engine) {
  return engine->run.local;
}

size_t ck__engine_members(const ck__engine *engine) {
  return engine->members;
}

ck__spread_run *ck__engine_run(ck__engine *engine) {
  return &engine->run;
}

uint64_t ck__engine_widest(const ck__engine *engine) {
  assert(engine && engine->slices);
  uint64_t widest = 0;
  for (size_t m = 0; m < engine->members; ++m)
    widest = engine->slices[m][1] > widest ? engine->slices[m][1] : widest;
  return widest;
}

size_t ck__engine_holder(const ck__engine *engine, uint64_t unit) {
  assert(engine && engine->slices && engine->members >= 1);
  size_t low = 0, high = engine->members - 1;
  while (low < high) {
    size_t middle = (low + high + 1) / 2;
    if (engine->slices[middle][0] <= unit)
      low = middle;
    else
      high = middle - 1;
  }
  assert(unit - engine->slices[low][0] < engine->slices[low][1]);
  return low;
}

void ck__engine_slice(const ck__engine *engine, size_t m, uint64_t *first,
                      uint64_t *units) {
  assert(engine && m < engine->members && engine->slices);
  if (first)
    *first = engine->slices[m][0];
  if (units)
    *units = engine->slices[m][1];
}

void ck__engine_share(const ck__engine *engine, size_t m, uint64_t total,
                      uint64_t *first, uint64_t *count) {
  uint64_t dealt = engine->run.total, from = 0, units = 0;
  assert(dealt > 0);
  ck__engine_slice(engine, m, &from, &units);
  /* Products of counts below 2^32 each: no overflow. */
  *first = from * total / dealt;
  *count = (from + units) * total / dealt - *first;
}

void ck__engine_destroy(ck__engine *engine) {
  if (!engine)
    return;
  for (size_t i = 0; engine->made && i < engine->run.local; ++i)
    engine->kind.teardown(engine->self, i);
  /* Room made whole, or none held (make_room). */
  for (size_t i = 0; engine->out && engine->from[0] && engine->from[1] &&
                     i < engine->run.local;
       ++i) {
    free(engine->from[0][i].data);
    free(engine->from[1][i].data);
    free(engine->out[i].data);
  }
  free(engine->from[0]);
  free(engine->from[1]);
  free(engine->out);
  free(engine->slices);
  free(engine->local);
  free(engine->offers);
  free(engine->best_item);
  free(engine->sums);
  free(engine->sum_rows.data);
  ck__spread_end(&engine->run);
  free(engine->devices);
  free(engine->shares);
  free(engine);
}
