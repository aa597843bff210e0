/* A distributed greedy coloring of the global graph of a distributed
 * matrix (rows i != j coupled when a_ij or a_ji is stored, on any ranks),
 * by the speculative framework of Bozdag, Gebremedhin, Manne, Boman and
 * Catalyurek, "A framework for scalable greedy coloring on
 * distributed-memory parallel computers", J. Parallel Distrib. Comput. 68
 * (2008) 515-535 (Algorithm 1, one superstep per round):
 *   round 1: each rank colors all its rows first fit in natural order,
 *            seeing no colors of other ranks, so its interior rows (no
 *            coupling to another rank) are colored for good, as by a
 *            sequential greedy coloring;
 *   each round then exchanges the colors of the boundary rows with the
 *            neighbouring ranks (a halo exchange of colors only); a row
 *            colored in that round whose color a coupled row of another
 *            rank also has is in conflict, and the one of the two with
 *            the lower priority (a hash of the global index, which both
 *            ranks compute alike) is colored again, first fit against
 *            every coupled row's current color, in the next round.
 * A conflict needs two rows colored in the same round, and the row of
 * highest priority among those never loses, so the rounds end; every
 * choice sees all colors fixed before it, so the result is proper, and it
 * is deterministic for a given partition.  No rank holds more than its own
 * rows: the couplings across ranks are made symmetric once (each rank
 * tells the owner of each ghost which of its rows couple to it), and
 * kryl_halo_build gives the halo of that symmetric graph, through which
 * the colors travel. */
#include <stdlib.h>

#include "dist/dist_internal.h"
#include "order/color_priority.h"

/* The entries (i, j) of A's owned rows with j owned by another rank, as
 * global pairs grouped by that rank (counts[p] pairs for rank p). */
static kryl_status remote_pairs(const kryl_csr *A, const int64_t *begin, int size, int *counts,
                                int *displs, int32_t **pairs)
{
    int64_t lo = A->row_begin, hi = lo + A->nrows, total = 0;
    for (int p = 0; p < size; p++) counts[p] = 0;
    for (int64_t k = 0; k < kryl_csr_nnz(A); k++)
        if (A->col_idx[k] < lo || A->col_idx[k] >= hi)
            counts[kryl_dist_owner(begin, size, A->col_idx[k])] += 2;
    for (int p = 0; p < size; p++) {
        displs[p] = (int)total;
        total += counts[p];
    }
    *pairs = malloc((size_t)(total > 0 ? total : 1) * sizeof **pairs);
    if (*pairs == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld couplings",
                          (long long)(total / 2));
    int *at = malloc((size_t)size * sizeof *at);
    if (at == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: out of memory");
    for (int p = 0; p < size; p++) at[p] = displs[p];
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            if (j >= lo && j < hi) continue;
            /* the pair (i, j) goes to j's owner */
            int p = kryl_dist_owner(begin, size, j);
            (*pairs)[at[p]++] = (int32_t)(lo + i);
            (*pairs)[at[p]++] = j;
        }
    free(at);
    return KRYL_SUCCESS;
}

/* S = the pattern of A's owned rows without the diagonal, made symmetric:
 * row i holds j for each stored a_ij and each stored a_ji, the a_ji of
 * other ranks' rows sent by them (`in`: nin global pairs (j, i)). */
static kryl_status symmetric_graph(const kryl_csr *A, const int32_t *in, int64_t nin, kryl_csr *S)
{
    int64_t n = A->nrows, lo = A->row_begin, hi = lo + n, nnz = kryl_csr_nnz(A);
    KRYL_TRY(kryl_csr_alloc(S, n, A->ncols, 2 * nnz + nin));
    S->row_begin = lo;
    S->nrows_global = A->nrows_global;
    /* row_ptr[i + 1] = entries of row i: a_ij, a_ji of owned j, received a_ji */
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            if (j == lo + i) continue;
            S->row_ptr[i + 1]++;
            if (j >= lo && j < hi) S->row_ptr[j - lo + 1]++;
        }
    for (int64_t k = 0; k < nin; k++) S->row_ptr[in[2 * k + 1] - lo + 1]++;
    for (int64_t i = 0; i < n; i++) S->row_ptr[i + 1] += S->row_ptr[i];
    int64_t *at = malloc((size_t)(n > 0 ? n : 1) * sizeof *at);
    if (at == NULL) {
        kryl_csr_free(S);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld rows",
                          (long long)n);
    }
    for (int64_t i = 0; i < n; i++) at[i] = S->row_ptr[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int32_t j = A->col_idx[k];
            if (j == lo + i) continue;
            /* s_ij, and s_ji when j is owned */
            S->col_idx[at[i]] = j;
            S->values[at[i]++] = 1.0;
            if (j < lo || j >= hi) continue;
            S->col_idx[at[j - lo]] = (int32_t)(lo + i);
            S->values[at[j - lo]++] = 1.0;
        }
    for (int64_t k = 0; k < nin; k++) {
        /* s_ij for a_ji of row j on another rank */
        int64_t i = in[2 * k + 1] - lo;
        S->col_idx[at[i]] = in[2 * k];
        S->values[at[i]++] = 1.0;
    }
    free(at);
    return kryl_csr_sort_and_sum(S);
}

/* The symmetric graph S of A over the ranks (collective). */
static kryl_status global_graph(struct kryl_dist_context *dc, const kryl_csr *A,
                                const int64_t *begin, kryl_csr *S)
{
    int size = dc->size;
    int *counts = malloc(4 * (size_t)size * sizeof *counts);
    int32_t *out = NULL, *in = NULL;
    kryl_status st =
        counts ? KRYL_SUCCESS : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: out of memory");
    int *sdispl = counts + size, *rcounts = counts + 2 * size, *rdispl = counts + 3 * size;
    if (st == KRYL_SUCCESS) st = remote_pairs(A, begin, size, counts, sdispl, &out);
    st = kryl_dist_agree_comm(dc->comm, st);
    int64_t total = 0;
    if (st == KRYL_SUCCESS) {
        /* rank p learns which of our rows couple to its rows */
        MPI_Alltoall(counts, 1, MPI_INT, rcounts, 1, MPI_INT, dc->comm);
        for (int p = 0; p < size; p++) {
            rdispl[p] = (int)total;
            total += rcounts[p];
        }
        in = malloc((size_t)(total > 0 ? total : 1) * sizeof *in);
        if (in == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld couplings",
                            (long long)(total / 2));
        st = kryl_dist_agree_comm(dc->comm, st);
    }
    if (st == KRYL_SUCCESS)
        st = kryl_mpi_status(MPI_Alltoallv(out, counts, sdispl, MPI_INT32_T, in, rcounts, rdispl,
                                           MPI_INT32_T, dc->comm),
                             "the exchange of couplings between ranks");
    if (st == KRYL_SUCCESS) st = symmetric_graph(A, in, total / 2, S);
    free(counts);
    free(out);
    free(in);
    return kryl_dist_agree_comm(dc->comm, st);
}

/* The smallest color that no neighbour of row i has: its owned neighbours
 * (loc) and ghost ones (nl, colors in ghost; -1: none yet).  mark[0..deg]
 * is workspace: mark[c] = *stamp when a neighbour has color c, *stamp
 * advancing once per call. */
static int32_t first_fit(const kryl_csr *loc, const kryl_csr *nl, const int32_t *color,
                         const int32_t *ghost, int64_t *mark, int64_t *stamp, int64_t i)
{
    int64_t deg = loc->row_ptr[i + 1] - loc->row_ptr[i] + nl->row_ptr[i + 1] - nl->row_ptr[i];
    int64_t now = ++*stamp;
    for (int64_t k = loc->row_ptr[i]; k < loc->row_ptr[i + 1]; k++) {
        int32_t c = color[loc->col_idx[k]];
        if (c >= 0 && c <= deg) mark[c] = now;
    }
    for (int64_t k = nl->row_ptr[i]; k < nl->row_ptr[i + 1]; k++) {
        int32_t c = ghost[nl->col_idx[k]];
        if (c >= 0 && c <= deg) mark[c] = now;
    }
    int32_t c = 0;
    while (mark[c] == now) c++;
    return c;
}

/* The rounds on the symmetric graph's parts loc (owned columns; row i is
 * global row lo + i) and nl (ghost columns, gidx their global indices)
 * with halo h. */
static kryl_status color_rounds(struct kryl_dist_context *dc, int64_t lo, const kryl_csr *loc,
                                const kryl_csr *nl, const kryl_halo *h, const int32_t *gidx,
                                int32_t *color, int32_t *ghost, int *rounds)
{
    int64_t n = loc->nrows, maxdeg = 0, stamp = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t deg = loc->row_ptr[i + 1] - loc->row_ptr[i] + nl->row_ptr[i + 1] - nl->row_ptr[i];
        maxdeg = deg > maxdeg ? deg : maxdeg;
    }
    int64_t *mark = malloc((size_t)(maxdeg + 1) * sizeof *mark);
    unsigned char *redo = malloc((size_t)(n > 0 ? n : 1));
    kryl_status st = mark && redo ? KRYL_SUCCESS
                                  : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                               "coloring: cannot allocate %lld rows", (long long)n);
    st = kryl_dist_agree_comm(dc->comm, st);
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++) {
        redo[i] = 1;
        color[i] = -1;
    }
    for (int64_t c = 0; st == KRYL_SUCCESS && c <= maxdeg; c++) mark[c] = 0;
    for (int64_t k = 0; k < h->nghost; k++) ghost[k] = -1;
    *rounds = 0;
    while (st == KRYL_SUCCESS) {
        ++*rounds;
        /* first fit for the rows to color, in natural order */
        for (int64_t i = 0; i < n; i++)
            if (redo[i]) color[i] = first_fit(loc, nl, color, ghost, mark, &stamp, i);
        st = kryl_halo_exchange_int32(dc, h, color, ghost);
        if (st != KRYL_SUCCESS) break;
        /* redo_i: i was colored now and a ghost of higher priority has its color */
        int64_t conflicts = 0, total = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!redo[i]) continue;
            redo[i] = 0;
            for (int64_t k = nl->row_ptr[i]; k < nl->row_ptr[i + 1] && !redo[i]; k++) {
                int32_t g = nl->col_idx[k];
                redo[i] = ghost[g] == color[i] && kryl_color_yields(lo + i, gidx[g]);
            }
            conflicts += redo[i];
        }
        st = kryl_mpi_status(MPI_Allreduce(&conflicts, &total, 1, MPI_INT64_T, MPI_SUM, dc->comm),
                             "the count of coloring conflicts");
        if (total == 0) break;
    }
    free(mark);
    free(redo);
    return st;
}

kryl_status kryl_dist_color(struct kryl_dist_context *dc, const kryl_csr *A, const int64_t *begin,
                            kryl_dist_coloring *c)
{
    *c = (kryl_dist_coloring){0};
    int64_t n = A->nrows;
    kryl_csr S = {0}, loc = {0}, nl = {0};
    kryl_halo *h = NULL;
    int32_t *ghost = NULL, *gidx = NULL, *rows = NULL;
    kryl_status st = global_graph(dc, A, begin, &S);
    if (st == KRYL_SUCCESS) st = kryl_halo_build(dc, &S, begin, &h, &loc, &nl);
    if (st == KRYL_SUCCESS) {
        size_t g = (size_t)(h->nghost > 0 ? h->nghost : 1), m = (size_t)(n > 0 ? n : 1);
        c->color = malloc(m * sizeof *c->color);
        rows = malloc(m * sizeof *rows);
        ghost = malloc(g * sizeof *ghost);
        gidx = malloc(g * sizeof *gidx);
        if (!c->color || !rows || !ghost || !gidx)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld rows",
                            (long long)n);
        /* rows[i] = global index of owned row i */
        for (int64_t i = 0; rows && i < n; i++) rows[i] = (int32_t)(A->row_begin + i);
        st = kryl_dist_agree_comm(dc->comm, st);
    }
    /* gidx = the ghosts' global indices */
    if (st == KRYL_SUCCESS) st = kryl_halo_exchange_int32(dc, h, rows, gidx);
    if (st == KRYL_SUCCESS)
        st = color_rounds(dc, A->row_begin, &loc, &nl, h, gidx, c->color, ghost, &c->rounds);
    int32_t mine = 0;
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++)
        mine = c->color[i] + 1 > mine ? c->color[i] + 1 : mine;
    if (st == KRYL_SUCCESS)
        st = kryl_mpi_status(MPI_Allreduce(&mine, &c->ncolors, 1, MPI_INT32_T, MPI_MAX, dc->comm),
                             "the count of colors");
    kryl_csr_free(&S);
    kryl_csr_free(&loc);
    kryl_csr_free(&nl);
    kryl_halo_release(h);
    free(ghost);
    free(gidx);
    free(rows);
    if (st != KRYL_SUCCESS) kryl_dist_coloring_free(c);
    return st;
}

void kryl_dist_coloring_free(kryl_dist_coloring *c)
{
    if (c == NULL) return;
    free(c->color);
    c->color = NULL;
}
