/* The cuda backend's permuted copy of a CSR matrix and multicolor SSOR
 * sweep (backend.h: csr_permute, mcsweep_*).  The copy: each row's length
 * gathered and scanned into B's offsets, the rows copied with their columns
 * renumbered, then sorted by a segmented sort (cub).  The sweep: a kernel
 * per color forward, then per color back, a thread per row running the
 * rows of mcsweep_rows.h (the host backends' own), so every backend
 * computes the same M. */
#include <cstdlib>
#include <cstring>

#include <cub/cub.cuh>

#include "backends/cuda/cuda_internal.cuh"
#include "backends/host_mcsweep.h"

/* Grid-stride loop over i in [0, n). */
#define SWEEP_FOR_EACH(i, n)                                                                       \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* inv[perm[i]] = i;  len[i] = the length of row perm[i] of A */
__global__ void permute_lengths_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                       const int32_t *__restrict__ perm, int32_t *inv, int64_t *len)
{
    SWEEP_FOR_EACH(i, n)
    {
        const int32_t src = perm[i];
        inv[src] = (int32_t)i;
        len[i] = row_ptr[src + 1] - row_ptr[src];
    }
}

/* row i of the unsorted copy = row perm[i] of A, columns renumbered by inv */
__global__ void
permute_rows_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                    const int32_t *__restrict__ col_idx, const double *__restrict__ values,
                    const int32_t *__restrict__ perm, const int32_t *__restrict__ inv,
                    const int64_t *__restrict__ b_row_ptr, int32_t *col_out, double *val_out)
{
    SWEEP_FOR_EACH(i, n)
    {
        const int64_t from = row_ptr[perm[i]], at = b_row_ptr[i], len = b_row_ptr[i + 1] - at;
        for (int64_t e = 0; e < len; e++) {
            col_out[at + e] = inv[col_idx[from + e]];
            val_out[at + e] = values[from + e];
        }
    }
}

/* The device blocks of one permuted copy, freed together. */
struct permute_work {
    kryl_cuda_state *s;
    int32_t *inv = nullptr, *col = nullptr;
    int64_t *len = nullptr;
    double *val = nullptr;
    void *temp = nullptr;
    explicit permute_work(kryl_cuda_state *state) : s(state) {}
    ~permute_work()
    {
        kryl_cuda_free(s, inv);
        kryl_cuda_free(s, col);
        kryl_cuda_free(s, len);
        kryl_cuda_free(s, val);
        kryl_cuda_free(s, temp);
    }
};

kryl_status kryl_cuda_csr_permute(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                  const int32_t *col_idx, const double *values, const int32_t *perm,
                                  int64_t *b_row_ptr, int32_t *b_col_idx, double *b_values)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_REQUIRE_ARG(b_row_ptr);
    KRYL_CUDA_CHECK(cudaMemsetAsync(b_row_ptr, 0, sizeof *b_row_ptr, s->stream));
    if (n == 0) return KRYL_SUCCESS;
    int64_t nnz = 0;
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(s->staging, row_ptr + n, sizeof nnz, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(&nnz, s->staging, sizeof nnz);
    if (n > INT32_MAX || nnz > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "cuda csr_permute: %lld rows, %lld entries; at most 2^31-1 of each",
                          (long long)n, (long long)nnz);
    permute_work w(s);
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.inv, (size_t)n * sizeof *w.inv,
                              "permuted copy: inverse permutation"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.len, (size_t)n * sizeof *w.len,
                              "permuted copy: row lengths"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.col, (size_t)nnz * sizeof *w.col,
                              "permuted copy: unsorted columns"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.val, (size_t)nnz * sizeof *w.val,
                              "permuted copy: unsorted values"));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    permute_lengths_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, row_ptr, perm, w.inv,
                                                                      w.len);
    KRYL_CUDA_CHECK_LAUNCH("permute_lengths_kernel");
    /* b_row_ptr[i + 1] = len[0] + ... + len[i];  then rows copied and sorted */
    size_t scan_bytes = 0, sort_bytes = 0;
    KRYL_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, w.len, b_row_ptr + 1, (int)n,
                                                  s->stream));
    KRYL_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(nullptr, sort_bytes, w.col, b_col_idx,
                                                        w.val, b_values, (int)nnz, (int)n,
                                                        b_row_ptr, b_row_ptr + 1, s->stream));
    KRYL_TRY(kryl_cuda_malloc(s, &w.temp, scan_bytes > sort_bytes ? scan_bytes : sort_bytes,
                              "permuted copy: scan and sort workspace"));
    KRYL_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(w.temp, scan_bytes, w.len, b_row_ptr + 1, (int)n, s->stream));
    permute_rows_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, row_ptr, col_idx, values, perm, w.inv, b_row_ptr, w.col, w.val);
    KRYL_CUDA_CHECK_LAUNCH("permute_rows_kernel");
    KRYL_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(w.temp, sort_bytes, w.col, b_col_idx, w.val,
                                                        b_values, (int)nnz, (int)n, b_row_ptr,
                                                        b_row_ptr + 1, s->stream));
    /* the workspace is freed when this returns: wait for the work that reads it */
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* rows [first, next) of one color: where L ends, where U begins, 1 / b_pp */
__global__ void sweep_rows_kernel(kryl_mcsweep H, int64_t first, int64_t next)
{
    SWEEP_FOR_EACH(k, next - first) kryl_mcsweep_row(&H, first, next, first + k);
}

/* forward over rows [first, next): z_p = (r_p - omega sum_L b_pj z_j) / b_pp */
__global__ void sweep_forward_kernel(kryl_mcsweep H, int64_t first, int64_t next,
                                     const double *__restrict__ r, double *z)
{
    SWEEP_FOR_EACH(k, next - first) kryl_mcsweep_forward(&H, first + k, r, z);
}

/* backward over rows [first, next): z_p = omega (2 - omega) z_p - omega (sum_U b_pj z_j) / b_pp */
__global__ void sweep_backward_kernel(kryl_mcsweep H, int64_t first, int64_t next, double *z)
{
    SWEEP_FOR_EACH(k, next - first) kryl_mcsweep_backward(&H, first + k, z);
}

/* The handle: the sweep's arrays, theirs in device memory, color_ptr on the host. */
static void release_sweep(kryl_cuda_state *s, kryl_mcsweep *H)
{
    if (H == nullptr) return;
    kryl_cuda_free(s, H->lower_end);
    kryl_cuda_free(s, H->upper_begin);
    kryl_cuda_free(s, H->dinv);
    free(H->color_ptr);
    free(H);
}

void kryl_cuda_mcsweep_release(kryl_context ctx, void *handle)
{
    kryl_cuda_state *s = nullptr;
    if (handle == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    release_sweep(s, static_cast<kryl_mcsweep *>(handle));
}

kryl_status kryl_cuda_mcsweep_setup(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                    const int32_t *col_idx, const double *values,
                                    const int64_t *color_ptr, int32_t ncolors, double omega,
                                    void **handle)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    *handle = nullptr;
    kryl_mcsweep *H = static_cast<kryl_mcsweep *>(calloc(1, sizeof *H));
    if (H == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda mcsweep: out of memory");
    *H = kryl_mcsweep{n,      ncolors, nullptr, row_ptr, col_idx,
                      values, nullptr, nullptr, nullptr, omega};
    H->color_ptr = static_cast<int64_t *>(malloc(((size_t)ncolors + 1) * sizeof *H->color_ptr));
    kryl_status st = H->color_ptr
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                      "cuda mcsweep: cannot allocate %d colors", (int)ncolors);
    const size_t rows = (size_t)(n > 0 ? n : 1);
    if (st == KRYL_SUCCESS)
        st = kryl_cuda_malloc(s, (void **)&H->lower_end, rows * sizeof *H->lower_end,
                              "mcsweep: lower part ends");
    if (st == KRYL_SUCCESS)
        st = kryl_cuda_malloc(s, (void **)&H->upper_begin, rows * sizeof *H->upper_begin,
                              "mcsweep: upper part starts");
    if (st == KRYL_SUCCESS)
        st = kryl_cuda_malloc(s, (void **)&H->dinv, rows * sizeof *H->dinv,
                              "mcsweep: inverse diagonal");
    if (st != KRYL_SUCCESS) {
        release_sweep(s, H);
        return st;
    }
    memcpy(H->color_ptr, color_ptr, ((size_t)ncolors + 1) * sizeof *H->color_ptr);
    for (int32_t c = 0; c < ncolors; c++) {
        const int64_t first = color_ptr[c], next = color_ptr[c + 1];
        if (next == first) continue;
        sweep_rows_kernel<<<kryl_cuda_stream_grid(s, next - first), KRYL_CUDA_THREADS, 0,
                            s->stream>>>(*H, first, next);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) {
            release_sweep(s, H);
            return kryl_cuda_failed(err, "launch of sweep_rows_kernel", KRYL_WHERE);
        }
    }
    *handle = H;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_mcsweep(kryl_context ctx, void *handle, kryl_vector r, kryl_vector z)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const kryl_mcsweep *H = static_cast<const kryl_mcsweep *>(handle);
    KRYL_REQUIRE_ARG(H);
    KRYL_TRY(kryl_mcsweep_check(H->n, r, z));
    const double *rv = static_cast<const double *>(r->data);
    double *zv = static_cast<double *>(z->data);
    /* forward: colors in order;  backward: in reverse */
    for (int32_t c = 0; c < H->ncolors; c++) {
        const int64_t first = H->color_ptr[c], next = H->color_ptr[c + 1];
        if (next == first) continue;
        sweep_forward_kernel<<<kryl_cuda_stream_grid(s, next - first), KRYL_CUDA_THREADS, 0,
                               s->stream>>>(*H, first, next, rv, zv);
        KRYL_CUDA_CHECK_LAUNCH("sweep_forward_kernel");
    }
    for (int32_t c = H->ncolors - 1; c >= 0; c--) {
        const int64_t first = H->color_ptr[c], next = H->color_ptr[c + 1];
        if (next == first) continue;
        sweep_backward_kernel<<<kryl_cuda_stream_grid(s, next - first), KRYL_CUDA_THREADS, 0,
                                s->stream>>>(*H, first, next, zv);
        KRYL_CUDA_CHECK_LAUNCH("sweep_backward_kernel");
    }
    return KRYL_SUCCESS;
}
