/* Approximate minimum degree ordering through SuiteSparse AMD (Amestoy,
 * Davis & Duff, SIAM J. Matrix Anal. Appl. 17(4), 1996), the cheap
 * successor of the multiple minimum degree ordering Li & Saad (sec. 4.2,
 * Table 5) use to cut the levels of triangular solves.  Optional: without
 * SuiteSparse the call reports KRYL_ERR_UNSUPPORTED. */
#include <stdlib.h>

#include "core/error.h"
#include "order/graph.h"

#ifdef KRYL_HAVE_AMD
#include <amd.h>
#endif

bool kryl_order_have_amd(void)
{
#ifdef KRYL_HAVE_AMD
    return true;
#else
    return false;
#endif
}

#ifdef KRYL_HAVE_AMD
kryl_status kryl_order_amd(const kryl_csr *A, int32_t *perm)
{
    KRYL_TRY(order_check_matrix(A, "kryl_order_amd"));
    KRYL_REQUIRE_ARG(perm);
    order_graph g;
    KRYL_TRY(order_graph_build(A, 0.0, &g));
    const int64_t n = g.n, nnz = g.ptr[n];
    SuiteSparse_long *ap = malloc(((size_t)n + 1) * sizeof *ap);
    SuiteSparse_long *ai = malloc(((size_t)nnz + 1) * sizeof *ai);
    SuiteSparse_long *p = malloc(((size_t)n + 1) * sizeof *p);
    kryl_status st = KRYL_SUCCESS;
    if (ap == NULL || ai == NULL || p == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_order_amd: cannot allocate %lld rows and %lld entries", (long long)n,
                        (long long)nnz);
        goto done;
    }
    /* the graph in SuiteSparse's index type (sorted, no repeats: AMD_OK) */
    for (int64_t i = 0; i <= n; i++) ap[i] = (SuiteSparse_long)g.ptr[i];
    for (int64_t e = 0; e < nnz; e++) ai[e] = g.adj[e];
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_l_defaults(control);
    const SuiteSparse_long rc = amd_l_order((SuiteSparse_long)n, ap, ai, p, control, info);
    if (rc == AMD_OUT_OF_MEMORY) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_order_amd: SuiteSparse AMD ran out of memory (%lld rows, %lld "
                        "entries)",
                        (long long)n, (long long)nnz);
    } else if (rc != AMD_OK && rc != AMD_OK_BUT_JUMBLED) {
        st = KRYL_ERROR(KRYL_ERR_INTERNAL,
                        "kryl_order_amd: SuiteSparse AMD rejected the graph (status %lld)",
                        (long long)rc);
    } else {
        for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)p[i];
    }
done:
    free(ap);
    free(ai);
    free(p);
    order_graph_free(&g);
    return st;
}
#else
kryl_status kryl_order_amd(const kryl_csr *A, int32_t *perm)
{
    KRYL_TRY(order_check_matrix(A, "kryl_order_amd"));
    KRYL_REQUIRE_ARG(perm);
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "kryl_order_amd: this build has no SuiteSparse AMD (install "
                      "libsuitesparse-dev and rebuild); rcm is available");
}
#endif
