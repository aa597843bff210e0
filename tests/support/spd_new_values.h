/* New values on the pattern of a symmetric positive definite matrix that
 * keep it so, for the tests and benchmarks of kryl_matrix_update_values:
 * off the diagonal a_ij (1 + 0.5 sin(i + j)) (symmetric in i and j), on it
 * the sum of the row's new |a_ij| plus 0.5 + 0.25 cos(i) (strictly
 * diagonally dominant).  Rows [0, n) of CSR arrays with global row i; w has
 * nnz entries. */
#ifndef KRYL_TEST_SPD_NEW_VALUES_H
#define KRYL_TEST_SPD_NEW_VALUES_H

#include <math.h>
#include <stdint.h>

static inline void spd_new_values(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                  const double *values, double *w)
{
    for (int64_t i = 0; i < n; i++) {
        double off = 0.0;
        int64_t diag = -1;
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            if (col_idx[k] == i) {
                diag = k;
                continue;
            }
            w[k] = values[k] * (1.0 + 0.5 * sin((double)(i + col_idx[k])));
            off += fabs(w[k]);
        }
        if (diag >= 0) w[diag] = off + 0.5 + 0.25 * cos((double)i);
    }
}

#endif
