/* Preconditioner construction by kind. */
#include <stdio.h>
#include <stdlib.h>

#include "precond/precond.h"

kryl_status kryl_precond_create(kryl_precond **pc, kryl_precond_kind kind,
                                const kryl_solver_options *opts, kryl_matrix A, kryl_matrix source)
{
    *pc = NULL;
    kryl_solver_options defaults;
    kryl_solver_options_init(&defaults);
    if (opts == NULL) opts = &defaults;
    if (kind == KRYL_PRECOND_NONE) return KRYL_SUCCESS;
    /* Jacobi reads the diagonal where A is stored, AMG sets up there (making a
     * host copy only for a step that needs one); the others are built on the host */
    char why[64];
    snprintf(why, sizeof why, "the %s preconditioner", kryl_precond_name(kind));
    if (kind != KRYL_PRECOND_JACOBI && kind != KRYL_PRECOND_AMG)
        KRYL_TRY(kryl_matrix_need_host(A, why));
    kryl_precond *p = calloc(1, sizeof *p);
    if (p == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a preconditioner");
    p->kind = kind;
    p->ctx = A->ctx;
    kryl_status st;
    switch (kind) {
    case KRYL_PRECOND_JACOBI: st = kryl_precond_jacobi_create(p, A); break;
    case KRYL_PRECOND_LSPOLY:
        st = kryl_precond_lspoly_create(p, A, opts->degree, opts->symmetry_tol);
        break;
    case KRYL_PRECOND_IC0:
    case KRYL_PRECOND_MIC0:
    case KRYL_PRECOND_ILU0:
    case KRYL_PRECOND_ILUK:
    case KRYL_PRECOND_ILUT:
    case KRYL_PRECOND_ILUTP: st = kryl_precond_ilu_create(p, A, opts); break;
    case KRYL_PRECOND_BJACOBI: st = kryl_precond_bjacobi_create(p, A, opts); break;
    case KRYL_PRECOND_MCSSOR: st = kryl_precond_mcssor_create(p, A, opts); break;
    case KRYL_PRECOND_MCILU0: st = kryl_precond_mcilu0_create(p, A, opts); break;
    case KRYL_PRECOND_AMG: st = kryl_precond_amg_create(p, A, source, opts); break;
    default: st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown preconditioner %d", (int)kind);
    }
    if (st != KRYL_SUCCESS) {
        kryl_precond_destroy(&p);
        return st;
    }
    *pc = p;
    return KRYL_SUCCESS;
}

bool kryl_precond_for_cg(const kryl_solver_options *opts)
{
    return opts->method == KRYL_METHOD_CG || opts->method == KRYL_METHOD_PCG ||
           opts->method == KRYL_METHOD_PIPECG;
}

void kryl_precond_destroy(kryl_precond **pc)
{
    if (pc == NULL || *pc == NULL) return;
    if ((*pc)->destroy) (*pc)->destroy(*pc);
    kryl_vector_destroy(&(*pc)->dinv);
    free(*pc);
    *pc = NULL;
}
