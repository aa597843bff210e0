/* The context: which backend, its device and stream, and logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

void kryl_context_options_init(kryl_context_options *options)
{
    if (options == NULL) return;
    options->backend = KRYL_BACKEND_AUTO;
    options->device = 0;
    options->threads = 0;
    options->log = NULL;
    options->log_user = NULL;
    options->log_level = KRYL_LOG_WARNING;
    options->deterministic = false;
}

static const kryl_backend_ops *backend_ops(kryl_backend_kind kind)
{
    switch (kind) {
    case KRYL_BACKEND_REF: return kryl_backend_ref();
    case KRYL_BACKEND_OMP: return kryl_backend_omp();
    case KRYL_BACKEND_CUDA: return kryl_cuda_device_present() ? kryl_backend_cuda() : NULL;
    default: return NULL;
    }
}

bool kryl_backend_available(kryl_backend_kind kind) { return backend_ops(kind) != NULL; }

/* auto: the GPU if one answers, else the host's cores, else the reference. */
static kryl_backend_kind resolve_backend(kryl_backend_kind kind)
{
    if (kind != KRYL_BACKEND_AUTO) return kind;
    if (kryl_backend_available(KRYL_BACKEND_CUDA)) return KRYL_BACKEND_CUDA;
    if (kryl_backend_available(KRYL_BACKEND_OMP)) return KRYL_BACKEND_OMP;
    return KRYL_BACKEND_REF;
}

/* The device memory cap KRYL_GPU_MEMORY sets on a new context. */
static kryl_status cap_from_environment(kryl_context c)
{
    const char *text = getenv("KRYL_GPU_MEMORY");
    if (text == NULL || text[0] == '\0' || c->ops->set_memory_limit == NULL) return KRYL_SUCCESS;
    int64_t bytes = 0;
    kryl_status st = kryl_parse_bytes(text, &bytes);
    if (st != KRYL_SUCCESS) return kryl_error_prefix(st, "KRYL_GPU_MEMORY");
    return c->ops->set_memory_limit(c, bytes);
}

kryl_status kryl_context_create(kryl_context *ctx, const kryl_context_options *options)
{
    KRYL_REQUIRE_ARG(ctx);
    *ctx = NULL;
    kryl_context_options defaults;
    kryl_context_options_init(&defaults);
    if (options == NULL) options = &defaults;
    if (options->threads < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "thread count %d is negative",
                          options->threads);
    if (options->device < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "device ordinal %d is negative",
                          options->device);
    kryl_backend_kind kind = resolve_backend(options->backend);
    const kryl_backend_ops *ops = backend_ops(kind);
    if (ops == NULL) {
        const char *why = kind == KRYL_BACKEND_CUDA
                              ? (kryl_backend_cuda() ? "no CUDA device is usable on this machine"
                                                     : "this build has no CUDA support")
                              : "this build has no OpenMP support";
        return KRYL_ERROR(KRYL_ERR_BACKEND_UNAVAILABLE, "backend '%s' is unavailable: %s",
                          kryl_backend_name(kind), why);
    }
    struct kryl_context_s *c = calloc(1, sizeof *c);
    if (c == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a context");
    c->kind = kind;
    c->ops = ops;
    c->device = options->device;
    c->threads = options->threads;
    c->log = options->log;
    c->log_user = options->log_user;
    c->log_level = options->log_level;
    c->deterministic = options->deterministic;
    kryl_status st = ops->init(c);
    if (st != KRYL_SUCCESS) {
        free(c);
        return st;
    }
    st = cap_from_environment(c);
    if (st != KRYL_SUCCESS) {
        ops->finalize(c);
        free(c);
        return st;
    }
    kryl_log(c, KRYL_LOG_INFO, "kryl: backend %s on %s", ops->name, c->device_name);
    *ctx = c;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_destroy(kryl_context *ctx)
{
    if (ctx == NULL || *ctx == NULL) return KRYL_SUCCESS;
    kryl_context c = *ctx;
    if (c->live_objects != 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_context_destroy: %d objects (matrices, vectors, solvers) made "
                          "on the context are still alive; destroy them first (the context is "
                          "left as it is)",
                          c->live_objects);
#ifdef KRYL_HAVE_MPI
    kryl_dist_context_free(c);
#endif
    c->ops->finalize(c);
    free(c);
    *ctx = NULL;
    return KRYL_SUCCESS;
}

kryl_backend_kind kryl_context_backend(kryl_context ctx)
{
    return ctx ? ctx->kind : KRYL_BACKEND_AUTO;
}

const char *kryl_context_device_name(kryl_context ctx) { return ctx ? ctx->device_name : ""; }

bool kryl_context_deterministic(kryl_context ctx) { return ctx != NULL && ctx->deterministic; }

kryl_status kryl_context_rank(kryl_context ctx, int *rank, int *size)
{
    KRYL_REQUIRE_ARG(ctx);
    int r = 0, s = 1;
#ifdef KRYL_HAVE_MPI
    if (ctx->dist) kryl_dist_rank(ctx, &r, &s);
#endif
    if (rank) *rank = r;
    if (size) *size = s;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_set_overlap(kryl_context ctx, kryl_overlap overlap)
{
    KRYL_REQUIRE_ARG(ctx);
    if (overlap < KRYL_OVERLAP_VECTOR || overlap > KRYL_OVERLAP_TASK)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown overlap mode %d", (int)overlap);
#ifdef KRYL_HAVE_MPI
    if (ctx->dist) kryl_dist_set_overlap(ctx, overlap);
#endif
    return KRYL_SUCCESS;
}

kryl_status kryl_context_set_partition(kryl_context ctx, kryl_partition_kind partition)
{
    KRYL_REQUIRE_ARG(ctx);
    if (partition < KRYL_PARTITION_AUTO || partition > KRYL_PARTITION_METIS)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "unknown partition %d", (int)partition);
#ifdef KRYL_HAVE_MPI
    if (ctx->dist) kryl_dist_set_partition(ctx, partition);
#endif
    return KRYL_SUCCESS;
}

kryl_status kryl_context_set_gpu_memory(kryl_context ctx, int64_t bytes)
{
    KRYL_REQUIRE_ARG(ctx);
    if (bytes < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_context_set_gpu_memory: %lld bytes; expected a cap > 0 or 0 for "
                          "none",
                          (long long)bytes);
    if (ctx->ops->set_memory_limit) return ctx->ops->set_memory_limit(ctx, bytes);
    ctx->emulated_gpu_memory = bytes;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_device_memory(kryl_context ctx, kryl_device_memory *info)
{
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(info);
    memset(info, 0, sizeof *info);
    if (ctx->ops->memory_info)
        ctx->ops->memory_info(ctx, info);
    else
        info->limit = info->available = ctx->emulated_gpu_memory;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_defer_matrix_storage(kryl_context ctx, bool defer)
{
    KRYL_REQUIRE_ARG(ctx);
    if (ctx->dist && defer)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_context_defer_matrix_storage: one process only; a distributed "
                          "context builds each rank's storage at creation");
    ctx->defer_storage = defer;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_reset_dist_stats(kryl_context ctx)
{
    KRYL_REQUIRE_ARG(ctx);
#ifdef KRYL_HAVE_MPI
    if (ctx->dist) kryl_dist_reset_stats(ctx);
#endif
    return KRYL_SUCCESS;
}

kryl_status kryl_context_agree(kryl_context ctx, kryl_status st)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_agree(ctx, st);
#endif
    (void)ctx;
    return st;
}

void kryl_log(kryl_context ctx, kryl_log_level level, const char *fmt, ...)
{
    if (ctx == NULL || ctx->log == NULL || level > ctx->log_level) return;
    char line[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    ctx->log(level, line, ctx->log_user);
}

double kryl_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
