/* IC(0) and ILU(0) on a kept pattern in host memory, shared by the ref
 * backend (rows in order, the oracle) and omp (rows of a level at once):
 * each row by the serial factorization's own arithmetic (src/factor/ic0.c,
 * ilu.c), so every backend on the host gives its bits. */
#ifndef KRYL_REF_FACTOR_H
#define KRYL_REF_FACTOR_H

#include "backends/ref/ref_ops.h"
#include "factor/factor_pattern.h"

typedef struct kryl_host_factor {
    const kryl_factor_pattern *P;
    double *c; /* C's values */
} kryl_host_factor;

/* Row i of C from A's values a, once the rows it reads are done: -1, or
 * the kryl_factor_pivot_what of its failure (c at its diagonal then holds
 * the value the failure names). */
int kryl_ref_factor_row(const kryl_factor_pattern *P, const double *a, double shift, double *c,
                        int64_t i);

/* A's host values for P (checked against P's count of them). */
kryl_status kryl_ref_factor_values(const kryl_factor_pattern *P, kryl_matrix A, const double **a);

/* pivots from the first failing row (-1: none), for ILU the first row of
 * C whose u_ii is not > 0, and ||A||_inf from A's host values a, on
 * `threads` threads. */
void kryl_ref_factor_pivots(const kryl_host_factor *F, const kryl_csr *A, int64_t failed, int what,
                            int threads, struct kryl_factor_pivots *pivots);

/* max |x_i| over [begin, end) of a host vector (a NaN counts as +Inf). */
double kryl_ref_amax_range(kryl_vector x, int64_t begin, int64_t end);

#endif
