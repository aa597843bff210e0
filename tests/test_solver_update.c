/* New values on the same pattern: kryl_matrix_update_values followed by
 * kryl_solver_update (or the solve's own update) gives the solver a fresh
 * setup for the new values would give: the same iterations and the same
 * x, over formats, orderings, precisions, preconditioners and methods; the
 * caller's entry order (unsorted, repeated) is honoured; bad values and
 * values that no longer suit the method are refused.  Also the setup's
 * phases (kryl_result.setup_phases) add up to its time. */
#include "backends/backend.h"
#include "spd_new_values.h"
#include "test_krylov_support.h"

typedef struct update_case {
    const char *name;
    kryl_method method;
    kryl_precond_kind precond;
    kryl_format format;
    kryl_order_kind order;
    kryl_precision precision;
    kryl_mixed_scheme mixed;
} update_case;

static const update_case cases[] = {
    {"cg", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_CSR, KRYL_ORDER_NONE, KRYL_DOUBLE, 0},
    {"pcg jacobi dia", KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_DIA, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"cg sell", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_SELL, KRYL_ORDER_NONE, KRYL_DOUBLE,
     0},
    {"cg ell rcm", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_ELL, KRYL_ORDER_RCM, KRYL_DOUBLE,
     0},
    {"cg jds single", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_JDS, KRYL_ORDER_NONE,
     KRYL_SINGLE, 0},
    {"cg pjds", KRYL_METHOD_CG, KRYL_PRECOND_NONE, KRYL_FORMAT_PJDS, KRYL_ORDER_NONE, KRYL_DOUBLE,
     0},
    {"pcg ic0", KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE, KRYL_DOUBLE,
     0},
    {"pcg ic0 color", KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_CSR, KRYL_ORDER_COLOR,
     KRYL_DOUBLE, 0},
    {"pcg mic0 sell", KRYL_METHOD_PCG, KRYL_PRECOND_MIC0, KRYL_FORMAT_SELL, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg iluk", KRYL_METHOD_PCG, KRYL_PRECOND_ILUK, KRYL_FORMAT_CSR, KRYL_ORDER_NONE, KRYL_DOUBLE,
     0},
    {"gmres ilut", KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg lspoly", KRYL_METHOD_PCG, KRYL_PRECOND_LSPOLY, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg bjacobi", KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg mcssor", KRYL_METHOD_PCG, KRYL_PRECOND_MCSSOR, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg mcilu0 dia", KRYL_METHOD_PCG, KRYL_PRECOND_MCILU0, KRYL_FORMAT_DIA, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pcg mcilu0", KRYL_METHOD_PCG, KRYL_PRECOND_MCILU0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"gmres mcilu0", KRYL_METHOD_GMRES, KRYL_PRECOND_MCILU0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"pipecg jacobi", KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"gmres ilu0", KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_DOUBLE, 0},
    {"bicgstab jacobi ellr", KRYL_METHOD_BICGSTAB, KRYL_PRECOND_JACOBI, KRYL_FORMAT_ELLR,
     KRYL_ORDER_NONE, KRYL_DOUBLE, 0},
    {"mixed ir ic0", KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_FORMAT_CSR, KRYL_ORDER_NONE,
     KRYL_MIXED, KRYL_MIXED_IR},
    {"mixed reliable jacobi dia", KRYL_METHOD_CG, KRYL_PRECOND_JACOBI, KRYL_FORMAT_DIA,
     KRYL_ORDER_NONE, KRYL_MIXED, KRYL_MIXED_RELIABLE},
};

/* New values on A's pattern, still symmetric positive definite. */
static double *new_values(kryl_matrix A)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n, nnz;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, &nnz));
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
    double *w = malloc((size_t)nnz * sizeof *w);
    spd_new_values(n, rp, ci, v, w);
    return w;
}

/* A copy of A's CSR with the values w, as a new matrix. */
static kryl_matrix matrix_with(kryl_context ctx, kryl_matrix A, const double *w)
{
    const int64_t *rp;
    const int32_t *ci;
    int64_t n, nnz;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, &nnz));
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, NULL));
    int64_t *cols = malloc((size_t)nnz * sizeof *cols);
    for (int64_t k = 0; k < nnz; k++) cols[k] = ci[k];
    kryl_matrix B = NULL;
    CHECK_OK(kryl_matrix_create_csr(&B, ctx, n, n, 0, n, rp, cols, w));
    free(cols);
    return B;
}

typedef struct solved {
    kryl_status status;
    kryl_result r;
    double *x;
} solved;

static solved solve_with(kryl_solver s, kryl_matrix A, const double *bh)
{
    solved out = {0};
    int64_t n = kt_rows(A);
    out.x = calloc((size_t)n, sizeof *out.x);
    kryl_vector b = NULL, x = NULL;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    out.status = kryl_solver_solve(s, b, x, &out.r);
    CHECK_OK(kryl_vector_get(x, out.x, n));
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    return out;
}

static void options_of(const update_case *c, kryl_solver_options *o)
{
    kt_options(o, c->method, c->precond, c->precision == KRYL_SINGLE ? 1e-5 : 1e-9, 2000);
    o->format = c->format;
    o->order = c->order;
    o->precision = c->precision;
    o->mixed = c->mixed;
}

/* One case on one backend: set up for A, update to new values (from the
 * host or from the backend's memory; explicitly or by the solve), solve;
 * against a solver set up for the new values. */
static void check_case(kryl_context ctx, kryl_generator_kind gen, int64_t size,
                       const update_case *c, bool explicit_update, bool from_backend,
                       const char *backend)
{
    kryl_matrix A = kt_generate(ctx, gen, size);
    double *w = new_values(A);
    kryl_matrix B = matrix_with(ctx, A, w);
    double *bh = kt_rhs(A, 5);
    kryl_solver_options o;
    options_of(c, &o);
    kryl_solver sa = NULL, sb = NULL;
    kryl_status st = kryl_solver_create(&sa, A, &o);
    if (st == KRYL_ERR_UNSUPPORTED || st == KRYL_ERR_FORMAT_UNSUITABLE) {
        printf("%s on %s: not run (%s)\n", c->name, backend, kryl_last_error());
    } else {
        CHECK_OK(st);
        solved before = solve_with(sa, A, bh);
        CHECK_OK(before.status);
        free(before.x);
        double *dw = NULL;
        if (from_backend) {
            /* the host copy is then out of date until a step needs it */
            const size_t bytes = (size_t)kryl_csr_nnz(&A->host->csr) * sizeof *w;
            CHECK_OK(ctx->ops->alloc(ctx, (void **)&dw, bytes));
            CHECK_OK(ctx->ops->upload(ctx, dw, w, bytes));
            CHECK_OK(kryl_matrix_update_values_device(A, dw));
        } else {
            CHECK_OK(kryl_matrix_update_values(A, w));
        }
        if (explicit_update) CHECK_OK(kryl_solver_update(sa));
        solved updated = solve_with(sa, A, bh);
        if (dw) ctx->ops->release(ctx, dw);
        CHECK_OK(kryl_solver_create(&sb, B, &o));
        solved fresh = solve_with(sb, B, bh);
        CHECK_OK(updated.status);
        CHECK_OK(fresh.status);
        int64_t n = kt_rows(A);
        double diff = test_rel_diff(updated.x, fresh.x, n);
        CHECK(updated.r.iterations == fresh.r.iterations && diff <= 1e-13 && updated.r.converged &&
                  fresh.r.converged,
              "%s on %s (%s update from the %s): %lld iterations, x %.3e from a fresh "
              "setup's (%lld iterations); converged %d, %d",
              c->name, backend, explicit_update ? "explicit" : "solve's",
              from_backend ? "backend" : "host", (long long)updated.r.iterations, diff,
              (long long)fresh.r.iterations, (int)updated.r.converged, (int)fresh.r.converged);
        free(updated.x);
        free(fresh.x);
    }
    kryl_solver_destroy(&sa);
    kryl_solver_destroy(&sb);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
    free(w);
    free(bh);
}

/* The caller's entry order: unsorted columns and a repeated entry, new
 * values given in that order, against a matrix created from them. */
static void check_caller_order(kryl_context ctx, const char *backend)
{
    /* 3 x 3: row 0 = {(1, -1), (0, 2), (0, 2)}, row 1 = {(2, -1), (1, 4), (0, -1)},
     * row 2 = {(2, 4), (1, -1)}; a_00 = 2 + 2 */
    const int64_t rp[] = {0, 3, 6, 8};
    const int64_t ci[] = {1, 0, 0, 2, 1, 0, 2, 1};
    const double v0[] = {-1, 2, 2, -1, 4, -1, 4, -1};
    const double v1[] = {-0.5, 3, 1, -0.5, 5, -0.5, 6, -0.5};
    kryl_matrix A = NULL, B = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, 3, 3, 0, 3, rp, ci, v0));
    CHECK_OK(kryl_matrix_create_csr(&B, ctx, 3, 3, 0, 3, rp, ci, v1));
    CHECK_OK(kryl_matrix_update_values(A, v1));
    const double *va, *vb;
    CHECK_OK(kryl_matrix_csr_view(A, NULL, NULL, &va));
    CHECK_OK(kryl_matrix_csr_view(B, NULL, NULL, &vb));
    for (int k = 0; k < 7; k++)
        CHECK(va[k] == vb[k], "%s: entry %d after the update is %g, expected %g", backend, k, va[k],
              vb[k]);
    /* the backend's copy too: y = A 1 */
    kryl_vector x = NULL, y = NULL;
    double yh[3], one[3] = {1, 1, 1};
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(x, one, 3));
    CHECK_OK(kryl_matrix_spmv(A, 1.0, x, 0.0, y));
    CHECK_OK(kryl_vector_get(y, yh, 3));
    CHECK(yh[0] == 3.5 && yh[1] == 4.0 && yh[2] == 5.5, "%s: A 1 = (%g, %g, %g) after the update",
          backend, yh[0], yh[1], yh[2]);
    /* values in the backend's memory: refused for repeated entries, taken by B
     * (whose entries, after summing, are its host CSR's): y = B 1 */
    double *dv = NULL;
    const double v2[] = {2, -0.5, -0.5, 5, -0.5, -0.5, 6};
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&dv, sizeof v2));
    CHECK_OK(ctx->ops->upload(ctx, dv, v2, sizeof v2));
    CHECK_STATUS(kryl_matrix_update_values_device(A, dv), KRYL_ERR_UNSUPPORTED);
    const int64_t rc[] = {0, 2, 5, 7}, cc[] = {0, 1, 0, 1, 2, 1, 2};
    const double c0[] = {1, 1, 1, 1, 1, 1, 1}; /* C's values before the update */
    kryl_matrix C = NULL;
    CHECK_OK(kryl_matrix_create_csr(&C, ctx, 3, 3, 0, 3, rc, cc, c0));
    CHECK_OK(kryl_matrix_update_values_device(C, dv));
    CHECK_OK(kryl_matrix_csr_view(C, NULL, NULL, &va));
    CHECK(memcmp(va, v2, sizeof v2) == 0, "%s: the host copy after a device update", backend);
    kryl_vector_destroy(&y);
    CHECK_OK(kryl_vector_create(&y, C, KRYL_DOUBLE));
    CHECK_OK(kryl_matrix_spmv(C, 1.0, x, 0.0, y));
    CHECK_OK(kryl_vector_get(y, yh, 3));
    CHECK(yh[0] == 1.5 && yh[1] == 4.0 && yh[2] == 5.5,
          "%s: C 1 = (%g, %g, %g) after the device update", backend, yh[0], yh[1], yh[2]);
    /* a value that is not finite: refused, C as it was (storage and host copy) */
    const double bad = NAN;
    CHECK_OK(ctx->ops->upload(ctx, dv + 4, &bad, sizeof bad));
    CHECK_STATUS(kryl_matrix_update_values_device(C, dv), KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "value 4") != NULL, "%s: %s", backend, kryl_last_error());
    CHECK_OK(kryl_matrix_spmv(C, 1.0, x, 0.0, y));
    CHECK_OK(kryl_vector_get(y, yh, 3));
    CHECK_OK(kryl_matrix_csr_view(C, NULL, NULL, &va));
    CHECK(yh[1] == 4.0 && memcmp(va, v2, sizeof v2) == 0,
          "%s: a refused device update changed C (row 1 sums to %g)", backend, yh[1]);
    ctx->ops->release(ctx, dv);
    kryl_matrix_destroy(&C);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
}

/* What a backend's new-values path reads (src/core/matrix_values.c): in
 * every format and order, value slot q of the host format holds host entry
 * value_source[q] - 1, and the diagonal slot of layout row i holds a_ii of
 * original row perm[i] (-1 where that row stores none). */
static void check_value_maps(kryl_context ctx, const char *backend)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 13);
    const kryl_csr *h = &A->host->csr;
    const kryl_format formats[] = {KRYL_FORMAT_CSR,  KRYL_FORMAT_ELL, KRYL_FORMAT_SELL,
                                   KRYL_FORMAT_PJDS, KRYL_FORMAT_JDS, KRYL_FORMAT_BCSR2,
                                   KRYL_FORMAT_DIA,  KRYL_FORMAT_ELLR};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        kryl_matrix B = NULL;
        kryl_fmt_params lifted;
        kryl_fmt_params_init(&lifted);
        lifted.max_block_fill = 1e9;
        CHECK_OK(kryl_matrix_convert(&B, A, KRYL_DOUBLE, formats[f], &lifted,
                                     f % 2 ? KRYL_ORDER_RCM : KRYL_ORDER_NONE));
        if (B->fmt.on_backend) {
            /* built on the device: test_cuda_formats compares it with the host's build */
            kryl_matrix_destroy(&B);
            continue;
        }
        CHECK_OK(kryl_matrix_value_source(B));
        double *slots;
        int64_t count;
        kryl_fmt_values(&B->fmt, &slots, &count);
        int mismatches = 0;
        for (int64_t q = 0; q < count; q++) {
            const int64_t e = B->fmt.borrowed ? q : B->value_source[q] - 1;
            mismatches += slots[q] != (e >= 0 ? h->values[e] : 0.0);
        }
        const int64_t n = B->fmt.nrows;
        int64_t *diag = malloc((size_t)n * sizeof *diag);
        CHECK_OK(kryl_matrix_diagonal_slots(B, diag));
        for (int64_t i = 0; i < n; i++) {
            const int64_t r = B->fmt.perm ? B->fmt.perm[i] : i;
            const int64_t k = kryl_csr_find(h, r, r);
            mismatches += k < 0 ? diag[i] != -1 : diag[i] < 0 || slots[diag[i]] != h->values[k];
        }
        CHECK(mismatches == 0, "%s %s: %d value or diagonal slots map to the wrong entry", backend,
              kryl_format_name(formats[f]), mismatches);
        free(diag);
        kryl_matrix_destroy(&B);
    }
    kryl_matrix_destroy(&A);
}

/* NaN is refused; values that are no longer symmetric are refused by the
 * CG solver's update, naming the cause. */
static void check_refusals(kryl_context ctx, const char *backend)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 6);
    int64_t nnz;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    const double *v;
    CHECK_OK(kryl_matrix_csr_view(A, NULL, NULL, &v));
    double *w = malloc((size_t)nnz * sizeof *w);
    memcpy(w, v, (size_t)nnz * sizeof *w);
    kryl_solver s = NULL;
    CHECK_OK(kryl_solver_create(&s, A, NULL));
    w[3] = NAN;
    CHECK_STATUS(kryl_matrix_update_values(A, w), KRYL_ERR_INVALID_VALUE);
    w[3] = v[3];
    w[1] += 0.25; /* a_01 no longer a_10 */
    CHECK_OK(kryl_matrix_update_values(A, w));
    kryl_status st = kryl_solver_update(s);
    CHECK(st == KRYL_ERR_NOT_SYMMETRIC, "%s: update to nonsymmetric values gave %s: %s", backend,
          kryl_strerror(st), kryl_last_error());
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    free(w);
}

/* An update whose preconditioner cannot be built fails; once the values
 * are mended, the next update builds it again (not a solver left without
 * one), and the solve is a fresh solver's. */
static void check_failed_rebuild(kryl_context ctx, const char *backend)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 12);
    kryl_matrix B = kt_generate(ctx, KRYL_GEN_POISSON2D5, 12); /* A's values kept */
    int64_t nnz;
    CHECK_OK(kryl_matrix_size(B, NULL, NULL, &nnz));
    const int64_t *row_ptr;
    const int32_t *col;
    const double *original;
    CHECK_OK(kryl_matrix_csr_view(B, &row_ptr, &col, &original));
    double *w = malloc((size_t)nnz * sizeof *w);
    memcpy(w, original, (size_t)nnz * sizeof *w);
    double *b = kt_rhs(A, 5);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_BJACOBI, 1e-10, 200);
    kryl_solver s = NULL, fresh = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    /* a_00 = 0: the first block's ILU(0) has a zero pivot; block Jacobi is built again */
    for (int64_t k = row_ptr[0]; k < row_ptr[1]; k++)
        if (col[k] == 0) w[k] = 0.0;
    CHECK_OK(kryl_matrix_update_values(A, w));
    kryl_status st = kryl_solver_update(s);
    CHECK(st != KRYL_SUCCESS, "%s: an update with a zero pivot for block Jacobi succeeded",
          backend);
    CHECK_OK(kryl_matrix_update_values(A, original));
    CHECK_OK(kryl_solver_update(s));
    char info[128] = "";
    CHECK_OK(kryl_solver_precond_info(s, info, sizeof info));
    CHECK(strstr(info, "bjacobi") != NULL,
          "%s: after a failed update and a mended one the preconditioner is '%s'", backend, info);
    CHECK_OK(kryl_solver_create(&fresh, B, &o));
    solved mended = solve_with(s, A, b), anew = solve_with(fresh, B, b);
    CHECK(mended.r.iterations == anew.r.iterations && mended.r.reason == anew.r.reason,
          "%s: the mended solver took %lld iterations (%s), a fresh one %lld (%s)", backend,
          (long long)mended.r.iterations, kryl_reason_name(mended.r.reason),
          (long long)anew.r.iterations, kryl_reason_name(anew.r.reason));
    free(mended.x);
    free(anew.x);
    kryl_solver_destroy(&s);
    kryl_solver_destroy(&fresh);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
    free(w);
    free(b);
}

/* An update after a solve that queued an odd number of steps (CG's scalar
 * pairs then stand swapped on the host): the next solve is a fresh
 * solver's, the same x after the same steps. */
static void check_update_after_odd_steps(kryl_context ctx, const char *backend)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    double *b = kt_rhs(A, 9);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_IC0, 1e-14, 7); /* 7 steps, none converged */
    kryl_solver s = NULL, fresh = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    solved before = solve_with(s, A, b);
    CHECK_OK(kryl_solver_update(s));
    solved updated = solve_with(s, A, b);
    CHECK_OK(kryl_solver_create(&fresh, A, &o));
    solved anew = solve_with(fresh, A, b);
    double diff = test_rel_diff(updated.x, anew.x, kt_rows(A));
    CHECK(diff <= 1e-13, "%s: CG after an update took x %.3e from a fresh solver's (7 steps)",
          backend, diff);
    free(before.x);
    free(updated.x);
    free(anew.x);
    kryl_solver_destroy(&s);
    kryl_solver_destroy(&fresh);
    kryl_matrix_destroy(&A);
    free(b);
}

/* The setup's phases are each >= 0 and add up to setup_s; IC(0) spends
 * time factoring and mcssor coloring. */
static void check_setup_phases(kryl_context ctx, const char *backend)
{
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON3D7, 12);
    double *bh = kt_rhs(A, 3);
    const kryl_precond_kind kinds[] = {KRYL_PRECOND_IC0, KRYL_PRECOND_MCSSOR};
    const kryl_setup_phase expect[] = {KRYL_SETUP_FACTORIZATION, KRYL_SETUP_COLORING};
    for (int c = 0; c < 2; c++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PCG, kinds[c], 1e-8, 500);
        o.format = KRYL_FORMAT_AUTO;
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        solved r = solve_with(s, A, bh);
        double sum = 0.0, phases[KRYL_SETUP_PHASES];
        CHECK_OK(kryl_solver_setup_phases(s, phases));
        for (int k = 0; k < KRYL_SETUP_PHASES; k++) {
            CHECK(r.r.setup_phases[k] >= 0.0 && phases[k] == r.r.setup_phases[k], "%s: phase %s %g",
                  backend, kryl_setup_phase_name((kryl_setup_phase)k), r.r.setup_phases[k]);
            sum += r.r.setup_phases[k];
        }
        CHECK(fabs(sum - r.r.setup_s) <= 1e-6 + 1e-3 * r.r.setup_s,
              "%s %s: phases add up to %g s, setup took %g s", backend, kryl_precond_name(kinds[c]),
              sum, r.r.setup_s);
        CHECK(r.r.setup_phases[expect[c]] > 0.0, "%s %s: no time in %s", backend,
              kryl_precond_name(kinds[c]), kryl_setup_phase_name(expect[c]));
        free(r.x);
        kryl_solver_destroy(&s);
    }
    kryl_matrix_destroy(&A);
    free(bh);
}

static void check_config(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                         const char *name)
{
    (void)ref;
    (void)kind;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool nonsymmetric =
            cases[c].method == KRYL_METHOD_GMRES || cases[c].method == KRYL_METHOD_BICGSTAB;
        /* the nonsymmetric methods on a symmetric matrix: new_values keeps it SPD */
        check_case(ctx, nonsymmetric ? KRYL_GEN_POISSON2D5 : KRYL_GEN_POISSON3D7,
                   nonsymmetric ? 17 : 9, &cases[c], c % 2 == 0, c % 3 == 1, name);
    }
    check_caller_order(ctx, name);
    check_value_maps(ctx, name);
    check_refusals(ctx, name);
    check_failed_rebuild(ctx, name);
    check_update_after_odd_steps(ctx, name);
    check_setup_phases(ctx, name);
}

int main(void)
{
    test_each_config(true, check_config);
    return test_summary("test_solver_update");
}
