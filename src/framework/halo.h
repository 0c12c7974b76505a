/*
 * halo.h - messages between a run's members and their neighbours in the
 * domain (framework/domain.h), through the host: each way along the axis
 * of an exchange's stage, slabs along their line (ck__exchange_pass) and
 * a grid's rows and columns routed (ck__exchange_route). A message may
 * be an envelope: the counts of its parts first, then the parts, which
 * its reader checks against its size. The halo knows nothing of what a
 * message carries.
 *
 * Its steps run a domain's exchanges apart from the physics, as
 * LAMMPS's Comm runs exchange, borders and forward communication apart
 * from the atoms: through the host stage after stage (ck__halo_rebuild,
 * ck__halo_forward, ck__halo_cross), or device to device
 * (ck__halo_reside, halo_resident.c). The workload's ops choose, pack and
 * append what crosses, on its devices. An entry is of one of two kinds:
 * a migrant, a unit that changes hands whole, or a ghost, a copy of a
 * unit within reach of a border that the neighbour keeps.
 */
#ifndef CK_FRAMEWORK_HALO_H
#define CK_FRAMEWORK_HALO_H

#include "framework/domain.h"
#include "framework/engine.h"
#include "framework/spread.h"
#include "framework/window.h"

/* The kinds of entry. */
enum { CK__HALO_MIGRANT = 0, CK__HALO_GHOST = 1 };

/* What crosses between a member and its neighbours along one stage's
 * axis, each indexed by side. */
typedef struct ck__halo_link {
  uint32_t exports[2];     /* the ghosts it sends between rebuilds */
  uint32_t posted[2][2];   /* [kind][side]: sent at the last exchange */
  uint32_t incoming[2][2]; /* [kind][side]: received at the last one */
  size_t ghosts[2];        /* the ghosts it keeps from each side */
} ck__halo_link;

/* What a local member sends and receives, indexed by side: toward (or
 * from) its previous neighbour along the stage's axis, or its next
 * (CK__DOMAIN_PREVIOUS, CK__DOMAIN_NEXT). */
typedef struct ck__halo_member {
  const void *send[2]; /* toward each side: sends[side] items (the caller's) */
  size_t sends[2];
  ck__exchange_buffer from[2];   /* received from each side */
  ck__exchange_buffer sealed[2]; /* its envelopes toward each side */
  /* For the halo's steps: its place along each stage's axis (the
   * caller's, ck__domain_place_member's), what crosses along each, its
   * own units, and the migrants that left it in a crossing, which it
   * keeps as ghosts until its next sort (ck__halo_cross). */
  const ck__domain_place *place;
  ck__halo_link link[2];
  size_t own, kept;
} ck__halo_member;

/* What a workload's member does when its halo is exchanged: the ops are
 * called on its own thread (ck__engine_each) with the workload's self,
 * the local member i and the stage in progress. Each returns CK_OK or
 * its failure, which ends the step on every member. */
typedef struct ck__halo_ops {
  size_t bytes[2];      /* an entry's bytes, by kind */
  size_t forward_bytes; /* a ghost's update between rebuilds */
  /* Chooses its entries of `kind` toward each side (migrants: those past
   * its borders, which it drops; ghosts: its exports, within reach of a
   * border), packs them and reads them to host memory: counts[side]
   * entries at out[side]. */
  ck_status (*post)(void *self, size_t i, int stage, int kind,
                    uint32_t counts[2], const void *out[2]);
  /* Appends the stage's link->incoming entries, from in[side] (NULL
   * where none come): migrants, then ghosts. In a rebuild, `before`
   * counts the ghosts of earlier stages, which stay (0 in a crossing). */
  ck_status (*admit)(void *self, size_t i, int stage, const ck__halo_link *link,
                     const void *const in[2], size_t before);
  /* After a rebuild's last stage: keeps its own units and every stage's
   * ghosts, drops the rest, and finds each stage's exports again. */
  ck_status (*sort)(void *self, size_t i, const ck__halo_member *member);
  /* Packs its exports' updates (exports[side]) to host memory. */
  ck_status (*pack)(void *self, size_t i, int stage, const uint32_t exports[2],
                    const void *out[2]);
  /* Writes the stage's ghosts' updates, ghosts[side] from in[side], past
   * `before` ghosts of earlier stages. */
  ck_status (*unpack)(void *self, size_t i, int stage, size_t before,
                      const size_t ghosts[2], const void *const in[2]);
  /* A crossing's way out: its migrants ([0][side]) and ghosts ([1][side])
   * toward each side at once, counts and host memory. */
  ck_status (*leave)(void *self, size_t i, int stage, uint32_t counts[2][2],
                     const void *out[2][2]);
  /* After a crossing's last stage: its sort, keeping `kept` entries: its
   * own units, the migrants that left it (its ghosts until its next
   * crossing) and every stage's ghosts. */
  ck_status (*settle)(void *self, size_t i, size_t kept);
} ck__halo_ops;

/* Every local member's (zeroed: empty), and for the halo's steps what
 * ck__halo_bind gives. Free with ck__halo_free. */
typedef struct ck__halo {
  ck__halo_member members[CK_SPREAD_MAX_LOCAL];
  ck__engine *engine;
  const ck__domain *domain;
  const ck__halo_ops *ops;
  void *self;
  int stage; /* of the step in progress; 0 outside one */
  /* Resident steps (ck__halo_reside): each local member's devices'
   * reads of its previous and its next member, in this process (peers)
   * or between processes, a member each (the window; between: 1 while
   * usable, 0 without, -1 once it failed); views: where each local
   * member's kernels read its neighbours; by_tags: the steps wait for
   * their neighbours' tags on the devices. */
  ck__peer *peers[2][CK_SPREAD_MAX_LOCAL];
  ck__window *window;
  int between, by_tags;
  ck__window_view views[CK_SPREAD_MAX_LOCAL][2];
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

/* ---- the halo's steps ------------------------------------------------
 *
 * Each runs on every local member at once through the engine, stage
 * after stage, and is collective. Errors: the ops', the exchange's, and
 * CK_ERROR_EXCHANGE where a member receives other than it must. */

/* Binds the halo to a run: its engine, its domain, the workload's ops
 * and self. Each member's place is set apart (ck__halo_member.place). */
void ck__halo_bind(ck__halo *halo, ck__engine *engine, const ck__domain *d,
                   const ck__halo_ops *ops, void *self);

/* A rebuild: migrants to their new owners, then every member's exports
 * as ghosts, then the sort. In a grid every stage's migrants move before
 * any exports are chosen: an export stays its sender's until the next
 * rebuild. With `first`, the exports alone (the first ghosts of a run
 * dealt by space). */
ck_status ck__halo_rebuild(ck__halo *halo, int first);

/* Member i's exports' updates of the halo's stage, packed (a call of
 * the workload's on member i's thread: the first stage's come with its
 * step's first phase). */
ck_status ck__halo_pack(ck__halo *halo, size_t i);

/* Between rebuilds: every stage's exports' updates to the ghosts, the
 * first stage's as ck__halo_pack packed them; a grid's later stages
 * pass on the earlier ones' ghosts as they are now. */
ck_status ck__halo_forward(ck__halo *halo);

/* A crossing: migrants and ghosts each way in one message a stage; the
 * migrants stay ghosts where they left until the next crossing. */
ck_status ck__halo_cross(ck__halo *halo);

/* ---- resident steps -----------------------------------------------------
 *
 * Where every member's kernels may read its neighbours' device memory,
 * steps may go without the host: each member packs what crosses on its
 * device and marks its queue; each neighbour's queue follows that mark
 * and reads it in a kernel of its own. In one process the members read
 * each other through peer access; between processes, a member each,
 * through the window (framework/window.h): by CUDA IPC, or from mirrors
 * that the workload fills by NCCL's swaps. Members on GPUs of their own
 * in one process may wait for their neighbours' tags on the devices
 * instead of marks. */

/* What a workload's member does in resident steps (its own thread, as
 * ck__halo_ops are called). */
typedef struct ck__halo_resident_ops {
  /* Makes room and begins its resident steps (its queue in the run may
   * change: ck__spread_run.queues). */
  ck_status (*reside)(void *self, size_t i);
  /* Ends resident steps begun, where they go through the host after all. */
  ck_status (*unreside)(void *self, size_t i);
  /* What its neighbours' kernels read of it; 1 where it can step so. */
  int (*offer)(void *self, size_t i, ck__window_offer *offer);
  /* Whether its device's steps can wait for their neighbours' tags. */
  int (*waits)(void *self, size_t i);
  /* Before step k of a run of `count` resident steps, and with k =
   * count once its last is done (the calling thread). */
  void (*step)(void *self, uint64_t k, uint64_t count);
  /* A step's way out: what its neighbours read, packed; its tag (0:
   * none). */
  ck_status (*out)(void *self, size_t i, uint32_t tag);
  /* With mirrors: its swap with its neighbours on its queue, from[side]
   * its mirrors of theirs. */
  ck_status (*swap)(void *self, size_t i, const ck__window_view from[2]);
  /* A step's way in, reading its previous (from[0]) and its next member
   * (from[1]). */
  ck_status (*in)(void *self, size_t i, const ck__window_view from[2]);
  /* Waits for its queue and checks what its resident steps left. */
  ck_status (*settle)(void *self, size_t i);
} ck__halo_resident_ops;

/* Opens the members' reads of each other where `able` (every process
 * says): peers in one process, else the window. Collective. */
ck_status ck__halo_reside_open(ck__halo *halo, int able);
/* Closes what ck__halo_reside_open opened: it may open again. */
void ck__halo_reside_close(ck__halo *halo);
/* With mirrors, once the members' queues are made: whether NCCL's swaps
 * go (ck__window_connect); else resident steps go through the host.
 * Collective. */
ck_status ck__halo_reside_connect(ck__halo *halo);
/* 1 where resident steps may go: peers or the window open and usable;
 * mirrored: 1 where the window's views are mirrors (NCCL). */
int ck__halo_may_reside(const ck__halo *halo);
int ck__halo_mirrored(const ck__halo *halo);
/* In one process: 1 where every local member's kernels read both
 * neighbours directly (between processes: 1). */
int ck__halo_direct(const ck__halo *halo);

/*
 * count resident steps: each member resides, offers and views its
 * neighbours' (between processes through the window), then step after
 * step goes out and comes in, then settles. *taken: the steps taken,
 * none where the processes' window failed (they go through the host
 * from then on). Collective. A failure with mirrors aborts the swaps in
 * flight.
 */
ck_status ck__halo_reside(ck__halo *halo, const ck__halo_resident_ops *ops,
                          uint64_t count, uint64_t *taken);

/* Frees what the halo's messages hold, and closes its peers and window;
 * zeroed, it is empty again. */
void ck__halo_free(ck__halo *halo);

#endif /* CK_FRAMEWORK_HALO_H */
