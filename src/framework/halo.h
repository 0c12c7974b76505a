/*
 * halo.h - messages between a run's members and their neighbours in the
 * domain (framework/domain.h), through the host: each way along the axis
 * of an exchange's stage, slabs along their line (ck__exchange_pass) and
 * a grid's rows and columns routed (ck__exchange_route). A message may
 * be an envelope: the counts of its parts first, then the parts, which
 * its reader checks against its size. The halo knows nothing of what a
 * message carries.
 */
#ifndef CK_FRAMEWORK_HALO_H
#define CK_FRAMEWORK_HALO_H

#include "framework/domain.h"
#include "framework/spread.h"

/* What a local member sends and receives, indexed by side: toward (or
 * from) its previous neighbour along the stage's axis, or its next
 * (CK__DOMAIN_PREVIOUS, CK__DOMAIN_NEXT). */
typedef struct ck__halo_member {
  const void *send[2]; /* toward each side: sends[side] items (the caller's) */
  size_t sends[2];
  ck__exchange_buffer from[2];   /* received from each side */
  ck__exchange_buffer sealed[2]; /* its envelopes toward each side */
} ck__halo_member;

/* Every local member's (zeroed: empty). Free with ck__halo_free. */
typedef struct ck__halo {
  ck__halo_member members[CK_SPREAD_MAX_LOCAL];
} ck__halo;

/*
 * Passes every local member's messages each way along an axis: local
 * member i, at places[i] along that axis, sends sends[side] items of
 * `item` bytes from send[side] to places[i]->neighbour[side]; what that
 * neighbour sent toward it lands in from[side]. Along a line of slabs
 * where d->stages is 1, else routed. Collective. Errors: the exchange's.
 */
ck_status ck__halo_pass(ck__halo *halo, ck__exchange *exchange,
                        const ck__domain *d, size_t local,
                        const ck__domain_place *const *places, size_t item);

/* The bytes of an envelope's counts, for `parts` parts. */
size_t ck__halo_envelope_bytes(size_t parts);

/*
 * Seals member's message toward side as an envelope: parts' counts,
 * then counts[k] items of sizes[k] bytes from pieces[k] for each part k
 * (NULL where its count is 0). Its bytes become what the member sends
 * that way (item 1). Errors: CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__halo_seal(ck__halo_member *member, int side, size_t parts,
                        const uint32_t *counts, const size_t *sizes,
                        const void *const *pieces);

/*
 * Opens the envelope member received from side: its parts' counts into
 * counts, checked against its size (item 1), and *body (where not
 * NULL) at its first part, ck__halo_envelope_bytes(parts) in. Errors:
 * CK_ERROR_EXCHANGE naming member `index` where it does not hold what it says.
 */
ck_status ck__halo_open(const ck__halo_member *member, int side, size_t index,
                        size_t parts, const size_t *sizes, uint32_t *counts,
                        const unsigned char **body);

/* Frees what the halo's messages hold; zeroed, it is empty again. */
void ck__halo_free(ck__halo *halo);

#endif /* CK_FRAMEWORK_HALO_H */
