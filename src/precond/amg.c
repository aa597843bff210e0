/* Algebraic multigrid as a preconditioner: z = one cycle on A z = r from
 * z = 0 (src/amg/). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "amg/amg.h"

static kryl_status amg_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    return amg_cycle(pc->data, r, z);
}

static kryl_status amg_precond_update(kryl_precond *pc) { return amg_update(pc->data); }

static void amg_destroy(kryl_precond *pc)
{
    amg_hierarchy *h = pc->data;
    if (h == NULL) return;
    amg_release(h);
    free(h);
    pc->data = NULL;
}

kryl_status kryl_amg_options_check(const kryl_amg_options *o, int64_t n)
{
    if (!(o->theta >= 0.0 && o->theta <= 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: theta %g; expected 0 <= theta <= 1",
                          o->theta);
    if (!(o->coarse_theta >= 0.0 && o->coarse_theta <= 1.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "amg: coarse_theta %g; expected 0 <= coarse_theta <= 1", o->coarse_theta);
    if (o->smoother < KRYL_AMG_AUTO_SMOOTHER || o->smoother > KRYL_AMG_ILU0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: unknown smoother %d", (int)o->smoother);
    if (o->cycle < KRYL_AMG_V_CYCLE || o->cycle > KRYL_AMG_W_CYCLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: unknown cycle %d", (int)o->cycle);
    if (o->aggregation < KRYL_AMG_AUTO_AGGREGATION || o->aggregation > KRYL_AMG_PLAIN)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: unknown aggregation %d",
                          (int)o->aggregation);
    if (o->coarsening < KRYL_AMG_GREEDY || o->coarsening > KRYL_AMG_AUTO_COARSENING)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: unknown coarsening %d",
                          (int)o->coarsening);
    if (o->sweeps < 0 || o->sweeps > 64)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "amg: sweeps %d; expected 1..64 (0: the smoother's default)", o->sweeps);
    if (o->coarse_size < 1 || o->coarse_size > KRYL_AMG_DENSE_MAX)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "amg: coarse_size %d; expected 1..%d rows (the coarsest level is "
                          "inverted densely)",
                          o->coarse_size, KRYL_AMG_DENSE_MAX);
    if (o->max_levels < 1 || o->max_levels > KRYL_AMG_MAX_LEVELS)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: max_levels %d; expected 1..%d",
                          o->max_levels, KRYL_AMG_MAX_LEVELS);
    if (o->nullspace != NULL) {
        if (o->nullspace_vectors < 1 || o->nullspace_vectors > KRYL_AMG_MAX_NULLSPACE)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "amg: %d near-nullspace vectors; expected 1..%d",
                              o->nullspace_vectors, KRYL_AMG_MAX_NULLSPACE);
        for (int64_t i = 0; i < n * o->nullspace_vectors; i++)
            if (!isfinite(o->nullspace[i]))
                return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                                  "amg: near-nullspace vector %lld, row %lld is %g",
                                  (long long)(i / n), (long long)(i % n), o->nullspace[i]);
    }
    return KRYL_SUCCESS;
}

/* Sweeps by default: ILU(0) 2; Chebyshev under smoothed aggregation of
 * degree 1 on a device, where a product less a sweep outweighs the extra
 * iterations on every stencil and elasticity case measured (7-point 160^3:
 * 11 iterations in 12.7 ms against 9 in 16.5 ms; docs/BENCHMARKS.md), else
 * of degree 2 (on the host pyamg's iteration counts; under plain aggregation
 * the smoother does more of the work); the others 1. */
static int default_sweeps(const kryl_amg_options *o, kryl_context ctx)
{
    if (o->smoother == KRYL_AMG_ILU0) return 2;
    if (o->smoother != KRYL_AMG_CHEBYSHEV) return 1;
    return ctx->ops->device_memory && o->aggregation == KRYL_AMG_SMOOTHED ? 1 : 2;
}

kryl_status kryl_precond_amg_create(kryl_precond *pc, kryl_matrix A, kryl_matrix source,
                                    const kryl_solver_options *opts)
{
    const kryl_csr *csr = &A->host->csr;
    bool ranks = amg_over_ranks(A->ctx);
    if (csr->nrows_global != csr->ncols || (csr->nrows != csr->nrows_global && !ranks))
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                          "amg: the matrix is %lld x %lld (%lld rows here); AMG needs a square "
                          "matrix",
                          (long long)csr->nrows_global, (long long)csr->ncols,
                          (long long)csr->nrows);
    kryl_amg_options o = opts->amg;
    KRYL_TRY(kryl_amg_options_check(&o, csr->nrows));
    if (ranks && o.nullspace != NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "amg: a near-nullspace of the caller's (--nullspace, --coordinates) "
                          "is not taken over several ranks yet; the constant one is");

    if (o.aggregation == KRYL_AMG_AUTO_AGGREGATION || o.smoother == KRYL_AMG_AUTO_SMOOTHER) {
        double asymmetry = INFINITY;
        KRYL_TRY(kryl_matrix_measure_asymmetry(A, "the multigrid aggregation", &asymmetry));
        const bool symmetric = asymmetry <= opts->symmetry_tol;
        /* smoothing P with a nonsymmetric A stalls GMRES (convection-diffusion 300^2: no
         * convergence in 10000 iterations, plain 56) */
        if (o.aggregation == KRYL_AMG_AUTO_AGGREGATION)
            o.aggregation = symmetric ? KRYL_AMG_SMOOTHED : KRYL_AMG_PLAIN;
        /* ILU(0) holds convection: GMRES on convection-diffusion 1000^2 in 40 iterations
         * against Chebyshev's 126, sherman5 in 22 against 2376; on a device its setup
         * and sweeps cost a large easy matrix more time than Chebyshev's extra
         * iterations take (KRYL_AMG_DEVICE_ILU0_ROWS) */
        const bool ilu0_pays =
            !A->ctx->ops->device_memory || csr->nrows_global <= KRYL_AMG_DEVICE_ILU0_ROWS;
        if (o.smoother == KRYL_AMG_AUTO_SMOOTHER)
            o.smoother = symmetric || !ilu0_pays ? KRYL_AMG_CHEBYSHEV : KRYL_AMG_ILU0;
    }
    if (o.sweeps == 0) o.sweeps = default_sweeps(&o, A->ctx);
    amg_hierarchy *h = calloc(1, sizeof *h);
    if (h == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory");
    pc->data = h;
    pc->apply = amg_apply;
    pc->destroy = amg_destroy;
    pc->update = amg_precond_update;
    KRYL_TRY(amg_setup(h, A, source, &o, opts->symmetry_tol, kryl_precond_for_cg(opts)));
    const kryl_amg_info *info = &h->info;
    snprintf(pc->info, sizeof pc->info,
             "amg: %d levels (coarsest %lld rows), operator complexity %.2f, grid complexity "
             "%.2f, %s %s(%d), %s-cycle",
             info->levels, (long long)info->rows[info->levels - 1], info->operator_complexity,
             info->grid_complexity, kryl_amg_aggregation_name(o.aggregation),
             kryl_amg_smoother_name(o.smoother), o.sweeps, o.cycle == KRYL_AMG_W_CYCLE ? "W" : "V");
    kryl_log(pc->ctx, KRYL_LOG_INFO, "%s", pc->info);
    return KRYL_SUCCESS;
}

kryl_status kryl_precond_amg_info(const kryl_precond *pc, kryl_amg_info *info)
{
    if (pc == NULL || pc->kind != KRYL_PRECOND_AMG || pc->data == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "the solver has no algebraic multigrid preconditioner");
    *info = ((const amg_hierarchy *)pc->data)->info;
    return KRYL_SUCCESS;
}

kryl_status kryl_amg_rigid_body_modes(int64_t nodes, const double *xyz, double *modes)
{
    KRYL_REQUIRE_ARG(xyz);
    KRYL_REQUIRE_ARG(modes);
    if (nodes < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "rigid-body modes of %lld nodes",
                          (long long)nodes);
    double c[3] = {0.0, 0.0, 0.0};
    for (int64_t i = 0; i < nodes; i++)
        for (int d = 0; d < 3; d++) {
            if (!isfinite(xyz[3 * i + d]))
                return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "coordinate %d of node %lld is %g", d,
                                  (long long)i, xyz[3 * i + d]);
            c[d] += xyz[3 * i + d] / (double)nodes;
        }
    int64_t n = 3 * nodes;
    for (size_t k = 0; k < (size_t)n * 6; k++) modes[k] = 0.0;
    for (int64_t i = 0; i < nodes; i++) {
        double x = xyz[3 * i] - c[0], y = xyz[3 * i + 1] - c[1], z = xyz[3 * i + 2] - c[2];
        double *m = modes + 3 * i;
        /* translations e_x, e_y, e_z */
        m[0] = m[n + 1] = m[2 * n + 2] = 1.0;
        /* rotations about z, x, y: (-y, x, 0), (0, -z, y), (z, 0, -x) */
        m[3 * n] = -y;
        m[3 * n + 1] = x;
        m[4 * n + 1] = -z;
        m[4 * n + 2] = y;
        m[5 * n] = z;
        m[5 * n + 2] = -x;
    }
    return KRYL_SUCCESS;
}
