/* AMG benchmark: AMG-PCG against Jacobi-PCG (the baseline, in the same run)
 * on the 5-point, 7-point and 27-point Poisson matrices, through the public
 * API only.  For each grid: iterations, setup, solve and total time of
 * both, the speedups, and the AMG hierarchy (levels, operator complexity,
 * setup by phase).  b = A*1, x0 = 0, rtol 1e-8 (true residual).
 *
 * usage: bench_amg [backend (auto)] [KIND:N ...]
 *   KIND is poisson2d, poisson3d or poisson3d27 and N the points per
 *   direction; default poisson2d:500 poisson2d:1000 poisson2d:2000
 *   poisson3d:40 poisson3d:80 poisson3d:160 poisson3d27:50 poisson3d27:100.
 *   BENCH_AMG_SMOOTHER (auto, chebyshev, jacobi, l1jacobi, mcgs, ilu0) picks the smoother,
 *   BENCH_AMG_COARSENING (greedy, mis2, parallel) the aggregation.
 *   BENCH_AMG_SPGEMM=compare adds, for each grid, the setup's products
 *   (P, R, A_c on every level) by cuSPARSE's SpGEMM against the backend's
 *   hash SpGEMM (KRYL_AMG_SPGEMM=cusparse, =hash; cuda): the best of three
 *   setups of each, their iterations, and the ratios cuSPARSE / hash.
 *
 * Each grid's line gives the first call of each method in the process (it
 * loads the kernels it is the first to use) and the median of
 * BENCH_AMG_REPEAT (3) more calls, alternating; the ratios are of the
 * medians, and "first" is the ratio of the first calls' totals. */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kryl.h"

#define RTOL       1e-8
#define MAXIT      20000
#define MAX_REPEAT 15

static void die(const char *what, kryl_status st)
{
    fprintf(stderr, "bench_amg: %s failed: %s: %s\n", what, kryl_strerror(st), kryl_last_error());
    exit(1);
}

typedef struct outcome {
    int64_t its;
    bool converged;
    double setup, solve;
    kryl_amg_info amg;
} outcome;

/* PCG with `precond` on A from x = 0 to b. */
static outcome run(kryl_matrix A, kryl_vector b, kryl_vector x, kryl_precond_kind precond,
                   const kryl_amg_options *amg)
{
    outcome out;
    memset(&out, 0, sizeof out);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.precond = precond;
    o.rtol = RTOL;
    o.max_iterations = MAXIT;
    o.record_history = false;
    o.amg = *amg;
    kryl_solver s = NULL;
    kryl_result r;
    kryl_status st = kryl_vector_fill(x, 0.0);
    if (st == KRYL_SUCCESS) st = kryl_solver_create(&s, A, &o);
    if (st == KRYL_SUCCESS) st = kryl_solver_solve(s, b, x, &r);
    if (st == KRYL_SUCCESS && precond == KRYL_PRECOND_AMG) st = kryl_solver_amg_info(s, &out.amg);
    if (st != KRYL_SUCCESS) die(kryl_precond_name(precond), st);
    out.its = r.iterations;
    out.converged = r.converged;
    out.setup = r.setup_s;
    out.solve = r.solve_s;
    kryl_solver_destroy(&s);
    return out;
}

/* The best of three AMG-PCG setups with the products of KRYL_AMG_SPGEMM=spgemm. */
static outcome best_setup(kryl_matrix A, kryl_vector b, kryl_vector x, const char *spgemm,
                          const kryl_amg_options *amg)
{
    setenv("KRYL_AMG_SPGEMM", spgemm, 1);
    outcome best = run(A, b, x, KRYL_PRECOND_AMG, amg);
    for (int r = 1; r < 3; r++) {
        outcome o = run(A, b, x, KRYL_PRECOND_AMG, amg);
        if (o.setup < best.setup) best = o;
    }
    unsetenv("KRYL_AMG_SPGEMM");
    return best;
}

/* The products by cuSPARSE's SpGEMM against the hash SpGEMM, on one line. */
static void compare_products(const char *spec, kryl_matrix A, kryl_vector b, kryl_vector x,
                             const kryl_amg_options *amg)
{
    outcome cu = best_setup(A, b, x, "cusparse", amg);
    outcome hash = best_setup(A, b, x, "hash", amg);
    printf("%-18s products cusparse %.4f hash %.4f x%.2f | setup %.4f %.4f x%.2f | its %lld %lld "
           "| opcx %.3f %.3f%s\n",
           spec, cu.amg.galerkin_s, hash.amg.galerkin_s, cu.amg.galerkin_s / hash.amg.galerkin_s,
           cu.setup, hash.setup, cu.setup / hash.setup, (long long)cu.its, (long long)hash.its,
           cu.amg.operator_complexity, hash.amg.operator_complexity,
           cu.converged && hash.converged ? "" : "  NOT CONVERGED");
    fflush(stdout);
}

static double total(outcome o) { return o.setup + o.solve; }

static int by_total(const void *a, const void *b)
{
    double ta = total(*(const outcome *)a), tb = total(*(const outcome *)b);
    return (ta > tb) - (ta < tb);
}

/* The run of median setup + solve among `count` (sorted in place). */
static outcome median(outcome *runs, int count)
{
    qsort(runs, (size_t)count, sizeof *runs, by_total);
    return runs[count / 2];
}

static void bench(kryl_context ctx, const char *spec, const kryl_amg_options *options, int repeat,
                  bool compare)
{
    char kind_name[32] = "";
    long long n = 0;
    const char *colon = strchr(spec, ':');
    if (colon == NULL || colon - spec >= (long)sizeof kind_name ||
        sscanf(colon + 1, "%lld", &n) != 1)
        die(spec, KRYL_ERR_INVALID_ARGUMENT);
    memcpy(kind_name, spec, (size_t)(colon - spec));
    kryl_generator_kind kind;
    kryl_status st = kryl_generator_from_name(kind_name, &kind);
    if (st != KRYL_SUCCESS) die(spec, st);
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, nnz = 0;
    kryl_matrix A = NULL;
    kryl_vector b = NULL, x = NULL, ones = NULL;
    st = kryl_generator_size(&g, &rows, &nnz);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&A, ctx, &g, 0, rows);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&b, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&x, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&ones, A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_fill(ones, 1.0);
    /* b = A*1 */
    if (st == KRYL_SUCCESS) st = kryl_matrix_spmv(A, 1.0, ones, 0.0, b);
    if (st != KRYL_SUCCESS) die(spec, st);
    outcome jac_first = run(A, b, x, KRYL_PRECOND_JACOBI, options);
    outcome amg_first = run(A, b, x, KRYL_PRECOND_AMG, options);
    outcome jacs[MAX_REPEAT], amgs[MAX_REPEAT];
    for (int r = 0; r < repeat; r++) {
        jacs[r] = run(A, b, x, KRYL_PRECOND_JACOBI, options);
        amgs[r] = run(A, b, x, KRYL_PRECOND_AMG, options);
    }
    outcome jac = median(jacs, repeat), amg = median(amgs, repeat);
    double jt = jac.setup + jac.solve, at = amg.setup + amg.solve;
    bool converged = jac.converged && amg.converged && jac_first.converged && amg_first.converged;
    printf("%-18s %9lld | %6lld %8.3f %8.3f | %4lld %8.3f %8.3f %8.3f | %5.2f %5.2f | %5.2f %8.3f"
           " | %d %5.2f | %.3f %.3f %.3f %.3f %.3f %.3f%s\n",
           spec, (long long)rows, (long long)jac.its, jac.setup, jac.solve, (long long)amg.its,
           amg.setup, amg.solve, at, jt / at, jac.solve / amg.solve,
           total(jac_first) / total(amg_first), total(amg_first), amg.amg.levels,
           amg.amg.operator_complexity, amg.amg.strength_s, amg.amg.aggregate_s, amg.amg.prolong_s,
           amg.amg.galerkin_s, amg.amg.smoother_s, amg.amg.backend_s,
           converged ? "" : "  NOT CONVERGED");
    fflush(stdout);
    if (compare) compare_products(spec, A, b, x, options);
    kryl_vector_destroy(&ones);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
}

int main(int argc, char **argv)
{
    static const char *const grids[] = {"poisson2d:500",  "poisson2d:1000", "poisson2d:2000",
                                        "poisson3d:40",   "poisson3d:80",   "poisson3d:160",
                                        "poisson3d27:50", "poisson3d27:100"};
    kryl_backend_kind backend = KRYL_BACKEND_AUTO;
    if (argc > 1 && kryl_backend_from_name(argv[1], &backend) != KRYL_SUCCESS)
        die("the backend", KRYL_ERR_INVALID_ARGUMENT);
    kryl_solver_options defaults;
    kryl_solver_options_init(&defaults);
    kryl_amg_options amg = defaults.amg;
    const char *env = getenv("BENCH_AMG_SMOOTHER");
    if (env != NULL && kryl_amg_smoother_from_name(env, &amg.smoother) != KRYL_SUCCESS)
        die("BENCH_AMG_SMOOTHER", KRYL_ERR_INVALID_ARGUMENT);
    env = getenv("BENCH_AMG_COARSENING");
    if (env != NULL && kryl_amg_coarsening_from_name(env, &amg.coarsening) != KRYL_SUCCESS)
        die("BENCH_AMG_COARSENING", KRYL_ERR_INVALID_ARGUMENT);
    env = getenv("BENCH_AMG_SPGEMM");
    bool compare = env != NULL && strcmp(env, "compare") == 0;
    if (env != NULL && !compare) die("BENCH_AMG_SPGEMM (compare)", KRYL_ERR_INVALID_ARGUMENT);
    int repeat = 3;
    env = getenv("BENCH_AMG_REPEAT");
    if (env != NULL && (sscanf(env, "%d", &repeat) != 1 || repeat < 1 || repeat > MAX_REPEAT))
        die("BENCH_AMG_REPEAT (1 to 15)", KRYL_ERR_INVALID_ARGUMENT);
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = backend;
    kryl_context ctx = NULL;
    kryl_status st = kryl_context_create(&ctx, &co);
    if (st != KRYL_SUCCESS) die("the context", st);
    printf("bench_amg: %s (%s), PCG to rtol %g, b = A*1, x0 = 0; AMG smoother %s, coarsening "
           "%s; seconds, medians of %d calls after a first\n",
           kryl_backend_name(kryl_context_backend(ctx)), kryl_context_device_name(ctx), RTOL,
           kryl_amg_smoother_name(amg.smoother), kryl_amg_coarsening_name(amg.coarsening), repeat);
    printf("%-18s %9s | %6s %8s %8s | %4s %8s %8s %8s | %5s %5s | %5s %8s | %s %5s | %s\n", "grid",
           "rows", "jac it", "setup", "solve", "amg", "setup", "solve", "total", "x tot", "x sol",
           "first", "amg 1st", "L", "opcx",
           "setup: strength aggregate prolong galerkin smoother backend");
    int count = argc > 2 ? argc - 2 : (int)(sizeof grids / sizeof grids[0]);
    for (int i = 0; i < count; i++)
        bench(ctx, argc > 2 ? argv[i + 2] : grids[i], &amg, repeat, compare);
    kryl_context_destroy(&ctx);
    return 0;
}
