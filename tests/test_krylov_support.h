/* Shared pieces of the Krylov solver tests (test_solver_pipecg.c,
 * test_solver_gmres.c, test_solver_bicgstab.c, test_solver_mixed.c,
 * test_lanczos.c, test_solver_cg.c): contexts, generated and real matrices, one solve
 * checked by the true residual recomputed on the host, and the rule for
 * backends that do not implement a method's operations yet. */
#ifndef KRYL_TEST_KRYLOV_SUPPORT_H
#define KRYL_TEST_KRYLOV_SUPPORT_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* A context on `kind` with `threads` omp threads (0: OpenMP's default),
 * deterministic or not, whose messages from INFO up go to log(user) where
 * log is not NULL. */
static inline kryl_context kt_context_logging(kryl_backend_kind kind, int threads,
                                              bool deterministic, kryl_log_fn log, void *user)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = kind;
    co.threads = threads;
    co.deterministic = deterministic;
    if (log != NULL) {
        co.log = log;
        co.log_user = user;
        co.log_level = KRYL_LOG_INFO;
    }
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    return ctx;
}

static inline kryl_context kt_context_with(kryl_backend_kind kind, int threads, bool deterministic)
{
    return kt_context_logging(kind, threads, deterministic, NULL, NULL);
}

static inline kryl_context kt_context(kryl_backend_kind kind)
{
    return kt_context_with(kind, 0, false);
}

/* check(ctx) on a context of each backend this build has (ref, omp, cuda);
 * those not available are reported skipped. */
static inline void kt_each_backend(void (*check)(kryl_context ctx))
{
    const kryl_backend_kind backends[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP, KRYL_BACKEND_CUDA};
    for (size_t k = 0; k < sizeof backends / sizeof *backends; k++) {
        if (!kryl_backend_available(backends[k])) {
            printf("%s: not available, skipped\n", kryl_backend_name(backends[k]));
            continue;
        }
        kryl_context ctx = kt_context(backends[k]);
        check(ctx);
        kryl_context_destroy(&ctx);
    }
}

/* A generated matrix of `kind` with n points per direction. */
static inline kryl_matrix kt_generate(kryl_context ctx, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, kind, n);
    int64_t rows = 0, nnz = 0;
    CHECK_OK(kryl_generator_size(&g, &rows, &nnz));
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, &g, 0, rows));
    return A;
}

/* A real matrix from the shared collection, or NULL when it is absent. */
static inline kryl_matrix kt_read(kryl_context ctx, const char *file)
{
    const char *path = test_matrix_path(file);
    kryl_matrix A = NULL;
    if (path == NULL) return NULL;
    FILE *f = fopen(path, "r");
    if (f == NULL) return NULL;
    fclose(f);
    CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
    return A;
}

/* A from a dense row-major n x n array (zeros not stored). */
static inline kryl_matrix kt_dense(kryl_context ctx, int64_t n, const double *dense)
{
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int64_t *ci = malloc((size_t)(n * n) * sizeof *ci);
    double *v = malloc((size_t)(n * n) * sizeof *v);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        rp[i] = k;
        for (int64_t j = 0; j < n; j++)
            if (dense[i * n + j] != 0.0) {
                ci[k] = j;
                v[k++] = dense[i * n + j];
            }
    }
    rp[n] = k;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, n, n, 0, n, rp, ci, v));
    free(rp);
    free(ci);
    free(v);
    return A;
}

static inline int64_t kt_rows(kryl_matrix A)
{
    int64_t n = 0;
    kryl_matrix_size(A, &n, NULL, NULL);
    return n;
}

/* ||b - A x|| / ||b|| on the host from the matrix's CSR view. */
static inline double kt_host_relres(kryl_matrix A, const double *x, const double *b,
                                    double *rounding)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n = kt_rows(A);
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    double rr = 0.0, bb = 0.0, aa = 0.0;
    int64_t longest = 1;
    for (int64_t i = 0; i < n; i++) {
        double s = b[i], abs_sum = fabs(b[i]);
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            s -= v[k] * x[ci[k]];
            abs_sum += fabs(v[k] * x[ci[k]]);
        }
        if (rp[i + 1] - rp[i] + 1 > longest) longest = rp[i + 1] - rp[i] + 1;
        rr += s * s;
        bb += b[i] * b[i];
        aa += abs_sum * abs_sum;
    }
    /* two computations of b - A x in double differ by up to about
     * (row length) eps || |b| + |A||x| ||, relative to ||b|| */
    *rounding = (double)longest * DBL_EPSILON * sqrt(aa / (bb > 0.0 ? bb : 1.0));
    return bb > 0.0 ? sqrt(rr / bb) : sqrt(rr);
}

/* One solve: the options and what came out. */
typedef struct kt_solve {
    kryl_solver_options o;
    kryl_status create; /* kryl_solver_create's status */
    kryl_result r;
    double host_relres; /* recomputed here */
    double rounding;    /* how far two computations of it may differ */
    bool x_finite;
} kt_solve;

static inline void kt_options(kryl_solver_options *o, kryl_method method, kryl_precond_kind pc,
                              double rtol, int64_t maxit)
{
    kryl_solver_options_init(o);
    o->method = method;
    o->precond = pc;
    o->rtol = rtol;
    o->max_iterations = maxit;
}

/* kryl_solver_create refuses A with `status` and a message holding `word`
 * (the message is printed, so the log shows what a user would read). */
static inline void kt_check_refusal(kryl_matrix A, kryl_method method, kryl_precond_kind kind,
                                    kryl_status status, const char *word, const char *what)
{
    if (A == NULL) return;
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 100);
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &o);
    CHECK(st == status && strstr(kryl_last_error(), word) != NULL,
          "%s with %s: expected %s mentioning \"%s\", got %s: %s", what, kryl_precond_name(kind),
          kryl_strerror(status), word, kryl_strerror(st), kryl_last_error());
    printf("%s with %s refused: %s\n", what, kryl_precond_name(kind), kryl_last_error());
    kryl_solver_destroy(&s);
}

/* Solve A x = b from x = x0 (NULL: 0) on the host values b; x returned in
 * x_out when not NULL.  Fails a check only on an unexpected status; the
 * caller judges the result.  A create status of KRYL_ERR_UNSUPPORTED is
 * returned, not checked: see kt_supported. */
static inline kt_solve kt_run(kryl_matrix A, const kryl_solver_options *o, const double *bh,
                              const double *x0, double *x_out)
{
    kt_solve out;
    memset(&out, 0, sizeof out);
    out.o = *o;
    int64_t n = kt_rows(A);
    double *xh = calloc((size_t)n, sizeof *xh);
    if (x0) memcpy(xh, x0, (size_t)n * sizeof *xh);
    kryl_vector b = NULL, x = NULL;
    kryl_solver s = NULL;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    CHECK_OK(kryl_vector_set(x, xh, n));
    out.create = kryl_solver_create(&s, A, o);
    if (out.create == KRYL_SUCCESS) {
        CHECK_OK(kryl_solver_solve(s, b, x, &out.r));
        CHECK_OK(kryl_vector_get(x, xh, n));
        out.host_relres = kt_host_relres(A, xh, bh, &out.rounding);
        out.x_finite = true;
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(xh[i])) out.x_finite = false;
        if (x_out) memcpy(x_out, xh, (size_t)n * sizeof *xh);
    } else {
        CHECK(s == NULL, "a failed create left a solver");
    }
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    free(xh);
    return out;
}

/* Whether a solve ran.  ref must run everything; another backend may lack
 * a method's operations until it implements them, and must then refuse at
 * create with KRYL_ERR_UNSUPPORTED naming itself. */
static inline bool kt_supported(kryl_context ctx, const kt_solve *s, const char *label)
{
    if (s->create == KRYL_SUCCESS) return true;
    kryl_backend_kind kind = kryl_context_backend(ctx);
    CHECK(kind != KRYL_BACKEND_REF && s->create == KRYL_ERR_UNSUPPORTED,
          "%s: create failed: %s: %s", label, kryl_strerror(s->create), kryl_last_error());
    if (s->create == KRYL_ERR_UNSUPPORTED)
        CHECK(strstr(kryl_last_error(), kryl_backend_name(kind)) != NULL,
              "%s: the refusal does not name the backend: %s", label, kryl_last_error());
    return false;
}

/* Converged by the true residual, as reported and as recomputed.  Two
 * computations of b - A x agree only to rounding, about eps |A||x| (row
 * length times that at worst), which matters near rtol = 1e-12 on
 * ill-conditioned matrices. */
static inline void kt_check_converged(const kt_solve *s, const char *label)
{
    const double noise = fmax(1e-13, 2.0 * s->rounding);
    double rtol = s->o.rtol;
    CHECK(s->r.converged && s->r.reason == KRYL_CONVERGED_RTOL,
          "%s: not converged: %s after %lld iterations, relres %.3e", label,
          kryl_reason_name(s->r.reason), (long long)s->r.iterations, s->r.relres);
    CHECK(s->r.relres <= rtol, "%s: relres %.3e > rtol %.1e", label, s->r.relres, rtol);
    CHECK(s->host_relres <= rtol * (1.0 + 1e-6) + noise,
          "%s: host recomputes relres %.3e > rtol %.1e", label, s->host_relres, rtol);
    CHECK(fabs(s->host_relres - s->r.relres) <= 1e-3 * rtol + noise,
          "%s: reported relres %.3e, host %.3e", label, s->r.relres, s->host_relres);
}

/* The method converges the same way whatever storage the iteration's
 * matrix uses, including those that reorder rows (jds, sell). */
static inline void kt_check_formats(kryl_matrix A, const kryl_solver_options *o, const double *b,
                                    const char *label)
{
    const kryl_format formats[] = {KRYL_FORMAT_CSR, KRYL_FORMAT_JDS, KRYL_FORMAT_SELL};
    int64_t csr_its = -1;
    for (int f = 0; f < 3; f++) {
        kryl_solver_options of = *o;
        of.format = formats[f];
        char name[160];
        snprintf(name, sizeof name, "%s in %s", label, kryl_format_name(formats[f]));
        kt_solve s = kt_run(A, &of, b, NULL, NULL);
        CHECK(s.create == KRYL_SUCCESS, "%s: %s", name, kryl_last_error());
        if (s.create != KRYL_SUCCESS) continue;
        kt_check_converged(&s, name);
        if (csr_its < 0) csr_its = s.r.iterations;
        CHECK(llabs(s.r.iterations - csr_its) <= 1, "%s: %lld iterations, csr %lld", name,
              (long long)s.r.iterations, (long long)csr_its);
    }
}

/* b with values in [-1, 1) from a fixed seed. */
static inline double *kt_rhs(kryl_matrix A, uint64_t seed)
{
    int64_t n = kt_rows(A);
    double *b = malloc((size_t)n * sizeof *b);
    test_random_values(b, n, seed);
    return b;
}

/* Iterations of the solve o on the generated `kind` of size n, on a context
 * of `backend` of its own, b = kt_rhs(A, seed): checked converged (label). */
static inline int64_t kt_generated_iterations(kryl_backend_kind backend, kryl_generator_kind kind,
                                              int64_t n, const kryl_solver_options *o,
                                              uint64_t seed, const char *label)
{
    kryl_context ctx = kt_context(backend);
    kryl_matrix A = kt_generate(ctx, kind, n);
    double *b = kt_rhs(A, seed);
    kt_solve s = kt_run(A, o, b, NULL, NULL);
    kt_check_converged(&s, label);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return s.r.iterations;
}

/* A generated problem: its size, GMRES's restart (0: the default) and how
 * far the iteration counts of the backends may differ from the first one's
 * (negative: any amount). */
typedef struct kt_problem {
    kryl_generator_kind kind;
    int64_t n;
    int restart;
    int64_t slack;
} kt_problem;

/* Each problem without and with Jacobi on every backend, b = kt_rhs(A,
 * seed): converged wherever supported, counts within the problem's slack. */
static inline void kt_check_generated(kryl_method method, const kt_problem *problems, size_t np,
                                      double rtol, int64_t maxit, uint64_t seed)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (size_t p = 0; p < np; p++)
        for (int pc = 0; pc < 2; pc++) {
            int64_t ref_its = -1;
            for (int k = 0; k < nk; k++) {
                kryl_context ctx = kt_context(kinds[k]);
                kryl_matrix A = kt_generate(ctx, problems[p].kind, problems[p].n);
                double *b = kt_rhs(A, seed);
                kryl_solver_options o;
                kt_options(&o, method, (kryl_precond_kind)pc, rtol, maxit);
                o.restart = problems[p].restart;
                char label[128];
                snprintf(label, sizeof label, "%s(%d) %s pc=%d on %s", kryl_method_name(method),
                         problems[p].restart, kryl_generator_name(problems[p].kind), pc,
                         kryl_backend_name(kinds[k]));
                kt_solve s = kt_run(A, &o, b, NULL, NULL);
                if (kt_supported(ctx, &s, label)) {
                    kt_check_converged(&s, label);
                    if (ref_its < 0) ref_its = s.r.iterations;
                    CHECK(problems[p].slack < 0 ||
                              llabs(s.r.iterations - ref_its) <= problems[p].slack,
                          "%s: %lld iterations, ref %lld", label, (long long)s.r.iterations,
                          (long long)ref_its);
                }
                free(b);
                kryl_matrix_destroy(&A);
                kryl_context_destroy(&ctx);
            }
        }
}

/* A real matrix of the shared collection, solved by `method` with `pc`. */
typedef struct kt_case {
    const char *file;
    kryl_method method;
    kryl_precond_kind pc;
} kt_case;

/* Sets variant `v`'s options and a name for it (appended to labels). */
typedef void (*kt_variant_fn)(kryl_solver_options *o, int v, char *name, size_t size);

/* Each case present in the collection on every backend, b = kt_rhs(A,
 * seed), in `nvariants` variants of kt_options(rtol, maxit) set by vary
 * (NULL: one, unchanged): converged wherever supported. */
static inline void kt_check_real(const kt_case *cases, size_t ncases, double rtol, int64_t maxit,
                                 uint64_t seed, int nvariants, kt_variant_fn vary)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        for (size_t c = 0; c < ncases; c++) {
            kryl_matrix A = kt_read(ctx, cases[c].file);
            if (A == NULL) continue;
            double *b = kt_rhs(A, seed);
            for (int v = 0; v < nvariants; v++) {
                kryl_solver_options o;
                kt_options(&o, cases[c].method, cases[c].pc, rtol, maxit);
                char variant[64] = "";
                if (vary != NULL) vary(&o, v, variant, sizeof variant);
                char label[192];
                snprintf(label, sizeof label, "%s %s pc=%d%s on %s",
                         kryl_method_name(cases[c].method), cases[c].file, (int)cases[c].pc,
                         variant, kryl_backend_name(kinds[k]));
                kt_solve s = kt_run(A, &o, b, NULL, NULL);
                if (kt_supported(ctx, &s, label)) kt_check_converged(&s, label);
            }
            free(b);
            kryl_matrix_destroy(&A);
        }
        kryl_context_destroy(&ctx);
    }
}

/* kt_check_formats on ref (which has every format) for a generated matrix
 * with Jacobi, rtol 1e-10, b = kt_rhs(A, 3). */
static inline void kt_check_formats_generated(kryl_method method, int restart,
                                              kryl_generator_kind kind, int64_t n,
                                              const char *label)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, kind, n);
    double *b = kt_rhs(A, 3);
    kryl_solver_options o;
    kt_options(&o, method, KRYL_PRECOND_JACOBI, 1e-10, 2000);
    o.restart = restart;
    kt_check_formats(A, &o, b, label);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

#endif
