/* Reproducible runs on the omp backend: x, the residual history and the
 * iteration count are the same bits with 1, 2 and 3 threads, with and
 * without a deterministic context, for every method family (CG one- and
 * two-reduction steps, pipelined CG, GMRES by DCGS2 and CGS2, BiCGSTAB)
 * and the preconditioners with reductions or parallel
 * triangular solves of their own (Jacobi, MIC(0), AMG), on generated and
 * real matrices.  On cuda, when a device is present: the same cases twice
 * on a deterministic context, the same bits both times, and the same bits
 * again with every step launched one by one (profiled: no graphs) and from
 * a solver used once and updated (its graph freed).  A
 * deterministic context also refuses tune. */
#include "test_krylov_support.h"

/* What one solve produced, in host memory. */
typedef struct det_run {
    int64_t n, iterations, length;
    double *x, *history;
    kryl_reason reason;
} det_run;

/* A problem: a generator (with its size) or a real matrix file. */
typedef struct det_problem {
    const char *file;
    kryl_generator_kind gen;
    int64_t gen_n;
} det_problem;

typedef struct det_case {
    const char *name;
    kryl_method method;
    kryl_precond_kind precond;
    kryl_orthog orthog;
} det_case;

static kryl_matrix problem_matrix(kryl_context ctx, const det_problem *p)
{
    return p->file ? kt_read(ctx, p->file) : kt_generate(ctx, p->gen, p->gen_n);
}

/* How the solver is used: created and solved once; the same profiled (its
 * steps never replayed from a graph); or solved, updated, then solved again
 * from the same x0 (the second solve is the run). */
typedef enum { RUN_ONCE, RUN_PROFILED, RUN_UPDATED } det_use;

/* The case on the problem, on a fresh context of the backend (omp:
 * `threads` threads); a run with n = 0 when the matrix is absent. */
static det_run solve(const det_problem *p, const det_case *c, kryl_backend_kind kind, int threads,
                     bool deterministic, det_use use)
{
    det_run run;
    memset(&run, 0, sizeof run);
    kryl_context ctx = kt_context_with(kind, threads, deterministic);
    kryl_matrix A = problem_matrix(ctx, p);
    if (A == NULL) {
        kryl_context_destroy(&ctx);
        return run;
    }
    run.n = kt_rows(A);
    double *b = kt_rhs(A, 7);
    run.x = calloc((size_t)run.n, sizeof *run.x);
    kryl_solver_options o;
    /* a fixed number of iterations is enough to compare: no need to converge */
    kt_options(&o, c->method, c->precond, 1e-10, 120);
    o.gmres_orthog = c->orthog;
    o.restart = 25;
    o.profile = use == RUN_PROFILED;
    kryl_vector bv = NULL, xv = NULL;
    kryl_solver s = NULL;
    CHECK_OK(kryl_vector_create(&bv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(bv, b, run.n));
    CHECK_OK(kryl_vector_fill(xv, 0.0));
    CHECK_OK(kryl_solver_create(&s, A, &o));
    kryl_result r;
    memset(&r, 0, sizeof r);
    if (s != NULL && use == RUN_UPDATED) {
        CHECK_OK(kryl_solver_solve(s, bv, xv, &r));
        CHECK_OK(kryl_solver_update(s));
        CHECK_OK(kryl_vector_fill(xv, 0.0));
    }
    if (s != NULL) {
        CHECK_OK(kryl_solver_solve(s, bv, xv, &r));
        CHECK_OK(kryl_vector_get(xv, run.x, run.n));
        const double *h = NULL;
        CHECK_OK(kryl_solver_history(s, &h, &run.length));
        run.history = malloc((size_t)(run.length > 0 ? run.length : 1) * sizeof *run.history);
        if (run.length > 0) memcpy(run.history, h, (size_t)run.length * sizeof *h);
    }
    run.iterations = r.iterations;
    run.reason = r.reason;
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&xv);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    free(b);
    return run;
}

static void run_free(det_run *run)
{
    free(run->x);
    free(run->history);
}

/* run and base have the same bits in x and the history. */
static void check_same(const det_run *run, const det_run *base, const char *label)
{
    CHECK(run->iterations == base->iterations && run->length == base->length,
          "%s: %lld iterations (history %lld), expected %lld (%lld)", label,
          (long long)run->iterations, (long long)run->length, (long long)base->iterations,
          (long long)base->length);
    if (run->length != base->length) return;
    CHECK(memcmp(run->x, base->x, (size_t)run->n * sizeof *run->x) == 0,
          "%s: x differs, max relative difference %.3g", label,
          test_rel_diff(run->x, base->x, run->n));
    CHECK(memcmp(run->history, base->history, (size_t)run->length * sizeof *run->history) == 0,
          "%s: the residual history differs", label);
}

static void check_case(const det_problem *p, const det_case *c, bool cuda)
{
    det_run base = solve(p, c, KRYL_BACKEND_OMP, 1, false, RUN_ONCE);
    if (base.n == 0) {
        printf("%s: matrix absent, skipped\n", p->file);
        return;
    }
    const char *what = p->file ? p->file : kryl_generator_name(p->gen);
    printf("%s on %s (%lld rows): %lld iterations (%s)\n", c->name, what, (long long)base.n,
           (long long)base.iterations, kryl_reason_name(base.reason));
    CHECK(base.iterations > 5, "%s on %s: only %lld iterations", c->name, what,
          (long long)base.iterations);
    const struct {
        int threads;
        bool deterministic;
    } configs[] = {{2, false}, {3, false}, {1, true}, {2, true}, {3, true}};
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        char label[160];
        snprintf(label, sizeof label, "%s on %s, %d threads%s against 1", c->name, what,
                 configs[k].threads, configs[k].deterministic ? ", deterministic" : "");
        det_run run =
            solve(p, c, KRYL_BACKEND_OMP, configs[k].threads, configs[k].deterministic, RUN_ONCE);
        check_same(&run, &base, label);
        run_free(&run);
    }
    run_free(&base);
    if (!cuda) return;
    det_run first = solve(p, c, KRYL_BACKEND_CUDA, 0, true, RUN_ONCE);
    const struct {
        det_use use;
        const char *name;
    } uses[] = {{RUN_ONCE, "second run"},
                {RUN_PROFILED, "profiled (no graphs)"},
                {RUN_UPDATED, "second solve after an update"}};
    for (size_t k = 0; k < sizeof uses / sizeof uses[0]; k++) {
        char label[160];
        snprintf(label, sizeof label, "%s on %s, cuda, deterministic, %s", c->name, what,
                 uses[k].name);
        det_run run = solve(p, c, KRYL_BACKEND_CUDA, 0, true, uses[k].use);
        check_same(&run, &first, label);
        run_free(&run);
    }
    run_free(&first);
}

/* tune times the formats: refused on a deterministic context, naming why. */
static void check_tune_refused(void)
{
    kryl_context ctx = kt_context_with(KRYL_BACKEND_OMP, 2, true);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 20);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_JACOBI, 1e-8, 100);
    o.format = KRYL_FORMAT_AUTO;
    o.tune = true;
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_INVALID_ARGUMENT && strstr(kryl_last_error(), "deterministic") != NULL,
          "tune on a deterministic context: %s: %s", kryl_strerror(st), kryl_last_error());
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    CHECK(kryl_context_deterministic(ctx), "the context does not say it is deterministic");
    kryl_context_destroy(&ctx);
}

int main(void)
{
    const det_case spd[] = {
        {"cg", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_ORTHOG_AUTO},
        {"pcg jacobi", KRYL_METHOD_CG, KRYL_PRECOND_JACOBI, KRYL_ORTHOG_AUTO},
        {"pcg mic0", KRYL_METHOD_CG, KRYL_PRECOND_MIC0, KRYL_ORTHOG_AUTO},
        {"pipecg jacobi", KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, KRYL_ORTHOG_AUTO},
        {"pcg amg", KRYL_METHOD_CG, KRYL_PRECOND_AMG, KRYL_ORTHOG_AUTO},
    };
    const det_case general[] = {
        {"gmres dcgs2", KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, KRYL_ORTHOG_DCGS2},
        {"gmres cgs2", KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, KRYL_ORTHOG_CGS2},
        {"bicgstab", KRYL_METHOD_BICGSTAB, KRYL_PRECOND_JACOBI, KRYL_ORTHOG_AUTO},
    };
    /* sizes spanning several reduction parts, with uneven splits over 2 and 3 threads */
    const det_problem spd_problems[] = {
        {NULL, KRYL_GEN_POISSON2D5, 150},
        {"bcsstk15.mtx", KRYL_GEN_POISSON2D5, 0},
    };
    const det_problem general_problems[] = {
        {NULL, KRYL_GEN_CONVDIFF2D, 130},
        {"dw8192.mtx", KRYL_GEN_POISSON2D5, 0},
    };
    const bool cuda = kryl_backend_available(KRYL_BACKEND_CUDA);
    if (!cuda) printf("no usable CUDA device: the cuda runs are skipped\n");
    for (size_t p = 0; p < 2; p++)
        for (size_t c = 0; c < sizeof spd / sizeof spd[0]; c++)
            check_case(&spd_problems[p], &spd[c], cuda);
    for (size_t p = 0; p < 2; p++)
        for (size_t c = 0; c < sizeof general / sizeof general[0]; c++)
            check_case(&general_problems[p], &general[c], cuda);
    check_tune_refused();
    return test_summary("test_solver_deterministic");
}
