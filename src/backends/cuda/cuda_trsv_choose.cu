/* The choice of a device triangular solve path at setup.  A model of each
 * path's time skips the hopeless ones (a launch per level costs about the
 * launch latency, a row of the synchronisation-free path waits about one
 * trip through L2 for each level before it, the host path pays the copies
 * and a serial pass); a path whose estimate is well below every other's is
 * taken untimed, else the others are timed on the triangle itself, on the
 * context's stream (a warm-up solve, then one), and the fastest is kept.
 * A deterministic context takes the model's choice untimed: the host path
 * sums a row in another order than the device paths, so a timing that
 * varies from run to run would change the bits of x. */
#include <math.h>
#include <stdio.h>

#include "backends/cuda/cuda_trsv.cuh"

/* Model constants: the scale of each cost on a current GPU and host, to
 * rank the paths within an order of magnitude, not to predict times. */
static const double LAUNCH_S = 5e-6;      /* one kernel launch in a sequence */
static const double HOP_S = 3e-6;         /* a row solved, then seen by the next level */
static const double DEVICE_BW = 2e12;     /* bytes/s a solve streams from device memory */
static const double PCIE_BW = 2e10;       /* bytes/s of a pinned copy each way */
static const double HOST_ENTRY_S = 2e-9;  /* a serial pass, per row and per entry */
static const double HOST_FIXED_S = 20e-6; /* the host function's round trip */
/* A path estimated this many times slower than the best estimate is not timed. */
static const double HOPELESS = 10.0;
/* The best estimate this many times below every other candidate's is taken untimed: levels
 * against syncfree is at most LAUNCH_S / HOP_S = 5/3 apart, where the count of levels rules,
 * and measured 1.87 apart there (7-point 160^3, H200: 2.64 against 1.41 ms a solve). */
static const double SEPARATED = 1.5;
/* A solve estimated to take this long is timed once after the warm-up (the events resolve
 * about a microsecond); shorter ones a few times. */
static const double TIMED_ONCE_S = 1e-4;

/* Estimated seconds of one solve by each path. */
static void model(const cuda_trsv *D, double est[KRYL_CUDA_TRSV_PATHS])
{
    const double real = (double)kryl_precision_size(D->precision);
    const double n = (double)D->n, nnz = (double)D->nnz, levels = (double)D->nlevels;
    /* entries (value, column), then offsets, the row list, b, x and the diagonal */
    const double stream = (nnz * (real + 4.0) + n * (8.0 + 4.0 + 3.0 * real)) / DEVICE_BW;
    est[KRYL_CUDA_TRSV_AUTO] = 0.0;
    est[KRYL_CUDA_TRSV_LEVELS] = levels * LAUNCH_S + stream;
    est[KRYL_CUDA_TRSV_SYNCFREE] = LAUNCH_S + levels * HOP_S + stream;
    est[KRYL_CUDA_TRSV_HOST] = HOST_FIXED_S + 2.0 * n * real / PCIE_BW + (n + nnz) * HOST_ENTRY_S;
    /* values refreshed on the device have no host copy to solve from */
    if (D->device_only) est[KRYL_CUDA_TRSV_HOST] = INFINITY;
}

/* Seconds per solve by D->path on b = 0 (one solve to warm up, then reps). */
static kryl_status time_path(kryl_cuda_state *s, cuda_trsv *D, const void *b, void *x, int reps,
                             cudaEvent_t start, cudaEvent_t stop, double *seconds)
{
    KRYL_TRY(kryl_cuda_trsv_run(s, D, b, x));
    KRYL_CUDA_CHECK(cudaEventRecord(start, s->stream));
    for (int r = 0; r < reps; r++) KRYL_TRY(kryl_cuda_trsv_run(s, D, b, x));
    KRYL_CUDA_CHECK(cudaEventRecord(stop, s->stream));
    KRYL_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    KRYL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    *seconds = 1e-3 * (double)ms / reps;
    return KRYL_SUCCESS;
}

/* Time every path in `timed` on a zero right-hand side; seconds[p] < 0 for the others. */
static kryl_status time_paths(kryl_cuda_state *s, cuda_trsv *D, const bool *timed,
                              const double *est, double *seconds)
{
    const size_t bytes = (size_t)(D->n > 0 ? D->n : 1) * kryl_precision_size(D->precision);
    void *bx = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    kryl_status st = kryl_cuda_malloc(s, &bx, 2 * bytes, "the vectors timing the solve paths");
    if (st == KRYL_SUCCESS &&
        (cudaMemsetAsync(bx, 0, 2 * bytes, s->stream) != cudaSuccess ||
         cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess))
        st = kryl_cuda_failed(cudaGetLastError(), "preparing the trsv path timing", KRYL_WHERE);
    for (int p = 1; p < KRYL_CUDA_TRSV_PATHS && st == KRYL_SUCCESS; p++) {
        seconds[p] = -1.0;
        if (!timed[p]) continue;
        D->path = (kryl_cuda_trsv_path_kind)p;
        const int reps = est[p] < TIMED_ONCE_S ? 5 : 1;
        st = time_path(s, D, bx, static_cast<char *>(bx) + bytes, reps, start, stop, &seconds[p]);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    kryl_cuda_free(s, bx);
    return st;
}

kryl_status kryl_cuda_trsv_choose(kryl_context ctx, kryl_cuda_state *s, cuda_trsv *D,
                                  kryl_cuda_trsv_path_kind requested)
{
    double est[KRYL_CUDA_TRSV_PATHS], seconds[KRYL_CUDA_TRSV_PATHS] = {0};
    bool timed[KRYL_CUDA_TRSV_PATHS] = {false};
    model(D, est);
    double best_est = est[KRYL_CUDA_TRSV_LEVELS];
    for (int p = 1; p < KRYL_CUDA_TRSV_PATHS; p++) best_est = est[p] < best_est ? est[p] : best_est;
    int candidates = 0, separated = 1;
    for (int p = 1; p < KRYL_CUDA_TRSV_PATHS; p++) {
        timed[p] =
            requested == KRYL_CUDA_TRSV_AUTO ? est[p] <= HOPELESS * best_est : p == (int)requested;
        candidates += timed[p];
        separated += timed[p] && est[p] >= SEPARATED * best_est;
    }
    /* only the candidates' buffers: the host path's pinned ones cost more than a solve */
    if (timed[KRYL_CUDA_TRSV_SYNCFREE]) KRYL_TRY(kryl_cuda_trsv_syncfree_setup(s, D));
    if (timed[KRYL_CUDA_TRSV_HOST]) KRYL_TRY(kryl_cuda_trsv_host_setup(D));
    const char *how = "requested";
    if (requested != KRYL_CUDA_TRSV_AUTO) {
        D->path = requested;
    } else if (separated == candidates || D->n == 0 || kryl_context_deterministic(ctx)) {
        how = "model";
        /* the lowest estimate (levels on a tie, and for an empty triangle) */
        D->path = KRYL_CUDA_TRSV_LEVELS;
        for (int p = 1; p < KRYL_CUDA_TRSV_PATHS; p++)
            if (est[p] < est[D->path]) D->path = (kryl_cuda_trsv_path_kind)p;
    } else {
        how = "timed";
        KRYL_TRY(time_paths(s, D, timed, est, seconds));
        int best = 0;
        for (int p = 1; p < KRYL_CUDA_TRSV_PATHS; p++)
            if (timed[p] && (best == 0 || seconds[p] < seconds[best])) best = p;
        D->path = (kryl_cuda_trsv_path_kind)best;
    }
    char line[3][48];
    for (int p = 1; p < KRYL_CUDA_TRSV_PATHS; p++) {
        if (!timed[p] || how[0] != 't')
            snprintf(line[p - 1], sizeof line[p - 1], "%s ~%.3g ms (model)",
                     kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)p), 1e3 * est[p]);
        else
            snprintf(line[p - 1], sizeof line[p - 1], "%s %.3g ms",
                     kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)p), 1e3 * seconds[p]);
    }
    kryl_log(ctx, KRYL_LOG_INFO,
             "cuda trsv: %s triangle, n = %lld, %lld off-diagonal entries, %lld levels (widest "
             "%lld rows), "
             "%d lanes per row; path %s (%s: %s, %s, %s)",
             D->lower ? "lower" : "upper", (long long)D->n, (long long)D->nnz,
             (long long)D->nlevels, (long long)D->max_level_rows, D->lanes,
             kryl_cuda_trsv_path_name(D->path), how, line[0], line[1], line[2]);
    return KRYL_SUCCESS;
}
