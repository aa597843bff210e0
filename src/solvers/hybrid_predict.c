/* Hybrid auto's choice on a matrix that fits the device, made before
 * anything of the host side exists: the SpMV bandwidth model
 * (src/formats/fmt_model.c, Kreutzer et al. 2012) on each side, with the
 * device's bandwidth from its backend (ops->device_model) and the host's
 * from one short copy loop (or the model's host defaults), gives each
 * side's speed and r_cpu = s_cpu / (s_cpu + s_gpu) (Tiwari & Vadhiyar,
 * section IV-C1); the host gets rows only where the saving beats the
 * exchange by a margin. */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "solvers/hybrid.h"

/* The host's copy loop: two arrays of this many bytes, larger than most
 * last-level caches so the loop sees memory; the best of a few passes. */
static const size_t HOST_COPY_BYTES = (size_t)32 << 20;
enum { HOST_COPY_PASSES = 3 };

/* A step of the split exchanges each side's m over the link (n doubles
 * in all) and waits once for the device's partial sums: a link of PCIe
 * 4.0 x16's practical speed (a faster one only makes the estimate
 * conservative) and a synchronising fetch with the launches it exposes. */
static const double LINK_BYTES_PER_S = 25e9;
static const double SYNC_S = 30e-6;

/* The margin: the host gets rows only where the saving is at least twice
 * the exchange (the host's speed is a guess from a copy loop) and at least
 * a tenth of the device's SpMV (the split's own setup: the host context,
 * each side's rows copied into its two matrices). */
static const double GAIN_OVER_EXCHANGE = 2.0;
static const double LEAST_GAIN = 0.1;

/* The most one host thread streams, the most of a server core's STREAM copy
 * (10-20 GB/s on current x86 and Arm servers): a bound, not an estimate. */
static const double CORE_BYTES_PER_S = 20e9;

void kryl_hybrid_predict(int64_t rows, int64_t cols, int64_t nnz, double device_bandwidth,
                         double host_bandwidth, kryl_hybrid_prediction *p)
{
    memset(p, 0, sizeof *p);
    p->device_bandwidth = device_bandwidth;
    p->host_bandwidth = host_bandwidth;
    /* one CSR SpMV in the bandwidth model with x loaded once (alpha = 1/Nnzr,
     * the model's lower bound, the same on both sides): values and columns,
     * row offsets, y written, x read */
    const double bytes =
        12.0 * (double)nnz + 8.0 * (double)(rows + 1) + 8.0 * (double)rows + 8.0 * (double)cols;
    p->device_s = bytes / device_bandwidth;
    p->host_s = bytes / host_bandwidth;
    /* r_cpu = s_cpu / (s_cpu + s_gpu), speeds in the same bytes per second */
    p->share = host_bandwidth / (host_bandwidth + device_bandwidth);
    p->exchange_s = 8.0 * (double)rows / LINK_BYTES_PER_S + SYNC_S;
    /* both sides finish their shares together, then the exchange */
    p->split_s = (1.0 - p->share) * p->device_s + p->exchange_s;
    const double saving = p->share * p->device_s;
    p->split = saving >= GAIN_OVER_EXCHANGE * p->exchange_s && saving >= LEAST_GAIN * p->device_s;
}

/* Bytes/s of a copy over HOST_COPY_BYTES on `threads` threads (read plus
 * written over its time, as the cuda backend counts its own), the best of
 * HOST_COPY_PASSES after the pages are touched; 0 where too fast to time. */
static kryl_status measure_host_copy(int threads, double *bandwidth)
{
    const int64_t n = (int64_t)(HOST_COPY_BYTES / sizeof(double));
    double *src = malloc(HOST_COPY_BYTES), *dst = malloc(HOST_COPY_BYTES);
    if (src == NULL || dst == NULL) {
        free(src);
        free(dst);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "hybrid: cannot allocate the host copy loop");
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) src[i] = dst[i] = (double)(i & 7);
    double best = 0.0;
    for (int pass = 1; pass <= HOST_COPY_PASSES; pass++) {
        const double t0 = kryl_wtime();
        /* dst = src + pass */
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) dst[i] = src[i] + (double)pass;
        const double seconds = kryl_wtime() - t0;
        if (seconds > 0.0 && 2.0 * (double)HOST_COPY_BYTES / seconds > best)
            best = 2.0 * (double)HOST_COPY_BYTES / seconds;
    }
    /* the copies happened (read back, so none is dropped) */
    *bandwidth = dst[n - 1] >= (double)HOST_COPY_PASSES ? best : 0.0;
    free(src);
    free(dst);
    return KRYL_SUCCESS;
}

double kryl_hybrid_host_bandwidth_bound(kryl_context ctx)
{
    if (ctx->host_bandwidth > 0.0 && !kryl_context_deterministic(ctx)) return ctx->host_bandwidth;
    return CORE_BYTES_PER_S * (double)kryl_host_threads(ctx);
}

kryl_status kryl_hybrid_host_bandwidth(kryl_context ctx, double *bandwidth)
{
    if (ctx->host_bandwidth == 0.0 && !kryl_context_deterministic(ctx)) {
        KRYL_TRY(measure_host_copy(kryl_host_threads(ctx), &ctx->host_bandwidth));
        if (!(ctx->host_bandwidth > 0.0)) ctx->host_bandwidth = -1.0; /* too fast to time */
    }
    if (ctx->host_bandwidth > 0.0 && !kryl_context_deterministic(ctx)) {
        *bandwidth = ctx->host_bandwidth;
        return KRYL_SUCCESS;
    }
    kryl_device_model defaults;
    kryl_host_device_model(&defaults);
    *bandwidth = defaults.bandwidth;
    return KRYL_SUCCESS;
}
