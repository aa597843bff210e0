/* CPU benchmark: Jacobi-preconditioned CG on the 3-D 7-point Poisson
 * matrix with the omp backend, reported as milliseconds per iteration
 * (compared with PETSc's KSPCG + PCJACOBI by bench/cpu-vs-petsc).
 *
 * usage: bench_cg_cpu [n (grid points per direction, 100)] [threads (2)]
 *                     [solves (3)] [double|single] [plain|deterministic|compare]
 * b = A*1, x0 = 0, rtol 1e-8; the best of the solves is reported.
 * deterministic: on a deterministic context; compare: plain and
 * deterministic contexts in alternating rounds (two each), and the ratio
 * of their best times per iteration, the cost of the flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kryl.h"

#define TRY(call)                                                                                  \
    do {                                                                                           \
        kryl_status try_st_ = (call);                                                              \
        if (try_st_ != KRYL_SUCCESS) {                                                             \
            fprintf(stderr, "bench_cg_cpu: %s failed: %s: %s\n", #call, kryl_strerror(try_st_),    \
                    kryl_last_error());                                                            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A positive integer argument, or exit with a message. */
static long parse_count(const char *text, const char *what)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v <= 0) {
        fprintf(stderr, "bench_cg_cpu: %s '%s' is not a positive integer\n", what, text);
        exit(2);
    }
    return v;
}

/* Build the problem on an omp context (deterministic or not), solve it
 * `solves` times and return the best milliseconds per iteration; *converged
 * says whether the last solve converged. */
static double best_ms(long n, long threads, long solves, kryl_precision precision,
                      bool deterministic, bool *converged)
{
    kryl_context ctx;
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_OMP;
    copt.threads = (int)threads;
    copt.deterministic = deterministic;
    TRY(kryl_context_create(&ctx, &copt));

    kryl_generator_options gen;
    kryl_generator_options_init(&gen, KRYL_GEN_POISSON3D7, n);
    int64_t nrows, ncols, nnz;
    TRY(kryl_generator_size(&gen, &nrows, &nnz));
    kryl_matrix A;
    TRY(kryl_matrix_generate(&A, ctx, &gen, 0, nrows));
    TRY(kryl_matrix_size(A, &nrows, &ncols, &nnz));

    /* b = A*1, x0 = 0 */
    kryl_vector ones, b, x;
    TRY(kryl_vector_create(&ones, A, KRYL_DOUBLE));
    TRY(kryl_vector_create(&b, A, KRYL_DOUBLE));
    TRY(kryl_vector_create(&x, A, KRYL_DOUBLE));
    TRY(kryl_vector_fill(ones, 1.0));
    TRY(kryl_matrix_spmv(A, 1.0, ones, 0.0, b));

    kryl_solver_options sopt;
    kryl_solver_options_init(&sopt);
    sopt.method = KRYL_METHOD_CG;
    sopt.precond = KRYL_PRECOND_JACOBI;
    sopt.precision = precision;
    sopt.rtol = 1e-8;
    sopt.record_history = false;
    kryl_solver solver;
    TRY(kryl_solver_create(&solver, A, &sopt));

    printf("kryl omp: Poisson 3-D 7-point %ld^3: %lld rows, %lld nonzeros, %s, %s%s\n", n,
           (long long)nrows, (long long)nnz, kryl_context_device_name(ctx),
           kryl_precision_name(precision), deterministic ? ", deterministic" : "");
    double best = -1.0;
    kryl_result res = {0};
    for (long s = 0; s < solves; s++) {
        TRY(kryl_vector_fill(x, 0.0));
        TRY(kryl_solver_solve(solver, b, x, &res));
        double ms = res.iterations > 0 ? 1e3 * res.solve_s / (double)res.iterations : 0.0;
        printf("  solve %ld: %lld iterations (%s), %.3f s, %.3f ms/iteration, relres %.2e\n", s + 1,
               (long long)res.iterations, kryl_reason_name(res.reason), res.solve_s, ms,
               res.relres);
        if (best < 0.0 || ms < best) best = ms;
    }
    printf("kryl omp: setup %.3f s, best %.3f ms/iteration\n", kryl_solver_setup_time(solver),
           best);
    *converged = res.converged;

    kryl_solver_destroy(&solver);
    kryl_vector_destroy(&ones);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return best;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? parse_count(argv[1], "grid size") : 100;
    long threads = argc > 2 ? parse_count(argv[2], "thread count") : 2;
    long solves = argc > 3 ? parse_count(argv[3], "solve count") : 3;
    kryl_precision precision = KRYL_DOUBLE;
    if (argc > 4) TRY(kryl_precision_from_name(argv[4], &precision));
    const char *mode = argc > 5 ? argv[5] : "plain";
    bool converged = false;
    if (strcmp(mode, "plain") == 0 || strcmp(mode, "deterministic") == 0) {
        best_ms(n, threads, solves, precision, mode[0] == 'd', &converged);
        return converged ? 0 : 1;
    }
    if (strcmp(mode, "compare") != 0) {
        fprintf(stderr, "bench_cg_cpu: '%s': expected plain, deterministic or compare\n", mode);
        return 2;
    }
    /* alternating rounds, so a change of the machine's load touches both */
    double best[2] = {-1.0, -1.0};
    bool all_converged = true;
    for (int round = 0; round < 4; round++) {
        double ms = best_ms(n, threads, solves, precision, round % 2 == 1, &converged);
        all_converged = all_converged && converged;
        if (best[round % 2] < 0.0 || ms < best[round % 2]) best[round % 2] = ms;
    }
    printf("kryl omp: best ms/iteration plain %.3f, deterministic %.3f: deterministic / plain = "
           "%.3f\n",
           best[0], best[1], best[1] / best[0]);
    return all_converged ? 0 : 1;
}
