/* Symmetry of a distributed matrix: every nonzero a_ij travels to the
 * owner of row j as the transposed entry (j, i, a_ij); the owner compares
 * it with its own a_ji, a missing partner counting as 0: the result is
 * max |a_ij - a_ji| over all entries. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "dist/dist_internal.h"

/* max |a_ij - a_ji| between the received transposed entries and the owned
 * ones, an entry without a partner compared with 0 (INFINITY when out of
 * memory). */
static double compare(const kryl_csr *A, const int64_t *ij, const double *v, int64_t count)
{
    const int64_t nnz = kryl_csr_nnz(A);
    bool *matched = calloc((size_t)(nnz > 0 ? nnz : 1), sizeof *matched);
    if (matched == NULL) return INFINITY;
    double worst = 0.0;
    for (int64_t k = 0; k < count; k++) {
        int64_t t = kryl_csr_find(A, ij[2 * k] - A->row_begin, ij[2 * k + 1]);
        worst = fmax(worst, fabs((t < 0 ? 0.0 : A->values[t]) - v[k]));
        if (t >= 0) matched[t] = true;
    }
    /* owned nonzeros whose partner is absent or zero: |a_ij - 0| */
    for (int64_t t = 0; t < nnz; t++)
        if (!matched[t]) worst = fmax(worst, fabs(A->values[t]));
    free(matched);
    return worst;
}

kryl_status kryl_dist_asymmetry(struct kryl_dist_context *dc, const kryl_csr *A, double *worst,
                                double *max_abs)
{
    int size = dc->size;
    kryl_dist_rows *rows = NULL;
    KRYL_TRY(kryl_dist_rows_gather(dc, A->row_begin, A->nrows, A->nrows_global, &rows));
    int64_t nnz = kryl_csr_nnz(A), nz = 0;
    double local_max = 0.0;
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    int *send = counts, *recv = counts + size, *sdispl = counts + 2 * size,
        *rdispl = counts + 3 * size;
    for (int64_t k = 0; counts && k < nnz; k++) {
        local_max = fmax(local_max, fabs(A->values[k]));
        if (A->values[k] != 0.0) send[kryl_dist_owner(rows->begin, size, A->col_idx[k])]++;
    }
    for (int p = 0; counts && p < size; p++) nz += send[p];
    int64_t *ij_out = malloc(2 * (size_t)(nz > 0 ? nz : 1) * sizeof *ij_out);
    double *v_out = malloc((size_t)(nz > 0 ? nz : 1) * sizeof *v_out);
    kryl_status st = counts && ij_out && v_out
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "symmetry check: out of memory");
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
        ij_in = malloc(2 * (size_t)(received > 0 ? received : 1) * sizeof *ij_in);
        v_in = malloc((size_t)(received > 0 ? received : 1) * sizeof *v_in);
        st = next && ij_in && v_in
                 ? KRYL_SUCCESS
                 : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "symmetry check: out of memory");
        for (int p = 0; next && p < size; p++) next[p] = sdispl[p];
        for (int64_t i = 0; next && i < A->nrows; i++)
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                if (A->values[k] == 0.0) continue;
                int q = next[kryl_dist_owner(rows->begin, size, A->col_idx[k])]++;
                ij_out[2 * q] = A->col_idx[k];
                ij_out[2 * q + 1] = A->row_begin + i;
                v_out[q] = A->values[k];
            }
        free(next);
        st = kryl_dist_agree_comm(dc->comm, st);
    }
    double mine = INFINITY;
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
        mine = compare(A, ij_in, v_in, received);
        MPI_Allreduce(&mine, worst, 1, MPI_DOUBLE, MPI_MAX, dc->comm);
        MPI_Allreduce(&local_max, max_abs, 1, MPI_DOUBLE, MPI_MAX, dc->comm);
    }
    free(counts);
    free(ij_out);
    free(v_out);
    free(ij_in);
    free(v_in);
    kryl_dist_rows_release(rows);
    return st;
}
