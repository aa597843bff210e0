/* Public access to the orderings: the permutation an ordering gives a
 * matrix and the bandwidth and profile of the reordered matrix. */
#include <stdlib.h>

#include "core/error.h"
#include "core/objects.h"
#include "order/order.h"

kryl_status kryl_matrix_order(kryl_matrix A, kryl_order_kind kind, int32_t *perm,
                              int64_t *bandwidth, int64_t *profile)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(perm);
    if (A->dist != NULL || A->host == NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_matrix_order: the ordering needs the whole matrix on this "
                          "process");
    if (kind < KRYL_ORDER_NONE || kind > KRYL_ORDER_COLOR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_matrix_order: ordering %d is not known",
                          (int)kind);
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows != csr->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE, "kryl_matrix_order: the matrix is %lld x %lld",
                          (long long)csr->nrows, (long long)csr->ncols);
    if (kind == KRYL_ORDER_NONE)
        for (int64_t i = 0; i < csr->nrows; i++) perm[i] = (int32_t)i;
    else
        KRYL_TRY(kryl_order_compute(csr, kind, perm));
    if (bandwidth == NULL && profile == NULL) return KRYL_SUCCESS;
    kryl_order_quality q;
    KRYL_TRY(kryl_order_quality_of(csr, perm, &q));
    if (bandwidth != NULL) *bandwidth = q.bandwidth;
    if (profile != NULL) *profile = q.profile;
    return KRYL_SUCCESS;
}
