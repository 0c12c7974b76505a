/*
 * cli_mpi.c - the command under mpirun: MPI is started only for a spread
 * run that an MPI launcher started, so that every other run needs no MPI
 * at all.
 */
#include "cli_mpi.h"

#include <stdlib.h>

#if CK_HAVE_MPI
#include <mpi.h>
static MPI_Comm world;
static int started;

#if defined(__linux__)
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/* A launcher that ends before its ranks (Open MPI's mpirun at a second
 * Ctrl-C) leaves them to MPI's runtime, which _exits them about a second
 * later, past any handler. SIGTERM at the launcher's end lets the command
 * remove its temporaries first. */
static void end_with_launcher(void) {
  pid_t launcher = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 && getppid() != launcher)
    raise(SIGTERM); /* it ended before the call */
}
#else
static void end_with_launcher(void) {}
#endif
#endif

/* Variables that launchers set in each process they start. */
static int launched_by_mpi(void) {
  static const char *const variables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                          "PMIX_RANK", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; ++i)
    if (getenv(variables[i]))
      return 1;
  return 0;
}

int cli_mpi_launched_rank(void) {
  static const char *const variables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                          "PMIX_RANK"};
  for (size_t i = 0; i < sizeof variables / sizeof variables[0]; ++i) {
    const char *value = getenv(variables[i]);
    if (value && *value)
      return atoi(value);
  }
  return 0;
}

int cli_mpi_begin(int *argc, char ***argv, cli_mpi *mpi) {
  mpi->communicator = NULL;
  mpi->rank = 0;
  mpi->ranks = 1;
  mpi->local_rank = 0;
  mpi->local_ranks = 1;
  if (!launched_by_mpi())
    return 0;
#if CK_HAVE_MPI
  if (MPI_Init(argc, argv) != MPI_SUCCESS)
    return -1;
  started = 1;
  end_with_launcher();
  world = MPI_COMM_WORLD;
  MPI_Comm_rank(world, &mpi->rank);
  MPI_Comm_size(world, &mpi->ranks);
  /* The processes of this node, for one device each. */
  MPI_Comm node;
  if (MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, mpi->rank, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &mpi->local_rank);
    MPI_Comm_size(node, &mpi->local_ranks);
    MPI_Comm_free(&node);
  }
  mpi->communicator = &world;
  return 1;
#else
  (void)argc;
  (void)argv;
  return -2;
#endif
}

unsigned long cli_mpi_sum(const cli_mpi *mpi, unsigned long value) {
#if CK_HAVE_MPI
  unsigned long sum = value;
  if (mpi->communicator && MPI_Allreduce(&value, &sum, 1, MPI_UNSIGNED_LONG,
                                         MPI_SUM, world) == MPI_SUCCESS)
    return sum;
#else
  (void)mpi;
#endif
  return value;
}

void cli_mpi_end(int failed) {
#if CK_HAVE_MPI
  /* A failed process leaves without MPI_Finalize: the launcher then ends
   * the others at once, whatever they wait for. */
  if (started && !failed)
    MPI_Finalize();
  started = 0;
#else
  (void)failed;
#endif
}
