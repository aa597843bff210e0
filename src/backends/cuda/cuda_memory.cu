/* The cuda backend's device memory: every block of the backend, counted
 * against the context's cap, from a stream-ordered pool of the context's
 * own (cudaMallocFromPoolAsync) that keeps freed blocks for the next
 * allocation until the next synchronisation of the context.  A setup makes
 * and frees hundreds of temporaries; cudaMalloc maps each anew and
 * cudaFree waits for the whole device each time (docs/BENCHMARKS.md).
 * KRYL_CUDA_POOL=0 allocates with cudaMalloc instead, and so does a
 * context whose blocks other processes map (the ranks of a host exchange
 * through each other's memory: cudaIpcGetMemHandle takes no pool's). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <unordered_map>

#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"
#include "core/memory.h"

/* Each live device block: its bytes, so a free subtracts what was counted,
 * and whether the pool gave it. */
struct kryl_cuda_block {
    size_t bytes;
    bool pooled;
};
struct kryl_cuda_ledger {
    std::unordered_map<void *, kryl_cuda_block> blocks;
};

/* Whether KRYL_CUDA_POOL leaves allocation to the pool (unset, empty or not "0"). */
static bool pool_wanted()
{
    const char *v = getenv("KRYL_CUDA_POOL");
    return v == nullptr || strcmp(v, "0") != 0;
}

kryl_status kryl_cuda_memory_open(kryl_cuda_state *s)
{
    s->ledger = new (std::nothrow) kryl_cuda_ledger;
    if (s->ledger == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate the allocation ledger");
    KRYL_CUDA_CHECK(cudaEventCreateWithFlags(&s->link_end, cudaEventDisableTiming));
    int pools = 0;
    KRYL_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, s->device));
    if (!pools || !pool_wanted()) return KRYL_SUCCESS;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = s->device;
    KRYL_CUDA_CHECK(cudaMemPoolCreate(&s->pool, &props));
    /* freed blocks stay in the pool until kryl_cuda_memory_trim */
    uint64_t keep = UINT64_MAX;
    KRYL_CUDA_CHECK(cudaMemPoolSetAttribute(s->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return KRYL_SUCCESS;
}

void kryl_cuda_memory_close(kryl_cuda_state *s)
{
    if (s->pool) cudaMemPoolDestroy(s->pool);
    if (s->link_end) cudaEventDestroy(s->link_end);
    delete s->ledger;
    s->pool = nullptr;
    s->link_end = nullptr;
    s->ledger = nullptr;
}

/* Whether the context's next block comes from the pool. */
static bool pooled(const kryl_cuda_state *s) { return s->pool != nullptr && !s->shared_memory; }

void kryl_cuda_memory_trim(kryl_cuda_state *s)
{
    if (pooled(s) && cudaMemPoolTrimTo(s->pool, 0) != cudaSuccess) cudaGetLastError();
}

extern "C" void kryl_cuda_share_memory(kryl_context ctx)
{
    if (ctx == nullptr || ctx->kind != KRYL_BACKEND_CUDA || ctx->backend == nullptr) return;
    kryl_cuda_state *s = static_cast<kryl_cuda_state *>(ctx->backend);
    /* the blocks freed so far go back now: a context that shares its memory trims no more */
    if (s->pool && cudaStreamSynchronize(s->stream) == cudaSuccess) kryl_cuda_memory_trim(s);
    s->shared_memory = true;
}

void kryl_cuda_device_free(kryl_cuda_state *s, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess) cudaGetLastError();
    if (s->pool == nullptr) return;
    /* the pool's blocks kept for reuse are this context's to allocate */
    uint64_t reserved = 0, used = 0;
    if (cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) !=
            cudaSuccess ||
        cudaMemPoolGetAttribute(s->pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (reserved > used) *free_bytes += (size_t)(reserved - used);
}

/* KRYL_ERR_DEVICE_OUT_OF_MEMORY for `bytes` of `what`: past the cap, or the device is full. */
static kryl_status out_of_memory(kryl_cuda_state *s, size_t bytes, const char *what, bool capped)
{
    char asked[32], held[32], cap[32], free_text[32], total_text[32];
    kryl_format_bytes(asked, sizeof asked, (int64_t)bytes);
    kryl_format_bytes(held, sizeof held, s->memory_in_use);
    if (capped)
        return KRYL_ERROR(
            KRYL_ERR_DEVICE_OUT_OF_MEMORY,
            "cuda: cannot allocate %s (%zu bytes) for %s on device %d: the "
            "context's device memory cap is %s and it holds %s already (--gpu-memory, "
            "KRYL_GPU_MEMORY or kryl_context_set_gpu_memory)",
            asked, bytes, what, s->device, kryl_format_bytes(cap, sizeof cap, s->memory_limit),
            held);
    size_t free_bytes = 0, total_bytes = 0;
    kryl_cuda_device_free(s, &free_bytes, &total_bytes);
    return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY,
                      "cuda: cannot allocate %s (%zu bytes) for %s on device %d: the device has "
                      "%s free of %s (this context holds %s)",
                      asked, bytes, what, s->device,
                      kryl_format_bytes(free_text, sizeof free_text, (int64_t)free_bytes),
                      kryl_format_bytes(total_text, sizeof total_text, (int64_t)total_bytes), held);
}

/* *ptr = bytes of the pool, in the order of the context's stream, or of cudaMalloc. */
static cudaError_t device_alloc(kryl_cuda_state *s, void **ptr, size_t bytes)
{
    if (!pooled(s)) return cudaMalloc(ptr, bytes);
    cudaError_t err = cudaMallocFromPoolAsync(ptr, bytes, s->pool, s->stream);
    if (err != cudaErrorMemoryAllocation) return err;
    /* once more when the blocks freed on the stream are free and the pool is trimmed */
    cudaGetLastError();
    err = cudaStreamSynchronize(s->stream);
    if (err != cudaSuccess) return err;
    kryl_cuda_memory_trim(s);
    return cudaMallocFromPoolAsync(ptr, bytes, s->pool, s->stream);
}

/* ptr back to where it came from. */
static void release(kryl_cuda_state *s, void *ptr, bool from_pool)
{
    if (!from_pool) {
        /* work queued on the streams may still read ptr: cudaFree waits for the device */
        cudaFree(ptr);
    } else {
        /* freed in the stream's order, after the link's copies queued so far too */
        if (cudaEventRecord(s->link_end, s->link) == cudaSuccess)
            cudaStreamWaitEvent(s->stream, s->link_end, 0);
        cudaFreeAsync(ptr, s->stream);
    }
    cudaGetLastError();
}

kryl_status kryl_cuda_malloc(kryl_cuda_state *s, void **ptr, size_t bytes, const char *what)
{
    *ptr = nullptr;
    if (bytes == 0) return KRYL_SUCCESS;
    if (s->memory_limit > 0 && (int64_t)bytes > s->memory_limit - s->memory_in_use)
        return out_of_memory(s, bytes, what, true);
    const bool from_pool = pooled(s);
    cudaError_t err = device_alloc(s, ptr, bytes);
    if (err != cudaSuccess) {
        *ptr = nullptr;
        cudaGetLastError();
        if (err == cudaErrorMemoryAllocation) return out_of_memory(s, bytes, what, false);
        return kryl_cuda_failed(err, from_pool ? "cudaMallocFromPoolAsync" : "cudaMalloc",
                                KRYL_WHERE);
    }
    try {
        s->ledger->blocks.emplace(*ptr, kryl_cuda_block{bytes, from_pool});
    } catch (const std::bad_alloc &) {
        release(s, *ptr, from_pool);
        *ptr = nullptr;
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot record a device block of %s", what);
    }
    s->memory_in_use += (int64_t)bytes;
    if (s->memory_in_use > s->memory_peak) s->memory_peak = s->memory_in_use;
    return KRYL_SUCCESS;
}

void kryl_cuda_free(kryl_cuda_state *s, void *ptr)
{
    if (ptr == nullptr) return;
    auto block = s->ledger->blocks.find(ptr);
    bool from_pool = false; /* a block the ledger does not know: cudaMalloc's */
    if (block != s->ledger->blocks.end()) {
        from_pool = block->second.pooled;
        s->memory_in_use -= (int64_t)block->second.bytes;
        s->ledger->blocks.erase(block);
    }
    release(s, ptr, from_pool);
}
