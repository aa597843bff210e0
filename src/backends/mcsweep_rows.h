/* The rows of the multicolor SSOR sweep (backend.h: mcsweep_*), host and
 * device alike (C, and CUDA where __CUDACC__ makes them device functions
 * too): where a row's lower and upper parts lie in B, and its forward and
 * backward steps.  B = P A P^T in the color order, rows sorted, so a row of
 * color c holds its lower part (colors before c) first, then the couplings
 * inside c (the diagonal; others only where sparsification left them, and
 * M leaves them out), then its upper part.  ref and omp run the rows in
 * loops (host_mcsweep.h), cuda in kernels (cuda_mcsweep.cu). */
#ifndef KRYL_BACKENDS_MCSWEEP_ROWS_H
#define KRYL_BACKENDS_MCSWEEP_ROWS_H

#include <stdint.h>

#ifdef __CUDACC__
#define KRYL_MCSWEEP_ROW static inline __host__ __device__
#else
#define KRYL_MCSWEEP_ROW static inline
#endif

/* A sweep's arrays (backend memory), B borrowed: per row where its lower
 * part (earlier colors) ends and its upper part (later colors) begins,
 * and 1 / b_ii. */
typedef struct kryl_mcsweep {
    int64_t n;
    int32_t ncolors;
    int64_t *color_ptr; /* ncolors + 1 (host memory) */
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const double *values;
    int64_t *lower_end;   /* n: L of row p is [row_ptr[p], lower_end[p]) */
    int64_t *upper_begin; /* n: U of row p is [upper_begin[p], row_ptr[p + 1]) */
    double *dinv;         /* n */
    double omega;
} kryl_mcsweep;

/* Row p, whose color occupies rows [first, next): where L ends, where U begins, 1 / b_pp. */
KRYL_MCSWEEP_ROW void kryl_mcsweep_row(const kryl_mcsweep *H, int64_t first, int64_t next,
                                       int64_t p)
{
    int64_t k = H->row_ptr[p], end = H->row_ptr[p + 1];
    while (k < end && H->col_idx[k] < first) k++;
    H->lower_end[p] = k;
    H->dinv[p] = 0.0;
    for (; k < end && H->col_idx[k] < next; k++)
        if (H->col_idx[k] == p) H->dinv[p] = 1.0 / H->values[k];
    H->upper_begin[p] = k;
}

/* Forward, row p: z_p = (r_p - omega sum_L b_pj z_j) / b_pp (z_j of earlier colors). */
KRYL_MCSWEEP_ROW void kryl_mcsweep_forward(const kryl_mcsweep *H, int64_t p, const double *r,
                                           double *z)
{
    double s = 0.0;
    for (int64_t k = H->row_ptr[p]; k < H->lower_end[p]; k++) s += H->values[k] * z[H->col_idx[k]];
    z[p] = H->dinv[p] * (r[p] - H->omega * s);
}

/* Backward, row p: z_p = omega (2 - omega) z_p - omega (sum_U b_pj z_j) / b_pp. */
KRYL_MCSWEEP_ROW void kryl_mcsweep_backward(const kryl_mcsweep *H, int64_t p, double *z)
{
    double s = 0.0;
    for (int64_t k = H->upper_begin[p]; k < H->row_ptr[p + 1]; k++)
        s += H->values[k] * z[H->col_idx[k]];
    z[p] = H->omega * (2.0 - H->omega) * z[p] - H->omega * H->dinv[p] * s;
}

#endif
