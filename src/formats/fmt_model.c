/* The bandwidth model (Kreutzer et al. 2012, eq. 1): one SpMV moves the
 * format's arrays once, writes y once and loads x 8*alpha bytes per
 * nonzero, at the device's memory bandwidth.  Code balance B = bytes /
 * (2 nnz) bytes per flop; predicted time = bytes / bandwidth.  alpha comes
 * from the entries' distances to the diagonal in the format's row order
 * (fmt_reuse.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "formats/fmt_internal.h"

/* Formats weighed by kryl_fmt_choose, in the order ties go (CSR, then SELL). */
static const kryl_format candidates[] = {KRYL_FORMAT_CSR,   KRYL_FORMAT_SELL,  KRYL_FORMAT_PJDS,
                                         KRYL_FORMAT_ELLR,  KRYL_FORMAT_JDS,   KRYL_FORMAT_ELL,
                                         KRYL_FORMAT_BCSR2, KRYL_FORMAT_BCSR4, KRYL_FORMAT_DIA};
#define NCANDIDATES ((int)(sizeof candidates / sizeof candidates[0]))

/* Predictions within this factor of the fastest are ties. */
#define FMT_TIE 1.02

static kryl_status check_device(const kryl_device_model *dev)
{
    if (!(isfinite(dev->bandwidth) && dev->bandwidth > 0.0) || dev->cache_bytes < 0 ||
        dev->line_bytes < 8 || dev->line_bytes > 4096)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "device model: bandwidth = %g B/s (must be > 0), cache_bytes = %lld "
                          "(>= 0), line_bytes = %d (8..4096)",
                          dev->bandwidth, (long long)dev->cache_bytes, (int)dev->line_bytes);
    return KRYL_SUCCESS;
}

/* Bytes other than x: the arrays the kernel reads and y written once. */
static double fixed_bytes(const fmt_plan *plan)
{
    return (double)plan->size.read_bytes + 8.0 * (double)plan->view.n;
}

/* alpha of the plan's row order (sort window `window`, 0: natural).  The
 * cache is shared with CSR's matrix and y traffic (12 + 16/Nnzr bytes per
 * nonzero) whatever the format, so alpha depends on the row order alone;
 * its far entries are counted by `counter` where one is given, else on the
 * host in the plan's order (made here where the plan is not `ordered`). */
static kryl_status plan_alpha(fmt_plan *plan, bool ordered, int64_t window,
                              const kryl_fmt_counter *counter, const kryl_device_model *dev,
                              const kryl_fmt_params *p, double *alpha)
{
    const kryl_csr *A = plan->view.A;
    const int64_t nnz = kryl_csr_nnz(A), n = plan->view.n;
    const double stream = nnz > 0 ? 12.0 + 16.0 * (double)n / (double)nnz : 0.0;
    *alpha = 1.0;
    if (nnz == 0 || n == 0 || dev->cache_bytes < dev->line_bytes) return KRYL_SUCCESS;
    int64_t far;
    /* counted on the host where no counter is given or it fails (out of device memory) */
    if (counter == NULL ||
        counter->far(counter->arg, window, fmt_reach(n, nnz, dev, stream), &far) != KRYL_SUCCESS) {
        if (!ordered) {
            const fmt_size size = plan->size;
            KRYL_TRY(fmt_plan_order(plan, A, plan->kind, NULL, p));
            plan->size = size;
        }
        return fmt_estimate_alpha(&plan->view, dev, stream, p, alpha);
    }
    *alpha = fmt_alpha_of_far(n, nnz, A->ncols, far, dev, stream);
    return KRYL_SUCCESS;
}

/* The model of `kind` moving `fixed` bytes besides x, with alpha. */
static void model_of(kryl_format kind, double fixed, const kryl_csr *A, double alpha,
                     const kryl_device_model *dev, kryl_fmt_model *m)
{
    const double nnz = (double)kryl_csr_nnz(A);
    m->kind = kind;
    m->alpha = alpha;
    /* bytes = arrays + y + 8 alpha nnz;  B = bytes / (2 nnz);  t = bytes / bandwidth */
    m->bytes = fixed + 8.0 * alpha * nnz;
    m->code_balance = m->bytes / (2.0 * (nnz > 0 ? nnz : 1.0));
    m->seconds = m->bytes / dev->bandwidth;
}

kryl_status kryl_fmt_predict(const kryl_csr *A, kryl_format kind, const kryl_fmt_params *params,
                             const kryl_device_model *dev, kryl_fmt_model *model)
{
    KRYL_REQUIRE_ARG(model);
    memset(model, 0, sizeof *model);
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(dev);
    KRYL_TRY(check_device(dev));
    kryl_fmt_params p;
    KRYL_TRY(kryl_fmt_params_resolve(params, &p));
    fmt_plan plan;
    KRYL_TRY(fmt_plan_init(&plan, A, kind, NULL, &p));
    double alpha;
    kryl_status st = plan_alpha(&plan, true, 0, NULL, dev, &p, &alpha);
    if (st == KRYL_SUCCESS) model_of(kind, fixed_bytes(&plan), A, alpha, dev, model);
    fmt_plan_free(&plan);
    return st;
}

/* "0.213 ms" */
static const char *fmt_seconds(char *buf, size_t size, double s)
{
    if (s < 1e-6)
        snprintf(buf, size, "%.3g ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, size, "%.3g us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, size, "%.3g ms", s * 1e3);
    else
        snprintf(buf, size, "%.3g s", s);
    return buf;
}

/* Append to a bounded string. */
static void append(char *buf, size_t size, const char *text)
{
    const size_t used = strlen(buf);
    if (used + 1 < size) snprintf(buf + used, size - used, "%s", text);
}

typedef struct weighed {
    bool measured; /* its footprint measured (else it could not have won) */
    bool suitable;
    int64_t window; /* its row order: 0 natural, else the sort window */
    double fixed;   /* bytes other than x */
    double least;   /* a lower bound on its predicted seconds, from n, nnz and the longest row */
    kryl_fmt_model model;
    char brief[64];
} weighed;

/* A lower bound on the bytes `kind` reads besides x (its arrays and y),
 * from what every layout stores at least: each nonzero's value and
 * column, or for BCSR nnz / b^2 blocks, for DIA a diagonal per entry of
 * the longest row (each entry of a row lies on its own diagonal). */
static double least_fixed(kryl_format kind, double n, double nnz, double longest)
{
    double arrays;
    switch (kind) {
    case KRYL_FORMAT_CSR: arrays = 12.0 * nnz + 8.0 * (n + 1.0); break;
    case KRYL_FORMAT_ELLR:
    case KRYL_FORMAT_JDS: arrays = 12.0 * nnz + 4.0 * n; break;
    case KRYL_FORMAT_BCSR2: arrays = 8.0 * nnz + nnz + 8.0 * (ceil(n / 2.0) + 1.0); break;
    case KRYL_FORMAT_BCSR4: arrays = 8.0 * nnz + nnz / 4.0 + 8.0 * (ceil(n / 4.0) + 1.0); break;
    case KRYL_FORMAT_DIA: arrays = 8.0 * longest * n; break;
    default: arrays = 12.0 * nnz; break; /* ELL, SELL, pJDS */
    }
    return arrays + 8.0 * n;
}

/* The size of sorting format `kind` in its row order from A's row lengths
 * alone, as its measure on the sorted rows finds it: JDS's and a global
 * sort's (pJDS, SELL with sigma >= n) from the lengths counted once for
 * them all, SELL's windows from each window's counts where they hold
 * whole slices; *sized false where they do not (or sigma <= 1: no sort). */
static kryl_status size_of_lengths(const kryl_csr *A, const kryl_fmt_params *p, kryl_format kind,
                                   fmt_lengths *lengths, fmt_size *size, bool *sized)
{
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A), C = p->slice_height;
    const int64_t window = kryl_fmt_sort_window(kind, p, n);
    const bool sorting =
        kind == KRYL_FORMAT_JDS || kind == KRYL_FORMAT_PJDS || kind == KRYL_FORMAT_SELL;
    *sized = sorting && (window >= n || (window > 1 && window % C == 0));
    if (!*sized) return KRYL_SUCCESS;
    if (lengths->count == NULL && window >= n)
        KRYL_TRY(fmt_lengths_of(A, lengths->longest, p->threads, lengths));
    if (kind == KRYL_FORMAT_JDS) return fmt_jds_measure_lengths(lengths, n, nnz, p, size);
    int64_t slots;
    KRYL_TRY(fmt_window_slots(A, lengths, window, C, p->threads, &slots));
    fmt_sell_size(kind, n, nnz, slots, lengths->longest, p, size);
    return KRYL_SUCCESS;
}

/* The plan of candidate c: its permutation and measured size; a sorting
 * format's size from A's row lengths where they give it, its permutation
 * not made (*ordered false: plan_alpha makes it if it needs it); with a
 * counter DIA's and BCSR's sizes from the diagonals and blocks it counts
 * (A checked already; the model reads a refusal's brief, not its advice). */
static kryl_status plan_of(const kryl_csr *A, const kryl_fmt_params *p,
                           const kryl_fmt_counter *counter, fmt_lengths *lengths, int c,
                           fmt_plan *plan, bool *ordered)
{
    const kryl_format kind = candidates[c];
    memset(plan, 0, sizeof *plan);
    plan->kind = kind;
    plan->view = (fmt_view){A, A->nrows, NULL, NULL};
    bool sized;
    KRYL_TRY(size_of_lengths(A, p, kind, lengths, &plan->size, &sized));
    *ordered = !sized;
    if (sized) return KRYL_SUCCESS;
    const bool blocks = kind == KRYL_FORMAT_BCSR2 || kind == KRYL_FORMAT_BCSR4;
    int64_t count;
    /* measured on the host where no counter is given or it fails (out of device memory) */
    if (counter == NULL || !(blocks || kind == KRYL_FORMAT_DIA) ||
        (blocks ? counter->blocks(counter->arg, kind == KRYL_FORMAT_BCSR4 ? 4 : 2, &count)
                : counter->diagonals(counter->arg, &count)) != KRYL_SUCCESS)
        return fmt_plan_init(plan, A, kind, NULL, p);
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    if (blocks)
        fmt_bcsr_size(kind, n, nnz, count, p, "csr or sell", &plan->size);
    else
        fmt_dia_size(n, nnz, count, p, &plan->size);
    return KRYL_SUCCESS;
}

/* Measure candidate c (its footprint in its row order) and, where it is
 * suitable, its model: alpha from the same row order, estimated once per
 * order and shared (alpha[] by order: natural, or its window). */
static kryl_status weigh(const kryl_csr *A, const kryl_fmt_params *p, const kryl_device_model *dev,
                         const kryl_fmt_counter *counter, fmt_lengths *lengths, weighed *w, int c,
                         double *alphas)
{
    fmt_plan plan;
    bool ordered;
    KRYL_TRY(plan_of(A, p, counter, lengths, c, &plan, &ordered));
    w[c].measured = true;
    w[c].suitable = plan.size.suitable;
    w[c].fixed = fixed_bytes(&plan);
    memcpy(w[c].brief, plan.size.brief, sizeof w[c].brief);
    kryl_status st = KRYL_SUCCESS;
    if (w[c].suitable) {
        /* the first candidate weighed in this row order estimates its alpha */
        int first = 0;
        while (!(w[first].measured && w[first].suitable && w[first].window == w[c].window)) first++;
        if (first == c) st = plan_alpha(&plan, ordered, w[c].window, counter, dev, p, &alphas[c]);
        if (st == KRYL_SUCCESS)
            model_of(candidates[c], w[c].fixed, A, alphas[first], dev, &w[c].model);
    }
    fmt_plan_free(&plan);
    return st;
}

/* Weigh CSR, then the other candidates from the lowest lower bound up
 * (a bound needs only n, nnz and the longest row, and x loaded at least
 * once), while a bound is within FMT_TIE of the fastest prediction so far.
 * The candidates left unmeasured could be neither the fastest nor within
 * FMT_TIE of it, so the choice is the one weighing every candidate makes;
 * their seconds are INFINITY.  On a stencil that is CSR and DIA alone: no
 * sorting permutation is made and no block is counted. */
static kryl_status weigh_all(const kryl_csr *A, const kryl_fmt_params *p,
                             const kryl_device_model *dev, const kryl_fmt_counter *counter,
                             fmt_lengths *lengths, weighed *w)
{
    const double n = (double)A->nrows, nnz = (double)kryl_csr_nnz(A);
    const int64_t longest = lengths->longest = fmt_longest_row(A, p->threads);
    /* x at least once: 8 alpha nnz >= min(8 nnz, 8 ncols) */
    const double x_least = fmin(8.0 * nnz, 8.0 * (double)A->ncols);
    double alphas[NCANDIDATES];
    for (int c = 0; c < NCANDIDATES; c++) {
        memset(&w[c], 0, sizeof w[c]);
        w[c].model.seconds = INFINITY;
        int64_t window = kryl_fmt_sort_window(candidates[c], p, A->nrows);
        w[c].window = window <= 1 ? 0 : (window > A->nrows ? A->nrows : window);
        w[c].least =
            (least_fixed(candidates[c], n, nnz, (double)longest) + x_least) / dev->bandwidth;
    }
    KRYL_TRY(weigh(A, p, dev, counter, lengths, w, 0, alphas));
    /* latency-bound: CSR, whatever the others predict (kryl_fmt_choose) */
    if (w[0].model.bytes < 0.5 * (double)dev->cache_bytes) return KRYL_SUCCESS;
    /* the candidates in the natural order share CSR's alpha: x costs them
     * exactly 8 alpha nnz, no less */
    for (int c = 1; c < NCANDIDATES; c++)
        if (w[c].window == 0)
            w[c].least =
                (least_fixed(candidates[c], n, nnz, (double)longest) + 8.0 * alphas[0] * nnz) /
                dev->bandwidth;
    for (;;) {
        double fastest = INFINITY, lowest = INFINITY;
        int open = -1;
        for (int c = 0; c < NCANDIDATES; c++)
            if (w[c].measured && w[c].suitable) fastest = fmin(fastest, w[c].model.seconds);
        for (int c = 0; c < NCANDIDATES; c++) {
            if (!w[c].measured && w[c].least <= FMT_TIE * fastest && w[c].least < lowest) {
                lowest = w[c].least;
                open = c;
            }
        }
        if (open < 0) return KRYL_SUCCESS;
        KRYL_TRY(weigh(A, p, dev, counter, lengths, w, open, alphas));
    }
}

kryl_status kryl_fmt_choose(const kryl_csr *A, const kryl_fmt_params *params,
                            const kryl_device_model *dev, kryl_format *choice, char *why,
                            size_t why_size)
{
    return kryl_fmt_choose_counted(A, params, dev, NULL, choice, why, why_size);
}

kryl_status kryl_fmt_choose_counted(const kryl_csr *A, const kryl_fmt_params *params,
                                    const kryl_device_model *dev, const kryl_fmt_counter *counter,
                                    kryl_format *choice, char *why, size_t why_size)
{
    KRYL_REQUIRE_ARG(choice);
    *choice = KRYL_FORMAT_CSR;
    if (why && why_size > 0) why[0] = '\0';
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(dev);
    KRYL_TRY(check_device(dev));
    kryl_fmt_params p;
    KRYL_TRY(kryl_fmt_params_resolve(params, &p));
    weighed w[NCANDIDATES];
    /* A's row lengths, counted once where a sorting format is weighed */
    fmt_lengths lengths = {0, NULL};
    const kryl_status st = weigh_all(A, &p, dev, counter, &lengths, w);
    fmt_lengths_free(&lengths);
    KRYL_TRY(st);
    /* the first candidate (in tie order) within FMT_TIE of the fastest; CSR always qualifies */
    double fastest = w[0].model.seconds;
    for (int c = 1; c < NCANDIDATES; c++)
        if (w[c].suitable && w[c].model.seconds < fastest) fastest = w[c].model.seconds;
    int pick = 0;
    while (!(w[pick].suitable && w[pick].model.seconds <= FMT_TIE * fastest)) pick++;
    /* An SpMV whose bytes fit in half the cache is bound by latency, not
     * bandwidth (measured on an H100: CSR fastest on 24 of 33 small real
     * matrices): the byte model does not apply, CSR does. */
    if (w[0].model.bytes < 0.5 * (double)dev->cache_bytes) {
        *choice = KRYL_FORMAT_CSR;
        if (why && why_size > 0)
            snprintf(why, why_size,
                     "csr: one SpMV moves %.2g MB, under half the %.3g MB cache, so it is "
                     "latency-bound and the bandwidth model does not rank formats",
                     w[0].model.bytes / 1e6, (double)dev->cache_bytes / 1e6);
        return KRYL_SUCCESS;
    }
    *choice = candidates[pick];
    if (why == NULL || why_size == 0) return KRYL_SUCCESS;
    char time[32], part[160];
    snprintf(why, why_size, "%s: predicted %s (%.2fx CSR's bytes, alpha %.2f)",
             kryl_format_name(candidates[pick]),
             fmt_seconds(time, sizeof time, w[pick].model.seconds),
             w[pick].model.bytes / w[0].model.bytes, w[pick].model.alpha);
    const char *sep = "; refused: ";
    for (int c = 0; c < NCANDIDATES; c++) {
        if (w[c].suitable || !w[c].measured) continue;
        snprintf(part, sizeof part, "%s%s (%s)", sep, kryl_format_name(candidates[c]), w[c].brief);
        append(why, why_size, part);
        sep = ", ";
    }
    return KRYL_SUCCESS;
}
