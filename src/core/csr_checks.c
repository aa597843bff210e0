/* The checks a method makes of a host CSR matrix: its asymmetry, its
 * pattern's, its diagonal and its rows' absolute sums (the host side of
 * the backends' csr_asymmetry, csr_unmirrored, csr_diagonal and
 * csr_row_sums, and of a matrix without backend storage to check). */
#include <math.h>

#include "core/csr.h"
#include "core/host_threads.h"

void kryl_csr_asymmetry(const kryl_csr *A, int threads, double *worst, double *largest)
{
    const int64_t nnz = kryl_csr_nnz(A);
    double big = 0.0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, big)
    for (int64_t k = 0; k < nnz; k++)
        if (fabs(A->values[k]) > big) big = fabs(A->values[k]);
    *largest = big;
    if (A->nrows != A->nrows_global || A->nrows != A->ncols) {
        *worst = INFINITY;
        return;
    }
    double w = 0.0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, w)
    for (int64_t i = 0; i < A->nrows; i++) {
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            /* |a_ij - a_ji|, a_ji found by a binary search of row j */
            int64_t t = kryl_csr_find(A, A->col_idx[k], i);
            double aji = t < 0 ? 0.0 : A->values[t];
            double d = fabs(A->values[k] - aji);
            if (d > w) w = d;
        }
    }
    *worst = w;
}

int64_t kryl_csr_first_unmirrored(const kryl_csr *A, int threads)
{
    int64_t first = A->nrows;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, first)
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            /* a_ji found by a binary search of row j */
            if (A->col_idx[k] != i && kryl_csr_find(A, A->col_idx[k], i) < 0 && i < first)
                first = i;
    return first < A->nrows ? first : -1;
}

/* a_ii of local row i (0 where absent) */
static double diagonal_entry(const kryl_csr *A, int64_t i)
{
    int64_t k = kryl_csr_find(A, i, A->row_begin + i);
    return k < 0 ? 0.0 : A->values[k];
}

void kryl_csr_check_diagonal(const kryl_csr *A, int threads, double *d, bool invert,
                             kryl_diagonal_check *out)
{
    const int64_t n = A->nrows;
    int64_t nonpositive = n;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, nonpositive)
    for (int64_t i = 0; i < n; i++) {
        double aii = diagonal_entry(A, i);
        if (d) d[i] = invert ? 1.0 / aii : aii;
        if (!(aii > 0.0) && i < nonpositive) nonpositive = i;
    }
    /* a zero pivot is a nonpositive one: searched for only past the first of those */
    int64_t zero = n;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, zero)
    for (int64_t i = nonpositive; i < n; i++)
        if (diagonal_entry(A, i) == 0.0 && i < zero) zero = i;
    out->first_zero = zero;
    out->first_nonpositive = nonpositive;
    out->value = nonpositive < n ? diagonal_entry(A, nonpositive) : 0.0;
}

int64_t kryl_csr_abs_row_sums(const kryl_csr *A, int threads, kryl_row_sums what, double *d)
{
    const int64_t n = A->nrows;
    int64_t zero = n;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, zero)
    for (int64_t i = 0; i < n; i++) {
        double sum = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += fabs(A->values[k]);
        if (sum == 0.0 && i < zero) zero = i;
        if (what == KRYL_ROW_SUMS_INVERSE) {
            d[i] = sum == 0.0 ? 0.0 : 1.0 / sum;
        } else {
            const double aii = fabs(diagonal_entry(A, i));
            d[i] = aii == 0.0 ? 0.0 : sum / aii;
        }
    }
    return zero < n ? zero : -1;
}
