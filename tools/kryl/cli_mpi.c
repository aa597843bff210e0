/* The kryl command under mpirun (see cli_mpi.h). */
#include "cli_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef KRYL_HAVE_MPI
#include "kryl_mpi.h"

static bool mpi_started;
static int world_size = 1;

/* Whether a process launcher started us. */
static bool launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

bool cli_mpi_start(int *argc, char ***argv)
{
    if (!launched_by_mpirun()) return false;
    int provided = 0, rank = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return false;
    mpi_started = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (rank != 0) {
        /* rank 0 speaks for all: the others' reports and errors repeat it */
        if (freopen("/dev/null", "w", stdout) == NULL) return true;
        if (freopen("/dev/null", "w", stderr) == NULL) return true;
    }
    return true;
}

void cli_mpi_finish(void)
{
    if (mpi_started) MPI_Finalize();
    mpi_started = false;
}

/* One rank is one process: its context, matrices and setup are a plain
 * run's, which keep the device paths a distributed matrix does not take
 * (AMG's setup of 7-point 256^3 under `mpirun -np 1`: 5.9 s on the host
 * against 0.15 s; docs/BENCHMARKS.md). */
bool cli_mpi_active(void) { return mpi_started && world_size > 1; }

kryl_status cli_mpi_context(kryl_context *ctx, const kryl_context_options *options)
{
    return kryl_context_create_mpi(ctx, options, MPI_COMM_WORLD);
}

void cli_mpi_gather_info(const kryl_dist_info *mine, kryl_dist_info *all)
{
    MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
}
#else
bool cli_mpi_start(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return false;
}

void cli_mpi_finish(void) {}

bool cli_mpi_active(void) { return false; }

kryl_status cli_mpi_context(kryl_context *ctx, const kryl_context_options *options)
{
    return kryl_context_create(ctx, options);
}

void cli_mpi_gather_info(const kryl_dist_info *mine, kryl_dist_info *all) { *all = *mine; }
#endif
