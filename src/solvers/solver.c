/*
 * The solve driver, shared by every method: checks, workspace, the
 * convergence test and the true residual.
 *
 * Convergence, defined once: the method stops when the residual it carries
 * satisfies ||r|| <= max(rtol*||b||, atol).  The driver then computes the
 * true residual b - A x in double with A's own values (also after a
 * single-precision iteration); if that misses the test, r is replaced by
 * it and the method restarts from x, up to the iteration limit.  The solve
 * has converged only if the true residual meets the test.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/setup_clock.h"
#include "solvers/auto_choice.h"
#include "solvers/mixed.h"
#include "solvers/solver_impl.h"

void kryl_solver_options_init(kryl_solver_options *options)
{
    if (options == NULL) return;
    memset(options, 0, sizeof *options);
    options->method = KRYL_METHOD_CG;
    options->precond = KRYL_PRECOND_NONE;
    options->precision = KRYL_DOUBLE;
    options->rtol = 1e-8;
    options->atol = 0.0;
    options->max_iterations = 10000;
    options->record_history = true;
    options->format = KRYL_FORMAT_CSR;
    options->fill = 1;
    options->droptol = 1e-3;
    options->maxfill = 20;
    options->sweeps = 1;
    options->omega = 1.0;
    options->symmetry_tol = KRYL_SYMMETRY_TOL;
    options->amg.coarse_size = 256;
    options->amg.coarsening = KRYL_AMG_AUTO_COARSENING;
    options->amg.max_levels = 20;
    options->amg.coarse_theta = KRYL_AMG_COARSE_THETA;
    options->dtol = 1e8;
    options->hybrid_host_rows = -1;
}

static const kryl_method_ops *plain_method_ops(kryl_method method)
{
    switch (method) {
    case KRYL_METHOD_CG:
    case KRYL_METHOD_PCG: return &kryl_method_cg;
    case KRYL_METHOD_PIPECG: return &kryl_method_pipecg;
    case KRYL_METHOD_GMRES: return &kryl_method_gmres;
    case KRYL_METHOD_BICGSTAB: return &kryl_method_bicgstab;
    case KRYL_METHOD_AUTO: return NULL; /* a choice among these (auto_choice.c) */
    }
    return NULL;
}

/* The method table: a mixed-precision scheme wraps options.method, which
 * then runs as its single-precision inner solver. */
static const kryl_method_ops *method_ops(const kryl_solver_options *o)
{
    const kryl_method_ops *plain = plain_method_ops(o->method);
    if (o->hybrid != KRYL_HYBRID_NONE) return &kryl_method_hybrid_pipecg;
    if (plain == NULL || o->mixed == KRYL_MIXED_NONE) return plain;
    if (o->mixed == KRYL_MIXED_IR) return &kryl_method_mixed_ir;
    if (o->mixed == KRYL_MIXED_RELIABLE) return &kryl_method_mixed_reliable;
    /* inner-outer: flexible CG around a symmetric method, else FGMRES */
    return plain->needs_symmetric ? &kryl_method_fcg : &kryl_method_fgmres;
}

double kryl_mixed_default_inner_rtol(kryl_mixed_scheme scheme)
{
    /* reliable: a refresh at every 1e-2 drop stays above the gap single
     * precision opens between its recurrence and the true residual; the
     * others: about where single precision stops helping */
    return scheme == KRYL_MIXED_RELIABLE ? 1e-2 : 1e-6;
}

/* Check the options and resolve their shorthands: precision KRYL_MIXED
 * (outer iteration in double; inner-outer unless options.mixed names a
 * scheme) and the 0 defaults of restart, inner_iterations, inner_rtol. */
static kryl_status check_options(kryl_solver_options *o)
{
    if (o->order < KRYL_ORDER_NONE || o->order > KRYL_ORDER_COLOR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown ordering %d", (int)o->order);
    if (o->format < KRYL_FORMAT_AUTO || o->format > KRYL_FORMAT_DIA)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown storage format %d", (int)o->format);
    if (plain_method_ops(o->method) == NULL && o->method != KRYL_METHOD_AUTO)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown method %d", (int)o->method);
    if (o->hybrid < KRYL_HYBRID_NONE || o->hybrid > KRYL_HYBRID_AUTO)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown hybrid method %d", (int)o->hybrid);
    if (o->hybrid != KRYL_HYBRID_NONE &&
        (o->method != KRYL_METHOD_PIPECG && o->method != KRYL_METHOD_PCG))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid %s runs pipelined CG: use it with the method pipecg or pcg, "
                          "not %s",
                          kryl_hybrid_name(o->hybrid), kryl_method_name(o->method));
    if (o->hybrid != KRYL_HYBRID_NONE && o->mixed != KRYL_MIXED_NONE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid %s runs in double: not with a mixed-precision scheme",
                          kryl_hybrid_name(o->hybrid));
    if (o->hybrid_host_rows >= 0 && o->hybrid != KRYL_HYBRID_SPLIT)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid_host_rows %lld splits the rows of hybrid 3, not of hybrid %s",
                          (long long)o->hybrid_host_rows, kryl_hybrid_name(o->hybrid));
    if (o->hybrid_host_rows < -1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid_host_rows %lld: expected a row count, or -1 for the model's",
                          (long long)o->hybrid_host_rows);
    if (o->mixed < KRYL_MIXED_NONE || o->mixed > KRYL_MIXED_RELIABLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown mixed-precision scheme %d",
                          (int)o->mixed);
    if (o->precision == KRYL_MIXED) {
        o->precision = KRYL_DOUBLE;
        if (o->mixed == KRYL_MIXED_NONE) o->mixed = KRYL_MIXED_INNER_OUTER;
    } else if (o->precision == KRYL_SINGLE && o->mixed != KRYL_MIXED_NONE) {
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "the mixed-precision scheme %s iterates in double around single "
                          "inner solves: set precision to mixed, not single",
                          kryl_mixed_scheme_name(o->mixed));
    }
    if (o->restart == 0) o->restart = 40;
    if (o->dtol == 0.0) o->dtol = 1e8;
    if (!(o->dtol >= 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "dtol %g: expected a divergence factor >= 1 (INFINITY: no bound)",
                          o->dtol);
    /* inner solves end on their tolerance unless a count limits them */
    if (o->inner_iterations == 0)
        o->inner_iterations = o->max_iterations > INT_MAX ? INT_MAX
                              : o->max_iterations > 0     ? (int)o->max_iterations
                                                          : 1;
    if (o->inner_rtol == 0.0) o->inner_rtol = kryl_mixed_default_inner_rtol(o->mixed);
    if (o->restart < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "restart %d: GMRES needs at least 1",
                          o->restart);
    if (o->inner_iterations < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "inner_iterations %d is negative",
                          o->inner_iterations);
    if (!(o->inner_rtol > 0.0 && o->inner_rtol < 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "inner_rtol %g: expected a reduction factor in (0, 1)", o->inner_rtol);
    if (o->precond < KRYL_PRECOND_NONE || o->precond > KRYL_PRECOND_ILUTP)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown preconditioner %d", (int)o->precond);
    if (o->precision != KRYL_DOUBLE && o->precision != KRYL_SINGLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown precision %d", (int)o->precision);
    if (o->fill < 0 || o->maxfill < 0 || !(o->droptol >= 0.0) || !isfinite(o->droptol))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "fill %d, maxfill %d, droptol %g: expected fill >= 0, maxfill >= 0 "
                          "and a finite droptol >= 0",
                          o->fill, o->maxfill, o->droptol);
    if (o->blocks < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "blocks %d: expected a block count >= 1, or 0 for one block per "
                          "4096 rows",
                          o->blocks);
    if (o->sweeps < 1 || !(o->omega > 0.0 && o->omega < 2.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "sweeps %d, omega %g: expected sweeps >= 1 and 0 < omega < 2", o->sweeps,
                          o->omega);
    if (!(o->rtol >= 0.0) || !(o->atol >= 0.0) || !isfinite(o->rtol) || !isfinite(o->atol))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "tolerances must be finite and >= 0 (rtol %g, atol %g)", o->rtol,
                          o->atol);
    if (o->rtol == 0.0 && o->atol == 0.0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "rtol and atol are both 0: nothing to meet");
    if (o->max_iterations < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "max_iterations %lld is negative",
                          (long long)o->max_iterations);
    if (o->check_interval < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "check_interval %d is negative",
                          o->check_interval);
    if (!(o->symmetry_tol >= 0.0 && o->symmetry_tol < 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "symmetry_tol %g: expected a relative tolerance in [0, 1)",
                          o->symmetry_tol);
    return KRYL_SUCCESS;
}

/* What the method needs of A: square, and symmetric (up to symmetry_tol) for
 * CG; messages name the method as the caller asked for it (`asked`). */
static kryl_status check_matrix(kryl_matrix A, const kryl_method_ops *method, const char *asked,
                                double symmetry_tol)
{
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows_global != csr->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                          "the matrix is %lld x %lld; %s needs a square matrix",
                          (long long)csr->nrows_global, (long long)csr->ncols, asked);
    if (!method->needs_symmetric) return KRYL_SUCCESS;
    char why[64];
    snprintf(why, sizeof why, "the symmetry check of %s", asked);
    double asymmetry = INFINITY;
    KRYL_TRY(kryl_matrix_measure_asymmetry(A, why, &asymmetry));
    if (!(asymmetry <= symmetry_tol))
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "the matrix is not symmetric (max |a_ij - a_ji| = %.3g max |a_ij|, "
                          "above the symmetry tolerance %g); %s needs a symmetric positive "
                          "definite matrix (gmres or bicgstab solve nonsymmetric systems)",
                          asymmetry, symmetry_tol, asked);
    return KRYL_SUCCESS;
}

/* A CG method needs M symmetric positive definite.  ILUT and ILUTP drop
 * entries by row-wise thresholds (ILUTP also permutes columns) and a row
 * matching permutes rows, so their M is not symmetric even for a symmetric
 * A, and PCG stalls on it (lund_a with ILUT: 2.6e-3 after 10000 iterations,
 * GMRES 72).  They are refused by name.  ILU(0) and ILU(k) of a symmetric A
 * are L D L^T in exact arithmetic: accepted where every pivot is positive
 * (ilu.c checks them as it factors). */
static kryl_status check_symmetric_precond(const kryl_solver_options *o)
{
    const kryl_method_ops *plain = plain_method_ops(o->method);
    if (plain == NULL || !plain->needs_symmetric) return KRYL_SUCCESS;
    const char *method = kryl_method_name(o->method);
    const bool blocks = o->precond == KRYL_PRECOND_BJACOBI;
    const kryl_precond_kind factor = blocks ? o->block_factor : o->precond;
    if (factor == KRYL_PRECOND_ILUT || factor == KRYL_PRECOND_ILUTP)
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "%s%s is not symmetric; %s needs a symmetric positive definite "
                          "preconditioner: use %s mic0 (IC(0), shifted where a pivot is not "
                          "positive), or --method gmres",
                          blocks ? "bjacobi with --block-factor " : "", kryl_precond_name(factor),
                          method, blocks ? "--block-factor" : "--precond");
    if (o->match && (factor == KRYL_PRECOND_ILU0 || factor == KRYL_PRECOND_ILUK) && !blocks)
        return KRYL_ERROR(KRYL_ERR_NOT_SYMMETRIC,
                          "--match permutes the rows that %s factors, so M is not symmetric; %s "
                          "needs a symmetric positive definite preconditioner: leave out --match "
                          "(a symmetric positive definite matrix has no zero diagonal entry)",
                          kryl_precond_name(factor), method);
    return KRYL_SUCCESS;
}

/* CG needs A positive definite, so a_ii = e_i'A e_i > 0 for every i. */
static kryl_status check_positive_diagonal(kryl_matrix A, const kryl_method_ops *method,
                                           const char *asked)
{
    if (!method->needs_symmetric) return KRYL_SUCCESS;
    char why[64];
    snprintf(why, sizeof why, "the diagonal check of %s", asked);
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(A, why, NULL, false, &found));
    const kryl_csr *csr = &A->host->csr;
    if (found.first_nonpositive == csr->nrows) return KRYL_SUCCESS;
    return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                      "a_ii = %g at row %lld (0-based): a symmetric positive definite "
                      "matrix has a positive diagonal, and %s needs one",
                      found.value, (long long)(csr->row_begin + found.first_nonpositive), asked);
}

/* The preconditioner's matrix over several ranks: the local part for the
 * row-local ones (Jacobi; block Jacobi then has one or more blocks per
 * rank), the whole distributed matrix for lspoly (SpMVs and dots), mcssor
 * (a coloring of the global graph, swept color by color with halo
 * exchanges: src/dist/dist_mcssor.c) and amg (aggregates within each
 * rank, distributed levels: src/amg/amg_ranks.c); the others need the
 * whole matrix on one rank. */
static kryl_status precond_matrix(kryl_matrix Aw, kryl_precond_kind kind, kryl_matrix *M)
{
    *M = Aw;
    int size = 1;
    KRYL_TRY(kryl_context_rank(Aw->ctx, NULL, &size));
    if (size == 1 || kind == KRYL_PRECOND_NONE || kind == KRYL_PRECOND_LSPOLY ||
        kind == KRYL_PRECOND_MCSSOR || kind == KRYL_PRECOND_AMG)
        return KRYL_SUCCESS;
    if (kind == KRYL_PRECOND_JACOBI || kind == KRYL_PRECOND_BJACOBI) {
        *M = kryl_matrix_local_part(Aw);
        return KRYL_SUCCESS;
    }
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "the %s preconditioner needs the whole matrix on one rank, but it is "
                      "distributed over %d ranks; use amg, jacobi, bjacobi (blocks within "
                      "each rank's rows), lspoly or mcssor",
                      kryl_precond_name(kind), size);
}

/* z = M^{-1} r of a rank without rows: nothing. */
static kryl_status apply_nothing(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    (void)pc;
    (void)r;
    (void)z;
    return KRYL_SUCCESS;
}

/* The preconditioner of `kind` for M (Aw, or its local part), from the
 * solver's A; nothing on a rank without rows when block Jacobi has nothing
 * to factor there (the rank still takes part in every exchange and
 * reduction the method makes). */
static kryl_status precond_create(kryl_precond **pc, kryl_precond_kind kind,
                                  const kryl_solver_options *opts, kryl_matrix M, kryl_matrix Aw,
                                  kryl_matrix A)
{
    /* where M is Aw, a copy of A: A is what it was converted from */
    kryl_matrix source = M == Aw && Aw != A ? A : NULL;
    if (M == Aw || M->layout->n > 0 || kind != KRYL_PRECOND_BJACOBI)
        return kryl_precond_create(pc, kind, opts, M, source);
    *pc = calloc(1, sizeof **pc);
    if (*pc == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a preconditioner");
    (*pc)->kind = kind;
    (*pc)->ctx = M->ctx;
    (*pc)->apply = apply_nothing;
    return KRYL_SUCCESS;
}

/* The preconditioner the solver builds itself: the options', except for
 * the mixed schemes (their inner solver builds it). */
static kryl_precond_kind own_precond(kryl_solver s)
{
    return s->method->inner_solver ? KRYL_PRECOND_NONE : s->options.precond;
}

/* s->pc (NULL for none) of `kind` for the solver's matrices. */
static kryl_status build_precond(kryl_solver s, kryl_precond_kind kind)
{
    kryl_matrix M = NULL;
    KRYL_TRY(precond_matrix(s->Aw, kind, &M));
    return precond_create(&s->pc, kind, &s->options, M, s->Aw, s->A);
}

/* An allocation failure named by the stage of the setup it happened in:
 * "the NAME STAGE: ..." ("the ilu0 preconditioner: cuda: cannot allocate ..."). */
static kryl_status name_stage(kryl_status st, const char *name, const char *stage)
{
    if (st != KRYL_ERR_DEVICE_OUT_OF_MEMORY && st != KRYL_ERR_OUT_OF_MEMORY) return st;
    char what[96];
    snprintf(what, sizeof what, "the %s %s", name, stage);
    return kryl_error_prefix(st, what);
}

/* The backend storage of A (true residual, iteration) and of Aw (a
 * preconditioner that multiplies by it) where deferred; the hybrid method's
 * setup asks for what it needs itself. */
static kryl_status need_storage(kryl_solver s, kryl_precond_kind precond)
{
    if (precond != KRYL_PRECOND_NONE && precond != KRYL_PRECOND_JACOBI) {
        char why[64];
        snprintf(why, sizeof why, "the %s preconditioner", kryl_precond_name(precond));
        KRYL_TRY(kryl_matrix_need_storage(s->Aw, why));
    }
    if (s->method == &kryl_method_hybrid_pipecg) return KRYL_SUCCESS;
    char why[64];
    snprintf(why, sizeof why, "%s on one backend", kryl_method_name(s->options.method));
    return kryl_matrix_need_storage(s->A, why);
}

kryl_status kryl_solver_work_vector(kryl_solver s, kryl_vector *v)
{
    return kryl_vector_create_like(v, s->ctx, s->Aw->layout, s->precision);
}

kryl_status kryl_solver_mark(kryl_solver s, kryl_phase phase)
{
    if (!s->profiling) return KRYL_SUCCESS;
    KRYL_TRY(s->ops->synchronize(s->ctx));
    double now = kryl_wtime();
    if (s->mark_phase != KRYL_PHASE_NONE) s->phase_time[s->mark_phase] += now - s->mark_time;
    s->mark_time = now;
    s->mark_phase = phase;
    return KRYL_SUCCESS;
}

static kryl_status allocate_workspace(kryl_solver s, bool inner)
{
    kryl_layout *layout = s->A->layout, *work = s->Aw->layout;
    const kryl_backend_ops *ops = s->ops;
    KRYL_TRY(kryl_vector_create_like(&s->b_work, s->ctx, work, s->precision));
    KRYL_TRY(kryl_vector_create_like(&s->x_work, s->ctx, work, s->precision));
    if (!inner) {
        if (work->perm) KRYL_TRY(kryl_vector_create_like(&s->r_start, s->ctx, work, KRYL_DOUBLE));
        KRYL_TRY(kryl_vector_create_like(&s->b_true, s->ctx, layout, KRYL_DOUBLE));
        KRYL_TRY(kryl_vector_create_like(&s->x_true, s->ctx, layout, KRYL_DOUBLE));
        KRYL_TRY(kryl_vector_create_like(&s->r_true, s->ctx, layout, KRYL_DOUBLE));
        KRYL_TRY(kryl_vector_create_like(&s->x_best, s->ctx, layout, KRYL_DOUBLE));
    }
    KRYL_TRY(ops->alloc(s->ctx, (void **)&s->scalars, 2 * sizeof(double)));
    KRYL_TRY(ops->alloc(s->ctx, (void **)&s->monitor, sizeof(kryl_monitor)));
    int64_t entries = s->options.max_iterations + 1;
    if (s->options.record_history) {
        KRYL_TRY(ops->alloc(s->ctx, (void **)&s->history, (size_t)entries * sizeof(double)));
        s->history_host = malloc((size_t)entries * sizeof(double));
        if (s->history_host == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a history of %lld entries",
                              (long long)entries);
    }
    return KRYL_SUCCESS;
}

static kryl_status solver_create(kryl_solver *solver, kryl_matrix A,
                                 const kryl_solver_options *options, bool inner)
{
    KRYL_REQUIRE_ARG(solver);
    *solver = NULL;
    KRYL_REQUIRE_ARG(A);
    /* values given on the device: a setup reads the host copy in many places */
    if (A->host->values_on) KRYL_TRY(kryl_matrix_need_host(A, "a solver's setup"));
    double t0 = kryl_wtime();
    kryl_solver_options opts;
    kryl_solver_options_init(&opts);
    if (options) opts = *options;
    /* PCG means a preconditioner: Jacobi unless another is chosen */
    if (opts.method == KRYL_METHOD_PCG && opts.precond == KRYL_PRECOND_NONE)
        opts.precond = KRYL_PRECOND_JACOBI;
    KRYL_TRY(check_options(&opts));
    const kryl_method_ops *method = method_ops(&opts);
    KRYL_TRY(check_matrix(A, method, kryl_method_name(opts.method), opts.symmetry_tol));
    KRYL_TRY(check_symmetric_precond(&opts));
    if (method->inner_solver) KRYL_TRY(kryl_matrix_need_host(A, "a mixed-precision scheme"));
    if (A->precision != KRYL_DOUBLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "give the solver the double-precision matrix: the true residual is "
                          "computed with its values; options.precision selects the arithmetic");

    struct kryl_solver_s *s = calloc(1, sizeof *s);
    if (s == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a solver");
    s->ctx = A->ctx;
    s->ops = A->ctx->ops;
    s->options = opts;
    s->method = method;
    s->A = A;
    A->solvers++;
    s->precision = opts.precision;
    s->mark_phase = KRYL_PHASE_NONE;
    s->ctx->live_objects++;
    kryl_setup_clock_start(s->ctx, t0);
    kryl_status st = KRYL_SUCCESS;
    s->format = opts.format;
    snprintf(s->format_reason, sizeof s->format_reason, "requested");
    kryl_setup_enter(s->ctx, KRYL_SETUP_MODEL);
    if (s->format == KRYL_FORMAT_AUTO && opts.hybrid != KRYL_HYBRID_NONE) {
        /* the hybrid methods take A's own CSR (no copy: it may not fit the device) */
        s->format = KRYL_FORMAT_CSR;
        snprintf(s->format_reason, sizeof s->format_reason, "the hybrid methods run on CSR");
    } else if (s->format == KRYL_FORMAT_AUTO) {
        st = kryl_solver_choose_format(s);
    }
    kryl_setup_enter(s->ctx, KRYL_SETUP_CONVERSION);
    if (st == KRYL_SUCCESS && s->precision == KRYL_DOUBLE && s->format == KRYL_FORMAT_CSR &&
        opts.order == KRYL_ORDER_NONE)
        s->Aw = A;
    else if (st == KRYL_SUCCESS)
        st = kryl_matrix_convert(&s->Aw, A, s->precision, s->format, NULL, opts.order);
    if (st == KRYL_SUCCESS)
        kryl_log(s->ctx, KRYL_LOG_INFO, "kryl: ordering %s%s", kryl_order_name(opts.order),
                 opts.order == KRYL_ORDER_NONE ? " (rows in the given order)"
                                               : " (rows and columns permuted before the "
                                                 "format's own row sort)");
    const kryl_precond_kind precond = own_precond(s);
    if (st == KRYL_SUCCESS) st = need_storage(s, precond);
    kryl_setup_enter(s->ctx, KRYL_SETUP_PRECOND);
    if (st == KRYL_SUCCESS)
        st = name_stage(build_precond(s, precond), kryl_precond_name(precond), "preconditioner");
    kryl_setup_enter(s->ctx, KRYL_SETUP_CHECKS);
    if (st == KRYL_SUCCESS) st = check_positive_diagonal(A, method, kryl_method_name(opts.method));
    /* a check or a preconditioner that failed on one rank fails on all */
    st = kryl_context_agree(s->ctx, st);
    kryl_setup_enter(s->ctx, KRYL_SETUP_WORKSPACE);
    s->period = method->period;
    if (st == KRYL_SUCCESS) {
        st = allocate_workspace(s, inner);
        if (st == KRYL_SUCCESS) st = method->setup(s);
        st = name_stage(st, kryl_method_name(opts.method), "solver's vectors and workspace");
    }
    if (st == KRYL_SUCCESS) st = kryl_solver_batching_setup(s);
    if (st == KRYL_SUCCESS) st = s->ops->synchronize(s->ctx);
    /* what failed on one rank (workspace, the method's setup) fails on all */
    st = kryl_context_agree(s->ctx, st);
    kryl_setup_clock_stop(s->ctx, s->setup_phases);
    if (st != KRYL_SUCCESS) {
        kryl_solver_destroy(&s);
        return st;
    }
    s->setup_s = kryl_wtime() - t0;
    s->values_seen = A->host->values_seen;
    *solver = s;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_create(kryl_solver *solver, kryl_matrix A,
                               const kryl_solver_options *options)
{
    if (options && options->method == KRYL_METHOD_AUTO && solver && A) {
        /* the candidates get the caller's options, checked here once */
        kryl_solver_options checked = *options;
        *solver = NULL;
        KRYL_TRY(check_options(&checked));
        KRYL_TRY(kryl_matrix_need_host(A, "the analysis of method auto"));
        KRYL_TRY(kryl_matrix_need_storage(A, "method auto"));
        return kryl_auto_create(solver, A, options);
    }
    return solver_create(solver, A, options, false);
}

kryl_status kryl_solver_create_inner(kryl_solver *solver, kryl_matrix A,
                                     const kryl_solver_options *options)
{
    return solver_create(solver, A, options, true);
}

kryl_status kryl_solver_update(kryl_solver s)
{
    KRYL_REQUIRE_ARG(s);
    if (s->automatic) return kryl_solver_update(kryl_auto_chosen(s));
    kryl_matrix A = s->A;
    /* the options' preconditioner, also where an earlier update failed to build it */
    const kryl_precond_kind kind = own_precond(s);
    /* new values given on the device reach the host copy only where a
     * host-side step reads them: not for Jacobi, no preconditioner or one
     * that updates from the storage (IC(0) factored by the backend) */
    const bool on_device = (kind == KRYL_PRECOND_NONE || kind == KRYL_PRECOND_JACOBI ||
                            (s->pc && s->pc->update_on_backend)) &&
                           s->inner == NULL && s->method != &kryl_method_hybrid_pipecg;
    if (!on_device) KRYL_TRY(kryl_matrix_need_host(A, "the preconditioner's new values"));
    /* the new values must still suit the method */
    const char *asked = kryl_method_name(s->options.method);
    KRYL_TRY(check_matrix(A, s->method, asked, s->options.symmetry_tol));
    KRYL_TRY(check_positive_diagonal(A, s->method, asked));
    /* a captured graph may hold the storage about to be rebuilt: freed, and
     * captured again by a solve where it pays (not here: the method's
     * host-side state is what the last solve left, not a start's) */
    kryl_solver_batching_release(s);
    if (s->Aw != A) KRYL_TRY(kryl_matrix_refresh_values(s->Aw, A));
    if (s->pc && s->pc->update) {
        KRYL_TRY(s->pc->update(s->pc));
    } else if (kind != KRYL_PRECOND_NONE) {
        /* built again from the new values */
        kryl_precond_destroy(&s->pc);
        KRYL_TRY(build_precond(s, kind));
    }
    if (s->inner) KRYL_TRY(kryl_solver_update(s->inner));
    /* the hybrid split holds copies of A's rows and of the diagonal: built again */
    if (s->method == &kryl_method_hybrid_pipecg) {
        s->method->destroy(s);
        KRYL_TRY(s->method->setup(s));
    }
    KRYL_TRY(s->ops->synchronize(s->ctx));
    s->values_seen = A->host->values_seen;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_destroy(kryl_solver *solver)
{
    if (solver == NULL || *solver == NULL) return KRYL_SUCCESS;
    kryl_solver s = *solver;
    kryl_auto_destroy(s);
    kryl_solver_batching_release(s);
    kryl_solver_batching_free(s);
    if (s->method && s->work) s->method->destroy(s);
    kryl_precond_destroy(&s->pc);
    if (s->Aw != s->A) kryl_matrix_destroy(&s->Aw);
    kryl_vector_destroy(&s->b_work);
    kryl_vector_destroy(&s->x_work);
    kryl_vector_destroy(&s->b_true);
    kryl_vector_destroy(&s->x_true);
    kryl_vector_destroy(&s->r_true);
    kryl_vector_destroy(&s->x_best);
    kryl_vector_destroy(&s->r_start);
    if (s->scalars) s->ops->release(s->ctx, s->scalars);
    if (s->monitor) s->ops->release(s->ctx, s->monitor);
    if (s->history) s->ops->release(s->ctx, s->history);
    free(s->history_host);
    s->A->solvers--;
    s->ctx->live_objects--;
    free(s);
    *solver = NULL;
    return KRYL_SUCCESS;
}

static kryl_status check_vector(kryl_solver s, kryl_vector v, const char *name)
{
    if (v->ctx != s->ctx)
        return KRYL_ERROR(KRYL_ERR_CONTEXT_MISMATCH, "%s belongs to another context", name);
    if (v->n != s->A->layout->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "%s has %lld entries but the matrix has %lld rows", name, (long long)v->n,
                          (long long)s->A->layout->n);
    return KRYL_SUCCESS;
}

/* Read one scalar to the host (the explicit fetch). */
static kryl_status fetch(kryl_solver s, const double *scalar, double *value)
{
    return s->ops->download(s->ctx, value, scalar, sizeof *value);
}

/* r_true = b - A x_true in double; returns ||r_true||^2. */
static kryl_status true_residual(kryl_solver s, double *rr)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_scalar out = kryl_scalar_at(s->scalars, 1);
    /* r = b - A x */
    if (s->method->residual)
        KRYL_TRY(s->method->residual(s, s->x_true, s->b_true, s->r_true));
    else
        KRYL_TRY(ops->spmv(s->ctx, s->A, -1.0, s->x_true, 1.0, s->b_true, s->r_true, NULL));
    /* rr = r'r */
    KRYL_TRY(ops->dot(s->ctx, s->r_true, s->r_true, out));
    KRYL_TRY(kryl_reduce_begin(s->ctx, out, 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    return fetch(s, out.ptr, rr);
}

/* v *= 2^e, exactly (barring underflow), in steps a double can hold. */
static kryl_status scale_by_power_of_two(kryl_solver s, kryl_vector v, int e)
{
    while (e != 0) {
        int step = e > 600 ? 600 : e < -600 ? -600 : e;
        /* v = 2^step v */
        KRYL_TRY(s->ops->axpby(s->ctx, ldexp(1.0, step), v, 0.0, v));
        e -= step;
    }
    return KRYL_SUCCESS;
}

/* Whether every entry of v is finite: 2^-600 v (in x_best, free by
 * then) has a finite v'v exactly when v has no Inf or NaN, whatever the
 * size of its finite entries. */
static kryl_status all_finite(kryl_solver s, kryl_vector v, bool *finite)
{
    kryl_scalar dot = kryl_scalar_at(s->scalars, 0);
    double vv;
    /* x_best = v, then x_best = 2^-600 v + 0 x_best (a copy first: 0 times
     * whatever x_best held could be NaN) */
    KRYL_TRY(s->ops->permute_copy(s->ctx, s->x_best, v, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(s->ops->axpby(s->ctx, ldexp(1.0, -600), v, 0.0, s->x_best));
    /* vv = x_best'x_best */
    KRYL_TRY(s->ops->dot(s->ctx, s->x_best, s->x_best, dot));
    KRYL_TRY(kryl_reduce_begin(s->ctx, dot, 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    KRYL_TRY(fetch(s, dot.ptr, &vv));
    *finite = isfinite(vv);
    return KRYL_SUCCESS;
}

/* The squares of a norm stay far from under- and overflow in
 * [2^-SAFE_EXPONENT, 2^SAFE_EXPONENT]. */
enum { SAFE_EXPONENT = 500, BLIND_STEP = 600 };

/* Scale b_true by a power of two 2^e that brings b'b near 1, as LAPACK's
 * dnrm2 scales its sum (Blue 1978), so that ||b||^2 and the squared
 * tolerance neither underflow nor overflow for any finite b; x_true is
 * scaled with it, so the scaled system A (2^e x) = 2^e b is the same one
 * in binary.  Returns e and ||2^e b||^2 (0: b = 0); fails for a b that is
 * not finite. */
/* The refusal of a b holding NaN or Inf, naming its first such entry in
 * the caller's order (b_true is downloaded: this is the failure's path). */
static kryl_status refuse_nonfinite_b(kryl_solver s)
{
    const int64_t n = s->b_true->n;
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    kryl_status st =
        b ? s->ops->download(s->ctx, b, s->b_true->data, (size_t)n * sizeof *b)
          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld doubles", (long long)n);
    if (st == KRYL_SUCCESS) st = s->ops->synchronize(s->ctx);
    int64_t k = 0;
    while (st == KRYL_SUCCESS && k < n && isfinite(b[k])) k++;
    if (st == KRYL_SUCCESS && k < n) {
        const int32_t *perm = s->A->layout->perm; /* backend row k holds the caller's perm[k] */
        st = KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                        "b: entry %lld is %g: a b with NaN or Inf has nothing to solve",
                        (long long)(s->A->layout->row_begin + (perm ? perm[k] : k)), b[k]);
    } else if (st == KRYL_SUCCESS) {
        st = KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                        "b has an entry that is NaN or infinite: nothing to solve");
    }
    free(b);
    return st;
}

static kryl_status scale_system(kryl_solver s, int *e, double *bb)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_scalar dot = kryl_scalar_at(s->scalars, 0);
    *e = 0;
    for (int pass = 0;; pass++) {
        /* bb = b'b */
        KRYL_TRY(ops->dot(s->ctx, s->b_true, s->b_true, dot));
        KRYL_TRY(kryl_reduce_begin(s->ctx, dot, 1));
        KRYL_TRY(kryl_reduce_end(s->ctx));
        KRYL_TRY(fetch(s, dot.ptr, bb));
        int step;
        if (isnan(*bb) || (isinf(*bb) && pass > 2)) return refuse_nonfinite_b(s);
        if (*bb == 0.0) /* b = 0, or entries whose squares underflow: look closer, twice */
            step = pass < 2 ? BLIND_STEP : 0;
        else if (isinf(*bb))
            step = -BLIND_STEP;
        else if (ilogb(*bb) < -SAFE_EXPONENT || ilogb(*bb) > SAFE_EXPONENT)
            step = -ilogb(*bb) / 2;
        else
            step = 0;
        if (step == 0 || pass > 3) break;
        KRYL_TRY(scale_by_power_of_two(s, s->b_true, step));
        *e += step;
    }
    if (*bb == 0.0) {
        /* b = 0 exactly: undo the looks */
        KRYL_TRY(scale_by_power_of_two(s, s->b_true, -*e));
        *e = 0;
        return KRYL_SUCCESS;
    }
    return scale_by_power_of_two(s, s->x_true, *e);
}

static kryl_status set_monitor(kryl_solver s, kryl_monitor *m)
{
    return s->ops->upload(s->ctx, s->monitor, m, sizeof *m);
}

/* What a solve keeps track of, in the scaled system 2^e (A x = b). */
typedef struct solve_state {
    int e;             /* b and x are scaled by 2^e */
    double bnorm, tol; /* ||2^e b||, the tolerance on ||2^e (b - A x)|| */
    double rr_x0;      /* ||b - A x0||^2 */
    double rr_last;    /* ||b - A x||^2 of the last iterate */
    double rr_best;    /* of the best x computed so far (kept in x_best) */
    int64_t best_iteration;
    double rr_mark;            /* rr_best when it last fell by half in norm (or at the start) */
    int breakdown_restarts;    /* starts after a breakdown so far */
    int64_t restart_iteration; /* the iteration of the last start */
    int no_gain;               /* replacements since then */
} solve_state;

/* After a true residual rr of the iterate at `iteration`: keep x if it is
 * the best so far. */
static kryl_status keep_if_best(kryl_solver s, solve_state *st, double rr, int64_t iteration)
{
    st->rr_last = rr;
    if (!(rr < st->rr_best)) return KRYL_SUCCESS;
    st->rr_best = rr;
    st->best_iteration = iteration;
    /* x_best = x_true */
    return s->ops->permute_copy(s->ctx, s->x_best, s->x_true, NULL, KRYL_GATHER, NULL);
}

/* Replacements that stop lowering the true residual: this many in a row
 * without halving the best ||b - Ax|| end the solve as stagnated. */
enum { STAGNATION_REPLACEMENTS = 5 };

static void finish_result(kryl_solver s, kryl_result *result, const kryl_monitor *m,
                          const solve_state *st, bool stagnated)
{
    const double unscale = ldexp(1.0, -st->e);
    const double bnorm = st->bnorm;
    result->iterations = m->iteration;
    result->bnorm = bnorm * unscale;
    result->resnorm = sqrt(st->rr_best) * unscale;
    result->resnorm_recursive = sqrt(m->rr) * unscale;
    result->relres = bnorm > 0.0 ? sqrt(st->rr_best) / bnorm : sqrt(st->rr_best);
    result->relres_last = bnorm > 0.0 ? sqrt(st->rr_last) / bnorm : sqrt(st->rr_last);
    result->relres_recursive = bnorm > 0.0 ? sqrt(m->rr) / bnorm : 0.0;
    result->best_iteration = st->best_iteration;
    result->converged = sqrt(st->rr_best) <= st->tol;
    if (result->converged)
        result->reason = s->options.rtol * bnorm >= ldexp(s->options.atol, st->e)
                             ? KRYL_CONVERGED_RTOL
                             : KRYL_CONVERGED_ATOL;
    else if (stagnated)
        result->reason = KRYL_DIVERGED_STAGNATION;
    else if (m->stop == KRYL_STOP_BREAKDOWN)
        result->reason = KRYL_DIVERGED_BREAKDOWN;
    else if (m->stop == KRYL_STOP_DIVERGED)
        result->reason = KRYL_DIVERGED_DTOL;
    else if (m->stop == KRYL_STOP_INDEFINITE_PC)
        result->reason = KRYL_DIVERGED_INDEFINITE_PC;
    else if (m->stop == KRYL_STOP_NAN || !isfinite(st->rr_last))
        result->reason = KRYL_DIVERGED_NAN;
    else
        result->reason = KRYL_DIVERGED_MAX_ITERATIONS;
    s->history_length = m->iteration + 1;
}

/* The method from x_true until it stops; each true residual computed keeps
 * the best x in x_best.  Returns whether replacements stagnated. */
static kryl_status run_method(kryl_solver s, kryl_monitor *m, solve_state *st, kryl_result *result,
                              bool *stagnated)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    const int32_t *perm_w = s->Aw->layout->perm_backend; /* A's order -> the iteration's */
    *stagnated = false;
    for (;;) {
        KRYL_TRY(set_monitor(s, m));
        kryl_vector r0 = s->r_true;
        if (s->r_start) {
            /* r0 in the iteration's order */
            KRYL_TRY(ops->permute_copy(ctx, s->r_start, s->r_true, perm_w, KRYL_GATHER, NULL));
            r0 = s->r_start;
        }
        KRYL_TRY(s->method->start(s, r0));
        s->x_iteration = -1;
        KRYL_TRY(kryl_solver_iterate(s, m));
        if (s->method->finish) KRYL_TRY(s->method->finish(s));
        if (m->stop == KRYL_STOP_STAGNATED) *stagnated = true;
        /* x in double, then the true residual with A's own values */
        KRYL_TRY(ops->permute_copy(ctx, s->x_true, s->x_work, perm_w, KRYL_SCATTER, NULL));
        double rr_true;
        KRYL_TRY(true_residual(s, &rr_true));
        KRYL_TRY(keep_if_best(s, st, rr_true, s->x_iteration >= 0 ? s->x_iteration : m->iteration));
        bool met = sqrt(rr_true) <= st->tol;
        if (!met && m->stop == KRYL_STOP_BREAKDOWN &&
            st->breakdown_restarts < s->method->breakdown_restarts &&
            m->iteration > st->restart_iteration && m->iteration < s->options.max_iterations) {
            /* a breakdown after some progress: start again from x (a new r^) */
            st->breakdown_restarts++;
            st->restart_iteration = m->iteration;
            kryl_log(ctx, KRYL_LOG_INFO,
                     "kryl: %s broke down at iteration %lld; restart %d from x (true ||r|| = "
                     "%.3e)",
                     s->method->name, (long long)m->iteration, st->breakdown_restarts,
                     sqrt(rr_true) * ldexp(1.0, -st->e));
            m->stop = KRYL_STOP_RUNNING;
            continue;
        }
        if (met || m->stop != KRYL_STOP_CONVERGED || m->iteration >= s->options.max_iterations)
            return KRYL_SUCCESS;
        /* the recursive residual met the test but the true one did not:
         * replace r by b - A x and continue, unless replacements have
         * stopped gaining (rounding bounds what the method can reach) */
        bool switched = false;
        if (s->method->fall_back && sqrt(rr_true) >= KRYL_FALLBACK_GAP * st->tol)
            KRYL_TRY(s->method->fall_back(s, &switched));
        if (switched) result->orthog_fallback = true;
        if (switched || st->rr_best <= 0.25 * st->rr_mark) {
            st->rr_mark = st->rr_best;
            st->no_gain = 0;
        } else {
            st->no_gain++;
        }
        if (st->no_gain >= STAGNATION_REPLACEMENTS) {
            kryl_log(ctx, KRYL_LOG_INFO,
                     "kryl: stagnation at iteration %lld: %d residual replacements in a row "
                     "did not halve the true ||r|| (best %.3e)",
                     (long long)m->iteration, st->no_gain, sqrt(st->rr_best) * ldexp(1.0, -st->e));
            *stagnated = true;
            return KRYL_SUCCESS;
        }
        result->residual_replacements++;
        m->stop = KRYL_STOP_RUNNING;
        kryl_log(ctx, KRYL_LOG_INFO,
                 "kryl: residual replacement at iteration %lld: true ||r|| = %.3e > %.3e",
                 (long long)m->iteration, sqrt(rr_true) * ldexp(1.0, -st->e),
                 st->tol * ldexp(1.0, -st->e));
    }
}

kryl_status kryl_solver_solve(kryl_solver s, kryl_vector b, kryl_vector x, kryl_result *result)
{
    KRYL_REQUIRE_ARG(s);
    KRYL_REQUIRE_ARG(b);
    KRYL_REQUIRE_ARG(x);
    KRYL_REQUIRE_ARG(result);
    KRYL_TRY(check_vector(s, b, "b"));
    KRYL_TRY(check_vector(s, x, "x"));
    if (s->automatic) return kryl_auto_solve(s, b, x, result);
    memset(result, 0, sizeof *result);
    if (s->values_seen != s->A->host->values_seen) KRYL_TRY(kryl_solver_update(s));
    double t0 = kryl_wtime();
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    const int32_t *perm = s->A->layout->perm_backend;    /* the caller's order -> A's */
    const int32_t *perm_w = s->Aw->layout->perm_backend; /* A's order -> the iteration's */
    s->profiling = s->options.profile;
    memset(s->phase_time, 0, sizeof s->phase_time);
    s->history_length = 0;
    /* the inner solver's count before this solve */
    int64_t inner_before = 0;
    if (s->inner) KRYL_TRY(kryl_inner_count(s, &inner_before));

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_TRANSFER));
    /* b, x -> the backend's order, double */
    KRYL_TRY(ops->permute_copy(ctx, s->b_true, b, perm, KRYL_GATHER, NULL));
    KRYL_TRY(ops->permute_copy(ctx, s->x_true, x, perm, KRYL_GATHER, NULL));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    solve_state st = {.best_iteration = 0};
    double bb;
    KRYL_TRY(scale_system(s, &st.e, &bb));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_TRANSFER));
    /* the scaled b, x in the working precision and order */
    KRYL_TRY(ops->permute_copy(ctx, s->b_work, s->b_true, perm_w, KRYL_GATHER, NULL));
    KRYL_TRY(ops->permute_copy(ctx, s->x_work, s->x_true, perm_w, KRYL_GATHER, NULL));
    st.bnorm = sqrt(bb);
    s->bnorm = st.bnorm;
    s->scale_exp = st.e;
    st.tol = fmax(s->options.rtol * st.bnorm, ldexp(s->options.atol, st.e));
    kryl_monitor m = {.tol2 = st.tol * st.tol,
                      .history = s->history,
                      .history_capacity = s->history ? s->options.max_iterations + 1 : 0};
    bool stagnated = false, x_finite = true;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_NONE));
    double t_iter = kryl_wtime();
    if (st.bnorm == 0.0) {
        /* x = 0 solves A x = 0 exactly */
        KRYL_TRY(ops->fill(ctx, s->x_true, 0.0));
        m.stop = KRYL_STOP_CONVERGED;
    } else {
        /* x0's true residual: the x to return unless an iterate does better */
        KRYL_TRY(true_residual(s, &st.rr_best));
        st.rr_x0 = st.rr_last = st.rr_mark = st.rr_best;
        if (s->options.residual)
            s->options.residual(0, sqrt(st.rr_best) * ldexp(1.0, -st.e), ldexp(st.bnorm, -st.e),
                                s->options.residual_user);
        KRYL_TRY(ops->permute_copy(ctx, s->x_best, s->x_true, NULL, KRYL_GATHER, NULL));
        /* divergence: ||r|| > dtol ||r0|| (0: no bound where it overflows) */
        m.div2 = s->options.dtol * s->options.dtol * st.rr_best;
        if (!isfinite(m.div2)) m.div2 = 0.0;
        KRYL_TRY(run_method(s, &m, &st, result, &stagnated));
        if (!(st.rr_last <= st.rr_best)) { /* an earlier x was better, or the last is NaN */
            kryl_log(ctx, KRYL_LOG_INFO,
                     "kryl: returning the x of iteration %lld (true ||r|| %.3e), better than "
                     "the last iterate's (%.3e)",
                     (long long)st.best_iteration, sqrt(st.rr_best) * ldexp(1.0, -st.e),
                     sqrt(st.rr_last) * ldexp(1.0, -st.e));
            /* x_true = x_best */
            KRYL_TRY(ops->permute_copy(ctx, s->x_true, s->x_best, NULL, KRYL_GATHER, NULL));
        }
        /* x = 2^-e x_true: the caller's unscaled system */
        KRYL_TRY(scale_by_power_of_two(s, s->x_true, -st.e));
        KRYL_TRY(all_finite(s, s->x_true, &x_finite));
        if (!x_finite) {
            /* an x no double holds (entries past DBL_MAX in the caller's units):
             * the caller's x0 stays, with its residual */
            kryl_log(ctx, KRYL_LOG_WARNING,
                     "kryl: the x of iteration %lld has entries no double can hold in the "
                     "caller's units; x0 is returned",
                     (long long)st.best_iteration);
            st.rr_best = st.rr_x0;
            st.best_iteration = 0;
            m.stop = KRYL_STOP_NAN;
        }
    }
    result->profile.iteration = kryl_wtime() - t_iter;
    finish_result(s, result, &m, &st, stagnated);
    result->format = s->format;
    if (st.bnorm == 0.0) result->reason = KRYL_CONVERGED_ZERO_RHS;
    if (s->inner) {
        KRYL_TRY(kryl_inner_count(s, &result->inner_iterations));
        result->inner_iterations -= inner_before;
        kryl_log(ctx, KRYL_LOG_INFO, "kryl: %lld single-precision %s iterations inside",
                 (long long)result->inner_iterations, s->inner->method->name);
    }
    /* x (caller's order and precision) = x_true */
    if (x_finite) KRYL_TRY(ops->permute_copy(ctx, x, s->x_true, perm, KRYL_SCATTER, NULL));
    if (s->history) {
        KRYL_TRY(ops->download(ctx, s->history_host, s->history,
                               (size_t)s->history_length * sizeof(double)));
        /* ||r_k|| of the caller's system */
        for (int64_t k = 0; k < s->history_length; k++)
            s->history_host[k] = ldexp(s->history_host[k], -st.e);
    }
    KRYL_TRY(ops->synchronize(ctx));
    result->profile.spmv = s->phase_time[KRYL_PHASE_SPMV];
    result->profile.precond = s->phase_time[KRYL_PHASE_PRECOND];
    result->profile.vector = s->phase_time[KRYL_PHASE_VECTOR];
    result->profile.reduction = s->phase_time[KRYL_PHASE_REDUCTION];
    result->profile.transfer = s->phase_time[KRYL_PHASE_TRANSFER];
    result->setup_s = s->setup_s;
    memcpy(result->setup_phases, s->setup_phases, sizeof result->setup_phases);
    result->solve_s = kryl_wtime() - t0;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_history(kryl_solver solver, const double **history, int64_t *length)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(history);
    KRYL_REQUIRE_ARG(length);
    solver = kryl_auto_chosen(solver);
    *history = solver->history_host;
    *length = solver->history ? solver->history_length : 0;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_format(kryl_solver solver, kryl_format *format, const char **reason)
{
    KRYL_REQUIRE_ARG(solver);
    solver = kryl_auto_chosen(solver);
    if (format) *format = solver->format;
    if (reason) *reason = solver->format_reason;
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_precond_info(kryl_solver solver, char *buf, size_t len)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(buf);
    solver = kryl_auto_chosen(solver);
    const kryl_precond *pc = solver->inner ? solver->inner->pc : solver->pc;
    const char *name = kryl_precond_name(pc ? pc->kind : KRYL_PRECOND_NONE);
    if (len > 0) snprintf(buf, len, "%s", pc && pc->info[0] ? pc->info : name);
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_apply_preconditioner(kryl_solver solver, kryl_vector r, kryl_vector z)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(r);
    KRYL_REQUIRE_ARG(z);
    solver = kryl_auto_chosen(solver);
    KRYL_TRY(check_vector(solver, r, "r"));
    KRYL_TRY(check_vector(solver, z, "z"));
    if (r == z)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "r and z are the same vector; give z its own vector");
    /* the mixed schemes precondition inside their single-precision solver */
    kryl_solver it = solver->inner ? solver->inner : solver;
    const kryl_backend_ops *ops = solver->ops;
    kryl_context ctx = solver->ctx;
    const int32_t *perm = solver->A->layout->perm_backend; /* the caller's order -> A's */
    const int32_t *perm_w = it->Aw->layout->perm_backend;  /* A's order -> the iteration's */
    if (it->pc == NULL) return ops->permute_copy(ctx, z, r, NULL, KRYL_GATHER, NULL);
    /* r -> the iteration's order and precision */
    KRYL_TRY(ops->permute_copy(ctx, solver->b_true, r, perm, KRYL_GATHER, NULL));
    KRYL_TRY(ops->permute_copy(ctx, it->b_work, solver->b_true, perm_w, KRYL_GATHER, NULL));
    /* x_work = M^{-1} b_work */
    KRYL_TRY(it->pc->apply(it->pc, it->b_work, it->x_work));
    /* back to double and the caller's order */
    KRYL_TRY(ops->permute_copy(ctx, solver->x_true, it->x_work, perm_w, KRYL_SCATTER, NULL));
    KRYL_TRY(ops->permute_copy(ctx, z, solver->x_true, perm, KRYL_SCATTER, NULL));
    return ops->synchronize(ctx);
}

double kryl_solver_setup_time(kryl_solver solver) { return solver ? solver->setup_s : 0.0; }

kryl_status kryl_solver_setup_phases(kryl_solver solver, double *seconds)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(seconds);
    solver = kryl_auto_chosen(solver);
    memcpy(seconds, solver->setup_phases, sizeof solver->setup_phases);
    return KRYL_SUCCESS;
}

kryl_status kryl_solver_amg_info(kryl_solver solver, kryl_amg_info *info)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(info);
    solver = kryl_auto_chosen(solver);
    return kryl_precond_amg_info(solver->inner ? solver->inner->pc : solver->pc, info);
}
