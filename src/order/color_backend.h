/* The color order of --order color computed on the backend where A's CSR
 * is stored there (color_backend.c): no host copy of an index array. */
#ifndef KRYL_ORDER_COLOR_BACKEND_H
#define KRYL_ORDER_COLOR_BACKEND_H

#include "backends/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For A stored as double CSR of all its rows in the natural order
 * (kryl_matrix_natural_csr), on a backend with its CSR arrays
 * (matrix_csr_arrays) and the coloring, grouping and permuted-copy
 * operations: *perm (backend memory, A's rows, ops->alloc's block, the
 * caller's) = the rows grouped color by color, ascending within a color,
 * of the coloring kryl_order_compute's KRYL_ORDER_COLOR gives; B (its
 * arrays allocated here in backend memory) = P A P^T, each row's columns
 * sorted; *ncolors = the colors.  The coloring is timed as the ordering,
 * the copy as the conversion.  KRYL_ERR_UNSUPPORTED, with no message and
 * nothing allocated, where it does not apply (the host orders instead): an
 * empty A, over 2^31 - 1 entries, or a pattern that is not structurally
 * symmetric (first fit by rows would miss the couplings of A^T). */
kryl_status kryl_order_color_backend(kryl_matrix A, int32_t **perm, kryl_backend_csr *B,
                                     int32_t *ncolors);

/* B (its arrays allocated here in backend memory; left empty on failure)
 * = P A P^T of the n x n CSR (row_ptr, col_idx, values) in backend memory
 * with nnz entries, row i of B row perm[i] of A, each row's columns
 * sorted (ops->csr_permute). */
kryl_status kryl_order_permuted_csr(kryl_context ctx, int64_t n, int64_t nnz,
                                    const int64_t *row_ptr, const int32_t *col_idx,
                                    const double *values, const int32_t *perm, kryl_backend_csr *B);

#ifdef __cplusplus
}
#endif

#endif
