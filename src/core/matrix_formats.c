/* A matrix's storage formats as seen from its context: the device numbers
 * of the SpMV bandwidth model (Kreutzer et al. 2012, eq. 1), each format's
 * footprint and predicted time, and the format KRYL_FORMAT_AUTO picks
 * (the model's passes over the entries by the backend where A's CSR is
 * stored there: csr_reach, csr_diagonals, csr_blocks). */
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"

kryl_status kryl_context_device_model(kryl_context ctx, kryl_device_model *dev)
{
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(dev);
    if (ctx->ops->device_model) return ctx->ops->device_model(ctx, dev);
    kryl_host_device_model(dev);
    return KRYL_SUCCESS;
}

void kryl_host_device_model(kryl_device_model *dev)
{
    dev->bandwidth = 20e9;       /* order of a server socket's stream bandwidth */
    dev->cache_bytes = 32 << 20; /* a typical last-level cache */
    dev->line_bytes = 64;
}

/* Whether the context's backend has an SpMV kernel for `format`. */
static bool has_kernel(kryl_context ctx, kryl_format format)
{
    return (ctx->ops->formats & (1u << format)) != 0;
}

/* The default format parameters, measured on A's host threads. */
static kryl_fmt_params host_params(kryl_matrix A)
{
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    p.threads = A->host->threads;
    return p;
}

kryl_status kryl_matrix_format_info(kryl_matrix A, kryl_format format, kryl_format_info *info)
{
    KRYL_REQUIRE_ARG(info);
    memset(info, 0, sizeof *info);
    info->format = format;
    KRYL_REQUIRE_ARG(A);
    A = kryl_matrix_local_part(A); /* over several ranks: this rank's local part */
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_format_info"));
    if (format <= KRYL_FORMAT_AUTO || format > KRYL_FORMAT_DIA)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_format_info: format %d is not a storage format (csr, "
                          "ell, ellr, jds, pjds, sell, bcsr2, bcsr4 or dia; resolve auto with "
                          "kryl_matrix_choose_format)",
                          (int)format);
    const kryl_csr *csr = &A->host->csr;
    kryl_device_model dev;
    kryl_fmt_cost cost, csr_cost;
    kryl_fmt_model model;
    const kryl_fmt_params p = host_params(A);
    KRYL_TRY(kryl_context_device_model(A->ctx, &dev));
    KRYL_TRY(kryl_fmt_cost_of(csr, format, &p, &cost));
    KRYL_TRY(kryl_fmt_cost_of(csr, KRYL_FORMAT_CSR, &p, &csr_cost));
    KRYL_TRY(kryl_fmt_predict(csr, format, &p, &dev, &model));
    const double nnz = (double)kryl_csr_nnz(csr);
    info->suitable = cost.suitable;
    info->kernel = has_kernel(A->ctx, format);
    memcpy(info->why, cost.why, sizeof info->why);
    info->why[sizeof info->why - 1] = '\0';
    info->stored = cost.stored;
    info->bytes = cost.bytes;
    info->bytes_single = cost.bytes_single;
    /* ratios of the footprint to CSR's and to 12 bytes (value + column) per nonzero */
    info->ratio_csr = csr_cost.bytes > 0 ? (double)cost.bytes / (double)csr_cost.bytes : 1.0;
    info->ratio_nnz = nnz > 0 ? (double)cost.bytes / (12.0 * nnz) : 0.0;
    info->alpha = model.alpha;
    info->code_balance = model.code_balance;
    info->spmv_bytes = model.bytes;
    info->predicted_seconds = model.seconds;
    info->bandwidth = dev.bandwidth;
    return KRYL_SUCCESS;
}

/* The format model's counts read where A's CSR is stored (kryl_fmt_counter). */
static kryl_status backend_far(void *arg, int64_t window, int64_t near, int64_t *far)
{
    kryl_matrix A = arg;
    return A->ctx->ops->csr_reach(A->ctx, A, window, near, far);
}

static kryl_status backend_diagonals(void *arg, int64_t *ndiag)
{
    kryl_matrix A = arg;
    return A->ctx->ops->csr_diagonals(A->ctx, A, ndiag);
}

static kryl_status backend_blocks(void *arg, int64_t b, int64_t *nblocks)
{
    kryl_matrix A = arg;
    return A->ctx->ops->csr_blocks(A->ctx, A, b, nblocks);
}

kryl_status kryl_matrix_choose_format(kryl_matrix A, kryl_format *format, char *why,
                                      size_t why_size)
{
    KRYL_REQUIRE_ARG(format);
    *format = KRYL_FORMAT_CSR;
    if (why != NULL && why_size > 0) why[0] = '\0';
    KRYL_REQUIRE_ARG(A);
    A = kryl_matrix_local_part(A); /* over several ranks: this rank's local part */
    KRYL_TRY(kryl_matrix_need_host(A, "the format model"));
    char reason[320];
    kryl_device_model dev;
    KRYL_TRY(kryl_context_device_model(A->ctx, &dev));
    const kryl_fmt_params p = host_params(A);
    /* the passes over every entry by the backend where A's CSR is stored there */
    const kryl_backend_ops *ops = A->ctx->ops;
    const kryl_fmt_counter counter = {backend_far, backend_diagonals, backend_blocks, A};
    const bool counted =
        ops->csr_reach && ops->csr_diagonals && ops->csr_blocks && kryl_matrix_natural_csr(A);
    KRYL_TRY(kryl_fmt_choose_counted(&A->host->csr, &p, &dev, counted ? &counter : NULL, format,
                                     reason, sizeof reason));
    if (!has_kernel(A->ctx, *format)) {
        snprintf(reason, sizeof reason, "csr: the model's choice, %s, has no %s kernel",
                 kryl_format_name(*format), A->ctx->ops->name);
        *format = KRYL_FORMAT_CSR;
    }
    if (why != NULL && why_size > 0) snprintf(why, why_size, "%s", reason);
    return KRYL_SUCCESS;
}
