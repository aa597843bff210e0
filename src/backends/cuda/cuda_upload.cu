/* Large copies from pageable host memory to the device through pinned
 * staging: the host's threads copy a chunk of the source into a free slot
 * of a small pinned ring while the DMA of the slot before runs, so the
 * copy moves at the link's speed instead of the driver's own staging of
 * pageable memory (docs/BENCHMARKS.md). */
#include <string.h>

#include "backends/cuda/cuda_internal.cuh"
#include "core/host_threads.h"
#include "core/memory.h"

/* The ring, made once; false where pinned memory cannot be had. */
static bool ring_ready(kryl_cuda_state *s)
{
    if (s->upload_tried) return s->upload_slot[0] != nullptr;
    s->upload_tried = true;
    for (int k = 0; k < KRYL_CUDA_UPLOAD_SLOTS; k++) {
        /* a slot is free once its event has passed: recorded now, it has */
        if (cudaMallocHost(&s->upload_slot[k], KRYL_CUDA_UPLOAD_CHUNK) != cudaSuccess ||
            cudaEventCreateWithFlags(&s->upload_done[k], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventRecord(s->upload_done[k], s->stream) != cudaSuccess) {
            cudaGetLastError();
            kryl_cuda_upload_release(s);
            s->upload_tried = true; /* copied directly from now on */
            return false;
        }
    }
    return true;
}

kryl_status kryl_cuda_upload_from_host(kryl_cuda_state *s, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return KRYL_SUCCESS;
    if (bytes < KRYL_CUDA_UPLOAD_MIN || !ring_ready(s)) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s->stream));
        return KRYL_SUCCESS;
    }
    const int threads = kryl_host_threads(s->ctx);
    for (size_t at = 0, chunk = 0; at < bytes; at += KRYL_CUDA_UPLOAD_CHUNK, chunk++) {
        const int k = (int)(chunk % KRYL_CUDA_UPLOAD_SLOTS);
        const size_t count =
            bytes - at < KRYL_CUDA_UPLOAD_CHUNK ? bytes - at : KRYL_CUDA_UPLOAD_CHUNK;
        /* slot k is free once its last DMA is done */
        KRYL_CUDA_CHECK(cudaEventSynchronize(s->upload_done[k]));
        kryl_host_copy(s->upload_slot[k], static_cast<const char *>(src) + at, count, threads);
        KRYL_CUDA_CHECK(cudaMemcpyAsync(static_cast<char *>(dst) + at, s->upload_slot[k], count,
                                        cudaMemcpyHostToDevice, s->stream));
        KRYL_CUDA_CHECK(cudaEventRecord(s->upload_done[k], s->stream));
    }
    return KRYL_SUCCESS;
}

void kryl_cuda_upload_release(kryl_cuda_state *s)
{
    for (int k = 0; k < KRYL_CUDA_UPLOAD_SLOTS; k++) {
        if (s->upload_done[k]) {
            cudaEventSynchronize(s->upload_done[k]);
            cudaEventDestroy(s->upload_done[k]);
        }
        if (s->upload_slot[k]) cudaFreeHost(s->upload_slot[k]);
        s->upload_done[k] = nullptr;
        s->upload_slot[k] = nullptr;
    }
    s->upload_tried = false;
}
