/* Nonsymmetric matrices with power-law row lengths, the stress case of SpMV:
 * a few rows are very long.  Row i's length len (entries, diagonal included,
 * 1 <= len <= n) follows a discrete Lomax (Pareto II) law (K. S. Lomax,
 * "Business failures: another example of the analysis of failure data",
 * JASA 49, 1954),
 *   len = 1 + floor(Y),  P(Y >= y) = (1 + y/s)^-(alpha-1),
 * so P(len) ~ len^-alpha for len >> s; the scale s is set so that the mean
 * length is row_length.  Its len - 1 off-diagonal columns are uniform over
 * [0, n) without i and without repeats; values are -u, u in (0, 1], and
 * a_ii = sum |a_ij| + 1 (diagonally dominant, so nonsingular).  Everything
 * is a hash of (seed, i, ...), and a row costs O(len log len). */
#include "gen/families.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "gen/hash.h"

/* Terms of the mean's series summed one by one; the rest by an integral. */
#define EXACT_TERMS 1024

/* int_a^b (1 + x/s)^-(alpha-1) dx, stable for alpha near 2. */
static double tail_integral(double a, double b, double s, double alpha)
{
    const double la = log1p(a / s), lb = log1p(b / s), e = 2.0 - alpha;
    if (fabs(e) < 1e-12) return s * (lb - la);
    return s * (expm1(e * lb) - expm1(e * la)) / e;
}

/* E[len] = sum_{k>=1} P(len >= k) = 1 + sum_{k=1}^{n-1} (1 + k/s)^-(alpha-1) */
static double mean_length(int64_t n, double s, double alpha)
{
    if (s <= 0.0) return 1.0;
    const int64_t exact = n - 1 < EXACT_TERMS ? n - 1 : EXACT_TERMS;
    double mean = 1.0;
    for (int64_t k = 1; k <= exact; k++) mean += pow(1.0 + (double)k / s, 1.0 - alpha);
    /* midpoint rule for the smooth, decreasing rest: sum_{k=K+1}^{n-1} f(k) */
    if (exact < n - 1) mean += tail_integral((double)exact + 0.5, (double)n - 0.5, s, alpha);
    return mean;
}

kryl_status kryl_gen_powerlaw_init(kryl_generator *g)
{
    const int64_t n = g->nrows;
    const double alpha = g->options.exponent;
    const double target = g->options.row_length < n ? (double)g->options.row_length : (double)n;
    /* bisection on log s for mean_length(s) = target (the mean grows with s) */
    double s = 0.0;
    if (target > 1.0) {
        double lo = log(1e-200), hi = log(1e30);
        for (int it = 0; it < 64; it++) {
            const double mid = 0.5 * (lo + hi);
            if (mean_length(n, exp(mid), alpha) < target)
                lo = mid;
            else
                hi = mid;
        }
        s = exp(0.5 * (lo + hi));
    }
    const double nnz = (double)n * mean_length(n, s, alpha);
    if (!(nnz < 0x1.0p63))
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_generator_init: powerlaw with %lld rows and row_length %lld: "
                          "the expected entry count %.3g overflows 64-bit counts",
                          (long long)n, (long long)g->options.row_length, nnz);
    g->scale = s;
    g->nnz_estimate = (int64_t)llround(nnz);
    g->max_row_length = n;
    return KRYL_SUCCESS;
}

/* len = 1 + floor(s (u^(-1/(alpha-1)) - 1)), u in (0, 1], capped at n */
static int64_t row_length(const kryl_generator *g, int64_t i)
{
    if (g->scale == 0.0) return 1;
    const double u = kryl_gen_uniform_open(
        kryl_gen_hash(g->options.seed, KRYL_GEN_STREAM_LENGTH, (uint64_t)i, 0));
    const double y = g->scale * expm1(-log(u) / (g->options.exponent - 1.0));
    if (!(y < (double)(g->nrows - 1))) return g->nrows;
    return 1 + (int64_t)y;
}

/* Ascending order, in place: quicksort (C. A. R. Hoare, "Quicksort", Comput.
 * J. 5, 1962; Hoare partition, median of three pivot; recursion on the
 * smaller part, so O(log n) deep) down to insertion sort on short runs.  The
 * draws are hash-random, so the expected O(n log n) is what they get. */
static void sort_int64(int64_t *x, int64_t count)
{
    while (count > 24) {
        const int64_t a = x[0], b = x[count / 2], c = x[count - 1];
        const int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        /* Hoare partition: x[0..lo) <= pivot <= x[hi+1..count) */
        int64_t lo = 0, hi = count - 1;
        while (lo <= hi) {
            while (x[lo] < pivot) lo++;
            while (x[hi] > pivot) hi--;
            if (lo <= hi) {
                const int64_t t = x[lo];
                x[lo++] = x[hi];
                x[hi--] = t;
            }
        }
        if (hi + 1 < count - lo) {
            sort_int64(x, hi + 1);
            x += lo;
            count -= lo;
        } else {
            sort_int64(x + lo, count - lo);
            count = hi + 1;
        }
    }
    for (int64_t k = 1; k < count; k++) {
        const int64_t v = x[k];
        int64_t j = k;
        for (; j > 0 && x[j - 1] > v; j--) x[j] = x[j - 1];
        x[j] = v;
    }
}

/* Merge the sorted, unique draws[0..count) into the sorted, unique
 * ranks[0..have) (from the back, dropping repeats); returns the new size. */
static int64_t merge_unique(double *ranks, int64_t have, const int64_t *draws, int64_t count)
{
    int64_t a = have - 1, b = count - 1, out = have + count;
    while (b >= 0) {
        const double d = (double)draws[b];
        if (a >= 0 && ranks[a] > d)
            ranks[--out] = ranks[a--];
        else {
            if (a >= 0 && ranks[a] == d) a--; /* keep one of the pair */
            ranks[--out] = d;
            b--;
        }
    }
    while (a >= 0) ranks[--out] = ranks[a--];
    /* repeats left a gap of `out` slots at the front */
    memmove(ranks, ranks + out, (size_t)(have + count - out) * sizeof *ranks);
    return have + count - out;
}

/* `count` distinct ranks, uniform over [0, range), sorted, into ranks[]:
 * draw, sort, drop repeats, and top up with further draws until there are
 * count of them.  The ranks are integers below 2^53, exact as doubles;
 * draws[] (room for count) is scratch. */
static void sample_ranks(const kryl_generator *g, int64_t i, int64_t range, int64_t count,
                         double *ranks, int64_t *draws)
{
    uint64_t next = 0;
    int64_t have = 0;
    while (have < count) {
        const int64_t want = count - have;
        for (int64_t k = 0; k < want; k++) {
            /* r = floor(u * range), u uniform in [0, 1) */
            const uint64_t h =
                kryl_gen_hash(g->options.seed, KRYL_GEN_STREAM_COLUMN, (uint64_t)i, next++);
            const int64_t r = (int64_t)(kryl_gen_uniform(h) * (double)range);
            draws[k] = r < range ? r : range - 1;
        }
        sort_int64(draws, want);
        int64_t unique = 0;
        for (int64_t k = 0; k < want; k++)
            if (unique == 0 || draws[k] != draws[unique - 1]) draws[unique++] = draws[k];
        have = merge_unique(ranks, have, draws, unique);
    }
}

int64_t kryl_gen_powerlaw_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values)
{
    const int64_t len = row_length(g, i);
    if (!cols) return len;
    /* off-diagonal ranks r in [0, n - 1) stand for the columns r + (r >= i) */
    const int64_t range = g->nrows - 1, off = len - 1;
    int64_t count = 0;
    if (off <= range / 2) {
        /* few columns: sample them */
        sample_ranks(g, i, range, off, values, cols);
        for (int64_t k = 0; k < off; k++) cols[count++] = (int64_t)values[k];
    } else {
        /* most columns: sample the ones left out, emit the others */
        const int64_t left_out = range - off;
        sample_ranks(g, i, range, left_out, values, cols);
        int64_t next_out = 0;
        for (int64_t r = 0; r < range; r++) {
            if (next_out < left_out && (double)r == values[next_out])
                next_out++;
            else
                cols[count++] = r;
        }
    }
    /* ranks -> columns, then the diagonal at its sorted place */
    int64_t diag_at = count;
    for (int64_t k = 0; k < count; k++)
        if (cols[k] >= i) {
            if (diag_at == count) diag_at = k;
            cols[k]++;
        }
    memmove(cols + diag_at + 1, cols + diag_at, (size_t)(count - diag_at) * sizeof *cols);
    cols[diag_at] = i;
    double diag = 1.0;
    for (int64_t k = 0; k < len; k++) {
        if (k == diag_at) continue;
        /* a_ij = -u(i, j) */
        values[k] = -kryl_gen_uniform_open(
            kryl_gen_hash(g->options.seed, KRYL_GEN_STREAM_VALUE, (uint64_t)i, (uint64_t)cols[k]));
        diag -= values[k]; /* a_ii = 1 + sum |a_ij| */
    }
    values[diag_at] = diag;
    return len;
}
