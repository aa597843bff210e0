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

kryl_status fmt_sorted_order(const kryl_csr *A, const int32_t *order, int64_t window, int32_t *perm)
{
    const int64_t n = A->nrows;
    /* perm = order, or the identity */
    for (int64_t i = 0; i < n; i++) perm[i] = order ? order[i] : (int32_t)i;
    if (window <= 1) return KRYL_SUCCESS;
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++)
        if (row_len(A, (int32_t)i) > longest) longest = row_len(A, (int32_t)i);
    int64_t *count = NULL;
    int32_t *window_rows = NULL;
    kryl_status st = FMT_ALLOC(count, longest + 2, "the row-length histogram");
    if (st == KRYL_SUCCESS) st = FMT_ALLOC(window_rows, window < n ? window : n, "the sort window");
    for (int64_t w0 = 0; st == KRYL_SUCCESS && w0 < n; w0 += window) {
        const int64_t w1 = n - w0 < window ? n : w0 + window;
        int64_t lo = longest, hi = 0;
        for (int64_t i = w0; i < w1; i++) {
            const int64_t len = row_len(A, perm[i]);
            lo = len < lo ? len : lo;
            hi = len > hi ? len : hi;
        }
        /* key = hi - len; count[key] = rows of smaller key (longer rows) in the window */
        memset(count, 0, (size_t)(hi - lo + 2) * sizeof *count);
        for (int64_t i = w0; i < w1; i++) count[hi - row_len(A, perm[i]) + 1]++;
        for (int64_t d = 1; d <= hi - lo + 1; d++) count[d] += count[d - 1];
        /* stable scatter: longest rows first, ties in their incoming order */
        for (int64_t i = w0; i < w1; i++) window_rows[count[hi - row_len(A, perm[i])]++] = perm[i];
        memcpy(perm + w0, window_rows, (size_t)(w1 - w0) * sizeof *perm);
    }
    free(count);
    free(window_rows);
    return st;
}

void fmt_invert(const int32_t *perm, int64_t n, int32_t *inv)
{
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
