/* Host CSR and COO: allocation, building from entries, sorting and summing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"
#include "core/error.h"
#include "core/huge_pages.h"

kryl_status kryl_csr_alloc(kryl_csr *A, int64_t nrows, int64_t ncols, int64_t nnz)
{
    memset(A, 0, sizeof *A);
    A->nrows = nrows;
    A->ncols = ncols;
    A->nrows_global = nrows;
    A->row_ptr = kryl_huge_calloc((size_t)nrows + 1, sizeof *A->row_ptr);
    A->col_idx = kryl_huge_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->col_idx);
    A->values = kryl_huge_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->values);
    if (A->row_ptr == NULL || A->col_idx == NULL || A->values == NULL) {
        kryl_csr_free(A);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "cannot allocate a CSR matrix of %lld rows and %lld entries (%lld "
                          "bytes)",
                          (long long)nrows, (long long)nnz, (long long)(8 * nrows + 12 * nnz + 8));
    }
    return KRYL_SUCCESS;
}

void kryl_csr_free(kryl_csr *A)
{
    if (A == NULL) return;
    free(A->row_ptr);
    free(A->col_idx);
    free(A->values);
    A->row_ptr = NULL;
    A->col_idx = NULL;
    A->values = NULL;
}

kryl_status kryl_csr_check_shape(int64_t nrows_global, int64_t ncols, int64_t row_begin,
                                 int64_t row_end)
{
    if (nrows_global < 0 || ncols < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "matrix size %lld x %lld is negative",
                          (long long)nrows_global, (long long)ncols);
    if (row_begin < 0 || row_end < row_begin || row_end > nrows_global)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "owned rows [%lld, %lld) are not a range inside [0, %lld)",
                          (long long)row_begin, (long long)row_end, (long long)nrows_global);
    if (ncols > INT32_MAX || row_end - row_begin > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%lld columns or %lld owned rows exceed the 32-bit index range "
                          "of one process (2^31 - 1); distribute the matrix over more ranks",
                          (long long)ncols, (long long)(row_end - row_begin));
    return KRYL_SUCCESS;
}

/* row_ptr starts at 0 and never decreases. */
static kryl_status check_row_ptr(const int64_t *row_ptr, int64_t nrows, int64_t row_begin)
{
    if (row_ptr[0] != 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "row_ptr[0] is %lld, expected 0",
                          (long long)row_ptr[0]);
    for (int64_t i = 0; i < nrows; i++)
        if (row_ptr[i + 1] < row_ptr[i])
            return KRYL_ERROR(
                KRYL_ERR_INVALID_ARGUMENT, "row_ptr decreases at row %lld (%lld then %lld)",
                (long long)(row_begin + i), (long long)row_ptr[i], (long long)row_ptr[i + 1]);
    return KRYL_SUCCESS;
}

kryl_status kryl_csr_from_sorted_arrays(kryl_csr *A, int64_t nrows, int64_t ncols, int64_t nnz,
                                        const int64_t *row_ptr, const int32_t *col_idx,
                                        const double *values)
{
    memset(A, 0, sizeof *A);
    KRYL_TRY(kryl_csr_check_shape(nrows, ncols, 0, nrows));
    KRYL_TRY(check_row_ptr(row_ptr, nrows, 0));
    if (row_ptr[nrows] != nnz)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "row_ptr[%lld] is %lld, expected nnz = %lld",
                          (long long)nrows, (long long)row_ptr[nrows], (long long)nnz);
    if (nnz > 0 && (col_idx == NULL || values == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%lld entries announced but col_idx or values is NULL", (long long)nnz);
    for (int64_t i = 0; i < nrows; i++) {
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            if (col_idx[k] < 0 || col_idx[k] >= ncols)
                return KRYL_ERROR(KRYL_ERR_INDEX_OUT_OF_RANGE,
                                  "column %d of row %lld is outside [0, %lld)", col_idx[k],
                                  (long long)i, (long long)ncols);
            if (k > row_ptr[i] && col_idx[k] <= col_idx[k - 1])
                return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                  "row %lld: column %d follows column %d; expected the columns "
                                  "of each row ascending, without repeats",
                                  (long long)i, col_idx[k], col_idx[k - 1]);
            if (!isfinite(values[k]))
                return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "row %lld has the value %g in column %d",
                                  (long long)i, values[k], col_idx[k]);
        }
    }
    KRYL_TRY(kryl_csr_alloc(A, nrows, ncols, nnz));
    memcpy(A->row_ptr, row_ptr, (size_t)(nrows + 1) * sizeof *row_ptr);
    memcpy(A->col_idx, col_idx, (size_t)nnz * sizeof *col_idx);
    memcpy(A->values, values, (size_t)nnz * sizeof *values);
    return KRYL_SUCCESS;
}

kryl_status kryl_csr_from_arrays(kryl_csr *A, int64_t nrows_global, int64_t ncols,
                                 int64_t row_begin, int64_t row_end, const int64_t *row_ptr,
                                 const int64_t *col_idx, const double *values)
{
    memset(A, 0, sizeof *A);
    KRYL_TRY(kryl_csr_check_shape(nrows_global, ncols, row_begin, row_end));
    int64_t nrows = row_end - row_begin;
    KRYL_TRY(check_row_ptr(row_ptr, nrows, row_begin));
    int64_t nnz = row_ptr[nrows];
    if (nnz > 0 && (col_idx == NULL || values == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%lld entries announced by row_ptr but col_idx or values is NULL",
                          (long long)nnz);
    for (int64_t i = 0; i < nrows; i++) {
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            if (col_idx[k] < 0 || col_idx[k] >= ncols)
                return KRYL_ERROR(
                    KRYL_ERR_INDEX_OUT_OF_RANGE, "column %lld of row %lld is outside [0, %lld)",
                    (long long)col_idx[k], (long long)(row_begin + i), (long long)ncols);
            if (values[k] - values[k] != 0.0)
                return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "entry (%lld, %lld) is %g",
                                  (long long)(row_begin + i), (long long)col_idx[k], values[k]);
        }
    }
    KRYL_TRY(kryl_csr_alloc(A, nrows, ncols, nnz));
    A->nrows_global = nrows_global;
    A->row_begin = row_begin;
    memcpy(A->row_ptr, row_ptr, (size_t)(nrows + 1) * sizeof *row_ptr);
    for (int64_t k = 0; k < nnz; k++) A->col_idx[k] = (int32_t)col_idx[k];
    memcpy(A->values, values, (size_t)nnz * sizeof *values);
    kryl_status st = kryl_csr_sort_and_sum(A);
    if (st != KRYL_SUCCESS) kryl_csr_free(A);
    return st;
}

kryl_status kryl_coo_reserve(kryl_coo *coo, int64_t capacity)
{
    if (capacity <= coo->capacity) return KRYL_SUCCESS;
    int64_t *rows = realloc(coo->rows, (size_t)capacity * sizeof *rows);
    if (rows) coo->rows = rows;
    int64_t *cols = realloc(coo->cols, (size_t)capacity * sizeof *cols);
    if (cols) coo->cols = cols;
    double *values = realloc(coo->values, (size_t)capacity * sizeof *values);
    if (values) coo->values = values;
    if (!rows || !cols || !values)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld matrix entries",
                          (long long)capacity);
    kryl_advise_huge_pages(coo->rows, (size_t)capacity * sizeof *rows);
    kryl_advise_huge_pages(coo->cols, (size_t)capacity * sizeof *cols);
    kryl_advise_huge_pages(coo->values, (size_t)capacity * sizeof *values);
    coo->capacity = capacity;
    return KRYL_SUCCESS;
}

kryl_status kryl_coo_push(kryl_coo *coo, int64_t row, int64_t col, double value)
{
    if (coo->count == coo->capacity)
        KRYL_TRY(kryl_coo_reserve(coo, coo->capacity < 16 ? 16 : 2 * coo->capacity));
    coo->rows[coo->count] = row;
    coo->cols[coo->count] = col;
    coo->values[coo->count++] = value;
    return KRYL_SUCCESS;
}

void kryl_coo_free(kryl_coo *coo)
{
    if (coo == NULL) return;
    free(coo->rows);
    free(coo->cols);
    free(coo->values);
    memset(coo, 0, sizeof *coo);
}

void kryl_csr_diagonal(const kryl_csr *A, double *diag)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t global = A->row_begin + i;
        diag[i] = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (A->col_idx[k] == global) diag[i] = A->values[k];
    }
}

int64_t kryl_csr_find(const kryl_csr *A, int64_t i, int64_t j)
{
    int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1] - 1;
    /* the first k in [lo, hi] with col_idx[k] == j, halving the range */
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->col_idx[mid] == j) return mid;
        if (A->col_idx[mid] < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

kryl_status kryl_csr_entry_map(const kryl_csr *A, const int64_t *row_ptr, const int64_t *col_idx,
                               int64_t **entry_of)
{
    *entry_of = NULL;
    const int64_t entries = row_ptr[A->nrows];
    bool ascending = true; /* every row's columns strictly ascending: nothing moved */
    for (int64_t i = 0; i < A->nrows && ascending; i++)
        for (int64_t k = row_ptr[i] + 1; k < row_ptr[i + 1] && ascending; k++)
            ascending = col_idx[k - 1] < col_idx[k];
    if (ascending) return KRYL_SUCCESS;
    int64_t *map = kryl_huge_malloc((size_t)(entries > 0 ? entries : 1) * sizeof *map);
    if (map == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the places of %lld entries",
                          (long long)entries);
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            map[k] = kryl_csr_find(A, i, col_idx[k]);
    *entry_of = map;
    return KRYL_SUCCESS;
}
