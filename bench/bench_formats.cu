/* SpMV of the cuda backend in every storage format, in double, against
 * cuSPARSE's CSR SpMV (cusparseSpMV, CSR_ALG1, buffer preprocessed once) in
 * the same run, and against the bandwidth model (formats/format.h).
 *
 * Two sets of matrices:
 *   LARGE  (bandwidth-bound): poisson3d 7-point 160^3, 27-point 100^3,
 *          125-point 100^3 (1 M rows, 121 M nonzeros), powerlaw 4 M rows, dense
 *          5x5 blocks on a 448^2 5-point grid (kron(poisson2d, ones(5,5)) + I,
 *          1 M rows), convdiff3d 100^3;
 *   SMALL  (latency-bound): every square matrix of $KRYL_MATRICES.
 * Per matrix and format: the time of the library's default kernel (median
 * over batches timed with events after at least 25 ms of warm-up), GFLOP/s
 * (2 nnz flops), GB/s on the format's own bytes (its arrays as the device
 * stores them, padding included, plus x once and y once) and on CSR's
 * minimum bytes (nnz*12 + (n+1)*4 + n*16), that rate as a fraction of the
 * device-to-device copy bandwidth (the device model's), cuSPARSE time /
 * ours, the model's prediction and alpha, the alpha the measured time
 * implies (bytes = t * copy bandwidth, less the model's non-x bytes, over
 * 8 nnz), the time with x read by plain loads instead of the read-only
 * cache, and the fastest of the format's kernel variants.  Then the best
 * format per matrix, the geometric mean of cuSPARSE / best over the large
 * set, and what `auto` (kryl_fmt_choose with the device model) picks and
 * its time relative to the best.  Every result is checked against
 * cuSPARSE's y.
 *
 * usage: bench_formats [--quick] [--large-only | --small-only]
 *        (--quick: smaller large matrices, for a smoke test) */
#include <cstring>
#include <string>
#include <thread>

#include <dirent.h>

#include "backends/backend.h"
#include "backends/cuda/cuda_hooks.h"

#define BENCH_NAME "bench_formats"
#include "bench_common.cuh"

/* Launches per batch and batches for a product of about `guess_ms`. */
struct repeats {
    int batch, batches;
};
static repeats repeats_for(double guess_ms)
{
    if (guess_ms > 0.2) return {5, 21};
    if (guess_ms > 0.02) return {20, 21};
    return {100, 15};
}

/* cuSPARSE's y = A x on A's CSR (natural order, int32 offsets): its time,
 * and y into hy. */
static double cusparse_ms(kryl_matrix A, cudaStream_t stream, const double *d_x,
                          std::vector<double> &hy)
{
    int64_t n, nnz;
    KRYL_OK(kryl_matrix_size(A, &n, nullptr, &nnz));
    double *d_y;
    CUDA_OK(cudaMalloc(&d_y, n * sizeof(double)));
    const double bytes = (double)nnz * 12.0 + (double)(n + 1) * 4.0 + (double)n * 16.0;
    const repeats rep = repeats_for(bytes / 2.5e9);
    const double ms = cusparse_spmv_ms(A, stream, d_x, d_y, rep.batch, rep.batches);
    hy.resize(n);
    CUDA_OK(cudaMemcpy(hy.data(), d_y, n * sizeof(double), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaFree(d_y));
    return ms;
}

/* The kernel variants of a format timed besides the default. */
static std::vector<int> variants_of(kryl_format f, int64_t ndiag)
{
    switch (f) {
    case KRYL_FORMAT_JDS:
        if (ndiag <= 256) return {KRYL_CUDA_FMT_JDS_ROW, KRYL_CUDA_FMT_JDS_DIAGONAL};
        return {KRYL_CUDA_FMT_JDS_ROW};
    case KRYL_FORMAT_DIA: return {1, 2};
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: return {1, 2, 4, 8, 16, 32};
    default: return {};
    }
}

/* Bytes the device stores for B (arrays as uploaded, padding included). */
static double device_bytes(kryl_matrix B, const kryl_fmt_cost &cost)
{
    const kryl_fmt &f = B->fmt;
    if (f.kind == KRYL_FORMAT_CSR) return (double)f.nnz * 12.0 + (double)(f.nrows + 1) * 4.0;
    /* the cost counts the permutation, which the kernels never read */
    return (double)cost.bytes - (f.perm ? 4.0 * (double)f.nrows : 0.0);
}

/* One format's measurements on one matrix. */
struct format_result {
    kryl_format format;
    bool refused, wrong;
    std::string why, kernel, best_kernel;
    double ms, plain_ms, best_ms;
    double own_bytes;
    kryl_fmt_model model;
};

/* One matrix's measurements. */
struct matrix_result {
    std::string name;
    int64_t n, nnz;
    double cusparse_ms;
    std::vector<format_result> formats;
    kryl_format choice;
    std::string why;
};

struct bench {
    kryl_context ctx;
    cudaStream_t stream;
    kryl_device_model dev;
    double copy_gbs;
};

/* Time y = B x with B's current kernel; *wrong when y differs from cuSPARSE's. */
static double time_product(bench &b, kryl_matrix B, kryl_vector x, kryl_vector y,
                           const std::vector<double> &ref, const char *label, double guess_ms,
                           bool *wrong)
{
    const int64_t n = B->fmt.nrows;
    auto launch = [&] { KRYL_OK(b.ctx->ops->spmv(b.ctx, B, 1.0, x, 0.0, nullptr, y, nullptr)); };
    const repeats rep = repeats_for(guess_ms);
    const double ms = time_ms(b.stream, launch, rep.batch, rep.batches);
    std::vector<double> hy(n);
    KRYL_OK(kryl_vector_get(y, hy.data(), n));
    const double diff = scaled_diff(hy, ref);
    if (!(diff <= 1e-12)) {
        char kernel[64];
        kryl_cuda_spmv_describe(B, kernel, sizeof kernel);
        printf("WRONG: %s %s differs from cuSPARSE by %.3g (left out)\n", label, kernel, diff);
        *wrong = true;
    }
    return ms;
}

/* Measure A in `format`: default kernel, plain x, and (all_variants) every
 * kernel variant. */
static void run_format(bench &b, kryl_matrix A, format_result &r, const kryl_fmt_cost &cost,
                       const std::vector<double> &hx, const std::vector<double> &ref,
                       const char *label, bool all_variants)
{
    const kryl_format format = r.format;
    kryl_matrix B = nullptr;
    kryl_status st = kryl_matrix_convert(&B, A, KRYL_DOUBLE, format, nullptr, KRYL_ORDER_NONE);
    if (st == KRYL_ERR_FORMAT_UNSUITABLE) {
        r.refused = true;
        r.why = kryl_last_error();
        return;
    }
    KRYL_OK(st);
    const int64_t n = B->fmt.nrows;
    r.own_bytes = device_bytes(B, cost) + 16.0 * (double)n;
    kryl_vector x, y;
    KRYL_OK(kryl_vector_create_like(&x, b.ctx, B->layout, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_create_like(&y, b.ctx, B->layout, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_set(x, hx.data(), n));
    const double guess = 1e3 * r.own_bytes / (b.copy_gbs * 1e9);
    char kernel[64];
    kryl_cuda_spmv_describe(B, kernel, sizeof kernel);
    r.kernel = kernel;
    r.ms = r.best_ms = time_product(b, B, x, y, ref, label, guess, &r.wrong);
    r.best_kernel = kernel;
    r.plain_ms = NAN;
    if (format != KRYL_FORMAT_CSR) {
        KRYL_OK(kryl_cuda_fmt_readonly_x(B, false));
        r.plain_ms = time_product(b, B, x, y, ref, label, guess, &r.wrong);
        KRYL_OK(kryl_cuda_fmt_readonly_x(B, true));
    }
    const int64_t ndiag = B->fmt.kind == KRYL_FORMAT_JDS ? B->fmt.u.jds.ndiag : 0;
    for (int v : all_variants ? variants_of(format, ndiag) : std::vector<int>{}) {
        KRYL_OK(kryl_cuda_fmt_select(B, v));
        kryl_cuda_spmv_describe(B, kernel, sizeof kernel);
        if (r.kernel == kernel) continue; /* the default, timed above */
        bool wrong = false;
        const double ms = time_product(b, B, x, y, ref, label, guess, &wrong);
        if (!wrong && ms < r.best_ms) {
            r.best_ms = ms;
            r.best_kernel = kernel;
        }
    }
    KRYL_OK(kryl_vector_destroy(&x));
    KRYL_OK(kryl_vector_destroy(&y));
    KRYL_OK(kryl_matrix_destroy(&B));
}

/* All formats of A (natural-order CSR on the cuda context); large: every
 * kernel variant too, and progress lines.  The model's predictions and
 * choice (host work, a cache simulation each) run on threads meanwhile. */
static matrix_result run_matrix(bench &b, kryl_matrix A, const std::string &name, bool large)
{
    matrix_result m;
    m.name = name;
    KRYL_OK(kryl_matrix_size(A, &m.n, nullptr, &m.nnz));
    const double t0 = now_s();
    const kryl_csr *csr = &A->host->csr;
    kryl_fmt_params params;
    kryl_fmt_params_init(&params);
    const int count = KRYL_FORMAT_DIA - KRYL_FORMAT_CSR + 1;
    m.formats.resize(count);
    std::vector<kryl_status> status(count + 1, KRYL_SUCCESS);
    std::vector<std::thread> model;
    char why[512] = "";
    model.emplace_back(
        [&] { status[count] = kryl_fmt_choose(csr, &params, &b.dev, &m.choice, why, sizeof why); });
    for (int k = 0; k < count; k++) {
        m.formats[k].format = (kryl_format)(KRYL_FORMAT_CSR + k);
        model.emplace_back([&, k] {
            status[k] =
                kryl_fmt_predict(csr, m.formats[k].format, &params, &b.dev, &m.formats[k].model);
        });
    }
    const std::vector<double> hx = spmv_x(m.n);
    std::vector<double> ref;
    kryl_vector x;
    KRYL_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    KRYL_OK(kryl_vector_set(x, hx.data(), m.n));
    m.cusparse_ms = cusparse_ms(A, b.stream, static_cast<const double *>(x->data), ref);
    KRYL_OK(kryl_vector_destroy(&x));
    for (int k = 0; k < count; k++) {
        kryl_fmt_cost cost;
        KRYL_OK(kryl_fmt_cost_of(csr, m.formats[k].format, &params, &cost));
        run_format(b, A, m.formats[k], cost, hx, ref, name.c_str(), large);
    }
    for (std::thread &t : model) t.join();
    for (kryl_status st : status) KRYL_OK(st);
    m.why = why;
    if (large)
        printf("  (%s: %lld rows, %lld nonzeros, measured in %.1f s)\n", name.c_str(),
               (long long)m.n, (long long)m.nnz, now_s() - t0);
    return m;
}

static const format_result *best_of(const matrix_result &m)
{
    const format_result *best = nullptr;
    for (const format_result &f : m.formats)
        if (!f.refused && !f.wrong && (best == nullptr || f.ms < best->ms)) best = &f;
    return best ? best : &m.formats[0]; /* every result wrong: csr, flagged */
}

static const format_result *format_of(const matrix_result &m, kryl_format k)
{
    for (const format_result &f : m.formats)
        if (f.format == k) return &f;
    return nullptr;
}

static void print_large(const bench &b, const matrix_result &m)
{
    const double csr_min = (double)m.nnz * 12.0 + (double)(m.n + 1) * 4.0 + (double)m.n * 16.0;
    printf("\n%s: n = %lld, nnz = %lld; cuSPARSE %.4f ms (%.0f GB/s on CSR's minimum bytes, "
           "%.1f%% of copy)\n",
           m.name.c_str(), (long long)m.n, (long long)m.nnz, m.cusparse_ms,
           csr_min / (m.cusparse_ms * 1e6), 100.0 * csr_min / (m.cusparse_ms * 1e6) / b.copy_gbs);
    printf("%-6s %-18s %9s %7s %7s %7s %6s %6s %9s %6s %6s %9s %-18s %9s\n", "format", "kernel",
           "ms", "GFLOP/s", "GB/s", "GB/s", "%copy", "cusp/", "model", "model", "impl.", "plain-x",
           "best variant", "ms");
    printf("%-6s %-18s %9s %7s %7s %7s %6s %6s %9s %6s %6s %9s %-18s %9s\n", "", "(default)", "",
           "", "own", "csr-min", "own", "ours", "us", "alpha", "alpha", "ms", "", "");
    for (const format_result &f : m.formats) {
        if (f.refused) {
            printf("%-6s refused: %.110s\n", kryl_format_name(f.format), f.why.c_str());
            continue;
        }
        const double own = f.own_bytes / (f.ms * 1e6), min = csr_min / (f.ms * 1e6);
        /* bytes the time implies, less the model's non-x bytes, over 8 nnz */
        const double non_x = f.model.bytes - 8.0 * f.model.alpha * (double)m.nnz;
        const double implied = (f.ms * 1e-3 * b.dev.bandwidth - non_x) / (8.0 * (double)m.nnz);
        printf("%-6s %-18s %9.4f %7.1f %7.0f %7.0f %5.1f%% %6.3f %9.1f %6.3f %6.3f %9.4f %-18s "
               "%9.4f\n",
               kryl_format_name(f.format), (f.wrong ? "WRONG " + f.kernel : f.kernel).c_str(), f.ms,
               2.0 * (double)m.nnz / (f.ms * 1e6), own, min, 100.0 * own / b.copy_gbs,
               m.cusparse_ms / f.ms, 1e6 * f.model.seconds, f.model.alpha, implied, f.plain_ms,
               f.best_kernel.c_str(), f.best_ms);
    }
}

static void print_small_header()
{
    printf("\n%-16s %7s %8s %9s", "matrix", "n", "nnz", "cuSPARSE");
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++)
        printf(" %7s", kryl_format_name((kryl_format)f));
    printf(" %7s %7s %6s %6s %s\n", "best", "", "cusp/", "auto", "auto/best");
    printf("%-16s %7s %8s %9s", "", "", "", "us");
    for (int f = KRYL_FORMAT_CSR; f <= KRYL_FORMAT_DIA; f++) printf(" %7s", "us");
    printf(" %7s %7s %6s %6s\n", "", "us", "best", "");
}

static void print_small(const matrix_result &m)
{
    printf("%-16.16s %7lld %8lld %9.2f", m.name.c_str(), (long long)m.n, (long long)m.nnz,
           1e3 * m.cusparse_ms);
    for (const format_result &f : m.formats) {
        if (f.refused || f.wrong)
            printf(" %7s", f.refused ? "-" : "wrong");
        else
            printf(" %7.2f", 1e3 * f.ms);
    }
    const format_result *best = best_of(m), *chosen = format_of(m, m.choice);
    printf(" %7s %7.2f %6.3f %6s %.3f\n", kryl_format_name(best->format), 1e3 * best->ms,
           m.cusparse_ms / best->ms, kryl_format_name(m.choice),
           chosen && !chosen->refused ? chosen->ms / best->ms : NAN);
}

/* kron(poisson2d(m), ones(b, b)) + I: dense b x b blocks on an m x m 5-point grid. */
static kryl_matrix block_grid(kryl_context ctx, int64_t m, int64_t b)
{
    const int64_t n = m * m * b;
    kryl_csr A;
    KRYL_OK(kryl_csr_alloc(&A, n, n, n * 5 * b));
    int64_t k = 0;
    for (int64_t p = 0; p < m * m; p++) {
        const int64_t px = p % m, py = p / m;
        const int64_t q[5] = {py > 0 ? p - m : -1, px > 0 ? p - 1 : -1, p, px < m - 1 ? p + 1 : -1,
                              py < m - 1 ? p + m : -1};
        for (int64_t r = 0; r < b; r++) {
            for (int t = 0; t < 5; t++) {
                if (q[t] < 0) continue;
                for (int64_t c = 0; c < b; c++) {
                    A.col_idx[k] = (int32_t)(q[t] * b + c);
                    A.values[k++] = q[t] == p ? 4.0 + (r == c ? 1.0 : 0.0) : -1.0;
                }
            }
            A.row_ptr[p * b + r + 1] = k;
        }
    }
    kryl_matrix out;
    KRYL_OK(kryl_matrix_from_csr(&out, ctx, &A));
    return out;
}

static void run_large(bench &b, bool quick)
{
    struct problem {
        int kind; /* a generator, or -1: dense 5x5 blocks */
        int64_t size, quick_size;
    };
    const problem problems[] = {{KRYL_GEN_POISSON3D7, 160, 40},
                                {KRYL_GEN_POISSON3D27, 100, 30},
                                {KRYL_GEN_POISSON3D125, 100, 20},
                                {KRYL_GEN_POWERLAW, 4000000, 100000},
                                {-1, 448, 60},
                                {KRYL_GEN_CONVDIFF3D, 100, 30}};
    std::vector<matrix_result> results;
    printf("\n==== LARGE set (double) ====\n");
    for (const problem &p : problems) {
        const int64_t size = quick ? p.quick_size : p.size;
        const double t0 = now_s();
        kryl_matrix A = p.kind < 0 ? block_grid(b.ctx, size, 5)
                                   : generated(b.ctx, (kryl_generator_kind)p.kind, size);
        char name[64];
        if (p.kind < 0)
            snprintf(name, sizeof name, "blocks5x5-%lld", (long long)size);
        else
            snprintf(name, sizeof name, "%s-%lld", kryl_generator_name((kryl_generator_kind)p.kind),
                     (long long)size);
        printf("  (%s generated in %.1f s)\n", name, now_s() - t0);
        results.push_back(run_matrix(b, A, name, true));
        print_large(b, results.back());
        fflush(stdout);
        KRYL_OK(kryl_matrix_destroy(&A));
    }
    printf("\nLARGE summary (double; best = fastest default kernel; auto = kryl_fmt_choose with "
           "the device model)\n");
    printf("%-22s %-6s %9s %9s %7s %6s | %-6s %9s %9s %9s\n", "matrix", "best", "ms", "cuSPARSE",
           "cusp/", "%copy", "auto", "auto ms", "auto/best", "csr ms");
    double log_sum = 0.0;
    for (const matrix_result &m : results) {
        const format_result *best = best_of(m), *chosen = format_of(m, m.choice),
                            *csr = format_of(m, KRYL_FORMAT_CSR);
        const double own = best->own_bytes / (best->ms * 1e6);
        const double auto_ratio = chosen && !chosen->refused ? chosen->ms / best->ms : NAN;
        log_sum += std::log(m.cusparse_ms / best->ms);
        printf("%-22s %-6s %9.4f %9.4f %7.3f %5.1f%% | %-6s %9.4f %9.3f %9.4f\n", m.name.c_str(),
               kryl_format_name(best->format), best->ms, m.cusparse_ms, m.cusparse_ms / best->ms,
               100.0 * own / b.copy_gbs, kryl_format_name(m.choice),
               chosen && !chosen->refused ? chosen->ms : NAN, auto_ratio, csr->ms);
        printf("RESULT formats %s best=%s best_ms=%.4f cusparse_ms=%.4f ratio=%.3f copy_pct=%.1f "
               "auto=%s auto_over_best=%.3f\n",
               m.name.c_str(), kryl_format_name(best->format), best->ms, m.cusparse_ms,
               m.cusparse_ms / best->ms, 100.0 * own / b.copy_gbs, kryl_format_name(m.choice),
               auto_ratio);
    }
    const double geomean = std::exp(log_sum / (double)results.size());
    printf("geometric mean of cuSPARSE / best over the large set: %.3f\n", geomean);
    printf("RESULT formats geomean cusparse_over_best=%.3f\n", geomean);
    for (const matrix_result &m : results)
        printf("auto on %s: %s\n", m.name.c_str(), m.why.c_str());
}

/* Square matrices of the directory, by name. */
static std::vector<std::string> matrix_files(const char *dir)
{
    std::vector<std::string> files;
    DIR *d = opendir(dir);
    if (d == nullptr) return files;
    while (const dirent *e = readdir(d)) {
        const std::string name = e->d_name;
        const auto ends = [&](const char *s) {
            const size_t k = strlen(s);
            return name.size() > k && name.compare(name.size() - k, k, s) == 0;
        };
        if (ends(".mtx") || ends(".mtx.gz")) files.push_back(name);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    return files;
}

static void run_small(bench &b)
{
    const char *dir = getenv("KRYL_MATRICES");
    printf("\n==== SMALL set (double, real matrices of %s) ====\n", dir ? dir : "(unset)");
    if (dir == nullptr) return;
    print_small_header();
    int count = 0;
    double log_sum = 0.0;
    for (const std::string &file : matrix_files(dir)) {
        kryl_matrix A;
        const std::string path = std::string(dir) + "/" + file;
        if (kryl_matrix_read_mtx(&A, b.ctx, path.c_str()) != KRYL_SUCCESS) {
            printf("%-16s cannot read: %s\n", file.c_str(), kryl_last_error());
            continue;
        }
        int64_t n, ncols;
        KRYL_OK(kryl_matrix_size(A, &n, &ncols, nullptr));
        if (n == ncols) {
            const matrix_result m = run_matrix(b, A, file.substr(0, file.find(".mtx")), false);
            print_small(m);
            fflush(stdout);
            log_sum += std::log(m.cusparse_ms / best_of(m)->ms);
            count++;
        }
        KRYL_OK(kryl_matrix_destroy(&A));
    }
    if (count > 0) {
        printf("geometric mean of cuSPARSE / best over the small set: %.3f\n",
               std::exp(log_sum / count));
        printf("RESULT formats small_geomean cusparse_over_best=%.3f\n", std::exp(log_sum / count));
    }
}

int main(int argc, char **argv)
{
    bool quick = false, large = true, small = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--large-only") == 0)
            small = false;
        else if (strcmp(argv[i], "--small-only") == 0)
            large = false;
        else {
            fprintf(stderr, "usage: bench_formats [--quick] [--large-only | --small-only]\n");
            return 2;
        }
    }
    bench b;
    b.ctx = cuda_context();
    b.stream = static_cast<cudaStream_t>(kryl_cuda_stream(b.ctx));
    KRYL_OK(b.ctx->ops->device_model(b.ctx, &b.dev));
    b.copy_gbs = b.dev.bandwidth / 1e9;
    printf("bench_formats on %s\n", kryl_context_device_name(b.ctx));
    printf("device model: device-to-device copy %.0f GB/s (read + written), L2 %lld MB, "
           "%d-byte lines\n",
           b.copy_gbs, (long long)(b.dev.cache_bytes >> 20), b.dev.line_bytes);
    if (large) run_large(b, quick);
    if (small) run_small(b);
    KRYL_OK(kryl_context_destroy(&b.ctx));
    return 0;
}
