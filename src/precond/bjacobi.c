/* Block Jacobi preconditioner (Li & Saad, GPU-accelerated preconditioned
 * iterative linear solvers, J. Supercomputing 63 (2013), section 5.2):
 * M = blockdiag(A_11, ..., A_pp) over p contiguous ranges of rows of the
 * iteration matrix (P A P^T when a format or ordering permutes it), each
 * block factored incompletely.  Built as "drop every entry coupling two
 * blocks, then IC(0) (symmetric A with a CG method) or ILU(0) (otherwise)"
 * through the incomplete factorization path of ilu.c, so the blocks are
 * solved together by the level-scheduled triangular solves: each level holds
 * rows of every block, the parallelism block Jacobi offers.  Blocks are
 * contiguous and balanced by nonzeros; no graph partitioner (METIS) is used.
 * When the IC(0) of a block meets a non-positive pivot, every block is
 * factored with the same shift instead (shifted IC(0), as mic0) and a
 * warning is logged. */
#include <stdlib.h>

#include "precond/precond.h"

/* Rows per block when options.blocks is 0. */
enum { BJACOBI_DEFAULT_ROWS = 4096 };

/* start[0..nb] with start[0] = 0, start[nb] = n, strictly increasing, block b
 * beginning at the first row where the entries before it reach b nnz / nb. */
static void balance_blocks(const kryl_csr *B, int64_t nb, int64_t *start)
{
    int64_t n = B->nrows, nnz = kryl_csr_nnz(B), i = 0;
    start[0] = 0;
    for (int64_t b = 1; b < nb; b++) {
        /* smallest i with row_ptr[i] >= b nnz / nb, kept inside (start[b-1], n - (nb - b)] */
        int64_t target = (int64_t)((double)nnz * (double)b / (double)nb);
        while (i < n && B->row_ptr[i] < target) i++;
        int64_t lo = start[b - 1] + 1, hi = n - (nb - b);
        start[b] = i < lo ? lo : (i > hi ? hi : i);
    }
    start[nb] = n;
}

/* Keep b_ij only when rows i and j lie in the same block. */
static kryl_status bjacobi_filter(kryl_precond *pc, kryl_csr *B, const void *user)
{
    const kryl_solver_options *opts = user;
    int64_t n = B->nrows;
    int64_t nb =
        opts->blocks > 0 ? opts->blocks : (n + BJACOBI_DEFAULT_ROWS - 1) / BJACOBI_DEFAULT_ROWS;
    if (nb < 1) nb = 1;
    if (nb > n) nb = n > 0 ? n : 1;
    int64_t *start = malloc((size_t)(nb + 1) * sizeof *start);
    if (start == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "bjacobi: cannot allocate %lld block bounds",
                          (long long)nb);
    balance_blocks(B, nb, start);
    int64_t nnz = kryl_csr_nnz(B), k = 0, smallest = n, largest = 0;
    for (int64_t b = 0; b < nb; b++) {
        int64_t lo = start[b], hi = start[b + 1];
        smallest = hi - lo < smallest ? hi - lo : smallest;
        largest = hi - lo > largest ? hi - lo : largest;
        for (int64_t i = lo; i < hi; i++) {
            /* row i of blockdiag(B): the entries with lo <= j < hi, compacted in place */
            int64_t e = B->row_ptr[i], end = B->row_ptr[i + 1];
            B->row_ptr[i] = k;
            for (; e < end; e++) {
                if (B->col_idx[e] < lo || B->col_idx[e] >= hi) continue;
                B->col_idx[k] = B->col_idx[e];
                B->values[k++] = B->values[e];
            }
        }
    }
    B->row_ptr[n] = k;
    kryl_log(pc->ctx, KRYL_LOG_INFO,
             "bjacobi: %lld blocks of %lld to %lld rows; %lld of %lld entries couple blocks "
             "and are dropped",
             (long long)nb, (long long)smallest, (long long)largest, (long long)(nnz - k),
             (long long)nnz);
    free(start);
    return KRYL_SUCCESS;
}

kryl_status kryl_precond_bjacobi_create(kryl_precond *pc, kryl_matrix A,
                                        const kryl_solver_options *opts)
{
    bool cg = opts->method == KRYL_METHOD_CG || opts->method == KRYL_METHOD_PCG ||
              opts->method == KRYL_METHOD_PIPECG;
    /* mic0 is IC(0) itself when that exists, a shifted IC(0) of every block otherwise */
    kryl_precond_kind factor =
        cg && kryl_host_matrix_is_symmetric(A->host) ? KRYL_PRECOND_MIC0 : KRYL_PRECOND_ILU0;
    kryl_precond_filter filter = {bjacobi_filter, opts};
    return kryl_precond_factor_create(pc, A, opts, factor, &filter);
}
