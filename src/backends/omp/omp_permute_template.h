/* Permuted copy from XREAL into REAL: REAL, XREAL and SUFFIX are defined by
 * the including file (see omp_real.h).  Included once per pair of
 * precisions by omp_permute.c, so it has no include guard. */

static void OMP_FN(permute)(int nt, int64_t n, REAL *y, const XREAL *x, const int32_t *perm,
                            kryl_permute_dir dir)
{
    if (dir == KRYL_SCATTER_ADD) {
        /* y_perm(i) += x_i */
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) y[perm ? perm[i] : i] += (REAL)x[i];
    } else if (perm == NULL) {
        /* y_i = x_i */
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) y[i] = (REAL)x[i];
    } else if (dir == KRYL_GATHER) {
        /* y_i = x_perm(i) */
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) y[i] = (REAL)x[perm[i]];
    } else {
        /* y_perm(i) = x_i */
#pragma omp parallel for schedule(static) num_threads(nt) if (n >= KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) y[perm[i]] = (REAL)x[i];
    }
}
