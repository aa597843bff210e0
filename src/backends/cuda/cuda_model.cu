/* The numbers the SpMV bandwidth model (formats/format.h) needs for the
 * context's device: the L2 size, 32-byte sectors, and the bandwidth of a
 * device-to-device copy (bytes read plus bytes written over its time),
 * measured once per context on first use and kept in its state. */
#include <algorithm>

#include "backends/cuda/cuda_internal.cuh"

/* Bytes copied per timed copy; smaller when the device has less free memory. */
constexpr size_t MODEL_COPY_BYTES = (size_t)256 << 20;
constexpr size_t MODEL_MIN_COPY_BYTES = (size_t)16 << 20;
/* Copies timed after one warm-up; the median is kept. */
constexpr int MODEL_COPIES = 7;

/* Median seconds of MODEL_COPIES copies of `bytes` from src to dst on s's stream. */
static kryl_status time_copies(kryl_cuda_state *s, void *dst, const void *src, size_t bytes,
                               double *seconds)
{
    cudaEvent_t start = nullptr, stop = nullptr;
    float ms[MODEL_COPIES] = {};
    cudaError_t err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s->stream); /* warm-up */
    for (int k = 0; k < MODEL_COPIES && err == cudaSuccess; k++) {
        err = cudaEventRecord(start, s->stream);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s->stream);
        if (err == cudaSuccess) err = cudaEventRecord(stop, s->stream);
        if (err == cudaSuccess) err = cudaEventSynchronize(stop);
        if (err == cudaSuccess) err = cudaEventElapsedTime(&ms[k], start, stop);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (err != cudaSuccess)
        return kryl_cuda_failed(err, "timing a device-to-device copy", KRYL_WHERE);
    std::sort(ms, ms + MODEL_COPIES);
    *seconds = 1e-3 * (double)ms[MODEL_COPIES / 2];
    return KRYL_SUCCESS;
}

/* s->copy_bandwidth = (read + written bytes) / seconds of a large copy */
static kryl_status measure_bandwidth(kryl_cuda_state *s)
{
    size_t free_bytes = 0, total_bytes = 0;
    KRYL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t bytes = std::min(MODEL_COPY_BYTES, free_bytes / 4);
    if (bytes < MODEL_MIN_COPY_BYTES)
        return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY,
                          "cuda device_model: %zu bytes free, the bandwidth measurement needs "
                          "2 x %zu",
                          free_bytes, MODEL_MIN_COPY_BYTES);
    void *src = nullptr, *dst = nullptr;
    kryl_status st = kryl_cuda_malloc(s, &src, bytes);
    if (st == KRYL_SUCCESS) st = kryl_cuda_malloc(s, &dst, bytes);
    cudaError_t err = src ? cudaMemsetAsync(src, 1, bytes, s->stream) : cudaSuccess;
    if (st == KRYL_SUCCESS && err != cudaSuccess)
        st = kryl_cuda_failed(err, "cudaMemsetAsync", KRYL_WHERE);
    double seconds = 0.0;
    if (st == KRYL_SUCCESS) st = time_copies(s, dst, src, bytes, &seconds);
    cudaFree(src);
    cudaFree(dst);
    cudaGetLastError();
    if (st != KRYL_SUCCESS) return st;
    if (!(seconds > 0.0))
        return KRYL_ERROR(KRYL_ERR_DEVICE, "cuda device_model: a %zu-byte copy took %g s", bytes,
                          seconds);
    s->copy_bandwidth = 2.0 * (double)bytes / seconds;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_device_model(kryl_context ctx, kryl_device_model *model)
{
    KRYL_REQUIRE_ARG(model);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    int l2_bytes = 0;
    KRYL_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, s->device));
    if (s->copy_bandwidth <= 0.0) KRYL_TRY(measure_bandwidth(s));
    model->bandwidth = s->copy_bandwidth;
    model->cache_bytes = l2_bytes;
    model->line_bytes = 32; /* the L2's sector: the unit an x miss costs */
    return KRYL_SUCCESS;
}
