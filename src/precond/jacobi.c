/* Jacobi: M = diag(A), applied as z = dinv .* r with dinv_i = 1/a_ii, made
 * where A is stored (the diagonal check of the natural CSR on the backend,
 * else the host copy's).  New values: dinv made again, for a matrix in
 * another format or order from its value slots on the backend
 * (matrix_inverse_diagonal), where the slot of each a_ii is kept. */
#include "precond/precond.h"

static kryl_status jacobi_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    /* z = dinv .* r */
    return pc->ctx->ops->pointwise_mult(pc->ctx, z, pc->dinv, r);
}

/* The error for a_ii = 0 in row `row` (0-based, of the caller's numbering). */
static kryl_status zero_diagonal(int64_t row)
{
    return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                      "jacobi: the diagonal entry of row %lld is zero (0-based), so "
                      "M = diag(A) cannot be inverted; use --precond none, or reorder "
                      "the matrix to put nonzeros on the diagonal",
                      (long long)row);
}

/* pc->dinv = 1 ./ diag(A) through the diagonal check, where A is stored */
static kryl_status fill_checked(kryl_precond *pc, kryl_matrix A)
{
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(A, "the jacobi preconditioner", pc->dinv, true, &found));
    const kryl_csr *csr = &A->host->csr;
    return found.first_zero < csr->nrows ? zero_diagonal(csr->row_begin + found.first_zero)
                                         : KRYL_SUCCESS;
}

static kryl_status jacobi_update(kryl_precond *pc)
{
    kryl_matrix A = pc->data;
    const kryl_backend_ops *ops = pc->ctx->ops;
    /* the natural CSR is the check's; in single precision the host's double
     * reciprocals, rounded once */
    if (ops->matrix_inverse_diagonal == NULL || A->storage == NULL || A->dist != NULL ||
        A->fmt.borrowed || A->precision != KRYL_DOUBLE)
        return fill_checked(pc, A);
    int64_t zero = -1;
    /* dinv = 1 ./ diag(A), on the backend in A's order */
    KRYL_TRY(ops->matrix_inverse_diagonal(pc->ctx, A, pc->dinv, &zero));
    if (zero < 0) return KRYL_SUCCESS;
    const int32_t *perm = A->layout->perm;
    return zero_diagonal(A->host->csr.row_begin + (perm ? perm[zero] : zero));
}

kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A)
{
    pc->apply = jacobi_apply;
    pc->update = jacobi_update;
    pc->data = A; /* not owned: the solver's matrix outlives it */
    KRYL_TRY(kryl_vector_create(&pc->dinv, A, A->precision));
    return fill_checked(pc, A);
}
