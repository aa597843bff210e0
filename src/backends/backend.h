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

/* One double in backend memory. */
typedef struct kryl_scalar {
    double *ptr;
} kryl_scalar;

/* Why the iteration stopped (monitor->stop). */
enum {
    KRYL_STOP_RUNNING = 0,
    KRYL_STOP_CONVERGED = 1, /* recursive residual met the tolerance */
    KRYL_STOP_BREAKDOWN = 2, /* a denominator was <= 0 where it must be > 0 */
    KRYL_STOP_NAN = 3 /* a NaN or Inf appeared */
};

/* Convergence state of one solve, in backend memory.  The host writes it
 * (upload) before the loop and reads it (download) at each check. */
typedef struct kryl_monitor {
    double tol2; /* stop when rr <= tol2 */
    double rr; /* last squared residual norm recorded */
    double *history; /* backend buffer of ||r_k||, or NULL */
    int64_t history_capacity; /* entries in history */
    int64_t iteration; /* iterations completed */
    int32_t stop; /* KRYL_STOP_* */
    int32_t stop_iteration_pad; /* keeps the struct 8-byte aligned */
} kryl_monitor;

/* Direction of a permuted copy. */
typedef enum kryl_permute_dir {
    KRYL_GATHER = 0, /* y[i] = x[perm[i]]: original order -> backend order */
    KRYL_SCATTER = 1 /* y[perm[i]] = x[i]: backend order -> original order */
} kryl_permute_dir;

typedef struct kryl_backend_ops {
    const char *name;
    int check_interval; /* default iterations between convergence checks */

    /* ---- lifecycle: set ctx->backend and ctx->device_name ---- */
    kryl_status (*init)(kryl_context ctx);
    void (*finalize)(kryl_context ctx);

    /* ---- memory ---- */
    /* *ptr = bytes of zeroed backend memory (bytes may be 0: *ptr = NULL) */
    kryl_status (*alloc)(kryl_context ctx, void **ptr, size_t bytes);
    void (*release)(kryl_context ctx, void *ptr);
    /* backend dst <- host src */
    kryl_status (*upload)(kryl_context ctx, void *dst, const void *src, size_t bytes);
    /* host dst <- backend src; waits for the work queued before it */
    kryl_status (*download)(kryl_context ctx, void *dst, const void *src, size_t bytes);
    kryl_status (*synchronize)(kryl_context ctx);

    /* ---- matrices ---- */
    /* Build A->storage from A->host->csr (permuted by A->layout) in A->precision. */
    kryl_status (*matrix_setup)(kryl_context ctx, kryl_matrix A);
    void (*matrix_release)(kryl_context ctx, kryl_matrix A);
    /* y = alpha*A*x + beta*z.  z may be y, or NULL (then beta is ignored);
     * x, y, z in A's precision. */
    kryl_status (*spmv)(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                        double beta, kryl_vector z, kryl_vector y,
                        const kryl_monitor *monitor);

    /* ---- vectors ---- */
    /* y_i = value */
    kryl_status (*fill)(kryl_context ctx, kryl_vector y, double value);
    /* y = x, or its permutation (perm in backend memory, NULL = plain copy);
     * converts between precisions when y and x differ. */
    kryl_status (*permute_copy)(kryl_context ctx, kryl_vector y, kryl_vector x,
                                const int32_t *perm, kryl_permute_dir dir);
    /* y = alpha*x + beta*y (host constants) */
    kryl_status (*axpby)(kryl_context ctx, double alpha, kryl_vector x, double beta,
                         kryl_vector y);
    /* y = d .* x (elementwise) */
    kryl_status (*pointwise_mult)(kryl_context ctx, kryl_vector y, kryl_vector d,
                                  kryl_vector x);
    /* out = x'y (rank-local), accumulated in double */
    kryl_status (*dot)(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out);

    /* ---- fused conjugate-gradient steps ---- */
    /* alpha = num/den;  x += alpha p;  r -= alpha q;
     * if dinv: z = dinv .* r and rz = r'z, else rz = r'r;  rr = r'r.
     * den <= 0 sets monitor->stop = BREAKDOWN (NaN/Inf: NAN) and changes nothing. */
    kryl_status (*cg_update_xr)(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                kryl_vector p, kryl_vector q, kryl_vector x, kryl_vector r,
                                kryl_vector dinv, kryl_vector z, kryl_scalar rz,
                                kryl_scalar rr, kryl_monitor *monitor);
    /* p = z + (num/den) p;  den <= 0 sets stop = BREAKDOWN (NaN/Inf: NAN). */
    kryl_status (*cg_update_p)(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                               kryl_vector z, kryl_vector p, kryl_monitor *monitor);

    /* ---- convergence ---- */
    /* Unless stopped: iteration += advance; history[iteration] = sqrt(rr);
     * stop = NAN if rr is not finite, CONVERGED if rr <= tol2. */
    kryl_status (*monitor_update)(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                  int advance);
} kryl_backend_ops;

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
