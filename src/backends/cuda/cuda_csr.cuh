/* The cuda backend's CSR storage of a matrix and the shapes its SpMV kernels
 * are built for, shared by setup (cuda_matrix.cu) and the kernels
 * (cuda_spmv.cu). */
#ifndef KRYL_BACKENDS_CUDA_CSR_CUH
#define KRYL_BACKENDS_CUDA_CSR_CUH

#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"

/* Threads of a stream block and the entries it multiplies at most. */
constexpr int STREAM_THREADS = KRYL_CUDA_THREADS;
constexpr int STREAM_NNZ = 4 * STREAM_THREADS;

/* Entries each lane of the vector kernel loads before it multiplies any:
 * independent loads in flight hide the latency of the dependent x gathers. */
constexpr int VECTOR_DEPTH = 4;

/* The cuda backend's storage of a matrix (A->storage). */
struct cuda_csr {
    int64_t nrows, ncols, nnz;
    bool wide;           /* 64-bit row offsets */
    void *row_ptr;       /* int32 or int64, nrows + 1 */
    int32_t *col_idx;    /* nnz */
    void *values;        /* nnz floats or doubles */
    int32_t *row_blocks; /* stream: first row of each block, then nrows */
    int64_t block_count;
    kryl_cuda_spmv_kernel kernel;
    int lanes;       /* vector: threads per row */
    double mean, sd; /* row length statistics */
    int64_t max_len;
};

#endif
