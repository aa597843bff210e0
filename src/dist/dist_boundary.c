/* The non-local part of a distributed matrix compressed to its boundary
 * rows.  A_nl (n x nghost) has entries only in the rows that couple to
 * other ranks; multiplying it as stored reads its n + 1 row offsets and
 * reads and writes all of y a second time (the 8/N_nzr bytes per flop of
 * Kreutzer et al. 2012, section 3.1).  When under half of the rows hold
 * entries, the product instead multiplies A_nl's compacted rows by the
 * ghosts, which needs no y and so may run beside the local product (on
 * the NCCL transport's communication stream), and then adds them in:
 *   y_b = alpha A_c ghosts;  y[rows] += y_b. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"

/* Compress only when the boundary rows are fewer than n / BOUNDARY_SHARE. */
enum { BOUNDARY_SHARE = 2 };

kryl_status kryl_dist_boundary_setup(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                     kryl_precision precision)
{
    const kryl_csr *a = &d->nl->host->csr; /* rows in the local part's order */
    int64_t n = a->nrows, nb = 0;
    for (int64_t i = 0; i < n; i++) nb += a->row_ptr[i + 1] > a->row_ptr[i];
    if (nb == 0 || nb * BOUNDARY_SHARE >= n) return KRYL_SUCCESS;
    kryl_context in = &dc->inner;
    int32_t *rows = malloc((size_t)nb * sizeof *rows);
    kryl_csr c = {0};
    kryl_status st = rows ? kryl_csr_alloc(&c, nb, a->ncols, kryl_csr_nnz(a))
                          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld boundary rows",
                                       (long long)nb);
    if (st != KRYL_SUCCESS) {
        free(rows);
        return st;
    }
    /* row k of c = row rows[k] of A_nl, the k-th that holds entries */
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t begin = a->row_ptr[i], len = a->row_ptr[i + 1] - begin;
        if (len == 0) continue;
        rows[k] = (int32_t)i;
        c.row_ptr[k + 1] = c.row_ptr[k] + len;
        memcpy(c.col_idx + c.row_ptr[k], a->col_idx + begin, (size_t)len * sizeof *c.col_idx);
        memcpy(c.values + c.row_ptr[k], a->values + begin, (size_t)len * sizeof *c.values);
        k++;
    }
    kryl_matrix compact = NULL;
    st = kryl_matrix_from_csr(&compact, in, &c); /* takes c's arrays */
    if (st == KRYL_SUCCESS)
        st = kryl_matrix_convert(&d->nl_boundary, compact, precision, KRYL_FORMAT_CSR, NULL,
                                 KRYL_ORDER_NONE);
    kryl_matrix_destroy(&compact);
    size_t bytes = (size_t)nb * sizeof *rows;
    if (st == KRYL_SUCCESS) st = dc->inner_ops->alloc(in, (void **)&d->boundary_rows, bytes);
    if (st == KRYL_SUCCESS) st = dc->inner_ops->upload(in, d->boundary_rows, rows, bytes);
    free(rows);
    if (st == KRYL_SUCCESS)
        st = kryl_vector_create_like(&d->y_boundary, in, d->nl_boundary->layout, precision);
    return st;
}

void kryl_dist_boundary_release(struct kryl_dist_context *dc, struct kryl_dist_matrix *d)
{
    kryl_matrix_destroy(&d->nl_boundary);
    kryl_vector_destroy(&d->y_boundary);
    if (d->boundary_rows) dc->inner_ops->release(&dc->inner, d->boundary_rows);
    d->boundary_rows = NULL;
}

kryl_status kryl_dist_boundary_product(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                       double alpha, const kryl_monitor *monitor)
{
    if (d->nl_boundary == NULL) return KRYL_SUCCESS;
    /* y_b = alpha A_c ghosts */
    return dc->inner_ops->spmv(&dc->inner, d->nl_boundary, alpha, d->ghost, 0.0, NULL,
                               d->y_boundary, monitor);
}

kryl_status kryl_dist_boundary_add(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                   double alpha, kryl_vector y, const kryl_monitor *monitor)
{
    kryl_context in = &dc->inner;
    const kryl_backend_ops *ops = dc->inner_ops;
    /* y += alpha A_nl ghosts, over every row */
    if (d->nl_boundary == NULL) return ops->spmv(in, d->nl, alpha, d->ghost, 1.0, y, y, monitor);
    /* y seen with the boundary's length: the sum touches y[rows[k]] only */
    struct kryl_vector_s view = *y;
    view.n = d->y_boundary->n;
    /* y[rows] += y_b */
    return ops->permute_copy(in, &view, d->y_boundary, d->boundary_rows, KRYL_SCATTER_ADD, monitor);
}
