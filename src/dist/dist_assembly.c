/* Rows of distributed generators and assemblies: the block of rows a rank
 * generates, and the routing of assembled entries to the ranks owning
 * their rows (one MPI_Alltoallv). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "core/huge_pages.h"
#include "dist/dist_internal.h"

void kryl_dist_block_rows(kryl_context ctx, int64_t n, int64_t *begin, int64_t *end)
{
    int rank = ctx->dist->rank, size = ctx->dist->size;
    /* rank r: rows [r n / size, (r+1) n / size) */
    *begin = (int64_t)((double)n * rank / size);
    *end = rank + 1 == size ? n : (int64_t)((double)n * (rank + 1) / size);
}

/* Entries grouped by destination rank, each rank's in their order:
 * order[k] = the entry placed k-th, send[p] and sdispl[p] rank p's count
 * and first; each of `threads` host threads counts and places a contiguous
 * range of the entries (at[t * size + p]: range t's next slot for rank p). */
static kryl_status group(const kryl_coo *coo, const int64_t *begin, int size, int threads,
                         int *send, int *sdispl, int64_t *order)
{
    if (threads > KRYL_HOST_MAX_TEAM) threads = KRYL_HOST_MAX_TEAM;
    int64_t *at = calloc((size_t)threads * size, sizeof *at);
    if (at == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "assembly: cannot group %lld entries",
                          (long long)coo->count);
    KRYL_HOST_PARALLEL(threads)
    {
        const int t = kryl_host_thread(), nt = kryl_host_team();
        const int64_t lo = coo->count * t / nt, hi = coo->count * (t + 1) / nt;
        int64_t *next = at + (size_t)t * size;
        for (int64_t k = lo; k < hi; k++) next[kryl_dist_owner(begin, size, coo->rows[k])]++;
        KRYL_HOST_BARRIER
        KRYL_HOST_SINGLE
        {
            /* slots in the order (rank, range) */
            int64_t slot = 0;
            for (int p = 0; p < size; p++) {
                sdispl[p] = (int)slot;
                for (int r = 0; r < nt; r++) {
                    int64_t count = at[(size_t)r * size + p];
                    at[(size_t)r * size + p] = slot;
                    slot += count;
                }
                send[p] = (int)(slot - sdispl[p]);
            }
        }
        for (int64_t k = lo; k < hi; k++)
            order[next[kryl_dist_owner(begin, size, coo->rows[k])]++] = k;
    }
    free(at);
    return KRYL_SUCCESS;
}

static kryl_status too_many(int64_t count, const char *what)
{
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "assembly: %lld entries %s on one rank, more than MPI's int counts hold "
                      "(%d): use more ranks",
                      (long long)count, what, INT_MAX / 2);
}

kryl_status kryl_dist_route_entries(kryl_context ctx, const kryl_coo *coo, int64_t row_begin,
                                    int64_t row_end, kryl_coo *routed)
{
    struct kryl_dist_context *dc = ctx->dist;
    int size = dc->size;
    memset(routed, 0, sizeof *routed);
    routed->nrows = coo->nrows;
    routed->ncols = coo->ncols;
    kryl_dist_rows *rows = NULL;
    KRYL_TRY(kryl_dist_rows_gather(dc, row_begin, row_end - row_begin, coo->nrows, &rows));
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    int64_t c = coo->count;
    int64_t *order = kryl_huge_malloc((size_t)(c > 0 ? c : 1) * sizeof *order);
    kryl_status st = counts && order
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "assembly: cannot route %lld entries",
                                      (long long)c);
    /* MPI counts are ints, and the (row, col) pairs count twice */
    if (st == KRYL_SUCCESS && c > INT_MAX / 2) st = too_many(c, "to send");
    int *send = counts, *sdispl = counts + size, *recv = counts + 2 * size,
        *rdispl = counts + 3 * size;
    int threads = kryl_host_threads(ctx);
    if (st == KRYL_SUCCESS) st = group(coo, rows->begin, size, threads, send, sdispl, order);
    /* this rank's own entries stay here: the others go through MPI, packed
     * without them (most of the entries an AMG level routes are its own) */
    int64_t own = 0, own_at = 0, sent = 0;
    if (st == KRYL_SUCCESS) {
        own = send[dc->rank];
        own_at = sdispl[dc->rank];
        send[dc->rank] = 0;
        for (int p = dc->rank + 1; p < size; p++) sdispl[p] -= (int)own;
        sent = c - own;
    }
    int64_t *ij = kryl_huge_malloc(2 * (size_t)(sent > 0 ? sent : 1) * sizeof *ij);
    double *v = kryl_huge_malloc((size_t)(sent > 0 ? sent : 1) * sizeof *v);
    if (st == KRYL_SUCCESS && (ij == NULL || v == NULL))
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "assembly: cannot route %lld entries",
                        (long long)sent);
    if (st == KRYL_SUCCESS) {
        /* (row, col, value) in destination order */
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t k = 0; k < c; k++) {
            if (k >= own_at && k < own_at + own) continue;
            const int64_t slot = k < own_at ? k : k - own;
            ij[2 * slot] = coo->rows[order[k]];
            ij[2 * slot + 1] = coo->cols[order[k]];
            v[slot] = coo->values[order[k]];
        }
    }
    st = kryl_dist_agree_comm(dc->comm, st);
    int64_t received = 0;
    if (st == KRYL_SUCCESS) {
        MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, dc->comm);
        for (int p = 0; p < size; p++) {
            rdispl[p] = received <= INT_MAX ? (int)received : 0;
            received += recv[p];
        }
        st = received > INT_MAX / 2 ? too_many(received, "to receive")
             : own + received > 0   ? kryl_coo_reserve(routed, own + received)
                                    : kryl_coo_reserve(routed, 1);
        st = kryl_dist_agree_comm(dc->comm, st);
    }
    if (st == KRYL_SUCCESS) {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t k = 0; k < own; k++) {
            const int64_t e = order[own_at + k];
            routed->rows[k] = coo->rows[e];
            routed->cols[k] = coo->cols[e];
            routed->values[k] = coo->values[e];
        }
        MPI_Alltoallv(v, send, sdispl, MPI_DOUBLE, routed->values + own, recv, rdispl, MPI_DOUBLE,
                      dc->comm);
        int64_t *pairs =
            kryl_huge_malloc(2 * (size_t)(received > 0 ? received : 1) * sizeof *pairs);
        for (int p = 0; p < size; p++) {
            send[p] *= 2;
            sdispl[p] *= 2;
            recv[p] *= 2;
            rdispl[p] *= 2;
        }
        int ok = pairs != NULL, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, dc->comm);
        if (all) {
            MPI_Alltoallv(ij, send, sdispl, MPI_INT64_T, pairs, recv, rdispl, MPI_INT64_T,
                          dc->comm);
            KRYL_HOST_PARALLEL_FOR(threads)
            for (int64_t k = 0; k < received; k++) {
                routed->rows[own + k] = pairs[2 * k];
                routed->cols[own + k] = pairs[2 * k + 1];
            }
            routed->count = own + received;
        } else {
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "assembly: cannot receive %lld entries",
                            (long long)received);
        }
        free(pairs);
    }
    free(counts);
    free(order);
    free(ij);
    free(v);
    kryl_dist_rows_release(rows);
    if (st != KRYL_SUCCESS) kryl_coo_free(routed);
    return st;
}
