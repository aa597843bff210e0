/* The omp backend: OpenMP on the host's cores.  Lifecycle, memory (plain
 * 64-byte aligned host memory, zeroed by the threads that will use it) and
 * the operation table. */
#include "backends/omp/omp_backend.h"
#include "backends/host_mcsweep.h"
#include "backends/host_step.h"
#include "backends/omp/omp_krylov.h"
#include "backends/ref/ref_factor.h"
#include "backends/ref/ref_trsv.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KRYL_OMP_ALIGN 64

static kryl_status host_init(kryl_context ctx)
{
    if (ctx->threads < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp backend: threads = %d, expected 0 (OpenMP's default) or more",
                          ctx->threads);
    kryl_omp_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp backend: cannot allocate %zu bytes",
                          sizeof *s);
    s->threads = ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
    kryl_omp_team_init(s);
    ctx->host_team = kryl_omp_host_team;
    size_t bytes = (size_t)KRYL_OMP_PARTS_MAX * KRYL_OMP_PART_SLOTS * sizeof(double);
    s->partials = aligned_alloc(KRYL_OMP_ALIGN, bytes);
    if (s->partials == NULL) {
        free(s);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "omp backend: cannot allocate %zu bytes of reduction workspace", bytes);
    }
    memset(s->partials, 0, bytes);
    ctx->backend = s;
    snprintf(ctx->device_name, sizeof ctx->device_name, "OpenMP, %d thread%s%s", s->threads,
             s->threads == 1 ? "" : "s",
             s->adapt ? " (the team follows the cores other programs leave free)" : "");
    return KRYL_SUCCESS;
}

static void host_finalize(kryl_context ctx)
{
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    if (s == NULL) return;
    free(s->partials);
    free(s);
    ctx->backend = NULL;
}

static kryl_status host_alloc(kryl_context ctx, void **ptr, size_t bytes)
{
    *ptr = NULL;
    if (bytes == 0) return KRYL_SUCCESS;
    if (bytes > SIZE_MAX - KRYL_OMP_ALIGN)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "omp backend: cannot allocate %zu bytes of host memory", bytes);
    /* aligned_alloc needs a multiple of the alignment */
    size_t padded = (bytes + KRYL_OMP_ALIGN - 1) / KRYL_OMP_ALIGN * KRYL_OMP_ALIGN;
    unsigned char *p = aligned_alloc(KRYL_OMP_ALIGN, padded);
    if (p == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "omp backend: cannot allocate %zu bytes of host memory", bytes);
    /* Zero in the same static blocks the vector loops use, so each page is
     * first touched (and placed) by the thread that will work on it. */
    int64_t lines = (int64_t)(padded / KRYL_OMP_ALIGN);
#pragma omp parallel for schedule(static) num_threads(                                             \
    kryl_omp_state_of(ctx)->threads) if (padded >= KRYL_OMP_MIN_PARALLEL * sizeof(double))
    for (int64_t l = 0; l < lines; l++) memset(p + l * KRYL_OMP_ALIGN, 0, KRYL_OMP_ALIGN);
    *ptr = p;
    return KRYL_SUCCESS;
}

static void host_release(kryl_context ctx, void *ptr) { free(ptr); }

static kryl_status host_upload(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    if (bytes > 0) memcpy(dst, src, bytes);
    return KRYL_SUCCESS;
}

static kryl_status host_download(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    if (bytes > 0) memcpy(dst, src, bytes);
    return KRYL_SUCCESS;
}

/* Every operation has finished when it returns: nothing to wait for. */
static kryl_status host_synchronize(kryl_context ctx) { return KRYL_SUCCESS; }

static const kryl_backend_ops omp_backend_ops = {
    .name = "omp",
    /* a convergence check costs nothing on the host: check every iteration */
    .check_interval = 1,
    .formats = ~0u, /* every format, each with its own kernel (omp_spmv_fmt.c) */
    .device_memory = false,
    .init = host_init,
    .finalize = host_finalize,
    .alloc = host_alloc,
    .release = host_release,
    .upload = host_upload,
    .download = host_download,
    .synchronize = host_synchronize,
    .copy_to_host_async = kryl_host_copy_async,
    .copy_from_host_async = kryl_host_copy_async,
    .copy_wait = kryl_host_copy_wait,
    .host_pin = kryl_host_pin,
    .host_unpin = kryl_host_unpin,
    .matrix_setup = kryl_omp_matrix_setup,
    .matrix_release = kryl_omp_matrix_release,
    .csr_asymmetry = kryl_host_csr_asymmetry,
    .csr_diagonal = kryl_host_csr_diagonal,
    .csr_row_sums = kryl_host_csr_row_sums,
    .csr_unmirrored = kryl_host_csr_unmirrored,
    .spmv = kryl_omp_spmv,
    .fill = kryl_omp_fill,
    .fill_random = kryl_omp_fill_random,
    .permute_copy = kryl_omp_permute_copy,
    .axpby = kryl_omp_axpby,
    .pointwise_mult = kryl_omp_pointwise_mult,
    .chebyshev_step = kryl_omp_chebyshev_step,
    .dot = kryl_omp_dot,
    .cg_update_xr = kryl_omp_cg_update_xr,
    .cg_update_p = kryl_omp_cg_update_p,
    .cg1_terms = kryl_omp_cg1_terms,
    .cg1_update = kryl_omp_cg1_update,
    .monitor_update = kryl_omp_monitor_update,
    /* operations of the other Krylov methods (omp_krylov.c, omp_basis.c); the
     * serial ones on a few host scalars are ref's host code */
    .pipecg_update = kryl_omp_pipecg_update,
    .dot2 = kryl_omp_dot2,
    .bicgstab_update_s = kryl_omp_bicgstab_update_s,
    .bicgstab_update_xr = kryl_omp_bicgstab_update_xr,
    .bicgstab_update_p = kryl_omp_bicgstab_update_p,
    .multi_dot = kryl_omp_multi_dot,
    .multi_axpy = kryl_omp_multi_axpy,
    .normalize = kryl_omp_normalize,
    .gmres_cycle_start = kryl_ref_gmres_cycle_start,
    .gmres_givens = kryl_ref_gmres_givens,
    .gmres_solve = kryl_ref_gmres_solve,
    .gmres_dcgs2_dot = kryl_omp_gmres_dcgs2_dot,
    .gmres_dcgs2_update = kryl_omp_gmres_dcgs2_update,
    .gmres_dcgs2_column = kryl_ref_gmres_dcgs2_column,
    .fcg_update_p = kryl_omp_fcg_update_p,
    .monitor_restart = kryl_ref_monitor_restart,
    /* triangular solves (omp_trsv.c), in ref's host storage */
    .trsv_setup = kryl_omp_trsv_setup,
    .trsv = kryl_omp_trsv,
    .trsv_release = kryl_ref_trsv_release,
    .trsv_path = kryl_omp_trsv_path,
    /* algebraic multigrid aggregation: the host's code (host_aggregate.c) */
    .amg_aggregate = kryl_host_amg_aggregate,
    /* multicolor ordering: rounds on the team (omp_color.c), grouped as ref does */
    .color_rows = kryl_omp_color_rows,
    .color_group = kryl_host_color_group,
    .color_first_fit = kryl_host_color_first_fit,
    .amg_tentative = kryl_host_amg_tentative,
    /* multicolor SSOR, a color at a time on the team (omp_mcsweep.c) */
    .csr_permute = kryl_omp_csr_permute,
    .mcsweep_setup = kryl_omp_mcsweep_setup,
    .mcsweep = kryl_omp_mcsweep,
    .mcsweep_release = kryl_host_mcsweep_release,
    /* incomplete factorizations: rows of a level at once (omp_trsv.c), ref's storage */
    .factor_setup = kryl_ref_factor_setup,
    .factor_numeric = kryl_omp_factor_numeric,
    .factor_trsv = kryl_ref_factor_trsv,
    .factor_release = kryl_ref_factor_release,
    .amax = kryl_omp_amax,
};

const kryl_backend_ops *kryl_backend_omp(void) { return &omp_backend_ops; }
