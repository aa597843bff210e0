/* The omp backend's triangular solves on both schedules (levels and
 * serial, each forced, and the one setup times and chooses) against ref's
 * substitution, bit for bit: random lower/upper, unit/non-unit triangles of
 * awkward sizes, a dense row, a tridiagonal chain and IC(0)/ILU(0) factors,
 * in double and single, on 2 and 3 threads; the team size the omp backend
 * takes next to busy programs; and a PCG + IC(0) solve with that
 * adaptation on, checked by the true residual. */
#include <stdlib.h>
#include <string.h>

#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_trsv.h"
#include "core/host_threads.h"
#include "factor/factor.h"
#include "order/order.h"
#include "test_krylov_support.h"
#include "trsv_support.h"

/* Schedules a solve is checked on: the chosen one, then each forced. */
enum { SCHEDULE_CHOSEN, SCHEDULE_SERIAL, SCHEDULE_LEVELS, SCHEDULES };
static const char *const schedule_names[] = {"chosen", "serial", "levels"};

/* x = T^{-1} b on ctx (schedule forced unless chosen; twice), b and x in double. */
static void solve_on(kryl_context ctx, const kryl_csr *T, const kryl_levels *lv,
                     kryl_precision precision, bool lower, bool unit, int schedule, const double *b,
                     double *x)
{
    int64_t n = T->nrows;
    void *buf = malloc((size_t)(n > 0 ? n : 1) * kryl_precision_size(precision));
    struct kryl_vector_s bv = test_trsv_vector(ctx, n, precision);
    struct kryl_vector_s xv = test_trsv_vector(ctx, n, precision);
    void *handle = NULL;
    CHECK_OK(ctx->ops->trsv_setup(ctx, T, precision, lower, unit, lv->order, lv->level_ptr,
                                  lv->nlevels, &handle));
    if (handle && schedule != SCHEDULE_CHOSEN) {
        ((kryl_host_trsv *)handle)->parallel = schedule == SCHEDULE_LEVELS;
        CHECK(strcmp(ctx->ops->trsv_path(ctx, handle), schedule_names[schedule]) == 0,
              "forced %s, reported %s", schedule_names[schedule], ctx->ops->trsv_path(ctx, handle));
    }
    test_trsv_upload(ctx, &bv, b, 1.0, buf);
    for (int k = 0; k < 2 && handle; k++) CHECK_OK(ctx->ops->trsv(ctx, handle, &bv, &xv));
    test_trsv_download(ctx, &xv, buf, x);
    ctx->ops->trsv_release(ctx, handle);
    ctx->ops->release(ctx, bv.data);
    ctx->ops->release(ctx, xv.data);
    free(buf);
}

/* Every schedule of every omp context gives ref's x exactly (each row is
 * computed by the same formula, in the same order of its entries). */
static void check_triangle(kryl_context ref, kryl_context *omp, int nomp, const kryl_csr *T,
                           bool lower, bool unit, const char *what)
{
    int64_t n = T->nrows;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    kryl_levels lv = {0};
    CHECK_OK(kryl_order_levels(T, NULL, lower ? KRYL_LOWER : KRYL_UPPER, &lv));
    double *b = malloc(bytes), *x = malloc(bytes), *xref = malloc(bytes);
    test_random_values(b, n, 11 + (uint64_t)n);
    for (int p = 0; p < 2; p++) {
        kryl_precision precision = p == 0 ? KRYL_DOUBLE : KRYL_SINGLE;
        solve_on(ref, T, &lv, precision, lower, unit, SCHEDULE_CHOSEN, b, xref);
        for (int c = 0; c < nomp; c++)
            for (int schedule = 0; schedule < SCHEDULES; schedule++) {
                solve_on(omp[c], T, &lv, precision, lower, unit, schedule, b, x);
                CHECK(memcmp(x, xref, (size_t)n * sizeof *x) == 0,
                      "%s (%s %s, n = %lld, %d levels, %s, %d threads, %s schedule): omp "
                      "differs from ref by %.3e",
                      what, lower ? "lower" : "upper", unit ? "unit" : "non-unit", (long long)n,
                      (int)lv.nlevels, kryl_precision_name(precision),
                      kryl_omp_state_of(omp[c])->max_threads, schedule_names[schedule],
                      test_rel_diff(x, xref, n));
            }
    }
    free(b);
    free(x);
    free(xref);
    kryl_levels_free(&lv);
}

/* Random triangles of awkward sizes, a dense row, a chain, and factors. */
static void test_triangles(kryl_context ref, kryl_context *omp, int nomp)
{
    const int64_t sizes[] = {0, 1, 2, 31, 257, 4099, 20000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int shape = 0; shape < 4; shape++) {
            bool lower = shape < 2, unit = shape % 2 == 1;
            kryl_csr T = {0};
            test_random_triangle(&T, sizes[s], lower, unit, 300 + (uint64_t)(s * 4 + shape));
            check_triangle(ref, omp, nomp, &T, lower, unit, "random triangle");
            kryl_csr_free(&T);
            test_shaped_triangle(&T, 3001, lower, unit, shape == 0);
            check_triangle(ref, omp, nomp, &T, lower, unit,
                           shape == 0 ? "dense row" : "tridiagonal chain");
            kryl_csr_free(&T);
        }
    kryl_matrix P = kt_generate(ref, KRYL_GEN_POISSON2D5, 90);
    kryl_matrix C = kt_generate(ref, KRYL_GEN_CONVDIFF2D, 70);
    kryl_factor F = {0};
    if (P) {
        CHECK_OK(kryl_factor_ic0(&P->host->csr, &F));
        check_triangle(ref, omp, nomp, &F.L, true, F.unit_lower, "ic0 L of poisson2d");
        check_triangle(ref, omp, nomp, &F.U, false, false, "ic0 U of poisson2d");
        kryl_factor_free(&F);
    }
    if (C) {
        CHECK_OK(kryl_factor_ilu0(&C->host->csr, &F));
        check_triangle(ref, omp, nomp, &F.L, true, F.unit_lower, "ilu0 L of convdiff2d");
        check_triangle(ref, omp, nomp, &F.U, false, false, "ilu0 U of convdiff2d");
        kryl_factor_free(&F);
    }
    kryl_matrix_destroy(&P);
    kryl_matrix_destroy(&C);
}

/* The team next to busy programs: the free cores, between 1 and the threads asked for. */
static void test_team_size(void)
{
    CHECK(kryl_omp_team_for(2, 0, 2) == 2, "idle 2 cores, 2 threads");
    CHECK(kryl_omp_team_for(2, 1, 2) == 1, "one busy process on 2 cores: a thread alone");
    CHECK(kryl_omp_team_for(2, 2, 2) == 1, "two busy processes on 2 cores: a thread alone");
    CHECK(kryl_omp_team_for(2, 9, 2) == 1, "load 9 on 2 cores: a thread alone");
    CHECK(kryl_omp_team_for(8, 3, 4) == 4, "4 threads, 5 cores free");
    CHECK(kryl_omp_team_for(8, 5, 4) == 3, "4 threads, 3 cores free");
    CHECK(kryl_omp_team_for(8, 7, 4) == 1, "4 of 8 threads, 1 core free");
    CHECK(kryl_omp_team_for(4, 3, 4) == 1, "4 of 4 threads, 1 core free");
    CHECK(kryl_omp_team_for(4, 5, 4) == 1, "4 of 4 threads, overloaded: a thread alone");
    CHECK(kryl_omp_team_for(4, 0, 1) == 1, "1 thread asked for");
    CHECK(kryl_omp_team_for(1, 1, 1) == 1, "1 thread on 1 busy core");
    CHECK(kryl_omp_team_for(2, -1, 2) == 2, "a count below zero (a race of the counts)");
}

/* With no wait policy in the environment the team follows the free cores,
 * and solves are right whatever team each operation gets. */
static void test_adaptive_solve(void)
{
    const char *policy = getenv("OMP_WAIT_POLICY");
    char *saved = policy ? strdup(policy) : NULL;
    unsetenv("OMP_WAIT_POLICY");
    kryl_context ctx = kt_context_with(KRYL_BACKEND_OMP, 2, false);
    if (saved) setenv("OMP_WAIT_POLICY", saved, 1);
    free(saved);
    if (ctx == NULL) return;
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    CHECK(s->adapt == (getenv("GOMP_SPINCOUNT") == NULL && s->cores > 0),
          "the team adapts without a wait policy");
    CHECK(!s->adapt || strstr(kryl_context_device_name(ctx), "follows the cores") != NULL,
          "the device name says the team adapts: %s", kryl_context_device_name(ctx));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 60);
    if (A) {
        double *b = kt_rhs(A, 3);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, 1e-8, 2000);
        kt_solve r = kt_run(A, &o, b, NULL, NULL);
        kt_check_converged(&r, "pcg + ic0 on poisson2d, team following the free cores");
        CHECK(s->threads >= 1 && s->threads <= s->max_threads, "team %d of at most %d", s->threads,
              s->max_threads);
        /* host setup work (generation, checks, patterns) takes the team too */
        const int host = kryl_host_threads(ctx);
        CHECK(host == s->threads, "host setup threads %d, team %d", host, s->threads);
        free(b);
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Whether a 2-thread context adapts its team under the environment
 * OMP_WAIT_POLICY=policy, GOMP_SPINCOUNT=spin, KRYL_OMP_ADAPT=adapt (NULL:
 * unset); the environment is restored after. */
static bool adapts_under(const char *policy, const char *spin, const char *adapt)
{
    static const char *const names[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KRYL_OMP_ADAPT"};
    const char *values[] = {policy, spin, adapt};
    char *saved[3];
    for (int k = 0; k < 3; k++) {
        const char *v = getenv(names[k]);
        saved[k] = v ? strdup(v) : NULL;
        if (values[k])
            setenv(names[k], values[k], 1);
        else
            unsetenv(names[k]);
    }
    kryl_context ctx = kt_context_with(KRYL_BACKEND_OMP, 2, false);
    bool adapts = ctx != NULL && kryl_omp_state_of(ctx)->adapt;
    kryl_context_destroy(&ctx);
    for (int k = 0; k < 3; k++) {
        if (saved[k])
            setenv(names[k], saved[k], 1);
        else
            unsetenv(names[k]);
        free(saved[k]);
    }
    return adapts;
}

/* The team adapts when no wait policy is chosen, or when KRYL_OMP_ADAPT=1
 * says so next to one (the kryl command's passive waits after a short
 * spin); a policy the user chose alone, or KRYL_OMP_ADAPT=0, keeps the
 * thread count asked for. */
static void test_adapt_choice(void)
{
    if (!adapts_under(NULL, NULL, NULL)) return; /* no /proc to count with: never adapts */
    CHECK(adapts_under("passive", "1000", "1"), "the command's policy with KRYL_OMP_ADAPT=1");
    CHECK(!adapts_under("passive", "1000", NULL), "a policy chosen by the user");
    CHECK(!adapts_under(NULL, "1000", NULL), "a spin count chosen by the user");
    CHECK(!adapts_under(NULL, NULL, "0"), "KRYL_OMP_ADAPT=0");
    /* threads bound to places keep their team, whatever else is set */
    setenv("OMP_PROC_BIND", "close", 1);
    CHECK(!adapts_under(NULL, NULL, NULL), "OMP_PROC_BIND=close");
    CHECK(!adapts_under("passive", "1000", "1"), "OMP_PROC_BIND=close with KRYL_OMP_ADAPT=1");
    setenv("OMP_PROC_BIND", "false", 1);
    CHECK(adapts_under(NULL, NULL, NULL), "OMP_PROC_BIND=false");
    unsetenv("OMP_PROC_BIND");
}

int main(void)
{
    kryl_context ref = test_context(KRYL_BACKEND_REF);
    kryl_context omp[2] = {kt_context_with(KRYL_BACKEND_OMP, 2, false),
                           kt_context_with(KRYL_BACKEND_OMP, 3, false)};
    if (omp[0] && omp[1]) test_triangles(ref, omp, 2);
    test_team_size();
    test_adaptive_solve();
    test_adapt_choice();
    kryl_context_destroy(&omp[0]);
    kryl_context_destroy(&omp[1]);
    kryl_context_destroy(&ref);
    return test_summary("test_omp_trsv");
}
