/* kryl_matrix_get_stats: structure, diagonal, symmetry and norms of a
 * matrix's owned rows, computed on the host CSR copy. */
#include <math.h>
#include <string.h>

#include "core/objects.h"

/* Whether column `col` is stored in the sorted row [begin, end) of A; its
 * value goes to *value (0 when absent). */
static bool row_find(const kryl_csr *A, int64_t begin, int64_t end, int64_t col, double *value)
{
    /* binary search for the first column >= col in the sorted, unique row */
    int64_t lo = begin, hi = end;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->col_idx[mid] < col)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool found = lo < end && A->col_idx[lo] == col;
    *value = found ? A->values[lo] : 0.0;
    return found;
}

/* Symmetry of the stored pattern and of the values: every a_ij whose
 * mirror row j is owned is compared with a_ji (an absent a_ji counts as 0
 * for the values); *worst = the largest |a_ij - a_ji|. */
static void symmetry(const kryl_csr *A, bool *pattern, bool *values, double *worst)
{
    *pattern = *values = A->nrows_global == A->ncols;
    *worst = *pattern ? 0.0 : INFINITY;
    for (int64_t i = 0; i < A->nrows && *worst < INFINITY; i++) {
        int64_t gi = A->row_begin + i;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            int64_t j = (int64_t)A->col_idx[k] - A->row_begin;
            if (j < 0 || j >= A->nrows) continue;
            double mirror;
            bool found = row_find(A, A->row_ptr[j], A->row_ptr[j + 1], gi, &mirror);
            if (!found) *pattern = false;
            if (mirror != A->values[k]) *values = false;
            *worst = fmax(*worst, fabs(mirror - A->values[k]));
        }
    }
}

/* Scaled sum of squares, as LAPACK's dnrm2/dlassq: ||.||_F = scale*sqrt(ssq)
 * without overflow or underflow in the squares. */
static void add_square(double a, double *scale, double *ssq)
{
    if (a == 0.0) return;
    if (*scale < a) {
        /* ssq = 1 + ssq * (scale/a)^2, rescaled to the new largest entry */
        *ssq = 1.0 + *ssq * (*scale / a) * (*scale / a);
        *scale = a;
    } else {
        /* ssq += (a/scale)^2 */
        *ssq += (a / *scale) * (a / *scale);
    }
}

/* Per-row facts: row lengths, diagonal, dominance, bandwidth, envelope. */
static void row_stats(const kryl_csr *A, kryl_matrix_stats *s)
{
    double scale = 0.0, ssq = 1.0;
    s->row_min = A->nrows > 0 ? INT64_MAX : 0;
    s->positive_diagonal = true;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t gi = A->row_begin + i;
        int64_t begin = A->row_ptr[i], end = A->row_ptr[i + 1], len = end - begin;
        if (len < s->row_min) s->row_min = len;
        if (len > s->row_max) s->row_max = len;
        if (len == 0) s->empty_rows++;
        /* envelope: sum_i (i - min_j j) over rows reaching left of the diagonal */
        if (len > 0 && A->col_idx[begin] < gi) s->profile_sum += gi - A->col_idx[begin];
        double diag = 0.0, off = 0.0;
        for (int64_t k = begin; k < end; k++) {
            int64_t j = A->col_idx[k];
            double a = fabs(A->values[k]);
            int64_t dist = j > gi ? j - gi : gi - j;
            if (dist > s->bandwidth) s->bandwidth = dist;
            if (a > s->max_abs) s->max_abs = a;
            add_square(a, &scale, &ssq);
            /* off = sum_{j != i} |a_ij| */
            if (j == gi)
                diag = A->values[k];
            else
                off += a;
        }
        if (diag == 0.0) s->zero_diagonals++;
        if (!(diag > 0.0)) s->positive_diagonal = false;
        if (fabs(diag) >= off) s->dominant_rows++;
        if (fabs(diag) > off) s->strictly_dominant_rows++;
    }
    s->frobenius_norm = scale * sqrt(ssq);
}

/* Mean and standard deviation (population) of the row lengths. */
static void row_moments(const kryl_csr *A, kryl_matrix_stats *s)
{
    if (A->nrows == 0) return;
    s->row_mean = (double)s->nnz / (double)A->nrows;
    double var = 0.0;
    /* var = sum_i (len_i - mean)^2 / n */
    for (int64_t i = 0; i < A->nrows; i++) {
        double d = (double)(A->row_ptr[i + 1] - A->row_ptr[i]) - s->row_mean;
        var += d * d;
    }
    s->row_stddev = sqrt(var / (double)A->nrows);
}

/* Minimum traffic of one CSR SpMV: every value, column index and row
 * offset once, x and y once. */
static void spmv_bytes(kryl_matrix_stats *s)
{
    int64_t offset_size = s->nnz < ((int64_t)1 << 31) ? 4 : 8;
    int64_t structure = 4 * s->nnz + offset_size * (s->nrows + 1);
    s->spmv_bytes_double = structure + 8 * s->nnz + 8 * (s->ncols + s->nrows);
    s->spmv_bytes_single = structure + 4 * s->nnz + 4 * (s->ncols + s->nrows);
}

kryl_status kryl_matrix_get_stats(kryl_matrix A, kryl_matrix_stats *stats)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(stats);
    if (A->host == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_get_stats: the matrix has no host copy");
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_get_stats"));
    const kryl_csr *csr = &A->host->csr;
    kryl_matrix_stats s;
    memset(&s, 0, sizeof s);
    s.nrows = csr->nrows;
    s.ncols = csr->ncols;
    s.nnz = kryl_csr_nnz(csr);
    row_stats(csr, &s);
    row_moments(csr, &s);
    double worst;
    symmetry(csr, &s.symmetric_pattern, &s.symmetric, &worst);
    s.asymmetry = worst == 0.0 ? 0.0 : worst / s.max_abs;
    spmv_bytes(&s);
    *stats = s;
    return KRYL_SUCCESS;
}
