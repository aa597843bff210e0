/* IC(0), MIC(0) and ILU(0) factored by the backend (factor_numeric,
 * src/backends/backend.h) on a pattern computed once and kept (by the
 * backend from A's storage where it can: factor_analyse, factor_schedule;
 * else on the host):
 * a refactorization for new values on the same pattern runs only the
 * numeric factorization, refreshes the triangles' values in place and
 * estimates the condition again, all where the factors live.  The other
 * factorizations (ILU(k), ILUT, ILUTP), a row matching, a filter (block
 * Jacobi) and an ordering that builds M itself stay on the host
 * (src/precond/ilu.c). */
#ifndef KRYL_PRECOND_ILU_BACKEND_H
#define KRYL_PRECOND_ILU_BACKEND_H

#include "factor/factor_pattern.h"
#include "precond/precond.h"

typedef struct kryl_ilu_backend {
    kryl_factor_pattern P;   /* the kept symbolic part (empty: the backend's own) */
    kryl_factor_shape shape; /* its sizes */
    void *handle;            /* the backend's factor (ops->factor_setup) */
    double *inv_norm;        /* backend: one double, ||(L U)^{-1} e||_inf */
    double shift;            /* MIC(0)'s last shift */
    double bound;            /* MIC(0): the shift of diagonal dominance, from the values */
    bool permuted;           /* the backend analysed and factors a P A P^T copied there */
} kryl_ilu_backend;

/* Whether the backend factors `factor` of A for this preconditioner. */
bool kryl_ilu_backend_applies(const kryl_precond *pc, kryl_matrix A, kryl_precond_kind factor,
                              const kryl_solver_options *opts, bool filtered, bool ordering_builds);

/* Whether the backend factors A in an ordering's order itself, from the
 * P A P^T it copies from A's storage (else the host builds the pattern). */
bool kryl_ilu_backend_orders(kryl_context ctx, kryl_matrix A);

/* Factor A (rows in perm's order, NULL: A's; perm_backend, or NULL, its
 * backend copy, by which P A P^T can be copied there) by `factor` on the
 * backend into b, then *L and *U (NULL: built, else refreshed) and pc->condest,
 * with e and w two work vectors of A's layout and precision.  cg: the
 * options of a CG method under which ILU(0)'s pivots must be positive
 * (NULL: no such check). */
kryl_status kryl_ilu_backend_factor(kryl_precond *pc, kryl_ilu_backend *b, kryl_matrix A,
                                    const int32_t *perm, const int32_t *perm_backend,
                                    kryl_precond_kind factor, const kryl_solver_options *cg,
                                    void **L, void **U, kryl_vector e, kryl_vector w);

void kryl_ilu_backend_free(kryl_context ctx, kryl_ilu_backend *b);

#endif
