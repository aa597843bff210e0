/* What a solve will need, estimated from the matrix's size before anything
 * is built, and the refusal of an estimate that cannot fit (kryl.h,
 * kryl_solver_estimate_memory).  Rough upper bounds by part: they decide
 * whether to start, not how to lay memory out. */
#include <stdio.h>

#include "backends/backend.h"
#include "core/memory.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

/* Bytes of an n-row CSR matrix with nnz entries in double: values and
 * 32-bit columns, 64-bit row offsets. */
static int64_t csr_bytes(int64_t n, int64_t nnz)
{
    return kryl_bytes_mul_add(nnz, 12, kryl_bytes_mul_add(n + 1, 8, 0));
}

/* Vectors of n entries the solver and its caller hold, by method: the
 * driver's six (b, x in the working order and in A's, r, the best x), the
 * caller's b and x, and the method's own.  Auto counts as its first choice
 * for a symmetric matrix, PCG with IC(0) (GMRES(40) needs 36 vectors more). */
static int64_t vector_count(const kryl_solver_options *o)
{
    int64_t method;
    const int64_t restart = o->restart > 0 ? o->restart : 40;
    switch (o->method) {
    case KRYL_METHOD_CG:
    case KRYL_METHOD_PCG:
    case KRYL_METHOD_AUTO: method = 5; break;
    case KRYL_METHOD_PIPECG: method = 12; break;
    case KRYL_METHOD_BICGSTAB: method = 9; break;
    default: method = restart + 4; break; /* GMRES's basis */
    }
    /* inner-outer keeps a second (flexible) basis or direction set; single copies */
    if (o->precision == KRYL_MIXED) method = 2 * method + 4;
    return 8 + method;
}

/* Bytes of the preconditioner for A (n rows, nnz entries, csr bytes). */
static int64_t precond_bytes(const kryl_solver_options *o, int64_t n, int64_t csr)
{
    kryl_precond_kind kind = o->precond;
    if (o->method == KRYL_METHOD_PCG && kind == KRYL_PRECOND_NONE) kind = KRYL_PRECOND_JACOBI;
    if (o->method == KRYL_METHOD_AUTO && kind == KRYL_PRECOND_NONE) kind = KRYL_PRECOND_IC0;
    switch (kind) {
    case KRYL_PRECOND_NONE: return 0;
    case KRYL_PRECOND_JACOBI: return kryl_bytes_mul_add(n, 8, 0);
    case KRYL_PRECOND_LSPOLY: return kryl_bytes_mul_add(n, 24, 0);
    /* A's CSR copied to the backend and B = P A P^T; two vectors, the order,
     * the sweep's row bounds and 1/b_ii; the coloring's work */
    case KRYL_PRECOND_MCSSOR: return kryl_bytes_mul_add(csr, 2, kryl_bytes_mul_add(n, 60, 0));
    case KRYL_PRECOND_ILUK:
    case KRYL_PRECOND_ILUT:
    case KRYL_PRECOND_ILUTP: return kryl_bytes_mul_add(csr, 3, 0); /* the fill */
    case KRYL_PRECOND_AMG:
        return kryl_bytes_mul_add(csr, 2, 0); /* levels, P and R */
    /* IC(0)/ILU(0) factored by the backend: the factor with each entry's
     * source, and the two triangles' solve copies */
    case KRYL_PRECOND_IC0:
    case KRYL_PRECOND_MIC0:
    case KRYL_PRECOND_ILU0: return kryl_bytes_mul_add(csr, 3, 0);
    default: return csr; /* the factors of the block and multicolor variants */
    }
}

kryl_status kryl_solver_estimate_memory(kryl_context ctx, int64_t nrows, int64_t nnz,
                                        const kryl_solver_options *options,
                                        kryl_memory_estimate *estimate)
{
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(estimate);
    if (nrows < 0 || nnz < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_solver_estimate_memory: %lld rows and %lld entries",
                          (long long)nrows, (long long)nnz);
    kryl_solver_options defaults;
    kryl_solver_options_init(&defaults);
    const kryl_solver_options *o = options ? options : &defaults;
    /* over several ranks each holds its share of an even split */
    int ranks = 1;
    KRYL_TRY(kryl_context_rank(ctx, NULL, &ranks));
    nrows = (nrows + ranks - 1) / ranks;
    nnz = (nnz + ranks - 1) / ranks;
    kryl_memory_estimate e = {0};
    e.matrix = csr_bytes(nrows, nnz);
    const bool same =
        o->precision == KRYL_DOUBLE && o->format == KRYL_FORMAT_CSR && o->order == KRYL_ORDER_NONE;
    /* another storage: the format's arrays (padding unknown yet) and its permutation */
    e.format = same ? 0 : kryl_bytes_mul_add(nrows, 4, e.matrix);
    e.precond = precond_bytes(o, nrows, e.matrix);
    e.vectors = kryl_bytes_mul_add(nrows, 8 * vector_count(o), 0);
    const int64_t backend = kryl_bytes_mul_add(1, e.matrix + e.format, e.precond + e.vectors);
    if (ctx->ops->memory_info) {
        /* the host keeps the matrix, its format and the factors it built, and
         * the caller's b and x0 */
        e.device = backend;
        e.host = kryl_bytes_mul_add(nrows, 16, e.matrix + e.format + e.precond);
    } else {
        e.host = backend;
    }
    *estimate = e;
    return KRYL_SUCCESS;
}

/* "matrix 1.2 GB, format 0 B, preconditioner 1.2 GB, vectors 80 MB" */
static void describe_parts(const kryl_memory_estimate *e, char *text, size_t size)
{
    char m[32], f[32], p[32], v[32];
    snprintf(text, size, "the matrix %s, its storage format %s, the preconditioner %s, vectors %s",
             kryl_format_bytes(m, sizeof m, e->matrix), kryl_format_bytes(f, sizeof f, e->format),
             kryl_format_bytes(p, sizeof p, e->precond),
             kryl_format_bytes(v, sizeof v, e->vectors));
}

/* The check of one rank (of its share over several). */
static kryl_status check_rank(kryl_context ctx, int64_t nrows, int64_t nnz,
                              const kryl_solver_options *options, const char *what,
                              bool matrix_held, kryl_memory_estimate *estimate)
{
    kryl_memory_estimate e;
    KRYL_TRY(kryl_solver_estimate_memory(ctx, nrows, nnz, options, &e));
    kryl_solver_options defaults;
    kryl_solver_options_init(&defaults);
    const kryl_solver_options *o = options ? options : &defaults;
    if (estimate) *estimate = e;
    if (what == NULL) what = "the solve";
    char parts[256], label[512];
    describe_parts(&e, parts, sizeof parts);
    int ranks = 1;
    KRYL_TRY(kryl_context_rank(ctx, NULL, &ranks));
    char each[48] = "";
    if (ranks > 1) snprintf(each, sizeof each, " over %d ranks, each", ranks);
    snprintf(label, sizeof label, "%s (%lld rows, %s%lld entries%s: %s)", what, (long long)nrows,
             matrix_held ? "" : "about ", (long long)nnz, each, parts);
    /* a matrix already read is in host memory: the limit left counts it gone */
    KRYL_TRY(kryl_memory_check(matrix_held ? e.host - e.matrix : e.host, label));
    if (e.device == 0) return KRYL_SUCCESS;
    kryl_device_memory m;
    KRYL_TRY(kryl_context_device_memory(ctx, &m));
    if (e.device <= m.available) return KRYL_SUCCESS;
    char need[32], have[32];
    kryl_format_bytes(have, sizeof have, m.available);
    const bool split =
        ctx->defer_storage && (o->hybrid == KRYL_HYBRID_SPLIT || o->hybrid == KRYL_HYBRID_AUTO);
    if (split) {
        /* the hybrid split: the device keeps the rows that fit there besides
         * nine vectors of every row (the driver's six, Jacobi's diagonal, the
         * caller's b and x); the host the rest of A and its own copy of the
         * rows each side holds */
        const int64_t device = kryl_bytes_mul_add(nrows, 72, 0);
        KRYL_TRY(kryl_memory_check(matrix_held ? e.host : kryl_bytes_mul_add(1, e.host, e.matrix),
                                   label));
        if (device < m.available) return KRYL_SUCCESS;
        return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY,
                          "%s: the hybrid split keeps nine vectors of every row on the device, "
                          "about %s (%lld bytes), more than the %s it may allocate on device %d",
                          label, kryl_format_bytes(need, sizeof need, device), (long long)device,
                          have, ctx->device);
    }
    return KRYL_ERROR(
        KRYL_ERR_DEVICE_OUT_OF_MEMORY,
        "%s needs about %s of device memory (%lld bytes), more than the %s it may "
        "allocate on device %d (%s)%s",
        label, kryl_format_bytes(need, sizeof need, e.device), (long long)e.device, have,
        ctx->device, m.limit > 0 ? "its memory cap less what it holds" : "the device's free memory",
        o->method == KRYL_METHOD_PIPECG || o->method == KRYL_METHOD_PCG
            ? "; the hybrid split (hybrid 3 or auto) keeps on the device only the "
              "rows that fit there"
            : "");
}

kryl_status kryl_solver_check_memory_read(kryl_context ctx, int64_t nrows, int64_t nnz,
                                          const kryl_solver_options *options, const char *what,
                                          bool matrix_held, kryl_memory_estimate *estimate)
{
    kryl_status st = check_rank(ctx, nrows, nnz, options, what, matrix_held, estimate);
#ifdef KRYL_HAVE_MPI
    /* every rank goes on, or none: the next step is collective */
    if (kryl_dist_active(ctx)) st = kryl_dist_agree(ctx, st);
#endif
    return st;
}

kryl_status kryl_solver_check_memory(kryl_context ctx, int64_t nrows, int64_t nnz,
                                     const kryl_solver_options *options, const char *what,
                                     kryl_memory_estimate *estimate)
{
    return kryl_solver_check_memory_read(ctx, nrows, nnz, options, what, false, estimate);
}
