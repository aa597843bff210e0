/*
 * kryl over MPI: a context spanning the ranks of a communicator, one rank
 * per GPU or per CPU process (docs/DISTRIBUTED.md).  The rest of the API
 * (include/kryl.h) is unchanged: each rank passes its own rows, and the
 * calls that build matrices and solvers are collective.
 */
#ifndef KRYL_MPI_H
#define KRYL_MPI_H

#include <mpi.h>

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Create a context over the ranks of comm (collective; comm is
 * duplicated).  MPI must be initialised; task overlap needs
 * MPI_Init_thread with MPI_THREAD_SERIALIZED or more.  On cuda each rank
 * takes the GPU of its node-local rank (modulo the GPUs present) unless
 * options->device is not 0.
 *   ctx      out: the context, NULL on failure
 *   options  NULL for the defaults
 *   comm     the ranks that share matrices and solves */
kryl_status kryl_context_create_mpi(kryl_context *ctx, const kryl_context_options *options,
                                    MPI_Comm comm);

/* The context's communicator (MPI_COMM_SELF for a context not made by
 * kryl_context_create_mpi).  Do not free it. */
kryl_status kryl_context_comm(kryl_context ctx, MPI_Comm *comm);

/* Distribute a matrix built whole on rank 0 (collective): rank 0 passes a
 * matrix of any single-process context holding all rows (the others pass
 * NULL); its rows are split as kryl_matrix_read_mtx splits a file's
 * (kryl_context_set_partition), and *A is the distributed matrix on ctx.
 * With a graph partition rows are renumbered; use kryl_vector_set_global
 * and kryl_vector_get_global for vectors in whole's order. */
kryl_status kryl_matrix_distribute(kryl_matrix *A, kryl_context ctx, kryl_matrix whole);

#ifdef __cplusplus
}
#endif

#endif
