/* KRYL_METHOD_AUTO: a method and a preconditioner chosen from A, with
 * fallbacks.  A symmetric matrix (up to options.symmetry_tol) with a
 * positive diagonal gets PCG with AMG where its setup pays (in one process,
 * on a device or from AMG_FIRST_ROWS rows), then with IC(0), MIC(0), Jacobi; any
 * other matrix, or one on which PCG fails, GMRES with ILU(0) (a nonsymmetric
 * one with a positive diagonal on a device from AMG_TRIAL_ROWS rows after a
 * trial of GMRES with AMG of at most AMG_TRIAL_ITERATIONS), then
 * BiCGSTAB with ILU(0), then GMRES with ILUT, then with ILUTP (column
 * pivoting), then with Jacobi, then with none.  Where A has
 * zero diagonal entries the factorizations first permute its rows by a
 * maximum transversal (options.match).  A candidate whose setup refuses A
 * gives way to the next at once; one whose solve does not converge gives
 * way to the next, which starts again from the caller's x0.  The attempts
 * share options.max_iterations: each but the last may take half of what
 * is left.  The x
 * returned is the one with the smallest true residual of the attempts.
 * A preconditioner named in the options is kept: then only the method is
 * chosen.  The chosen solver does the work: the auto solver holds it and
 * forwards to it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/auto_choice.h"

#define CANDIDATES_MAX 10
#define WHY_SIZE       2048
/* Rows from which AMG leads the SPD candidates on the host's backends: on
 * 2 cores (docs/BENCHMARKS.md) it took 3.2 s against IC(0)'s 32 s on
 * 5-point 1000^2 and 6.9 s against 31 s on P2 elements 400^2, 14.8 s
 * against 10.4 s on an anisotropic 1000^2, and up to 2x IC(0)'s time below
 * 250 000 rows.  On a device it always leads: with IC(0)'s triangular
 * solves the answer took 1.8 to 580 times AMG's time on 12 of 13 matrices. */
#define AMG_FIRST_ROWS 500000
/* A nonsymmetric matrix with a positive diagonal on a device, from this many
 * rows (where AMG's smoother there is Chebyshev, set up on the device), is
 * first tried by GMRES with AMG for at most AMG_TRIAL_ITERATIONS: on an
 * H200 convection-diffusion 1000^2 took 0.12 s against GMRES + ILU(0)'s
 * 3.1 s, 300^2 0.06 s against 0.14 s, 100^3 0.08 s against 0.10 s
 * (docs/BENCHMARKS.md); the cap bounds what a matrix AMG does not suit
 * costs before ILU(0). */
#define AMG_TRIAL_ROWS       65536
#define AMG_TRIAL_ITERATIONS 500

typedef struct candidate {
    kryl_method method;
    kryl_precond_kind precond;
    bool match;   /* factor the row-matched matrix */
    int64_t most; /* iterations this attempt may take at most (0: its share) */
} candidate;

struct kryl_auto {
    kryl_solver_options options; /* the caller's, method AUTO */
    candidate list[CANDIDATES_MAX];
    int count, next; /* candidates, the next one to try */
    candidate chosen;
    kryl_solver solver; /* the candidate being used */
    char why[WHY_SIZE];
};

/* Append to the explanation, and log it at info level. */
static void explain(kryl_solver s, const char *fmt, ...) KRYL_PRINTF_LIKE(2, 3);
static void explain(kryl_solver s, const char *fmt, ...)
{
    struct kryl_auto *a = s->automatic;
    size_t used = strlen(a->why);
    va_list ap;
    va_start(ap, fmt);
    if (used + 1 < sizeof a->why) vsnprintf(a->why + used, sizeof a->why - used, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    char line[WHY_SIZE];
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    kryl_log(s->ctx, KRYL_LOG_INFO, "kryl: auto: %s", line[0] == ';' ? line + 2 : line);
}

/* Append a candidate; its slot, or NULL where the list is full. */
static candidate *add(struct kryl_auto *a, kryl_method method, kryl_precond_kind precond,
                      bool match)
{
    if (a->count >= CANDIDATES_MAX) return NULL;
    a->list[a->count] = (candidate){method, precond, match, 0};
    return &a->list[a->count++];
}

/* Whether every diagonal entry is positive, and whether one is zero or
 * absent, over all ranks (checked where A is stored). */
static kryl_status diagonal_signs(kryl_matrix A, bool *positive, bool *zero)
{
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(A, "the analysis of method auto", NULL, false, &found));
    const int64_t rows = A->host->csr.nrows;
    /* one rank's answer for all: agreement on a status */
    *positive = kryl_context_agree(A->ctx, found.first_nonpositive >= rows
                                               ? KRYL_SUCCESS
                                               : KRYL_ERR_NOT_POSITIVE_DEFINITE) == KRYL_SUCCESS;
    *zero = kryl_context_agree(A->ctx, found.first_zero < rows ? KRYL_ERR_ZERO_DIAGONAL
                                                               : KRYL_SUCCESS) != KRYL_SUCCESS;
    return KRYL_SUCCESS;
}

/* The candidates for A, in the order they are tried. */
static kryl_status choose(kryl_solver s, kryl_matrix A)
{
    struct kryl_auto *a = s->automatic;
    const double tol = a->options.symmetry_tol;
    double asym = INFINITY;
    bool positive, zero;
    KRYL_TRY(kryl_matrix_measure_asymmetry(A, "the analysis of method auto", &asym));
    KRYL_TRY(diagonal_signs(A, &positive, &zero));
    const bool symmetric = asym <= tol;
    if (asym == 0.0)
        explain(s, "symmetric");
    else if (symmetric)
        explain(s, "symmetric up to %.2g (tolerance %g)", asym, tol);
    else
        explain(s, "nonsymmetric (max |a_ij - a_ji| = %.2g max |a_ij|)", asym);
    explain(s, zero ? ", zero diagonal entries" : positive ? ", positive diagonal" : "");
    const kryl_precond_kind given = a->options.precond;
    const bool device = A->ctx->ops->device_memory;
    const int64_t rows = A->host->csr.nrows_global;
    int ranks = 1;
    KRYL_TRY(kryl_context_rank(A->ctx, NULL, &ranks));
    if (symmetric && positive) {
        explain(s, ": pcg");
        if (given != KRYL_PRECOND_NONE) {
            add(a, KRYL_METHOD_PCG, given, false);
        } else {
            /* over ranks AMG's setup runs on the host's rows (amg_ranks.c): not first */
            if (ranks == 1 && (device || rows >= AMG_FIRST_ROWS)) {
                explain(s, device ? ", amg first on a device" : ", amg first from %d rows",
                        AMG_FIRST_ROWS);
                add(a, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, false);
            }
            add(a, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, false);
            add(a, KRYL_METHOD_PCG, KRYL_PRECOND_MIC0, false);
            add(a, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, false);
        }
    } else {
        explain(s, ": gmres");
    }
    /* PCG may break down on an indefinite matrix: GMRES follows it */
    if (given != KRYL_PRECOND_NONE) {
        add(a, KRYL_METHOD_GMRES, given, false);
        return KRYL_SUCCESS;
    }
    /* over ranks AMG's setup runs on the host's rows: no trial */
    if (!symmetric && positive && device && ranks == 1 && rows >= AMG_TRIAL_ROWS) {
        explain(s, ", amg first on a device (at most %d iterations)", AMG_TRIAL_ITERATIONS);
        candidate *trial = add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_AMG, false);
        if (trial) trial->most = AMG_TRIAL_ITERATIONS;
    }
    add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, zero);
    add(a, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_ILU0, zero);
    add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT, zero);
    add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUTP, false);
    if (!zero) add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, false);
    add(a, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, false);
    return KRYL_SUCCESS;
}

static const char *candidate_name(const candidate *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s + %s%s", kryl_method_name(c->method), kryl_precond_name(c->precond),
             c->match ? " (rows matched)" : "");
    return buf;
}

/* Create the solver of the next candidate that A does not refuse. */
static kryl_status create_next(kryl_solver s)
{
    struct kryl_auto *a = s->automatic;
    while (a->next < a->count) {
        const candidate *c = &a->list[a->next++];
        kryl_solver_options o = a->options;
        o.method = c->method;
        o.precond = c->precond;
        o.match = o.match || c->match;
        char name[96];
        candidate_name(c, name, sizeof name);
        kryl_status st = kryl_solver_create(&a->solver, s->A, &o);
        const kryl_precond *pc = st == KRYL_SUCCESS ? a->solver->pc : NULL;
        if (pc && !(pc->condest <= KRYL_ILU_CONDEST_MAX) && a->next < a->count) {
            /* unstable incomplete factors (Chow & Saad's condest): the next candidate */
            explain(s, "; %s refused (unstable factors: condest %.1e > %.0e)", name, pc->condest,
                    KRYL_ILU_CONDEST_MAX);
            kryl_solver_destroy(&a->solver);
            continue;
        }
        if (st == KRYL_SUCCESS) {
            a->chosen = *c;
            explain(s, "; %s", name);
            return KRYL_SUCCESS;
        }
        /* AMG leads where it pays, not because A needs it: a hierarchy it cannot
         * build (its levels take about as much memory again as A, a level's
         * estimate may fail) gives way to the factorizations; a bad option or
         * a failing device is still the caller's */
        if (c->precond == KRYL_PRECOND_AMG && st != KRYL_ERR_INVALID_ARGUMENT &&
            st != KRYL_ERR_DEVICE) {
            explain(s, "; %s refused (%s)", name, kryl_last_error());
            continue;
        }
        /* what the candidate cannot do with A gives way to the next; anything
         * else (a bad option, a format, memory, the device) is the caller's */
        if (st != KRYL_ERR_NOT_SYMMETRIC && st != KRYL_ERR_NOT_POSITIVE_DEFINITE &&
            st != KRYL_ERR_ZERO_DIAGONAL && st != KRYL_ERR_UNSUPPORTED)
            return st;
        explain(s, "; %s refused (%s)", name, kryl_last_error());
    }
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED, "auto: every candidate refused the matrix: %s",
                      s->automatic->why);
}

kryl_status kryl_auto_create(kryl_solver *solver, kryl_matrix A, const kryl_solver_options *o)
{
    double t0 = kryl_wtime();
    struct kryl_solver_s *s = calloc(1, sizeof *s);
    struct kryl_auto *a = calloc(1, sizeof *a);
    if (s == NULL || a == NULL) {
        free(s);
        free(a);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a solver");
    }
    s->ctx = A->ctx;
    s->ops = A->ctx->ops;
    s->options = *o;
    s->A = A;
    s->automatic = a;
    s->ctx->live_objects++;
    a->options = *o;
    const kryl_csr *csr = &A->host->csr;
    kryl_status st = csr->nrows_global == csr->ncols
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                                      "the matrix is %lld x %lld; auto needs a square matrix",
                                      (long long)csr->nrows_global, (long long)csr->ncols);
    if (st == KRYL_SUCCESS) st = choose(s, A);
    if (st == KRYL_SUCCESS) st = create_next(s);
    if (st != KRYL_SUCCESS) {
        kryl_solver_destroy(&s);
        return st;
    }
    s->setup_s = kryl_wtime() - t0;
    *solver = s;
    return KRYL_SUCCESS;
}

void kryl_auto_destroy(kryl_solver s)
{
    if (s->automatic == NULL) return;
    kryl_solver_destroy(&s->automatic->solver);
    free(s->automatic);
    s->automatic = NULL;
}

kryl_solver kryl_auto_chosen(kryl_solver s)
{
    return s->automatic && s->automatic->solver ? s->automatic->solver : s;
}

/* to = from, both of x's layout and precision, where they live. */
static kryl_status copy_vector(kryl_solver s, kryl_vector to, kryl_vector from)
{
    return s->ops->permute_copy(s->ctx, to, from, NULL, KRYL_GATHER, NULL);
}

kryl_status kryl_auto_solve(kryl_solver s, kryl_vector b, kryl_vector x, kryl_result *result)
{
    struct kryl_auto *a = s->automatic;
    const double t0 = kryl_wtime();
    /* the caller's x0 and the best x so far, kept beside x (on the device for cuda) */
    kryl_vector x0 = NULL, best = NULL;
    kryl_status st = kryl_vector_create_like(&x0, s->ctx, x->layout, x->precision);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&best, s->ctx, x->layout, x->precision);
    if (st == KRYL_SUCCESS) st = copy_vector(s, x0, x);
    kryl_result r, kept = {0};
    int64_t iterations = 0;
    int attempts = 0, kept_attempt = -1;
    candidate kept_choice = a->chosen;
    const int64_t budget = a->options.max_iterations;
    while (st == KRYL_SUCCESS) {
        /* all attempts share max_iterations: one that is not the last may take
         * half of what is left */
        const int64_t left = budget - iterations;
        int64_t share = a->next < a->count ? (left + 1) / 2 : left;
        if (a->chosen.most > 0 && a->chosen.most < share) share = a->chosen.most;
        a->solver->options.max_iterations = share;
        if (attempts > 0) st = copy_vector(s, x, x0);
        if (st == KRYL_SUCCESS) st = kryl_solver_solve(a->solver, b, x, &r);
        if (st != KRYL_SUCCESS) break;
        iterations += r.iterations;
        if (kept_attempt < 0 || r.relres < kept.relres) {
            /* the best x so far */
            kept = r;
            kept_choice = a->chosen;
            kept_attempt = attempts;
            st = copy_vector(s, best, x);
        }
        attempts++;
        if (r.converged || a->next >= a->count || iterations >= budget) break;
        char name[96];
        explain(s, "; %s stopped: %s after %lld iterations, relres %.2g",
                candidate_name(&a->chosen, name, sizeof name), kryl_reason_name(r.reason),
                (long long)r.iterations, r.relres);
        kryl_solver_destroy(&a->solver);
        if (st == KRYL_SUCCESS) st = create_next(s);
        if (st == KRYL_ERR_UNSUPPORTED) {
            /* no candidate left: keep the best attempt */
            st = KRYL_SUCCESS;
            break;
        }
    }
    /* x holds the last attempt's: the best one's where an earlier one was better */
    if (st == KRYL_SUCCESS && kept_attempt >= 0 && kept_attempt != attempts - 1)
        st = copy_vector(s, x, best);
    kryl_vector_destroy(&x0);
    kryl_vector_destroy(&best);
    if (st != KRYL_SUCCESS) return st;
    *result = kept;
    result->iterations = iterations;
    result->solve_s = kryl_wtime() - t0;
    if (kept_choice.method != a->chosen.method || kept_choice.precond != a->chosen.precond) {
        char name[96];
        explain(s, "; returned the x of %s (smallest true residual)",
                candidate_name(&kept_choice, name, sizeof name));
    }
    a->chosen = kept_choice;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_choice(kryl_solver solver, kryl_method *method, kryl_precond_kind *precond,
                               const char **why)
{
    KRYL_REQUIRE_ARG(solver);
    const struct kryl_auto *a = solver->automatic;
    if (method) *method = a ? a->chosen.method : solver->options.method;
    if (precond) *precond = a ? a->chosen.precond : solver->options.precond;
    if (why) *why = a ? a->why : "requested";
    return KRYL_SUCCESS;
}
