/*
 * gas_spread_internal.h - what a gas's members' files share: gas_engine.c
 * (the engine's table, the members begun and started, a call's steps),
 * gas_spread.c (its phases, rebuilds and steps through the host),
 * gas_member_exchange.c (the halo's ops on each member's device),
 * gas_spread_steps.c (a call's steps, resident ones too),
 * gas_spread_deal.c (making and dealing, and what the run reads): the
 * spread's members and state, and the phases they share. Nothing else
 * includes it.
 */
#ifndef CK_GAS_SPREAD_INTERNAL_H
#define CK_GAS_SPREAD_INTERNAL_H

#include "framework/domain.h"
#include "framework/engine.h"
#include "framework/halo.h"
#include "framework/spread.h"
#include "framework/window.h"
#include "gas/gas_internal.h"

/* A message's side: toward the slab's lower border (the previous member)
 * or its upper one (the next). */
enum { PREVIOUS = CK__DOMAIN_PREVIOUS, NEXT = CK__DOMAIN_NEXT };

typedef struct member {
  ck_gas *gas;  /* its device state */
  size_t index; /* in the whole run */
  /* Its place in the domain (framework/domain.h): along the cut, and
   * across it (along y in a grid). What crosses, and its own particles,
   * are its halo member's (ck__gas_spread.halo). */
  ck__domain_place place[2];
  uint32_t stray;      /* ck__gas_member_admit's, once its queue waited */
  uint32_t stray_base; /* admit's inbox word and stage: word << 1 | stage */
  uint32_t flags[3];   /* read at each step (the halo's pack) */
  uint64_t bytes;      /* sent to other members */
  ck__exchange_buffer records; /* its particles as the run reads them */
} member;

struct ck__gas_spread {
  /* The members' engine (framework/engine.h) and its run: the exchange,
   * this process's devices, queues and times. */
  ck__engine *engine;
  ck__spread_run *run;
  member *members; /* local ones */
  /* The particles a cut deals, for the engine's cut and set_up. */
  const double *deal_positions, *deal_velocities;
  size_t total; /* members in all */
  /* 1 where one member holds the whole box: it keeps no ghosts and steps
   * as a gas on one device does (its box periodic, its steps gas.c's). */
  int whole;
  /* A whole box's gas, made and started on its device, until the engine
   * takes it as its member (ck__gas_spread_adopt). */
  ck_gas *adopted;
  int gpus; /* every member, on every process, is a GPU that runs kernels */
  int resident_able; /* and their cell lists could step resident */
  double *weights;   /* total: each one's share */
  /* The box's cut (framework/domain.h): its reach is rc (cells) or rc +
   * skin (Verlet lists) past a border, its pad the skin. */
  ck__domain domain;
  ck_gas_config config;
  ck__gas_forms forms;
  double dof;
  uint64_t step;
  uint64_t census[3]; /* every particle's count, id sum, id hash sum */
  /* What the phases of a step take: its number (the kick's; 0: none),
   * whether forces keep energies, and a rescale's factor. */
  uint64_t phase_step;
  int phase_energy, phase_move;
  int phase_part;  /* the part of the forces (ck__gas_member_forces) */
  int phase_ahead; /* the forces take the next step's first half-step */
  double phase_factor;
  /* Without shares, on devices of more than one model, the slabs are
   * cut again once by the speeds the members keep over their first
   * second of steps (on until then), measured from the first rebuild
   * after the warm-up, when every kernel has run once. */
  ck__engine_pace pace;
  /* What each local member sends and receives through the host, and
   * its own particles (the halo's steps, over ck__gas_halo_ops); its
   * reads of its neighbours in resident steps (peers in this process, or
   * the window between processes), where every member is a CUDA device
   * stepping cell lists in slabs. */
  ck__halo halo;
  /* Resident steps (cells mode without the host): 1 once the members
   * have room for them (after a step through the host, at each start);
   * the step's parity; 1 where a run's last is the call's last. */
  int resident_ready, phase_parity;
  int resident_last;
  int settled;             /* 1 while the last step's members have settled */
  uint32_t room_for_tests; /* CK__TEST_GAS_ROOM when it was made */
  int balance_forced;      /* CK__TEST_GAS_BALANCE was set */
  size_t tiers_from;       /* particles a member from which slabs tier */
  size_t aside_from;       /* own particles from which a slab unpacks aside */
  int tiers_forced;        /* 1: tiers also through the host (tests) */
  uint32_t most[CK_SPREAD_MAX_LOCAL]; /* entries a region held, at most */
  uint32_t most_leavers[CK_SPREAD_MAX_LOCAL]; /* of a leavers region */
  uint64_t resident_steps;
  /* The generation of the members' buffers: one more each time they are
   * made again (a window opens them again then). */
  uint64_t generation;
  /* The entries of each leavers region that NCCL sends (leavers_room). */
  uint32_t leavers_sent;
  /* Each local member's census, as observe_member read it. */
  int phase_census;
  uint64_t census_of[CK_SPREAD_MAX_LOCAL][3];
};

/* ---- what the spread's C files share ----------------------------------- */

/* The bytes of a message's entries (ck_gas.h's layout): a migrant's, a
 * ghost's. */
#define MIGRANT_BYTES (4 * CK_GAS_ENTRY_WORDS)
#define GHOST_BYTES (4 * CK_GAS_GHOST_WORDS)

/* Without shares, the slabs are cut again by the members' speeds once
 * they have made BALANCE_STEPS steps and computed BALANCE_SECONDS in all,
 * measured from the first rebuild after BALANCE_WARMUP steps (a runtime
 * may compile kernels at their first launch), where that would shorten a
 * step by BALANCE_GAIN or more. */
#define BALANCE_WARMUP 8
#define BALANCE_STEPS 16
#define BALANCE_SECONDS 1.0
#define BALANCE_GAIN 0.1

/* A slab of this many particles or more sorts in two tiers, its
 * interior's forces computed while its neighbours' entries come
 * (cl/gas.cu): 4M particles a GPU stepped faster so, 200,000 slower
 * (the pull's blocks and their waits outlast half of a small interior). */
#define TWO_TIERS_FROM 2000000u

/* A slab member of this many own particles or more writes the ghosts'
 * positions between Verlet rebuilds on a queue beside its own, while its
 * interior's forces run: on two H200s, 1M particles a member stepped
 * 12-13% faster so, 200,000 3% slower (a mark and a wait each step). */
#define ASIDE_FROM 1000000u

/* A phase of every local member at once (ck__spread_each: a host thread
 * a member), its time counted as the member's, then the statuses agreed
 * (collective). A phase touches its own member's state and buffers
 * alone. */
typedef ck_status (*phase_fn)(ck__gas_spread *s, member *m, size_t i);

/* gas_member_exchange.c's: what a member does when its halo crosses
 * (framework/halo.h). */
extern const ck__halo_ops ck__gas_halo_ops;

/* gas_spread.c's phases and steps through the host. */
/* Runs a phase on every local member at once; their statuses agreed. */
ck_status ck__gas_spread_each(ck__gas_spread *s, phase_fn phase);
/* How far past its borders an arrival may lie, by rounding. */
double ck__gas_spread_slack(const ck__gas_spread *s);
/* Fails naming a particle that reached a member past its borders; the
 * first that its last admit found, read once its queue has waited. */
ck_status ck__gas_spread_stray_failure(const ck__gas_spread *s, const member *m,
                                       int stage, uint32_t word, float u);
ck_status ck__gas_spread_check_stray(const ck__gas_spread *s, member *m);
/* A phase that queues the step's forces and kick (phase_part's). */
ck_status ck__gas_spread_forces(ck__gas_spread *s, member *m, size_t i);
/* Rescales every member's velocities to the target temperature. */
ck_status ck__gas_spread_rescale(ck__gas_spread *s);
/* Fails naming a slab whose halo held an entry too far inside. */
ck_status ck__gas_spread_inside_failure(const ck__gas_spread *s,
                                        const member *m);
/* A phase that checks what a cells-mode call's last step admitted. */
ck_status ck__gas_spread_settle(ck__gas_spread *s, member *m, size_t i);
/* Makes cells mode's step: a crossing (ck__halo_cross). */
ck_status ck__gas_spread_cells_step(ck__gas_spread *s, uint64_t step, int last);
/* Makes Verlet mode's step; *rebuilt 1 after a rebuild. */
ck_status ck__gas_spread_verlet_step(ck__gas_spread *s, uint64_t step, int last,
                                     int *rebuilt);
/* The slabs' first ghosts and forces, once dealt (collective). */
ck_status ck__gas_spread_first_ghosts(ck__gas_spread *s);

/* gas_spread_steps.c's resident steps. */
/* Takes a cells-mode step's counts as the first to make room by. */
void ck__gas_spread_ready_to_reside(ck__gas_spread *s);

/* gas_spread_steps.c's steps of slabs: a call's (collective). */
ck_status ck__gas_spread_slab_steps(ck__gas_spread *s, uint64_t steps);

/* gas_spread_deal.c's making and dealing of slabs. */
/* The grid, what the members can share (resident steps, speeds to
 * measure) and the census they must keep (collective). */
ck_status ck__gas_spread_plan(ck__gas_spread *s);
/* The box cut by the weights (the engine's cut): each local member's
 * slab, and its particles counted into units (collective). */
ck_status ck__gas_spread_cut(ck__gas_spread *s, uint64_t *units);
/* Member i's slab and borders (its place in the cut). */
void ck__gas_spread_place_member(ck__gas_spread *s, member *m, size_t i);
/* Member i's device state, made to hold its `own` particles and ghosts. */
ck_status ck__gas_spread_make_slab(ck__gas_spread *s, member *m, size_t i,
                                   size_t own, ck_queue **queue);
/* Member i's programs, then its own particles from the run's (the deal's),
 * in its coordinates. */
ck_status ck__gas_spread_take_slab(ck__gas_spread *s, member *m, size_t i);

/* Cuts the slabs again by the members' speeds where it pays (collective). */
ck_status ck__gas_spread_balance(ck__gas_spread *s);

/* gas_engine.c's members on the engine. */
/* The run's particles dealt (positions and velocities, id order; none
 * for an adopted whole box), the members made (again, where made), then
 * the slabs' first ghosts and forces (collective). */
ck_status ck__gas_spread_deal(ck__gas_spread *s, const double *positions,
                              const double *velocities, int again);

#endif /* CK_GAS_SPREAD_INTERNAL_H */
