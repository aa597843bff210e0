/* Row orderings of the formats: checking a caller's ordering, sorting rows
 * by length within windows (JDS, pJDS, SELL-C-sigma; Kreutzer et al. 2012,
 * sec. 2.1), and the symmetric permutation P A P^T that lets a Krylov
 * iteration run in the permuted basis without ever permuting. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

kryl_status fmt_check_order(const int32_t *order, int64_t n)
{
    unsigned char *seen = NULL;
    KRYL_TRY(FMT_ALLOC(seen, n, "the ordering check"));
    for (int64_t i = 0; i < n; i++) {
        const int32_t r = order[i];
        if (r < 0 || r >= n || seen[r]) {
            free(seen);
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "kryl_fmt_build: order[%" PRId64 "] = %" PRId32
                              " %s; an ordering holds each of 0..%" PRId64 " once",
                              i, r, (r < 0 || r >= n) ? "is out of range" : "repeats", n - 1);
        }
        seen[r] = 1;
    }
    free(seen);
    return KRYL_SUCCESS;
}

static int64_t row_len(const kryl_csr *A, int32_t r) { return A->row_ptr[r + 1] - A->row_ptr[r]; }

/* Row i of perm, or row i where perm is NULL (the natural order). */
static int32_t row_at(const int32_t *perm, int64_t i) { return perm ? perm[i] : (int32_t)i; }

/* The shortest and longest rows of perm[w0, w1). */
static void window_range(const kryl_csr *A, const int32_t *perm, int64_t w0, int64_t w1,
                         int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = 0;
    for (int64_t i = w0; i < w1; i++) {
        const int64_t len = row_len(A, row_at(perm, i));
        *lo = len < *lo ? len : *lo;
        *hi = len > *hi ? len : *hi;
    }
}

/* Rows [w0, w1) of perm stably sorted by decreasing length (counting sort
 * over the lengths up to hi), from count (count[key + 1] = the window's rows
 * of key hi - len, count[0] = 0) through rows[w1 - w0]. */
static void sort_window(const kryl_csr *A, int32_t *perm, int64_t w0, int64_t w1, int64_t keys,
                        int64_t hi, int64_t *count, int32_t *rows)
{
    /* count[key] = rows of smaller key (longer rows) in the window */
    for (int64_t d = 1; d <= keys; d++) count[d] += count[d - 1];
    /* stable scatter: longest rows first, ties in their incoming order */
    for (int64_t i = w0; i < w1; i++) rows[count[hi - row_len(A, perm[i])]++] = perm[i];
    memcpy(perm + w0, rows, (size_t)(w1 - w0) * sizeof *perm);
}

/* Windows of `window` rows (window < n), each counted by length on its own
 * by one of `threads` threads, each with room for the lengths of the
 * windows it takes: with perm, the windows of perm sorted (sort_window);
 * without, *slots = the slots of slices of C rows of A's windows so sorted
 * (window a multiple of C: no slice crosses a window). */
static kryl_status count_windows(const kryl_csr *A, int64_t window, int threads, int32_t *perm,
                                 int64_t C, int64_t *slots)
{
    const int64_t n = A->nrows, nwindows = (n + window - 1) / window;
    int64_t failed = 0, sum = 0;
    KRYL_HOST_PARALLEL(threads)
    {
        int64_t *count = NULL, room = 0;
        int32_t *rows = perm ? malloc((size_t)window * sizeof *rows) : NULL;
        KRYL_HOST_FOR_REDUCE(+, failed, sum)
        for (int64_t w = 0; w < nwindows; w++) {
            const int64_t w0 = w * window, w1 = n - w0 < window ? n : w0 + window;
            int64_t lo, hi;
            window_range(A, perm, w0, w1, &lo, &hi);
            if (hi - lo + 2 > room) {
                free(count);
                room = hi - lo + 2;
                count = malloc((size_t)room * sizeof *count);
            }
            if (count == NULL || (perm && rows == NULL)) {
                room = 0;
                failed++;
                continue;
            }
            /* count[hi - len + 1] = the window's rows of length len */
            memset(count, 0, (size_t)(hi - lo + 2) * sizeof *count);
            for (int64_t i = w0; i < w1; i++) count[hi - row_len(A, row_at(perm, i)) + 1]++;
            if (perm)
                sort_window(A, perm, w0, w1, hi - lo + 1, hi, count, rows);
            else
                sum += fmt_sorted_slots(count + 1, 1, hi - lo + 1, hi, C);
        }
        free(count);
        free(rows);
    }
    if (slots) *slots = sum;
    return failed ? fmt_out_of_memory("the sort windows", window, sizeof(int64_t)) : KRYL_SUCCESS;
}

/* The parts of n rows counted by `keys` lengths each on its own: as many as
 * threads while their counts take no more room than the rows. */
static int64_t count_parts(int64_t keys, int64_t n, int threads)
{
    int64_t parts = threads;
    while (parts > 1 && keys * parts > n) parts--;
    return parts;
}

/* All n rows as one window: a stable counting sort whose counts and
 * scatter run on `threads` threads over contiguous parts of perm (thread
 * t's rows of length len go after the longer rows and after the rows of
 * length len of parts before t), so the order is the serial sort's. */
static kryl_status sort_all(const kryl_csr *A, int threads, int32_t *perm)
{
    const int64_t n = A->nrows;
    int64_t lo = INT64_MAX, hi = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, lo)
    for (int64_t i = 0; i < n; i++) lo = row_len(A, perm[i]) < lo ? row_len(A, perm[i]) : lo;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, hi)
    for (int64_t i = 0; i < n; i++) hi = row_len(A, perm[i]) > hi ? row_len(A, perm[i]) : hi;
    const int64_t keys = hi - lo + 1;
    const int64_t parts = count_parts(keys, n, threads);
    int64_t *count = NULL;
    int32_t *sorted = NULL;
    kryl_status st = FMT_ALLOC(count, keys * parts, "the row-length counts");
    if (st == KRYL_SUCCESS) st = FMT_ALLOC(sorted, n, "the sorted rows");
    if (st != KRYL_SUCCESS) {
        free(count);
        return st;
    }
    const int64_t part = (n + parts - 1) / parts;
    /* count[key * parts + t] = rows of part t with key hi - len */
    KRYL_HOST_PARALLEL_FOR((int)parts)
    for (int64_t t = 0; t < parts; t++) {
        const int64_t e = (t + 1) * part < n ? (t + 1) * part : n;
        for (int64_t i = t * part; i < e; i++) count[(hi - row_len(A, perm[i])) * parts + t]++;
    }
    /* exclusive prefix sums in (key, part) order: where each part's rows of a key start */
    int64_t at = 0;
    for (int64_t k = 0; k < keys * parts; k++) {
        const int64_t c = count[k];
        count[k] = at;
        at += c;
    }
    KRYL_HOST_PARALLEL_FOR((int)parts)
    for (int64_t t = 0; t < parts; t++) {
        const int64_t e = (t + 1) * part < n ? (t + 1) * part : n;
        for (int64_t i = t * part; i < e; i++)
            sorted[count[(hi - row_len(A, perm[i])) * parts + t]++] = perm[i];
    }
    memcpy(perm, sorted, (size_t)n * sizeof *perm);
    free(count);
    free(sorted);
    return KRYL_SUCCESS;
}

int64_t fmt_longest_row(const kryl_csr *A, int threads)
{
    int64_t longest = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, longest)
    for (int64_t i = 0; i < A->nrows; i++)
        longest = row_len(A, (int32_t)i) > longest ? row_len(A, (int32_t)i) : longest;
    return longest;
}

kryl_status fmt_lengths_of(const kryl_csr *A, int64_t longest, int threads, fmt_lengths *lengths)
{
    const int64_t n = A->nrows, keys = longest + 1;
    lengths->longest = longest;
    KRYL_TRY(FMT_ALLOC(lengths->count, keys, "the row-length counts"));
    const int64_t parts = count_parts(keys, n, threads);
    int64_t *part_count = NULL;
    kryl_status st = KRYL_SUCCESS;
    if (parts > 1) st = FMT_ALLOC(part_count, keys * parts, "the row-length counts");
    if (st != KRYL_SUCCESS) {
        fmt_lengths_free(lengths);
        return st;
    }
    const int64_t part = (n + parts - 1) / parts;
    /* part t's counts at part_count + t * keys (the counts themselves for one part) */
    KRYL_HOST_PARALLEL_FOR((int)parts)
    for (int64_t t = 0; t < parts; t++) {
        int64_t *c = parts > 1 ? part_count + t * keys : lengths->count;
        const int64_t e = (t + 1) * part < n ? (t + 1) * part : n;
        for (int64_t i = t * part; i < e; i++) c[row_len(A, (int32_t)i)]++;
    }
    for (int64_t t = 0; parts > 1 && t < parts; t++)
        for (int64_t k = 0; k < keys; k++) lengths->count[k] += part_count[t * keys + k];
    free(part_count);
    return KRYL_SUCCESS;
}

void fmt_lengths_free(fmt_lengths *lengths)
{
    free(lengths->count);
    lengths->count = NULL;
}

kryl_status fmt_window_slots(const kryl_csr *A, const fmt_lengths *lengths, int64_t window,
                             int64_t C, int threads, int64_t *slots)
{
    if (window < A->nrows) return count_windows(A, window, threads, NULL, C, slots);
    /* one window: A's lengths, longest first */
    const int64_t longest = lengths->longest;
    *slots = fmt_sorted_slots(lengths->count + longest, -1, longest + 1, longest, C);
    return KRYL_SUCCESS;
}

kryl_status fmt_sorted_order(const kryl_csr *A, const int32_t *order, int64_t window, int threads,
                             int32_t *perm)
{
    const int64_t n = A->nrows;
    /* perm = order, or the identity */
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t i = 0; i < n; i++) perm[i] = order ? order[i] : (int32_t)i;
    if (window <= 1 || n == 0) return KRYL_SUCCESS;
    return window < n ? count_windows(A, window, threads, perm, 0, NULL)
                      : sort_all(A, threads, perm);
}

void fmt_invert(const int32_t *perm, int64_t n, int threads, int32_t *inv)
{
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t i = 0; i < n; i++) inv[perm[i]] = (int32_t)i; /* inv[perm[i]] = i */
}

kryl_status fmt_permuted_csr(const fmt_view *v, int threads, kryl_csr *C)
{
    const kryl_csr *A = v->A;
    KRYL_TRY(kryl_csr_alloc(C, v->n, v->n, kryl_csr_nnz(A)));
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < v->n; i++) C->row_ptr[i + 1] = fmt_view_len(v, i);
    kryl_prefix_sum(C->row_ptr + 1, v->n, threads);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < v->n; i++) {
        int64_t b, e, k = C->row_ptr[i];
        fmt_view_row(v, i, &b, &e);
        /* c(i, inv[j]) = a(perm[i], j) */
        for (int64_t q = b; q < e; q++, k++) {
            C->col_idx[k] = v->inv[A->col_idx[q]];
            C->values[k] = A->values[q];
        }
    }
    kryl_status st = kryl_csr_sort_and_sum_on(C, threads);
    if (st != KRYL_SUCCESS) kryl_csr_free(C);
    return st;
}
