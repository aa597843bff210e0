/* The symbolic part of an IC(0) or ILU(0) factorization of P A P^T,
 * computed once on the host and kept: the pattern of the combined factor
 * C, where each of its entries takes its value from A, the patterns of the
 * two triangles the solves use and their level schedules.  A backend's
 * numeric factorization (factor_numeric, src/backends/backend.h) works on
 * it, and a refactorization for new values on the same pattern reuses all
 * of it. */
#ifndef KRYL_FACTOR_FACTOR_PATTERN_H
#define KRYL_FACTOR_FACTOR_PATTERN_H

#include "factor/factor.h"
#include "order/order.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kryl_factor_pattern {
    kryl_factor_kind kind; /* KRYL_FACTOR_IC0 (IC(0), also shifted) or KRYL_FACTOR_ILU0 */
    int64_t n;
    /* C by rows, columns sorted.  IC: the rows of L = tril(P A P^T), the
     * diagonal last (U = L^T).  ILU: the rows of P A P^T; L is the part
     * left of the diagonal (unit diagonal implied), U the rest. */
    int64_t *ptr;    /* n + 1 */
    int32_t *col;    /* ptr[n] */
    int64_t *diag;   /* n: the position of c_ii */
    int64_t *source; /* ptr[n]: the entry of A's host CSR values c starts from */
    int64_t a_nnz;   /* entries of A's host CSR */
    /* IC only: the pattern of U = L^T by rows (values NULL), diagonal first */
    kryl_csr upper;
    kryl_levels levels_L, levels_U; /* the schedules of the two triangles */
} kryl_factor_pattern;

/* The sizes of a kept pattern, wherever it was built (on the host, or by
 * the backend's factor_analyse and factor_schedule). */
typedef struct kryl_factor_shape {
    kryl_factor_kind kind;
    int64_t n, a_nnz;
    int64_t nnz_L, nnz_U; /* entries of L and U as kryl_factor counts them */
    int32_t nlevels_L, nlevels_U;
} kryl_factor_shape;

/* The pattern of `kind` (IC0 or ILU0) of P A P^T: row i of it is row
 * perm[i] of A, column j becomes the i with perm[i] = j (perm NULL: A
 * itself), built on `threads` host threads.  A row without a diagonal
 * entry is refused as the factorizations refuse it (`who` names the
 * caller).  Free with kryl_factor_pattern_free. */
kryl_status kryl_factor_pattern_build(const kryl_csr *A, const int32_t *perm, kryl_factor_kind kind,
                                      int threads, const char *who, kryl_factor_pattern *P);
void kryl_factor_pattern_free(kryl_factor_pattern *P);

/* P's sizes. */
kryl_factor_shape kryl_factor_pattern_shape(const kryl_factor_pattern *P);

/* The position in C of l_ji (IC: row j of C holds column i < j), or -1. */
int64_t kryl_factor_pattern_find(const kryl_factor_pattern *P, int64_t j, int32_t i);

/* T = the lower (or upper) triangle as kryl_factor stores it (IC: L with
 * its diagonal last, U = L^T with its diagonal first; ILU: the strict lower
 * part, the upper part with its diagonal first), its values from c (C's
 * values; NULL: all 1, the pattern alone). */
kryl_status kryl_factor_pattern_triangle(const kryl_factor_pattern *P, const double *c, bool lower,
                                         kryl_csr *T);

#ifdef __cplusplus
}
#endif

#endif
