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
    cudaStream_t link;      /* non-blocking: the copies over the host link (cuda_link.cu) */
    cudaEvent_t link_start; /* where on `stream` the next link copy may start */
};

/* The state of a cuda context, with its device made current. */
kryl_status kryl_cuda_enter(kryl_context ctx, kryl_cuda_state **state);

/* *ptr = bytes of uninitialised device memory for `what` ("CSR values"), counted
 * against the context's cap.  Every device allocation of the backend goes
 * through it: beyond the cap, or when the device is full, it fails with
 * KRYL_ERR_DEVICE_OUT_OF_MEMORY naming `what`, the bytes asked, the cap or
 * the device's free memory, and what the context holds. */
kryl_status kryl_cuda_malloc(kryl_cuda_state *s, void **ptr, size_t bytes, const char *what);

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

/* Operations of the table, by file. */
kryl_status kryl_cuda_matrix_setup(kryl_context ctx, kryl_matrix A);
void kryl_cuda_matrix_release(kryl_context ctx, kryl_matrix A);
kryl_status kryl_cuda_matrix_setup_device(kryl_context ctx, kryl_matrix A, const int64_t *row_ptr,
                                          const int32_t *col_idx, const double *values);
kryl_status kryl_cuda_matrix_download(kryl_context ctx, kryl_matrix A, kryl_csr *csr);
kryl_status kryl_cuda_matrix_convert(kryl_context ctx, kryl_matrix A, kryl_matrix from,
                                     int32_t **perm_backend);
kryl_status kryl_cuda_matrix_csr_arrays(kryl_context ctx, kryl_matrix A, int64_t **row_ptr,
                                        bool *row_ptr_copy, int32_t **col_idx, double **values);
kryl_status kryl_cuda_csr_asymmetry(kryl_context ctx, kryl_matrix A, double *worst,
                                    double *largest);
kryl_status kryl_cuda_csr_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d, bool invert,
                                   kryl_diagonal_check *found);
kryl_status kryl_cuda_matrix_values(kryl_context ctx, kryl_matrix A, const double *values,
                                    bool on_backend);
const double *kryl_cuda_matrix_csr_values(kryl_context ctx, kryl_matrix A);
kryl_status kryl_cuda_matrix_inverse_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d,
                                              int64_t *zero_row);
kryl_status kryl_cuda_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                           double beta, kryl_vector z, kryl_vector y, const kryl_monitor *monitor);
bool kryl_cuda_spmv_dot_fuses(kryl_context ctx, kryl_matrix A);
kryl_status kryl_cuda_spmv_dot(kryl_context ctx, kryl_matrix A, kryl_vector x, kryl_vector y,
                               kryl_scalar out, const kryl_monitor *monitor);
kryl_status kryl_cuda_device_model(kryl_context ctx, kryl_device_model *model);

/* The multigrid setup's tentative prolongator and products (cuda_amg.cu). */
kryl_status kryl_cuda_amg_tentative(kryl_context ctx, int64_t n, const int32_t *aggregate,
                                    int64_t naggregates, const double *w, double *wc,
                                    kryl_backend_csr *T);
kryl_status kryl_cuda_amg_products(kryl_context ctx, const kryl_backend_csr *A,
                                   const kryl_backend_csr *T, double omega, bool symmetric,
                                   const int32_t *perm, kryl_backend_csr *P, kryl_backend_csr *R,
                                   kryl_backend_csr *Ac, bool *done);

/* The multigrid aggregation: strength graph and parallel aggregates (cuda_aggregate.cu). */
kryl_status kryl_cuda_amg_aggregate(kryl_context ctx, kryl_matrix A, double theta, bool symmetric,
                                    int32_t *aggregate, int64_t *count);

/* Jones-Plassmann coloring and the grouping by color (cuda_color.cu; backend.h). */
kryl_status kryl_cuda_color_rows(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, int32_t *color, int32_t *ncolors);
kryl_status kryl_cuda_color_group(kryl_context ctx, int64_t n, const int32_t *color,
                                  int32_t ncolors, int32_t *perm, int64_t *color_ptr);

/* The permuted copy of a CSR matrix and the multicolor SSOR sweep (cuda_mcsweep.cu; backend.h). */
kryl_status kryl_cuda_csr_permute(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                  const int32_t *col_idx, const double *values, const int32_t *perm,
                                  int64_t *b_row_ptr, int32_t *b_col_idx, double *b_values);
kryl_status kryl_cuda_mcsweep_setup(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                    const int32_t *col_idx, const double *values,
                                    const int64_t *color_ptr, int32_t ncolors, double omega,
                                    void **handle);
kryl_status kryl_cuda_mcsweep(kryl_context ctx, void *handle, kryl_vector r, kryl_vector z);
void kryl_cuda_mcsweep_release(kryl_context ctx, void *handle);

/* The copies over the host link on the second stream (cuda_link.cu; backend.h). */
kryl_status kryl_cuda_copy_to_host_async(kryl_context ctx, void *dst, const void *src,
                                         size_t bytes);
kryl_status kryl_cuda_copy_from_host_async(kryl_context ctx, void *dst, const void *src,
                                           size_t bytes);
kryl_status kryl_cuda_copy_wait(kryl_context ctx);
kryl_status kryl_cuda_host_pin(kryl_context ctx, void *ptr, size_t bytes);
void kryl_cuda_host_unpin(kryl_context ctx, void *ptr);

kryl_status kryl_cuda_fill(kryl_context ctx, kryl_vector y, double value);
kryl_status kryl_cuda_permute_copy(kryl_context ctx, kryl_vector y, kryl_vector x,
                                   const int32_t *perm, kryl_permute_dir dir,
                                   const kryl_monitor *monitor);
kryl_status kryl_cuda_axpby(kryl_context ctx, double alpha, kryl_vector x, double beta,
                            kryl_vector y);
kryl_status kryl_cuda_pointwise_mult(kryl_context ctx, kryl_vector y, kryl_vector d, kryl_vector x);
kryl_status kryl_cuda_dot(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out);

kryl_status kryl_cuda_cg_update_xr(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                   kryl_vector p, kryl_vector q, kryl_vector x, kryl_vector r,
                                   kryl_vector dinv, kryl_vector z, kryl_scalar rz, kryl_scalar rr,
                                   kryl_monitor *monitor);
kryl_status kryl_cuda_cg1_terms(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r,
                                kryl_vector dinv, kryl_scalar t, const kryl_monitor *monitor);
kryl_status kryl_cuda_cg1_update(kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q,
                                 kryl_vector x, kryl_vector r, kryl_vector dinv,
                                 kryl_monitor *monitor);
/* cuda_cg_resident.cu */
kryl_status kryl_cuda_cg1_steps(kryl_context ctx, kryl_matrix A, kryl_vector p, kryl_vector x,
                                kryl_vector r, kryl_vector dinv, void *scratch,
                                kryl_monitor *monitor, int64_t steps, bool *queued);
kryl_status kryl_cuda_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_scalar rr, kryl_monitor *monitor);
kryl_status kryl_cuda_monitor_update(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                     int advance);

/* cuda_factor.cu: IC(0)/ILU(0) on a kept pattern, max |x_i| */
kryl_status kryl_cuda_factor_setup(kryl_context ctx, const struct kryl_factor_pattern *P,
                                   void **handle);
kryl_status kryl_cuda_factor_numeric(kryl_context ctx, void *handle, kryl_matrix A, double shift,
                                     struct kryl_factor_pivots *pivots);
kryl_status kryl_cuda_factor_trsv(kryl_context ctx, void *handle, bool lower,
                                  kryl_precision precision, void **trsv);
void kryl_cuda_factor_release(kryl_context ctx, void *handle);
/* cuda_factor_analyse.cu: the symbolic part of IC(0)/ILU(0) on the device */
kryl_status kryl_cuda_factor_analyse(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                     const int32_t *col_idx, bool ic, const char *who,
                                     struct kryl_factor_shape *shape, void **handle);
kryl_status kryl_cuda_factor_schedule(kryl_context ctx, void *handle,
                                      struct kryl_factor_shape *shape);
kryl_status kryl_cuda_amax(kryl_context ctx, kryl_vector x, kryl_scalar out);

/* Vectors of one operation: same length and precision. */
kryl_status kryl_cuda_check_vectors(const char *op, kryl_vector first, kryl_vector second);

#endif
