/* The cuda backend's lifecycle and operation table: one device, one
 * non-blocking stream, a reduction workspace allocated once, and a pinned
 * buffer for the small downloads of convergence checks (the device memory:
 * cuda_memory.cu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"
#include "backends/cuda/cuda_krylov.cuh"
#include "backends/cuda/cuda_trsv.cuh"
#include "core/memory.h"

kryl_status kryl_cuda_failed(cudaError_t err, const char *call, const char *where)
{
    return kryl_error_set(KRYL_ERR_DEVICE, where, "cuda: %s failed: %s (%s)", call,
                          cudaGetErrorString(err), cudaGetErrorName(err));
}

kryl_status kryl_cuda_enter(kryl_context ctx, kryl_cuda_state **state)
{
    kryl_cuda_state *s = ctx ? static_cast<kryl_cuda_state *>(ctx->backend) : nullptr;
    if (s == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda: the context is NULL or not an initialised cuda context");
    KRYL_CUDA_CHECK(cudaSetDevice(s->device));
    *state = s;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_check_vectors(const char *op, kryl_vector first, kryl_vector second)
{
    if (first == nullptr || second == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: a vector argument is NULL", op);
    if (first->n != second->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "cuda %s: vectors have %lld and %lld entries", op, (long long)first->n,
                          (long long)second->n);
    if (first->precision != second->precision)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: vectors are %s and %s", op,
                          kryl_precision_name(first->precision),
                          kryl_precision_name(second->precision));
    return KRYL_SUCCESS;
}

/* A kernel the device must be able to run: probes for a binary of its architecture. */
static __global__ void kryl_cuda_probe_kernel(int *flag)
{
    if (flag) *flag = 1;
}

extern "C" bool kryl_cuda_device_present(void)
{
    /* probed once (thread-safe static initialisation); errors are cleared, never fatal */
    static const bool present = [] {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
            cudaGetLastError();
            return false;
        }
        cudaFuncAttributes attributes;
        if (cudaFuncGetAttributes(&attributes, kryl_cuda_probe_kernel) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        return true;
    }();
    return present;
}

static void release_state(kryl_cuda_state *s)
{
    if (s == nullptr) return;
    kryl_cuda_upload_release(s);
    /* freed on the stream (the pool's order), then the streams go */
    if (s->ledger) {
        kryl_cuda_free(s, s->partials);
        kryl_cuda_free(s, s->counter);
        kryl_cuda_free(s, s->generation);
    }
    if (s->stream) {
        cudaStreamSynchronize(s->stream);
        cudaStreamDestroy(s->stream);
    }
    if (s->link) {
        cudaStreamSynchronize(s->link);
        cudaStreamDestroy(s->link);
    }
    if (s->link_start) cudaEventDestroy(s->link_start);
    cudaFreeHost(s->staging);
    kryl_cuda_memory_close(s);
    cudaGetLastError(); /* teardown errors are not reported: clear them */
    free(s);
}

static kryl_status create_state(kryl_cuda_state *s, int device)
{
    int count = 0;
    KRYL_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count)
        return KRYL_ERROR(KRYL_ERR_BACKEND_UNAVAILABLE,
                          "cuda: device %d requested but this machine has %d device(s)", device,
                          count);
    s->device = device;
    KRYL_CUDA_CHECK(cudaSetDevice(device));
    KRYL_CUDA_CHECK(cudaDeviceGetAttribute(&s->sm_count, cudaDevAttrMultiProcessorCount, device));
    KRYL_CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    KRYL_CUDA_CHECK(cudaStreamCreateWithFlags(&s->link, cudaStreamNonBlocking));
    KRYL_CUDA_CHECK(cudaEventCreateWithFlags(&s->link_start, cudaEventDisableTiming));
    s->reduce_blocks = (unsigned int)(s->sm_count * KRYL_CUDA_REDUCE_BLOCKS_PER_SM);
    size_t partial_bytes = sizeof(double) * KRYL_CUDA_MAX_REDUCED * s->reduce_blocks;
    KRYL_TRY(kryl_cuda_memory_open(s));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&s->partials, partial_bytes, "the reduction workspace"));
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&s->counter, sizeof *s->counter, "the reduction counter"));
    KRYL_CUDA_CHECK(cudaMemsetAsync(s->counter, 0, sizeof *s->counter, s->stream));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&s->generation, sizeof *s->generation,
                              "the grid barrier counter"));
    KRYL_CUDA_CHECK(cudaMemsetAsync(s->generation, 0, sizeof *s->generation, s->stream));
    KRYL_CUDA_CHECK(cudaMallocHost(&s->staging, KRYL_CUDA_STAGING_BYTES));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

static kryl_status cuda_init(kryl_context ctx)
{
    kryl_cuda_state *s = static_cast<kryl_cuda_state *>(calloc(1, sizeof(kryl_cuda_state)));
    if (s == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate state");
    kryl_status st = create_state(s, ctx->device);
    cudaDeviceProp prop;
    if (st == KRYL_SUCCESS) {
        cudaError_t err = cudaGetDeviceProperties(&prop, s->device);
        if (err != cudaSuccess) st = kryl_cuda_failed(err, "cudaGetDeviceProperties", KRYL_WHERE);
    }
    if (st != KRYL_SUCCESS) {
        release_state(s);
        return st;
    }
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.100s (%d SMs, %d MB L2)", prop.name,
             prop.multiProcessorCount, prop.l2CacheSize / (1024 * 1024));
    s->ctx = ctx;
    ctx->backend = s;
    return KRYL_SUCCESS;
}

static void cuda_finalize(kryl_context ctx)
{
    kryl_cuda_state *s = static_cast<kryl_cuda_state *>(ctx->backend);
    if (s) cudaSetDevice(s->device);
    release_state(s);
    ctx->backend = nullptr;
}

static kryl_status cuda_set_memory_limit(kryl_context ctx, int64_t bytes)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    s->memory_limit = bytes;
    return KRYL_SUCCESS;
}

static void cuda_memory_info(kryl_context ctx, kryl_device_memory *info)
{
    kryl_cuda_state *s = nullptr;
    if (kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    size_t free_bytes = 0, total_bytes = 0;
    kryl_cuda_device_free(s, &free_bytes, &total_bytes);
    info->in_use = s->memory_in_use;
    info->peak = s->memory_peak;
    info->limit = s->memory_limit;
    info->total = (int64_t)total_bytes;
    info->available = (int64_t)free_bytes;
    if (s->memory_limit > 0) {
        int64_t left = s->memory_limit - s->memory_in_use;
        if (left < info->available) info->available = left > 0 ? left : 0;
    }
}

static kryl_status cuda_alloc(kryl_context ctx, void **ptr, size_t bytes)
{
    *ptr = nullptr;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_TRY(kryl_cuda_malloc(s, ptr, bytes, "a vector or workspace array"));
    if (bytes == 0) return KRYL_SUCCESS;
    cudaError_t err = cudaMemsetAsync(*ptr, 0, bytes, s->stream);
    if (err != cudaSuccess) {
        kryl_cuda_free(s, *ptr);
        *ptr = nullptr;
        return kryl_cuda_failed(err, "cudaMemsetAsync", KRYL_WHERE);
    }
    return KRYL_SUCCESS;
}

static void cuda_release(kryl_context ctx, void *ptr)
{
    kryl_cuda_state *s = nullptr;
    if (ptr == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    kryl_cuda_free(s, ptr);
}

static kryl_status cuda_upload(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    /* src may be reused on return: staged by the driver or through the pinned slots */
    return kryl_cuda_upload_from_host(s, dst, src, bytes);
}

static kryl_status cuda_download(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (bytes == 0) return KRYL_SUCCESS;
    if (bytes > KRYL_CUDA_STAGING_BYTES) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s->stream));
        KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
        return KRYL_SUCCESS;
    }
    /* small fetches (scalars, the monitor) go through pinned memory: one DMA, one wait */
    KRYL_CUDA_CHECK(cudaMemcpyAsync(s->staging, src, bytes, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(dst, s->staging, bytes);
    return KRYL_SUCCESS;
}

static kryl_status cuda_synchronize(kryl_context ctx)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    /* the blocks a setup freed go back to the device at its synchronisation points */
    kryl_cuda_memory_trim(s);
    return KRYL_SUCCESS;
}

extern "C" void *kryl_cuda_stream(kryl_context ctx)
{
    if (ctx == nullptr || ctx->kind != KRYL_BACKEND_CUDA || ctx->backend == nullptr) return nullptr;
    return static_cast<void *>(static_cast<kryl_cuda_state *>(ctx->backend)->stream);
}

extern "C" void kryl_cuda_set_stream(kryl_context ctx, void *stream)
{
    if (ctx == nullptr || ctx->kind != KRYL_BACKEND_CUDA || ctx->backend == nullptr) return;
    static_cast<kryl_cuda_state *>(ctx->backend)->stream = static_cast<cudaStream_t>(stream);
}

static kryl_backend_ops make_ops()
{
    kryl_backend_ops ops = {};
    ops.name = "cuda";
    /* iterations queued between two fetches of the monitor: at most this many
     * extra (guarded, empty) launches after convergence, one sync per 16 iterations */
    ops.check_interval = 16;
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) ops.formats |= 1u << f;
    ops.device_memory = true;
    ops.init = cuda_init;
    ops.finalize = cuda_finalize;
    ops.alloc = cuda_alloc;
    ops.release = cuda_release;
    ops.upload = cuda_upload;
    ops.download = cuda_download;
    ops.synchronize = cuda_synchronize;
    ops.set_memory_limit = cuda_set_memory_limit;
    ops.memory_info = cuda_memory_info;
    ops.copy_to_host_async = kryl_cuda_copy_to_host_async;
    ops.copy_from_host_async = kryl_cuda_copy_from_host_async;
    ops.copy_wait = kryl_cuda_copy_wait;
    ops.host_pin = kryl_cuda_host_pin;
    ops.host_unpin = kryl_cuda_host_unpin;
    ops.device_model = kryl_cuda_device_model;
    ops.matrix_setup = kryl_cuda_matrix_setup;
    ops.matrix_release = kryl_cuda_matrix_release;
    ops.matrix_setup_device = kryl_cuda_matrix_setup_device;
    ops.matrix_download = kryl_cuda_matrix_download;
    ops.matrix_convert = kryl_cuda_matrix_convert;
    ops.matrix_csr_arrays = kryl_cuda_matrix_csr_arrays;
    ops.csr_asymmetry = kryl_cuda_csr_asymmetry;
    ops.csr_reach = kryl_cuda_csr_reach;
    ops.csr_diagonals = kryl_cuda_csr_diagonals;
    ops.csr_blocks = kryl_cuda_csr_blocks;
    ops.csr_diagonal = kryl_cuda_csr_diagonal;
    ops.csr_row_sums = kryl_cuda_csr_row_sums;
    ops.csr_unmirrored = kryl_cuda_csr_unmirrored;
    ops.matrix_values = kryl_cuda_matrix_values;
    ops.matrix_inverse_diagonal = kryl_cuda_matrix_inverse_diagonal;
    ops.amg_tentative = kryl_cuda_amg_tentative;
    ops.amg_products = kryl_cuda_amg_products;
    ops.amg_aggregate = kryl_cuda_amg_aggregate;
    ops.spmv = kryl_cuda_spmv;
    ops.fill = kryl_cuda_fill;
    ops.fill_random = kryl_cuda_fill_random;
    ops.permute_copy = kryl_cuda_permute_copy;
    ops.axpby = kryl_cuda_axpby;
    ops.pointwise_mult = kryl_cuda_pointwise_mult;
    ops.chebyshev_step = kryl_cuda_chebyshev_step;
    ops.dot = kryl_cuda_dot;
    ops.cg_update_xr = kryl_cuda_cg_update_xr;
    ops.spmv_dot = kryl_cuda_spmv_dot;
    ops.spmv_dot_fuses = kryl_cuda_spmv_dot_fuses;
    ops.cg_update_p = kryl_cuda_cg_update_p;
    ops.cg1_terms = kryl_cuda_cg1_terms;
    ops.cg1_update = kryl_cuda_cg1_update;
    ops.cg1_steps = kryl_cuda_cg1_steps;
    ops.cg1_step = kryl_cuda_cg1_step;
    ops.monitor_update = kryl_cuda_monitor_update;
    ops.capture_begin = kryl_cuda_capture_begin;
    ops.capture_end = kryl_cuda_capture_end;
    ops.graph_launch = kryl_cuda_graph_launch;
    ops.graph_release = kryl_cuda_graph_release;
    ops.pipecg_update = kryl_cuda_pipecg_update;
    ops.pipecg_spmv_update = kryl_cuda_pipecg_spmv_update;
    ops.pipecg_spmv_steps = kryl_cuda_pipecg_spmv_steps;
    ops.dot2 = kryl_cuda_dot2;
    ops.bicgstab_update_s = kryl_cuda_bicgstab_update_s;
    ops.bicgstab_update_xr = kryl_cuda_bicgstab_update_xr;
    ops.bicgstab_update_p = kryl_cuda_bicgstab_update_p;
    ops.multi_dot = kryl_cuda_multi_dot;
    ops.multi_axpy = kryl_cuda_multi_axpy;
    ops.normalize = kryl_cuda_normalize;
    ops.gmres_cycle_start = kryl_cuda_gmres_cycle_start;
    ops.gmres_givens = kryl_cuda_gmres_givens;
    ops.gmres_solve = kryl_cuda_gmres_solve;
    ops.gmres_dcgs2_dot = kryl_cuda_gmres_dcgs2_dot;
    ops.gmres_dcgs2_update = kryl_cuda_gmres_dcgs2_update;
    ops.gmres_dcgs2_column = kryl_cuda_gmres_dcgs2_column;
    ops.fcg_update_p = kryl_cuda_fcg_update_p;
    ops.monitor_restart = kryl_cuda_monitor_restart;
    ops.trsv_setup = kryl_cuda_trsv_setup;
    ops.trsv = kryl_cuda_trsv;
    ops.trsv_release = kryl_cuda_trsv_release;
    ops.trsv_path = kryl_cuda_trsv_path;
    ops.color_rows = kryl_cuda_color_rows;
    ops.color_group = kryl_cuda_color_group;
    ops.color_first_fit = kryl_cuda_color_first_fit;
    ops.csr_permute = kryl_cuda_csr_permute;
    ops.mcsweep_setup = kryl_cuda_mcsweep_setup;
    ops.mcsweep = kryl_cuda_mcsweep;
    ops.mcsweep_release = kryl_cuda_mcsweep_release;
    ops.factor_setup = kryl_cuda_factor_setup;
    ops.factor_numeric = kryl_cuda_factor_numeric;
    ops.factor_trsv = kryl_cuda_factor_trsv;
    ops.factor_release = kryl_cuda_factor_release;
    ops.factor_analyse = kryl_cuda_factor_analyse;
    ops.factor_schedule = kryl_cuda_factor_schedule;
    ops.amax = kryl_cuda_amax;
    return ops;
}

extern "C" const kryl_backend_ops *kryl_backend_cuda(void)
{
    static const kryl_backend_ops ops = make_ops();
    return &ops;
}
