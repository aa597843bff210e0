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
 * degree: the lspoly polynomial's degree (0 = 8), ignored by the others.
 * *pc is NULL for KRYL_PRECOND_NONE. */
kryl_status kryl_precond_create(kryl_precond **pc, kryl_precond_kind kind, int degree,
                                kryl_matrix A);

void kryl_precond_destroy(kryl_precond **pc);

/* Constructors of each kind (one file each). */
kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A);
kryl_status kryl_precond_lspoly_create(kryl_precond *pc, kryl_matrix A, int degree);

#endif
