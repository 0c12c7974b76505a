/*
 * nn_members.h - a network's members, as nn_members.c makes and steps
 * them and nn_spread.c sums what crosses between several.
 */
#ifndef CK_NN_MEMBERS_H
#define CK_NN_MEMBERS_H

#include "framework/engine.h"
#include "nn/nn_internal.h"

/* How the members' gradients are summed. */
typedef enum sum_way {
  SUM_NONE,    /* one member: its own steps, the optimiser's fused */
  SUM_HOST,    /* read to the host, summed there and by MPI, written back */
  SUM_GROUPED, /* NCCL for every local member from this thread, between
                  two phases (members in turn: one thread may not drive
                  several NCCL members apart) */
  SUM_MEMBERS  /* NCCL by buckets, within each member's step */
} sum_way;

struct ck__nn_spread {
  /* The members, their threads and the exchange; the engine's exchange;
   * what the members are made of, while they are made. */
  ck__engine *engine;
  ck__exchange *exchange;
  const struct make_call *making;
  ck_nn **members;     /* local ones; the first is the network */
  size_t local, count; /* members here, and over every process */
  int owned;           /* the first member is the network's owner's */
  int shares;          /* the spread gave shares */
  sum_way way;
  int averages; /* NCCL may average the gradients (ncclAvg) */
  ck__nn_buckets buckets;
  size_t parameters; /* weights and biases of all layers */
  double *gradients; /* SUM_HOST: local + 1 runs of parameters: each local
                        member's gradient, then their sum */
  size_t widest;     /* reals of the widest layer in a member's layout */
  double *scratch;   /* a run of widest for each local member */
};

/* A training batch's call on its members. */
typedef struct batch_call {
  ck_nn *nn;
  uint32_t offset, count;
  const ck__nn_update *update;
  int average;     /* the sums average (every member's rows alike) */
  int record_only; /* ck__nn_step's */
} batch_call;

/* Several members' results (nn_spread.c): their loss and hits summed
 * into total where sums (each local member's pair) is given, and each
 * member's predictions of its rows (of rows) sent to every process
 * where predicted is given (collective). */
ck_status ck__nn_spread_combine(ck__nn_spread *spread, const double (*sums)[2],
                                double total[2], int32_t *predicted,
                                uint32_t rows);
/* Member i's step on its rows of a batch (ck__engine_each). */
ck_status ck__nn_batch_member(void *context, size_t i);

/* What only several members do (nn_spread.c): before the first batch,
 * their gradient buffers and, without shares, each one's rows a second
 * into speeds (*measured: whether it did); once the rows are dealt, how
 * the gradients are summed; whether a batch of count rows averages them;
 * a member's gradient read to the host; and after the members' steps,
 * their gradients summed and applied. */
ck_status ck__nn_spread_measure(ck__nn_spread *spread, uint32_t batch,
                                double *speeds, int *measured);
ck_status ck__nn_spread_choose_sums(ck__nn_spread *spread);
int ck__nn_spread_averages(const ck__nn_spread *spread, uint32_t count);
ck_status ck__nn_spread_read_gradient(ck__nn_spread *spread, size_t i);
ck_status ck__nn_spread_sum(ck__nn_spread *spread, const batch_call *call);

#endif /* CK_NN_MEMBERS_H */
