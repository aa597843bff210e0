/* Copies over the host link on the context's second stream (backend.h):
 * each waits, through an event, for the work queued on the main stream
 * before it, then overlaps what is queued after. */
#include "backends/cuda/cuda_internal.cuh"

/* The link stream waits for the work queued on the main stream so far. */
static kryl_status link_after_queued(kryl_context ctx, kryl_cuda_state **state)
{
    KRYL_TRY(kryl_cuda_enter(ctx, state));
    kryl_cuda_state *s = *state;
    KRYL_CUDA_CHECK(cudaEventRecord(s->link_start, s->stream));
    KRYL_CUDA_CHECK(cudaStreamWaitEvent(s->link, s->link_start, 0));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_copy_to_host_async(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    if (bytes == 0) return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(link_after_queued(ctx, &s));
    KRYL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s->link));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_copy_from_host_async(kryl_context ctx, void *dst, const void *src,
                                           size_t bytes)
{
    if (bytes == 0) return KRYL_SUCCESS;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(link_after_queued(ctx, &s));
    KRYL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s->link));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_copy_wait(kryl_context ctx)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->link));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_host_pin(kryl_context ctx, void *ptr, size_t bytes)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (ptr == nullptr || bytes == 0) return KRYL_SUCCESS;
    /* memory that cannot be page-locked (a locked-memory limit) is still
     * copied, staged by the driver: slower, not wrong */
    if (cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) != cudaSuccess) cudaGetLastError();
    return KRYL_SUCCESS;
}

void kryl_cuda_host_unpin(kryl_context ctx, void *ptr)
{
    kryl_cuda_state *s = nullptr;
    if (ptr == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    cudaHostUnregister(ptr);
    cudaGetLastError(); /* memory that was never pinned: nothing to undo */
}
