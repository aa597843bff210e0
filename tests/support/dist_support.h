/* Support for the distributed tests (tests/test_dist_*.c, run under
 * mpirun): MPI start and finish with a summary over all ranks, and the
 * check that a distributed solve gives the single-process solution. */
#ifndef KRYL_TEST_DIST_SUPPORT_H
#define KRYL_TEST_DIST_SUPPORT_H

#ifdef KRYL_HAVE_MPI

#include "kryl_mpi.h"
#include "test_support.h"

/* MPI_Init_thread (MPI_THREAD_MULTIPLE asked); returns this rank. */
int test_dist_init(int *argc, char ***argv, int *size);

/* Whether test `name`, written for at most max_ranks ranks, runs on more:
 * then rank 0 says it is skipped and MPI is finalized (exit with
 * TEST_SKIP_CODE). */
bool test_dist_too_many_ranks(const char *name, int max_ranks);

/* Sum the failures of all ranks, print the summary on rank 0, finalize
 * MPI; the exit status. */
int test_dist_finish(const char *name);

/* A context over MPI_COMM_WORLD on `kind`. */
kryl_context test_dist_context(kryl_backend_kind kind);

/* body(dctx, sctx, name) for each available backend (ref, omp, cuda):
 * dctx over MPI_COMM_WORLD, sctx on this process alone, both destroyed
 * after. */
typedef void (*test_dist_body)(kryl_context dctx, kryl_context sctx, const char *backend);
void test_dist_each_backend(test_dist_body body);

/* A distributed test's main: MPI started (*rank, *size set, either may be
 * NULL), skipped above max_ranks ranks (0: any number), body on each
 * backend, then the summary over all ranks; the exit status. */
int test_dist_run(int *argc, char ***argv, const char *name, int max_ranks, int *rank, int *size,
                  test_dist_body body);

/* sA (whole on rank 0, NULL elsewhere) distributed by dctx with `part`
 * (set on dctx), checked; NULL where the build lacks that partitioner. */
kryl_matrix test_dist_distribute(kryl_context dctx, kryl_matrix sA, kryl_partition_kind part);

/* The global right-hand side b_i = 1 + (i mod 7) / 7 of n entries (malloc'ed). */
double *test_dist_rhs(int64_t n);

/* Solve dA x = b (distributed) and sA x = b (one process, the same global
 * matrix in the file's order) with opt; on rank 0 check both converged
 * and the solutions agree to tol.  Returns the distributed iterations. */
int64_t test_dist_compare(kryl_matrix dA, kryl_matrix sA, const kryl_solver_options *opt,
                          double tol, const char *label);

/* test_dist_compare in each overlap mode of dctx (dA's context) (vector, naive,
 * task), checking that all three take the same iterations; leaves the
 * context in naive mode.  Returns the iterations of naive mode. */
int64_t test_dist_compare_modes(kryl_context dctx, kryl_matrix dA, kryl_matrix sA,
                                const kryl_solver_options *opt, double tol, const char *label);

#endif

#endif
