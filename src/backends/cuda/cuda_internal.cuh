/* The cuda backend's state, error checking and launch shapes, shared by its
 * translation units (C++ only: included by the .cu files). */
#ifndef KRYL_BACKENDS_CUDA_INTERNAL_CUH
#define KRYL_BACKENDS_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>

#include "backends/backend.h"

/* Threads per block of every vector and reduction kernel. */
constexpr int KRYL_CUDA_THREADS = 256;
/* Resident blocks per multiprocessor a reduction grid is sized for. */
constexpr int KRYL_CUDA_REDUCE_BLOCKS_PER_SM = 8;
/* Partial sums per block of a full reduction grid the workspace holds: the
 * values one reduction kernel produces at most (multi_dot, cuda_gmres.cu:
 * 64 columns over a grid of at most half the blocks). */
constexpr int KRYL_CUDA_MAX_REDUCED = 32;
/* Bytes of the pinned host buffer small downloads go through. */
constexpr size_t KRYL_CUDA_STAGING_BYTES = 64 * 1024;
/* Large uploads go through a ring of pinned slots of this many bytes each
 * (cuda_upload.cu), from uploads of KRYL_CUDA_UPLOAD_MIN bytes. */
constexpr int KRYL_CUDA_UPLOAD_SLOTS = 2;
constexpr size_t KRYL_CUDA_UPLOAD_CHUNK = 8u << 20;
constexpr size_t KRYL_CUDA_UPLOAD_MIN = 4 * KRYL_CUDA_UPLOAD_CHUNK;

/* One context's device, stream and reduction workspace. */
struct kryl_cuda_state {
    int device;
    int sm_count;
    cudaStream_t stream;        /* non-blocking: never the legacy default stream */
    unsigned int reduce_blocks; /* grid of every reduction: partials per value */
    double *partials;           /* device: KRYL_CUDA_MAX_REDUCED x reduce_blocks block sums */
    unsigned int *counter;      /* device: blocks done; the last one resets it to 0 */
    unsigned int *generation;   /* device: grid barriers passed by resident kernels (only grows) */
    void *staging;              /* pinned host buffer of KRYL_CUDA_STAGING_BYTES */
    double copy_bandwidth;      /* bytes/s of a device-to-device copy; 0 until measured */
    int64_t memory_limit;       /* cap on the bytes of kryl_cuda_malloc's live blocks; 0: none */
    int64_t memory_in_use;      /* bytes of its live blocks */
    int64_t memory_peak;        /* the most memory_in_use has been */
    struct kryl_cuda_ledger *ledger; /* the bytes of each live block */
    cudaMemPool_t pool;              /* the blocks' (cuda_memory.cu); NULL: cudaMalloc */
    bool shared_memory;     /* blocks other processes map: cudaMalloc (kryl_cuda_share_memory) */
    cudaStream_t link;      /* non-blocking: the copies over the host link (cuda_link.cu) */
    cudaEvent_t link_start; /* where on `stream` the next link copy may start */
    cudaEvent_t link_end;   /* where on `link` a block freed on `stream` may be reused */
    kryl_context ctx;       /* the context this state is (its host threads) */
    /* the pinned slots of large uploads and the end of each one's last copy
     * (made at the first large upload; none where pinned memory ran out) */
    void *upload_slot[KRYL_CUDA_UPLOAD_SLOTS];
    cudaEvent_t upload_done[KRYL_CUDA_UPLOAD_SLOTS];
    bool upload_tried;
};

/* The state of a cuda context, with its device made current. */
kryl_status kryl_cuda_enter(kryl_context ctx, kryl_cuda_state **state);

/* The ledger, and the pool of the context's blocks where the device has
 * stream-ordered pools (and KRYL_CUDA_POOL is not 0); after the streams
 * (cuda_memory.cu). */
kryl_status kryl_cuda_memory_open(kryl_cuda_state *s);

/* The ledger and the pool released (context teardown, the stream synchronised). */
void kryl_cuda_memory_close(kryl_cuda_state *s);

/* The pool's freed blocks back to the device (after a synchronisation of
 * the stream, so every block freed on it is). */
void kryl_cuda_memory_trim(kryl_cuda_state *s);

/* The device's free and total bytes, the pool's blocks kept for reuse counted free. */
void kryl_cuda_device_free(kryl_cuda_state *s, size_t *free_bytes, size_t *total_bytes);

/* *ptr = bytes of uninitialised device memory for `what` ("CSR values"), counted
 * against the context's cap.  Every device allocation of the backend goes
 * through it: beyond the cap, or when the device is full, it fails with
 * KRYL_ERR_DEVICE_OUT_OF_MEMORY naming `what`, the bytes asked, the cap or
 * the device's free memory, and what the context holds. */
kryl_status kryl_cuda_malloc(kryl_cuda_state *s, void **ptr, size_t bytes, const char *what);

/* dst (device) = bytes of host src, queued on s->stream; src may be reused
 * on return.  From KRYL_CUDA_UPLOAD_MIN bytes the host's threads copy
 * chunks into the pinned slots while the slot before is sent
 * (cuda_upload.cu), else the driver stages pageable src itself. */
kryl_status kryl_cuda_upload_from_host(kryl_cuda_state *s, void *dst, const void *src,
                                       size_t bytes);

/* The pinned slots of large uploads, freed (context teardown). */
void kryl_cuda_upload_release(kryl_cuda_state *s);

/* Free a block of kryl_cuda_malloc (NULL: nothing) and stop counting it. */
void kryl_cuda_free(kryl_cuda_state *s, void *ptr);

/* Record a failed CUDA call as KRYL_ERR_DEVICE naming the call and error. */
kryl_status kryl_cuda_failed(cudaError_t err, const char *call, const char *where);

/* Check a CUDA runtime call; on failure return KRYL_ERR_DEVICE. */
#define KRYL_CUDA_CHECK(call)                                                                      \
    do {                                                                                           \
        cudaError_t kryl_cuda_err_ = (call);                                                       \
        if (kryl_cuda_err_ != cudaSuccess)                                                         \
            return kryl_cuda_failed(kryl_cuda_err_, #call, KRYL_WHERE);                            \
    } while (0)

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

/* Check the kernel launch that precedes it (no synchronisation). */
#define KRYL_CUDA_CHECK_LAUNCH(name)                                                               \
    do {                                                                                           \
        cudaError_t kryl_cuda_err_ = cudaGetLastError();                                           \
        if (kryl_cuda_err_ != cudaSuccess)                                                         \
            return kryl_cuda_failed(kryl_cuda_err_, "launch of " name, KRYL_WHERE);                \
    } while (0)

/* Grid-stride loop over i in [0, n). */
#define KRYL_CUDA_FOR_EACH(i, n)                                                                   \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* Lanes a row where a setup kernel walks each row's entries: a row's entries
 * read together (a thread a row took a 33-entry coarse level 4x as long as
 * its bytes), few idle on a stencil's 7 (a warp a row: 25 of 32). */
constexpr int KRYL_CUDA_ROW_LANES = 8;

/* Grid-stride loop over the rows i in [0, n), KRYL_CUDA_ROW_LANES lanes a
 * row; a row's lanes run the same trips. */
#define KRYL_CUDA_FOR_EACH_ROW(i, n)                                                               \
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / KRYL_CUDA_ROW_LANES;       \
         i < (n); i += (int64_t)gridDim.x * blockDim.x / KRYL_CUDA_ROW_LANES)

/* This thread's lane in its row's group of KRYL_CUDA_ROW_LANES. */
__device__ inline int kryl_cuda_row_lane() { return (int)(threadIdx.x % KRYL_CUDA_ROW_LANES); }

/* sum of v over the `lanes` consecutive threads of a group (lanes a power of
 * two <= 32, groups aligned in the warp); every lane gets the sum */
__device__ inline double group_sum(double v, int lanes)
{
    if (lanes == 1) return v;
    const unsigned int first = (threadIdx.x & 31u) & ~(unsigned int)(lanes - 1);
    const unsigned int mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << first;
    for (int offset = lanes / 2; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(mask, v, offset, lanes);
    return v;
}

/* The mask of this thread's group of KRYL_CUDA_ROW_LANES lanes in its warp. */
__device__ inline unsigned int kryl_cuda_row_mask()
{
    const unsigned int first = (threadIdx.x & 31u) & ~(unsigned int)(KRYL_CUDA_ROW_LANES - 1);
    return ((1u << KRYL_CUDA_ROW_LANES) - 1u) << first;
}

/* a_ii of row i, whose entries are [begin, end) (0 where absent), on every
 * lane of the row's group of KRYL_CUDA_ROW_LANES: the lane that holds it,
 * summed over the group (the others add 0). */
template <typename I>
__device__ inline double kryl_cuda_row_diagonal(int64_t i, I begin, I end,
                                                const int32_t *__restrict__ col_idx,
                                                const double *__restrict__ a)
{
    double d = 0.0;
    for (I k = begin + kryl_cuda_row_lane(); k < end; k += KRYL_CUDA_ROW_LANES)
        if (col_idx[k] == i) d = a[k];
    return group_sum(d, KRYL_CUDA_ROW_LANES);
}

/* The first p in [lo, hi) where before(p) is false, before holding on a
 * prefix of the range (a binary search), or hi. */
template <typename Before>
__device__ inline int64_t kryl_cuda_partition_point(int64_t lo, int64_t hi, Before before)
{
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (before(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The position of c in the sorted col[lo, hi), or -1. */
__device__ inline int64_t kryl_cuda_find_sorted(const int32_t *col, int64_t lo, int64_t hi,
                                                int32_t c)
{
    const int64_t p = kryl_cuda_partition_point(lo, hi, [&](int64_t m) { return col[m] < c; });
    return p < hi && col[p] == c ? p : -1;
}

/* Blocks of KRYL_CUDA_THREADS covering n items, at most `cap`. */
static inline unsigned int kryl_cuda_blocks(int64_t n, unsigned int cap)
{
    int64_t blocks = (n + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS;
    if (blocks < 1) blocks = 1;
    return blocks < (int64_t)cap ? (unsigned int)blocks : cap;
}

/* Grid of an elementwise kernel: grid-stride loops past 32 blocks per SM. */
static inline unsigned int kryl_cuda_stream_grid(const kryl_cuda_state *s, int64_t n)
{
    return kryl_cuda_blocks(n, (unsigned int)s->sm_count * 32u);
}

/* Grid of a reduction kernel over n items; a function of n alone, so the
 * summation order, and with it the result, is the same on every call. */
static inline unsigned int kryl_cuda_reduce_grid(const kryl_cuda_state *s, int64_t n)
{
    return kryl_cuda_blocks(n, s->reduce_blocks);
}

/* Run f(T{}) with T the C++ type of precision p. */
template <typename F> static inline void kryl_cuda_with_type(kryl_precision p, F &&f)
{
    if (p == KRYL_DOUBLE)
        f(double{});
    else
        f(float{});
}

/* The stop flag a guarded operation reads, or NULL when unguarded. */
static inline const int32_t *kryl_cuda_stop_flag(const kryl_monitor *monitor)
{
    return monitor ? &monitor->stop : nullptr;
}

/* What new values on a matrix's pattern reuse (cuda_matrix_values.cu), in
 * device memory from the first update on: the host entry of each value
 * slot (A->value_source: entry + 1, 0 for padding; NULL while A->fmt
 * borrows the host CSR, whose slot k is entry k) and the slot of each
 * row's diagonal entry (-1: none). */
struct cuda_value_map {
    int64_t *source;
    int64_t *diagonal;
};

/* Free the map's device arrays. */
void kryl_cuda_value_map_free(kryl_cuda_state *s, cuda_value_map *map);

/* The operations this backend implements, kryl_cuda_<op> (semantics in
 * backend.h, declared from its list), each in the file of its kind:
 * cuda_matrix*.cu, cuda_convert.cu (conversions, the format model's
 * counts), cuda_spmv*.cu, cuda_vector.cu, cuda_cg*.cu,
 * cuda_pipecg*.cu, cuda_bicgstab.cu, cuda_krylov.cu, cuda_gmres.cu,
 * cuda_dcgs2.cu, cuda_graph.cu, cuda_link.cu, cuda_model.cu, cuda_amg.cu,
 * cuda_aggregate.cu, cuda_color.cu, cuda_mcsweep.cu, cuda_trsv.cu,
 * cuda_factor*.cu. */
#define KRYL_CUDA_DECLARE_OP(ret, name, params) ret kryl_cuda_##name params;
KRYL_BACKEND_OPS(KRYL_CUDA_DECLARE_OP)

/* Vectors of one operation: same length and precision. */
kryl_status kryl_cuda_check_vectors(const char *op, kryl_vector first, kryl_vector second);

#endif
