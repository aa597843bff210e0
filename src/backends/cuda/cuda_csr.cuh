/* The cuda backend's CSR storage of a matrix and the shapes its SpMV kernels
 * are built for, shared by setup (cuda_matrix.cu) and the kernels
 * (cuda_spmv.cu). */
#ifndef KRYL_BACKENDS_CUDA_CSR_CUH
#define KRYL_BACKENDS_CUDA_CSR_CUH

#include "backends/cuda/cuda_hooks.h"
#include <type_traits>

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
    cuda_value_map map; /* new values (cuda_matrix_values.cu) */
};

/* A new storage record of nrows x ncols with nnz entries (its offsets
 * 64-bit when 32 bits would not do), no arrays yet; NULL without memory. */
cuda_csr *kryl_cuda_csr_new(int64_t nrows, int64_t ncols, int64_t nnz);

/* A->storage = m when st (the status of filling m) is success, with a log
 * line on its kernel (`from`: where the arrays came from); else m is freed
 * and st returned. */
kryl_status kryl_cuda_csr_adopt(kryl_context ctx, kryl_cuda_state *s, kryl_matrix A, cuda_csr *m,
                                kryl_status st, const char *from);

/* Free m and its device arrays (NULL: nothing). */
void kryl_cuda_csr_free(kryl_cuda_state *s, cuda_csr *m);

/* Split the rows of h into stream blocks: consecutive rows while they hold at
 * most STREAM_NNZ entries and STREAM_THREADS rows; a longer row alone.
 * blocks has room for nrows + 1 entries; returns the number of blocks. */
int64_t kryl_cuda_stream_blocks(const kryl_csr *h, int32_t *blocks);

/* A->storage = the double CSR storage of `from` (natural order, any shape)
 * in single precision, made on the device: its pattern copied, its values
 * rounded to float as the host rounds them (cuda_matrix_device.cu);
 * KRYL_ERR_UNSUPPORTED, with no message, for another source or precision. */
kryl_status kryl_cuda_csr_round(kryl_context ctx, kryl_matrix A, kryl_matrix from);

/* m->kernel and m->lanes from m's row length statistics. */
void kryl_cuda_csr_choose_kernel(cuda_csr *m);

/* The kernel's name ("stream", "scalar", "vector/8") into buf. */
const char *kryl_cuda_csr_describe(const cuda_csr *m, char *buf, size_t size);

/* m->row_blocks of the stream kernel, made from m's device row offsets when
 * m was built from device arrays without them (cuda_matrix_device.cu). */
kryl_status kryl_cuda_csr_blocks(kryl_cuda_state *s, cuda_csr *m);

/* A's CSR storage when it is square, not empty, and multiplied by the
 * vector kernel (the one a fused kernel can take row by row), else NULL. */
static inline const cuda_csr *kryl_cuda_vector_csr(kryl_matrix A)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    if (A->fmt.kind != KRYL_FORMAT_CSR || m == nullptr || m->kernel == KRYL_CUDA_SPMV_STREAM ||
        A->fmt.nrows != A->fmt.ncols || A->fmt.nrows == 0)
        return nullptr;
    return m;
}

/* Run f(std::integral_constant<int, L>{}) with L = lanes (1, 2, 4, 8, 16, else 32):
 * the LANES template argument of a CSR-vector kernel for a matrix's lanes. */
template <typename F> static void kryl_cuda_with_lanes(int lanes, F f)
{
    switch (lanes) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, 16>{}); break;
    default: f(std::integral_constant<int, 32>{}); break;
    }
}

/* Run f(I{}) with I the row-offset type of m (int64 when wide, else int32). */
template <typename F> static void kryl_cuda_with_offsets(const cuda_csr *m, F f)
{
    if (m->wide)
        f(int64_t{});
    else
        f(int32_t{});
}

/* ---- the row product of the CSR-vector kernels (cuda_spmv.cu) and of the
 * fused kernels that multiply as they update (cuda_pipecg.cu) ---- */

/* A matrix entry read once: with 8 or more lanes a row's entries span whole
 * sectors, so they are loaded evict-first (__ldcs) to leave L2 to x; fewer
 * lanes re-read partly used sectors from L1, so they load normally. */
template <int LANES, typename V> __device__ inline V load_entry(const V *p)
{
    if constexpr (LANES >= 8)
        return __ldcs(p);
    else
        return *p;
}

/* A lane's share of a row: its first DEPTH entries, LANES apart from
 * first, loaded at once (all loads issued before any use); rows past end
 * are zero. */
template <typename T, typename I, int LANES, int DEPTH> struct row_entries {
    I first, end;
    T a[DEPTH];
    int32_t c[DEPTH];
};

/* The lane's entries of `row` (an empty share for row < 0). */
template <typename T, typename I, int LANES, int DEPTH>
__device__ inline row_entries<T, I, LANES, DEPTH>
load_row_entries(int64_t row, int lane, const I *__restrict__ row_ptr,
                 const int32_t *__restrict__ col_idx, const T *__restrict__ values)
{
    row_entries<T, I, LANES, DEPTH> e;
    e.first = row < 0 ? I(0) : row_ptr[row] + lane;
    e.end = row < 0 ? I(0) : row_ptr[row + 1];
#pragma unroll
    for (int j = 0; j < DEPTH; j++) {
        const I k = e.first + j * LANES;
        e.a[j] = k < e.end ? load_entry<LANES>(values + k) : T(0);
        e.c[j] = k < e.end ? load_entry<LANES>(col_idx + k) : 0;
    }
    return e;
}

/* sum_k a_k load(col(k)) over the row of e, by the LANES threads of its
 * group (every lane gets the sum): the loaded entries, then any beyond
 * them.  load(j) gives x_j as a double. */
template <typename T, typename I, int LANES, int DEPTH, typename Load>
__device__ inline double row_entries_dot(const row_entries<T, I, LANES, DEPTH> &e,
                                         const int32_t *__restrict__ col_idx,
                                         const T *__restrict__ values, Load load)
{
    double sum = 0.0;
#pragma unroll
    for (int j = 0; j < DEPTH; j++)
        if (e.first + j * LANES < e.end) sum += (double)e.a[j] * load(e.c[j]);
    for (I k = e.first + DEPTH * LANES; k < e.end; k += LANES)
        sum += (double)load_entry<LANES>(values + k) * load(load_entry<LANES>(col_idx + k));
    return group_sum(sum, LANES);
}

/* sum_k a_k x_col(k) over the row of e (row_entries_dot).  FRESH: x was
 * written by other blocks of this launch before a grid barrier
 * (kryl_resident_sum), which the read-only cache does not see: plain loads,
 * which the barrier's acquire covers, L1 included. */
template <bool FRESH, typename T, typename I, int LANES, int DEPTH>
__device__ inline double row_entries_sum(const row_entries<T, I, LANES, DEPTH> &e,
                                         const int32_t *__restrict__ col_idx,
                                         const T *__restrict__ values, const T *x)
{
    return row_entries_dot(e, col_idx, values, [x](int32_t j) {
        return (double)(FRESH ? __ldca(&x[j]) : __ldg(&x[j]));
    });
}

/* sum_k a_k x_col(k) over `row`, by the LANES threads of its group (every
 * lane gets the sum; 0 for row < 0) */
template <typename T, typename I, int LANES>
__device__ inline double row_sum(int64_t row, int lane, const I *__restrict__ row_ptr,
                                 const int32_t *__restrict__ col_idx, const T *__restrict__ values,
                                 const T *__restrict__ x)
{
    const auto e = load_row_entries<T, I, LANES, VECTOR_DEPTH>(row, lane, row_ptr, col_idx, values);
    return row_entries_sum<false>(e, col_idx, values, x);
}

#endif
