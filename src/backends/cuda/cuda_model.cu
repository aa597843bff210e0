/* The numbers the SpMV bandwidth model (formats/format.h) needs for the
 * context's device: the L2 size, 32-byte sectors, and the bandwidth of a
 * device-to-device copy (bytes read plus bytes written over its time),
 * measured once per context on first use and kept in its state. */
#include <algorithm>

#include "backends/cuda/cuda_internal.cuh"

/* Bytes copied per timed copy, source and destination together over four
 * times an H200's 60 MB L2; smaller when the device has less free memory.
 * The measurement is part of every hybrid auto setup (docs/BENCHMARKS.md). */
constexpr size_t MODEL_COPY_BYTES = (size_t)128 << 20;
constexpr size_t MODEL_MIN_COPY_BYTES = (size_t)16 << 20;
/* Bytes/s the model assumes while no copy could be timed (too little device
 * memory free): the order of an H100's; the choice of format depends on the
 * ratios of the formats' traffic, not on this scale. */
constexpr double MODEL_UNMEASURED_BANDWIDTH = 2e12;
/* Copies timed after one warm-up; the median is kept. */
constexpr int MODEL_COPIES = 5;

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
    kryl_cuda_device_free(s, &free_bytes, &total_bytes);
    /* within the context's cap */
    if (s->memory_limit > 0)
        free_bytes = (size_t)std::max<int64_t>(
            0, std::min<int64_t>((int64_t)free_bytes, s->memory_limit - s->memory_in_use));
    size_t bytes = std::min(MODEL_COPY_BYTES, free_bytes / 4);
    if (bytes < MODEL_MIN_COPY_BYTES)
        return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY,
                          "cuda device_model: %zu bytes free, the bandwidth measurement needs "
                          "2 x %zu",
                          free_bytes, MODEL_MIN_COPY_BYTES);
    void *src = nullptr, *dst = nullptr;
    kryl_status st = kryl_cuda_malloc(s, &src, bytes, "the bandwidth measurement");
    if (st == KRYL_SUCCESS) st = kryl_cuda_malloc(s, &dst, bytes, "the bandwidth measurement");
    cudaError_t err = src ? cudaMemsetAsync(src, 1, bytes, s->stream) : cudaSuccess;
    if (st == KRYL_SUCCESS && err != cudaSuccess)
        st = kryl_cuda_failed(err, "cudaMemsetAsync", KRYL_WHERE);
    double seconds = 0.0;
    if (st == KRYL_SUCCESS) st = time_copies(s, dst, src, bytes, &seconds);
    kryl_cuda_free(s, src);
    kryl_cuda_free(s, dst);
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
    model->bandwidth = MODEL_UNMEASURED_BANDWIDTH;
    if (s->copy_bandwidth <= 0.0) {
        kryl_status st = measure_bandwidth(s);
        if (st == KRYL_ERR_DEVICE_OUT_OF_MEMORY)
            kryl_log(ctx, KRYL_LOG_INFO, "cuda: %s; the format model assumes %.0f GB/s",
                     kryl_last_error(), 1e-9 * MODEL_UNMEASURED_BANDWIDTH);
        else if (st != KRYL_SUCCESS)
            return st;
    }
    if (s->copy_bandwidth > 0.0) model->bandwidth = s->copy_bandwidth;
    model->cache_bytes = l2_bytes;
    model->line_bytes = 32; /* the L2's sector: the unit an x miss costs */
    return KRYL_SUCCESS;
}
