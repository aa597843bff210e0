/* Ordering names, dispatch, permutation checks and the quality measures
 * of a permutation (bandwidth, envelope, levels). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "order/graph.h"

static const char *const order_names[KRYL_ORDER_COUNT] = {"none", "rcm", "amd", "color"};

const char *kryl_order_name(kryl_order_kind kind)
{
    return (unsigned)kind < KRYL_ORDER_COUNT ? order_names[kind] : "?";
}

kryl_status kryl_order_from_name(const char *name, kryl_order_kind *kind)
{
    KRYL_REQUIRE_ARG(name);
    KRYL_REQUIRE_ARG(kind);
    for (int k = 0; k < KRYL_ORDER_COUNT; k++)
        if (strcmp(name, order_names[k]) == 0) {
            *kind = (kryl_order_kind)k;
            return KRYL_SUCCESS;
        }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                      "unknown ordering '%s': expected none, rcm, amd or color", name);
}

kryl_status kryl_order_compute(const kryl_csr *A, kryl_order_kind kind, int32_t *perm)
{
    return kryl_order_compute_on(A, kind, 1, perm);
}

kryl_status kryl_order_compute_on(const kryl_csr *A, kryl_order_kind kind, int threads,
                                  int32_t *perm)
{
    KRYL_TRY(order_check_matrix(A, "kryl_order_compute"));
    KRYL_REQUIRE_ARG(perm);
    switch (kind) {
    case KRYL_ORDER_NONE:
        /* perm = identity */
        for (int64_t i = 0; i < A->nrows; i++) perm[i] = (int32_t)i;
        return KRYL_SUCCESS;
    case KRYL_ORDER_RCM: return kryl_order_rcm(A, perm);
    case KRYL_ORDER_AMD: return kryl_order_amd(A, perm);
    case KRYL_ORDER_COLOR: {
        kryl_coloring c;
        KRYL_TRY(kryl_order_color_on(A, 0.0, threads, &c));
        memcpy(perm, c.perm, (size_t)A->nrows * sizeof *perm);
        kryl_coloring_free(&c);
        return KRYL_SUCCESS;
    }
    default: break;
    }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                      "kryl_order_compute: unknown ordering kind %d (expected 0..%d)", (int)kind,
                      KRYL_ORDER_COUNT - 1);
}

kryl_status kryl_order_check_perm(const int32_t *perm, int64_t n)
{
    if (n > 0) KRYL_REQUIRE_ARG(perm);
    char *seen = calloc((size_t)n + 1, 1);
    if (seen == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_check_perm: cannot allocate %lld",
                          (long long)n);
    kryl_status st = KRYL_SUCCESS;
    /* each of 0..n-1 exactly once */
    for (int64_t i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]]) {
            st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                            "not a permutation of 0..%lld: perm[%lld] = %d is %s", (long long)n - 1,
                            (long long)i, perm[i],
                            perm[i] < 0 || perm[i] >= n ? "out of range" : "repeated");
            break;
        }
        seen[perm[i]] = 1;
    }
    free(seen);
    return st;
}

kryl_status kryl_order_quality_of(const kryl_csr *A, const int32_t *perm, kryl_order_quality *q)
{
    KRYL_REQUIRE_ARG(q);
    KRYL_TRY(order_check_matrix(A, "kryl_order_quality_of"));
    const int64_t n = A->nrows;
    int32_t *inv = NULL;
    KRYL_TRY(order_inverse(perm, n, &inv));
    int64_t *first = malloc(((size_t)n + 1) * sizeof *first);
    if (first == NULL) {
        free(inv);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_quality_of: cannot allocate %lld",
                          (long long)n);
    }
    for (int64_t r = 0; r < n; r++) first[r] = r;
    q->bandwidth = 0;
    /* bandwidth = max |r - s|; first[r] = min column s <= r of row r or of column r */
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = inv != NULL ? inv[i] : i;
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            const int64_t s = inv != NULL ? inv[A->col_idx[e]] : A->col_idx[e];
            const int64_t lo = r < s ? r : s, hi = r < s ? s : r;
            if (hi - lo > q->bandwidth) q->bandwidth = hi - lo;
            if (lo < first[hi]) first[hi] = lo;
        }
    }
    q->profile = 0;
    /* profile = sum_r (r - first[r]) */
    for (int64_t r = 0; r < n; r++) q->profile += r - first[r];
    free(first);
    free(inv);
    kryl_levels lv;
    KRYL_TRY(kryl_order_levels(A, perm, KRYL_LOWER, &lv));
    q->nlevels_lower = lv.nlevels;
    kryl_levels_free(&lv);
    return KRYL_SUCCESS;
}

/* Quality of ordering `kind`; r->have[kind] false when the build lacks it. */
static kryl_status measure(const kryl_csr *A, kryl_order_kind kind, int32_t *perm,
                           kryl_order_report *r)
{
    const kryl_status st = kryl_order_compute(A, kind, perm);
    r->have[kind] = st == KRYL_SUCCESS;
    if (st == KRYL_ERR_UNSUPPORTED) return KRYL_SUCCESS;
    KRYL_TRY(st);
    return kryl_order_quality_of(A, perm, &r->quality[kind]);
}

kryl_status kryl_order_report_compute(const kryl_csr *A, double tau, kryl_order_report *r)
{
    KRYL_REQUIRE_ARG(r);
    memset(r, 0, sizeof *r);
    KRYL_TRY(order_check_matrix(A, "kryl_order_report_compute"));
    r->tau = tau;
    kryl_coloring c;
    KRYL_TRY(kryl_order_color(A, tau, &c));
    r->ncolors_sparsified = c.ncolors;
    kryl_coloring_free(&c);
    KRYL_TRY(kryl_order_color(A, 0.0, &c));
    r->ncolors = c.ncolors;
    kryl_coloring_free(&c);
    int32_t *perm = malloc(((size_t)A->nrows + 1) * sizeof *perm);
    if (perm == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_order_report_compute: cannot allocate %lld indices",
                          (long long)A->nrows);
    kryl_status st = KRYL_SUCCESS;
    for (int k = 0; k < KRYL_ORDER_COUNT && st == KRYL_SUCCESS; k++)
        st = measure(A, (kryl_order_kind)k, perm, r);
    free(perm);
    return st;
}
