/* The host path of the device triangular solves, for triangles whose level
 * schedule is a long chain (a tridiagonal factor in natural order has a
 * level per row), where every device path waits on one row at a time: b is
 * copied to a pinned buffer, a host function substitutes row after row
 * (ref's solve, kryl_ref_trsv) into a second pinned buffer, and x is copied
 * back.  All three are queued on the context's stream (cudaLaunchHostFunc),
 * so the solve neither synchronises nor allocates, and a captured graph
 * records it as two copy nodes and a host node. */
#include <string.h>

#include "backends/cuda/cuda_trsv.cuh"

/* x = T^{-1} b in D's pinned buffers, run by the stream */
static void CUDART_CB host_solve(void *user)
{
    cuda_trsv *D = static_cast<cuda_trsv *>(user);
    kryl_ref_trsv(nullptr, D->host, &D->host_b, &D->host_x);
}

kryl_status kryl_cuda_trsv_host_setup(cuda_trsv *D)
{
    const size_t bytes = (size_t)(D->n > 0 ? D->n : 1) * kryl_precision_size(D->precision);
    struct kryl_vector_s *v[2] = {&D->host_b, &D->host_x};
    for (int k = 0; k < 2; k++) {
        memset(v[k], 0, sizeof *v[k]);
        v[k]->n = D->n;
        v[k]->precision = D->precision;
        cudaError_t err = cudaMallocHost(&v[k]->data, bytes);
        if (err != cudaSuccess) {
            v[k]->data = nullptr;
            cudaGetLastError();
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                              "cuda trsv_setup: cannot allocate %zu bytes of pinned host memory "
                              "for the host solve path (%s)",
                              bytes, cudaGetErrorString(err));
        }
    }
    return KRYL_SUCCESS;
}

void kryl_cuda_trsv_host_release(cuda_trsv *D)
{
    if (D->host_b.data) cudaFreeHost(D->host_b.data);
    if (D->host_x.data) cudaFreeHost(D->host_x.data);
    cudaGetLastError();
    D->host_b.data = D->host_x.data = nullptr;
    kryl_ref_trsv_release(nullptr, D->host);
    D->host = nullptr;
}

kryl_status kryl_cuda_trsv_host(kryl_cuda_state *s, cuda_trsv *D, const void *b, void *x)
{
    if (D->n == 0) return KRYL_SUCCESS;
    const size_t bytes = (size_t)D->n * kryl_precision_size(D->precision);
    /* host_b = b;  host_x = T^{-1} host_b on the host;  x = host_x */
    KRYL_CUDA_CHECK(cudaMemcpyAsync(D->host_b.data, b, bytes, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaLaunchHostFunc(s->stream, host_solve, D));
    KRYL_CUDA_CHECK(cudaMemcpyAsync(x, D->host_x.data, bytes, cudaMemcpyHostToDevice, s->stream));
    return KRYL_SUCCESS;
}
