/* Symmetry of a distributed matrix, max |a_ij - a_ji| over all entries (a
 * missing partner counting as 0): an entry whose column the rank owns is
 * compared with its partner in place, on the host's threads; only an entry
 * a_ij whose column another rank owns travels, to the owner of row j as the
 * transposed entry (j, i, a_ij), which compares it with its own a_ji.  So
 * what crosses ranks is the halo's couplings, never the whole matrix (a
 * billion-row matrix's check moves megabytes, not its 7e9 entries). */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/host_threads.h"
#include "core/huge_pages.h"
#include "dist/dist_internal.h"

static bool owned(const kryl_csr *A, int64_t j)
{
    return j >= A->row_begin && j < A->row_begin + A->nrows;
}

/* max |a_ij - a_ji| over the entries whose column this rank owns */
static double local_asymmetry(const kryl_csr *A, int threads)
{
    double worst = 0.0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, worst)
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            if (!owned(A, A->col_idx[k])) continue;
            int64_t t = kryl_csr_find(A, A->col_idx[k] - A->row_begin, A->row_begin + i);
            double d = fabs(A->values[k] - (t < 0 ? 0.0 : A->values[t]));
            if (d > worst) worst = d;
        }
    return worst;
}

/* max |a_ij - a_ji| between the received transposed entries and the owned
 * ones of columns other ranks own, such an entry without a partner
 * compared with 0 (INFINITY when out of memory). */
static double compare(const kryl_csr *A, const int64_t *ij, const double *v, int64_t count)
{
    const int64_t nnz = kryl_csr_nnz(A);
    bool *matched = kryl_huge_calloc((size_t)(nnz > 0 ? nnz : 1), sizeof *matched);
    if (matched == NULL) return INFINITY;
    double worst = 0.0;
    for (int64_t k = 0; k < count; k++) {
        int64_t t = kryl_csr_find(A, ij[2 * k] - A->row_begin, ij[2 * k + 1]);
        worst = fmax(worst, fabs((t < 0 ? 0.0 : A->values[t]) - v[k]));
        if (t >= 0) matched[t] = true;
    }
    /* owned nonzeros of other ranks' columns whose partner is absent or zero: |a_ij - 0| */
    for (int64_t t = 0; t < nnz; t++)
        if (!matched[t] && !owned(A, A->col_idx[t])) worst = fmax(worst, fabs(A->values[t]));
    free(matched);
    return worst;
}

/* Whether n entries of two int64 each fit MPI's int counts. */
static bool countable(int64_t n) { return n <= INT_MAX / 2; }

kryl_status kryl_dist_asymmetry(struct kryl_dist_context *dc, const kryl_csr *A, int threads,
                                double *worst, double *max_abs)
{
    int size = dc->size;
    kryl_dist_rows *rows = NULL;
    KRYL_TRY(kryl_dist_rows_gather(dc, A->row_begin, A->nrows, A->nrows_global, &rows));
    int64_t nnz = kryl_csr_nnz(A), nz = 0;
    double local_max = 0.0;
    int64_t *sent = calloc((size_t)size, sizeof *sent);
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    int *send = counts, *recv = counts + size, *sdispl = counts + 2 * size,
        *rdispl = counts + 3 * size;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, local_max)
    for (int64_t k = 0; k < nnz; k++)
        if (fabs(A->values[k]) > local_max) local_max = fabs(A->values[k]);
    for (int64_t k = 0; sent && k < nnz; k++)
        if (A->values[k] != 0.0 && !owned(A, A->col_idx[k]))
            sent[kryl_dist_owner(rows->begin, size, A->col_idx[k])]++;
    kryl_status st = counts && sent
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "symmetry check: out of memory");
    for (int p = 0; st == KRYL_SUCCESS && p < size; p++) {
        nz += sent[p];
        if (!countable(nz))
            st = KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                            "symmetry check: %lld couplings to other ranks, more than MPI's "
                            "counts hold (%d)",
                            (long long)nz, INT_MAX / 2);
        else
            send[p] = (int)sent[p];
    }
    int64_t *ij_out = kryl_huge_malloc(2 * (size_t)(nz > 0 ? nz : 1) * sizeof *ij_out);
    double *v_out = kryl_huge_malloc((size_t)(nz > 0 ? nz : 1) * sizeof *v_out);
    if (st == KRYL_SUCCESS && (ij_out == NULL || v_out == NULL))
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "symmetry check: out of memory");
    st = kryl_dist_agree_comm(dc->comm, st);
    int64_t *ij_in = NULL;
    double *v_in = NULL;
    int64_t received = 0;
    if (st == KRYL_SUCCESS) {
        MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, dc->comm);
        for (int p = 0; p < size; p++) {
            sdispl[p] = p == 0 ? 0 : sdispl[p - 1] + send[p - 1];
            rdispl[p] = (int)received;
            received += recv[p];
        }
        /* (j, i, a_ij) grouped by the owner of row j */
        int *next = malloc((size_t)size * sizeof *next);
        ij_in = kryl_huge_malloc(2 * (size_t)(received > 0 ? received : 1) * sizeof *ij_in);
        v_in = kryl_huge_malloc((size_t)(received > 0 ? received : 1) * sizeof *v_in);
        st = next && ij_in && v_in && countable(received)
                 ? KRYL_SUCCESS
                 : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "symmetry check: out of memory");
        for (int p = 0; next && p < size; p++) next[p] = sdispl[p];
        for (int64_t i = 0; next && i < A->nrows; i++)
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                if (A->values[k] == 0.0 || owned(A, A->col_idx[k])) continue;
                int q = next[kryl_dist_owner(rows->begin, size, A->col_idx[k])]++;
                ij_out[2 * q] = A->col_idx[k];
                ij_out[2 * q + 1] = A->row_begin + i;
                v_out[q] = A->values[k];
            }
        free(next);
        st = kryl_dist_agree_comm(dc->comm, st);
    }
    if (st == KRYL_SUCCESS) {
        MPI_Alltoallv(v_out, send, sdispl, MPI_DOUBLE, v_in, recv, rdispl, MPI_DOUBLE, dc->comm);
        for (int p = 0; p < size; p++) {
            send[p] *= 2;
            sdispl[p] *= 2;
            recv[p] *= 2;
            rdispl[p] *= 2;
        }
        MPI_Alltoallv(ij_out, send, sdispl, MPI_INT64_T, ij_in, recv, rdispl, MPI_INT64_T,
                      dc->comm);
        double mine = fmax(local_asymmetry(A, threads), compare(A, ij_in, v_in, received));
        MPI_Allreduce(&mine, worst, 1, MPI_DOUBLE, MPI_MAX, dc->comm);
        MPI_Allreduce(&local_max, max_abs, 1, MPI_DOUBLE, MPI_MAX, dc->comm);
    }
    free(sent);
    free(counts);
    free(ij_out);
    free(v_out);
    free(ij_in);
    free(v_in);
    kryl_dist_rows_release(rows);
    return st;
}
