/*
 * kryl — preconditioned Krylov solvers for large sparse linear systems
 * on NVIDIA GPUs (cuda), multi-core CPUs (omp) and a plain serial
 * reference (ref).
 *
 * This is the whole public C API.  Conventions:
 *   - Handles are opaque and distinct per object kind.
 *   - Constructors take `T *out` first and set `*out = NULL` before they
 *     check anything; destructors take `T *h`, free, set `*h = NULL` and
 *     accept NULL.
 *   - Every call returns a kryl_status; 0 (KRYL_SUCCESS) is success.
 *     On failure kryl_last_error() says what was wrong.
 *   - Whether a solve converged is a *result* (kryl_result.reason), not an
 *     error: a solve that runs out of iterations returns KRYL_SUCCESS.
 *   - Indices at the API are 64-bit and global; matrices own a contiguous
 *     range of rows (the whole matrix in a single process).
 */
#ifndef KRYL_H
#define KRYL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KRYL_VERSION_MAJOR 0
#define KRYL_VERSION_MINOR 1
#define KRYL_VERSION_PATCH 0

/* Opaque handles: a distinct type per object so the compiler catches mix-ups. */
typedef struct kryl_context_s *kryl_context;   /* backend, device, stream, reductions */
typedef struct kryl_matrix_s *kryl_matrix;     /* a sparse matrix (owned rows) */
typedef struct kryl_assembly_s *kryl_assembly; /* entries being collected into a matrix */
typedef struct kryl_vector_s *kryl_vector;     /* a dense vector laid out like a matrix's rows */
typedef struct kryl_solver_s *kryl_solver;     /* a method, its preconditioner and workspace */

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/* 0 is success; negative values are errors, grouped by class:
 * -1..-19 usage, -20..-39 input data, -40..-59 resources, -60.. internal. */
typedef enum kryl_status {
    KRYL_SUCCESS = 0,
    /* usage errors: the caller passed something invalid */
    KRYL_ERR_INVALID_ARGUMENT = -1,    /* NULL handle, negative size, bad option */
    KRYL_ERR_DIMENSION_MISMATCH = -2,  /* sizes of the operands disagree */
    KRYL_ERR_CONTEXT_MISMATCH = -3,    /* objects from different contexts */
    KRYL_ERR_UNSUPPORTED = -4,         /* valid request this build cannot do */
    KRYL_ERR_BACKEND_UNAVAILABLE = -5, /* backend not compiled in or no device */
    /* input data errors: the matrix or file cannot be used as asked */
    KRYL_ERR_IO = -20,                    /* a file cannot be opened, read or written */
    KRYL_ERR_PARSE = -21,                 /* a Matrix Market file is malformed */
    KRYL_ERR_NOT_SQUARE = -22,            /* solver or preconditioner needs n x n */
    KRYL_ERR_NOT_SYMMETRIC = -23,         /* CG needs a symmetric matrix */
    KRYL_ERR_ZERO_DIAGONAL = -24,         /* a preconditioner divides by a_ii = 0 */
    KRYL_ERR_NOT_POSITIVE_DEFINITE = -25, /* a non-positive pivot or diagonal */
    KRYL_ERR_INDEX_OVERFLOW = -26,        /* an index does not fit the index type */
    KRYL_ERR_INVALID_VALUE = -27,         /* NaN or Inf in the input */
    KRYL_ERR_INDEX_OUT_OF_RANGE = -28,    /* an entry outside the matrix */
    KRYL_ERR_FORMAT_UNSUITABLE = -29,     /* a storage format would cost too much for this matrix */
    /* resource errors */
    KRYL_ERR_OUT_OF_MEMORY = -40,        /* host allocation failed */
    KRYL_ERR_DEVICE_OUT_OF_MEMORY = -41, /* device allocation failed */
    KRYL_ERR_DEVICE = -42,               /* a device call failed */
    /* internal */
    KRYL_ERR_INTERNAL = -60
} kryl_status;

/* A short fixed description of a status code ("dimension mismatch"). */
const char *kryl_strerror(kryl_status status);

/* The message of the most recent failing kryl call on the calling thread,
 * naming what was wrong ("A.mtx:12: expected 3 fields, found 2").  Empty
 * when no call has failed. */
const char *kryl_last_error(void);

/* Where in kryl's sources that error was raised ("src/io/mtx_read.c:120"),
 * for bug reports; empty when no call has failed. */
const char *kryl_last_error_location(void);

/* ------------------------------------------------------------------ */
/* Enumerations                                                        */
/* ------------------------------------------------------------------ */

typedef enum kryl_backend_kind {
    KRYL_BACKEND_AUTO = 0, /* cuda if a GPU is usable, else omp, else ref */
    KRYL_BACKEND_REF = 1,  /* plain serial C: the reference every backend is checked against */
    KRYL_BACKEND_OMP = 2,  /* OpenMP on the host's cores */
    KRYL_BACKEND_CUDA = 3  /* NVIDIA GPU */
} kryl_backend_kind;

typedef enum kryl_precision {
    KRYL_DOUBLE = 0,
    KRYL_SINGLE = 1,
    /* solver option only: double-precision accuracy from single-precision
     * inner solves (kryl_solver_options.mixed picks the scheme) */
    KRYL_MIXED = 2
} kryl_precision;

typedef enum kryl_method {
    KRYL_METHOD_CG = 0,       /* conjugate gradients; with a preconditioner it is PCG */
    KRYL_METHOD_PCG = 1,      /* preconditioned CG (Jacobi unless another is chosen) */
    KRYL_METHOD_PIPECG = 2,   /* pipelined (P)CG: one fused reduction per iteration */
    KRYL_METHOD_GMRES = 3,    /* restarted GMRES(m), right-preconditioned; nonsymmetric A */
    KRYL_METHOD_BICGSTAB = 4, /* BiCGSTAB, right-preconditioned; nonsymmetric A */
    /* Chosen from A (docs/SOLVERS.md, "The default"): PCG with IC(0) for a
     * matrix symmetric up to symmetry_tol with a positive diagonal, GMRES with
     * ILU(0) otherwise, each falling back to other preconditioners when one
     * refuses A or its solve does not converge; kryl_solver_choice says what
     * was chosen and why */
    KRYL_METHOD_AUTO = 5
} kryl_method;

/* Mixed-precision schemes (docs/SOLVERS.md): the outer iteration and the
 * residual are double, the inner solves single. */
typedef enum kryl_mixed_scheme {
    KRYL_MIXED_NONE = 0,        /* one precision throughout (options.precision) */
    KRYL_MIXED_IR = 1,          /* iterative refinement: x += A^{-1} r solved in single */
    KRYL_MIXED_INNER_OUTER = 2, /* flexible CG / FGMRES preconditioned by single inner solves */
    KRYL_MIXED_RELIABLE = 3     /* one single-precision CG whose residual is replaced by the
                                   double b - A x whenever it has fallen by inner_rtol */
} kryl_mixed_scheme;

/* Pipelined CG on the host's cores and the GPU together (Tiwari &
 * Vadhiyar, "Efficient executions of pipelined conjugate gradient method
 * on heterogeneous architectures"; docs/HYBRID.md), for pipecg and pcg.
 * The solver's context is the device side; the host side runs on the
 * host's cores (omp, else ref). */
typedef enum kryl_hybrid {
    KRYL_HYBRID_NONE = 0,   /* one backend */
    KRYL_HYBRID_DOTS = 1,   /* Hybrid-PIPECG-1: the device runs the updates, preconditioner
                               and SpMV; the host the three dot products, from r, u, w copied
                               on a second stream while the device runs PC + SpMV */
    KRYL_HYBRID_MIRROR = 2, /* Hybrid-PIPECG-2: only n = A m crosses the link; the host
                               updates its own copies of the vectors for the dot products
                               (Jacobi or no preconditioner) */
    KRYL_HYBRID_SPLIT = 3,  /* Hybrid-PIPECG-3: rows split between the host and the device by
                               a model of their SpMV speeds measured at setup, each side's
                               SpMV in a part needing only its own entries of m and a part
                               needing the other side's (Jacobi or no preconditioner) */
    KRYL_HYBRID_AUTO = 4    /* a matrix the device holds: SPLIT where the bandwidth model
                               predicts the host's rows pay for the exchange, else one
                               backend, decided before any host side is built (always one
                               without a GPU); one it does not hold: SPLIT, measured */
} kryl_hybrid;

typedef enum kryl_precond_kind {
    KRYL_PRECOND_NONE = 0,
    KRYL_PRECOND_JACOBI = 1,  /* M = diag(A) */
    KRYL_PRECOND_LSPOLY = 2,  /* M^-1 = s(A), a least-squares polynomial (SPD A only) */
    KRYL_PRECOND_IC0 = 3,     /* M = L L^T, incomplete Cholesky, no fill (symmetric A) */
    KRYL_PRECOND_MIC0 = 4,    /* IC(0) of A + alpha diag(A), alpha grown until it exists */
    KRYL_PRECOND_ILU0 = 5,    /* M = L U, incomplete LU with the pattern of A */
    KRYL_PRECOND_ILUK = 6,    /* ILU(k): fill of level <= options.fill */
    KRYL_PRECOND_ILUT = 7,    /* ILUT(droptol, maxfill): threshold dropping */
    KRYL_PRECOND_BJACOBI = 8, /* block Jacobi: IC(0)/ILU(0) of options.blocks diagonal blocks */
    KRYL_PRECOND_MCSSOR = 9,  /* multicolor SSOR: options.sweeps symmetric sweeps, omega */
    KRYL_PRECOND_MCILU0 = 10, /* multicolor ILU(0): ILU(0) of A in a greedy color order */
    KRYL_PRECOND_AMG = 11,    /* algebraic multigrid, one cycle per apply (options.amg) */
    KRYL_PRECOND_ILUTP = 12   /* ILUT with column pivoting (Saad): A Q ~ L U, never a zero pivot */
} kryl_precond_kind;

/* Algebraic multigrid (docs/PRECONDITIONERS.md): the smoother of every
 * level but the coarsest, which is solved directly. */
typedef enum kryl_amg_smoother {
    KRYL_AMG_AUTO_SMOOTHER = 0, /* ILU(0) for a nonsymmetric A (beyond symmetry_tol) on a host
                                   backend, or on a device up to 65536 rows (its factorization is
                                   built on the host); else Chebyshev */
    KRYL_AMG_CHEBYSHEV = 1,     /* Chebyshev polynomial in D^-1 A of degree `sweeps` (default 1
                                   under smoothed aggregation on a device, else 2) */
    KRYL_AMG_JACOBI = 2,        /* damped Jacobi, omega = 4/(3 lambda_max(D^-1 A)) */
    KRYL_AMG_L1JACOBI = 3,      /* l1-Jacobi: D_ii = sum_j |a_ij| (no damping to choose) */
    KRYL_AMG_MCGS = 4,          /* multicolor symmetric Gauss-Seidel (mcssor with omega 1) */
    KRYL_AMG_ILU0 = 5 /* multicolor ILU(0) (mcilu0; IC(0) on a symmetric level under a CG method),
                         over ranks of each rank's rows; holds the convection-dominated couplings
                         a pointwise smoother misses (default sweeps 2) */
} kryl_amg_smoother;

typedef enum kryl_amg_cycle {
    KRYL_AMG_V_CYCLE = 0, /* one coarse correction per level */
    KRYL_AMG_W_CYCLE = 1  /* two coarse corrections per level */
} kryl_amg_cycle;

/* How the prolongator is made from the aggregates. */
typedef enum kryl_amg_aggregation {
    KRYL_AMG_AUTO_AGGREGATION = 0, /* smoothed for a symmetric A (up to symmetry_tol), else
                                      plain */
    KRYL_AMG_SMOOTHED = 1, /* smoothed aggregation: P = (I - omega D^-1 A) T (symmetric A) */
    KRYL_AMG_PLAIN = 2     /* plain aggregation: P = T, the tentative prolongator; sparser
                              coarse levels, the usual choice for nonsymmetric A */
} kryl_amg_aggregation;

/* How the aggregates are found. */
typedef enum kryl_amg_coarsening {
    KRYL_AMG_GREEDY = 0, /* standard aggregation in row order (serial); stencil-sized aggregates */
    KRYL_AMG_MIS2 = 1,   /* roots from a distance-2 maximal independent set by hashed row
                            order (parallel); larger aggregates, more iterations */
    KRYL_AMG_PARALLEL = 2,       /* the same set's roots, more aggregates between them, the rest
                                    joining their best neighbour's (Kelley & Rajamanickam 2022); on
                                    the backend (the device for cuda), the same on every backend */
    KRYL_AMG_AUTO_COARSENING = 3 /* parallel on a device backend (cuda, one rank): its setup
                                    on the GPU outweighs greedy's fewer iterations; greedy on
                                    the host's backends and over ranks (docs/BENCHMARKS.md) */
} kryl_amg_coarsening;

/* Options of KRYL_PRECOND_AMG (kryl_solver_options.amg). */
typedef struct kryl_amg_options {
    double theta;                     /* strength: |a_ij| >= theta sqrt(|a_ii a_jj|); default 0 */
    kryl_amg_smoother smoother;       /* default KRYL_AMG_AUTO_SMOOTHER */
    int sweeps;                       /* pre- and post-smoothing sweeps (Chebyshev: the degree);
                                       * 0 = 2 for ILU(0), for Chebyshev 1 under smoothed
                                       * aggregation on a device and else 2, 1 for the others */
    kryl_amg_cycle cycle;             /* default KRYL_AMG_V_CYCLE */
    kryl_amg_aggregation aggregation; /* default KRYL_AMG_AUTO_AGGREGATION */
    kryl_amg_coarsening coarsening;   /* default KRYL_AMG_AUTO_COARSENING */
    int coarse_size;                  /* coarsening stops at this many rows or fewer, which are
                                       * solved by a dense inverse; default 400 (at most 4000) */
    int max_levels;                   /* levels at most, the finest included; default 20 */
    /* The near-nullspace B: k vectors the coarse spaces reproduce exactly
     * (the constant when NULL; the six rigid-body modes for elasticity:
     * kryl_amg_rigid_body_modes).  n x k, column by column, in the
     * matrix's original row order; read during kryl_solver_create only. */
    const double *nullspace;
    int nullspace_vectors; /* k, 1..KRYL_AMG_MAX_NULLSPACE */
    /* The coarse levels' strength threshold: their Galerkin operators take
     * max(theta, coarse_theta); default 0.02 (0: theta on every level, where
     * a new-values update gives what a fresh setup gives). */
    double coarse_theta;
} kryl_amg_options;

#define KRYL_AMG_MAX_NULLSPACE 12
#define KRYL_AMG_MAX_LEVELS    32

/* Reorderings of rows and columns (symmetric, P A P^T) applied before a
 * storage format's own row sort; invisible to the caller (docs/ORDERINGS.md). */
typedef enum kryl_order_kind {
    KRYL_ORDER_NONE = 0, /* natural order */
    KRYL_ORDER_RCM = 1,  /* reverse Cuthill-McKee: small bandwidth and profile */
    KRYL_ORDER_AMD = 2,  /* approximate minimum degree (SuiteSparse): little fill, few levels */
    KRYL_ORDER_COLOR = 3 /* rows grouped color by color (greedy multicoloring) */
} kryl_order_kind;

/* How block Jacobi splits the rows into blocks (docs/PRECONDITIONERS.md). */
typedef enum kryl_partition_kind {
    KRYL_PARTITION_AUTO = 0,       /* metis when the build has METIS, else contiguous */
    KRYL_PARTITION_CONTIGUOUS = 1, /* contiguous row ranges balanced by nonzeros */
    KRYL_PARTITION_METIS = 2       /* METIS k-way parts of the graph: fewer couplings dropped */
} kryl_partition_kind;

/* How GMRES orthogonalises each new Krylov vector (docs/SOLVERS.md). */
typedef enum kryl_orthog {
    KRYL_ORTHOG_AUTO = 0, /* the default: DCGS2 */
    KRYL_ORTHOG_CGS2 = 1, /* classical Gram-Schmidt twice: two dot and two update passes a step */
    KRYL_ORTHOG_DCGS2 = 2 /* CGS2 with the second pass delayed a step: one dot (one reduction)
                           * and one update pass a step */
} kryl_orthog;

/* Storage formats for SpMV (see docs/FORMATS.md). */
typedef enum kryl_format {
    KRYL_FORMAT_AUTO = 0,  /* chosen by the bandwidth model (or by timing, with tune) */
    KRYL_FORMAT_CSR = 1,   /* compressed rows; scalar or vector kernel by row lengths */
    KRYL_FORMAT_ELL = 2,   /* ELLPACK: every row padded to the longest */
    KRYL_FORMAT_ELLR = 3,  /* ELLPACK-R: ELLPACK plus row lengths, padding skipped */
    KRYL_FORMAT_JDS = 4,   /* jagged diagonals, rows sorted by length */
    KRYL_FORMAT_PJDS = 5,  /* padded JDS: SELL-C-sigma with sigma = n */
    KRYL_FORMAT_SELL = 6,  /* sliced ELLPACK, rows sorted within windows of sigma */
    KRYL_FORMAT_BCSR2 = 7, /* blocked CSR, dense 2x2 blocks */
    KRYL_FORMAT_BCSR4 = 8, /* blocked CSR, dense 4x4 blocks */
    KRYL_FORMAT_DIA = 9    /* diagonals */
} kryl_format;

/* Why a solve stopped.  Only the CONVERGED_* reasons mean the true
 * residual met the tolerance.  Whatever the reason, the x returned is the
 * iterate with the smallest true residual the solve computed (x0's
 * included), so it is never worse than the initial guess. */
typedef enum kryl_reason {
    KRYL_REASON_NONE = 0,              /* not solved yet */
    KRYL_CONVERGED_RTOL = 1,           /* ||b - Ax|| <= rtol ||b|| */
    KRYL_CONVERGED_ATOL = 2,           /* ||b - Ax|| <= atol (atol > rtol ||b||) */
    KRYL_CONVERGED_ZERO_RHS = 3,       /* b = 0: x = 0 is exact */
    KRYL_DIVERGED_MAX_ITERATIONS = -1, /* iteration limit reached */
    KRYL_DIVERGED_BREAKDOWN = -2,      /* a division by zero or an indefinite p'Ap */
    KRYL_DIVERGED_NAN = -3,            /* a NaN or Inf appeared in the iteration */
    KRYL_DIVERGED_DTOL = -4,           /* ||r|| > dtol ||b - A x0||: the iteration diverged */
    KRYL_DIVERGED_STAGNATION = -5,     /* residual replacements stopped lowering ||b - Ax|| */
    KRYL_DIVERGED_INDEFINITE_PC = -6   /* a CG method met r'M^-1 r <= 0: the preconditioner is
                                          not positive definite */
} kryl_reason;

const char *kryl_backend_name(kryl_backend_kind kind);
const char *kryl_precision_name(kryl_precision precision);
const char *kryl_method_name(kryl_method method);
const char *kryl_precond_name(kryl_precond_kind precond);
const char *kryl_reason_name(kryl_reason reason);
const char *kryl_format_name(kryl_format format);
const char *kryl_order_name(kryl_order_kind kind); /* "none", "rcm", "amd", "color" */
const char *kryl_partition_name(kryl_partition_kind kind);
const char *kryl_amg_smoother_name(kryl_amg_smoother smoother); /* "chebyshev", "jacobi", ... */
const char *kryl_amg_cycle_name(kryl_amg_cycle cycle);          /* "v", "w" */
const char *kryl_amg_aggregation_name(kryl_amg_aggregation aggregation); /* "auto", "sa", ... */
const char *
kryl_amg_coarsening_name(kryl_amg_coarsening coarsening); /* "greedy", "mis2", "parallel", "auto" */

/* Parse a name ("cg", "jacobi", "cuda", "single", ...) into its enum.
 * KRYL_ERR_INVALID_ARGUMENT with a message listing the valid names. */
kryl_status kryl_backend_from_name(const char *name, kryl_backend_kind *kind);
kryl_status kryl_precision_from_name(const char *name, kryl_precision *precision);
kryl_status kryl_method_from_name(const char *name, kryl_method *method);
kryl_status kryl_precond_from_name(const char *name, kryl_precond_kind *precond);
const char *kryl_mixed_scheme_name(kryl_mixed_scheme scheme);
/* The inner_rtol that 0 stands for under `scheme`: 1e-6, or 1e-2 for
 * KRYL_MIXED_RELIABLE (the drop between refreshes of its one inner CG). */
double kryl_mixed_default_inner_rtol(kryl_mixed_scheme scheme);
kryl_status kryl_mixed_scheme_from_name(const char *name, kryl_mixed_scheme *scheme);
const char *kryl_hybrid_name(kryl_hybrid hybrid); /* "none", "1", "2", "3", "auto" */
kryl_status kryl_hybrid_from_name(const char *name, kryl_hybrid *hybrid);
kryl_status kryl_format_from_name(const char *name, kryl_format *format);
kryl_status kryl_order_from_name(const char *name, kryl_order_kind *kind);
kryl_status kryl_partition_from_name(const char *name, kryl_partition_kind *kind);
kryl_status kryl_amg_smoother_from_name(const char *name, kryl_amg_smoother *smoother);
kryl_status kryl_amg_cycle_from_name(const char *name, kryl_amg_cycle *cycle);
kryl_status kryl_amg_aggregation_from_name(const char *name, kryl_amg_aggregation *aggregation);
kryl_status kryl_amg_coarsening_from_name(const char *name, kryl_amg_coarsening *coarsening);

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

typedef enum kryl_log_level {
    KRYL_LOG_ERROR = 0,
    KRYL_LOG_WARNING = 1,
    KRYL_LOG_INFO = 2,
    KRYL_LOG_DEBUG = 3
} kryl_log_level;

/* Receives log lines; never called from inside a solver iteration in a way
 * that forces a device synchronisation. */
typedef void (*kryl_log_fn)(kryl_log_level level, const char *message, void *user);

typedef struct kryl_context_options {
    kryl_backend_kind backend; /* default KRYL_BACKEND_AUTO */
    int device;                /* CUDA device ordinal; default 0 */
    int threads;               /* omp threads; 0 = OpenMP's default */
    kryl_log_fn log;           /* NULL: no logging */
    void *log_user;            /* passed back to log */
    kryl_log_level log_level;  /* lines above this level are dropped; default WARNING */
    /* Bitwise reproducible results: x and the residual history the same
     * from run to run on the same device (on cuda, setup makes no choice
     * by timing; tune is refused).  What is promised with and without it:
     * docs/RELIABILITY.md.  Default false. */
    bool deterministic;
} kryl_context_options;

/* Fill *options with the defaults listed above. */
void kryl_context_options_init(kryl_context_options *options);

/* Create a context: picks and initialises the backend (device, stream).
 *   ctx      out: the new context, NULL on failure
 *   options  NULL for the defaults */
kryl_status kryl_context_create(kryl_context *ctx, const kryl_context_options *options);

/* Destroy a context.  All objects created against it must be destroyed
 * first: while any is alive the call is refused (KRYL_ERR_INVALID_ARGUMENT,
 * naming how many) and the context stays usable. */
kryl_status kryl_context_destroy(kryl_context *ctx);

/* The backend the context resolved to (never KRYL_BACKEND_AUTO). */
kryl_backend_kind kryl_context_backend(kryl_context ctx);

/* Whether a backend is compiled in and usable on this machine
 * (for cuda: a device is present and answers). */
bool kryl_backend_available(kryl_backend_kind kind);

/* A one-line description of the backend's device ("NVIDIA H100 80GB HBM3,
 * 132 SMs" or "8 OpenMP threads"). */
const char *kryl_context_device_name(kryl_context ctx);

/* Whether the context was created with options.deterministic. */
bool kryl_context_deterministic(kryl_context ctx);

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* Before kryl allocates arrays sized by a Matrix Market file's size line
 * or a generator's size, it estimates the host bytes they need and refuses
 * (KRYL_ERR_OUT_OF_MEMORY, naming the file and line, or the generator, and
 * the bytes) when they exceed a limit: by default the memory available
 * (MemAvailable of /proc/meminfo), or the KRYL_MAX_MEMORY environment
 * variable ("64G"; "0" for no limit).  This call sets the limit for the
 * whole process and takes precedence over both.
 *   bytes  > 0: the limit;  0: back to the default;  -1: no limit */
kryl_status kryl_set_max_memory(int64_t bytes);

/* Parse a size such as "123", "64k", "512M", "8G", "8GiB" or "1T" (powers
 * of 1024) into *bytes (KRYL_ERR_INVALID_ARGUMENT otherwise). */
kryl_status kryl_parse_bytes(const char *text, int64_t *bytes);

/* Device memory.  A context on a GPU counts the bytes it allocates there
 * (matrices and their formats, preconditioners, vectors, solver workspace)
 * and refuses an allocation beyond its cap, or one the device cannot hold,
 * with KRYL_ERR_DEVICE_OUT_OF_MEMORY: the message names what was being
 * allocated and the bytes asked, whatever the failing call had allocated
 * is freed, and the context stays usable (a smaller problem can follow). */
typedef struct kryl_device_memory {
    int64_t in_use;    /* bytes the context holds on its device now */
    int64_t peak;      /* the most it has held at once */
    int64_t limit;     /* its cap; 0: none */
    int64_t available; /* what it may allocate still: the device's free memory, at
                        * most limit - in_use under a cap */
    int64_t total;     /* the device's memory */
} kryl_device_memory;

/* Cap the device memory ctx may hold at `bytes` from now on (0: no cap).
 * The default is the KRYL_GPU_MEMORY environment variable ("2G", as
 * kryl_parse_bytes reads it) when the context is created, else no cap.
 * A cap below what is in use frees nothing: later allocations are
 * refused.  On a context without a device (ref, omp) nothing is refused:
 * the cap is only recorded, and the hybrid split (options.hybrid), whose
 * device side such a context can stand in for, sizes that side by it. */
kryl_status kryl_context_set_gpu_memory(kryl_context ctx, int64_t bytes);

/* Fill *info with ctx's device memory (on a context without a device all
 * zero but a recorded cap: limit and available). */
kryl_status kryl_context_device_memory(kryl_context ctx, kryl_device_memory *info);

/* Whether matrices created on ctx from now on (kryl_matrix_create_csr,
 * kryl_matrix_generate, kryl_matrix_read_mtx, kryl_assembly_finish) wait
 * to build their backend storage until a step needs the whole matrix
 * there (default: built at creation).  The hybrid split (options.hybrid 3,
 * or auto where it splits) needs only the device's rows there, so a matrix
 * larger than the GPU's memory can be solved; a step that needs the whole
 * matrix there (another method, a preconditioner other than Jacobi,
 * kryl_matrix_spectrum) builds it then, or fails naming itself; a format
 * conversion builds its own copy (on cuda from the whole matrix's storage,
 * built first); kryl_matrix_spmv multiplies on the host.
 * One process only: KRYL_ERR_UNSUPPORTED on a distributed context. */
kryl_status kryl_context_defer_matrix_storage(kryl_context ctx, bool defer);

/* ------------------------------------------------------------------ */
/* Distributed runs (docs/DISTRIBUTED.md)                              */
/* ------------------------------------------------------------------ */

/* A context made by kryl_context_create_mpi (include/kryl_mpi.h) spans
 * the ranks of a communicator; every other context is one rank of one.
 * On a distributed context, calls that create or convert matrices,
 * solvers and the *_global vector calls are collective: every rank makes
 * them in the same order. */

/* How a distributed SpMV overlaps its halo exchange with computation
 * (Kreutzer et al. 2012, section 3). */
typedef enum kryl_overlap {
    KRYL_OVERLAP_VECTOR = 0, /* exchange, then the whole product: no overlap */
    KRYL_OVERLAP_NAIVE = 1,  /* post the exchange, local product, wait, non-local product */
    KRYL_OVERLAP_TASK = 2    /* a communication thread exchanges during the local product */
} kryl_overlap;

const char *kryl_overlap_name(kryl_overlap overlap); /* "vector", "naive", "task" */
kryl_status kryl_overlap_from_name(const char *name, kryl_overlap *overlap);

/* This process's rank and the number of ranks (0 and 1 without MPI). */
kryl_status kryl_context_rank(kryl_context ctx, int *rank, int *size);

/* The overlap mode of the context's SpMVs from now on (default
 * KRYL_OVERLAP_NAIVE; no effect on one rank).  Task mode needs MPI
 * threads (MPI_THREAD_SERIALIZED or more): without them naive is used
 * and a warning is logged. */
kryl_status kryl_context_set_overlap(kryl_context ctx, kryl_overlap overlap);

/* How kryl_matrix_read_mtx distributes the rows it reads on rank 0 (default
 * KRYL_PARTITION_CONTIGUOUS): contiguous ranges balanced by nonzeros, or
 * METIS parts (the rows are then renumbered part by part; use
 * kryl_vector_set_global/get_global to see vectors in the file's order). */
kryl_status kryl_context_set_partition(kryl_context ctx, kryl_partition_kind partition);

/* One rank's part of a distributed matrix and what its SpMVs cost. */
typedef struct kryl_dist_info {
    int rank, size;
    int64_t rows;       /* owned rows */
    int64_t nnz;        /* owned entries */
    int64_t ghosts;     /* columns of other ranks the owned rows use (the halo) */
    int neighbours;     /* ranks exchanged with */
    int64_t bytes_sent; /* bytes one double-precision SpMV sends */
    int64_t spmvs;      /* distributed SpMVs on the context so far */
    double compute_s;   /* time in local and non-local products */
    double comm_s;      /* packing, posting and unpacking the exchange */
    double wait_s;      /* blocked waiting for messages */
} kryl_dist_info;

/* Fill *info for A on this rank (times: the context's SpMVs since its
 * creation or the last reset).  Works on one rank too (no halo). */
kryl_status kryl_matrix_dist_info(kryl_matrix A, kryl_dist_info *info);

/* Zero the context's SpMV counters and times. */
kryl_status kryl_context_reset_dist_stats(kryl_context ctx);

/* ------------------------------------------------------------------ */
/* Matrices                                                            */
/* ------------------------------------------------------------------ */

/* Create a matrix from host CSR arrays of the rows [row_begin, row_end).
 *   A             out: the matrix, NULL on failure
 *   ctx           the context that will own it
 *   nrows, ncols  global dimensions
 *   row_begin     first owned row (0 in a single process)
 *   row_end       one past the last owned row (nrows in a single process)
 *   row_ptr       row_end - row_begin + 1 offsets, row_ptr[0] = 0
 *   col_idx       row_ptr[last] global column indices, 0-based
 *   values        row_ptr[last] values
 * Duplicates in a row are summed; columns need not be sorted.  The arrays
 * are copied.  Values, and the sums of duplicates, must be finite
 * (KRYL_ERR_INVALID_VALUE naming the entry). */
kryl_status kryl_matrix_create_csr(kryl_matrix *A, kryl_context ctx, int64_t nrows, int64_t ncols,
                                   int64_t row_begin, int64_t row_end, const int64_t *row_ptr,
                                   const int64_t *col_idx, const double *values);

/* Create an nrows x ncols matrix from CSR arrays in memory the context's
 * backend addresses: device memory of its GPU for cuda (a CuPy or PyTorch
 * CSR matrix's arrays, the offsets as int64), host memory for ref and omp.
 *   row_ptr  nrows + 1 offsets, row_ptr[0] = 0, row_ptr[nrows] = nnz
 *   col_idx  nnz 0-based columns, ascending without repeats in each row
 *   values   nnz finite values
 * The arrays are checked where they are (for cuda by kernels on the device;
 * a fault is KRYL_ERR_INVALID_ARGUMENT, _INDEX_OUT_OF_RANGE or
 * _INVALID_VALUE naming its row) and copied (device to device for cuda).
 * On cuda the matrix then has no host copy: SpMV, vectors, the symmetry
 * and diagonal checks (kryl_matrix_asymmetry, kryl_matrix_is_symmetric, those
 * of cg, pcg and pipecg) and a solve whose setup runs on the device (any
 * method but auto, no preconditioner or jacobi, in csr, double precision,
 * no ordering) never make one, nor a solve's copy of it in single-precision
 * CSR (rounded on the device); any host-side step (another preconditioner's
 * setup, method or format auto, another conversion, a mixed-precision scheme,
 * csr_view, statistics, writing, update_values) downloads it once, and
 * kryl_matrix_host_copy says which.  One process (KRYL_ERR_UNSUPPORTED on
 * a distributed context). */
kryl_status kryl_matrix_create_csr_device(kryl_matrix *A, kryl_context ctx, int64_t nrows,
                                          int64_t ncols, int64_t nnz, const int64_t *row_ptr,
                                          const int32_t *col_idx, const double *values);

/* Whether A has a host copy, and why: *why is "" for a matrix created from
 * host data (the copy is where it came from), else the step that
 * downloaded it ("the ic0 preconditioner", "the analysis of method auto",
 * ...), "" while there is none.  Either pointer may be NULL. */
kryl_status kryl_matrix_host_copy(kryl_matrix A, bool *has_copy, const char **why);

/* Read a Matrix Market file (.mtx or .mtx.gz): coordinate or array;
 * real, integer or pattern (pattern entries read as 1, with a warning
 * through the context's log); general,
 * symmetric or skew-symmetric (expanded to both triangles).  On a
 * distributed context it is collective: rank 0 reads and distributes the
 * rows (kryl_context_set_partition). */
kryl_status kryl_matrix_read_mtx(kryl_matrix *A, kryl_context ctx, const char *path);

/* Whether A was read from a Matrix Market pattern file: it had no values,
 * every stored entry is 1 (kryl_matrix_read_mtx also logs a warning). */
bool kryl_matrix_is_pattern(kryl_matrix A);

/* The phases of reading a Matrix Market file into a matrix, each timed on
 * its own (wall clock).  The parse and the building of the rows run on all
 * of OpenMP's threads. */
typedef enum kryl_read_phase {
    KRYL_READ_PARSE = 0, /* lines into entries (symmetric storage mirrored) */
    KRYL_READ_ROWS,      /* the entries counted and placed by row */
    KRYL_READ_SORT,      /* each row sorted by column, its duplicates summed */
    KRYL_READ_CHECKS,    /* the solve's memory estimate (kryl_matrix_read_mtx_for_solve) */
    KRYL_READ_STORAGE,   /* the matrix into the backend's storage (the upload to a GPU) */
    KRYL_READ_PHASES
} kryl_read_phase;

/* "parse", "rows", "sort", "checks", "storage". */
const char *kryl_read_phase_name(kryl_read_phase phase);

/* The seconds of each phase of the read that made A into
 * seconds[KRYL_READ_PHASES]: zeros for a matrix not read from a file, or
 * read over several ranks. */
kryl_status kryl_matrix_read_phases(kryl_matrix A, double *seconds);

/* Write A as a Matrix Market coordinate real general file; values are
 * written with 17 significant digits, so reading them back is exact.
 * Whole or not at all (see kryl_write_history_csv): a failed write leaves
 * what was at path unchanged; device nodes, FIFOs and directories are
 * refused with KRYL_ERR_IO. */
kryl_status kryl_matrix_write_mtx(kryl_matrix A, const char *path);

/* Destroy a matrix.  Refused (KRYL_ERR_INVALID_ARGUMENT, *A left as it
 * is) while a solver set up on it is alive: destroy the solver first. */
kryl_status kryl_matrix_destroy(kryl_matrix *A);

/* Give A new values on the same pattern: values[k] is the value of entry
 * k of the CSR arrays A was created from (kryl_matrix_create_csr's order,
 * repeated columns summed again), or, for a matrix read, generated or
 * assembled, of kryl_matrix_csr_view's arrays.  Values must be finite.
 * A's backend storage is refreshed; every solver of A picks the new values
 * up with kryl_solver_update, or at its next solve (a single-rank matrix;
 * KRYL_ERR_UNSUPPORTED on a distributed one). */
kryl_status kryl_matrix_update_values(kryl_matrix A, const double *values);

/* kryl_matrix_update_values with the values already in the backend's
 * memory (device memory on cuda, e.g. a CuPy array; host memory on ref
 * and omp), checked there (finite) and taken by A's storage there; the
 * host copy is downloaded from it only when a host-side step needs it (a
 * preconditioner other than Jacobi, a new solver, csr_view, ...), so with
 * cg and Jacobi the update never leaves the device.  Only for a matrix
 * whose entries are its host CSR's (created from sorted, unrepeated
 * columns, or read, generated or assembled): KRYL_ERR_UNSUPPORTED
 * otherwise. */
kryl_status kryl_matrix_update_values_device(kryl_matrix A, const double *values);

/* Global rows, columns and stored entries (after expansion of symmetry
 * and summing of duplicates). */
kryl_status kryl_matrix_size(kryl_matrix A, int64_t *nrows, int64_t *ncols, int64_t *nnz);

/* Read-only view of the matrix's host CSR arrays (owned rows, natural
 * order, 0-based global column indices as int32, double values). */
kryl_status kryl_matrix_csr_view(kryl_matrix A, const int64_t **row_ptr, const int32_t **col_idx,
                                 const double **values);

/* A counts as symmetric when max |a_ij - a_ji| <= tol * max |a_ij| (an
 * absent a_ji counts as 0): a matrix assembled in floating point is
 * symmetric only up to rounding.  The default tol of the solvers and of
 * `kryl`; CG and the symmetric preconditioners then run on A as stored. */
#define KRYL_SYMMETRY_TOL 1e-12

/* The symmetric reordering `kind` of a square A held whole on this process:
 * perm[i] (n entries, the caller's) = the original row and column at
 * position i, so the reordered matrix is P A P^T (KRYL_ORDER_NONE: the
 * identity; amd is KRYL_ERR_UNSUPPORTED in a build without SuiteSparse).
 * *bandwidth = max |i - j| and *profile = the envelope sum_i (i - min{j <= i:
 * a_ij or a_ji stored}) of P A P^T, unless NULL (docs/ORDERINGS.md). */
kryl_status kryl_matrix_order(kryl_matrix A, kryl_order_kind kind, int32_t *perm,
                              int64_t *bandwidth, int64_t *profile);

/* Whether max |a_ij - a_ji| <= tol * max |a_ij| (tol 0: exactly symmetric). */
kryl_status kryl_matrix_is_symmetric(kryl_matrix A, double tol, bool *symmetric);

/* The relative asymmetry max |a_ij - a_ji| / max |a_ij| (an absent a_ji
 * counts as 0; 0 for a symmetric matrix, INFINITY for a rectangular one),
 * measured once per matrix; collective on a distributed matrix. */
kryl_status kryl_matrix_asymmetry(kryl_matrix A, double *asymmetry);

/* Structure and numbers of a matrix, for `kryl info` and format choice. */
typedef struct kryl_matrix_stats {
    int64_t nrows, ncols, nnz;
    int64_t row_min, row_max; /* entries per row */
    double row_mean, row_stddev;
    int64_t empty_rows;
    int64_t bandwidth;              /* max |i - j| over stored entries */
    int64_t profile_sum;            /* sum over rows of (i - min j), the envelope */
    bool symmetric_pattern;         /* a_ij stored <=> a_ji stored */
    bool symmetric;                 /* a_ij == a_ji exactly */
    int64_t zero_diagonals;         /* rows with a_ii absent or 0 */
    int64_t dominant_rows;          /* rows with |a_ii| >= sum_{j != i} |a_ij| */
    int64_t strictly_dominant_rows; /* rows with |a_ii| > sum_{j != i} |a_ij| */
    bool positive_diagonal;         /* every a_ii > 0 */
    double frobenius_norm;
    double max_abs;
    /* Bytes one CSR SpMV y = A x must move at least: values (8), column
     * indices (4), row offsets (4 or 8) once, x once and y once (8 each). */
    int64_t spmv_bytes_double;
    int64_t spmv_bytes_single; /* the same with 4-byte values and vectors */
    double asymmetry;          /* max |a_ij - a_ji| / max |a_ij|, an absent a_ji counting as 0 */
} kryl_matrix_stats;

/* Compute the statistics of A's owned rows (host work, O(nnz log)). */
kryl_status kryl_matrix_get_stats(kryl_matrix A, kryl_matrix_stats *stats);

/* y = alpha*A*x + beta*y, on the context's backend (on the host, x and y
 * copied across, while A's storage is deferred); x and y must be
 * different vectors (KRYL_ERR_INVALID_ARGUMENT otherwise). */
kryl_status kryl_matrix_spmv(kryl_matrix A, double alpha, kryl_vector x, double beta,
                             kryl_vector y);

/* What storing A in a format would cost, and what the SpMV bandwidth model
 * (docs/FORMATS.md; Kreutzer et al. 2012, eq. 1) predicts for one
 * double-precision SpMV with it on A's context's backend (the backend's
 * device numbers, or a generic host's).  Square matrices owning all rows. */
typedef struct kryl_format_info {
    kryl_format format;
    bool suitable;        /* false: a solve with this format is refused, `why` says why */
    bool kernel;          /* the context's backend has an SpMV kernel for the format */
    char why[256];        /* the refusal: why, what it would cost, what to use ("" if suitable) */
    int64_t stored;       /* value slots, padding included */
    int64_t bytes;        /* all arrays the format stores, double values */
    int64_t bytes_single; /* the same with float values */
    double ratio_csr;     /* bytes / CSR's bytes */
    double ratio_nnz;     /* bytes / (12 nnz): over the nonzeros' values and column indices alone */
    double alpha;         /* x bytes loaded / (8 nnz), by cache simulation: 1/Nnzr .. 1 */
    double code_balance;  /* bytes per flop (2 flops per nonzero) */
    double spmv_bytes;    /* bytes one SpMV moves, as predicted */
    double predicted_seconds; /* spmv_bytes / bandwidth */
    double bandwidth;         /* the model's memory bandwidth, bytes/s */
} kryl_format_info;

/* Cost and prediction of `format` (not KRYL_FORMAT_AUTO) for A. */
kryl_status kryl_matrix_format_info(kryl_matrix A, kryl_format format, kryl_format_info *info);

/* The format KRYL_FORMAT_AUTO resolves to for A on its context's backend
 * without tuning (the model's choice, or CSR where the backend has no
 * kernel for it), and why, into why[why_size] (why may be NULL). */
kryl_status kryl_matrix_choose_format(kryl_matrix A, kryl_format *format, char *why,
                                      size_t why_size);

/* ------------------------------------------------------------------ */
/* Assembly: build a matrix entry by entry                              */
/* ------------------------------------------------------------------ */

/* Start assembling a nrows x ncols matrix whose owned rows are
 * [row_begin, row_end).  Entries may come in any order over many calls;
 * duplicates are summed.  On a distributed context entries of any row
 * are accepted and kryl_assembly_finish (collective) sends them to the
 * ranks owning their rows. */
kryl_status kryl_assembly_create(kryl_assembly *assembly, kryl_context ctx, int64_t nrows,
                                 int64_t ncols, int64_t row_begin, int64_t row_end);

/* Add count entries (rows[k], cols[k], values[k]), 0-based global indices. */
kryl_status kryl_assembly_add(kryl_assembly assembly, int64_t count, const int64_t *rows,
                              const int64_t *cols, const double *values);

/* Add one entry a_ij += value. */
kryl_status kryl_assembly_add_value(kryl_assembly assembly, int64_t row, int64_t col, double value);

/* Build the matrix from the entries added so far.  The assembly may be
 * destroyed afterwards or used to add more entries and finish again. */
kryl_status kryl_assembly_finish(kryl_assembly assembly, kryl_matrix *A);

kryl_status kryl_assembly_destroy(kryl_assembly *assembly);

/* ------------------------------------------------------------------ */
/* Generators                                                          */
/* ------------------------------------------------------------------ */

typedef enum kryl_generator_kind {
    KRYL_GEN_POISSON2D5 = 0,    /* 2-D 5-point Laplacian on an nx x ny grid */
    KRYL_GEN_POISSON3D7 = 1,    /* 3-D 7-point Laplacian on nx x ny x nz */
    KRYL_GEN_POISSON3D27 = 2,   /* 3-D 27-point (3x3x3 box) Laplacian */
    KRYL_GEN_POISSON3D125 = 3,  /* 3-D 125-point (5x5x5 box) higher-order Laplacian */
    KRYL_GEN_ANISOTROPIC2D = 4, /* -eps u_xx - u_yy, 5-point */
    KRYL_GEN_ANISOTROPIC3D = 5, /* -eps u_xx - u_yy - u_zz, 7-point */
    KRYL_GEN_CONVDIFF2D = 6,    /* -lap u + w . grad u, upwind, nonsymmetric */
    KRYL_GEN_CONVDIFF3D = 7,    /* 3-D convection-diffusion, nonsymmetric */
    KRYL_GEN_RANDOM_SPD = 8,    /* random symmetric diagonally dominant */
    KRYL_GEN_POWERLAW = 9,      /* power-law row lengths, a few very long rows */
    KRYL_GEN_RGG = 10,          /* random geometric graph in the unit cube, SPD, rows in a
                                   scrambled order (no locality in the numbering) */
    KRYL_GEN_RGG_SPATIAL = 11,  /* the same graph numbered cell by cell: P A P^T, contiguous
                                   rows are slabs of the cube */
    /* Finite-element stiffness matrices, assembled element by element in a
     * shuffled order on a mesh of nx x ny (x nz) cells with jittered interior
     * vertices, Dirichlet nodes eliminated: symmetric positive definite up to
     * rounding (a_ij and a_ji may differ in the last bit).  Assembled whole:
     * a row range (or a rank) costs the whole matrix's assembly. */
    KRYL_GEN_FEM_P1_2D = 12,   /* -lap u, linear triangles on the unit square: (nx-1)(ny-1) rows */
    KRYL_GEN_FEM_P2_2D = 13,   /* -lap u, quadratic triangles: (2nx-1)(2ny-1) rows */
    KRYL_GEN_FEM_P1_3D = 14,   /* -lap u, linear tetrahedra on the unit cube: (nx-1)(ny-1)(nz-1) */
    KRYL_GEN_ELASTICITY3D = 15 /* linear elasticity, linear tetrahedra, a cantilever beam of
                                  nx x ny x nz cubes of side 1/ny clamped at x = 0 (defaults
                                  nx = 4n, ny = nz = n): 3 nx (ny+1)(nz+1) rows, node k's
                                  displacements at rows 3k, 3k+1, 3k+2 */
} kryl_generator_kind;

typedef struct kryl_generator_options {
    kryl_generator_kind kind;
    int64_t nx, ny, nz; /* grid points per direction (random kinds: nx = rows) */
    double epsilon;     /* anisotropy ratio; default 1e-3 */
    double peclet;      /* convection strength (cell Peclet number); default 10 */
    int64_t row_length; /* random kinds: mean entries per row; default 8 */
    double exponent;    /* power law: P(len) ~ len^-exponent; default 2.1 */
    uint64_t seed;      /* random kinds; default 1 */
} kryl_generator_options;

/* Defaults for kind with n points per direction. */
void kryl_generator_options_init(kryl_generator_options *options, kryl_generator_kind kind,
                                 int64_t n);

kryl_status kryl_generator_from_name(const char *name, kryl_generator_kind *kind);
const char *kryl_generator_name(kryl_generator_kind kind);

/* Global size of the generated matrix. */
kryl_status kryl_generator_size(const kryl_generator_options *options, int64_t *nrows,
                                int64_t *nnz_estimate);

/* The coordinates of the nodes whose unknowns a finite-element kind's rows
 * are, in row order (elasticity3d: node k holds rows 3k..3k+2): *dim
 * (2 or 3) values per node, node k at (*xyz)[*dim * k + d], malloc'ed
 * (free with free()).  KRYL_ERR_UNSUPPORTED for the other kinds. */
kryl_status kryl_generator_coordinates(const kryl_generator_options *options, int64_t *nodes,
                                       int *dim, double **xyz);

/* Generate rows [row_begin, row_end) of the matrix (the whole matrix with
 * 0 and nrows) without building any other row.  On a distributed context
 * 0 and nrows give each rank its contiguous block of rows. */
kryl_status kryl_matrix_generate(kryl_matrix *A, kryl_context ctx,
                                 const kryl_generator_options *options, int64_t row_begin,
                                 int64_t row_end);

/* ------------------------------------------------------------------ */
/* Vectors                                                             */
/* ------------------------------------------------------------------ */

/* A vector laid out like A's rows, in the given precision, zeroed.
 * Values a caller sets and gets are always in A's original row order. */
kryl_status kryl_vector_create(kryl_vector *v, kryl_matrix A, kryl_precision precision);

kryl_status kryl_vector_destroy(kryl_vector *v);

/* Number of owned entries. */
int64_t kryl_vector_length(kryl_vector v);

/* Copy length values from host memory into v (converted to its precision). */
kryl_status kryl_vector_set(kryl_vector v, const double *values, int64_t length);

/* Copy v into host memory as doubles. */
kryl_status kryl_vector_get(kryl_vector v, double *values, int64_t length);

/* Collective: set v (laid out like A's rows) from the global vector
 * `values` given on rank 0 in the original row order (ignored elsewhere);
 * one rank: kryl_vector_set of the whole vector. */
kryl_status kryl_vector_set_global(kryl_vector v, kryl_matrix A, const double *values);

/* Collective: gather v into `values` on rank 0 (n_global doubles in the
 * original row order; ignored and may be NULL elsewhere). */
kryl_status kryl_vector_get_global(kryl_vector v, kryl_matrix A, double *values);

/* The same copies from and into memory the context's backend addresses
 * directly, without a pass through the host: for cuda a device pointer of
 * the context's device (from cudaMalloc, CuPy, PyTorch...), for ref and omp
 * host memory.  They return once the copy is complete.  Values set this
 * way are not checked for NaN or Inf (a solve refuses such a b). */
kryl_status kryl_vector_set_device(kryl_vector v, const double *values, int64_t length);
kryl_status kryl_vector_get_device(kryl_vector v, double *values, int64_t length);

/* A double vector laid out like A's rows over caller memory of that kind
 * (device memory for cuda, host memory for ref and omp): nothing is copied,
 * and a solve reads b from it or writes x into it in place.  values holds
 * length = A's owned rows doubles and must outlive v; kryl_vector_destroy
 * leaves it to the caller.  Its values are not checked for NaN or Inf (a
 * solve refuses such a b). */
kryl_status kryl_vector_wrap(kryl_vector *v, kryl_matrix A, double *values, int64_t length);

/* v_i = value for every i. */
kryl_status kryl_vector_fill(kryl_vector v, double value);

/* Read a dense vector from a Matrix Market file (array n x 1, or
 * coordinate n x 1 with missing entries zero).  *values is malloc'ed;
 * free it with free(). */
kryl_status kryl_read_mtx_vector(const char *path, int64_t *length, double **values);

/* Write a dense vector as a Matrix Market array real general n x 1 file,
 * whole or not at all (see kryl_write_history_csv). */
kryl_status kryl_write_mtx_vector(const char *path, int64_t length, const double *values);

/* Read a dense rows x cols array (at most 64 columns) from a Matrix Market
 * file, array or coordinate (missing entries zero), into *values column by
 * column (values[i + rows * j]), malloc'ed: free it with free(). */
kryl_status kryl_read_mtx_array(const char *path, int64_t *rows, int64_t *cols, double **values);

/* Write a dense rows x cols array as a Matrix Market array real general
 * file, values column by column (values[i + rows * j]). */
kryl_status kryl_write_mtx_array(const char *path, int64_t rows, int64_t cols,
                                 const double *values);

/* ------------------------------------------------------------------ */
/* Solvers                                                             */
/* ------------------------------------------------------------------ */

/* Called at each convergence check (every check_interval iterations, where
 * the host reads the residual anyway): never forces a synchronisation.
 * relres is the recursive ||r||/||b||. */
typedef void (*kryl_progress_fn)(int64_t iteration, double relres, void *user);

/* Called, like kryl_progress_fn, at iteration 0 (with the true ||b - A x0||) and
 * at each convergence check: resnorm = ||r|| the method carries, bnorm = ||b||
 * (so resnorm / bnorm is the relative residual).  check_interval = k makes the
 * checks, and so the calls, fall every k iterations. */
typedef void (*kryl_residual_fn)(int64_t iteration, double resnorm, double bnorm, void *user);

typedef struct kryl_solver_options {
    kryl_method method;        /* default KRYL_METHOD_CG */
    kryl_precond_kind precond; /* default KRYL_PRECOND_NONE (JACOBI for PCG) */
    kryl_precision precision;  /* arithmetic of the iteration; default KRYL_DOUBLE */
    double rtol;               /* relative tolerance on ||b - Ax||; default 1e-8 */
    double atol;               /* absolute tolerance; default 0 */
    double dtol;               /* divergence: stop when the method's ||r|| exceeds
                                  dtol ||b - A x0||; default 1e8 (0 = 1e8), >= 1,
                                  INFINITY: never */
    int64_t max_iterations;    /* default 10000 */
    bool record_history;       /* keep ||r_k|| for every k; default true */
    int check_interval;        /* iterations between convergence checks (a mixed scheme's inner
                                  ones too); 0 = backend's choice */
    bool profile;              /* time each phase, synchronising around it (costs time) */
    kryl_progress_fn progress; /* NULL: none */
    void *progress_user;       /* passed back to progress */
    kryl_residual_fn residual; /* NULL: none */
    void *residual_user;       /* passed back to residual */
    int restart;               /* GMRES: Krylov vectors per cycle (m); 0 = 40 */
    /* A mixed-precision scheme; precision KRYL_MIXED alone picks
     * KRYL_MIXED_INNER_OUTER.  Not with precision KRYL_SINGLE. */
    kryl_mixed_scheme mixed;
    int inner_iterations;  /* mixed: at most this many inner iterations per outer step;
                            * 0 = no limit but max_iterations (inner solves end on
                            * inner_rtol) */
    kryl_format format;    /* SpMV storage of the iteration's matrix; default KRYL_FORMAT_CSR */
    kryl_order_kind order; /* reordering before the format's row sort; default none */
    bool tune;             /* with format AUTO: time a few SpMVs of each candidate instead of
                              trusting the bandwidth model alone */
    double inner_rtol;     /* mixed: an inner solve stops once it has reduced the
                            * residual by this factor, or reached half the outer
                            * tolerance; 0 = 1e-6 (about where single precision
                            * stops helping), or 1e-2 for reliable (its single CG
                            * goes on: this is only how often x and r are refreshed
                            * in double) */
    int degree;            /* lspoly: polynomial degree, 0 = 8 */
    int fill;              /* iluk: level k (default 1) */
    double droptol;        /* ilut tau (default 1e-3) */
    int maxfill;           /* ilut p (default 20) */
    int blocks;            /* bjacobi: row blocks; 0 = one per 4096 rows */
    int sweeps;            /* mcssor: symmetric Gauss-Seidel sweeps per apply (default 1) */
    double omega;          /* mcssor: relaxation factor in (0, 2) (default 1) */
    kryl_partition_kind partition; /* bjacobi: KRYL_PARTITION_AUTO (metis when built with it),
                                    * _CONTIGUOUS, _METIS */
    kryl_orthog gmres_orthog;      /* GMRES: KRYL_ORTHOG_AUTO (DCGS2), _CGS2, _DCGS2 */
    /* bjacobi: the factorization of each block, KRYL_PRECOND_IC0, _MIC0,
     * _ILU0 or _ILUT (with droptol, maxfill); KRYL_PRECOND_NONE (default) =
     * IC(0), shifted where needed, for a symmetric matrix with a CG method,
     * else ILU(0) */
    kryl_precond_kind block_factor;
    /* CG methods and the symmetric preconditioners (ic0, mic0, lspoly) take
     * A as symmetric when max |a_ij - a_ji| <= symmetry_tol * max |a_ij|;
     * default KRYL_SYMMETRY_TOL (1e-12), 0: exactly symmetric */
    double symmetry_tol;
    kryl_amg_options amg; /* amg: the hierarchy and its cycle */
    /* ilu0, iluk, ilut, ilutp: factor P A, P a maximum-transversal row
     * permutation that puts a nonzero on every diagonal position (Duff's
     * MC21 through SuiteSparse BTF; KRYL_ERR_UNSUPPORTED in builds without
     * it), so matrices with zero diagonal entries can be factored */
    bool match;
    /* pipecg, pcg: run on the host's cores and the device together
     * (kryl_hybrid); default KRYL_HYBRID_NONE */
    kryl_hybrid hybrid;
    /* KRYL_HYBRID_SPLIT: the rows given to the host (the first ones);
     * default -1 = the performance model's share */
    int64_t hybrid_host_rows;
} kryl_solver_options;

void kryl_solver_options_init(kryl_solver_options *options);

/* The memory a solve of an nrows-row matrix with nnz entries will need on
 * ctx with `options` (NULL: the defaults), estimated before anything is
 * built: rough upper bounds of the matrix's copy in CSR, its storage
 * format, the preconditioner and the vectors (the solver's and the
 * caller's b and x), and where they live: on a context with a device,
 * `device` is what they take there and `host` what the host keeps (the
 * matrix, its format and factors, b and x0); else all of it is `host`.
 * On a context over several ranks nrows and nnz are the whole matrix's and
 * the estimate is one rank's share of an even split. */
typedef struct kryl_memory_estimate {
    int64_t host, device;                     /* totals in bytes (device 0 without one) */
    int64_t matrix, format, precond, vectors; /* the parts, each where it is used */
} kryl_memory_estimate;

kryl_status kryl_solver_estimate_memory(kryl_context ctx, int64_t nrows, int64_t nnz,
                                        const kryl_solver_options *options,
                                        kryl_memory_estimate *estimate);

/* The estimate above (into *estimate unless NULL), refused when it cannot
 * fit: KRYL_ERR_OUT_OF_MEMORY beyond the host memory limit
 * (kryl_set_max_memory), KRYL_ERR_DEVICE_OUT_OF_MEMORY beyond what the
 * context may still allocate on its device (its cap, or the device's free
 * memory); the message names `what` ("poisson3d with 1728000000 rows"),
 * the parts and both numbers.  Collective on a context over several ranks
 * (a refusal on one is every rank's). */
kryl_status kryl_solver_check_memory(kryl_context ctx, int64_t nrows, int64_t nnz,
                                     const kryl_solver_options *options, const char *what,
                                     kryl_memory_estimate *estimate);

/* kryl_matrix_read_mtx for a solve with `options` (NULL: the defaults):
 * once the file is read into host memory, and before the matrix goes to
 * the context's backend (the upload to a GPU), the whole solve is checked
 * as kryl_solver_check_memory checks it, with the rows and entries read.
 * A solve the device cannot hold is KRYL_ERR_DEVICE_OUT_OF_MEMORY, one the
 * host cannot, KRYL_ERR_OUT_OF_MEMORY, naming the file, the parts and both
 * numbers; nothing is left allocated.  On a distributed context it reads
 * as kryl_matrix_read_mtx, without the check. */
kryl_status kryl_matrix_read_mtx_for_solve(kryl_matrix *A, kryl_context ctx, const char *path,
                                           const kryl_solver_options *options);

/* A Matrix Market file read into host memory without a context: the file
 * parsed and its rows built (the parse, rows and sort phases), ready to
 * become a matrix on any context.  Reading needs no device, so a caller
 * may create a GPU context on another thread meanwhile and overlap the
 * device's start-up with the read. */
typedef struct kryl_mtx_data_s *kryl_mtx_data;

/* Read path into *data (NULL on failure); errors as kryl_matrix_read_mtx. */
kryl_status kryl_mtx_data_read(kryl_mtx_data *data, const char *path);

/* The matrix of *data on ctx, as kryl_matrix_read_mtx_for_solve makes it
 * with `solve` (its memory check; NULL: none, as kryl_matrix_read_mtx).
 * The arrays are taken over and *data destroyed (set NULL), also on
 * failure.  KRYL_ERR_UNSUPPORTED on a distributed context (read there with
 * kryl_matrix_read_mtx, which distributes the rows). */
kryl_status kryl_matrix_from_mtx_data(kryl_matrix *A, kryl_context ctx, kryl_mtx_data *data,
                                      const kryl_solver_options *solve);

/* Free *data (NULL allowed) and set it NULL. */
void kryl_mtx_data_destroy(kryl_mtx_data *data);

/* Set one option by the kryl command's name for it ("rtol", "precond",
 * "block-factor", ...; leading dashes allowed) from its value as text
 * (NULL for a flag such as "tune").  An unknown name or a bad value is
 * KRYL_ERR_INVALID_ARGUMENT, with a message naming the option. */
kryl_status kryl_solver_options_set(kryl_solver_options *options, const char *name,
                                    const char *value);

/* Whether kryl_solver_options_set knows the option `name` (leading dashes
 * allowed); then *is_flag (unless NULL) tells a flag, which takes no value. */
bool kryl_solver_option_exists(const char *name, bool *is_flag);

/* One option of an options file: its name (the kryl command's, without the
 * dashes), its value as text (NULL for a flag) and where it was written. */
typedef struct kryl_option_setting {
    const char *name;   /* "rtol", "block-factor" */
    const char *value;  /* "1e-8"; NULL: a flag */
    const char *origin; /* "run.opts:3" or "run.json:7: key precond.blocks" */
} kryl_option_setting;

/* Read an options file (docs/OPTIONS.md): one "--name value" a line, or a
 * JSON object of the same names, where {"type": V, ...} gives an option the
 * value V and its parameters ({"precond": {"type": "ilut", "droptol": 1e-4}}).
 * *settings (free with kryl_options_file_free) lists them in file order.
 * Malformed files are KRYL_ERR_PARSE with the line, column or key. */
kryl_status kryl_options_file_read(const char *path, kryl_option_setting **settings,
                                   int64_t *count);
void kryl_options_file_free(kryl_option_setting *settings, int64_t count);

/* Apply an options file's solver options to *options, in order (later ones
 * win); the kryl command's own options (backend, out, monitor, ...) are
 * passed over, any other unknown name is an error naming its key. */
kryl_status kryl_solver_options_from_file(const char *path, kryl_solver_options *options);

/* Phases timed by kryl_result.profile (seconds).  Without profiling all
 * iteration work is reported in `iteration` only. */
typedef struct kryl_profile {
    double spmv;
    double precond;
    double vector;    /* fused vector updates */
    double reduction; /* dots and norms, their reductions and the fetches */
    double transfer;  /* host <-> device copies */
    double iteration; /* everything inside the iteration loop */
} kryl_profile;

/* The phases of kryl_solver_create, each timed on its own (the backend is
 * synchronised at each phase change, so device work counts where it ran);
 * their sum is setup_s. */
typedef enum kryl_setup_phase {
    KRYL_SETUP_CHECKS = 0,    /* options, square, symmetric, positive diagonal */
    KRYL_SETUP_MODEL,         /* format auto: the bandwidth model, or the timing with tune */
    KRYL_SETUP_ORDERING,      /* the RCM, AMD or color order of the iteration matrix */
    KRYL_SETUP_CONVERSION,    /* the storage format's arrays built from CSR (on cuda on the GPU) */
    KRYL_SETUP_UPLOAD,        /* host -> backend copies of matrices, orders, diagonals */
    KRYL_SETUP_COLORING,      /* the multicolor preconditioners' colors */
    KRYL_SETUP_FACTORIZATION, /* incomplete factorization, symbolic and numeric */
    KRYL_SETUP_LEVELS,        /* level schedules and the backend's triangular-solve setup */
    KRYL_SETUP_PRECOND,       /* the rest of a preconditioner (diagonals, polynomial) */
    KRYL_SETUP_WORKSPACE,     /* vectors, monitor, history, the method's setup, batching */
    KRYL_SETUP_PHASES
} kryl_setup_phase;

/* "checks", "model", "ordering", "conversion", "upload", "coloring",
 * "factorization", "levels", "precond", "workspace". */
const char *kryl_setup_phase_name(kryl_setup_phase phase);

typedef struct kryl_result {
    int64_t iterations; /* iterations executed */
    kryl_reason reason;
    bool converged;                /* true only if the true residual met the test */
    double relres;                 /* ||b - Ax|| / ||b||, computed in double with A's values */
    double relres_recursive;       /* ||r|| / ||b|| of the residual the method carried */
    double resnorm;                /* ||b - Ax|| */
    double resnorm_recursive;      /* ||r|| carried by the method */
    double bnorm;                  /* ||b|| */
    int64_t residual_replacements; /* times r was replaced by b - Ax and the method continued */
    int64_t best_iteration;        /* the iteration of the x returned: the iterate with the
                                      smallest true residual computed (0: x0) */
    double relres_last;            /* the true ||b - Ax|| / ||b|| of the last iterate (above
                                      relres when an earlier x was better and is returned) */
    int64_t inner_iterations;      /* mixed: single-precision inner iterations of this solve */
    bool orthog_fallback;          /* GMRES: DCGS2 lost orthogonality (its residual estimate met
                                      the tolerance, the true residual missed it 100-fold) and
                                      the solve went on with CGS2 */
    kryl_format format;            /* the storage format the iteration used (AUTO resolved) */
    double setup_s;                /* solver creation: preconditioner, workspace, conversions */
    double solve_s;                /* kryl_solver_solve, wall clock */
    kryl_profile profile;          /* filled when options.profile is set */
    double setup_phases[KRYL_SETUP_PHASES]; /* setup_s by phase (kryl_setup_phase) */
} kryl_result;

/* Set up a solver for A: checks A fits the method (square; symmetric for
 * CG), builds the preconditioner and allocates all workspace.
 *   solver   out: the solver, NULL on failure
 *   A        the system matrix (kept by reference: destroy A after the solver)
 *   options  NULL for the defaults */
kryl_status kryl_solver_create(kryl_solver *solver, kryl_matrix A,
                               const kryl_solver_options *options);

/* Solve A x = b.  x holds the initial guess on entry and the solution on
 * return.  Not converging is reported in result->reason, not as an error.
 * b and x may be of either precision. */
kryl_status kryl_solver_solve(kryl_solver solver, kryl_vector b, kryl_vector x,
                              kryl_result *result);

/* The residual history of the last solve: (*history)[k] = ||r_k|| of the
 * residual the method carried, k = 0..*length-1.  Valid until the next
 * solve or the solver's destruction. */
kryl_status kryl_solver_history(kryl_solver solver, const double **history, int64_t *length);

/* Write a residual history as CSV: a header line
 * "iteration,residual_norm,relative_residual", then k, history[k] and
 * history[k] / bnorm (history[k] itself when bnorm is 0) for each k.  The
 * file is written whole or not at all, like every file kryl writes: the
 * data goes to a temporary file in the same directory that replaces path
 * only once it is complete, so a failure (a full disk) leaves what was
 * there unchanged; a path that exists must be a regular file (or a
 * symbolic link to one).  KRYL_ERR_IO names the file and the reason. */
kryl_status kryl_write_history_csv(const char *path, const double *history, int64_t length,
                                   double bnorm);

/* The storage format the solver uses and why it was chosen (for AUTO:
 * the model's or the timing's verdict; otherwise "requested").  The
 * string is valid until the solver is destroyed. */
kryl_status kryl_solver_format(kryl_solver solver, kryl_format *format, const char **reason);

/* The least memory traffic of one iteration of the solver (the copy-
 * bandwidth bound): its SpMV moving the arrays of its format once, x once
 * and y once, plus the vector reads and writes of the method's own updates
 * and reductions; over the context's device bandwidth (the bandwidth
 * model's: a measured device-to-device copy on cuda) it gives the least
 * time an iteration can take.  Counted for CG and PCG with Jacobi in
 * double precision on one process; KRYL_ERR_UNSUPPORTED otherwise. */
typedef struct kryl_iteration_bound {
    double spmv_bytes;   /* the format's arrays read once, x read once, y written once */
    double vector_bytes; /* the method's vector passes (CG: 10 or 11 vectors of n) */
    double bytes;        /* spmv_bytes + vector_bytes */
    double bandwidth;    /* bytes/s */
    double seconds;      /* bytes / bandwidth */
} kryl_iteration_bound;

kryl_status kryl_solver_iteration_bound(kryl_solver solver, kryl_iteration_bound *bound);

/* A one-line description of the preconditioner as built, written into buf
 * (len bytes, truncated, always terminated when len > 0): its name ("none"
 * without one) and, for the incomplete factorizations, each triangle's
 * level count and solve path, e.g. "ic0: L 478 levels (syncfree), U 478
 * levels (syncfree)".  For the mixed schemes, the inner solver's. */
kryl_status kryl_solver_precond_info(kryl_solver solver, char *buf, size_t len);

/* z = M^{-1} r with the preconditioner the solver built, alone: for use
 * inside another Krylov code (a SciPy or PETSc solver preconditioned by
 * kryl's).  r and z are double vectors laid out like the solver's matrix,
 * in the caller's row order, and distinct; M is applied in the working
 * precision and order of the iteration (for the mixed schemes, the inner
 * solver's).  Without a preconditioner z = r.  Uses the solver's
 * workspace: not concurrently with a solve on the same solver. */
kryl_status kryl_solver_apply_preconditioner(kryl_solver solver, kryl_vector r, kryl_vector z);

/* The hierarchy of an algebraic multigrid preconditioner. */
typedef struct kryl_amg_info {
    int levels;                        /* the finest (0) to the coarsest, solved directly */
    int64_t rows[KRYL_AMG_MAX_LEVELS]; /* rows of each level's matrix */
    int64_t nnz[KRYL_AMG_MAX_LEVELS];  /* its stored entries (the coarsest: dense) */
    double operator_complexity;        /* sum of nnz over the levels / nnz of the finest */
    double grid_complexity;            /* sum of rows / rows of the finest */
    /* setup seconds by phase, all levels together */
    double strength_s;  /* strength of connection */
    double aggregate_s; /* aggregation (distance-2 maximal independent sets) */
    double prolong_s;   /* lambda_max, tentative and smoothed prolongators, their transposes */
    double galerkin_s;  /* coarse matrices P'AP (on cuda also P and P', built with them) */
    double smoother_s;  /* eigenvalue estimates, smoother setup, dense coarse inverse */
    double backend_s;   /* the levels' matrices and vectors on the backend */
} kryl_amg_info;

/* The hierarchy of the solver's AMG preconditioner (the inner solver's
 * under a mixed scheme); KRYL_ERR_INVALID_ARGUMENT if it has none. */
kryl_status kryl_solver_amg_info(kryl_solver solver, kryl_amg_info *info);

/* The six rigid-body modes of 3-D elasticity, a near-nullspace for AMG:
 * three translations and three rotations about the centroid, at `nodes`
 * points with coordinates xyz[3 i .. 3 i + 2] and unknowns numbered node
 * by node (u_x, u_y, u_z of node i at rows 3i, 3i+1, 3i+2).
 *   modes  out: 3 nodes x 6 doubles, column by column */
kryl_status kryl_amg_rigid_body_modes(int64_t nodes, const double *xyz, double *modes);

/* Seconds of setup (same as the next result's setup_s). */
double kryl_solver_setup_time(kryl_solver solver);

/* Seconds of each setup phase into seconds[KRYL_SETUP_PHASES] (the same
 * as the next result's setup_phases). */
kryl_status kryl_solver_setup_phases(kryl_solver solver, double *seconds);

/* Extreme eigenvalues estimated by Lanczos on the context's backend.  The
 * Ritz values lie inside the spectrum, so lambda_max/lambda_min (the
 * condition estimate) is a lower bound on the condition number;
 * lambda_max converges first.
 *   A           a symmetric matrix
 *   precond     KRYL_PRECOND_NONE: the spectrum of A;  KRYL_PRECOND_JACOBI:
 *               of D^{-1} A (D = diag(A), which must be positive)
 *   steps       Lanczos steps (0 = 50); at most the order of A are taken
 *   lambda_min  out: the smallest Ritz value
 *   lambda_max  out: the largest Ritz value */
kryl_status kryl_matrix_spectrum(kryl_matrix A, kryl_precond_kind precond, int steps,
                                 double *lambda_min, double *lambda_max);

/* The same estimate, for the operator the solver iterated with (A or
 * M^{-1} A), from the coefficients of its last solve through the
 * CG-Lanczos relation: no extra operator applications.  Needs a method
 * that records them (pipecg with record_history; KRYL_ERR_UNSUPPORTED
 * otherwise) and uses the iterations up to its first restart.
 *   solver      a solver that has solved at least one iteration
 *   lambda_min  out
 *   lambda_max  out */
kryl_status kryl_solver_spectrum(kryl_solver solver, double *lambda_min, double *lambda_max);

/* Bring the solver up to date with new values of its matrix (after
 * kryl_matrix_update_values), keeping everything that depends on the
 * pattern alone: the storage format's layout and the row permutation, the
 * ordering, the multicolor preconditioners' coloring, the level schedules
 * of the triangular factors and the workspace.  It redoes the values: the
 * iteration matrix's value arrays, the factorization (IC(0), MIC(0),
 * ILU(0), ILU(k) on the same pattern; ILUT and block Jacobi are rebuilt),
 * the Jacobi diagonal, the lspoly polynomial and AMG's prolongators, coarse
 * matrices and smoothers (its aggregates are kept).  The solver then runs as
 * one freshly set up for the new values, except that a multicolor
 * coloring sparsified by weights (mcolor) keeps the old weights' colors.
 * kryl_solver_solve calls it itself when the values changed since.  Where
 * the new values cannot be taken (a zero pivot, say), it fails naming why,
 * and the solver stays out of date: every solve tries the update again and
 * fails until values it can take are given. */
kryl_status kryl_solver_update(kryl_solver solver);

/* The method and preconditioner the solver uses and why: for
 * KRYL_METHOD_AUTO, what the checks of A found, each candidate refused
 * or abandoned and the reason ("requested" otherwise).  The string is
 * valid until the solver solves again or is destroyed. */
kryl_status kryl_solver_choice(kryl_solver solver, kryl_method *method, kryl_precond_kind *precond,
                               const char **why);

/* How a hybrid solve (options.hybrid) shares the work, and why. */
typedef struct kryl_hybrid_info {
    kryl_hybrid method;  /* what runs: KRYL_HYBRID_NONE when auto gave the host nothing */
    int64_t host_rows;   /* SPLIT: the first host_rows rows on the host, the rest on */
    int64_t device_rows; /* the device; DOTS, MIRROR: every row on the device */
    int64_t host_nnz, device_nnz;
    int64_t host_coupling_nnz;   /* of the host's entries, those needing the device's m */
    int64_t device_coupling_nnz; /* of the device's entries, those needing the host's m */
    double host_nnz_per_s;       /* the model: SpMV speed on each side, measured at setup */
    double device_nnz_per_s;     /*   or predicted (model_predicted); 0: neither */
    int64_t model_rows;          /* rows of the host's sample */
    int64_t device_model_rows;   /* rows the device timed: all of A where its storage is
                                    there, else a sample of its last rows */
    double model_host_share;     /* r_cpu = s_cpu / (s_cpu + s_gpu) by nonzeros; -1 unmeasured */
    bool model_predicted;        /* the speeds and r_cpu are the bandwidth model's (auto on a
                                    matrix that fits the device): nothing of the host side
                                    was built or timed */
    char reason[256];            /* why this method and this split */
} kryl_hybrid_info;

/* The hybrid solve's split and the reason for it; KRYL_ERR_INVALID_ARGUMENT
 * unless options.hybrid asked for one. */
kryl_status kryl_solver_hybrid_info(kryl_solver solver, kryl_hybrid_info *info);

/* Whether this build can permute rows by a maximum transversal (options.match). */
bool kryl_match_available(void);

kryl_status kryl_solver_destroy(kryl_solver *solver);

#ifdef __cplusplus
}
#endif

#endif /* KRYL_H */
