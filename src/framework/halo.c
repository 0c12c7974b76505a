/*
 * halo.c - messages between a run's members and their neighbours in the
 * domain, through the host (halo.h).
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

void ck__halo_free(ck__halo *halo) {
  if (!halo)
    return;
  for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i)
    for (int side = 0; side < 2; ++side) {
      free(halo->members[i].from[side].data);
      free(halo->members[i].sealed[side].data);
    }
  memset(halo, 0, sizeof *halo);
}
