/* The multicolor SSOR sweep and the permuted copy of a CSR matrix on the
 * host backends (backend.h: csr_permute, mcsweep_*): the handle in host
 * memory and the work of one row of the copy, which ref runs in serial
 * loops (ref_mcsweep.c) and omp over its team (omp_mcsweep.c), with the
 * sweep's rows of mcsweep_rows.h. */
#ifndef KRYL_BACKENDS_HOST_MCSWEEP_H
#define KRYL_BACKENDS_HOST_MCSWEEP_H

#include "backends/backend.h"
#include "backends/mcsweep_rows.h"
#include "core/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out = a handle of B in host memory (its rows not yet set up: kryl_mcsweep_row). */
kryl_status kryl_host_mcsweep_alloc(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                    const double *values, const int64_t *color_ptr, int32_t ncolors,
                                    double omega, kryl_mcsweep **out);
kryl_backend_op_mcsweep_release kryl_host_mcsweep_release;

/* KRYL_ERR_* naming the problem unless r and z are distinct double vectors
 * of n rows (every backend's mcsweep checks its vectors so). */
kryl_status kryl_mcsweep_check(int64_t n, kryl_vector r, kryl_vector z);

/* csr_permute's serial part: inv[perm[i]] = i and B's row offsets. */
void kryl_host_csr_permute_offsets(int64_t n, const int64_t *row_ptr, const int32_t *perm,
                                   int32_t *inv, int64_t *b_row_ptr);

/* Row i of B = row perm[i] of A, columns renumbered by inv, sorted. */
static inline void kryl_host_csr_permute_row(int64_t i, const int64_t *row_ptr,
                                             const int32_t *col_idx, const double *values,
                                             const int32_t *perm, const int32_t *inv,
                                             const int64_t *b_row_ptr, int32_t *b_col_idx,
                                             double *b_values)
{
    const int64_t src = perm[i], at = b_row_ptr[i], len = row_ptr[src + 1] - row_ptr[src];
    for (int64_t e = 0; e < len; e++) {
        b_col_idx[at + e] = inv[col_idx[row_ptr[src] + e]];
        b_values[at + e] = values[row_ptr[src] + e];
    }
    kryl_csr_sort_row(b_col_idx + at, b_values + at, len);
}

#ifdef __cplusplus
}
#endif

#endif
