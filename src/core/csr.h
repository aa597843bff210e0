/* Host-side compressed sparse row storage: the form every matrix is built
 * in and every backend format is converted from. */
#ifndef KRYL_CORE_CSR_H
#define KRYL_CORE_CSR_H

#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows [row_begin, row_begin + nrows) of a global nrows_global x ncols
 * matrix.  Columns are 0-based global indices as int32 (a single process
 * or a rank's local numbering); offsets are 64-bit; within a row columns
 * are sorted and unique. */
typedef struct kryl_csr {
    int64_t nrows; /* owned rows */
    int64_t ncols; /* global columns */
    int64_t nrows_global;
    int64_t row_begin;
    int64_t *row_ptr; /* nrows + 1 */
    int32_t *col_idx; /* row_ptr[nrows] */
    double *values;   /* row_ptr[nrows] */
} kryl_csr;

/* Coordinate entries: the form of a Matrix Market file and of assembly. */
typedef struct kryl_coo {
    int64_t nrows, ncols;
    int64_t count;        /* entries in use */
    int64_t capacity;     /* entries allocated */
    int64_t *rows, *cols; /* 0-based global */
    double *values;
} kryl_coo;

static inline int64_t kryl_csr_nnz(const kryl_csr *A) { return A->row_ptr[A->nrows]; }

/* Allocate arrays for nrows rows and nnz entries (row_ptr zeroed). */
kryl_status kryl_csr_alloc(kryl_csr *A, int64_t nrows, int64_t ncols, int64_t nnz);
void kryl_csr_free(kryl_csr *A);

/* Sort the n entries of one row by column (repeats of a column by value),
 * values alongside (csr_build.c). */
void kryl_csr_sort_row(int32_t *col, double *val, int64_t n);

/* Sort each row by column and sum duplicates (in ascending order of value:
 * the sum does not depend on the entries' order), in place (shrinks nnz),
 * on `threads` host threads (the same result whatever the count).
 * Duplicates whose sum overflows to +-Inf (or gives NaN) are refused with
 * KRYL_ERR_INVALID_VALUE naming the first such entry; A is then partly
 * sorted and summed. */
kryl_status kryl_csr_sort_and_sum_on(kryl_csr *A, int threads);

/* kryl_csr_sort_and_sum_on on one thread. */
kryl_status kryl_csr_sort_and_sum(kryl_csr *A);

/* a[i] = a[0] + ... + a[i] on `threads` host threads. */
void kryl_prefix_sum(int64_t *a, int64_t n, int threads);

/* The entry (global row, column, 0-based) whose duplicates overflowed in
 * this thread's last kryl_csr_sort_and_sum; false when none did. */
bool kryl_csr_overflow(int64_t *row, int64_t *col);

/* Position of column j in the sorted local row i of A (binary search), or -1. */
int64_t kryl_csr_find(const kryl_csr *A, int64_t i, int64_t j);

/* KRYL_ERR_INVALID_ARGUMENT unless the shape is valid, KRYL_ERR_INDEX_OVERFLOW
 * where the columns or owned rows exceed 32-bit indices. */
kryl_status kryl_csr_check_shape(int64_t nrows_global, int64_t ncols, int64_t row_begin,
                                 int64_t row_end);

/* Build CSR of rows [row_begin, row_end) from COO entries (any order,
 * duplicates summed) on `threads` host threads, the same matrix whatever
 * the count and the entries' order (csr_build.c).  Entries outside the
 * row range or the columns are rejected with KRYL_ERR_INDEX_OUT_OF_RANGE
 * naming the first of them.  Besides A and the entries it allocates one
 * counter a row. */
kryl_status kryl_csr_from_coo_on(kryl_csr *A, const kryl_coo *coo, int64_t nrows_global,
                                 int64_t row_begin, int64_t row_end, int threads);

/* The first step of kryl_csr_from_coo_on: the entries placed by row, each
 * row in any order, duplicates kept (kryl_csr_sort_and_sum_on follows).
 * Where the entries come row by row, A takes coo's values array over (no
 * copy; coo->values is NULL then, coo is still to be freed). */
kryl_status kryl_csr_rows_from_coo(kryl_csr *A, kryl_coo *coo, int64_t nrows_global,
                                   int64_t row_begin, int64_t row_end, int threads);

/* kryl_csr_from_coo_on on one thread. */
kryl_status kryl_csr_from_coo(kryl_csr *A, const kryl_coo *coo, int64_t nrows_global,
                              int64_t row_begin, int64_t row_end);

/* Build CSR of all nrows rows from arrays already in its layout (64-bit
 * offsets, 32-bit columns ascending without repeats in each row, finite
 * values), checked and copied. */
kryl_status kryl_csr_from_sorted_arrays(kryl_csr *A, int64_t nrows, int64_t ncols, int64_t nnz,
                                        const int64_t *row_ptr, const int32_t *col_idx,
                                        const double *values);

/* Build CSR from 64-bit CSR arrays (the public creation call). */
kryl_status kryl_csr_from_arrays(kryl_csr *A, int64_t nrows_global, int64_t ncols,
                                 int64_t row_begin, int64_t row_end, const int64_t *row_ptr,
                                 const int64_t *col_idx, const double *values);

kryl_status kryl_coo_reserve(kryl_coo *coo, int64_t capacity);
kryl_status kryl_coo_push(kryl_coo *coo, int64_t row, int64_t col, double value);
void kryl_coo_free(kryl_coo *coo);

/* T = A' of a whole matrix (row_begin 0), columns sorted (csr_product.c),
 * on `threads` host threads: the same T whatever the count. */
kryl_status kryl_csr_transpose_on(const kryl_csr *A, kryl_csr *T, int threads);

/* kryl_csr_transpose_on on one thread. */
kryl_status kryl_csr_transpose(const kryl_csr *A, kryl_csr *T);

/* A's entries split by column, on `threads` host threads: *in those in
 * [lo, hi), their columns less lo (A's rows, hi - lo columns); *out (where
 * not NULL) the others, their columns as in A (A's rows and columns). */
kryl_status kryl_csr_split_columns(const kryl_csr *A, int64_t lo, int64_t hi, int threads,
                                   kryl_csr *in, kryl_csr *out);

/* Whether A and B have the same rows and pattern (not values). */
bool kryl_csr_same_pattern(const kryl_csr *A, const kryl_csr *B);

/* a_k = (a_k + b_k) / 2 for each entry k of A, on `threads` host threads:
 * with b the values of A' (of A's pattern) or the mirrors of
 * kryl_csr_mirror_values the result is symmetric to the last bit (a + b ==
 * b + a). */
void kryl_csr_average(kryl_csr *A, const double *b, int threads);

/* mirror[k] = a_ji for each entry k = a_ij of the rows [lo, lo + nrows) of
 * a matrix (lo = A->row_begin; columns global, rows sorted), on `threads`
 * host threads: from A's own row j where it holds it, else from far's row
 * i (A's rows' mirrors held elsewhere, columns global, rows sorted; NULL
 * where A holds every row).  Returns the entries with no a_ji (their
 * mirror[k] 0): none where the pattern is symmetric. */
int64_t kryl_csr_mirror_values(const kryl_csr *A, const kryl_csr *far, double *mirror, int threads);

/* C = A + B of the same shape, rows sorted (a column in both summed
 * a_ij + b_ij), on `threads` host threads; C takes A's row_begin and
 * nrows_global. */
kryl_status kryl_csr_add_on(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int threads);

/* C = A B of whole matrices (A->ncols == B->nrows), rows sorted, entries
 * that cancel kept; two passes (count, then fill) over the rows on
 * `threads` host threads, each row summed in the same order whatever the
 * count (Gustavson, ACM TOMS 4, 1978). */
kryl_status kryl_csr_multiply(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int threads);

/* The diagonal a_ii of the owned rows (0 where absent) into diag[nrows]. */
void kryl_csr_diagonal(const kryl_csr *A, double *diag);

/* max |a_ij - a_ji| over the stored entries of A's sorted rows (an absent
 * a_ji counts as 0) into *worst and max |a_ij| into *largest, on `threads`
 * host threads (the same result whatever the count); *worst = INFINITY
 * when A is not a square matrix of all its rows. */
void kryl_csr_asymmetry(const kryl_csr *A, int threads, double *worst, double *largest);

/* The first row i holding an a_ij (j != i) without a stored a_ji, or -1
 * when A's pattern is structurally symmetric (A square, all its rows,
 * rows sorted), on `threads` host threads. */
int64_t kryl_csr_first_unmirrored(const kryl_csr *A, int threads);

/* What kryl_csr_abs_row_sums writes of row i's sum s_i = sum_j |a_ij|. */
typedef enum kryl_row_sums {
    KRYL_ROW_SUMS_INVERSE = 0,    /* 1 / s_i (0 where s_i = 0): l1-Jacobi's diagonal */
    KRYL_ROW_SUMS_BY_DIAGONAL = 1 /* s_i / |a_ii| (0 where a_ii is 0 or absent): Gershgorin's */
} kryl_row_sums;

/* d_i (what) from s_i = sum_j |a_ij| over A's owned rows, each added in
 * the row's order, on `threads` host threads (the same bits whatever the
 * count); returns the first row with s_i = 0, or -1. */
int64_t kryl_csr_abs_row_sums(const kryl_csr *A, int threads, kryl_row_sums what, double *d);

/* What a check of the diagonal found (first rows are local, 0-based; the
 * row count where none). */
typedef struct kryl_diagonal_check {
    int64_t first_zero;        /* the first row whose a_ii is 0 or absent */
    int64_t first_nonpositive; /* the first row without a_ii > 0 */
    double value;              /* a_ii of first_nonpositive (0 where none) */
} kryl_diagonal_check;

/* Check the diagonal of A's sorted owned rows on `threads` host threads;
 * where d is not NULL, d_i = a_ii (0 where absent), or 1/a_ii when invert. */
void kryl_csr_check_diagonal(const kryl_csr *A, int threads, double *d, bool invert,
                             kryl_diagonal_check *out);

/* The entry of A (built from the caller's arrays row_ptr, col_idx by
 * kryl_csr_from_arrays: columns sorted, repeats summed) that each of the
 * caller's entries went into: *entry_of = NULL when the caller's columns
 * were already sorted without repeats (entry k is entry k), else a
 * malloc'ed array of the caller's row_ptr[nrows] entries. */
kryl_status kryl_csr_entry_map(const kryl_csr *A, const int64_t *row_ptr, const int64_t *col_idx,
                               int64_t **entry_of);

#ifdef __cplusplus
}
#endif

#endif
