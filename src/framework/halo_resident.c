/*
 * halo_resident.c - a domain's members stepping without the host, each
 * reading its neighbours' device memory (halo.h's resident steps): in
 * one process through peers, between processes through the window.
 */
#include <assert.h>
#include <string.h>

#include "framework/halo.h"
#include "runtime/runtime.h"

enum { PREVIOUS = CK__DOMAIN_PREVIOUS, NEXT = CK__DOMAIN_NEXT };

/* The members read each other in this process (peers). */
#define IN_PROCESS(h) ((h)->peers[PREVIOUS][0] != NULL)

ck_status ck__halo_reside_open(ck__halo *h, int able) {
  ck_status status = CK_OK;
  assert(h && h->engine && !h->window);
  ck__spread_run *run = ck__engine_run(h->engine);
  if (able)
    CK_TRY(ck__spread_peers_open(run, 2, h->peers));
  CK_TRY(ck__window_open(run, able, 0, &h->window));
  h->between = h->window != NULL;
fail:
  return status;
}

void ck__halo_reside_close(ck__halo *h) {
  ck__spread_peers_close(h->peers);
  ck__window_close(h->window);
  h->window = NULL;
  h->between = 0;
}

ck_status ck__halo_reside_connect(ck__halo *h) {
  ck_status status = CK_OK;
  int usable = 0;
  assert(h && h->engine);
  if (!ck__halo_mirrored(h))
    return CK_OK;
  CK_TRY(ck__window_connect(h->window, ck__engine_run(h->engine)->queues[0],
                            &usable));
  h->between = usable;
fail:
  return status;
}

int ck__halo_may_reside(const ck__halo *h) {
  return IN_PROCESS(h) || h->between > 0;
}

int ck__halo_mirrored(const ck__halo *h) {
  return h->between > 0 && ck__window_mirrored(h->window);
}

int ck__halo_direct(const ck__halo *h) {
  size_t n = ck__engine_run(h->engine)->local;
  for (size_t i = 0; IN_PROCESS(h) && i < n; ++i)
    if (!ck__peer_direct(h->peers[PREVIOUS][i]) ||
        !ck__peer_direct(h->peers[NEXT][i]))
      return 0;
  return 1;
}

/* A resident phase's call: the halo, the ops, and the step's tag. */
typedef struct resident_call {
  ck__halo *halo;
  const ck__halo_resident_ops *ops;
  uint32_t tag;
} resident_call;

static ck_status reside(void *context, size_t i) {
  const resident_call *c = context;
  return c->ops->reside(c->halo->self, i);
}

static ck_status unreside(void *context, size_t i) {
  const resident_call *c = context;
  return c->ops->unreside(c->halo->self, i);
}

static ck_status settle(void *context, size_t i) {
  const resident_call *c = context;
  return c->ops->settle(c->halo->self, i);
}

/* The step's way out, and marks for both neighbours to follow: by tags,
 * none (the neighbours' devices wait for this one's tag); with mirrors,
 * none either (the swap follows in the way in). */
static ck_status out(void *context, size_t i) {
  ck_status status = CK_OK;
  const resident_call *c = context;
  ck__halo *h = c->halo;
  ck__spread_run *run = ck__engine_run(h->engine);
  size_t n = run->local;
  ck_queue *queue = run->queues[i];
  CK_TRY(c->ops->out(h->self, i, c->tag));
  if (h->between > 0) {
    CK_TRY(ck__window_mark(h->window, queue));
  } else if (!h->by_tags) {
    /* The next member reads this one as its previous, and back. */
    CK_TRY(ck__peer_mark(h->peers[PREVIOUS][(i + 1) % n], queue));
    CK_TRY(ck__peer_mark(h->peers[NEXT][(i + n - 1) % n], queue));
  }
fail:
  return status;
}

/* The way in, after both neighbours' marks (or the swap). */
static ck_status in(void *context, size_t i) {
  ck_status status = CK_OK;
  const resident_call *c = context;
  ck__halo *h = c->halo;
  ck_queue *queue = ck__engine_run(h->engine)->queues[i];
  int mirrored = ck__halo_mirrored(h);
  if (mirrored)
    CK_TRY(c->ops->swap(h->self, i, h->views[i]));
  for (int from = 0; from < 2 && !mirrored && !h->by_tags; ++from)
    CK_TRY(h->between > 0 ? ck__window_follow(h->window, from, queue)
                          : ck__peer_follow(h->peers[from][i], queue));
  CK_TRY(c->ops->in(h->self, i, h->views[i]));
fail:
  return status;
}

/* In one process: where each member's kernels read its neighbours'
 * offers (its previous member's toward it, and its next's). */
static ck_status view_peers(ck__halo *h, const ck__window_offer *offers) {
  ck_status status = CK_OK;
  size_t n = ck__engine_run(h->engine)->local;
  for (size_t i = 0; i < n; ++i)
    for (int from = 0; from < 2; ++from) {
      const ck__window_offer *o =
          &offers[from == PREVIOUS ? (i + n - 1) % n : (i + 1) % n];
      ck__window_view *view = &h->views[i][from];
      memset(view, 0, sizeof *view);
      memcpy(view->words, o->words, sizeof view->words);
      for (int k = 0; k < CK__WINDOW_BUFFERS && o->buffers[k]; ++k)
        CK_TRY(ck__peer_address(h->peers[from][i], o->buffers[k],
                                &view->address[k]));
    }
fail:
  return status;
}

/* Whether the members' steps wait for tags on their devices: every local
 * member's step can, and each has a GPU of its own, in one process.
 * Members that share a GPU (or ranks) follow marks instead: a kernel's
 * wait for another queue's work on its own GPU could hold the blocks
 * that work needs. */
static int by_tags(const ck__halo *h, const ck__halo_resident_ops *ops) {
  const ck__spread_run *run = ck__engine_run(h->engine);
  size_t n = run->local;
  if (!IN_PROCESS(h) || h->between != 0 || n < 2)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ops->waits(h->self, i))
      return 0;
    for (size_t j = 0; j < i; ++j)
      if (run->devices[j].device_index == run->devices[i].device_index)
        return 0;
  }
  return 1;
}

ck_status ck__halo_reside(ck__halo *h, const ck__halo_resident_ops *ops,
                          uint64_t count, uint64_t *taken) {
  ck_status status = CK_OK;
  assert(h && ops && taken && ck__halo_may_reside(h));
  ck__spread_run *run = ck__engine_run(h->engine);
  ck__window_offer offers[CK_SPREAD_MAX_LOCAL];
  int ready[CK_SPREAD_MAX_LOCAL];
  resident_call call = {h, ops, 0};
  *taken = 0;
  CK_TRY(ck__engine_each(h->engine, reside, &call));
  for (size_t i = 0; i < run->local; ++i) {
    memset(&offers[i], 0, sizeof offers[i]);
    ready[i] = ops->offer(h->self, i, &offers[i]);
  }
  if (h->between > 0) {
    int usable = 0;
    /* A member without resident steps makes every process go through
     * the host. */
    CK_TRY(
        ck__window_swap(h->window, &offers[0], ready[0], h->views[0], &usable));
    if (!usable) {
      h->between = -1;
      return ck__engine_each(h->engine, unreside, &call);
    }
  } else {
    CK_TRY(view_peers(h, offers));
  }
  h->by_tags = by_tags(h, ops);
  *taken = count;
  for (uint64_t k = 0; k < count; ++k) {
    ops->step(h->self, k, count);
    /* Tags only where the devices wait for them; 0 is always there. */
    call.tag = h->by_tags ? (uint32_t)k + 1u : 0u;
    CK_TRY(ck__engine_each(h->engine, out, &call));
    CK_TRY(ck__engine_each(h->engine, in, &call));
  }
  ops->step(h->self, count, count); /* the last step is done */
  CK_TRY(ck__engine_each(h->engine, settle, &call));
fail:
  /* NCCL's calls queued here may wait for partners that never come. */
  if (status != CK_OK && ck__halo_mirrored(h))
    ck__exchange_abort_devices(run->exchange);
  return status;
}
