/* Multicolor SSOR(k) multisweep preconditioner (Li & Saad, GPU-accelerated
 * preconditioned iterative linear solvers, J. Supercomputing 63 (2013),
 * section 5.3, Algorithm 2; Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., SIAM 2003, sections 4.1.1, 10.2.1 and 12.4).
 *
 * With A = D + L + U (diagonal, strict lower, strict upper) in the color
 * order, one symmetric sweep from z = 0 on A z = r is z = M^{-1} r with
 *   M = (D + omega L) D^{-1} (D + omega U) / (omega (2 - omega))
 *     = (omega / (2 - omega)) (D/omega + L) D^{-1} (D/omega + U),
 * Saad's M_SSOR (eq. 10.12, with E = -L, F = -U).  M is symmetric when A is,
 * and positive definite for SPD A and 0 < omega < 2, so it serves CG, PCG
 * and pipelined CG as well as GMRES and BiCGSTAB.  k sweeps are the SSOR
 * iteration z_{j+1} = z_j + M^{-1} (r - A z_j) from z_0 = 0, i.e.
 * M_k^{-1} = sum_{j<k} (I - M^{-1} A)^j M^{-1}, again symmetric, with the
 * eigenvalues 1 - (1 - mu)^k > 0 of M_k^{-1} A for the mu in (0, 1] of
 * M^{-1} A.
 *
 * In double precision, on a backend with the sweep operations (backend.h:
 * csr_permute, mcsweep_*; ref, omp and cuda), the whole setup runs there:
 * A's arrays on the backend, its coloring (mcolor.c), B = P A P^T in the
 * color order by csr_permute, and the sweep's setup (1/b_ii and where each
 * row's lower and upper parts lie in B's sorted rows); an apply gathers r
 * into the color order, sweeps color by color forward then back, and
 * scatters z.  Otherwise (single precision), M is applied as M = L' U'
 * with the unit lower L' = I + omega L D^{-1} and U' = (D + omega U) /
 * (omega (2 - omega)), the storage of an ILU(0) factorization, so the
 * incomplete-factorization path of ilu.c does the rest: two
 * level-scheduled triangular solves per sweep.  In the color
 * order the rows of one color are not coupled, so each triangle has one
 * level per color and each level is one color: the backend's level
 * schedule is exactly the multicolor sweep (a product with the color's
 * rows and a diagonal scaling per color).
 *
 * Ordering: the colors are those of A in its natural numbering
 * (mcolor.c), so M does not depend on the storage format.  The triangles
 * live in a private color order and each apply gathers r into it and
 * scatters z back (2 vector permutations).  Building them in the iteration
 * order instead would save those two passes, but the backends' trsv takes a
 * triangle in its own index order (an entry above the diagonal of a lower
 * triangle is refused), which the color order is not; a private color
 * order is the only layout the existing kernels solve.  Sweeps beyond the
 * first compute r - A z with the iteration matrix's own SpMV (its format,
 * its order): a second, color-ordered copy of A would save two
 * permutations per sweep but store the matrix twice.
 *
 * Sparsification (mcolor.c): when the colors come from a sparsified graph,
 * rows of one color may still be coupled in A.  Such entries cannot sit in
 * a triangle solved one color at a time, so they are left out of L and U
 * (M is the SSOR of A minus those couplings), while the residual of later
 * sweeps uses all of A.
 *
 * A matrix distributed over ranks gets the same M from its own coloring
 * and sweeps (src/dist/dist_mcssor.c); one rank always takes this path. */
#include <stdio.h>
#include <stdlib.h>

#include "core/setup_clock.h"
#include "factor/factor_internal.h"
#include "precond/mcolor.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

/* B = P A P^T on the backend and the sweep's handle of it. */
typedef struct mcssor_backend {
    void *handle;          /* mcsweep_setup's; NULL: the triangular-solve path */
    kryl_mcolor_arrays on; /* A's arrays on the backend, values kept for updates */
    int64_t *b_ptr;        /* B's arrays (backend) */
    int32_t *b_col, *perm; /* perm: the color order (A's numbering) */
    double *b_val;         /* B's values (backend) */
    int32_t *order;        /* the iteration row at each color position (backend) */
    kryl_vector x, y;      /* r gathered into the color order; z before its scatter */
} mcssor_backend;

typedef struct mcssor_data {
    kryl_precond sweep;  /* z = M^{-1} r by triangular solves (without mcsweep) */
    mcssor_backend b;    /* z = M^{-1} r by the backend's sweeps (b.handle) */
    kryl_matrix A;       /* the iteration matrix (not owned) */
    int sweeps;          /* k */
    double omega;        /* relaxation factor */
    kryl_vector res, dz; /* r - A z and M^{-1} of it (k > 1) */
    kryl_mcolor mc;      /* the coloring, kept for refactoring with new values */
} mcssor_data;

/* z = M^{-1} r: one symmetric sweep from z = 0. */
static kryl_status sweep_once(kryl_precond *pc, mcssor_data *d, kryl_vector r, kryl_vector z)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    if (d->b.handle == NULL) return d->sweep.apply(&d->sweep, r, z);
    /* x = r in the color order;  y = M^{-1} x;  z = y in the iteration order */
    KRYL_TRY(ops->permute_copy(pc->ctx, d->b.x, r, d->b.order, KRYL_GATHER, NULL));
    KRYL_TRY(ops->mcsweep(pc->ctx, d->b.handle, d->b.x, d->b.y));
    return ops->permute_copy(pc->ctx, z, d->b.y, d->b.order, KRYL_SCATTER, NULL);
}

static kryl_status mcssor_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    mcssor_data *d = pc->data;
    const kryl_backend_ops *ops = pc->ctx->ops;
    /* z = M^{-1} r */
    KRYL_TRY(sweep_once(pc, d, r, z));
    for (int k = 1; k < d->sweeps; k++) {
        /* res = r - A z;  dz = M^{-1} res;  z += dz */
        KRYL_TRY(ops->spmv(pc->ctx, d->A, -1.0, z, 1.0, r, d->res, NULL));
        KRYL_TRY(sweep_once(pc, d, d->res, d->dz));
        KRYL_TRY(ops->axpby(pc->ctx, 1.0, d->dz, 1.0, z));
    }
    return KRYL_SUCCESS;
}

static void backend_release(kryl_context ctx, mcssor_backend *b)
{
    const kryl_backend_ops *ops = ctx->ops;
    if (b->handle) ops->mcsweep_release(ctx, b->handle);
    kryl_mcolor_arrays_release(ctx, &b->on);
    ops->release(ctx, b->b_ptr);
    ops->release(ctx, b->b_col);
    ops->release(ctx, b->b_val);
    if (b->order != b->perm) ops->release(ctx, b->order);
    ops->release(ctx, b->perm);
    kryl_vector_destroy(&b->x);
    kryl_vector_destroy(&b->y);
    *b = (mcssor_backend){0};
}

static void mcssor_destroy(kryl_precond *pc)
{
    mcssor_data *d = pc->data;
    if (d == NULL) return;
    if (d->sweep.destroy) d->sweep.destroy(&d->sweep);
    backend_release(pc->ctx, &d->b);
    kryl_vector_destroy(&d->res);
    kryl_vector_destroy(&d->dz);
    kryl_mcolor_free(&d->mc);
    free(d);
    pc->data = NULL;
}

/* B = P A P^T from the backend's copy of A, and the sweep's handle of it. */
static kryl_status backend_factor(kryl_precond *pc, mcssor_data *d)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    mcssor_backend *b = &d->b;
    const kryl_coloring *c = &d->mc.c;
    int phase = kryl_setup_enter(pc->ctx, KRYL_SETUP_FACTORIZATION);
    if (b->handle) ops->mcsweep_release(pc->ctx, b->handle);
    b->handle = NULL;
    kryl_status st = ops->csr_permute(pc->ctx, d->A->layout->n, b->on.row_ptr, b->on.col_idx,
                                      b->on.values, b->perm, b->b_ptr, b->b_col, b->b_val);
    if (st == KRYL_SUCCESS)
        st = ops->mcsweep_setup(pc->ctx, d->A->layout->n, b->b_ptr, b->b_col, b->b_val,
                                c->color_ptr, c->ncolors, d->omega, &b->handle);
    kryl_setup_leave(pc->ctx, phase);
    return st;
}

/* The backend path's blocks: B's arrays, the color order, two vectors. */
static kryl_status backend_alloc(kryl_precond *pc, mcssor_data *d)
{
    const kryl_backend_ops *ops = pc->ctx->ops;
    kryl_context ctx = pc->ctx;
    mcssor_backend *b = &d->b;
    /* A's sizes: a level built on the device has no host arrays */
    const int64_t n = d->A->layout->n, nnz = kryl_matrix_nnz(d->A);
    KRYL_TRY(ops->alloc(ctx, (void **)&b->b_ptr, ((size_t)n + 1) * sizeof *b->b_ptr));
    KRYL_TRY(ops->alloc(ctx, (void **)&b->b_col, (size_t)nnz * sizeof *b->b_col));
    KRYL_TRY(ops->alloc(ctx, (void **)&b->b_val, (size_t)nnz * sizeof *b->b_val));
    KRYL_TRY(ops->alloc(ctx, (void **)&b->perm, (size_t)n * sizeof *b->perm));
    if (n > 0) KRYL_TRY(ops->upload(ctx, b->perm, d->mc.c.perm, (size_t)n * sizeof *b->perm));
    /* the iteration rows: the color order itself when A's layout is the natural order */
    b->order = b->perm;
    if (d->A->layout->perm)
        KRYL_TRY(kryl_precond_upload_order(ctx, d->A->layout, d->mc.c.perm, &b->order));
    KRYL_TRY(kryl_vector_create_like(&b->x, ctx, d->A->layout, KRYL_DOUBLE));
    return kryl_vector_create_like(&b->y, ctx, d->A->layout, KRYL_DOUBLE);
}

/* New values: the same colors, M computed again. */
static kryl_status mcssor_update(kryl_precond *pc)
{
    mcssor_data *d = pc->data;
    if (d->b.handle == NULL) return kryl_precond_factor_update(&d->sweep);
    /* A's arrays again: the values are new, and the storage may hold them elsewhere */
    kryl_mcolor_arrays_release(pc->ctx, &d->b.on);
    KRYL_TRY(kryl_mcolor_arrays_get(pc->ctx, d->A, &d->b.on));
    return backend_factor(pc, d);
}

/* M = L' U' of B (color order, rows sorted, every diagonal nonzero):
 * l'_ij = omega b_ij / b_jj (j < i), u'_ii = b_ii / (omega (2 - omega)),
 * u'_ij = b_ij / (2 - omega) (j > i). */
static kryl_status ssor_factors(kryl_precond *pc, const kryl_csr *B, kryl_factor *F,
                                const void *user)
{
    (void)pc;
    const mcssor_data *d = user;
    double w = d->omega;
    int64_t n = B->nrows;
    kryl_csr C = {0};
    KRYL_TRY(kryl_csr_alloc(&C, n, n, kryl_csr_nnz(B)));
    double *diag = malloc(((size_t)n + 1) * sizeof *diag);
    if (diag == NULL) {
        kryl_csr_free(&C);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcssor: cannot allocate %lld rows",
                          (long long)n);
    }
    kryl_csr_diagonal(B, diag);
    for (int64_t i = 0; i <= n; i++) C.row_ptr[i] = B->row_ptr[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = B->row_ptr[i]; e < B->row_ptr[i + 1]; e++) {
            /* C = (I + omega L D^{-1}) - I + (D + omega U) / (omega (2 - omega)) */
            int32_t j = B->col_idx[e];
            C.col_idx[e] = j;
            C.values[e] = j < i    ? w * B->values[e] / diag[j]
                          : j == i ? B->values[e] / (w * (2.0 - w))
                                   : B->values[e] / (2.0 - w);
        }
    free(diag);
    kryl_status st = kryl_factor_split_lu(&C, B, F);
    kryl_csr_free(&C);
    return st;
}

kryl_status kryl_precond_mcssor_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts)
{
    if (opts->sweeps < 1 || !(opts->omega > 0.0 && opts->omega < 2.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "mcssor: sweeps %d, omega %g: expected sweeps >= 1 and 0 < omega < 2",
                          opts->sweeps, opts->omega);
#ifdef KRYL_HAVE_MPI
    /* over several ranks: colored and swept with halo exchanges */
    if (A->dist != NULL) return kryl_dist_mcssor_create(pc, A, opts);
#endif
    mcssor_data *d = calloc(1, sizeof *d);
    if (d == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcssor: out of memory");
    pc->data = d;
    pc->apply = mcssor_apply;
    pc->destroy = mcssor_destroy;
    d->A = A;
    d->sweeps = opts->sweeps;
    d->omega = opts->omega;
    d->sweep.kind = pc->kind;
    d->sweep.ctx = pc->ctx;
    if (d->sweeps > 1) {
        KRYL_TRY(kryl_vector_create_like(&d->res, pc->ctx, A->layout, A->precision));
        KRYL_TRY(kryl_vector_create_like(&d->dz, pc->ctx, A->layout, A->precision));
    }
    const kryl_backend_ops *ops = pc->ctx->ops;
    const bool on_backend = A->precision == KRYL_DOUBLE && ops->csr_permute && ops->mcsweep_setup &&
                            ops->mcsweep && ops->mcsweep_release;
    pc->update = mcssor_update;
    if (on_backend) KRYL_TRY(kryl_mcolor_arrays_get(pc->ctx, A, &d->b.on));
    KRYL_TRY(
        kryl_mcolor_create(pc, A, on_backend ? &d->b.on : NULL, KRYL_MCOLOR_FEW_COLORS, &d->mc));
    kryl_status st = KRYL_SUCCESS;
    if (on_backend) {
        st = backend_alloc(pc, d);
        if (st == KRYL_SUCCESS) st = backend_factor(pc, d);
        /* new values: from A's storage where it is read, with no host copy */
        pc->update_on_backend = ops->matrix_csr_arrays && kryl_matrix_natural_csr(A);
    } else {
        kryl_precond_filter filter = {kryl_mcolor_filter, &d->mc};
        kryl_precond_ordering ordering = {.order = d->mc.c.perm, .build = ssor_factors, .user = d};
        st = kryl_precond_factor_create_ordered(&d->sweep, A, opts, pc->kind, &filter, &ordering);
    }
    if (st == KRYL_SUCCESS)
        snprintf(pc->info, sizeof pc->info, "mcssor: %d colors, %d sweep(s), omega %g%s",
                 (int)d->mc.c.ncolors, d->sweeps, d->omega,
                 on_backend ? ", swept by the backend" : "");
    if (st == KRYL_SUCCESS)
        kryl_log(pc->ctx, KRYL_LOG_INFO,
                 "mcssor: %d sweep(s) of SSOR(omega = %g) per apply, %d colors (= levels), %s",
                 d->sweeps, d->omega, (int)d->mc.c.ncolors,
                 on_backend ? "set up and swept color by color on the backend"
                            : "by triangular solves");
    return st;
}
