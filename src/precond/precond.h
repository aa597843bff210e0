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
 * degree and the ILU(k)/ILUT parameters.  *pc is NULL for KRYL_PRECOND_NONE. */
kryl_status kryl_precond_create(kryl_precond **pc, kryl_precond_kind kind,
                                const kryl_solver_options *opts, kryl_matrix A);

void kryl_precond_destroy(kryl_precond **pc);

/* Constructors of each kind (one file each). */
kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A);
kryl_status kryl_precond_lspoly_create(kryl_precond *pc, kryl_matrix A, int degree);
/* IC(0), MIC(0), ILU(0), ILU(k), ILUT (pc->kind), applied by triangular solves. */
kryl_status kryl_precond_ilu_create(kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts);

#endif
