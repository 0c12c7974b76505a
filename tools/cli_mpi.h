/*
 * cli_mpi.h - MPI for the command's spread runs (cli_mpi.c).
 */
#ifndef CLKIT_CLI_MPI_H
#define CLKIT_CLI_MPI_H

typedef struct cli_mpi {
  const void *communicator;    /* &MPI_COMM_WORLD, or NULL outside MPI */
  int rank, ranks;             /* 0 and 1 outside MPI */
  int local_rank, local_ranks; /* among the processes of this node */
} cli_mpi;

/* This process's rank as its MPI launcher numbers it, before MPI starts:
 * 0 outside a launcher (and where the launcher says none). */
int cli_mpi_launched_rank(void);

/* Starts MPI where an MPI launcher started this process: returns 1 then,
 * and the launcher's end (on Linux) sends this process SIGTERM;
 * 0 outside a launcher; -1 when MPI failed to start; -2 under a launcher
 * in a build without MPI. Fills mpi in every case. */
int cli_mpi_begin(int *argc, char ***argv, cli_mpi *mpi);

/* The sum of value over every process of mpi: a collective, so every
 * rank calls it; value itself outside MPI. */
unsigned long cli_mpi_sum(const cli_mpi *mpi, unsigned long value);

/* Ends MPI if it was started; a failed process leaves without finalizing,
 * so that the launcher stops the others. */
void cli_mpi_end(int failed);

#endif /* CLKIT_CLI_MPI_H */
