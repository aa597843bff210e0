/* Sparse matrix products on the device for the multigrid setup
 * (cuda_amg.cu): CSR matrices with 32-bit offsets, and C = A B by the
 * backend's own hash SpGEMM and a transpose (cuda_spgemm.cu). */
#ifndef KRYL_BACKENDS_CUDA_SPGEMM_CUH
#define KRYL_BACKENDS_CUDA_SPGEMM_CUH

#include "backends/cuda/cuda_scan.cuh"

/* A CSR matrix in device memory with 32-bit offsets. */
struct dev_csr {
    int64_t rows = 0, cols = 0, nnz = 0;
    int32_t *offsets = nullptr; /* rows + 1 */
    int32_t *col_idx = nullptr; /* nnz */
    double *values = nullptr;   /* nnz */
};

/* Free M's arrays (kryl_cuda_malloc's) and empty it. */
void kryl_cuda_dev_csr_free(kryl_cuda_state *s, dev_csr *M);

/* C = A B (allocated here; A's columns index B's rows, all rows without
 * repeated columns): each row by a hash table of its columns, c_ij =
 * sum_k a_ik b_kj summed in the order of row i of A (where B has few
 * columns and A's rows many products: by shares of the row, then share
 * after share), every row sorted by column; the same result on every run.
 * Synchronises twice (sizes for the allocations).  KRYL_ERR_OUT_OF_MEMORY
 * where C has 2^31 entries or more. */
kryl_status kryl_cuda_spgemm_hash(kryl_cuda_state *s, const dev_csr *A, const dev_csr *B,
                                  dev_csr *C, const char *what);

/* R = P' (allocated here), each row of R sorted by column, by a stable
 * radix sort of P's entries by column (cub); the same result on every run.
 * Synchronises once. */
kryl_status kryl_cuda_transpose(kryl_cuda_state *s, const dev_csr *P, dev_csr *R, const char *what);

/* KRYL_ERR_ZERO_DIAGONAL for row `row` of a level whose prolongator's
 * smoother divides by a_ii (cuda_amg.cu). */
kryl_status kryl_cuda_zero_diagonal(unsigned long long row);

/* P = (I - omega D^-1 A) T (allocated here; rows sorted by column, the
 * sums in the order of A's rows, as S T by kryl_cuda_spgemm_hash gives it)
 * where T (A's rows) has at most one entry a row and A's rows are short
 * (cuda_prolong.cu), with *applies; else *applies = false and nothing is
 * allocated.  KRYL_ERR_ZERO_DIAGONAL names the first row without a
 * nonzero a_ii.  Synchronises twice. */
kryl_status kryl_cuda_smoothed_prolongator(kryl_cuda_state *s, const dev_csr *A, const dev_csr *T,
                                           double omega, dev_csr *P, bool *applies);

#endif
