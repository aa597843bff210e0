/* The halo of a rank's rows (Kreutzer et al. 2012, section 3; Tiwari &
 * Vadhiyar: local and non-local SpMV parts): the columns of other ranks
 * that the owned rows use ("ghosts"), sorted by owner and index, how many
 * come from each neighbour, and which owned entries each neighbour needs
 * (learned by sending it our requests once).  The owned rows are split
 * into the local part (owned columns renumbered 0..n-1) and the non-local
 * part (ghost columns renumbered 0..g-1, i.e. n..n+g-1 of [x; ghosts]). */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "core/huge_pages.h"
#include "dist/dist_internal.h"

static int compare_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct columns of the non-local part `far` into *ghosts (malloc'ed). */
static kryl_status collect_ghosts(const kryl_csr *far, int32_t **ghosts, int64_t *count)
{
    int64_t g = kryl_csr_nnz(far);
    int32_t *list = kryl_huge_malloc((size_t)(g > 0 ? g : 1) * sizeof *list);
    if (list == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "halo: cannot allocate %lld column indices",
                          (long long)g);
    if (g > 0) memcpy(list, far->col_idx, (size_t)g * sizeof *list);
    qsort(list, (size_t)g, sizeof *list, compare_int32);
    int64_t unique = 0;
    for (int64_t k = 0; k < g; k++)
        if (unique == 0 || list[k] != list[unique - 1]) list[unique++] = list[k];
    *ghosts = list;
    *count = unique;
    return KRYL_SUCCESS;
}

/* Position of column j in the sorted ghost list. */
static int64_t ghost_index(const int32_t *ghosts, int64_t g, int32_t j)
{
    int64_t lo = 0, hi = g - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ghosts[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The non-local part in place: its columns renumbered 0..g-1 by the ghost list. */
static void number_ghosts(kryl_csr *nl, const int32_t *ghosts, int64_t g, int threads)
{
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < kryl_csr_nnz(nl); k++)
        nl->col_idx[k] = (int32_t)ghost_index(ghosts, g, nl->col_idx[k]);
    nl->ncols = g;
}

void kryl_halo_release(kryl_halo *h)
{
    if (h == NULL || --h->refs > 0) return;
    free(h->neigh);
    free(h->recv_count);
    free(h->recv_offset);
    free(h->send_count);
    free(h->send_offset);
    free(h->send_rows);
    free(h);
}

/* Neighbour lists from per-rank counts (ranks with something either way). */
static kryl_status make_neighbours(kryl_halo *h, int size, const int *recv, const int *send)
{
    int m = 0;
    for (int p = 0; p < size; p++) m += recv[p] > 0 || send[p] > 0;
    size_t bytes = (size_t)(m > 0 ? m : 1) * sizeof(int);
    h->neigh = malloc(bytes);
    h->recv_count = malloc(bytes);
    h->recv_offset = malloc(bytes);
    h->send_count = malloc(bytes);
    h->send_offset = malloc(bytes);
    if (!h->neigh || !h->recv_count || !h->recv_offset || !h->send_count || !h->send_offset)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "halo: cannot allocate %d neighbours", m);
    int r = 0, s = 0;
    h->nneigh = 0;
    for (int p = 0; p < size; p++) {
        if (recv[p] == 0 && send[p] == 0) continue;
        int q = h->nneigh++;
        h->neigh[q] = p;
        h->recv_count[q] = recv[p];
        h->recv_offset[q] = r;
        h->send_count[q] = send[p];
        h->send_offset[q] = s;
        r += recv[p];
        s += send[p];
    }
    return KRYL_SUCCESS;
}

/* Exchange the requests: rank p learns which of its rows we need. */
static kryl_status exchange_requests(struct kryl_dist_context *dc, kryl_halo *h,
                                     const int32_t *ghosts, int64_t lo, int64_t nrows, int *recv,
                                     int *send, int *rdispl, int *sdispl)
{
    int size = dc->size;
    MPI_Alltoall(recv, 1, MPI_INT, send, 1, MPI_INT, dc->comm);
    int64_t total = 0;
    for (int p = 0; p < size; p++) {
        rdispl[p] = p == 0 ? 0 : rdispl[p - 1] + recv[p - 1];
        sdispl[p] = (int)total;
        total += send[p];
    }
    h->nsend = total;
    h->send_rows = kryl_huge_malloc((size_t)(total > 0 ? total : 1) * sizeof *h->send_rows);
    int ok = h->send_rows != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, dc->comm);
    if (!all)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "halo: a rank cannot allocate its send list");
    /* send_rows = the global indices the others request of us */
    MPI_Alltoallv(ghosts, recv, rdispl, MPI_INT32_T, h->send_rows, send, sdispl, MPI_INT32_T,
                  dc->comm);
    for (int64_t k = 0; k < total; k++) {
        if (h->send_rows[k] < lo || h->send_rows[k] >= lo + nrows)
            return KRYL_ERROR(KRYL_ERR_INTERNAL,
                              "halo: row %d was requested of a rank owning [%lld, %lld)",
                              h->send_rows[k], (long long)lo, (long long)(lo + nrows));
        h->send_rows[k] -= (int32_t)lo;
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_halo_build(struct kryl_dist_context *dc, const kryl_csr *csr, const int64_t *begin,
                            kryl_halo **halo, kryl_csr *loc, kryl_csr *nl)
{
    *halo = NULL;
    int size = dc->size;
    /* the columns this rank owns: its rows' for a square matrix */
    int64_t lo = begin[dc->rank], hi = begin[dc->rank + 1];
    int32_t *ghosts = NULL;
    int64_t g = 0;
    int threads = kryl_host_threads(&dc->inner);
    kryl_halo *h = calloc(1, sizeof *h);
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    memset(loc, 0, sizeof *loc);
    memset(nl, 0, sizeof *nl);
    /* the local part (owned columns renumbered 0..hi-lo-1) and the non-local
     * (columns global until the ghost list numbers them), then the ghosts */
    kryl_status st = h && counts ? kryl_csr_split_columns(csr, lo, hi, threads, loc, nl)
                                 : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "halo: cannot allocate it");
    if (st == KRYL_SUCCESS) st = collect_ghosts(nl, &ghosts, &g);
    st = kryl_dist_agree_comm(dc->comm, st);
    int *recv = counts, *send = counts + size, *rdispl = counts + 2 * size,
        *sdispl = counts + 3 * size;
    if (st == KRYL_SUCCESS) {
        h->refs = 1;
        h->nghost = g;
        /* recv[p] = ghosts owned by rank p */
        for (int64_t k = 0; k < g; k++) recv[kryl_dist_owner(begin, size, ghosts[k])]++;
        st = exchange_requests(dc, h, ghosts, lo, hi - lo, recv, send, rdispl, sdispl);
    }
    if (st == KRYL_SUCCESS) st = make_neighbours(h, size, recv, send);
    if (st == KRYL_SUCCESS) number_ghosts(nl, ghosts, g, threads);
    free(ghosts);
    free(counts);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(loc);
        kryl_csr_free(nl);
        if (h) h->refs = 1;
        kryl_halo_release(h);
        return st;
    }
    *halo = h;
    return KRYL_SUCCESS;
}

enum { EXCHANGE_TAG = 7302 };

kryl_status kryl_halo_exchange(struct kryl_dist_context *dc, const kryl_halo *h, MPI_Datatype type,
                               const void *owned, void *ghosts)
{
    int es = 0;
    MPI_Type_size(type, &es);
    char *send = kryl_huge_malloc((size_t)(h->nsend > 0 ? h->nsend : 1) * (size_t)es);
    MPI_Request *req = malloc(2 * (size_t)(h->nneigh > 0 ? h->nneigh : 1) * sizeof *req);
    kryl_status st = send && req ? KRYL_SUCCESS
                                 : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                              "cannot allocate an exchange of %lld entries",
                                              (long long)h->nsend);
    st = kryl_dist_agree_comm(dc->comm, st);
    /* send[k] = owned[send_rows[k]] */
    for (int64_t k = 0; st == KRYL_SUCCESS && k < h->nsend; k++)
        memcpy(send + (size_t)k * es, (const char *)owned + (size_t)h->send_rows[k] * es,
               (size_t)es);
    int err = MPI_SUCCESS;
    for (int q = 0; st == KRYL_SUCCESS && q < h->nneigh && err == MPI_SUCCESS; q++) {
        /* ghosts[recv_offset ..] <- rank neigh[q];  rank neigh[q] <- send[send_offset ..] */
        err = MPI_Irecv((char *)ghosts + (size_t)h->recv_offset[q] * es, h->recv_count[q], type,
                        h->neigh[q], EXCHANGE_TAG, dc->comm, &req[2 * q]);
        if (err == MPI_SUCCESS)
            err = MPI_Isend(send + (size_t)h->send_offset[q] * es, h->send_count[q], type,
                            h->neigh[q], EXCHANGE_TAG, dc->comm, &req[2 * q + 1]);
    }
    if (st == KRYL_SUCCESS && err == MPI_SUCCESS)
        err = MPI_Waitall(2 * h->nneigh, req, MPI_STATUSES_IGNORE);
    if (st == KRYL_SUCCESS) st = kryl_mpi_status(err, "a halo exchange of host values");
    free(send);
    free(req);
    return st;
}

kryl_status kryl_halo_exchange_int32(struct kryl_dist_context *dc, const kryl_halo *h,
                                     const int32_t *owned, int32_t *ghosts)
{
    return kryl_halo_exchange(dc, h, MPI_INT32_T, owned, ghosts);
}
