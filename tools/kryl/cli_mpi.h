/* The kryl command under mpirun: MPI is started only when a launcher
 * started the process (so a plain `kryl` never touches MPI), every rank
 * runs the command, and only rank 0 prints. */
#ifndef KRYL_TOOL_CLI_MPI_H
#define KRYL_TOOL_CLI_MPI_H

#include <stdbool.h>

#include "kryl.h"

/* Start MPI when launched by mpirun/mpiexec/srun (OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE or PMIX_RANK in the environment) and silence the output of
 * ranks other than 0; whether MPI was started. */
bool cli_mpi_start(int *argc, char ***argv);

/* Finish MPI if it was started. */
void cli_mpi_finish(void);

/* Whether this run spans more than one MPI rank. */
bool cli_mpi_active(void);

/* A context over all ranks (MPI_COMM_WORLD). */
kryl_status cli_mpi_context(kryl_context *ctx, const kryl_context_options *options);

/* Collect every rank's info on rank 0 (all[size]; only rank 0's is filled). */
void cli_mpi_gather_info(const kryl_dist_info *mine, kryl_dist_info *all);

#endif
