/* The experiment of Tiwari & Vadhiyar, section VI, redone: each hybrid
 * CPU+GPU pipelined CG (--hybrid 1, 2, 3, auto) against PCG and pipelined
 * CG on the GPU alone and pipelined CG on the host's cores (omp), time to
 * the paper's tolerance (setup included), and the split of Hybrid-PIPECG-3:
 * the model's host share against the fastest of a sweep of shares around it.
 * Through the public API only (include/kryl.h).
 *
 *   bench_hybrid [--quick] [device backend (cuda)] [matrices dir]
 *
 * Matrices: the paper's 125-point Poisson family (poisson3d125) at a few
 * sizes, and generated equivalents of its Table I (random SPD matrices with
 * the same rows and nonzeros per row), plus bcsstk15, gyro, boneS01, hood,
 * offshore, Serena and Queen_4147 from the matrices directory when present.
 * As in the paper: x* = 1/sqrt(N), b = A x*, x0 = 0, Jacobi, absolute
 * tolerance 1e-5, at most 10000 iterations.  One line per run, and a
 * machine-readable "RESULT hybrid ..." line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_try.h"
#include "kryl.h"

/* A problem: generated (kind, n, row length) or a file. */
typedef struct problem {
    const char *name;
    kryl_generator_kind kind;
    int64_t n;          /* grid points a direction, or rows */
    int64_t row_length; /* random-spd: nonzeros per row */
    const char *file;   /* NULL: generated */
    bool quick;         /* in the --quick set */
} problem;

/* Table I of the paper as generated equivalents, then the 125-point family. */
static const problem problems[] = {
    {"bcsstk15-like", KRYL_GEN_RANDOM_SPD, 3948, 30, NULL, true},
    {"gyro-like", KRYL_GEN_RANDOM_SPD, 17361, 59, NULL, true},
    {"boneS01-like", KRYL_GEN_RANDOM_SPD, 127224, 53, NULL, false},
    {"hood-like", KRYL_GEN_RANDOM_SPD, 220542, 49, NULL, false},
    {"offshore-like", KRYL_GEN_RANDOM_SPD, 259789, 16, NULL, false},
    {"Serena-like", KRYL_GEN_RANDOM_SPD, 1391349, 46, NULL, false},
    {"Queen_4147-like", KRYL_GEN_RANDOM_SPD, 4147110, 79, NULL, false},
    {"poisson3d125 n=30", KRYL_GEN_POISSON3D125, 30, 0, NULL, true},
    {"poisson3d125 n=80", KRYL_GEN_POISSON3D125, 80, 0, NULL, false},
    {"poisson3d125 n=130", KRYL_GEN_POISSON3D125, 130, 0, NULL, false},
    {"poisson3d125 n=165 (4.5M)", KRYL_GEN_POISSON3D125, 165, 0, NULL, false},
    {"bcsstk15", 0, 0, 0, "bcsstk15.mtx", true},
    {"gyro", 0, 0, 0, "gyro.mtx", false},
    {"boneS01", 0, 0, 0, "boneS01.mtx", false},
    {"hood", 0, 0, 0, "hood.mtx", false},
    {"offshore", 0, 0, 0, "offshore.mtx", false},
    {"Serena", 0, 0, 0, "Serena.mtx", false},
    {"Queen_4147", 0, 0, 0, "Queen_4147.mtx", false},
};

/* The problem's matrix on ctx, or NULL for a file that is not there. */
static kryl_matrix load(kryl_context ctx, const problem *p, const char *dir)
{
    kryl_matrix A = NULL;
    if (p->file == NULL) {
        kryl_generator_options g;
        kryl_generator_options_init(&g, p->kind, p->n);
        if (p->row_length > 0) g.row_length = p->row_length;
        int64_t rows = 0, estimate = 0;
        BENCH_TRY(kryl_generator_size(&g, &rows, &estimate));
        BENCH_TRY(kryl_matrix_generate(&A, ctx, &g, 0, rows));
        return A;
    }
    if (dir == NULL) return NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, p->file);
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    fclose(f);
    BENCH_TRY(kryl_matrix_read_mtx(&A, ctx, path));
    return A;
}

/* One run: time to tolerance, setup included, and what the split was. */
typedef struct outcome {
    double seconds;
    int64_t iterations;
    bool converged;
    kryl_hybrid_info info;
} outcome;

static outcome run(kryl_matrix A, kryl_method method, kryl_hybrid hybrid, int64_t host_rows)
{
    outcome out;
    memset(&out, 0, sizeof out);
    int64_t n = 0;
    BENCH_TRY(kryl_matrix_size(A, &n, NULL, NULL));
    kryl_vector xs = NULL, b = NULL, x = NULL;
    BENCH_TRY(kryl_vector_create(&xs, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&b, A, KRYL_DOUBLE));
    BENCH_TRY(kryl_vector_create(&x, A, KRYL_DOUBLE));
    /* b = A x*, x* = 1/sqrt(N) */
    BENCH_TRY(kryl_vector_fill(xs, 1.0 / sqrt((double)n)));
    BENCH_TRY(kryl_matrix_spmv(A, 1.0, xs, 0.0, b));
    BENCH_TRY(kryl_vector_fill(x, 0.0));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = method;
    o.precond = KRYL_PRECOND_JACOBI;
    o.rtol = 0.0;
    o.atol = 1e-5;
    o.max_iterations = 10000;
    o.record_history = false;
    o.hybrid = hybrid;
    o.hybrid_host_rows = host_rows;
    kryl_solver s = NULL;
    kryl_result r;
    BENCH_TRY(kryl_solver_create(&s, A, &o));
    BENCH_TRY(kryl_solver_solve(s, b, x, &r));
    if (hybrid != KRYL_HYBRID_NONE) BENCH_TRY(kryl_solver_hybrid_info(s, &out.info));
    out.seconds = r.setup_s + r.solve_s;
    out.iterations = r.iterations;
    out.converged = r.converged;
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&xs);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    return out;
}

static void report(const char *matrix, const char *variant, const outcome *o, double baseline)
{
    printf("  %-34s %9.4f s %6lld its%s  %5.2fx", variant, o->seconds, (long long)o->iterations,
           o->converged ? "" : " (not converged)", o->seconds > 0 ? baseline / o->seconds : 0.0);
    if (o->info.method == KRYL_HYBRID_SPLIT)
        printf("  host rows %lld", (long long)o->info.host_rows);
    printf("\n");
    printf("RESULT hybrid \"%s\" \"%s\" %.6f %lld %d\n", matrix, variant, o->seconds,
           (long long)o->iterations, o->converged);
}

/* The first rows of A holding at most share of its nonzeros. */
static int64_t rows_for_share(kryl_matrix A, double share)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n, nnz;
    BENCH_TRY(kryl_matrix_size(A, &n, NULL, &nnz));
    BENCH_TRY(kryl_matrix_csr_view(A, &rp, &ci, &v));
    int64_t rows = 0;
    while (rows < n && (double)rp[rows + 1] <= share * (double)nnz) rows++;
    return rows;
}

static void bench_problem(kryl_context device, kryl_context host, const problem *p, const char *dir)
{
    kryl_matrix A = load(device, p, dir);
    if (A == NULL) return;
    int64_t n = 0, nnz = 0;
    BENCH_TRY(kryl_matrix_size(A, &n, NULL, &nnz));
    printf("%s: %lld rows, %lld nonzeros (%.1f a row)\n", p->name, (long long)n, (long long)nnz,
           (double)nnz / (double)n);
    outcome pcg = run(A, KRYL_METHOD_PCG, KRYL_HYBRID_NONE, -1);
    report(p->name, "device pcg", &pcg, pcg.seconds);
    outcome pipe = run(A, KRYL_METHOD_PIPECG, KRYL_HYBRID_NONE, -1);
    report(p->name, "device pipecg", &pipe, pcg.seconds);
    kryl_matrix H = load(host, p, dir);
    outcome cpu = run(H, KRYL_METHOD_PIPECG, KRYL_HYBRID_NONE, -1);
    report(p->name, "host pipecg (omp)", &cpu, pcg.seconds);
    kryl_matrix_destroy(&H);
    const kryl_hybrid methods[] = {KRYL_HYBRID_DOTS, KRYL_HYBRID_MIRROR, KRYL_HYBRID_SPLIT,
                                   KRYL_HYBRID_AUTO};
    const char *names[] = {"hybrid 1", "hybrid 2", "hybrid 3 (model's split)", "hybrid auto"};
    double share = -1.0;
    for (int m = 0; m < 4; m++) {
        outcome h = run(A, KRYL_METHOD_PIPECG, methods[m], -1);
        report(p->name, names[m], &h, pcg.seconds);
        if (methods[m] == KRYL_HYBRID_SPLIT) share = h.info.model_host_share;
        if (methods[m] == KRYL_HYBRID_AUTO) printf("    auto: %s\n", h.info.reason);
    }
    /* the split measured: shares around the model's, and none */
    const double factors[] = {0.0, 0.5, 1.5, 2.0, 4.0};
    double best_s = INFINITY, best_share = 0.0;
    for (int f = 0; f < 5 && share >= 0.0; f++) {
        double s = fmin(1.0, factors[f] * share);
        char variant[96];
        snprintf(variant, sizeof variant, "hybrid 3, host share %.4f", s);
        outcome h = run(A, KRYL_METHOD_PIPECG, KRYL_HYBRID_SPLIT, rows_for_share(A, s));
        report(p->name, variant, &h, pcg.seconds);
        if (h.converged && h.seconds < best_s) {
            best_s = h.seconds;
            best_share = s;
        }
    }
    if (share >= 0.0)
        printf("  split: model r_cpu %.4f, fastest measured share %.4f\n", share, best_share);
    kryl_matrix_destroy(&A);
}

int main(int argc, char **argv)
{
    bool quick = false;
    const char *backend = "cuda", *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "cuda") == 0 || strcmp(argv[i], "omp") == 0 ||
                 strcmp(argv[i], "ref") == 0)
            backend = argv[i];
        else
            dir = argv[i];
    }
    kryl_context_options co;
    kryl_context_options_init(&co);
    BENCH_TRY(kryl_backend_from_name(backend, &co.backend));
    if (!kryl_backend_available(co.backend)) {
        printf("bench_hybrid: backend %s is not usable here\n", backend);
        return 0;
    }
    kryl_context device = NULL, host = NULL;
    BENCH_TRY(kryl_context_create(&device, &co));
    co.backend = kryl_backend_available(KRYL_BACKEND_OMP) ? KRYL_BACKEND_OMP : KRYL_BACKEND_REF;
    BENCH_TRY(kryl_context_create(&host, &co));
    printf("bench_hybrid: device side %s (%s), host side %s\n", backend,
           kryl_context_device_name(device), kryl_backend_name(co.backend));
    printf("time to ||b - Ax|| <= 1e-5 (setup included), speed-up against device pcg\n");
    for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
        if (problems[k].quick || !quick) bench_problem(device, host, &problems[k], dir);
    kryl_context_destroy(&host);
    kryl_context_destroy(&device);
    return 0;
}
