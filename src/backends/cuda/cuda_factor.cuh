/* The cuda backend's IC(0)/ILU(0) factor on a kept pattern, shared by the
 * numeric factorization and the triangles built from it (cuda_factor.cu)
 * and the symbolic part computed on the device (cuda_factor_analyse.cu). */
#ifndef KRYL_BACKENDS_CUDA_FACTOR_CUH
#define KRYL_BACKENDS_CUDA_FACTOR_CUH

#include "backends/cuda/cuda_internal.cuh"

/* One triangle's level schedule. */
struct cuda_schedule {
    int32_t *rows;      /* device, n: the rows level by level, ascending within a level */
    int64_t *level_ptr; /* host, nlevels + 1: level l's rows at rows[level_ptr[l] ..] */
    int64_t nlevels;
};

/* The factor on the device: its pattern, level schedules and values. */
struct cuda_factor {
    bool ic; /* IC(0): C = L (U = L^T); else ILU(0): C = L + U */
    int64_t n, nnz;
    int64_t a_nnz;   /* entries of the factored matrix */
    int64_t *ptr;    /* n + 1 */
    int32_t *col;    /* nnz */
    int64_t *diag;   /* n: the position of c_ii */
    int64_t *source; /* nnz: the entry of A's values each entry starts from */
    /* source indexes A's stored CSR, the arrays factor_analyse read (in A's
     * layout order); else A's host CSR (factor_setup) */
    bool stored_sources;
    /* IC only: the pattern of U = L^T by rows, diagonal first */
    int64_t *uptr;           /* n + 1 */
    int32_t *ucol;           /* nnz */
    cuda_schedule levels[2]; /* [0] L, [1] U */
    double *val;             /* nnz: C's values */
    double *a;      /* A's host values uploaded (when A's storage does not hold them), or NULL */
    int32_t *ready; /* n: row i finished */
    double *sums;   /* n: sum_j |a_ij| of row i */
    /* [0] min over failing rows of 2 row + what; [1] ILU: the min row with
     * u_ii not > 0; [2] max_i sums_i (the bits of a non-negative double);
     * [3] the block ticket */
    unsigned long long *status;
};

/* The numeric part's device blocks (values, flags, sums, and the status
 * where the analysis has not made it) of F, whose pattern is set. */
kryl_status kryl_cuda_factor_workspace(kryl_cuda_state *s, cuda_factor *F);

/* Free F and every device block it holds. */
void kryl_cuda_factor_free(kryl_cuda_state *s, cuda_factor *F);

#endif
