/* The hybrid pipelined CG checks (options.hybrid), run with a given
 * backend as the device side: ref in test_solver_hybrid.c (every CPU-only
 * build), cuda in test_cuda_hybrid.c.  The same iterates as pipecg on that
 * backend alone, to rounding, for each of the three methods and on awkward
 * splits (no host rows, no device rows, one row); converged by the true
 * residual; never worse than x0; the refusals; new values through
 * kryl_solver_update; which preconditioners each method takes. */
#ifndef KRYL_TEST_HYBRID_SUPPORT_H
#define KRYL_TEST_HYBRID_SUPPORT_H

#include "test_krylov_support.h"

/* One solve's residual history and x. */
typedef struct run {
    kryl_result r;
    double *history;
    int64_t length;
    double *x;
    kryl_hybrid_info info;
} run;

static inline run solve(kryl_matrix A, const kryl_solver_options *o, const double *bh)
{
    run out;
    memset(&out, 0, sizeof out);
    int64_t n = kt_rows(A);
    out.x = calloc((size_t)n, sizeof *out.x);
    kryl_vector b = NULL, x = NULL;
    kryl_solver s = NULL;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    CHECK_OK(kryl_vector_set(x, out.x, n));
    CHECK_OK(kryl_solver_create(&s, A, o));
    if (s) {
        CHECK_OK(kryl_solver_solve(s, b, x, &out.r));
        CHECK_OK(kryl_vector_get(x, out.x, n));
        const double *h = NULL;
        CHECK_OK(kryl_solver_history(s, &h, &out.length));
        out.history = malloc((size_t)(out.length + 1) * sizeof *out.history);
        memcpy(out.history, h, (size_t)out.length * sizeof *h);
        if (o->hybrid != KRYL_HYBRID_NONE) CHECK_OK(kryl_solver_hybrid_info(s, &out.info));
    }
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    return out;
}

static inline void run_free(run *r)
{
    free(r->history);
    free(r->x);
}

/* The hybrid method's residuals and x against pipecg's on one backend. */
static inline void check_same_iterates(const run *h, const run *p, const char *label)
{
    CHECK(h->r.iterations == p->r.iterations, "%s: %lld iterations, pipecg %lld", label,
          (long long)h->r.iterations, (long long)p->r.iterations);
    CHECK(h->length == p->length, "%s: history of %lld, pipecg %lld", label, (long long)h->length,
          (long long)p->length);
    /* rounding differences grow as the residual falls: compared while it is
     * far above rounding level */
    double worst = 0.0;
    for (int64_t k = 0; k < h->length && k < p->length && p->history[k] > 1e-8 * p->history[0]; k++)
        worst = fmax(worst, fabs(h->history[k] - p->history[k]) / p->history[k]);
    CHECK(worst < 1e-8, "%s: residual histories differ by %.2e relative", label, worst);
    CHECK(fabs(h->r.relres - p->r.relres) <= 1e-6 * p->r.relres + 1e-15,
          "%s: relres %.6e, pipecg %.6e", label, h->r.relres, p->r.relres);
}

/* Each method on splits that leave a side empty or with one row, without
 * and with Jacobi, a fixed number of steps (past a residual replacement). */
static inline void hybrid_same_iterates(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
    const int64_t n = kt_rows(A);
    double *b = kt_rhs(A, 7);
    const int64_t splits[] = {0, n, 1, n - 1, n / 3};
    for (int pc = 0; pc < 2; pc++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PIPECG, pc ? KRYL_PRECOND_JACOBI : KRYL_PRECOND_NONE, 1e-30, 70);
        run ref = solve(A, &o, b);
        CHECK(ref.length > 60 && ref.history[60] > 1e-8 * ref.history[0],
              "pipecg converged before the comparison passed a residual replacement");
        for (int method = KRYL_HYBRID_DOTS; method <= KRYL_HYBRID_SPLIT; method++) {
            int nsplits = method == KRYL_HYBRID_SPLIT ? 5 : 1;
            for (int k = 0; k < nsplits; k++) {
                kryl_solver_options oh = o;
                oh.hybrid = (kryl_hybrid)method;
                if (method == KRYL_HYBRID_SPLIT) oh.hybrid_host_rows = splits[k];
                char label[128];
                snprintf(label, sizeof label, "hybrid %s, %lld host rows of %lld, %s",
                         kryl_hybrid_name(oh.hybrid), (long long)oh.hybrid_host_rows, (long long)n,
                         kryl_precond_name(o.precond));
                run h = solve(A, &oh, b);
                check_same_iterates(&h, &ref, label);
                CHECK(h.info.method == oh.hybrid, "%s: ran %s", label,
                      kryl_hybrid_name(h.info.method));
                if (method == KRYL_HYBRID_SPLIT)
                    CHECK(h.info.host_rows == splits[k] && h.info.device_rows == n - splits[k],
                          "%s: split %lld + %lld", label, (long long)h.info.host_rows,
                          (long long)h.info.device_rows);
                run_free(&h);
            }
        }
        run_free(&ref);
    }
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Converged by the true residual (as recomputed here), the split by the
 * model and as given, with pcg and pipecg, on generated and real matrices. */
static inline void hybrid_converged(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix mats[2] = {kt_generate(ctx, KRYL_GEN_POISSON2D5, 40), kt_read(ctx, "bcsstk15.mtx")};
    for (int a = 0; a < 2; a++) {
        if (mats[a] == NULL) continue;
        double *b = kt_rhs(mats[a], 3);
        for (int method = KRYL_HYBRID_DOTS; method <= KRYL_HYBRID_SPLIT; method++)
            for (int given = 0; given < 2; given++) {
                kryl_solver_options o;
                kt_options(&o, given ? KRYL_METHOD_PIPECG : KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI,
                           1e-8, 20000);
                o.hybrid = (kryl_hybrid)method;
                if (given && method == KRYL_HYBRID_SPLIT) o.hybrid_host_rows = kt_rows(mats[a]) / 2;
                char label[128];
                snprintf(
                    label, sizeof label, "hybrid %s on matrix %d, %s", kryl_hybrid_name(o.hybrid),
                    a, o.hybrid_host_rows >= 0 ? "half the rows on the host" : "the model's split");
                kt_solve s = kt_run(mats[a], &o, b, NULL, NULL);
                CHECK(s.create == KRYL_SUCCESS, "%s: %s", label, kryl_last_error());
                if (s.create == KRYL_SUCCESS) kt_check_converged(&s, label);
            }
        free(b);
        kryl_matrix_destroy(&mats[a]);
    }
    kryl_context_destroy(&ctx);
}

/* Two steps from an x0 close to the solution: the x returned is never
 * worse than x0. */
static inline void hybrid_never_worse(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 20);
    const int64_t n = kt_rows(A);
    double *b = kt_rhs(A, 5), *x0 = malloc((size_t)n * sizeof *x0);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-12, 20000);
    kt_solve exact = kt_run(A, &o, b, NULL, x0);
    CHECK(exact.r.converged, "the reference solve did not converge");
    for (int64_t i = 0; i < n; i++) x0[i] *= 1.0 + 1e-9 * (double)(i % 7);
    double rounding = 0.0, start = kt_host_relres(A, x0, b, &rounding);
    for (int method = KRYL_HYBRID_DOTS; method <= KRYL_HYBRID_SPLIT; method++) {
        o.hybrid = (kryl_hybrid)method;
        o.max_iterations = 2;
        o.rtol = 1e-15;
        o.hybrid_host_rows = method == KRYL_HYBRID_SPLIT ? n / 2 : -1;
        kt_solve s = kt_run(A, &o, b, x0, NULL);
        CHECK(s.create == KRYL_SUCCESS && s.x_finite, "hybrid %s: %s", kryl_hybrid_name(o.hybrid),
              kryl_last_error());
        CHECK(s.host_relres <= start * (1.0 + 1e-12) + rounding,
              "hybrid %s: relres %.3e from x0's %.3e", kryl_hybrid_name(o.hybrid), s.host_relres,
              start);
    }
    free(b);
    free(x0);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

static inline kryl_status create_status(kryl_matrix A, const kryl_solver_options *o)
{
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, o);
    kryl_solver_destroy(&s);
    return st;
}

/* What the methods refuse, and what runs with the polynomial preconditioner. */
static inline void hybrid_options(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 11);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_SPLIT;
    CHECK(create_status(A, &o) == KRYL_ERR_INVALID_ARGUMENT &&
              strstr(kryl_last_error(), "pipecg") != NULL,
          "hybrid with gmres: %s", kryl_last_error());
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_LSPOLY, 1e-8, 1000);
    for (int method = KRYL_HYBRID_MIRROR; method <= KRYL_HYBRID_SPLIT; method++) {
        o.hybrid = (kryl_hybrid)method;
        CHECK(create_status(A, &o) == KRYL_ERR_UNSUPPORTED &&
                  strstr(kryl_last_error(), "Jacobi") != NULL,
              "hybrid %d with lspoly: %s", method, kryl_last_error());
    }
    o.hybrid = KRYL_HYBRID_DOTS;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    CHECK(s.create == KRYL_SUCCESS, "hybrid 1 with lspoly: %s", kryl_last_error());
    if (s.create == KRYL_SUCCESS) kt_check_converged(&s, "hybrid 1 with lspoly");
    o.hybrid = KRYL_HYBRID_SPLIT;
    o.hybrid_host_rows = kt_rows(A) + 1;
    o.precond = KRYL_PRECOND_JACOBI;
    CHECK(create_status(A, &o) == KRYL_ERR_INVALID_ARGUMENT, "too many host rows: %s",
          kryl_last_error());
    o.hybrid_host_rows = -2;
    CHECK(create_status(A, &o) == KRYL_ERR_INVALID_ARGUMENT, "host rows -2: %s", kryl_last_error());
    o.hybrid_host_rows = -1;
    o.format = KRYL_FORMAT_ELL;
    CHECK(create_status(A, &o) == KRYL_ERR_UNSUPPORTED, "hybrid 3 in ell: %s", kryl_last_error());
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* New values: the split is built again from them. */
static inline void hybrid_update(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 12);
    const int64_t n = kt_rows(A);
    double *b = kt_rhs(A, 13);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-10, 1000);
    o.hybrid = KRYL_HYBRID_SPLIT;
    o.hybrid_host_rows = n / 4;
    kryl_solver s = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    int64_t nnz = 0;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    const int64_t *rp = NULL;
    const int32_t *ci = NULL;
    const double *va = NULL;
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &va));
    double *values = malloc((size_t)nnz * sizeof *values);
    /* 3 A plus a diagonal shift: other values, still SPD */
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            values[k] = 3.0 * va[k] + (ci[k] == i ? 0.5 : 0.0);
    CHECK_OK(kryl_matrix_update_values(A, values));
    kryl_vector bv = NULL, x = NULL;
    CHECK_OK(kryl_vector_create(&bv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(bv, b, n));
    CHECK_OK(kryl_vector_fill(x, 0.0));
    kryl_result r;
    CHECK_OK(kryl_solver_solve(s, bv, x, &r));
    double *xh = malloc((size_t)n * sizeof *xh), rounding = 0.0;
    CHECK_OK(kryl_vector_get(x, xh, n));
    double relres = kt_host_relres(A, xh, b, &rounding);
    CHECK(r.converged && relres <= 1e-10 * (1.0 + 1e-6) + 1e-13,
          "after new values: converged %d, relres %.3e", r.converged, relres);
    free(xh);
    free(values);
    free(b);
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&x);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Each preconditioner with each method, on pcg: hybrid 1 takes what pcg
 * on one backend takes (M runs on the device) and converges; 2 and 3 take
 * Jacobi or none and refuse the others by name; auto runs the others on
 * one backend.  Prints the table docs/HYBRID.md gives. */
static inline void hybrid_preconditioners(kryl_backend_kind device)
{
    kryl_context ctx = kt_context(device);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 37);
    for (int kind = KRYL_PRECOND_JACOBI; kind <= KRYL_PRECOND_ILUTP; kind++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PCG, (kryl_precond_kind)kind, 1e-8, 1000);
        const char *name = kryl_precond_name((kryl_precond_kind)kind);
        const kryl_status plain = create_status(A, &o);
        printf("%-7s pcg %s;", name, plain == KRYL_SUCCESS ? "runs" : "refuses it");
        for (int method = KRYL_HYBRID_DOTS; method <= KRYL_HYBRID_AUTO; method++) {
            o.hybrid = (kryl_hybrid)method;
            const bool takes = plain == KRYL_SUCCESS &&
                               (method == KRYL_HYBRID_DOTS || method == KRYL_HYBRID_AUTO ||
                                kind == KRYL_PRECOND_JACOBI);
            if (!takes) {
                kryl_status st = create_status(A, &o);
                CHECK(st != KRYL_SUCCESS &&
                          (plain != KRYL_SUCCESS || strstr(kryl_last_error(), "Jacobi") != NULL),
                      "hybrid %s with %s: %s", kryl_hybrid_name(o.hybrid), name, kryl_last_error());
                printf(" %s refused", kryl_hybrid_name(o.hybrid));
                continue;
            }
            char label[64];
            snprintf(label, sizeof label, "hybrid %s with %s", kryl_hybrid_name(o.hybrid), name);
            kt_solve r = kt_run(A, &o, b, NULL, NULL);
            CHECK(r.create == KRYL_SUCCESS, "%s: %s", label, kryl_last_error());
            if (r.create == KRYL_SUCCESS) kt_check_converged(&r, label);
            printf(" %s runs", kryl_hybrid_name(o.hybrid));
        }
        printf("\n");
    }
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

#endif
