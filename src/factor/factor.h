/* Incomplete factorizations on the host: IC(0), shifted IC(0), ILU(0),
 * ILU(k) and ILUT of a whole square kryl_csr, with a host triangular solve
 * that the level-scheduled solves of the backends are checked against.
 * Algorithms: Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
 * SIAM 2003, chapter 10; Li & Saad, GPU-accelerated preconditioned iterative
 * linear solvers, J. Supercomputing 63 (2013), section 4. */
#ifndef KRYL_FACTOR_FACTOR_H
#define KRYL_FACTOR_FACTOR_H

#include <stdbool.h>

#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kryl_factor_kind {
    KRYL_FACTOR_IC0,  /* A ~ L L^T, L with the pattern of tril(A) */
    KRYL_FACTOR_MIC0, /* A + alpha diag(A) ~ L L^T (Manteuffel's shift) */
    KRYL_FACTOR_ILU0, /* A ~ L U with the pattern of A */
    KRYL_FACTOR_ILUK, /* A ~ L U with the fill of level <= k */
    KRYL_FACTOR_ILUT  /* A ~ L U, dual threshold (tau, p) */
} kryl_factor_kind;

/* M = L U.  L is lower triangular: with unit_lower it holds only the strict
 * lower part (l_ii = 1 implied), otherwise the diagonal is each row's last
 * entry.  U is upper triangular with the diagonal as each row's first entry;
 * for IC U = L^T, stored explicitly.  Columns sorted within rows. */
typedef struct kryl_factor {
    kryl_factor_kind kind;
    int64_t n;
    kryl_csr L, U;
    bool unit_lower;
    double shift;    /* alpha of MIC(0) (0 when IC(0) itself succeeded; 0 for the others) */
    int64_t nnz_L;   /* entries stored in L */
    int64_t nnz_U;   /* entries stored in U */
    int64_t fill_in; /* positions of L + U (diagonal included) outside the pattern of A */
    /* ILUTP: L U ~ A Q, column j of A Q = column col_perm[j] of A; NULL otherwise */
    int32_t *col_perm;
} kryl_factor;

/* IC(0) of symmetric A (only tril(A) is read).  A non-positive pivot gives
 * KRYL_ERR_NOT_POSITIVE_DEFINITE naming the row. */
kryl_status kryl_factor_ic0(const kryl_csr *A, kryl_factor *F);

/* IC(0) of A + alpha diag(A), alpha = 0 first, then 1e-3 doubled until the
 * factorization exists (it does for every SPD A); alpha in F->shift.
 * KRYL_ERR_NOT_POSITIVE_DEFINITE when a diagonal entry is <= 0. */
kryl_status kryl_factor_mic0(const kryl_csr *A, kryl_factor *F);

/* MIC(0)'s pieces for a factorization elsewhere: *bound = the shift past
 * which A + alpha diag(A) is diagonally dominant (a diagonal entry <= 0 is
 * refused as mic0 refuses it), and the shift to try after alpha fails
 * (alpha = 0: 1e-3, then doubled; refused beyond 2 bound + 1). */
kryl_status kryl_factor_mic0_bound(const kryl_csr *A, double *bound);
kryl_status kryl_factor_mic0_next_shift(double bound, double *alpha);

/* ILU(0) and ILU(k) (k >= 0; ILU(0) = ILU(k = 0)).  A zero pivot, or a
 * diagonal position outside the pattern, gives KRYL_ERR_ZERO_DIAGONAL naming
 * the row. */
kryl_status kryl_factor_ilu0(const kryl_csr *A, kryl_factor *F);
kryl_status kryl_factor_iluk(const kryl_csr *A, int k, kryl_factor *F);

/* ILUT(tau, p): entries below tau * ||a_i*||_2 dropped, at most p entries
 * per row kept in L and in U besides the diagonal (tau >= 0, p >= 0). */
kryl_status kryl_factor_ilut(const kryl_csr *A, double tau, int64_t p, kryl_factor *F);

/* ILUTP(tau, p): ILUT with column pivoting, L U ~ A Q (F->col_perm); a pivot
 * that stays zero is replaced by (1e-4 + tau) ||a_i*||_2. */
kryl_status kryl_factor_ilutp(const kryl_csr *A, double tau, int64_t p, kryl_factor *F);

void kryl_factor_free(kryl_factor *F);

/* Where a numeric IC(0) or ILU(0) stops, as the serial factorization meets
 * it row after row. */
typedef enum kryl_factor_pivot_what {
    KRYL_PIVOT_DIAGONAL = 0, /* IC: a_ii <= 0 (value: a_ii) */
    KRYL_PIVOT_BREAKDOWN =
        1 /* IC: the pivot a_ii - sum l_ik^2 <= 0; ILU: u_ii zero or not finite */
} kryl_factor_pivot_what;

typedef struct kryl_factor_pivots {
    int64_t row;             /* the first row that fails (-1: none) */
    int what;                /* kryl_factor_pivot_what */
    double value;            /* a_ii or the pivot there */
    int64_t nonpositive_row; /* ILU: the first row whose u_ii is not > 0 (-1: none) */
    double nonpositive_value;
    double norm_inf; /* ||A||_inf of the values factored (for the condition estimate) */
} kryl_factor_pivots;

/* x = U^-1 L^-1 b (x and b of length F->n; they may be the same array); for
 * ILUTP the solution of A z = b is then z[col_perm[j]] = x[j]. */
kryl_status kryl_factor_solve_host(const kryl_factor *F, const double *b, double *x);

/* The stability estimate of Chow & Saad ("Experimental study of ILU
 * preconditioners for indefinite matrices", J. Comput. Appl. Math. 86,
 * 1997), made scale-free: *condest = ||A||_inf ||(L U)^{-1} e||_inf with
 * e = (1, ..., 1) and A the matrix factored, a lower bound on the
 * condition number of L U measured against A; large values mean unstable
 * triangular solves.  O(nnz(A) + nnz(L) + nnz(U)) on the host. */
kryl_status kryl_factor_condest(const kryl_factor *F, const kryl_csr *A, double *condest);

#ifdef __cplusplus
}
#endif

#endif
