/* The matrix checks of the host backends (backend.h's csr_asymmetry,
 * csr_diagonal, csr_row_sums and csr_unmirrored): the host CSR code over
 * A's CSR format arrays, on the context's host threads (one on ref, the
 * serial specification). */
#include "backends/host_step.h"
#include "core/host_threads.h"

/* A's CSR storage as a kryl_csr of all its rows */
static kryl_csr stored_csr(kryl_matrix A)
{
    kryl_csr csr = {0};
    csr.nrows = csr.nrows_global = A->fmt.nrows;
    csr.ncols = A->fmt.ncols;
    csr.row_ptr = A->fmt.u.csr.row_ptr;
    csr.col_idx = A->fmt.u.csr.col;
    csr.values = A->fmt.u.csr.val;
    return csr;
}

kryl_status kryl_host_csr_asymmetry(kryl_context ctx, kryl_matrix A, double *worst, double *largest)
{
    const kryl_csr csr = stored_csr(A);
    kryl_csr_asymmetry(&csr, kryl_host_threads(ctx), worst, largest);
    return KRYL_SUCCESS;
}

kryl_status kryl_host_csr_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d, bool invert,
                                   kryl_diagonal_check *found)
{
    const kryl_csr csr = stored_csr(A);
    kryl_csr_check_diagonal(&csr, kryl_host_threads(ctx), d ? (double *)d->data : NULL, invert,
                            found);
    return KRYL_SUCCESS;
}

kryl_status kryl_host_csr_row_sums(kryl_context ctx, kryl_matrix A, kryl_row_sums what,
                                   kryl_vector d, int64_t *zero_row)
{
    const kryl_csr csr = stored_csr(A);
    *zero_row = kryl_csr_abs_row_sums(&csr, kryl_host_threads(ctx), what, (double *)d->data);
    return KRYL_SUCCESS;
}

kryl_status kryl_host_csr_unmirrored(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                     const int32_t *col_idx, int64_t *row)
{
    kryl_csr csr = {0};
    csr.nrows = csr.nrows_global = csr.ncols = n;
    csr.row_ptr = (int64_t *)row_ptr;
    csr.col_idx = (int32_t *)col_idx;
    *row = n > 0 ? kryl_csr_first_unmirrored(&csr, kryl_host_threads(ctx)) : -1;
    return KRYL_SUCCESS;
}
