/* The omp backend's CSR matrices: row blocks balanced by nonzeros, and the
 * compressed CSR of kryl_omp_matrix (see omp_backend.h).  Release serves
 * every format. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backends/omp/omp_backend.h"

/* Row boundaries part[0..nparts] giving every block about the same cost,
 * counting a row as its entries plus one: a few very long rows (power-law
 * matrices) then do not leave one thread with most of the work.
 * part[b] is the first row i with row_ptr[i] + i >= b * total / nparts. */
static void balance_rows(const int64_t *row_ptr, int64_t nrows, int nparts, int64_t *part)
{
    const double total = (double)(row_ptr[nrows] + nrows);
    part[0] = 0;
    for (int b = 1; b < nparts; b++) {
        int64_t target = (int64_t)(total * b / nparts);
        int64_t lo = part[b - 1], hi = nrows;
        /* binary search on the nondecreasing cost row_ptr[i] + i */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (row_ptr[mid] + mid < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        part[b] = lo;
    }
    part[nparts] = nrows;
}

static void free_storage(kryl_omp_matrix *M)
{
    if (M == NULL) return;
    free(M->values_single);
    free(M->col_offset);
    free(M->part);
    free(M);
}

kryl_status kryl_omp_keep_floats(kryl_omp_matrix *M, bool single, int64_t inexact, int64_t overflow)
{
    if (single && overflow > 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "omp backend: %lld matrix values exceed the single-precision range "
                          "(|a| > 3.4e38); use double precision",
                          (long long)overflow);
    /* a double matrix keeps its floats only when every value is exact */
    if (!single && inexact > 0) {
        free(M->values_single);
        M->values_single = NULL;
    }
    return KRYL_SUCCESS;
}

void *kryl_omp_aligned_array(int64_t count, size_t size)
{
    return aligned_alloc(64, ((size_t)count * size + 63) / 64 * 64);
}

/* Float values and 16-bit column offsets, built in one pass by the threads
 * that will multiply them (first touch); then only what loses nothing is
 * kept (see kryl_omp_matrix).  Single matrices must keep their floats:
 * a value beyond the float range fails. */
static kryl_status compress(int nt, kryl_omp_matrix *M, const double *values, bool single)
{
    const int64_t nnz = M->row_ptr[M->nrows];
    if (nnz == 0) return KRYL_SUCCESS;
    float *vs = M->values_single = kryl_omp_aligned_array(nnz, sizeof(float));
    int16_t *offset = M->col_offset = kryl_omp_aligned_array(nnz, sizeof(int16_t));
    if (vs == NULL && single)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "omp backend: cannot allocate %lld bytes of single-precision values",
                          (long long)nnz * (long long)sizeof(float));
    int64_t inexact = 0, overflow = 0, far = 0;
#pragma omp parallel num_threads(nt) reduction(+ : inexact, overflow, far)                         \
    if (nnz >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        for (int b = t; b < M->nparts; b += team)
            for (int64_t i = M->part[b]; i < M->part[b + 1]; i++)
                for (int64_t k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
                    /* v_k = (float) a_k;  offset_k = column_k - i */
                    if (vs != NULL) {
                        vs[k] = (float)values[k];
                        inexact += (double)vs[k] != values[k];
                        overflow += !isfinite(vs[k]);
                    }
                    int64_t d = (int64_t)M->col_idx[k] - i;
                    bool fits = d >= INT16_MIN && d <= INT16_MAX;
                    far += !fits;
                    if (offset != NULL) offset[k] = fits ? (int16_t)d : 0;
                }
    }
    KRYL_TRY(kryl_omp_keep_floats(M, single, inexact, overflow));
    /* offsets only with float values: with 8-byte values they measured
     * slower than 32-bit columns */
    if (far > 0 || M->values_single == NULL) {
        free(M->col_offset);
        M->col_offset = NULL;
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(A->host);
    kryl_omp_team_refresh(kryl_omp_state_of(ctx));
    /* The CSR format is used as it is, in whatever row order the layout
     * has; every other format has storage of its own (omp_matrix_fmt.c). */
    const kryl_fmt *f = &A->fmt;
    if (f->kind != KRYL_FORMAT_CSR) return kryl_omp_fmt_setup(ctx, A);
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_matrix *M = calloc(1, sizeof *M);
    if (M == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp backend: cannot allocate %zu bytes",
                          sizeof *M);
    M->nrows = f->nrows;
    M->ncols = f->ncols;
    M->row_ptr = f->u.csr.row_ptr;
    M->col_idx = f->u.csr.col;
    M->values_double = f->u.csr.val;
    M->nparts = s->max_threads;
    size_t part_bytes = ((size_t)M->nparts + 1) * sizeof *M->part;
    M->part = malloc(part_bytes);
    if (M->part == NULL) {
        free_storage(M);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp backend: cannot allocate %zu bytes",
                          part_bytes);
    }
    balance_rows(M->row_ptr, M->nrows, M->nparts, M->part);
    kryl_status st = compress(s->threads, M, M->values_double, A->precision == KRYL_SINGLE);
    if (st != KRYL_SUCCESS) {
        free_storage(M);
        return st;
    }
    A->storage = M;
    return KRYL_SUCCESS;
}

void kryl_omp_matrix_release(kryl_context ctx, kryl_matrix A)
{
    if (A == NULL) return;
    free_storage(A->storage);
    A->storage = NULL;
}
