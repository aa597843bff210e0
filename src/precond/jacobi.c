/* Jacobi: M = diag(A), applied as z = dinv .* r with dinv_i = 1/a_ii. */
#include <stdlib.h>

#include "precond/precond.h"

static kryl_status jacobi_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    /* z = dinv .* r */
    return pc->ctx->ops->pointwise_mult(pc->ctx, z, pc->dinv, r);
}

kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A)
{
    const kryl_csr *csr = &A->host->csr;
    double *dinv = malloc((size_t)(csr->nrows > 0 ? csr->nrows : 1) * sizeof *dinv);
    if (dinv == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "jacobi: cannot allocate %lld diagonal entries",
                          (long long)csr->nrows);
    kryl_csr_diagonal(csr, dinv);
    for (int64_t i = 0; i < csr->nrows; i++) {
        if (dinv[i] == 0.0) {
            long long row = (long long)(csr->row_begin + i);
            free(dinv);
            return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                              "jacobi: the diagonal entry of row %lld is zero (0-based), so "
                              "M = diag(A) cannot be inverted; use --precond none, or reorder "
                              "the matrix to put nonzeros on the diagonal",
                              row);
        }
        dinv[i] = 1.0 / dinv[i];
    }
    kryl_status st = kryl_vector_create(&pc->dinv, A, A->precision);
    if (st == KRYL_SUCCESS) st = kryl_vector_set(pc->dinv, dinv, csr->nrows);
    free(dinv);
    pc->apply = jacobi_apply;
    return st;
}
