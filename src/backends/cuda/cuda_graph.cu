/* CUDA graphs on the cuda backend: the operations queued on the context's
 * stream between capture_begin and capture_end are recorded (stream
 * capture, thread-local mode, so other threads' CUDA calls are not
 * affected) and instantiated once; graph_launch replays them with one
 * launch, removing the per-kernel launch cost from short iterations.  Every
 * operation a solver step queues is capture-safe: kernels and device-to-
 * device copies on the context's stream, with no allocation, no host copy
 * and no synchronisation. */
#include "backends/cuda/cuda_krylov.cuh"

kryl_status kryl_cuda_capture_begin(kryl_context ctx)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_CUDA_CHECK(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_capture_end(kryl_context ctx, void **graph)
{
    KRYL_REQUIRE_ARG(graph);
    *graph = nullptr;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    /* ends the capture even when an operation inside it failed and invalidated it */
    cudaGraph_t recorded = nullptr;
    cudaError_t err = cudaStreamEndCapture(s->stream, &recorded);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* the stream is usable again: clear the error */
        return kryl_cuda_failed(err, "cudaStreamEndCapture", KRYL_WHERE);
    }
    cudaGraphExec_t exec = nullptr;
    /* kernels keep the priority of the stream they were captured on: over
     * ranks the halo's wait and ghost product, queued on a high-priority
     * stream, then run beside the local product instead of after it */
    err = cudaGraphInstantiate(&exec, recorded, cudaGraphInstantiateFlagUseNodePriority);
    cudaGraphDestroy(recorded);
    /* the graph's first launch then costs no more than the others */
    if (err == cudaSuccess) err = cudaGraphUpload(exec, s->stream);
    if (err != cudaSuccess) {
        if (exec) cudaGraphExecDestroy(exec);
        cudaGetLastError();
        return kryl_cuda_failed(err, "instantiating the captured graph", KRYL_WHERE);
    }
    *graph = exec;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_graph_launch(kryl_context ctx, void *graph)
{
    KRYL_REQUIRE_ARG(graph);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_CUDA_CHECK(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), s->stream));
    return KRYL_SUCCESS;
}

void kryl_cuda_graph_release(kryl_context ctx, void *graph)
{
    kryl_cuda_state *s = nullptr;
    if (graph == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
    cudaGetLastError(); /* teardown errors are not reported: clear them */
}
