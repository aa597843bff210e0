/*
 * The table of operations every backend (ref, omp, cuda) implements.
 * Solvers and preconditioners are written once over this table.
 *
 * Rules every operation follows:
 *   - Scalars a computation produces live in backend memory (device memory
 *     on cuda) as kryl_scalar; coefficients are passed as such scalars,
 *     usually as a ratio num/den that the kernel divides itself, so no
 *     scalar travels to the host inside an iteration.  The host reads
 *     scalars only through `download` (one explicit fetch).
 *   - Reductions (dot) write the rank-local value; the core completes them
 *     with kryl_reduce_begin/end (src/core/reduce.h), a no-op on one rank.
 *   - Operations inside an iteration never allocate, never synchronise and
 *     run on the context's stream.
 *   - Vectors given to one operation have the same length and precision,
 *     except where an operation says it converts.  Scalars are double.
 *   - Iteration operations take a `monitor` guard: once monitor->stop is
 *     set (converged, breakdown, NaN) they do nothing, so the host may
 *     queue several iterations between checks and the iterate stays the
 *     one at which the method stopped.  NULL means unguarded.
 */
#ifndef KRYL_BACKENDS_BACKEND_H
#define KRYL_BACKENDS_BACKEND_H

#include "core/objects.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kryl_factor_pattern; /* src/factor/factor_pattern.h */
struct kryl_factor_pivots;  /* src/factor/factor.h */
struct kryl_factor_shape;   /* src/factor/factor_pattern.h */

/* One double in backend memory. */
typedef struct kryl_scalar {
    double *ptr;
} kryl_scalar;

/* Why the iteration stopped (monitor->stop). */
enum {
    KRYL_STOP_RUNNING = 0,
    KRYL_STOP_CONVERGED = 1,    /* recursive residual met the tolerance */
    KRYL_STOP_BREAKDOWN = 2,    /* a denominator was <= 0 where it must be > 0 */
    KRYL_STOP_NAN = 3,          /* a NaN or Inf appeared */
    KRYL_STOP_DIVERGED = 4,     /* rr exceeded div2: the residual grew past the divergence bound */
    KRYL_STOP_STAGNATED = 5,    /* set by a method on the host: rounding bounds what it can reach */
    KRYL_STOP_INDEFINITE_PC = 6 /* r'M^-1 r <= 0: the preconditioner is not positive definite */
};

/* Convergence state of one solve, in backend memory.  The host writes it
 * (upload) before the loop and reads it (download) at each check. */
typedef struct kryl_monitor {
    double tol2;              /* stop when rr <= tol2 */
    double div2;              /* stop (DIVERGED) when rr > div2; 0: never */
    double rr;                /* last squared residual norm recorded */
    double *history;          /* backend buffer of ||r_k||, or NULL */
    int64_t history_capacity; /* entries in history */
    int64_t iteration;        /* iterations completed */
    int32_t stop;             /* KRYL_STOP_* */
    int32_t step_ran;         /* this CG step's x, r update ran (cg_update_p's guard) */
} kryl_monitor;

/* A CSR matrix whose arrays are in backend memory (ops->alloc; device
 * memory on cuda): 64-bit row offsets, 32-bit columns, double values. */
typedef struct kryl_backend_csr {
    int64_t nrows, ncols, nnz;
    int64_t *row_ptr; /* nrows + 1 */
    int32_t *col_idx; /* nnz */
    double *values;   /* nnz */
} kryl_backend_csr;

/* Direction of a permuted copy. */
typedef enum kryl_permute_dir {
    KRYL_GATHER = 0,     /* y[i] = x[perm[i]]: original order -> backend order */
    KRYL_SCATTER = 1,    /* y[perm[i]] = x[i]: backend order -> original order */
    KRYL_SCATTER_ADD = 2 /* y[perm[i]] += x[i] (y += x without perm): adds a part's rows */
} kryl_permute_dir;

/* The vectors of one pipelined CG step (pipecg_update), all of one length
 * and precision.  Without a preconditioner (M = I) u, m and q are NULL and
 * stand for r, w and s. */
typedef struct kryl_pipecg_vectors {
    kryl_vector x, r, u, w, m, n; /* iterate; residual; u = M^-1 r; w = A u; m = M^-1 w; n = A m */
    kryl_vector p, s, q, z;       /* direction; s = A p; q = M^-1 s; z = A q */
} kryl_pipecg_vectors;

/* Consecutive scalars of pipelined CG: the three the step reduces first. */
enum {
    KRYL_PIPECG_GAMMA = 0, /* (r, u) */
    KRYL_PIPECG_DELTA = 1, /* (w, u) */
    KRYL_PIPECG_RR = 2,    /* (r, r) */
    KRYL_PIPECG_GAMMA_OLD = 3,
    KRYL_PIPECG_ALPHA_OLD = 4,
    KRYL_PIPECG_SCALARS = 5
};

/* Consecutive scalars of a single-reduction CG step (cg1_terms, cg1_update). */
enum {
    KRYL_CG1_PQ = 0,  /* (p, q) */
    KRYL_CG1_RR = 1,  /* (r, r) */
    KRYL_CG1_RQ = 2,  /* (r, q) */
    KRYL_CG1_QQ = 3,  /* (q, q) */
    KRYL_CG1_RDR = 4, /* (r, D r), with dinv only */
    KRYL_CG1_RDQ = 5, /* (r, D q) */
    KRYL_CG1_QDQ = 6, /* (q, D q) */
    KRYL_CG1_TERMS = 7
};

/* Consecutive scalars of BiCGSTAB (bicgstab_* operations). */
enum {
    KRYL_BICG_RHO = 0, /* (r^, r) */
    KRYL_BICG_RV = 1,  /* (r^, v) */
    KRYL_BICG_ALPHA = 2,
    KRYL_BICG_OMEGA = 3,
    KRYL_BICG_TS = 4,      /* (t, s) */
    KRYL_BICG_TT = 5,      /* (t, t) */
    KRYL_BICG_RR = 6,      /* (r, r) of the new residual */
    KRYL_BICG_RHO_NEW = 7, /* (r^, r) of the new residual */
    KRYL_BICG_RHAT2 = 8,   /* (r^, r^) */
    KRYL_BICG_SCALARS = 9
};

/* GMRES's small least-squares problem in backend memory (Saad & Schultz
 * 1986): the Hessenberg columns, reduced by Givens rotations to R, and
 * g = Q' beta e1, so |g[k]| is the residual norm after k columns.  The
 * struct is host memory; its pointers point into one backend block. */
typedef struct kryl_gmres_ls {
    int m;           /* restart length */
    double *R;       /* (m+1) x m, column j at R + j*(m+1) */
    double *cs, *sn; /* m Givens rotations */
    double *g;       /* m+1 */
    double *y;       /* m: solution of R y = g */
    double *h2;      /* m+1: coefficients of the second Gram-Schmidt pass */
    double *ww;      /* ||w||^2 of the new Arnoldi vector */
    double *rr;      /* g[k+1]^2 after column k, for monitor_update */
    int64_t *count;  /* columns of R built in the current cycle */
    /* Low-synchronisation CGS2 (gmres_dcgs2_*; NULL with CGS2): */
    double *H;   /* (m+1) x m: the Hessenberg columns before rotation, column j at H + j*(m+1) */
    double *d;   /* 2(m+1)+1: the fused dot products of gmres_dcgs2_dot */
    double *f;   /* 3: the factors of gmres_dcgs2_update */
    double *eta; /* u_{k+1} = (w - Q c)/sigma:  eta = sigma/rho_k, H's scale for column k */
    double *gk;  /* g[k] before the rotation of the provisional column k */
    double *T;   /* m x m, column j at T + j*m: z_j = Z_j T (FGMRES only; else NULL) */
} kryl_gmres_ls;

/* The operations of the table, one entry each: OP(return type, name,
 * (parameters)), what it does written above it.  This list is the one
 * place a signature is written: it gives the table's members (below),
 * each operation's function type and each backend's declarations of its
 * implementations kryl_<backend>_<op> (KRYL_BACKEND_OPS(M) with M(ret,
 * name, params) declaring one). */
/* clang-format 14 reads the list's parameters as products (T * name) */
// clang-format off
#define KRYL_BACKEND_OPS(OP)                                                                       \
                                                                                                   \
    /* ---- lifecycle: set ctx->backend and ctx->device_name ---- */                               \
    OP(kryl_status, init, (kryl_context ctx))                                                      \
    OP(void, finalize, (kryl_context ctx))                                                         \
                                                                                                   \
    /* ---- memory ---- */                                                                         \
    /* *ptr = bytes of zeroed backend memory (bytes may be 0: *ptr = NULL) */                      \
    OP(kryl_status, alloc, (kryl_context ctx, void **ptr, size_t bytes))                           \
    OP(void, release, (kryl_context ctx, void *ptr))                                               \
    /* backend dst <- host src */                                                                  \
    OP(kryl_status, upload, (kryl_context ctx, void *dst, const void *src, size_t bytes))          \
    /* host dst <- backend src; waits for the work queued before it */                             \
    OP(kryl_status, download, (kryl_context ctx, void *dst, const void *src, size_t bytes))        \
    OP(kryl_status, synchronize, (kryl_context ctx))                                               \
    /* Device memory accounting (NULL on a backend without a device): the                          \
     * cap on what alloc and the backend's own storage may hold (0: none),                         \
     * and what they hold. */                                                                      \
    OP(kryl_status, set_memory_limit, (kryl_context ctx, int64_t bytes))                           \
    OP(void, memory_info, (kryl_context ctx, kryl_device_memory *info))                            \
                                                                                                   \
    /* ---- copies over the host link on a second stream (the hybrid CPU+GPU                       \
     * solvers, src/solvers/hybrid_pipecg.c) ----                                                  \
     * Each copy starts once the work queued on the context's stream so far                        \
     * has run and then overlaps the work queued after it; copy_wait makes                         \
     * the host wait for every copy started.  The host buffer must not be                          \
     * touched until then.  Where backend memory is host memory (ref, omp)                         \
     * they are plain copies and copy_wait does nothing. */                                        \
    /* host dst <- backend src */                                                                  \
    OP(kryl_status, copy_to_host_async,                                                            \
       (kryl_context ctx, void *dst, const void *src, size_t bytes))                               \
    /* backend dst <- host src */                                                                  \
    OP(kryl_status, copy_from_host_async,                                                          \
       (kryl_context ctx, void *dst, const void *src, size_t bytes))                               \
    OP(kryl_status, copy_wait, (kryl_context ctx))                                                 \
    /* Page-lock host memory that these copies use, so they run as DMA                             \
     * alongside the work (nothing where backend memory is host memory);                           \
     * host_unpin undoes it before the memory is freed. */                                         \
    OP(kryl_status, host_pin, (kryl_context ctx, void *ptr, size_t bytes))                         \
    OP(void, host_unpin, (kryl_context ctx, void *ptr))                                            \
                                                                                                   \
    /* ---- graphs (optional; NULL: operations are launched one by one) ----                       \
     * Operations queued between capture_begin and capture_end are recorded,                       \
     * not run; graph_launch replays them on the context's stream.  The                            \
     * driver captures a whole number of a method's periods (steps after                           \
     * which its host-side state repeats), so a replay continues exactly                           \
     * where the last one stopped; the monitor guard ends it early. */                             \
    OP(kryl_status, capture_begin, (kryl_context ctx))                                             \
    OP(kryl_status, capture_end, (kryl_context ctx, void **graph))                                 \
    OP(kryl_status, graph_launch, (kryl_context ctx, void *graph))                                 \
    OP(void, graph_release, (kryl_context ctx, void *graph))                                       \
                                                                                                   \
    /* The numbers the SpMV bandwidth model needs (NULL: host defaults). */                        \
    OP(kryl_status, device_model, (kryl_context ctx, kryl_device_model *model))                    \
                                                                                                   \
    /* ---- matrices ----                                                                          \
     * Every operation that takes a kryl_matrix (these, spmv_dot,                                  \
     * pipecg_spmv_update, pipecg_spmv_steps, cg1_steps) must see a                                \
     * distributed matrix's parts: the distributed table                                           \
     * (src/dist/dist_context.c) replaces the first three and drops the                            \
     * optional fused ones, so a new one needs a line there. */                                    \
    /* Build A->storage from A->host->csr (permuted by A->layout) in A->precision. */              \
    OP(kryl_status, matrix_setup, (kryl_context ctx, kryl_matrix A))                               \
    OP(void, matrix_release, (kryl_context ctx, kryl_matrix A))                                    \
    /* Build A->storage (double CSR in A->layout's order: the natural one,                         \
     * or an ordering's P A P^T built on the backend) from CSR arrays in                           \
     * backend memory, copied and checked there as                                                 \
     * kryl_matrix_create_csr_device says, or, where `built` (the library's                        \
     * own ops->alloc blocks: only their row lengths measured), taken over by                      \
     * A->storage on success (on failure the caller keeps them); A has no                          \
     * host copy of them (NULL: the backend addresses host memory, and the                         \
     * arrays are copied to the host as they are).  Arrays not built are                           \
     * only read. */                                                                               \
    OP(kryl_status, matrix_setup_device,                                                           \
       (kryl_context ctx, kryl_matrix A, int64_t *row_ptr, int32_t *col_idx, double *values,       \
        bool built))                                                                               \
    /* Build A->storage in A->fmt.kind (ELL, ELLR, JDS, pJDS, SELL or DIA;                         \
     * A->params its parameters, rows in the format's own order only) from                         \
     * the storage of `from`, double CSR of all its rows in the natural                            \
     * order (kryl_matrix_natural_csr), without leaving backend memory: the                        \
     * same permutation and arrays as kryl_fmt_build, and its refusals.                            \
     * A->fmt gets the format's shape (A->fmt.on_backend), *perm_backend                           \
     * the permutation in backend memory (ops->alloc's block, the caller's                         \
     * from then on; NULL in the natural order).  For A->fmt.kind CSR:                             \
     * A->storage = from's (double CSR, natural order, any shape) in                               \
     * A->precision, each value rounded as the host's cast rounds it.                              \
     * Optional (NULL: converted on the host); KRYL_ERR_UNSUPPORTED, with no                       \
     * message and nothing changed, for what it does not convert (the host                         \
     * does). */                                                                                   \
    OP(kryl_status, matrix_convert,                                                                \
       (kryl_context ctx, kryl_matrix A, kryl_matrix from, int32_t **perm_backend))                \
    /* csr (allocated with A's size) = the CSR arrays of A->storage, built by                      \
     * matrix_setup_device. */                                                                     \
    OP(kryl_status, matrix_download, (kryl_context ctx, kryl_matrix A, kryl_csr *csr))             \
    /* A's storage as CSR arrays in backend memory, where A is held as                             \
     * double CSR either of all the rows of a square A in its layout's                             \
     * order (kryl_matrix_stored_csr: the natural order or an ordering's                           \
     * P A P^T) or in the order of A's host CSR (A->fmt borrows it; so a                           \
     * matrix converted from the same host copy can take new values from                           \
     * there: kryl_matrix_stored_values); else KRYL_ERR_INVALID_ARGUMENT.                          \
     * Optional, NULL where backend memory is host memory (the host copy's                         \
     * arrays serve).  *col_idx and *values are the storage's own, valid                           \
     * while it is; *row_ptr the 64-bit offsets, the storage's own or, where                       \
     * it keeps 32-bit ones, a widened copy (*row_ptr_copy: the caller                             \
     * releases it).  row_ptr (with row_ptr_copy) or col_idx NULL: not                             \
     * wanted, and no copy is made. */                                                             \
    OP(kryl_status, matrix_csr_arrays,                                                             \
       (kryl_context ctx, kryl_matrix A, int64_t **row_ptr, bool *row_ptr_copy,                    \
        int32_t **col_idx, double **values))                                                       \
    /* Checks of a square A stored as double CSR of all its rows in the                            \
     * natural order, columns sorted (optional, both or neither; NULL: the                         \
     * checks run on A's host copy).  They read the storage where it is                            \
     * (for a matrix from device arrays, before any host copy exists) and                          \
     * return their findings to the host; the ref versions (kryl_csr_asymmetry,                    \
     * kryl_csr_check_diagonal on one thread) are the specification. */                            \
    /* *worst = max |a_ij - a_ji| over the stored entries (absent a_ji = 0);                       \
     * *largest = max |a_ij| */                                                                    \
    OP(kryl_status, csr_asymmetry,                                                                 \
       (kryl_context ctx, kryl_matrix A, double *worst, double *largest))                          \
    /* The diagonal check (kryl_diagonal_check); d (double, A's rows, or                           \
     * NULL) gets a_ii, or 1/a_ii when invert (then unspecified where                              \
     * found->first_zero is a row: the caller refuses A). */                                       \
    OP(kryl_status, csr_diagonal,                                                                  \
       (kryl_context ctx, kryl_matrix A, kryl_vector d, bool invert, kryl_diagonal_check *found))  \
    /* csr_row_sums: d (double, A's rows) = the rows' absolute sums as                             \
     * `what` says, *zero_row = the first row whose sum is 0, or -1, for                           \
     * an A the checks above read (kryl_csr_abs_row_sums on one thread, the                        \
     * specification: each sum added in its row's order, so every backend                          \
     * gives its bits).  Optional (NULL: from the host copy). */                                   \
    OP(kryl_status, csr_row_sums,                                                                  \
       (kryl_context ctx, kryl_matrix A, kryl_row_sums what, kryl_vector d, int64_t *zero_row))    \
    /* The format model's passes over the entries (kryl_fmt_counter,                               \
     * src/formats/format.h: the host's counts are the specification) of a                         \
     * square A stored as double CSR of all its rows in the natural order,                         \
     * read where it is stored (optional, all three or none; NULL: the host's                      \
     * threads count on A's host copy; they synchronise).  csr_reach: *far =                       \
     * the entries a_ij with |inv_i - inv_j| > near, inv_r the position of                         \
     * row r once the rows are stably sorted by decreasing length within                           \
     * windows of `window` rows (0 or 1: the natural order). */                                    \
    OP(kryl_status, csr_reach,                                                                     \
       (kryl_context ctx, kryl_matrix A, int64_t window, int64_t near, int64_t *far))              \
    /* *ndiag = the distinct j - i of A's entries (DIA's diagonals) */                             \
    OP(kryl_status, csr_diagonals, (kryl_context ctx, kryl_matrix A, int64_t *ndiag))              \
    /* *nblocks = the distinct (i / b, j / b) of A's entries, b = 2 or 4                           \
     * (BCSR's blocks) */                                                                          \
    OP(kryl_status, csr_blocks, (kryl_context ctx, kryl_matrix A, int64_t b, int64_t *nblocks))    \
    /* csr_unmirrored: *row (host) = the first row i of the n x n pattern                          \
     * row_ptr, col_idx (backend memory, columns sorted) storing an a_ij                           \
     * (j != i) whose a_ji is not stored, or -1 where the pattern is                               \
     * structurally symmetric (kryl_csr_first_unmirrored: the                                      \
     * specification): whether first fit by rows sees A + A^T's                                    \
     * couplings.  Optional (NULL: not known; --order color then colors                          \
     * on the host).  Synchronises. */                                                             \
    OP(kryl_status, csr_unmirrored,                                                                \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,               \
        int64_t *row))                                                                             \
    /* New values on A's pattern: `values` are the nnz values of A's host                          \
     * CSR in its order, in backend memory when on_backend, else host                              \
     * memory.  Each value slot of A's storage takes values[A->value_source                        \
     * - 1] (0 for padding; A's own entry when A->fmt borrows the host CSR)                        \
     * through a copy of the map kept in backend memory from the first call                        \
     * on; nothing else is rebuilt.  A->fmt's host value slots are left as                         \
     * they were.  Values in backend memory are checked first: one that is                         \
     * not finite is refused (KRYL_ERR_INVALID_VALUE) with A unchanged.                            \
     * NULL: the host gathers and matrix_setup runs again. */                                      \
    OP(kryl_status, matrix_values,                                                                 \
       (kryl_context ctx, kryl_matrix A, const double *values, bool on_backend))                   \
    /* d = 1 / diag(A) in A's layout order, from A's storage; *zero_row = the                      \
     * first row (of that order) whose diagonal entry is 0 or absent (its d                        \
     * is then 0), or -1.  Optional (NULL: from the host copy). */                                 \
    OP(kryl_status, matrix_inverse_diagonal,                                                       \
       (kryl_context ctx, kryl_matrix A, kryl_vector d, int64_t *zero_row))                        \
    /* y = alpha*A*x + beta*z.  z may be y, or NULL (then beta is ignored);                        \
     * x, y, z in A's precision. */                                                                \
    OP(kryl_status, spmv,                                                                          \
       (kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x, double beta, kryl_vector z,  \
        kryl_vector y, const kryl_monitor *monitor))                                               \
                                                                                                   \
    /* ---- vectors ---- */                                                                        \
    /* y_i = value */                                                                              \
    OP(kryl_status, fill, (kryl_context ctx, kryl_vector y, double value))                         \
    /* y_i = kryl_random_entry(seed, first + i) (gen/hash.h): one start                            \
     * vector on every backend, first the global index of y's first entry */                       \
    OP(kryl_status, fill_random, (kryl_context ctx, kryl_vector y, uint64_t seed, int64_t first))  \
    /* y = x, or its permutation (perm in backend memory, NULL = plain copy),                      \
     * or y[perm] += x (KRYL_SCATTER_ADD, perm distinct); converts between                         \
     * precisions when y and x differ.  Guarded by monitor (may be NULL):                          \
     * no copy once it has stopped. */                                                             \
    OP(kryl_status, permute_copy,                                                                  \
       (kryl_context ctx, kryl_vector y, kryl_vector x, const int32_t *perm, kryl_permute_dir dir, \
        const kryl_monitor *monitor))                                                              \
    /* y = alpha*x + beta*y (host constants) */                                                    \
    OP(kryl_status, axpby,                                                                         \
       (kryl_context ctx, double alpha, kryl_vector x, double beta, kryl_vector y))                \
    /* y = d .* x (elementwise) */                                                                 \
    OP(kryl_status, pointwise_mult,                                                                \
       (kryl_context ctx, kryl_vector y, kryl_vector d, kryl_vector x))                            \
    /* One step of the Chebyshev smoother: d = alpha dinv .* r + beta d                            \
     * (beta = 0: d's old values are not read);  then x = d where x_zero                           \
     * (x's old values not read), else x += d.  r, dinv, d, x distinct.                            \
     * d NULL (with beta = 0): the step is not kept, only x is written. */                         \
    OP(kryl_status, chebyshev_step,                                                                \
       (kryl_context ctx, double alpha, kryl_vector r, kryl_vector dinv, double beta,              \
        kryl_vector d, kryl_vector x, bool x_zero))                                                \
    /* out = x'y (rank-local), accumulated in double */                                            \
    OP(kryl_status, dot, (kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out))        \
    /* y = A x and out = x'y (rank-local; A square), guarded, in one pass                          \
     * where the backend fuses them (optional: NULL means spmv, then dot) */                       \
    OP(kryl_status, spmv_dot,                                                                      \
       (kryl_context ctx, kryl_matrix A, kryl_vector x, kryl_vector y, kryl_scalar out,            \
        const kryl_monitor *monitor))                                                              \
    /* Whether spmv_dot is one pass for A (optional: NULL means never); CG                         \
     * then keeps its two-reduction step on one rank, one launch shorter. */                       \
    OP(bool, spmv_dot_fuses, (kryl_context ctx, kryl_matrix A))                                    \
                                                                                                   \
    /* ---- fused conjugate-gradient steps ---- */                                                 \
    /* alpha = num/den;  x += alpha p;  r -= alpha q;                                              \
     * if dinv: z = dinv .* r and rz = r'z, else rz = r'r;  rr = r'r.                              \
     * den <= 0 sets monitor->stop = BREAKDOWN (NaN/Inf: NAN), then num <= 0                       \
     * INDEFINITE_PC (kryl_cg_alpha_stop), and changes nothing. */                                 \
    OP(kryl_status, cg_update_xr,                                                                  \
       (kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector p, kryl_vector q,          \
        kryl_vector x, kryl_vector r, kryl_vector dinv, kryl_vector z, kryl_scalar rz,             \
        kryl_scalar rr, kryl_monitor *monitor))                                                    \
    /* p = z + (num/den) p;  den <= 0 sets stop = BREAKDOWN (NaN/Inf: NAN).                        \
     * rr.ptr non-NULL: then also monitor_update(monitor, rr, 1) once p is                         \
     * updated, in the same launch where the backend can (only where rr is                         \
     * already global: one rank), so that a stop leaves x, r and p of one                          \
     * whole step.  Called only after the step's cg_update_xr, and guarded                         \
     * by it rather than by the stop flag: cg_update_xr clears                                     \
     * monitor->step_ran on entry and sets it once x and r are updated, and                        \
     * cg_update_p does nothing unless it is set (on cuda its own record may                       \
     * stop the monitor while some of its blocks have yet to start). */                            \
    OP(kryl_status, cg_update_p,                                                                   \
       (kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z, kryl_vector p,          \
        kryl_scalar rr, kryl_monitor *monitor))                                                    \
                                                                                                   \
    /* ---- conjugate gradients with one reduction a step (optional) ----                          \
     * Every inner product of a step comes from one pass after the SpMV, and                       \
     * the next r'z is expanded as (r - alpha q)'D(r - alpha q) from them                          \
     * (D'Azevedo, Eijkhout & Romine, "Conjugate gradient algorithms with                          \
     * reduced synchronization overhead", 1993): r'q and q'q are computed,                         \
     * not assumed, so the expansion loses only about eps r'z / r'z_new.                           \
     * t: KRYL_CG1_TERMS consecutive scalars (KRYL_CG1_*). */                                      \
    /* t = {p'q, r'r, r'q, q'q} and with dinv also {r'Dr, r'Dq, q'Dq}                              \
     * (D = diag(dinv)), rank-local.  Guarded. */                                                  \
    OP(kryl_status, cg1_terms,                                                                     \
       (kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r, kryl_vector dinv,           \
        kryl_scalar t, const kryl_monitor *monitor))                                               \
    /* With t summed over the ranks: first monitor_update(monitor, r'r, 0),                        \
     * the exact ||r|| replacing the expanded one the previous step recorded                       \
     * (a non-finite r'r, or r'r <= tol2, stops here and changes nothing).                         \
     * Then rz = r'Dr (dinv) or r'r;  alpha = rz/p'q;  x += alpha p;                               \
     * r -= alpha q;  rr' = r'r - 2 alpha r'q + alpha^2 q'q;  rz' = rz -                           \
     * 2 alpha r'Dq + alpha^2 q'Dq (dinv) or rr', both clamped at 0;                               \
     * beta = rz'/rz;  p = dinv .* r + beta p (r + beta p);  then                                  \
     * monitor_update(monitor, rr', 1).  p'q <= 0 sets stop = BREAKDOWN                            \
     * (NaN/Inf: NAN), then rz <= 0 INDEFINITE_PC, and changes nothing. */                         \
    OP(kryl_status, cg1_update,                                                                    \
       (kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q, kryl_vector x,              \
        kryl_vector r, kryl_vector dinv, kryl_monitor *monitor))                                   \
    /* Optional: cg1_terms, t summed over the ranks, then cg1_update, as one                       \
     * operation (cuda: one launch; over ranks kryl_nccl_cg1_step, only                            \
     * where the ranks' GPUs sum by peer-to-peer stores, inside the launch). */                    \
    OP(kryl_status, cg1_step,                                                                      \
       (kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector x, kryl_vector r,              \
        kryl_vector dinv, kryl_scalar t, kryl_monitor *monitor))                                   \
    /* Optional (one rank, double precision, dinv or no preconditioner):                           \
     * `steps` times q = A p, cg1_terms, cg1_update in one launch, with                            \
     * their monitor records, ending after the step that stops the monitor;                        \
     * q is not stored.  scratch: 6n doubles of backend memory (may be NULL                        \
     * when steps = 0).  *queued = false, and nothing queued, where this                           \
     * backend cannot take A or the device: the caller then queues steps                           \
     * singly.  steps = 0 queues nothing and only answers whether it could. */                     \
    OP(kryl_status, cg1_steps,                                                                     \
       (kryl_context ctx, kryl_matrix A, kryl_vector p, kryl_vector x, kryl_vector r,              \
        kryl_vector dinv, void *scratch, kryl_monitor *monitor, int64_t steps, bool *queued))      \
                                                                                                   \
    /* ---- convergence ---- */                                                                    \
    /* Unless stopped: iteration += advance; history[iteration] = sqrt(rr);                        \
     * stop = NAN if rr is not finite, CONVERGED if rr <= tol2, DIVERGED if                        \
     * div2 > 0 and rr > div2. */                                                                  \
    OP(kryl_status, monitor_update,                                                                \
       (kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr, int advance))                     \
                                                                                                   \
    /* ---- operations of the other Krylov methods ----                                            \
     * All are guarded by `monitor` (NULL: unguarded) unless they say so;                          \
     * none synchronises.  The ref versions (src/backends/ref/ref_krylov.c)                        \
     * are the specification.  A backend may leave any of them NULL: the                           \
     * methods needing it then refuse to be created (KRYL_ERR_UNSUPPORTED). */                     \
                                                                                                   \
    /* Pipelined (P)CG step (Ghysels & Vanroose 2014; Alg. 2 of Tiwari &                           \
     * Vadhiyar), sc = KRYL_PIPECG_SCALARS consecutive scalars:                                    \
     *   restart: beta = 0, alpha = gamma/delta (old p, s, q, z not read);                         \
     *   else beta = gamma/gamma_old, alpha = gamma/(delta - beta gamma/alpha_old);                \
     *   z = n + beta z; q = m + beta q; s = w + beta s; p = u + beta p;                           \
     *   x += alpha p; r -= alpha s; u -= alpha q; w -= alpha z;                                   \
     *   if dinv: m = dinv .* w (else the caller applies m = M^-1 w);                              \
     *   gamma_old = gamma; alpha_old = alpha;                                                     \
     *   gamma = r'u; delta = w'u; rr = r'r (rank-local).                                          \
     * v->u, v->m, v->q NULL: no preconditioner (dinv NULL).  coef (backend                        \
     * memory) non-NULL and a monitor: coef[2i] = alpha, coef[2i+1] = beta                         \
     * with i = monitor->iteration.                                                                \
     * A denominator delta - beta gamma/alpha_old, gamma_old or alpha_old                          \
     * <= 0 in a step that is not a restart means rounding has spoilt the                          \
     * recurrences: the step is then done as a restart (beta = 0 recorded).                        \
     * gamma <= 0 sets stop = INDEFINITE_PC (M is not positive definite),                          \
     * delta <= 0 in a restart BREAKDOWN (A is not), a non-finite scalar                           \
     * NAN: then nothing changes.  record:                                                         \
     * then also monitor_update(monitor, rr, 1), as cg_update_xr does. */                          \
    OP(kryl_status, pipecg_update,                                                                 \
       (kryl_context ctx, kryl_scalar sc, int restart, const kryl_pipecg_vectors *v,               \
        kryl_vector dinv, double *coef, kryl_monitor *monitor, bool record))                       \
    /* pipecg_update fused with the SpMV that feeds it (optional: NULL where                       \
     * the backend has none; and over several ranks, where the SpMV must                           \
     * overlap the step's reduction instead): n = A in with in = v->m (a                           \
     * preconditioner) or v->w (none), then the step of pipecg_update with                         \
     * restart = 0, except that the updated in (m = dinv .* w with dinv, w                         \
     * without a preconditioner) goes to `next`, a vector other than in,                           \
     * while in keeps its old values; with another preconditioner nothing                          \
     * writes m (the caller applies it after) and next is not used.  v->n                          \
     * may be overwritten. */                                                                      \
    OP(kryl_status, pipecg_spmv_update,                                                            \
       (kryl_context ctx, kryl_matrix A, kryl_scalar sc, const kryl_pipecg_vectors *v,             \
        kryl_vector dinv, kryl_vector next, double *coef, kryl_monitor *monitor, bool record))     \
    /* pipecg_spmv_update `steps` times in one launch (optional, one rank,                         \
     * like it): with dinv (Jacobi) or no preconditioner only.  The steps                          \
     * record rr in the monitor themselves (record = true) and end after the                       \
     * one that stops it; in and next trade places after each, so after an                         \
     * odd `steps` the input of the next step is in next (after a step that                        \
     * stops the monitor, either may hold it).  *queued = false,                                   \
     * and nothing queued, where this backend cannot take A, the                                   \
     * preconditioner or the device: the caller then queues steps singly.                          \
     * steps = 0 queues nothing and only answers whether it could. */                              \
    OP(kryl_status, pipecg_spmv_steps,                                                             \
       (kryl_context ctx, kryl_matrix A, kryl_scalar sc, const kryl_pipecg_vectors *v,             \
        kryl_vector dinv, kryl_vector next, double *coef, kryl_monitor *monitor, int64_t steps,    \
        bool *queued))                                                                             \
    /* out[0] = x'z;  out[1] = y'z (rank-local, one pass over z; unguarded) */                     \
    OP(kryl_status, dot2,                                                                          \
       (kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z, kryl_scalar out))           \
    /* BiCGSTAB (van der Vorst 1992), sc = KRYL_BICG_SCALARS scalars:                              \
     * alpha = rho/rv, stored;  r -= alpha v (r becomes s);  if dinv: s_hat = dinv .* r.           \
     * rv = 0 sets BREAKDOWN, non-finite NAN: nothing changes. */                                  \
    OP(kryl_status, bicgstab_update_s,                                                             \
       (kryl_context ctx, kryl_scalar sc, kryl_vector r, kryl_vector v, kryl_vector dinv,          \
        kryl_vector s_hat, kryl_monitor *monitor))                                                 \
    /* omega = ts/tt (0 when tt = 0), stored;  x += alpha p_hat + omega s_hat;                     \
     * r -= omega t;  rr = r'r;  rho_new = r_hat'r (rank-local).  p_hat may                        \
     * be p and s_hat may be r (no preconditioner): s_hat is read before r                         \
     * is written.  Non-finite ts/tt/alpha sets NAN: nothing changes. */                           \
    OP(kryl_status, bicgstab_update_xr,                                                            \
       (kryl_context ctx, kryl_scalar sc, kryl_vector x, kryl_vector r, kryl_vector p_hat,         \
        kryl_vector s_hat, kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor))               \
    /* beta = (rho_new/rho)(alpha/omega);  p = r + beta (p - omega v);                             \
     * if dinv: p_hat = dinv .* p;  rho = rho_new.  rho_new = 0 or omega = 0                       \
     * (or rho = 0) sets BREAKDOWN, non-finite NAN: nothing changes. */                            \
    OP(kryl_status, bicgstab_update_p,                                                             \
       (kryl_context ctx, kryl_scalar sc, kryl_vector p, kryl_vector r, kryl_vector v,             \
        kryl_vector dinv, kryl_vector p_hat, kryl_monitor *monitor))                               \
    /* h[j] = V_j'w for j < k (rank-local), V_j the j-th of k vectors stored one                   \
     * after another from V->data (V->n entries each, V's precision). */                           \
    OP(kryl_status, multi_dot,                                                                     \
       (kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar h,                      \
        kryl_monitor *monitor))                                                                    \
    /* w += alpha sum_{j<k} h[j] V_j, terms with h[j] = 0 skipped (so stale                        \
     * columns never contribute);  ww = w'w (rank-local) when ww.ptr != NULL. */                   \
    OP(kryl_status, multi_axpy,                                                                    \
       (kryl_context ctx, kryl_vector V, int k, double alpha, kryl_scalar h, kryl_vector w,        \
        kryl_scalar ww, kryl_monitor *monitor))                                                    \
    /* v = v / sqrt(vv);  vv = 0 leaves v unchanged. */                                            \
    OP(kryl_status, normalize,                                                                     \
       (kryl_context ctx, kryl_vector v, kryl_scalar vv, kryl_monitor *monitor))                   \
    /* Start a GMRES cycle: g = (sqrt(rr), 0, ..., 0);  count = 0. */                              \
    OP(kryl_status, gmres_cycle_start,                                                             \
       (kryl_context ctx, const kryl_gmres_ls *ls, kryl_scalar rr, kryl_monitor *monitor))         \
    /* Finish Arnoldi column k (0 <= k < m; R[0..k][k] hold V'w):                                  \
     * R[0..k][k] += h2[0..k];  R[k+1][k] = sqrt(ww);  apply rotations 0..k-1                      \
     * to column k;  rotation k zeroes R[k+1][k];  g[k+1] = -sn_k g[k];                            \
     * g[k] = cs_k g[k];  rr = g[k+1]^2;  count = k+1.  A zero pivot                               \
     * (R[k][k] = R[k+1][k] = 0) sets BREAKDOWN, a non-finite entry NAN: then                      \
     * count, g and the rotations are unchanged (column k is not counted). */                      \
    OP(kryl_status, gmres_givens,                                                                  \
       (kryl_context ctx, const kryl_gmres_ls *ls, int k, kryl_monitor *monitor))                  \
    /* y = R^{-1} g over the first `count` columns, y[count..m-1] = 0;                             \
     * then, when T != NULL, y = T^{-1} y over those columns (T upper                              \
     * triangular);  count = 0.  Unguarded: it runs after the monitor stopped. */                  \
    OP(kryl_status, gmres_solve, (kryl_context ctx, const kryl_gmres_ls *ls))                      \
    /* ---- GMRES by low-synchronisation CGS2 with delayed reorthogonalisation                     \
     * (DCGS2: Bielich, Langou, Thomas, Swirydowicz, Yamazaki, Boman, Parallel                     \
     * Comput. 2022; Swirydowicz et al., Numer. Linear Algebra Appl. 2020).                        \
     * Step k holds Q = V_0..V_{k-1} orthonormal, u = V_k once-orthogonalised                      \
     * (its second pass is delayed to this step) and w = A M^-1 u in V_{k+1};                      \
     * it makes one dot pass (one reduction) and one update pass. ----                             \
     * For j <= k (rank-local, one pass over V_0..V_k and w): d[j] = V_j'V_k;                      \
     * if w != NULL: d[k+1+j] = V_j'w and d[2k+2] = w'w. */                                        \
    OP(kryl_status, gmres_dcgs2_dot,                                                               \
       (kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar d,                      \
        kryl_monitor *monitor))                                                                    \
    /* One pass over V_0..V_k and w (w not among them), f = 3 scalars:                             \
     * V_k = (V_k - sum_{j<k} d[j] V_j) f[0];                                                      \
     * w = (w - sum_{j<k} d[k+1+j] V_j - f[1] V_k) f[2]  (V_k the new one). */                     \
    OP(kryl_status, gmres_dcgs2_update,                                                            \
       (kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar d, kryl_scalar f,       \
        kryl_monitor *monitor))                                                                    \
    /* The least-squares side of DCGS2 step k (0 <= k < m), from ls->d                             \
     * (s = d[0..k-1], alpha = d[k], t = d[k+1..2k], beta = d[2k+1], ww = d[2k+2]):                \
     *  rho = 1 if k = 0, else sqrt(alpha - s's) (0 when that is <= 0);                            \
     *  if k > 0, column k-1 is completed (u = Q s + rho q_k):                                     \
     *   H[0..k-1][k-1] += eta s;  H[k][k-1] = eta rho;  R's column k-1 = H's                      \
     *   with rotations 0..k-2 and a new rotation k-1 (g[k-1] = cs gk,                             \
     *   g[k] = -sn gk);  rr = g[k]^2;  count = k.  rho = 0 (u in span Q:                          \
     *   the space is invariant) ends there: f = 0.                                                \
     *  then column k, provisional until step k+1 completes it:                                    \
     *   c_k = (beta - s't)/rho;  c = (t, c_k);  H[0..k][k] = (c - H_{k+1,k} s)/rho;               \
     *   sigma2 = ww - c'c;  H[k+1][k] = sqrt(sigma2)/rho, or 0 where sigma2                       \
     *   <= 64 eps ww (no digits left: taken as invariant);                                        \
     *   sigma = sqrt(max(sigma2, eps ww));  eta = sigma/rho;                                      \
     *   R's column k = H's with rotations 0..k;  gk = g[k];                                       \
     *   g[k+1] = -sn_k gk;  g[k] = cs_k gk;  rr = g[k+1]^2;  count = k+1;                         \
     *   f = (1/rho, c_k, 1/sigma (0 when sigma = 0));  if T: T[0..k-1][k] = s,                    \
     *   T[k][k] = rho.                                                                            \
     * k = m completes column m-1 only (d from gmres_dcgs2_dot without w),                         \
     * and only when count = m.  A zero pivot sets BREAKDOWN, a non-finite                         \
     * value NAN; the column it happened in is then left as it was. */                             \
    OP(kryl_status, gmres_dcgs2_column,                                                            \
       (kryl_context ctx, const kryl_gmres_ls *ls, int k, kryl_monitor *monitor))                  \
    /* Flexible CG direction (Notay 2000; Golub & Ye 1999): p = z - (num/den) p.                   \
     * den <= 0 sets BREAKDOWN, non-finite NAN: nothing changes. */                                \
    OP(kryl_status, fcg_update_p,                                                                  \
       (kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z, kryl_vector p,          \
        kryl_monitor *monitor))                                                                    \
    /* Prepare an inner solve's monitor from the outer one, unguarded: if                          \
     * outer->stop: inner->stop = KRYL_STOP_CONVERGED (the inner solve does                        \
     * nothing); else inner->stop = RUNNING and                                                    \
     * inner->tol2 = max(factor * rr, outer->tol2 / 4): rr is the squared                          \
     * norm of the outer residual the inner solve starts from, and it never                        \
     * aims below half the outer tolerance, which the outer step cannot use.                       \
     * rr.ptr NULL (a right-hand side of norm 1): inner->tol2 = factor.                            \
     * inner->iteration keeps counting. */                                                         \
    OP(kryl_status, monitor_restart,                                                               \
       (kryl_context ctx, kryl_monitor *inner, const kryl_monitor *outer, kryl_scalar rr,          \
        double factor))                                                                            \
                                                                                                   \
    /* ---- algebraic multigrid setup (optional; NULL: the host's code of                          \
     * src/amg/ on the context's threads, where backend memory is host                             \
     * memory, or on copies of the arrays otherwise) ----                                          \
     * amg_tentative: the tentative prolongator of smoothed aggregation for                        \
     * a near-nullspace of one vector B, given by its squares w (backend, n;                       \
     * NULL: B = 1), over aggregate (backend, n; values in [-1, naggregates)):                     \
     * T (n x naggregates, its arrays allocated here in backend memory) has                        \
     * t_ij = sqrt(w_i / wc_j) for row i in aggregate j and no entry in a row                      \
     * of aggregate -1; wc (backend, naggregates) = the sum of w_i over                            \
     * aggregate j, the coarse level's squares (T sqrt(wc) = B).  The w are                        \
     * whole numbers (rows of the finest level), so the sums are exact in                          \
     * any order. */                                                                               \
    OP(kryl_status, amg_tentative,                                                                 \
       (kryl_context ctx, int64_t n, const int32_t *aggregate, int64_t naggregates,                \
        const double *w, double *wc, kryl_backend_csr *T))                                         \
    /* amg_products: one level's products, every matrix in backend memory:                         \
     * A (n x n, double CSR, rows sorted) and T (n x nc) give                                      \
     * P = (I - omega D^-1 A) T (omega = 0: P = T), R = P' and Ac = R A P,                         \
     * allocated here (rows sorted), each entry summed in the backend's own                        \
     * order; when symmetric, Ac = (Ac + Ac') / 2 where Ac' has Ac's pattern                       \
     * (so it is symmetric to the last bit).  perm (backend, n, or NULL):                          \
     * P's row i is then row perm[i] of the natural P, and R = that P' (Ac                         \
     * is the same).  A zero or absent a_ii (omega != 0) is                                        \
     * KRYL_ERR_ZERO_DIAGONAL.  *done = false, and nothing allocated, where                        \
     * the backend cannot take the sizes: the caller then uses the host's                          \
     * code. */                                                                                    \
    OP(kryl_status, amg_products,                                                                  \
       (kryl_context ctx, const kryl_backend_csr *A, const kryl_backend_csr *T, double omega,      \
        bool symmetric, const int32_t *perm, kryl_backend_csr *P, kryl_backend_csr *R,             \
        kryl_backend_csr *Ac, bool *done))                                                         \
    /* The aggregates of a square A stored as double CSR of all its rows in                        \
     * the natural order (kryl_matrix_natural_csr), read where it is stored:                       \
     * the strength graph of amg_strength (j ~ i when |a_ij| >= theta                              \
     * sqrt(|a_ii a_jj|), a_ij != 0, i != j; made symmetric unless                                 \
     * `symmetric`), aggregated as amg_aggregate_parallel does                                     \
     * (src/amg/amg_aggregate.c, the specification; `finest`: A is the                           \
     * hierarchy's first level): aggregate (backend                                                \
     * memory, A's rows) = each row's aggregate, or -1 for a row without                           \
     * strong couplings; *count (host) = the aggregates.  The same result on                       \
     * every backend, whatever its threads; synchronises. */                                       \
    OP(kryl_status, amg_aggregate,                                                                 \
       (kryl_context ctx, kryl_matrix A, double theta, bool symmetric, bool finest,                \
        int32_t *aggregate, int64_t *count))                                                       \
                                                                                                   \
    /* ---- multicolor ordering (optional; NULL: the host colors) ----                             \
     * color_rows: the Jones-Plassmann coloring of the graph of the n x n                          \
     * pattern row_ptr, col_idx (backend memory; rows i != j coupled when                          \
     * a_ij or a_ji is stored, so the pattern need not be symmetric;                               \
     * `symmetric`: the caller knows every a_ji of an a_ij is stored, which                        \
     * a backend otherwise checks where its method needs it):                                      \
     * color[i] (backend memory) = the smallest color of no coupled row of                         \
     * higher priority (kryl_color_yields), the same on every backend as                           \
     * kryl_color_jp_serial, src/order/color_jp.c; *ncolors (host) = the                           \
     * colors used.  Synchronises (it counts the rows left each round). */                         \
    OP(kryl_status, color_rows,                                                                    \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,               \
        bool symmetric, int32_t *color, int32_t *ncolors))                                         \
    /* perm (backend memory, n) = the rows grouped color by color, ascending                       \
     * within a color; color_ptr (host, ncolors + 1) = where each color                            \
     * starts (kryl_color_group_serial).  Synchronises. */                                         \
    OP(kryl_status, color_group,                                                                   \
       (kryl_context ctx, int64_t n, const int32_t *color, int32_t ncolors, int32_t *perm,         \
        int64_t *color_ptr))                                                                       \
    /* color_first_fit: first fit in the natural order of the n x n pattern                        \
     * row_ptr, col_idx (backend memory; columns in [0, n), any order,                             \
     * repeats and the diagonal allowed): color[i] (backend memory) = the                          \
     * smallest color of no row j < i stored in row i, the same on every                           \
     * backend as kryl_color_first_fit_serial, src/order/color.c; every color                      \
     * below *ncolors (host) is used.  On a structurally symmetric pattern                         \
     * this is kryl_order_color's coloring at tau = 0; for another, pass the                       \
     * pattern of A + A^T, or it is no coloring of A's graph.  Synchronises.                       \
     * NULL: the host colors (kryl_color_first_fit_serial). */                                     \
    OP(kryl_status, color_first_fit,                                                               \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,               \
        int32_t *color, int32_t *ncolors))                                                         \
                                                                                                   \
    /* ---- multicolor SSOR sweeps (optional; NULL: mcssor goes through the                        \
     * triangular solves) ----                                                                     \
     * csr_permute: B = P A P^T of the n x n CSR A (backend arrays) by perm                        \
     * (backend, n): row i of B is row perm[i] of A and column j becomes the                       \
     * i with perm[i] = j; B's rows sorted by column (rows of any length),                         \
     * in backend arrays of A's sizes (also --order color's P A P^T).                              \
     * Runs on the context's stream. */                                                            \
    OP(kryl_status, csr_permute,                                                                   \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,               \
        const double *values, const int32_t *perm, int64_t *b_row_ptr, int32_t *b_col_idx,         \
        double *b_values))                                                                         \
    /* mcsweep_setup: the multicolor SSOR(omega) of B in *handle: B (backend                       \
     * arrays, n x n, rows sorted, every b_ii nonzero) holds color k at rows                       \
     * [color_ptr[k], color_ptr[k + 1]) (host), so that its strict lower                           \
     * part (earlier colors) is L, the upper (later colors) U; entries                             \
     * coupling rows of one color are left out of M.  B is borrowed: it must                       \
     * outlive the handle and keep its pattern (new values: set up again). */                      \
    OP(kryl_status, mcsweep_setup,                                                                 \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,               \
        const double *values, const int64_t *color_ptr, int32_t ncolors, double omega,             \
        void **handle))                                                                            \
    /* z = M^{-1} r, M = (D + omega L) D^{-1} (D + omega U) / (omega (2 - omega)):                 \
     * one symmetric sweep from z = 0, color by color forward, then back                           \
     * (r and z distinct, double, n entries); unguarded, no allocation, no                         \
     * synchronisation. */                                                                         \
    OP(kryl_status, mcsweep, (kryl_context ctx, void *handle, kryl_vector r, kryl_vector z))       \
    OP(void, mcsweep_release, (kryl_context ctx, void *handle))                                    \
                                                                                                   \
    /* ---- triangular solves (optional; NULL: the incomplete-factorization                        \
     * preconditioners refuse the backend) ----                                                    \
     * trsv_setup keeps the square triangle T (its rows in the iteration's                         \
     * order, columns sorted; entries of the other triangle must be absent)                        \
     * in backend memory, values in `precision`, with its level schedule                           \
     * (kryl_order_levels: rows level_rows[level_ptr[l] .. level_ptr[l+1])                         \
     * depend only on rows of earlier levels).  unit_diagonal: t_ii = 1 is                         \
     * implied and no diagonal entry is stored; otherwise every row stores                         \
     * its diagonal entry. */                                                                      \
    OP(kryl_status, trsv_setup,                                                                    \
       (kryl_context ctx, const kryl_csr *T, kryl_precision precision, bool lower,                 \
        bool unit_diagonal, const int32_t *level_rows, const int64_t *level_ptr, int64_t nlevels,  \
        void **handle))                                                                            \
    /* x = T^{-1} b (b and x distinct, in the handle's precision); unguarded,                      \
     * no allocation, no synchronisation. */                                                       \
    OP(kryl_status, trsv, (kryl_context ctx, void *handle, kryl_vector b, kryl_vector x))          \
    OP(void, trsv_release, (kryl_context ctx, void *handle))                                       \
    /* How trsv solves the handle's triangle: "serial" (substitution),                             \
     * "levels" (a parallel step per level), "syncfree" (one launch, each                          \
     * row waiting for the x_j it needs) or "host" (copied to the host and                         \
     * back);                                                                                      \
     * a static string.  NULL op: the backend does not say. */                                     \
    OP(const char *, trsv_path, (kryl_context ctx, const void *handle))                            \
                                                                                                   \
    /* ---- incomplete factorizations on the backend (optional; NULL: the                          \
     * preconditioners factor on the host) ----                                                    \
     * IC(0) and ILU(0) on a pattern computed once on the host (P,                                 \
     * src/factor/factor_pattern.h, which must outlive the handle): the                            \
     * numeric factorization in backend memory, exact (the serial                                  \
     * factorization's arithmetic, row by row, each row once the rows it                           \
     * reads are done: by levels or with per-row ready flags), and the two                         \
     * triangles' solve handles built from it.  A refactorization for new                          \
     * values calls factor_numeric and factor_trsv again on the same handle. */                    \
    OP(kryl_status, factor_setup,                                                                  \
       (kryl_context ctx, const struct kryl_factor_pattern *P, void **handle))                     \
    /* C = the IC(0) factor of A + shift diag(A), or the ILU(0) factor of A                        \
     * (shift 0), on P's pattern, the values taken through P->source from                          \
     * A's host CSR values (or the backend's copy of them), or, for a                              \
     * handle of factor_analyse, from the stored CSR it analysed (A's                              \
     * storage); A on one rank.                                                                    \
     * *pivots (host) says where it fails as the serial factorization would                        \
     * (kryl_factor_pivots), and ||A||_inf; it waits for the result. */                            \
    OP(kryl_status, factor_numeric,                                                                \
       (kryl_context ctx, void *handle, kryl_matrix A, double shift,                               \
        struct kryl_factor_pivots *pivots))                                                        \
    /* *trsv NULL: a triangular-solve handle (trsv, trsv_release) of C's                           \
     * lower or upper triangle in `precision`, with P's level schedule;                            \
     * else the values of that handle, built by this op, refreshed from C. */                      \
    OP(kryl_status, factor_trsv,                                                                   \
       (kryl_context ctx, void *handle, bool lower, kryl_precision precision, void **trsv))        \
    OP(void, factor_release, (kryl_context ctx, void *handle))                                     \
    /* The symbolic part on the backend (optional, both or neither; NULL:                          \
     * the host builds P and factor_setup takes it).  factor_analyse: a                            \
     * handle as factor_setup makes one, for the pattern of IC(0) (ic) or                          \
     * ILU(0) of the n x n CSR A (row_ptr, col_idx in backend memory,                              \
     * columns sorted: A's storage, in the factor's order), each entry's                           \
     * value source its position in A, computed where A lives with no host                         \
     * copy of its indices; *shape (host) gets its sizes but for the                               \
     * levels.  A row without a diagonal entry is refused as                                       \
     * kryl_factor_pattern_build refuses it (`who` names the caller).                              \
     * factor_schedule: the level schedules of the handle's two triangles                          \
     * (those of kryl_order_levels, rows ascending within a level), and                            \
     * their counts into *shape; before factor_numeric.  Both synchronise. */                      \
    OP(kryl_status, factor_analyse,                                                                \
       (kryl_context ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx, bool ic,      \
        const char *who, struct kryl_factor_shape *shape, void **handle))                          \
    OP(kryl_status, factor_schedule,                                                               \
       (kryl_context ctx, void *handle, struct kryl_factor_shape *shape))                          \
    /* out = max_i |x_i| (rank-local; a NaN counts as +Inf), unguarded */                          \
    OP(kryl_status, amax, (kryl_context ctx, kryl_vector x, kryl_scalar out))
// clang-format on

/* A member of the table: a pointer to the operation. */
#define KRYL_BACKEND_OP_MEMBER(ret, name, params) ret(*name) params;

/* The function type of each operation, kryl_backend_op_<name>: an
 * implementation several backends share is declared with it
 * (`kryl_backend_op_copy_wait kryl_host_copy_wait;`), its signature
 * written in the list alone. */
#define KRYL_BACKEND_OP_TYPE(ret, name, params) typedef ret kryl_backend_op_##name params;
KRYL_BACKEND_OPS(KRYL_BACKEND_OP_TYPE)

typedef struct kryl_backend_ops {
    const char *name;
    int check_interval; /* default iterations between convergence checks */
    unsigned formats;   /* bit (1u << kryl_format) for each format with an SpMV kernel */
    bool device_memory; /* backend memory is a device's (cuda), not the host's (ref, omp) */

    KRYL_BACKEND_OPS(KRYL_BACKEND_OP_MEMBER)
} kryl_backend_ops;

/* chebyshev_step's d may be NULL only where beta = 0 leaves it unread. */
static inline kryl_status kryl_chebyshev_step_check(const char *backend, kryl_vector d, double beta)
{
    if (d == NULL && beta != 0.0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s chebyshev_step: beta = %g reads d, given as NULL", backend, beta);
    return KRYL_SUCCESS;
}

/* Release M's arrays (backend memory) and empty it. */
static inline void kryl_backend_csr_release(kryl_context ctx, kryl_backend_csr *M)
{
    ctx->ops->release(ctx, M->row_ptr);
    ctx->ops->release(ctx, M->col_idx);
    ctx->ops->release(ctx, M->values);
    M->row_ptr = NULL;
    M->col_idx = NULL;
    M->values = NULL;
    M->nrows = M->ncols = M->nnz = 0;
}

/* The backends compiled into this build (NULL when absent). */
const kryl_backend_ops *kryl_backend_ref(void);
const kryl_backend_ops *kryl_backend_omp(void);
const kryl_backend_ops *kryl_backend_cuda(void);

/* The cuda backend's answer to "is a device usable?" (false without CUDA). */
bool kryl_cuda_device_present(void);

#ifdef __cplusplus
}
#endif

#endif
