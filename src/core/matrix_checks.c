/* The checks a method makes of its matrix (symmetry, the diagonal, the
 * rows' absolute sums), run by the backend where A's CSR lives there, else
 * on the host copy. */
#include <math.h>
#include <stdlib.h>

#include "backends/backend.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

bool kryl_matrix_stored_csr(kryl_matrix A)
{
    const kryl_csr *h = &A->host->csr;
    return !A->storage_deferred && A->ctx->dist == NULL && A->dist == NULL &&
           A->fmt.kind == KRYL_FORMAT_CSR && A->precision == KRYL_DOUBLE && h->row_begin == 0 &&
           h->nrows == h->nrows_global && h->nrows == h->ncols;
}

bool kryl_matrix_natural_csr(kryl_matrix A)
{
    return kryl_matrix_stored_csr(A) && A->layout->perm == NULL;
}

const double *kryl_matrix_stored_values(kryl_matrix A)
{
    const kryl_backend_ops *ops = A->ctx->ops;
    double *values = NULL;
    if (ops->matrix_csr_arrays == NULL || A->storage == NULL || A->fmt.kind != KRYL_FORMAT_CSR ||
        !A->fmt.borrowed || A->precision != KRYL_DOUBLE ||
        ops->matrix_csr_arrays(A->ctx, A, NULL, NULL, NULL, &values) != KRYL_SUCCESS)
        return NULL;
    return values;
}

/* Whether the backend's checks read A where it is stored (kryl_matrix_natural_csr). */
static bool checked_on_backend(kryl_matrix A)
{
    const kryl_backend_ops *ops = A->ctx->ops;
    return ops->csr_asymmetry != NULL && ops->csr_diagonal != NULL && kryl_matrix_natural_csr(A);
}

/* max |a_ij - a_ji| / max |a_ij|; a zero matrix is symmetric */
static double relative_asymmetry(double worst, double largest)
{
    return worst == 0.0 ? 0.0 : worst / largest;
}

double kryl_host_matrix_asymmetry(kryl_host_matrix *h)
{
    if (h->asymmetry >= 0.0) return h->asymmetry;
    double worst = INFINITY, largest = 0.0;
#ifdef KRYL_HAVE_MPI
    if (h->dist &&
        kryl_dist_asymmetry(h->dist, &h->csr, h->threads, &worst, &largest) != KRYL_SUCCESS)
        worst = INFINITY;
    if (!h->dist)
#endif
        kryl_csr_asymmetry(&h->csr, h->threads, &worst, &largest);
    h->asymmetry = relative_asymmetry(worst, largest);
    return h->asymmetry;
}

bool kryl_host_matrix_is_symmetric(kryl_host_matrix *h, double tol)
{
    return kryl_host_matrix_asymmetry(h) <= tol;
}

kryl_status kryl_matrix_measure_asymmetry(kryl_matrix A, const char *why, double *asymmetry)
{
    kryl_host_matrix *h = A->host;
    if (h->asymmetry < 0.0 && checked_on_backend(A)) {
        double worst = INFINITY, largest = 0.0;
        KRYL_TRY(A->ctx->ops->csr_asymmetry(A->ctx, A, &worst, &largest));
        h->asymmetry = relative_asymmetry(worst, largest);
    }
    if (h->asymmetry < 0.0) KRYL_TRY(kryl_matrix_need_host(A, why));
    *asymmetry = kryl_host_matrix_asymmetry(h);
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_check_diagonal(kryl_matrix A, const char *why, kryl_vector d, bool invert,
                                       kryl_diagonal_check *found)
{
    if (checked_on_backend(A)) return A->ctx->ops->csr_diagonal(A->ctx, A, d, invert, found);
    KRYL_TRY(kryl_matrix_need_host(A, why));
    const kryl_csr *csr = &A->host->csr;
    double *values = NULL;
    if (d) {
        values = malloc((size_t)(csr->nrows > 0 ? csr->nrows : 1) * sizeof *values);
        if (values == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld diagonal entries",
                              why, (long long)csr->nrows);
    }
    kryl_csr_check_diagonal(csr, A->host->threads, values, invert, found);
    /* an inverse of a zero entry is not a value: left out, as the caller refuses A */
    const bool inverse_of_zero = invert && found->first_zero < csr->nrows;
    kryl_status st = d && !inverse_of_zero ? kryl_vector_set(d, values, csr->nrows) : KRYL_SUCCESS;
    free(values);
    return st;
}

kryl_status kryl_matrix_abs_row_sums(kryl_matrix A, const char *why, kryl_row_sums what,
                                     kryl_vector d, int64_t *zero_row)
{
    const kryl_backend_ops *ops = A->ctx->ops;
    if (ops->csr_row_sums != NULL && kryl_matrix_natural_csr(A) && d->precision == KRYL_DOUBLE)
        return ops->csr_row_sums(A->ctx, A, what, d, zero_row);
    KRYL_TRY(kryl_matrix_need_host(A, why));
    const kryl_csr *csr = &A->host->csr;
    double *values = malloc((size_t)(csr->nrows > 0 ? csr->nrows : 1) * sizeof *values);
    if (values == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld row sums", why,
                          (long long)csr->nrows);
    *zero_row = kryl_csr_abs_row_sums(csr, A->host->threads, what, values);
    kryl_status st = kryl_vector_set(d, values, csr->nrows);
    free(values);
    return st;
}

kryl_status kryl_matrix_is_symmetric(kryl_matrix A, double tol, bool *symmetric)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(symmetric);
    double asymmetry = INFINITY;
    KRYL_TRY(kryl_matrix_measure_asymmetry(A, "a symmetry check", &asymmetry));
    *symmetric = asymmetry <= (tol > 0.0 ? tol : 0.0);
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_asymmetry(kryl_matrix A, double *asymmetry)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(asymmetry);
    return kryl_matrix_measure_asymmetry(A, "a symmetry check", asymmetry);
}
