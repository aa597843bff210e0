/* Preconditioners: z = M^{-1} r through backend operations only. */
#ifndef KRYL_PRECOND_PRECOND_H
#define KRYL_PRECOND_PRECOND_H

#include "backends/backend.h"

typedef struct kryl_precond kryl_precond;

struct kryl_precond {
    kryl_precond_kind kind;
    kryl_context ctx;
    /* Pointwise preconditioners (Jacobi) expose M^{-1} = diag(dinv) so a
     * solver can fuse the apply into its vector updates; NULL otherwise. */
    kryl_vector dinv;
    /* z = M^{-1} r */
    kryl_status (*apply)(kryl_precond *pc, kryl_vector r, kryl_vector z);
    void (*destroy)(kryl_precond *pc);
    void *data;
};

/* Build the preconditioner of `kind` for A (in A's precision and layout);
 * opts (NULL: the defaults of kryl_solver_options_init) gives the lspoly
 * degree, the ILU(k)/ILUT parameters and the block Jacobi block count.  *pc is NULL for
 * KRYL_PRECOND_NONE. */
kryl_status kryl_precond_create(kryl_precond **pc, kryl_precond_kind kind,
                                const kryl_solver_options *opts, kryl_matrix A);

void kryl_precond_destroy(kryl_precond **pc);

/* Constructors of each kind (one file each). */
kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A);
kryl_status kryl_precond_lspoly_create(kryl_precond *pc, kryl_matrix A, int degree);
/* IC(0), MIC(0), ILU(0), ILU(k), ILUT (pc->kind), applied by triangular solves. */
kryl_status kryl_precond_ilu_create(kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts);

/* Drops entries of B (the iteration matrix in its own row order, a private
 * copy) in place before it is factored. */
typedef struct kryl_precond_filter {
    kryl_status (*apply)(kryl_precond *pc, kryl_csr *B, const void *user);
    const void *user;
} kryl_precond_filter;

/* The factorization `factor` (IC0, MIC0, ILU0, ILUK or ILUT) of A, filtered
 * first when filter is not NULL, applied by triangular solves under the
 * name of pc->kind. */
kryl_status kryl_precond_factor_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts, kryl_precond_kind factor,
                                       const kryl_precond_filter *filter);

/* Block Jacobi: IC(0) or ILU(0) of the block diagonal of A (opts->blocks
 * contiguous blocks balanced by nonzeros). */
kryl_status kryl_precond_bjacobi_create(kryl_precond *pc, kryl_matrix A,
                                        const kryl_solver_options *opts);

#endif
