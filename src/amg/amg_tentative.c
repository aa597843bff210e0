/* The tentative prolongator of smoothed aggregation (Vanek, Mandel &
 * Brezina 1996, section 3): on each aggregate the near-nullspace's rows
 * B_a = Q_a R_a (thin QR); T holds Q_a, the coarse near-nullspace R_a, so
 * T Bc = B exactly and coarse levels keep representing B. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/huge_pages.h"

/* A column whose part orthogonal to the earlier ones is below this
 * fraction of its norm is dependent on them, and dropped. */
#define TENTATIVE_DROP 1e-10

/* Modified Gram-Schmidt, twice, of the m x k block Ba (column by column)
 * into Q (m x kept) and R (kept x k, row by row); returns kept. */
static int thin_qr(const double *Ba, int64_t m, int k, double *Q, double *R)
{
    int kept = 0;
    for (int c = 0; c < k; c++) {
        double *q = Q + (size_t)kept * m;
        const double *b = Ba + (size_t)c * m;
        double norm0 = 0.0;
        for (int64_t i = 0; i < m; i++) {
            q[i] = b[i];
            norm0 += b[i] * b[i];
        }
        double coef[KRYL_AMG_MAX_NULLSPACE] = {0};
        for (int pass = 0; pass < 2; pass++)
            for (int p = 0; p < kept; p++) {
                /* q -= (q_p' q) q_p */
                const double *qp = Q + (size_t)p * m;
                double s = 0.0;
                for (int64_t i = 0; i < m; i++) s += qp[i] * q[i];
                for (int64_t i = 0; i < m; i++) q[i] -= s * qp[i];
                coef[p] += s;
            }
        double norm = 0.0;
        for (int64_t i = 0; i < m; i++) norm += q[i] * q[i];
        norm = sqrt(norm);
        for (int p = 0; p < kept; p++) R[(size_t)p * k + c] = coef[p];
        if (!(norm > TENTATIVE_DROP * sqrt(norm0))) continue;
        for (int64_t i = 0; i < m; i++) q[i] /= norm;
        memset(R + (size_t)kept * k, 0, (size_t)k * sizeof *R);
        R[(size_t)kept * k + c] = norm;
        kept++;
    }
    return kept;
}

kryl_status amg_tentative(const int32_t *aggregate, int64_t naggregates, const double *B, int64_t n,
                          int k, kryl_csr *T, double **Bc, int64_t *nc)
{
    *Bc = NULL;
    memset(T, 0, sizeof *T);
    /* members of each aggregate, in row order (counting sort) */
    int64_t *start = kryl_huge_calloc((size_t)naggregates + 2, sizeof *start);
    int64_t *member = kryl_huge_malloc(((size_t)n + 1) * sizeof *member);
    int32_t *width = kryl_huge_malloc(((size_t)naggregates + 1) * sizeof *width);
    /* per aggregate: Ba, Q (largest aggregate x k) and R; all aggregates' R */
    double *R = kryl_huge_malloc(((size_t)naggregates + 1) * (size_t)k * k * sizeof *R);
    double *local = NULL;
    kryl_status st = KRYL_SUCCESS;
    if (start == NULL || member == NULL || width == NULL || R == NULL) goto oom;
    for (int64_t i = 0; i < n; i++)
        if (aggregate[i] >= 0) start[aggregate[i] + 2]++;
    int64_t largest = 1;
    for (int64_t a = 0; a < naggregates; a++) {
        if (start[a + 2] > largest) largest = start[a + 2];
        start[a + 2] += start[a + 1];
    }
    for (int64_t i = 0; i < n; i++)
        if (aggregate[i] >= 0) member[start[aggregate[i] + 1]++] = i;
    local = malloc((size_t)largest * 2 * (size_t)k * sizeof *local);
    if (local == NULL) goto oom;
    /* T's entries: each member row has its aggregate's kept columns */
    int64_t entries = 0;
    double *Ba = local, *Q = local + (size_t)largest * k;
    /* first the QR of every aggregate for its width, kept in R */
    for (int64_t a = 0; a < naggregates; a++) {
        int64_t m = start[a + 1] - start[a];
        for (int c = 0; c < k; c++)
            for (int64_t i = 0; i < m; i++)
                Ba[(size_t)c * m + i] = B[(size_t)c * n + member[start[a] + i]];
        width[a] = thin_qr(Ba, m, k, Q, R + (size_t)a * k * k);
        entries += m * width[a];
    }
    st = kryl_csr_alloc(T, n, 0, entries);
    if (st != KRYL_SUCCESS) goto done;
    /* coarse columns: the aggregates' kept columns one after another */
    int64_t *first_col = kryl_huge_malloc(((size_t)naggregates + 1) * sizeof *first_col);
    if (first_col == NULL) goto oom;
    first_col[0] = 0;
    for (int64_t a = 0; a < naggregates; a++) first_col[a + 1] = first_col[a] + width[a];
    *nc = first_col[naggregates];
    T->ncols = *nc;
    for (int64_t i = 0; i < n; i++)
        T->row_ptr[i + 1] = T->row_ptr[i] + (aggregate[i] >= 0 ? width[aggregate[i]] : 0);
    *Bc = kryl_huge_malloc(((size_t)*nc + 1) * (size_t)k * sizeof **Bc);
    if (*Bc == NULL) {
        free(first_col);
        goto oom;
    }
    /* again the QR (deterministic) for Q; T's rows and Bc's rows R_a */
    for (int64_t a = 0; a < naggregates; a++) {
        int64_t m = start[a + 1] - start[a];
        for (int c = 0; c < k; c++)
            for (int64_t i = 0; i < m; i++)
                Ba[(size_t)c * m + i] = B[(size_t)c * n + member[start[a] + i]];
        thin_qr(Ba, m, k, Q, R + (size_t)a * k * k);
        for (int64_t i = 0; i < m; i++) {
            int64_t row = member[start[a] + i], at = T->row_ptr[row];
            for (int p = 0; p < width[a]; p++) {
                T->col_idx[at + p] = (int32_t)(first_col[a] + p);
                T->values[at + p] = Q[(size_t)p * m + i];
            }
        }
        for (int p = 0; p < width[a]; p++)
            for (int c = 0; c < k; c++)
                (*Bc)[(size_t)c * *nc + first_col[a] + p] = R[((size_t)a * k + p) * k + c];
    }
    free(first_col);
    goto done;
oom:
    st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                    "amg: cannot allocate the tentative prolongator of "
                    "%lld rows and %lld aggregates",
                    (long long)n, (long long)naggregates);
    kryl_csr_free(T);
    free(*Bc);
    *Bc = NULL;
done:
    free(start);
    free(member);
    free(width);
    free(R);
    free(local);
    return st;
}
