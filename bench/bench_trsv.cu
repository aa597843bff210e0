/* Sparse triangular solves of IC(0) factors on the device, the analogue of
 * Li & Saad 2013, Tables 4-5: every solve path of the cuda backend (levels,
 * syncfree, host, and "auto", the one setup picks for each triangle)
 * against cusparseSpSV on the same factor (CSR, same values, analysis done
 * once and not timed), in double, in one run on one stream.
 *
 * Problems: 7-point Poisson 160^3, 27-point 100^3, 5-point 1000^2 and
 * 300^2, each factored (kryl_factor_ic0) in natural, RCM, greedy multicolor
 * (levels = colors: the multicolor IC(0) of section 5.3) and (when the
 * build has it) AMD order.  For each: the level counts of L and U, the time
 * of a solve with L and with U, GFLOP/s of L (2 flops per stored entry),
 * the whole IC(0) apply (L then U) against cuSPARSE's two SpSV calls, and
 * the ratios to cuSPARSE on the natural-order factor.  Times are medians
 * of 21 repetitions timed with CUDA events (bench_common.cuh, time_ms);
 * every solution is checked against cuSPARSE's.
 *
 * usage: bench_trsv [--quick] [matrix...]   (--quick: small grids, for a smoke
 * test; matrix: labels such as poisson3d-160 to run only those) */
#include <cstring>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_trsv_hooks.h"
#include "factor/factor.h"
#include "order/order.h"

#define BENCH_NAME "bench_trsv"
#include "bench_common.cuh"

static const int REPS = 21;

/* B = P A P^T: row i of B is row perm[i] of A, column j becomes inv[j],
 * columns sorted. */
static kryl_csr permuted(const kryl_csr *A, const int32_t *perm)
{
    const int64_t n = A->nrows;
    kryl_csr B = {};
    KRYL_OK(kryl_csr_alloc(&B, n, n, kryl_csr_nnz(A)));
    std::vector<int32_t> inv(n);
    for (int64_t i = 0; i < n; i++) inv[perm[i]] = (int32_t)i;
    B.row_ptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = B.row_ptr[i];
        /* b_{i, inv[j]} = a_{perm[i], j} */
        for (int64_t e = A->row_ptr[perm[i]]; e < A->row_ptr[perm[i] + 1]; e++, k++) {
            B.col_idx[k] = inv[A->col_idx[e]];
            B.values[k] = A->values[e];
        }
        B.row_ptr[i + 1] = k;
    }
    KRYL_OK(kryl_csr_sort_and_sum(&B));
    return B;
}

/* One triangle for cusparseSpSV: CSR with int32 offsets, X -> Y fixed. */
struct cusparse_triangle {
    int32_t *rp, *ci;
    double *va;
    void *buffer;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t x, y;
    cusparseSpSVDescr_t spsv;
};

static const double ONE = 1.0;

static cusparse_triangle cusparse_setup(cusparseHandle_t h, const kryl_csr *T, bool lower,
                                        const double *d_in, double *d_out)
{
    cusparse_triangle t;
    const int64_t n = T->nrows, nnz = kryl_csr_nnz(T);
    std::vector<int32_t> rp(T->row_ptr, T->row_ptr + n + 1);
    CUDA_OK(cudaMalloc(&t.rp, (n + 1) * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&t.ci, std::max<int64_t>(nnz, 1) * sizeof(int32_t)));
    CUDA_OK(cudaMalloc(&t.va, std::max<int64_t>(nnz, 1) * sizeof(double)));
    CUDA_OK(cudaMemcpy(t.rp, rp.data(), (n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(t.ci, T->col_idx, nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(t.va, T->values, nnz * sizeof(double), cudaMemcpyHostToDevice));
    CUSPARSE_OK(cusparseCreateCsr(&t.mat, n, n, nnz, t.rp, t.ci, t.va, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    cusparseFillMode_t fill = lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    CUSPARSE_OK(cusparseSpMatSetAttribute(t.mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    CUSPARSE_OK(cusparseSpMatSetAttribute(t.mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CUSPARSE_OK(cusparseCreateDnVec(&t.x, n, (void *)d_in, CUDA_R_64F));
    CUSPARSE_OK(cusparseCreateDnVec(&t.y, n, d_out, CUDA_R_64F));
    CUSPARSE_OK(cusparseSpSV_createDescr(&t.spsv));
    size_t bytes = 0;
    CUSPARSE_OK(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &ONE, t.mat, t.x, t.y,
                                        CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, t.spsv, &bytes));
    CUDA_OK(cudaMalloc(&t.buffer, bytes ? bytes : 1));
    CUSPARSE_OK(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &ONE, t.mat, t.x, t.y,
                                      CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, t.spsv, t.buffer));
    return t;
}

/* Y = T^{-1} X */
static void cusparse_solve(cusparseHandle_t h, const cusparse_triangle &t)
{
    CUSPARSE_OK(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &ONE, t.mat, t.x, t.y,
                                   CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, t.spsv));
}

static void cusparse_free(cusparse_triangle &t)
{
    CUSPARSE_OK(cusparseSpSV_destroyDescr(t.spsv));
    CUSPARSE_OK(cusparseDestroySpMat(t.mat));
    CUSPARSE_OK(cusparseDestroyDnVec(t.x));
    CUSPARSE_OK(cusparseDestroyDnVec(t.y));
    CUDA_OK(cudaFree(t.rp));
    CUDA_OK(cudaFree(t.ci));
    CUDA_OK(cudaFree(t.va));
    CUDA_OK(cudaFree(t.buffer));
}

/* The times of one way of solving: L, U and the apply (L then U). */
struct solve_times {
    double L, U, apply;
};

/* cuSPARSE's times on the natural-order factor: the ratios' baseline. */
struct baseline {
    double L = 0.0, apply = 0.0;
};

/* The device vectors of a problem: b, w = L^{-1} b, x = U^{-1} w. */
struct vectors {
    kryl_vector b, w, x;
    int64_t n;
};

/* host copy of v */
static std::vector<double> fetch(kryl_vector v, int64_t n)
{
    std::vector<double> h(n);
    KRYL_OK(kryl_vector_get(v, h.data(), n));
    return h;
}

static int failures = 0;

/* One table row and its RESULT line. */
static void report(const char *label, const char *order, const char *path, const kryl_factor &F,
                   int levels_L, int levels_U, const solve_times &t, const baseline &nat)
{
    const double gflops = 2.0 * (double)F.nnz_L / (t.L * 1e6);
    printf("%-16s %-5s %-22s %6d %6d %9.4f %9.4f %7.2f %9.4f %7.2f %7.2f\n", label, order, path,
           levels_L, levels_U, t.L, t.U, gflops, t.apply, nat.L / t.L, nat.apply / t.apply);
    printf("RESULT trsv %s order=%s path=%s levels_L=%d levels_U=%d L_ms=%.4f U_ms=%.4f "
           "gflops_L=%.2f apply_ms=%.4f cusparse_nat_L_ms=%.4f cusparse_nat_apply_ms=%.4f "
           "L_ratio=%.3f apply_ratio=%.3f\n",
           label, order, path, levels_L, levels_U, t.L, t.U, gflops, t.apply, nat.L, nat.apply,
           nat.L / t.L, nat.apply / t.apply);
}

/* The best apply seen for one problem. */
struct best_apply {
    double ms = 1e300;
    std::string how;
    double natural_L_ratio = 0.0; /* best of our paths on natural-order L vs cuSPARSE */
};

/* Time cuSPARSE and every path of ours on the IC(0) factor of B (in order `order`). */
static void bench_factor(kryl_context ctx, cudaStream_t stream, cusparseHandle_t h,
                         const char *label, const char *order, const kryl_csr *B, vectors &v,
                         baseline &nat, best_apply &best)
{
    kryl_factor F = {};
    KRYL_OK(kryl_factor_ic0(B, &F));
    kryl_levels lvL = {}, lvU = {};
    KRYL_OK(kryl_order_levels(&F.L, nullptr, KRYL_LOWER, &lvL));
    KRYL_OK(kryl_order_levels(&F.U, nullptr, KRYL_UPPER, &lvU));
    const double *db = static_cast<const double *>(v.b->data);
    double *dw = static_cast<double *>(v.w->data), *dx = static_cast<double *>(v.x->data);

    /* cuSPARSE: w = L^{-1} b, x = U^{-1} w; its w and x check ours */
    cusparse_triangle cL = cusparse_setup(h, &F.L, true, db, dw);
    cusparse_triangle cU = cusparse_setup(h, &F.U, false, dw, dx);
    solve_times c;
    c.L = time_ms(
        stream, [&] { cusparse_solve(h, cL); }, 1, REPS);
    c.U = time_ms(
        stream, [&] { cusparse_solve(h, cU); }, 1, REPS);
    c.apply = time_ms(
        stream,
        [&] {
            cusparse_solve(h, cL);
            cusparse_solve(h, cU);
        },
        1, REPS);
    const std::vector<double> wref = fetch(v.w, v.n), xref = fetch(v.x, v.n);
    cusparse_free(cL);
    cusparse_free(cU);
    if (strcmp(order, "none") == 0) {
        nat.L = c.L;
        nat.apply = c.apply;
    }
    report(label, order, "cusparseSpSV", F, lvL.nlevels, lvU.nlevels, c, nat);

    const kryl_backend_ops *ops = ctx->ops;
    for (int p = 0; p < KRYL_CUDA_TRSV_PATHS; p++) {
        const kryl_cuda_trsv_path_kind path = (kryl_cuda_trsv_path_kind)p;
        void *hL = nullptr, *hU = nullptr;
        KRYL_OK(kryl_cuda_trsv_setup_path(ctx, &F.L, KRYL_DOUBLE, true, F.unit_lower, lvL.order,
                                          lvL.level_ptr, lvL.nlevels, path, &hL));
        KRYL_OK(kryl_cuda_trsv_setup_path(ctx, &F.U, KRYL_DOUBLE, false, false, lvU.order,
                                          lvU.level_ptr, lvU.nlevels, path, &hU));
        char name[64];
        if (path == KRYL_CUDA_TRSV_AUTO)
            snprintf(name, sizeof name, "auto:%s/%s", ops->trsv_path(ctx, hL),
                     ops->trsv_path(ctx, hU));
        else
            snprintf(name, sizeof name, "%s", kryl_cuda_trsv_path_name(path));
        solve_times t;
        t.L = time_ms(
            stream, [&] { KRYL_OK(ops->trsv(ctx, hL, v.b, v.w)); }, 1, REPS);
        const double dL = scaled_diff(fetch(v.w, v.n), wref);
        t.U = time_ms(
            stream, [&] { KRYL_OK(ops->trsv(ctx, hU, v.w, v.x)); }, 1, REPS);
        t.apply = time_ms(
            stream,
            [&] {
                KRYL_OK(ops->trsv(ctx, hL, v.b, v.w));
                KRYL_OK(ops->trsv(ctx, hU, v.w, v.x));
            },
            1, REPS);
        const double dx_ = scaled_diff(fetch(v.x, v.n), xref);
        if (dL > 1e-10 || dx_ > 1e-10) {
            printf("FAIL %s %s %s: differs from cuSPARSE by %.3g (L) and %.3g (apply)\n", label,
                   order, name, dL, dx_);
            failures++;
        }
        report(label, order, name, F, lvL.nlevels, lvU.nlevels, t, nat);
        if (t.apply < best.ms) {
            best.ms = t.apply;
            best.how = std::string(order) + "/" + name;
        }
        if (strcmp(order, "none") == 0 && nat.L / t.L > best.natural_L_ratio)
            best.natural_L_ratio = nat.L / t.L;
        ops->trsv_release(ctx, hL);
        ops->trsv_release(ctx, hU);
    }
    kryl_levels_free(&lvL);
    kryl_levels_free(&lvU);
    kryl_factor_free(&F);
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    /* the matrices named after the options, or all */
    const int first_name = quick ? 2 : 1;
    auto wanted = [&](const char *label) {
        for (int a = first_name; a < argc; a++)
            if (strcmp(argv[a], label) == 0) return true;
        return argc <= first_name;
    };
    kryl_context ctx = cuda_context();
    cudaStream_t stream = static_cast<cudaStream_t>(kryl_cuda_stream(ctx));
    cusparseHandle_t h;
    CUSPARSE_OK(cusparseCreate(&h));
    CUSPARSE_OK(cusparseSetStream(h, stream));
    printf("bench_trsv on %s: IC(0) triangular solves, double, median of %d (ms)\n",
           kryl_context_device_name(ctx), REPS);
    printf("GF/s = 2 nnz(L) / time(L); nat/L, nat/apply = cuSPARSE on the natural-order factor "
           "over this row\n\n");
    printf("%-16s %-5s %-22s %6s %6s %9s %9s %7s %9s %7s %7s\n", "matrix", "order", "path", "lev L",
           "lev U", "L ms", "U ms", "GF/s", "apply ms", "nat/L", "nat/app");

    const struct {
        kryl_generator_kind kind;
        int64_t size, quick_size;
    } problems[] = {{KRYL_GEN_POISSON3D7, 160, 30},
                    {KRYL_GEN_POISSON3D27, 100, 20},
                    {KRYL_GEN_POISSON2D5, 1000, 120},
                    {KRYL_GEN_POISSON2D5, 300, 60}};
    std::vector<kryl_order_kind> orders = {KRYL_ORDER_NONE, KRYL_ORDER_RCM, KRYL_ORDER_COLOR};
    if (kryl_order_have_amd()) orders.push_back(KRYL_ORDER_AMD);
    for (const auto &pb : problems) {
        char label[64];
        snprintf(label, sizeof label, "%s-%lld", kryl_generator_name(pb.kind),
                 (long long)(quick ? pb.quick_size : pb.size));
        if (!wanted(label)) continue;
        kryl_matrix A =
            generated(ctx, pb.kind, quick ? pb.quick_size : pb.size, label, sizeof label);
        const kryl_csr *csr = &A->host->csr;
        vectors v;
        v.n = csr->nrows;
        KRYL_OK(kryl_vector_create(&v.b, A, KRYL_DOUBLE));
        KRYL_OK(kryl_vector_create(&v.w, A, KRYL_DOUBLE));
        KRYL_OK(kryl_vector_create(&v.x, A, KRYL_DOUBLE));
        const std::vector<double> hb = spmv_x(v.n);
        KRYL_OK(kryl_vector_set(v.b, hb.data(), v.n));
        baseline nat;
        best_apply best;
        for (kryl_order_kind order : orders) {
            if (order == KRYL_ORDER_NONE) {
                bench_factor(ctx, stream, h, label, "none", csr, v, nat, best);
                continue;
            }
            std::vector<int32_t> perm(v.n);
            KRYL_OK(kryl_order_compute(csr, order, perm.data()));
            kryl_csr B = permuted(csr, perm.data());
            bench_factor(ctx, stream, h, label, kryl_order_name(order), &B, v, nat, best);
            kryl_csr_free(&B);
        }
        printf("RESULT trsv_best %s natural_L_ratio=%.3f best_apply=%s best_apply_ms=%.4f "
               "cusparse_nat_apply_ms=%.4f apply_speedup=%.2f\n",
               label, best.natural_L_ratio, best.how.c_str(), best.ms, nat.apply,
               nat.apply / best.ms);
        printf("%s: best of ours on natural L %.2fx cuSPARSE (goal >= 1.0); best apply %s "
               "%.4f ms, %.2fx cuSPARSE natural (goal >= 3)\n\n",
               label, best.natural_L_ratio, best.how.c_str(), best.ms, nat.apply / best.ms);
        KRYL_OK(kryl_vector_destroy(&v.b));
        KRYL_OK(kryl_vector_destroy(&v.w));
        KRYL_OK(kryl_vector_destroy(&v.x));
        KRYL_OK(kryl_matrix_destroy(&A));
    }
    CUSPARSE_OK(cusparseDestroy(h));
    KRYL_OK(kryl_context_destroy(&ctx));
    if (failures > 0) printf("bench_trsv: %d solves differ from cuSPARSE\n", failures);
    return failures > 0 ? 1 : 0;
}
