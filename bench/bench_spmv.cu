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
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_hooks.h"
#include "kryl.h"

#define CUDA_OK(call)     check((call) == cudaSuccess, #call, cudaGetErrorString(cudaGetLastError()))
#define CUSPARSE_OK(call) check((call) == CUSPARSE_STATUS_SUCCESS, #call, "cuSPARSE error")
#define KRYL_OK(call)     check((call) == KRYL_SUCCESS, #call, kryl_last_error())

static void check(bool ok, const char *call, const char *why)
{
    if (ok) return;
    fprintf(stderr, "bench_spmv: %s failed: %s\n", call, why);
    exit(1);
}

/* Median milliseconds per call of launch(), timed on stream in batches. */
template <typename F> static double time_ms(cudaStream_t stream, F &&launch, int batch, int batches)
{
    /* warm-up: at least two batches and 25 ms of launches, so that clocks
     * that fell while the host built the matrix are back up */
    const auto warm_start = std::chrono::steady_clock::now();
    for (int w = 0;
         w < 2 || std::chrono::steady_clock::now() - warm_start < std::chrono::milliseconds(25);
         w++) {
        for (int i = 0; i < batch; i++) launch();
        CUDA_OK(cudaStreamSynchronize(stream));
    }
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    std::vector<double> times;
    for (int r = 0; r < batches; r++) {
        CUDA_OK(cudaEventRecord(start, stream));
        for (int i = 0; i < batch; i++) launch();
        CUDA_OK(cudaEventRecord(stop, stream));
        CUDA_OK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back((double)ms / batch);
    }
    CUDA_OK(cudaEventDestroy(start));
    CUDA_OK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

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

/* y = A x through cuSPARSE on A's CSR (int32 offsets), timed; y_out receives y. */
static double cusparse_spmv_ms(kryl_matrix A, cudaStream_t stream, const double *d_x, double *d_y,
                               int batch, int batches)
{
    int64_t n, ncols, nnz;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    KRYL_OK(kryl_matrix_size(A, &n, &ncols, &nnz));
    KRYL_OK(kryl_matrix_csr_view(A, &rp, &ci, &va));
    std::vector<int32_t> rp32(rp, rp + n + 1);
    int32_t *d_rp, *d_ci;
    double *d_va;
    CUDA_OK(cudaMalloc(&d_rp, (n + 1) * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&d_ci, nnz * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&d_va, nnz * sizeof(double)));
    CUDA_OK(cudaMemcpy(d_rp, rp32.data(), (n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_ci, ci, nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_va, va, nnz * sizeof(double), cudaMemcpyHostToDevice));
    cusparseHandle_t handle;
    CUSPARSE_OK(cusparseCreate(&handle));
    CUSPARSE_OK(cusparseSetStream(handle, stream));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vx, vy;
    CUSPARSE_OK(cusparseCreateCsr(&mat, n, ncols, nnz, d_rp, d_ci, d_va, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, ncols, (void *)d_x, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vy, n, d_y, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    size_t buffer_bytes = 0;
    void *buffer = nullptr;
    CUSPARSE_OK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                        &buffer_bytes));
    CUDA_OK(cudaMalloc(&buffer, buffer_bytes ? buffer_bytes : 1));
    CUSPARSE_OK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buffer));
    double ms = time_ms(
        stream,
        [&] {
            CUSPARSE_OK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero,
                                     vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buffer));
        },
        batch, batches);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUSPARSE_OK(cusparseDestroySpMat(mat));
    CUSPARSE_OK(cusparseDestroyDnVec(vx));
    CUSPARSE_OK(cusparseDestroyDnVec(vy));
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaFree(buffer));
    CUDA_OK(cudaFree(d_rp));
    CUDA_OK(cudaFree(d_ci));
    CUDA_OK(cudaFree(d_va));
    return ms;
}

struct problem {
    kryl_generator_kind kind;
    int64_t size, quick_size;
};

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const problem problems[] = {{KRYL_GEN_POISSON3D7, 160, 40},
                                {KRYL_GEN_POISSON3D27, 100, 30},
                                {KRYL_GEN_POISSON2D5, 300, 100}};
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_CUDA;
    kryl_context ctx;
    KRYL_OK(kryl_context_create(&ctx, &copt));
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
    for (const problem &pb : problems) {
        const int64_t size = quick ? pb.quick_size : pb.size;
        kryl_generator_options g;
        kryl_generator_options_init(&g, pb.kind, size);
        int64_t n, nnz;
        KRYL_OK(kryl_generator_size(&g, &n, &nnz));
        kryl_matrix A;
        KRYL_OK(kryl_matrix_generate(&A, ctx, &g, 0, n));
        KRYL_OK(kryl_matrix_size(A, &n, nullptr, &nnz));
        char label[64];
        snprintf(label, sizeof label, "%s-%lld", kryl_generator_name(pb.kind), (long long)size);
        const double bytes = (double)nnz * 12.0 + (double)(n + 1) * 4.0 + (double)n * 16.0;
        const int batch = n > 1000000 ? 10 : 50, batches = 31;

        kryl_vector x, y;
        KRYL_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
        KRYL_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
        std::vector<double> hx(n), hy(n), hc(n);
        for (int64_t i = 0; i < n; i++) hx[i] = 1.0 + (double)((i * 7919) % 1000) / 1000.0;
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
            double diff = 0.0, scale = 1.0;
            for (int64_t i = 0; i < n; i++) {
                diff = std::max(diff, std::abs(hy[i] - hc[i]));
                scale = std::max(scale, std::abs(hc[i]));
            }
            if (diff > 1e-12 * scale) {
                fprintf(stderr, "bench_spmv: %s %s differs from cuSPARSE by %.3g\n", label, name,
                        diff / scale);
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
