/* Whole CG solves in double: kryl (public API, cuda backend) against a
 * cuSPARSE + cuBLAS CG written the way CUDA's conjugateGradient sample writes
 * it (cusparseSpMV, cublasDdot/Daxpy/Dscal/Dcopy with the host reading each
 * dot result, so every iteration waits for the device).
 *
 * Problems: the 3-D 7-point Poisson on 160^3, the 27-point on 100^3, the 2-D
 * 5-point on 300^2, all from kryl_matrix_generate; b = A*1, x0 = 0,
 * ||b - A x_k|| <= 1e-8 ||b|| on the recursive residual (kryl then checks the
 * true one).  Printed: ms per iteration (solve wall time / iterations
 * executed, median of 3 solves after a warm-up solve), iterations and the
 * true relative residual ||b - A x|| / ||b|| computed on the host in double.
 *
 * usage: bench_cg [--quick]   (--quick: smaller grids, for a smoke test) */
#include <cstring>

#include <cublas_v2.h>

#define BENCH_NAME "bench_cg"
#include "bench_common.cuh"

#define CUBLAS_OK(call) check((call) == CUBLAS_STATUS_SUCCESS, #call, "cuBLAS error")

/* ||b - A x|| / ||b|| on the host, in double with A's values. */
static double true_relres(kryl_matrix A, const std::vector<double> &b, const std::vector<double> &x)
{
    int64_t n;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    KRYL_OK(kryl_matrix_size(A, &n, nullptr, nullptr));
    KRYL_OK(kryl_matrix_csr_view(A, &rp, &ci, &va));
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ax = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) ax += va[k] * x[ci[k]];
        rr += (b[i] - ax) * (b[i] - ax);
        bb += b[i] * b[i];
    }
    return std::sqrt(rr / bb);
}

struct outcome {
    double ms_per_iteration;
    int64_t iterations;
    double relres;
};

/* kryl CG on the cuda backend. */
static outcome kryl_cg(kryl_matrix A, const std::vector<double> &b)
{
    int64_t n;
    KRYL_OK(kryl_matrix_size(A, &n, nullptr, nullptr));
    kryl_solver_options opt;
    kryl_solver_options_init(&opt);
    opt.method = KRYL_METHOD_CG;
    opt.precision = KRYL_DOUBLE;
    opt.rtol = 1e-8;
    opt.max_iterations = 20000;
    kryl_solver solver;
    KRYL_OK(kryl_solver_create(&solver, A, &opt));
    kryl_vector vb, vx;
    KRYL_OK(kryl_vector_create(&vb, A, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_create(&vx, A, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_set(vb, b.data(), n));
    std::vector<double> per_iteration;
    kryl_result res;
    for (int run = 0; run < 4; run++) {
        KRYL_OK(kryl_vector_fill(vx, 0.0));
        KRYL_OK(kryl_solver_solve(solver, vb, vx, &res));
        if (run > 0) per_iteration.push_back(1e3 * res.solve_s / (double)res.iterations);
    }
    std::sort(per_iteration.begin(), per_iteration.end());
    std::vector<double> x(n);
    KRYL_OK(kryl_vector_get(vx, x.data(), n));
    outcome o = {per_iteration[per_iteration.size() / 2], res.iterations, true_relres(A, b, x)};
    if (!res.converged)
        fprintf(stderr, "bench_cg: kryl did not converge: %s\n", kryl_reason_name(res.reason));
    KRYL_OK(kryl_vector_destroy(&vb));
    KRYL_OK(kryl_vector_destroy(&vx));
    KRYL_OK(kryl_solver_destroy(&solver));
    return o;
}

/* The CG loop of CUDA's conjugateGradient sample, on A's CSR (int32 offsets). */
static outcome samples_cg(kryl_matrix A, const std::vector<double> &b)
{
    device_csr d = device_csr_upload(A);
    const int64_t n = d.n;
    double *d_x, *d_r, *d_p, *d_ax;
    for (double **v : {&d_x, &d_r, &d_p, &d_ax}) CUDA_OK(cudaMalloc(v, n * sizeof(double)));

    cublasHandle_t cublas;
    cusparseHandle_t cusparse;
    CUBLAS_OK(cublasCreate(&cublas));
    CUSPARSE_OK(cusparseCreate(&cusparse));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vx, vp, vax;
    CUSPARSE_OK(cusparseCreateCsr(&mat, n, n, d.nnz, d.rp, d.ci, d.va, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vx, n, d_x, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vp, n, d_p, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&vax, n, d_ax, CUDA_R_64F));
    const double one = 1.0, minus_one = -1.0, zero = 0.0;
    size_t buffer_bytes = 0;
    void *buffer;
    CUSPARSE_OK(cusparseSpMV_bufferSize(cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx,
                                        &zero, vax, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                                        &buffer_bytes));
    CUDA_OK(cudaMalloc(&buffer, buffer_bytes ? buffer_bytes : 1));
    double bnorm = 0.0;
    for (double v : b) bnorm += v * v;
    const double tol = 1e-8 * std::sqrt(bnorm);
    const int max_iterations = 20000;

    std::vector<double> per_iteration;
    int k = 0;
    for (int run = 0; run < 4; run++) {
        CUDA_OK(cudaMemset(d_x, 0, n * sizeof(double)));
        CUDA_OK(cudaMemcpy(d_r, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
        CUDA_OK(cudaDeviceSynchronize());
        const double t0 = now_s();
        /* r = b - A x0;  r1 = r'r */
        CUSPARSE_OK(cusparseSpMV(cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero,
                                 vax, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
        CUBLAS_OK(cublasDaxpy(cublas, (int)n, &minus_one, d_ax, 1, d_r, 1));
        double r1, r0 = 0.0, dot;
        CUBLAS_OK(cublasDdot(cublas, (int)n, d_r, 1, d_r, 1, &r1));
        k = 1;
        while (r1 > tol * tol && k <= max_iterations) {
            if (k > 1) {
                /* p = r + (r1/r0) p */
                const double beta = r1 / r0;
                CUBLAS_OK(cublasDscal(cublas, (int)n, &beta, d_p, 1));
                CUBLAS_OK(cublasDaxpy(cublas, (int)n, &one, d_r, 1, d_p, 1));
            } else {
                CUBLAS_OK(cublasDcopy(cublas, (int)n, d_r, 1, d_p, 1));
            }
            /* ax = A p;  alpha = r1 / p'ax;  x += alpha p;  r -= alpha ax;  r1 = r'r */
            CUSPARSE_OK(cusparseSpMV(cusparse, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vp,
                                     &zero, vax, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
            CUBLAS_OK(cublasDdot(cublas, (int)n, d_p, 1, d_ax, 1, &dot));
            const double alpha = r1 / dot, minus_alpha = -alpha;
            CUBLAS_OK(cublasDaxpy(cublas, (int)n, &alpha, d_p, 1, d_x, 1));
            CUBLAS_OK(cublasDaxpy(cublas, (int)n, &minus_alpha, d_ax, 1, d_r, 1));
            r0 = r1;
            CUBLAS_OK(cublasDdot(cublas, (int)n, d_r, 1, d_r, 1, &r1));
            CUDA_OK(cudaDeviceSynchronize());
            k++;
        }
        const double seconds = now_s() - t0;
        if (run > 0) per_iteration.push_back(1e3 * seconds / (double)(k - 1));
    }
    std::sort(per_iteration.begin(), per_iteration.end());
    std::vector<double> x(n);
    CUDA_OK(cudaMemcpy(x.data(), d_x, n * sizeof(double), cudaMemcpyDeviceToHost));
    outcome o = {per_iteration[per_iteration.size() / 2], k - 1, true_relres(A, b, x)};

    CUSPARSE_OK(cusparseDestroySpMat(mat));
    for (cusparseDnVecDescr_t v : {vx, vp, vax}) CUSPARSE_OK(cusparseDestroyDnVec(v));
    CUSPARSE_OK(cusparseDestroy(cusparse));
    CUBLAS_OK(cublasDestroy(cublas));
    for (void *p : {(void *)d_x, (void *)d_r, (void *)d_p, (void *)d_ax, buffer})
        CUDA_OK(cudaFree(p));
    device_csr_free(d);
    return o;
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    kryl_context ctx = cuda_context();
    printf("bench_cg on %s: double, rtol 1e-8, b = A*1, x0 = 0\n\n", kryl_context_device_name(ctx));
    printf("%-16s %9s | %10s %6s %9s | %10s %6s %9s | %7s\n", "matrix", "n", "kryl ms/it", "its",
           "relres", "samp ms/it", "its", "relres", "speedup");
    for (const poisson_problem &pb : poisson_problems) {
        char label[64];
        kryl_matrix A =
            generated(ctx, pb.kind, quick ? pb.quick_size : pb.size, label, sizeof label);
        int64_t n;
        KRYL_OK(kryl_matrix_size(A, &n, nullptr, nullptr));
        kryl_vector vb = rhs_of_ones(A);
        std::vector<double> b(n);
        KRYL_OK(kryl_vector_get(vb, b.data(), n));
        KRYL_OK(kryl_vector_destroy(&vb));

        const outcome ours = kryl_cg(A, b), theirs = samples_cg(A, b);
        printf("%-16s %9lld | %10.4f %6lld %9.2e | %10.4f %6lld %9.2e | %7.2f\n", label,
               (long long)n, ours.ms_per_iteration, (long long)ours.iterations, ours.relres,
               theirs.ms_per_iteration, (long long)theirs.iterations, theirs.relres,
               theirs.ms_per_iteration / ours.ms_per_iteration);
        printf("RESULT cg %s kryl_ms_it=%.4f kryl_its=%lld kryl_relres=%.3e samples_ms_it=%.4f "
               "samples_its=%lld samples_relres=%.3e\n",
               label, ours.ms_per_iteration, (long long)ours.iterations, ours.relres,
               theirs.ms_per_iteration, (long long)theirs.iterations, theirs.relres);
        fflush(stdout);
        KRYL_OK(kryl_matrix_destroy(&A));
    }
    KRYL_OK(kryl_context_destroy(&ctx));
    return 0;
}
