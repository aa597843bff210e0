/* Maximum-transversal row matching: a row permutation P such that P A has
 * as many nonzero diagonal entries as any permutation can give (all of
 * them when A is structurally nonsingular), by SuiteSparse BTF's
 * btf_maxtrans (I. S. Duff, On algorithms for obtaining a maximum
 * transversal, ACM TOMS 7 (1981) 315-330, MC21).  Builds without BTF
 * refuse. */
#include "order/order.h"

#include <stdlib.h>

#include "core/error.h"
#ifdef KRYL_HAVE_BTF
#include <btf.h>
#endif

bool kryl_match_available(void)
{
#ifdef KRYL_HAVE_BTF
    return true;
#else
    return false;
#endif
}

kryl_status kryl_order_match(const kryl_csr *A, int32_t *perm, int64_t *matched)
{
    const int64_t n = A->nrows;
#ifdef KRYL_HAVE_BTF
    if (n > INT32_MAX || kryl_csr_nnz(A) > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "match: %lld rows, %lld entries: BTF takes 32-bit offsets", (long long)n,
                          (long long)kryl_csr_nnz(A));
    const size_t sz = (size_t)(n > 0 ? n : 1);
    int *Ap = malloc((sz + 1) * sizeof *Ap),
        *Ai = malloc((size_t)(kryl_csr_nnz(A) + 1) * sizeof *Ai);
    int *match = malloc(sz * sizeof *match), *work = malloc(5 * sz * sizeof *work);
    char *used = calloc(sz, 1);
    kryl_status st = KRYL_SUCCESS;
    if (!Ap || !Ai || !match || !work || !used)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "match: cannot allocate work for %lld rows",
                        (long long)n);
    if (st == KRYL_SUCCESS) {
        for (int64_t i = 0; i <= n; i++) Ap[i] = (int)A->row_ptr[i];
        for (int64_t e = 0; e < kryl_csr_nnz(A); e++) Ai[e] = A->col_idx[e];
        /* A's rows read as the columns of A^T: match[j] = a row i with a_ij stored */
        double done = 0.0;
        *matched = btf_maxtrans((int)n, (int)n, Ap, Ai, 0.0, &done, match, work);
        /* perm[j] = match[j]: row j of P A is row match[j] of A; unmatched
         * positions take the rows left over, in order */
        for (int64_t j = 0; j < n; j++)
            if (match[j] >= 0) used[match[j]] = 1;
        int64_t spare = 0;
        for (int64_t j = 0; j < n; j++) {
            if (match[j] >= 0) {
                perm[j] = match[j];
                continue;
            }
            while (used[spare]) spare++;
            used[spare] = 1;
            perm[j] = (int32_t)spare;
        }
    }
    free(Ap);
    free(Ai);
    free(match);
    free(work);
    free(used);
    return st;
#else
    (void)A;
    (void)perm;
    (void)matched;
    (void)n;
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "match: the row matching needs SuiteSparse BTF, which this build lacks "
                      "(install libsuitesparse-dev and rebuild)");
#endif
}
