/* Jacobi: M = diag(A), applied as z = dinv .* r with dinv_i = 1/a_ii. */
#include "precond/precond.h"

static kryl_status jacobi_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    /* z = dinv .* r */
    return pc->ctx->ops->pointwise_mult(pc->ctx, z, pc->dinv, r);
}

kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A)
{
    pc->apply = jacobi_apply;
    KRYL_TRY(kryl_vector_create(&pc->dinv, A, A->precision));
    /* dinv = 1 ./ diag(A), where A is stored */
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(A, "the jacobi preconditioner", pc->dinv, true, &found));
    const kryl_csr *csr = &A->host->csr;
    if (found.first_zero < csr->nrows)
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "jacobi: the diagonal entry of row %lld is zero (0-based), so "
                          "M = diag(A) cannot be inverted; use --precond none, or reorder "
                          "the matrix to put nonzeros on the diagonal",
                          (long long)(csr->row_begin + found.first_zero));
    return KRYL_SUCCESS;
}
