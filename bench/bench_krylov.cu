/* The Krylov methods of the cuda backend, timed through the public API in
 * double (b = A*1, x0 = 0; every time is kryl_result.solve_s, median of 3
 * solves after a warm-up solve, so graph capture and setup stay out):
 *
 *   cg       CG and pipelined CG on the 3-D 7-point Poisson 160^3 and the 2-D
 *            5-point 300^2 to rtol 1e-8: ms per iteration (solve time over
 *            iterations executed), with the backend's adaptive check interval
 *            (graphs replayed where the driver captures the method) and with
 *            a fixed interval of 31 (a multiple of neither CG's period 2 nor
 *            pipelined CG's 50: every kernel launched by the host).  bench_cg
 *            and bench/cupy_cg.py time the samples-style cuSPARSE+cuBLAS CG
 *            and CuPy on the same problems.
 *   mixed    mixed precision (iterative refinement and inner-outer, a few
 *            inner settings) against double CG on Poisson 160^3, all to the
 *            same true relative residual 1e-10, in CSR and in DIA (no column
 *            indices: single precision halves the SpMV's bytes): total solve
 *            time, speedup, the single-precision inner iterations per solve,
 *            and single-precision CG's own ms per iteration.
 *   gmres    GMRES(40) with each orthogonalisation (gmres-cgs2: CGS2, two
 *            block dots and two block updates a step, (4k+12) n doubles
 *            moved at step k in 6 kernels with 3 grid-wide reductions;
 *            gmres-dcgs2: DCGS2, one fused block dot and one fused block
 *            update, (2k+6) n in 3 kernels with 1 reduction) and BiCGSTAB on
 *            the 2-D convection-diffusion 1000^2 and 300^2: ms per restart
 *            cycle (5 whole cycles timed) and total time to rtol 1e-8.
 *            bench/cupy_krylov.py times CuPy's gmres.
 *   ops      the fused operations alone (pipecg_update, dot2, multi_dot,
 *            multi_axpy, gmres_dcgs2_dot, gmres_dcgs2_update, gmres_givens,
 *            normalize) at 4.1M, 1M and 91k rows:
 *            time per call (host launch included) and the bandwidth reached,
 *            counting each vector read or written once.
 *
 * Each line "RESULT <part> <problem> key=value..." feeds scripts/gpu-check's
 * summary.  usage: bench_krylov [--quick] [cg|mixed|gmres|ops]...
 * (--quick: small grids; the parts named, else all of them) */
#include <cstring>

#include "backends/backend.h"

#define BENCH_NAME "bench_krylov"
#include "bench_common.cuh"

/* A generated problem and b = A*1. */
struct problem {
    kryl_matrix A = nullptr;
    kryl_vector b = nullptr, x = nullptr;
    char label[64] = "";
};

static problem make_problem(kryl_context ctx, kryl_generator_kind kind, int64_t size)
{
    problem p;
    p.A = generated(ctx, kind, size, p.label, sizeof p.label);
    p.b = rhs_of_ones(p.A);
    KRYL_OK(kryl_vector_create(&p.x, p.A, KRYL_DOUBLE));
    return p;
}

static void free_problem(problem &p)
{
    KRYL_OK(kryl_vector_destroy(&p.b));
    KRYL_OK(kryl_vector_destroy(&p.x));
    KRYL_OK(kryl_matrix_destroy(&p.A));
}

/* One configuration's timing: median solve of 3 after a warm-up. */
struct timing {
    double seconds;
    int64_t iterations;
    double relres; /* true ||b - A x|| / ||b|| */
    bool converged;
    kryl_reason reason;
    bool refused;             /* the solver could not be created (kryl_last_error says why) */
    int64_t inner_iterations; /* mixed: single-precision inner iterations of one solve */
};

static timing time_solve(problem &p, const kryl_solver_options &o)
{
    kryl_solver solver;
    if (kryl_solver_create(&solver, p.A, &o) != KRYL_SUCCESS)
        return {0.0, 0, 0.0, false, KRYL_DIVERGED_BREAKDOWN, true, 0};
    std::vector<double> seconds;
    kryl_result res;
    for (int run = 0; run < 4; run++) {
        KRYL_OK(kryl_vector_fill(p.x, 0.0));
        KRYL_OK(kryl_solver_solve(solver, p.b, p.x, &res));
        if (run > 0) seconds.push_back(res.solve_s);
    }
    KRYL_OK(kryl_solver_destroy(&solver));
    std::sort(seconds.begin(), seconds.end());
    return {
        seconds[seconds.size() / 2], res.iterations, res.relres, res.converged, res.reason, false,
        res.inner_iterations};
}

static kryl_solver_options options(kryl_method method, double rtol, int64_t max_iterations)
{
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = method;
    o.rtol = rtol;
    o.max_iterations = max_iterations;
    o.record_history = false;
    return o;
}

/* (a) ms per iteration of CG and pipelined CG, adaptive and fixed check interval. */
static void bench_cg_methods(kryl_context ctx, bool quick)
{
    printf("\n(a) CG, pipelined CG: ms/iteration to rtol 1e-8 (targets: 0.30 on poisson3d7-160, "
           "0.008 on poisson2d5-300)\n");
    printf("%-18s %-7s %12s %12s %6s %9s\n", "matrix", "method", "adaptive", "fixed 31", "its",
           "relres");
    const struct {
        kryl_generator_kind kind;
        int64_t size, quick_size;
    } problems[] = {{KRYL_GEN_POISSON3D7, 160, 40}, {KRYL_GEN_POISSON2D5, 300, 100}};
    for (const auto &pb : problems) {
        problem p = make_problem(ctx, pb.kind, quick ? pb.quick_size : pb.size);
        for (kryl_method method : {KRYL_METHOD_CG, KRYL_METHOD_PIPECG}) {
            kryl_solver_options o = options(method, 1e-8, 20000);
            const timing adaptive = time_solve(p, o);
            o.check_interval = 31;
            const timing fixed = time_solve(p, o);
            const double a_ms = 1e3 * adaptive.seconds / (double)adaptive.iterations;
            const double f_ms = 1e3 * fixed.seconds / (double)fixed.iterations;
            printf("%-18s %-7s %12.4f %12.4f %6lld %9.2e%s\n", p.label, kryl_method_name(method),
                   a_ms, f_ms, (long long)adaptive.iterations, adaptive.relres,
                   adaptive.converged ? "" : " NOT CONVERGED");
            printf("RESULT krylov-cg %s method=%s adaptive_ms_it=%.4f fixed_ms_it=%.4f its=%lld "
                   "relres=%.3e\n",
                   p.label, kryl_method_name(method), a_ms, f_ms, (long long)adaptive.iterations,
                   adaptive.relres);
            fflush(stdout);
        }
        free_problem(p);
    }
}

/* (b) mixed precision against double CG, to the same true residual. */
static void bench_mixed(kryl_context ctx, bool quick)
{
    printf("\n(b) mixed precision vs double CG to true relres 1e-10 (target: >= 1.4x)\n");
    printf("%-16s %-5s %-24s %9s %6s %8s %9s %8s\n", "matrix", "fmt", "scheme", "total s", "its",
           "inner/s", "relres", "speedup");
    problem p = make_problem(ctx, KRYL_GEN_POISSON3D7, quick ? 40 : 160);
    const struct {
        kryl_mixed_scheme scheme;
        int inner_iterations;
        double inner_rtol;
    } schemes[] = {/* 0 and 0.0: the library's defaults (no count limit, inner rtol 1e-6;
                      reliable: a refresh at every 1e-2 drop) */
                   {KRYL_MIXED_INNER_OUTER, 30, 0.0}, {KRYL_MIXED_INNER_OUTER, 0, 0.0},
                   {KRYL_MIXED_IR, 0, 1e-4},          {KRYL_MIXED_IR, 0, 1e-5},
                   {KRYL_MIXED_IR, 0, 0.0},           {KRYL_MIXED_IR, 0, 1e-7},
                   {KRYL_MIXED_RELIABLE, 0, 1e-1},    {KRYL_MIXED_RELIABLE, 0, 0.0},
                   {KRYL_MIXED_RELIABLE, 0, 1e-3}};
    for (kryl_format format : {KRYL_FORMAT_CSR, KRYL_FORMAT_DIA}) {
        const char *fmt = kryl_format_name(format);
        kryl_solver_options o = options(KRYL_METHOD_CG, 1e-10, 20000);
        o.format = format;
        const timing base = time_solve(p, o);
        if (base.refused) {
            printf("%-16s %-5s refused: %s\n", p.label, fmt, kryl_last_error());
            continue;
        }
        /* single precision alone: the cost of one inner iteration */
        kryl_solver_options os = options(KRYL_METHOD_CG, 1e-5, 20000);
        os.format = format;
        os.precision = KRYL_SINGLE;
        const timing single = time_solve(p, os);
        printf("%-16s %-5s %-24s %9.4f %6lld %8s %9.2e %8s   (%.4f ms/it; single %.4f ms/it)\n",
               p.label, fmt, "double cg", base.seconds, (long long)base.iterations, "-",
               base.relres, "1.00", 1e3 * base.seconds / (double)base.iterations,
               1e3 * single.seconds / (double)(single.iterations ? single.iterations : 1));
        printf("RESULT mixed %s format=%s scheme=double total_s=%.4f its=%lld relres=%.3e "
               "speedup=1.00 ms_it=%.4f single_ms_it=%.4f\n",
               p.label, fmt, base.seconds, (long long)base.iterations, base.relres,
               1e3 * base.seconds / (double)base.iterations,
               1e3 * single.seconds / (double)(single.iterations ? single.iterations : 1));
        for (const auto &sc : schemes) {
            o = options(KRYL_METHOD_CG, 1e-10, 2000);
            o.format = format;
            o.precision = KRYL_MIXED;
            o.mixed = sc.scheme;
            o.inner_iterations = sc.inner_iterations;
            o.inner_rtol = sc.inner_rtol;
            const timing t = time_solve(p, o);
            const long long inner = t.inner_iterations;
            /* "ir rtol 1e-06", "inner-outer rtol 1e-06 max 30" */
            char name[64], limit[24] = "";
            if (sc.inner_iterations > 0)
                snprintf(limit, sizeof limit, " max %d", sc.inner_iterations);
            snprintf(name, sizeof name, "%s rtol %.0e%s", kryl_mixed_scheme_name(sc.scheme),
                     sc.inner_rtol > 0.0 ? sc.inner_rtol : kryl_mixed_default_inner_rtol(sc.scheme),
                     limit);
            const double speedup = t.refused ? 0.0 : base.seconds / t.seconds;
            printf("%-16s %-5s %-24s %9.4f %6lld %8lld %9.2e %8.2f%s\n", p.label, fmt, name,
                   t.seconds, (long long)t.iterations, inner, t.relres, speedup,
                   t.refused ? " REFUSED" : (t.converged ? "" : " NOT CONVERGED"));
            printf("RESULT mixed %s format=%s scheme=%s inner=%d inner_rtol=%g total_s=%.4f "
                   "its=%lld inner_its=%lld relres=%.3e speedup=%.2f converged=%d\n",
                   p.label, fmt, kryl_mixed_scheme_name(sc.scheme), sc.inner_iterations,
                   sc.inner_rtol, t.seconds, (long long)t.iterations, inner, t.relres, speedup,
                   t.converged ? 1 : 0);
            fflush(stdout);
        }
    }
    free_problem(p);
}

/* (c) GMRES(40) and BiCGSTAB on convection-diffusion: per cycle, and to 1e-8. */
static void bench_nonsymmetric(kryl_context ctx, bool quick)
{
    const int restart = 40, cycles = 5;
    printf("\n(c) GMRES(%d), BiCGSTAB on convdiff2d: ms per cycle of %d iterations (%d cycles "
           "timed), total s to rtol 1e-8\n",
           restart, restart, cycles);
    printf("%-18s %-11s %10s %10s %7s %9s\n", "matrix", "method", "ms/cycle", "total s", "its",
           "relres");
    /* GMRES with each orthogonalisation, then BiCGSTAB */
    struct variant {
        kryl_method method;
        kryl_orthog orthog;
        const char *name;
    };
    const variant variants[] = {{KRYL_METHOD_GMRES, KRYL_ORTHOG_CGS2, "gmres-cgs2"},
                                {KRYL_METHOD_GMRES, KRYL_ORTHOG_DCGS2, "gmres-dcgs2"},
                                {KRYL_METHOD_BICGSTAB, KRYL_ORTHOG_AUTO, "bicgstab"}};
    for (int64_t size :
         {quick ? (int64_t)300 : (int64_t)1000, quick ? (int64_t)100 : (int64_t)300}) {
        problem p = make_problem(ctx, KRYL_GEN_CONVDIFF2D, size);
        for (const variant &var : variants) {
            /* exactly `cycles` whole cycles: an unreachable tolerance and the iteration limit */
            kryl_solver_options o = options(var.method, 1e-30, (int64_t)restart * cycles);
            o.restart = restart;
            o.gmres_orthog = var.orthog;
            const timing fixed = time_solve(p, o);
            const double cycle_ms = 1e3 * fixed.seconds * restart / (double)fixed.iterations;
            o.rtol = 1e-8;
            o.max_iterations = 40000;
            const timing total = time_solve(p, o);
            printf("%-18s %-11s %10.4f %10.4f %7lld %9.2e %s\n", p.label, var.name, cycle_ms,
                   total.seconds, (long long)total.iterations, total.relres,
                   kryl_reason_name(total.reason));
            printf("RESULT gmres %s method=%s cycle_ms=%.4f total_s=%.4f its=%lld relres=%.3e\n",
                   p.label, var.name, cycle_ms, total.seconds, (long long)total.iterations,
                   total.relres);
            fflush(stdout);
        }
        free_problem(p);
    }
}

/* Seconds per call of f, averaged over 20 calls after a warm-up call. */
template <typename F> static double time_op(kryl_context ctx, F &&f)
{
    KRYL_OK(f());
    KRYL_OK(ctx->ops->synchronize(ctx));
    const double t0 = kryl_wtime();
    for (int k = 0; k < 20; k++) KRYL_OK(f());
    KRYL_OK(ctx->ops->synchronize(ctx));
    return (kryl_wtime() - t0) / 20;
}

static void report_op(const char *name, int64_t n, double vectors, double seconds)
{
    const double gb = vectors * (double)n * sizeof(double) * 1e-9;
    printf("%-28s %9lld %10.1f %10.1f\n", name, (long long)n, 1e6 * seconds, gb / seconds);
    printf("RESULT op %s n=%lld us=%.1f gbs=%.1f\n", name, (long long)n, 1e6 * seconds,
           gb / seconds);
}

/* (d) the fused operations alone, in double, on filled vectors. */
static void bench_ops(kryl_context ctx, bool quick)
{
    printf("\n(d) operations alone, double: us per call, GB/s counting each vector once\n");
    printf("%-28s %9s %10s %10s\n", "operation", "n", "us", "GB/s");
    const kryl_backend_ops *ops = ctx->ops;
    const int kmax = 40;
    /* 45^3 = 91125 rows: the size of the 300^2 problems, where launches and latency count */
    for (int64_t size : {quick ? (int64_t)40 : (int64_t)160, quick ? (int64_t)20 : (int64_t)100,
                         quick ? (int64_t)10 : (int64_t)45}) {
        problem p = make_problem(ctx, KRYL_GEN_POISSON3D7, size);
        int64_t n;
        KRYL_OK(kryl_matrix_size(p.A, &n, nullptr, nullptr));
        std::vector<kryl_vector> v(12);
        for (kryl_vector &x : v) {
            KRYL_OK(kryl_vector_create(&x, p.A, KRYL_DOUBLE));
            KRYL_OK(kryl_vector_fill(x, 0.5));
        }
        double *sc = nullptr;
        KRYL_OK(ops->alloc(ctx, (void **)&sc, 64 * sizeof(double)));
        void *basis = nullptr;
        KRYL_OK(ops->alloc(ctx, &basis, (size_t)(kmax + 1) * (size_t)n * sizeof(double)));
        struct kryl_vector_s V = *v[0];
        V.data = basis;
        /* gamma, delta, rr, gamma_old, alpha_old: beta = 1, alpha = 1, kept at sc + 32 and
         * copied back before each step so that every step is a regular one */
        const double start[KRYL_PIPECG_SCALARS] = {1.0, 2.0, 1.0, 1.0, 1.0};
        KRYL_OK(ops->upload(ctx, sc + 32, start, sizeof start));
        struct kryl_vector_s fresh = *v[0], scalars = *v[0];
        fresh.n = scalars.n = KRYL_PIPECG_SCALARS;
        fresh.data = sc + 32;
        scalars.data = sc;
        kryl_pipecg_vectors pv = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
        kryl_pipecg_vectors plain = {v[0], v[1], nullptr, v[3],    nullptr,
                                     v[5], v[6], v[7],    nullptr, v[9]};
        auto pipecg = [&](const kryl_pipecg_vectors *vs, kryl_vector dinv) {
            kryl_status st =
                ops->permute_copy(ctx, &scalars, &fresh, nullptr, KRYL_GATHER, nullptr);
            return st != KRYL_SUCCESS
                       ? st
                       : ops->pipecg_update(ctx, {sc}, 0, vs, dinv, nullptr, nullptr, false);
        };
        /* M = I: reads x r w n p s z, writes x r w p s z;  Jacobi: 11 reads, 9 writes */
        report_op("pipecg_update (M = I)", n, 13.0,
                  time_op(ctx, [&] { return pipecg(&plain, nullptr); }));
        report_op("pipecg_update (Jacobi)", n, 20.0,
                  time_op(ctx, [&] { return pipecg(&pv, v[10]); }));
        report_op("dot2", n, 3.0,
                  time_op(ctx, [&] { return ops->dot2(ctx, v[0], v[1], v[2], {sc}); }));
        for (int k : {10, 20, kmax}) {
            char name[48];
            snprintf(name, sizeof name, "multi_dot k=%d", k);
            report_op(name, n, k + 1.0, time_op(ctx, [&] {
                          return ops->multi_dot(ctx, &V, k, v[11], {sc}, nullptr);
                      }));
            snprintf(name, sizeof name, "multi_axpy k=%d (+ww)", k);
            report_op(name, n, k + 2.0, time_op(ctx, [&] {
                          return ops->multi_axpy(ctx, &V, k, -1e-3, {sc}, v[11], {sc + 48},
                                                 nullptr);
                      }));
        }
        for (int k : {10, 20, kmax - 1}) {
            char name[48];
            /* d = [V_0..V_k]'[V_k w], w'w: reads k+2 vectors */
            snprintf(name, sizeof name, "gmres_dcgs2_dot k=%d", k);
            report_op(name, n, k + 2.0, time_op(ctx, [&] {
                          return ops->gmres_dcgs2_dot(ctx, &V, k, v[11], {sc}, nullptr);
                      }));
            /* f = (1, 0, 1) and d = 0 keep the vectors as they are: reads k+2, writes 2 */
            KRYL_OK(kryl_vector_fill(v[10], 0.0));
            const double unit[3] = {1.0, 0.0, 1.0};
            KRYL_OK(ops->upload(ctx, sc + 56, unit, sizeof unit));
            snprintf(name, sizeof name, "gmres_dcgs2_update k=%d", k);
            report_op(name, n, k + 4.0, time_op(ctx, [&] {
                          return ops->gmres_dcgs2_update(ctx, &V, k, v[11],
                                                         {static_cast<double *>(v[10]->data)},
                                                         {sc + 56}, nullptr);
                      }));
        }
        /* the least-squares problem of GMRES(kmax) at its last column (vectors: none) */
        const size_t m = kmax, doubles = (m + 1) * m + 2 * m + (m + 1) + m + (m + 1) + 3;
        double *block = nullptr;
        KRYL_OK(ops->alloc(ctx, (void **)&block, doubles * sizeof(double)));
        kryl_gmres_ls ls = {kmax,
                            block,
                            block + (m + 1) * m,
                            block + (m + 1) * m + m,
                            block + (m + 1) * m + 2 * m,
                            block + (m + 1) * m + 3 * m + 1,
                            block + (m + 1) * m + 4 * m + 1,
                            block + (m + 1) * m + 5 * m + 2,
                            block + (m + 1) * m + 5 * m + 3,
                            (int64_t *)(block + (m + 1) * m + 5 * m + 4)};
        const double one = 1.0;
        KRYL_OK(ops->upload(ctx, ls.ww, &one, sizeof one));
        report_op("gmres_givens k=39", n, 0.0,
                  time_op(ctx, [&] { return ops->gmres_givens(ctx, &ls, kmax - 1, nullptr); }));
        report_op("normalize", n, 2.0,
                  time_op(ctx, [&] { return ops->normalize(ctx, v[11], {ls.ww}, nullptr); }));
        ops->release(ctx, block);
        ops->release(ctx, basis);
        ops->release(ctx, sc);
        for (kryl_vector &x : v) KRYL_OK(kryl_vector_destroy(&x));
        free_problem(p);
    }
}

/* Whether the command line names `part`, or names no part at all. */
static bool wanted(int argc, char **argv, const char *part)
{
    bool any = false;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--quick") == 0) continue;
        any = true;
        if (strcmp(argv[k], part) == 0) return true;
    }
    return !any;
}

int main(int argc, char **argv)
{
    bool quick = false;
    for (int k = 1; k < argc; k++) quick = quick || strcmp(argv[k], "--quick") == 0;
    kryl_context ctx = cuda_context();
    printf("bench_krylov on %s: double, b = A*1, x0 = 0, median of 3 solves\n",
           kryl_context_device_name(ctx));
    if (wanted(argc, argv, "cg")) bench_cg_methods(ctx, quick);
    if (wanted(argc, argv, "mixed")) bench_mixed(ctx, quick);
    if (wanted(argc, argv, "gmres")) bench_nonsymmetric(ctx, quick);
    if (wanted(argc, argv, "ops")) bench_ops(ctx, quick);
    KRYL_OK(kryl_context_destroy(&ctx));
    return 0;
}
