/* SpMV of the cuda backend against cuSPARSE (cusparseSpMV, CSR_ALG1, buffer
 * preprocessed once) in double, on the Poisson matrices of the CG benchmark,
 * in one run on one stream.
 *
 * Each time is the median over batches (events around `batch` launches, after
 * at least 25 ms of warm-up) of the time per launch.  Bandwidth counts the bytes the product
 * must move at least, each array once:
 *     bytes = nnz*(8 + 4)   values (double) and column indices (int32)
 *           + (n + 1)*4     row offsets (int32)
 *           + n*8 + n*8     x read once, y written once
 * and is compared with a device-to-device cudaMemcpy of 1 GiB (bytes read
 * plus bytes written over its time).  Every kernel variant of the backend is
 * timed too; "auto" is the one its setup chose from the row lengths.
 *
 * usage: bench_spmv [--quick]   (--quick: smaller grids, for a smoke test) */
#include <cstring>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/cuda_hooks.h"

#define BENCH_NAME "bench_spmv"
#include "bench_common.cuh"

/* Bandwidth of a device-to-device copy of 1 GiB in GB/s (read + written). */
static double copy_bandwidth(cudaStream_t stream)
{
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CUDA_OK(cudaMalloc(&a, bytes));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaMemsetAsync(a, 1, bytes, stream));
    double ms = time_ms(
        stream, [&] { CUDA_OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream)); }, 5,
        10);
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    return 2.0 * (double)bytes / (ms * 1e6);
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    kryl_context ctx = cuda_context();
    cudaStream_t stream = static_cast<cudaStream_t>(kryl_cuda_stream(ctx));
    const double copy_gbs = copy_bandwidth(stream);
    printf("bench_spmv on %s\n", kryl_context_device_name(ctx));
    printf("device-to-device copy: %.0f GB/s (read + written)\n", copy_gbs);
    printf("bytes = nnz*12 + (n+1)*4 + n*16 (values, columns, offsets, x once, y once)\n\n");
    printf("%-16s %-10s %10s %9s %7s %9s\n", "matrix", "kernel", "ms", "GB/s", "%copy",
           "cusp/ours");

    const int kernels[][2] = {{-1, 0},
                              {KRYL_CUDA_SPMV_STREAM, 0},
                              {KRYL_CUDA_SPMV_VECTOR, 1},
                              {KRYL_CUDA_SPMV_VECTOR, 2},
                              {KRYL_CUDA_SPMV_VECTOR, 4},
                              {KRYL_CUDA_SPMV_VECTOR, 8},
                              {KRYL_CUDA_SPMV_VECTOR, 16},
                              {KRYL_CUDA_SPMV_VECTOR, 32}};
    for (const poisson_problem &pb : poisson_problems) {
        char label[64];
        kryl_matrix A =
            generated(ctx, pb.kind, quick ? pb.quick_size : pb.size, label, sizeof label);
        int64_t n, nnz;
        KRYL_OK(kryl_matrix_size(A, &n, nullptr, &nnz));
        const double bytes = (double)nnz * 12.0 + (double)(n + 1) * 4.0 + (double)n * 16.0;
        const int batch = n > 1000000 ? 10 : 50, batches = 31;

        kryl_vector x, y;
        KRYL_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
        KRYL_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
        const std::vector<double> hx = spmv_x(n);
        std::vector<double> hy(n), hc(n);
        KRYL_OK(kryl_vector_set(x, hx.data(), n));

        /* cuSPARSE first: its y is the check of every kernel below */
        double *d_y;
        CUDA_OK(cudaMalloc(&d_y, n * sizeof(double)));
        const double cusparse_ms =
            cusparse_spmv_ms(A, stream, static_cast<const double *>(x->data), d_y, batch, batches);
        CUDA_OK(cudaMemcpy(hc.data(), d_y, n * sizeof(double), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaFree(d_y));
        printf("%-16s %-10s %10.4f %9.0f %6.1f%% %9s\n", label, "cuSPARSE", cusparse_ms,
               bytes / (cusparse_ms * 1e6), 100.0 * bytes / (cusparse_ms * 1e6) / copy_gbs, "");

        double auto_ms = 0.0;
        char auto_name[32];
        kryl_cuda_spmv_describe(A, auto_name, sizeof auto_name);
        for (const auto &k : kernels) {
            if (k[0] >= 0) KRYL_OK(kryl_cuda_spmv_select(A, (kryl_cuda_spmv_kernel)k[0], k[1]));
            char name[48];
            kryl_cuda_spmv_describe(A, name, sizeof name);
            const double ms = time_ms(
                stream, [&] { KRYL_OK(ctx->ops->spmv(ctx, A, 1.0, x, 0.0, nullptr, y, nullptr)); },
                batch, batches);
            KRYL_OK(kryl_vector_get(y, hy.data(), n));
            const double diff = scaled_diff(hy, hc);
            if (diff > 1e-12) {
                fprintf(stderr, "bench_spmv: %s %s differs from cuSPARSE by %.3g\n", label, name,
                        diff);
                return 1;
            }
            if (k[0] < 0) {
                auto_ms = ms;
                snprintf(name, sizeof name, "auto:%s", auto_name);
            }
            printf("%-16s %-10s %10.4f %9.0f %6.1f%% %9.3f\n", label, name, ms, bytes / (ms * 1e6),
                   100.0 * bytes / (ms * 1e6) / copy_gbs, cusparse_ms / ms);
        }
        printf("RESULT spmv %s n=%lld nnz=%lld kernel=%s kryl_ms=%.4f cusparse_ms=%.4f "
               "ratio=%.3f copy_pct=%.1f\n\n",
               label, (long long)n, (long long)nnz, auto_name, auto_ms, cusparse_ms,
               cusparse_ms / auto_ms, 100.0 * bytes / (auto_ms * 1e6) / copy_gbs);
        KRYL_OK(kryl_vector_destroy(&x));
        KRYL_OK(kryl_vector_destroy(&y));
        KRYL_OK(kryl_matrix_destroy(&A));
    }
    KRYL_OK(kryl_context_destroy(&ctx));
    return 0;
}
