/* Pieces the CUDA benchmarks share: error checks that end the program, a
 * median event timer, generated problems (b = A*1), the device CSR with int32
 * offsets and cuSPARSE's CSR SpMV (CSR_ALG1, buffer preprocessed once) on it.
 *
 * Include after defining BENCH_NAME (the program's name, for messages). */
#ifndef KRYL_BENCH_COMMON_CUH
#define KRYL_BENCH_COMMON_CUH

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#include "kryl.h"

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_common.cuh"
#endif

#define CUDA_OK(call)     check((call) == cudaSuccess, #call, cudaGetErrorString(cudaGetLastError()))
#define CUSPARSE_OK(call) check((call) == CUSPARSE_STATUS_SUCCESS, #call, "cuSPARSE error")
#define KRYL_OK(call)     check((call) == KRYL_SUCCESS, #call, kryl_last_error())

static void check(bool ok, const char *call, const char *why)
{
    if (ok) return;
    fprintf(stderr, BENCH_NAME ": %s failed: %s\n", call, why);
    exit(1);
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* Median milliseconds per call of launch(), timed on stream in batches after
 * at least 25 ms (and two batches) of warm-up, so that clocks that fell while
 * the host built the matrix are back up. */
template <typename F> static double time_ms(cudaStream_t stream, F &&launch, int batch, int batches)
{
    const double warm_start = now_s();
    for (int w = 0; w < 2 || now_s() - warm_start < 0.025; w++) {
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

/* A context on the cuda backend. */
static kryl_context cuda_context()
{
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_CUDA;
    kryl_context ctx;
    KRYL_OK(kryl_context_create(&ctx, &copt));
    return ctx;
}

/* A generator's matrix of the given size, and its label "<name>-<size>". */
static kryl_matrix generated(kryl_context ctx, kryl_generator_kind kind, int64_t size,
                             char *label = nullptr, size_t label_size = 0)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, size);
    int64_t n, nnz;
    KRYL_OK(kryl_generator_size(&g, &n, &nnz));
    kryl_matrix A;
    KRYL_OK(kryl_matrix_generate(&A, ctx, &g, 0, n));
    if (label != nullptr)
        snprintf(label, label_size, "%s-%lld", kryl_generator_name(kind), (long long)size);
    return A;
}

/* b = A*1, in a new double vector of A's layout. */
static kryl_vector rhs_of_ones(kryl_matrix A)
{
    kryl_vector ones, b;
    KRYL_OK(kryl_vector_create(&ones, A, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_fill(ones, 1.0));
    /* b = A*1 */
    KRYL_OK(kryl_matrix_spmv(A, 1.0, ones, 0.0, b));
    KRYL_OK(kryl_vector_destroy(&ones));
    return b;
}

/* The SpMV benchmarks' x: x_i = 1 + ((7919 i) mod 1000) / 1000. */
static std::vector<double> spmv_x(int64_t n)
{
    std::vector<double> x(n);
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 + (double)((i * 7919) % 1000) / 1000.0;
    return x;
}

/* max_i |y_i - ref_i| / max(1, max_i |ref_i|) */
static double scaled_diff(const std::vector<double> &y, const std::vector<double> &ref)
{
    double diff = 0.0, scale = 1.0;
    for (size_t i = 0; i < ref.size(); i++) {
        diff = std::max(diff, std::abs(y[i] - ref[i]));
        scale = std::max(scale, std::abs(ref[i]));
    }
    return diff / scale;
}

/* A's CSR on the device with int32 row offsets. */
struct device_csr {
    int64_t n, ncols, nnz;
    int32_t *rp, *ci;
    double *va;
};

static device_csr device_csr_upload(kryl_matrix A)
{
    device_csr d;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    KRYL_OK(kryl_matrix_size(A, &d.n, &d.ncols, &d.nnz));
    KRYL_OK(kryl_matrix_csr_view(A, &rp, &ci, &va));
    std::vector<int32_t> rp32(rp, rp + d.n + 1);
    CUDA_OK(cudaMalloc(&d.rp, (d.n + 1) * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&d.ci, std::max<int64_t>(d.nnz, 1) * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&d.va, std::max<int64_t>(d.nnz, 1) * sizeof(double)));
    CUDA_OK(cudaMemcpy(d.rp, rp32.data(), (d.n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.ci, ci, d.nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.va, va, d.nnz * sizeof(double), cudaMemcpyHostToDevice));
    return d;
}

static void device_csr_free(device_csr &d)
{
    CUDA_OK(cudaFree(d.rp));
    CUDA_OK(cudaFree(d.ci));
    CUDA_OK(cudaFree(d.va));
}

/* y = A x through cuSPARSE on A's CSR (int32 offsets) on stream, timed with
 * time_ms(batch, batches); d_y holds y afterwards. */
static double cusparse_spmv_ms(kryl_matrix A, cudaStream_t stream, const double *d_x, double *d_y,
                               int batch, int batches)
{
    device_csr d = device_csr_upload(A);
    cusparseHandle_t handle;
    CUSPARSE_OK(cusparseCreate(&handle));
    CUSPARSE_OK(cusparseSetStream(handle, stream));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vx, vy;
    CUSPARSE_OK(cusparseCreateCsr(&mat, d.n, d.ncols, d.nnz, d.rp, d.ci, d.va, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, d.ncols, (void *)d_x, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vy, d.n, d_y, CUDA_R_64F));
    const double one = 1.0, zero = 0.0;
    size_t buffer_bytes = 0;
    void *buffer = nullptr;
    CUSPARSE_OK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1,
                                        &buffer_bytes));
    CUDA_OK(cudaMalloc(&buffer, buffer_bytes ? buffer_bytes : 1));
    CUSPARSE_OK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buffer));
    auto launch = [&] {
        CUSPARSE_OK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                 CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buffer));
    };
    const double ms = time_ms(stream, launch, batch, batches);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUSPARSE_OK(cusparseDestroySpMat(mat));
    CUSPARSE_OK(cusparseDestroyDnVec(vx));
    CUSPARSE_OK(cusparseDestroyDnVec(vy));
    CUSPARSE_OK(cusparseDestroy(handle));
    CUDA_OK(cudaFree(buffer));
    device_csr_free(d);
    return ms;
}

/* The Poisson problems of the SpMV and CG benchmarks (size, --quick size). */
struct poisson_problem {
    kryl_generator_kind kind;
    int64_t size, quick_size;
};
static const poisson_problem poisson_problems[] = {{KRYL_GEN_POISSON3D7, 160, 40},
                                                   {KRYL_GEN_POISSON3D27, 100, 30},
                                                   {KRYL_GEN_POISSON2D5, 300, 100}};

#endif
