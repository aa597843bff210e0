/* Block Jacobi preconditioner (Li & Saad, GPU-accelerated preconditioned
 * iterative linear solvers, J. Supercomputing 63 (2013), section 5.2):
 * M = blockdiag(A_11, ..., A_pp) over p blocks of rows of the iteration
 * matrix B (P A P^T when a format or ordering permutes it), each block
 * factored incompletely.  The blocks are the parts of a METIS k-way
 * partition of B's graph (Li & Saad sec. 6.7 partition with METIS) or p
 * contiguous row ranges; both are balanced by nonzeros
 * (options.partition, KRYL_PARTITION_AUTO = metis when the build has it).
 *
 * Built as "drop every b_ij with part[i] != part[j], then IC(0) (symmetric
 * A with a CG method) or ILU(0) (otherwise), or the factorization
 * options.block_factor names (ic0, mic0, ilu0, ilut)" through the incomplete
 * factorization path of ilu.c.  The rows of a METIS part need not be
 * contiguous: the filtered matrix is block diagonal under a symmetric
 * permutation, and IC(0)/ILU(0) only combine rows coupled by a kept entry,
 * so in any row order the factors are those of each block, with no entry
 * between blocks.
 *
 * The paper gives each block one CUDA thread block, so no global
 * synchronisation is needed between blocks.  Here the blocks are solved
 * together by the backend's level-scheduled triangular solves: rows of
 * different blocks never depend on each other, so each level holds rows of
 * every block and the number of levels is that of the deepest block, not
 * the sum over blocks; one launch per level serves all blocks at once,
 * the parallelism block Jacobi offers, whatever the block sizes.
 *
 * When the IC(0) of a block meets a non-positive pivot, every block is
 * factored with the same shift instead (shifted IC(0), as mic0) and a
 * warning is logged. */
#include <stdio.h>
#include <stdlib.h>

#include "order/order.h"
#include "precond/precond.h"

/* Rows per block when options.blocks is 0. */
enum { BJACOBI_DEFAULT_ROWS = 4096 };

/* part[i] = block of row i for nb contiguous ranges balanced by nonzeros:
 * block b begins at the first row where the entries before it reach
 * b nnz / nb, every block keeping at least one row. */
static void contiguous_parts(const kryl_csr *B, int64_t nb, int32_t *part)
{
    int64_t n = B->nrows, nnz = kryl_csr_nnz(B), i = 0, start = 0;
    for (int64_t b = 0; b < nb; b++) {
        /* end = smallest i with row_ptr[i] >= (b + 1) nnz / nb, inside (start, n - (nb - b - 1)] */
        int64_t target = (int64_t)((double)nnz * (double)(b + 1) / (double)nb);
        while (i < n && B->row_ptr[i] < target) i++;
        int64_t lo = start + 1, hi = n - (nb - b - 1);
        int64_t end = b + 1 == nb ? n : (i < lo ? lo : (i > hi ? hi : i));
        for (int64_t r = start; r < end; r++) part[r] = (int32_t)b;
        start = end;
    }
}

/* The partition options.partition asks for (AUTO resolved). */
static kryl_partition_kind resolve_partition(kryl_partition_kind kind)
{
    if (kind != KRYL_PARTITION_AUTO) return kind;
    return kryl_order_have_metis() ? KRYL_PARTITION_METIS : KRYL_PARTITION_CONTIGUOUS;
}

/* Keep b_ij only when rows i and j lie in the same block; log the block
 * sizes and the entries dropped (the edge cut, weighted by entries). */
static kryl_status bjacobi_filter(kryl_precond *pc, kryl_csr *B, const void *user)
{
    const kryl_solver_options *opts = user;
    kryl_partition_kind kind = resolve_partition(opts->partition);
    int64_t n = B->nrows;
    int64_t nb =
        opts->blocks > 0 ? opts->blocks : (n + BJACOBI_DEFAULT_ROWS - 1) / BJACOBI_DEFAULT_ROWS;
    if (nb < 1) nb = 1;
    if (nb > n) nb = n > 0 ? n : 1;
    int32_t *part = malloc((size_t)(n > 0 ? n : 1) * sizeof *part);
    int64_t *rows = calloc((size_t)nb, sizeof *rows);
    kryl_status st = KRYL_SUCCESS;
    if (part == NULL || rows == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "bjacobi: cannot allocate the blocks of %lld rows (%lld blocks)",
                        (long long)n, (long long)nb);
        goto done;
    }
    if (kind == KRYL_PARTITION_METIS)
        st = kryl_partition_metis(B, (int32_t)nb, part);
    else
        contiguous_parts(B, nb, part);
    if (st != KRYL_SUCCESS) goto done;
    int64_t nnz = kryl_csr_nnz(B), k = 0;
    for (int64_t i = 0; i < n; i++) {
        /* row i of blockdiag(B): the entries with part[j] = part[i], compacted in place */
        int64_t e = B->row_ptr[i], end = B->row_ptr[i + 1];
        B->row_ptr[i] = k;
        rows[part[i]]++;
        for (; e < end; e++) {
            if (part[B->col_idx[e]] != part[i]) continue;
            B->col_idx[k] = B->col_idx[e];
            B->values[k++] = B->values[e];
        }
    }
    B->row_ptr[n] = k;
    int64_t smallest = n, largest = 0;
    for (int64_t b = 0; b < nb; b++) {
        smallest = rows[b] < smallest ? rows[b] : smallest;
        largest = rows[b] > largest ? rows[b] : largest;
    }
    snprintf(pc->info, sizeof pc->info, "%lld %s blocks of %lld to %lld rows", (long long)nb,
             kryl_partition_name(kind), (long long)smallest, (long long)largest);
    kryl_log(pc->ctx, KRYL_LOG_INFO,
             "bjacobi: %s partition, %lld blocks of %lld to %lld rows; %lld of %lld entries "
             "(%.2f%%) couple blocks and are dropped",
             kryl_partition_name(kind), (long long)nb, (long long)smallest, (long long)largest,
             (long long)(nnz - k), (long long)nnz,
             nnz > 0 ? 100.0 * (double)(nnz - k) / (double)nnz : 0.0);
done:
    free(part);
    free(rows);
    return st;
}

kryl_status kryl_precond_bjacobi_create(kryl_precond *pc, kryl_matrix A,
                                        const kryl_solver_options *opts)
{
    if (opts->partition < KRYL_PARTITION_AUTO || opts->partition > KRYL_PARTITION_METIS)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "bjacobi: unknown partition %d (expected auto, contiguous or metis)",
                          (int)opts->partition);
    if (opts->partition == KRYL_PARTITION_METIS && !kryl_order_have_metis())
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "bjacobi: partition metis needs METIS, which this build lacks "
                          "(install libmetis-dev and rebuild); partition contiguous takes "
                          "contiguous row ranges instead, which cut more couplings");
    kryl_precond_kind factor = opts->block_factor;
    if (factor == KRYL_PRECOND_NONE) {
        /* mic0 is IC(0) itself when that exists, a shifted IC(0) of every block otherwise */
        factor =
            kryl_precond_for_cg(opts) && kryl_host_matrix_is_symmetric(A->host, opts->symmetry_tol)
                ? KRYL_PRECOND_MIC0
                : KRYL_PRECOND_ILU0;
    } else if (factor != KRYL_PRECOND_IC0 && factor != KRYL_PRECOND_MIC0 &&
               factor != KRYL_PRECOND_ILU0 && factor != KRYL_PRECOND_ILUT) {
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "bjacobi: block factorization %s: expected ic0, mic0, ilu0 or ilut",
                          kryl_precond_name(factor));
    }
    kryl_precond_filter filter = {bjacobi_filter, opts};
    return kryl_precond_factor_create(pc, A, opts, factor, &filter);
}
