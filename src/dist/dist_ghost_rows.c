/* The rows of a matrix at a halo's ghosts, fetched from the ranks that own
 * them (multigrid over ranks: the rows of the prolongator that A's ghost
 * columns multiply): their lengths by one exchange of the halo, then each
 * neighbour's rows in one message of columns and one of values. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/huge_pages.h"
#include "dist/dist_internal.h"

enum { COLS_TAG = 7304, VALUES_TAG = 7305 };

/* Entries of the rows send_rows[from .. from + count) of M. */
static int64_t entries_of(const kryl_halo *h, const kryl_csr *M, int64_t from, int64_t count)
{
    int64_t total = 0;
    for (int64_t k = from; k < from + count; k++)
        total += M->row_ptr[h->send_rows[k] + 1] - M->row_ptr[h->send_rows[k]];
    return total;
}

/* Post the receives of G's rows and the sends of M's rows at h's send list
 * (packed in cols, values); req holds 4 per neighbour. */
static kryl_status post(struct kryl_dist_context *dc, const kryl_halo *h, const kryl_csr *M,
                        kryl_csr *G, int32_t *cols, double *values, MPI_Request *req)
{
    int64_t out = 0;
    for (int q = 0; q < h->nneigh; q++) {
        int64_t r0 = G->row_ptr[h->recv_offset[q]];
        int64_t recv = G->row_ptr[h->recv_offset[q] + h->recv_count[q]] - r0;
        int64_t send = entries_of(h, M, h->send_offset[q], h->send_count[q]);
        if (recv > INT_MAX || send > INT_MAX)
            return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                              "a halo of %lld and %lld matrix entries, more than MPI's int "
                              "counts hold",
                              (long long)recv, (long long)send);
        int err = MPI_Irecv(G->col_idx + r0, (int)recv, MPI_INT32_T, h->neigh[q], COLS_TAG,
                            dc->comm, &req[4 * q]);
        if (err == MPI_SUCCESS)
            err = MPI_Irecv(G->values + r0, (int)recv, MPI_DOUBLE, h->neigh[q], VALUES_TAG,
                            dc->comm, &req[4 * q + 1]);
        if (err == MPI_SUCCESS)
            err = MPI_Isend(cols + out, (int)send, MPI_INT32_T, h->neigh[q], COLS_TAG, dc->comm,
                            &req[4 * q + 2]);
        if (err == MPI_SUCCESS)
            err = MPI_Isend(values + out, (int)send, MPI_DOUBLE, h->neigh[q], VALUES_TAG, dc->comm,
                            &req[4 * q + 3]);
        KRYL_TRY(kryl_mpi_status(err, "the exchange of a halo's matrix rows"));
        out += send;
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_halo_ghost_rows(struct kryl_dist_context *dc, const kryl_halo *h,
                                 const kryl_csr *M, kryl_csr *G)
{
    memset(G, 0, sizeof *G);
    int64_t n = M->nrows, g = h->nghost;
    int64_t *len = kryl_huge_malloc(((size_t)n + (size_t)g + 1) * sizeof *len);
    int64_t nsend = entries_of(h, M, 0, len ? h->nsend : 0);
    int32_t *cols = kryl_huge_malloc((size_t)(nsend > 0 ? nsend : 1) * sizeof *cols);
    double *values = kryl_huge_malloc((size_t)(nsend > 0 ? nsend : 1) * sizeof *values);
    MPI_Request *req = malloc(4 * (size_t)(h->nneigh > 0 ? h->nneigh : 1) * sizeof *req);
    kryl_status st =
        len && cols && values && req
            ? KRYL_SUCCESS
            : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                         "cannot allocate the exchange of %lld matrix entries", (long long)nsend);
    for (int q = 0; req && q < 4 * h->nneigh; q++) req[q] = MPI_REQUEST_NULL;
    st = kryl_dist_agree_comm(dc->comm, st);
    /* len[i] = the length of row i; len[n + k] = that of ghost k on its owner */
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++)
        len[i] = M->row_ptr[i + 1] - M->row_ptr[i];
    if (st == KRYL_SUCCESS) st = kryl_halo_exchange(dc, h, MPI_INT64_T, len, len + n);
    int64_t total = 0;
    for (int64_t k = 0; st == KRYL_SUCCESS && k < g; k++) total += len[n + k];
    if (st == KRYL_SUCCESS) st = kryl_csr_alloc(G, g, M->ncols, total);
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st == KRYL_SUCCESS) {
        for (int64_t k = 0; k < g; k++) G->row_ptr[k + 1] = G->row_ptr[k] + len[n + k];
        /* the rows the neighbours need, neighbour by neighbour */
        int64_t out = 0;
        for (int64_t k = 0; k < h->nsend; k++) {
            int64_t from = M->row_ptr[h->send_rows[k]],
                    count = M->row_ptr[h->send_rows[k] + 1] - from;
            memcpy(cols + out, M->col_idx + from, (size_t)count * sizeof *cols);
            memcpy(values + out, M->values + from, (size_t)count * sizeof *values);
            out += count;
        }
        st = post(dc, h, M, G, cols, values, req);
        int err = MPI_Waitall(4 * h->nneigh, req, MPI_STATUSES_IGNORE);
        if (st == KRYL_SUCCESS) st = kryl_mpi_status(err, "the exchange of a halo's matrix rows");
    }
    st = kryl_dist_agree_comm(dc->comm, st);
    free(len);
    free(cols);
    free(values);
    free(req);
    if (st != KRYL_SUCCESS) kryl_csr_free(G);
    return st;
}
