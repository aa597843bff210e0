/* CPU triangular-solve benchmark: PCG + IC(0) with the omp backend on one
 * and on two threads, and the schedule of the triangular solves setup
 * chose for each factor (serial substitution or level-scheduled) with the
 * times it measured for both (from the backend's log).  A second thread
 * must never make the solve slower: setup keeps the faster schedule.
 *
 * usage: bench_trsv_cpu [n2d (1000)] [n3d (100)] [elasticity n (12)]
 * Matrices: 2-D 5-point n2d^2, 3-D 7-point n3d^3, elasticity3d --n n
 * (a cantilever of tetrahedra, 3 rows a node).  b = A*1, x0 = 0, rtol 1e-8. */
#include <stdio.h>
#include <string.h>

#include "bench_cpu_problem.h"

/* The "omp trsv:" log lines of one setup, their choices and times kept. */
typedef struct trsv_log {
    char text[2][160];
    int count;
} trsv_log;

static void keep_trsv_lines(kryl_log_level level, const char *message, void *user)
{
    (void)level;
    trsv_log *log = user;
    const char *choice = strstr(message, "omp trsv: ");
    const char *what = choice ? strstr(message, "): ") : NULL;
    if (what == NULL || log->count >= 2) return;
    snprintf(log->text[log->count++], sizeof log->text[0], "%s %s",
             strstr(message, "lower") ? "L" : "U", what + 3);
}

/* PCG + IC(0) on the generated matrix with `threads` omp threads. */
static void run(kryl_generator_kind kind, long n, const char *name, int threads)
{
    trsv_log log = {0};
    bench_problem p = bench_problem_create(kind, n, threads, false, keep_trsv_lines, &log);
    kryl_solver_options sopt;
    kryl_solver_options_init(&sopt);
    sopt.method = KRYL_METHOD_PCG;
    sopt.precond = KRYL_PRECOND_IC0;
    sopt.rtol = 1e-8;
    sopt.record_history = false;
    kryl_solver solver;
    BENCH_TRY(kryl_solver_create(&solver, p.A, &sopt));
    kryl_result res = {0};
    BENCH_TRY(kryl_solver_solve(solver, p.b, p.x, &res));
    printf("| %s | %lld | %d | %lld | %.3f | %.3f | %s; %s |\n", name, (long long)p.nrows, threads,
           (long long)res.iterations, res.setup_s, res.solve_s, log.count > 0 ? log.text[0] : "?",
           log.count > 1 ? log.text[1] : "?");
    fflush(stdout);
    kryl_solver_destroy(&solver);
    bench_problem_destroy(&p);
}

int main(int argc, char **argv)
{
    long n2d = argc > 1 ? bench_parse_count(argv[1], "2-D grid size") : 1000;
    long n3d = argc > 2 ? bench_parse_count(argv[2], "3-D grid size") : 100;
    long nel = argc > 3 ? bench_parse_count(argv[3], "elasticity size") : 12;
    char name[3][64];
    snprintf(name[0], sizeof name[0], "poisson2d %ld^2", n2d);
    snprintf(name[1], sizeof name[1], "poisson3d %ld^3", n3d);
    snprintf(name[2], sizeof name[2], "elasticity3d --n %ld", nel);
    const kryl_generator_kind kinds[] = {KRYL_GEN_POISSON2D5, KRYL_GEN_POISSON3D7,
                                         KRYL_GEN_ELASTICITY3D};
    const long sizes[] = {n2d, n3d, nel};
    printf("| matrix | rows | threads | iterations | setup s | solve s | trsv schedule "
           "(L; U) |\n|---|---|---|---|---|---|---|\n");
    for (int m = 0; m < 3; m++)
        for (int threads = 1; threads <= 2; threads++) run(kinds[m], sizes[m], name[m], threads);
    return 0;
}
