/* Sparse matrix products on the device for the multigrid setup
 * (cuda_amg.cu): CSR matrices with 32-bit offsets, and C = A B by the
 * backend's own hash SpGEMM and a transpose (cuda_spgemm.cu). */
#ifndef KRYL_BACKENDS_CUDA_SPGEMM_CUH
#define KRYL_BACKENDS_CUDA_SPGEMM_CUH

#include <cub/cub.cuh>

#include "backends/cuda/cuda_internal.cuh"

/* A CSR matrix in device memory with 32-bit offsets. */
struct dev_csr {
    int64_t rows = 0, cols = 0, nnz = 0;
    int32_t *offsets = nullptr; /* rows + 1 */
    int32_t *col_idx = nullptr; /* nnz */
    double *values = nullptr;   /* nnz */
};

/* Run a kryl_status expression only while st is still success. */
#define KRYL_STEP(st, expr)                                                                        \
    do {                                                                                           \
        if ((st) == KRYL_SUCCESS) (st) = (expr);                                                   \
    } while (0)

/* Run a library call returning a `type` only while st is still success;
 * a result other than `ok` sets st to failed(result, the call's text, where). */
#define KRYL_LIBRARY_STEP(st, type, ok, failed, call)                                              \
    do {                                                                                           \
        if ((st) == KRYL_SUCCESS) {                                                                \
            type kryl_library_err_ = (call);                                                       \
            if (kryl_library_err_ != (ok)) (st) = failed(kryl_library_err_, #call, KRYL_WHERE);    \
        }                                                                                          \
    } while (0)

/* Check a CUDA runtime call only while st is still success. */
#define CUDA_STEP(st, call) KRYL_LIBRARY_STEP(st, cudaError_t, cudaSuccess, kryl_cuda_failed, call)

/* out[0] = 0, out[1..count] = the running sums of in (cub's scan). */
template <typename T>
static kryl_status kryl_cuda_running_sums(kryl_cuda_state *s, const T *in, T *out, int64_t count)
{
    void *temp = nullptr;
    size_t bytes = 0;
    kryl_status st = KRYL_SUCCESS;
    CUDA_STEP(st, cudaMemsetAsync(out, 0, sizeof *out, s->stream));
    CUDA_STEP(st,
              cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out + 1, (int)count, s->stream));
    KRYL_STEP(st, kryl_cuda_malloc(s, &temp, bytes, "a scan's workspace"));
    CUDA_STEP(st, cub::DeviceScan::InclusiveSum(temp, bytes, in, out + 1, (int)count, s->stream));
    kryl_cuda_free(s, temp);
    return st;
}

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
