/*
 * halo.c - messages between a run's members and their neighbours in the
 * domain, through the host, and the halo's steps over a workload's ops
 * (halo.h).
 */
#include "framework/halo.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

ck_status ck__halo_pass(ck__halo *halo, ck__exchange *exchange,
                        const ck__domain *d, size_t local,
                        const ck__domain_place *const *places, size_t item) {
  ck_status status = CK_OK;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL], to[CK_SPREAD_MAX_LOCAL],
      from[CK_SPREAD_MAX_LOCAL];
  ck__exchange_buffer received[CK_SPREAD_MAX_LOCAL];
  assert(halo && exchange && d && places && local <= CK_SPREAD_MAX_LOCAL);
  /* Toward the previous member, received from the next; then on. */
  for (int side = CK__DOMAIN_PREVIOUS; side <= CK__DOMAIN_NEXT; ++side) {
    int other = !side;
    for (size_t i = 0; i < local; ++i) {
      const ck__halo_member *m = &halo->members[i];
      send[i] = m->send[side];
      counts[i] = m->sends[side];
      to[i] = places[i]->neighbour[side];
      from[i] = places[i]->neighbour[other];
      received[i] = m->from[other];
    }
    status = d->stages == 1
                 ? ck__exchange_pass(exchange, side == CK__DOMAIN_NEXT, item,
                                     send, counts, received)
                 : ck__exchange_route(exchange, item, send, counts, to, from,
                                      received);
    /* What the exchange grew stays the member's, failed or not. */
    for (size_t i = 0; i < local; ++i)
      halo->members[i].from[other] = received[i];
    CK_TRY(status);
  }
fail:
  return status;
}

size_t ck__halo_envelope_bytes(size_t parts) {
  return parts * sizeof(uint32_t);
}

ck_status ck__halo_seal(ck__halo_member *member, int side, size_t parts,
                        const uint32_t *counts, const size_t *sizes,
                        const void *const *pieces) {
  ck_status status = CK_OK;
  assert(member && (side == 0 || side == 1) && counts && sizes && pieces);
  size_t bytes = ck__halo_envelope_bytes(parts);
  for (size_t k = 0; k < parts; ++k)
    bytes += (size_t)counts[k] * sizes[k];
  ck__exchange_buffer *out = &member->sealed[side];
  CK_TRY(ck__exchange_buffer_hold(out, 1, bytes));
  unsigned char *at = out->data;
  memcpy(at, counts, ck__halo_envelope_bytes(parts));
  at += ck__halo_envelope_bytes(parts);
  for (size_t k = 0; k < parts; ++k) {
    size_t part = (size_t)counts[k] * sizes[k];
    if (part)
      memcpy(at, pieces[k], part);
    at += part;
  }
  member->send[side] = out->data;
  member->sends[side] = bytes;
fail:
  return status;
}

ck_status ck__halo_open(const ck__halo_member *member, int side, size_t index,
                        size_t parts, const size_t *sizes, uint32_t *counts,
                        const unsigned char **body) {
  assert(member && (side == 0 || side == 1) && sizes && counts);
  const ck__exchange_buffer *in = &member->from[side];
  size_t head = ck__halo_envelope_bytes(parts), bytes = head;
  int whole = in->count >= head;
  if (whole)
    memcpy(counts, in->data, head);
  for (size_t k = 0; whole && k < parts; ++k)
    bytes += (size_t)counts[k] * sizes[k];
  if (!whole || in->count != bytes)
    return ck__fail(CK_ERROR_EXCHANGE,
                    "member %zu received a message of %zu bytes that does not "
                    "hold what it says",
                    index, in->count);
  if (body)
    *body = (const unsigned char *)in->data + head;
  return CK_OK;
}

/* ---- the halo's steps ---------------------------------------------------- */

void ck__halo_bind(ck__halo *halo, ck__engine *engine, const ck__domain *d,
                   const ck__halo_ops *ops, void *self) {
  assert(halo && engine && d && ops);
  halo->engine = engine;
  halo->domain = d;
  halo->ops = ops;
  halo->self = self;
  halo->stage = 0;
}

/* A phase of the halo's on every local member at once (ck__engine_each). */
typedef ck_status (*halo_phase)(void *halo, size_t i);

static ck_status each(ck__halo *h, halo_phase phase) {
  return ck__engine_each(h->engine, phase, h);
}

/* What each local member put in send[side], passed along the stage's
 * axis, items of `item` bytes. */
static ck_status pass_stage(ck__halo *h, size_t item) {
  ck__spread_run *run = ck__engine_run(h->engine);
  const ck__domain_place *places[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    assert(h->members[i].place); /* set with the member's place */
    places[i] = &h->members[i].place[h->stage];
  }
  return ck__halo_pass(h, run->exchange, h->domain, run->local, places, item);
}

/* Member i's index in the whole run, for its failures. */
static size_t index_of(ck__halo *h, size_t i) {
  return ck__exchange_first(ck__engine_run(h->engine)->exchange) + i;
}

/* The ghosts a member keeps from the stages before the one in progress:
 * a grid's stage 1 appends its ghosts past stage 0's. */
static size_t ghosts_before(const ck__halo *h, const ck__halo_member *m) {
  return h->stage ? m->link[0].ghosts[0] + m->link[0].ghosts[1] : 0;
}

/* Member i's entries of `kind`, posted each way (the ops' post). */
static ck_status post(ck__halo *h, size_t i, int kind) {
  ck__halo_member *m = &h->members[i];
  ck__halo_link *l = &m->link[h->stage];
  uint32_t counts[2] = {0, 0};
  ck_status status = h->ops->post(h->self, i, h->stage, kind, counts, m->send);
  for (int side = 0; side < 2 && status == CK_OK; ++side) {
    l->posted[kind][side] = counts[side];
    l->posted[!kind][side] = 0;
    m->sends[side] = counts[side];
  }
  return status;
}

/* A rebuild's entries of `kind`, passed: each member's from its previous
 * and its next member. */
static ck_status deliver(ck__halo *h, int kind) {
  ck_status status = CK_OK;
  CK_TRY(pass_stage(h, h->ops->bytes[kind]));
  for (size_t i = 0; i < ck__engine_run(h->engine)->local; ++i)
    for (int from = 0; from < 2; ++from) {
      ck__halo_link *l = &h->members[i].link[h->stage];
      l->incoming[kind][from] = (uint32_t)h->members[i].from[from].count;
      l->incoming[!kind][from] = 0;
    }
fail:
  return status;
}

/* What member i received, appended by the ops from past `skip` bytes of
 * each message, past `before` ghosts. */
static ck_status admit(ck__halo *h, size_t i, size_t skip, size_t before) {
  ck__halo_member *m = &h->members[i];
  const void *in[2] = {NULL, NULL};
  for (int side = 0; side < 2; ++side)
    if (m->from[side].data)
      in[side] = (const unsigned char *)m->from[side].data + skip;
  return h->ops->admit(h->self, i, h->stage, &m->link[h->stage], in, before);
}

/* Its migrants, posted and dropped. */
static ck_status take_leavers(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  ck_status status = post(h, i, CK__HALO_MIGRANT);
  if (status == CK_OK)
    m->own -= m->link[h->stage].posted[CK__HALO_MIGRANT][0] +
              m->link[h->stage].posted[CK__HALO_MIGRANT][1];
  return status;
}

/* The migrants that arrived, as its own. */
static ck_status take_arrivals(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  ck_status status = admit(h, i, 0, 0);
  if (status == CK_OK)
    m->own += m->link[h->stage].incoming[CK__HALO_MIGRANT][0] +
              m->link[h->stage].incoming[CK__HALO_MIGRANT][1];
  return status;
}

/* Its exports (in a grid's stage 1 with stage 0's ghosts), posted each
 * way as ghosts. */
static ck_status take_exports(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_link *l = &h->members[i].link[h->stage];
  ck_status status = post(h, i, CK__HALO_GHOST);
  for (int side = 0; side < 2 && status == CK_OK; ++side)
    l->exports[side] = l->posted[CK__HALO_GHOST][side];
  return status;
}

/* Arrivals, then exports: one stage's way through a rebuild of slabs. */
static ck_status take_arrivals_exports(void *halo, size_t i) {
  ck_status status = take_arrivals(halo, i);
  return status ? status : take_exports(halo, i);
}

/* The first exports, none received before. */
static ck_status first_exports(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  memset(m->link[h->stage].incoming, 0, sizeof m->link[h->stage].incoming);
  m->from[0].count = m->from[1].count = 0;
  return take_exports(halo, i);
}

/* The ghosts that arrived (the previous member's, then the next's, past
 * the earlier stages'); at the last stage the sort. */
static ck_status take_ghosts(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  ck__halo_link *l = &m->link[h->stage];
  ck_status status = admit(h, i, 0, ghosts_before(h, m));
  if (status != CK_OK)
    return status;
  for (int from = 0; from < 2; ++from)
    l->ghosts[from] = l->incoming[CK__HALO_GHOST][from];
  if (h->stage + 1 < h->domain->stages)
    return CK_OK;
  return h->ops->sort(h->self, i, m);
}

/* What crosses between a stage's two phases: a rebuild's entries of a
 * kind (deliver), or a crossing's envelopes. */
#define ENVELOPES 2

/* Stage after stage: a phase that posts (out), what it posted across,
 * and a phase that takes it (in). */
static ck_status by_stage(ck__halo *h, halo_phase out, int crossing,
                          halo_phase in) {
  ck_status status = CK_OK;
  for (h->stage = 0; h->stage < h->domain->stages; ++h->stage) {
    CK_TRY(each(h, out));
    CK_TRY(crossing == ENVELOPES ? pass_stage(h, 1) : deliver(h, crossing));
    CK_TRY(each(h, in));
  }
fail:
  h->stage = 0;
  return status;
}

ck_status ck__halo_rebuild(ck__halo *h, int first) {
  ck_status status = CK_OK;
  assert(h && h->ops && h->stage == 0);
  if (first)
    return by_stage(h, first_exports, CK__HALO_GHOST, take_ghosts);
  if (h->domain->stages == 1) {
    CK_TRY(each(h, take_leavers));
    CK_TRY(deliver(h, CK__HALO_MIGRANT));
    return by_stage(h, take_arrivals_exports, CK__HALO_GHOST, take_ghosts);
  }
  CK_TRY(by_stage(h, take_leavers, CK__HALO_MIGRANT, take_arrivals));
  status = by_stage(h, take_exports, CK__HALO_GHOST, take_ghosts);
fail:
  return status;
}

ck_status ck__halo_pack(ck__halo *h, size_t i) {
  assert(h && h->ops && i < CK_SPREAD_MAX_LOCAL);
  ck__halo_member *m = &h->members[i];
  const ck__halo_link *l = &m->link[h->stage];
  for (int side = 0; side < 2; ++side)
    m->sends[side] = l->exports[side];
  return h->ops->pack(h->self, i, h->stage, l->exports, m->send);
}

static ck_status pack(void *halo, size_t i) {
  return ck__halo_pack(halo, i);
}

/* The ghosts' updates received: as many from each side as at the last
 * rebuild, in its order. */
static ck_status unpack(void *halo, size_t i) {
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  const ck__halo_link *l = &m->link[h->stage];
  const void *in[2];
  for (int from = 0; from < 2; ++from) {
    const ck__exchange_buffer *got = &m->from[from];
    if (got->count != l->ghosts[from])
      return ck__fail(CK_ERROR_EXCHANGE,
                      "member %zu received %zu ghosts, not the %zu of its "
                      "last rebuild",
                      index_of(h, i), got->count, l->ghosts[from]);
    in[from] = got->data;
  }
  return h->ops->unpack(h->self, i, h->stage, ghosts_before(h, m), l->ghosts,
                        in);
}

ck_status ck__halo_forward(ck__halo *h) {
  ck_status status = CK_OK;
  assert(h && h->ops && h->stage == 0);
  for (h->stage = 0; h->stage < h->domain->stages; ++h->stage) {
    if (h->stage > 0)
      CK_TRY(each(h, pack));
    CK_TRY(pass_stage(h, h->ops->forward_bytes));
    CK_TRY(each(h, unpack));
  }
fail:
  h->stage = 0;
  return status;
}

/* A crossing's way out: migrants and ghosts each way, sealed in one
 * envelope a side; the migrants kept as ghosts until the settle. */
static ck_status cross_out(void *halo, size_t i) {
  ck_status status = CK_OK;
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  ck__halo_link *l = &m->link[h->stage];
  uint32_t counts[2][2];
  const void *out[2][2];
  CK_TRY(h->ops->leave(h->self, i, h->stage, counts, out));
  size_t left =
      (size_t)counts[CK__HALO_MIGRANT][0] + counts[CK__HALO_MIGRANT][1];
  assert(left <= m->own); /* migrants are its own */
  m->own -= left;
  m->kept = (h->stage ? m->kept : 0) + left;
  memcpy(l->posted, counts, sizeof l->posted);
  for (int side = 0; side < 2; ++side) {
    uint32_t parts[2] = {counts[0][side], counts[1][side]};
    const void *pieces[2] = {out[0][side], out[1][side]};
    CK_TRY(ck__halo_seal(m, side, 2, parts, h->ops->bytes, pieces));
  }
fail:
  return status;
}

/* A crossing's way in: what arrived, appended; after the last stage the
 * settle, keeping its own, its migrants that left and every ghost. */
static ck_status cross_in(void *halo, size_t i) {
  ck_status status = CK_OK;
  ck__halo *h = halo;
  ck__halo_member *m = &h->members[i];
  ck__halo_link *l = &m->link[h->stage];
  for (int side = 0; side < 2; ++side) {
    uint32_t counts[2];
    CK_TRY(
        ck__halo_open(m, side, index_of(h, i), 2, h->ops->bytes, counts, NULL));
    l->incoming[CK__HALO_MIGRANT][side] = counts[0];
    l->incoming[CK__HALO_GHOST][side] = counts[1];
  }
  CK_TRY(admit(h, i, ck__halo_envelope_bytes(2), 0));
  m->own += (size_t)l->incoming[CK__HALO_MIGRANT][0] +
            l->incoming[CK__HALO_MIGRANT][1];
  for (int side = 0; side < 2; ++side)
    l->ghosts[side] = l->incoming[CK__HALO_GHOST][side];
  if (h->stage + 1 < h->domain->stages)
    return CK_OK;
  size_t kept = m->own + m->kept;
  for (int stage = 0; stage < h->domain->stages; ++stage)
    kept += m->link[stage].ghosts[0] + m->link[stage].ghosts[1];
  CK_TRY(h->ops->settle(h->self, i, kept));
fail:
  return status;
}

ck_status ck__halo_cross(ck__halo *h) {
  assert(h && h->ops && h->stage == 0);
  return by_stage(h, cross_out, ENVELOPES, cross_in);
}

void ck__halo_free(ck__halo *halo) {
  if (!halo)
    return;
  ck__halo_reside_close(halo);
  for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
    for (int side = 0; side < 2; ++side) {
      free(halo->members[i].from[side].data);
      free(halo->members[i].sealed[side].data);
    }
  memset(halo, 0, sizeof *halo);
}
