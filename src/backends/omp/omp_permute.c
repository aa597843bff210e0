/* The omp backend's permuted copy between vectors, converting between
 * precisions: four variants (y, x in double or single) from one template. */
#include "backends/host_step.h"
#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_real.h"

#define REAL   double
#define XREAL  double
#define SUFFIX _double_double
#include "backends/omp/omp_permute_template.h"
#undef REAL
#undef XREAL
#undef SUFFIX

#define REAL   double
#define XREAL  float
#define SUFFIX _double_single
#include "backends/omp/omp_permute_template.h"
#undef REAL
#undef XREAL
#undef SUFFIX

#define REAL   float
#define XREAL  double
#define SUFFIX _single_double
#include "backends/omp/omp_permute_template.h"
#undef REAL
#undef XREAL
#undef SUFFIX

#define REAL   float
#define XREAL  float
#define SUFFIX _single_single
#include "backends/omp/omp_permute_template.h"
#undef REAL
#undef XREAL
#undef SUFFIX

kryl_status kryl_omp_permute_copy(kryl_context ctx, kryl_vector y, kryl_vector x,
                                  const int32_t *perm, kryl_permute_dir dir,
                                  const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(y);
    KRYL_REQUIRE_ARG(x);
    if (x->n != y->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "omp permute_copy: vectors of %lld and %lld entries, expected equal "
                          "lengths",
                          (long long)y->n, (long long)x->n);
    if (dir != KRYL_GATHER && dir != KRYL_SCATTER && dir != KRYL_SCATTER_ADD)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp permute_copy: direction %d, expected gather (0), scatter (1) or "
                          "scatter-add (2)",
                          (int)dir);
    if ((perm != NULL || dir == KRYL_SCATTER_ADD) && x->data == y->data && x->n > 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp permute_copy: a permuted copy or sum cannot be done in place");
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    if (perm == NULL && x->data == y->data && x->precision == y->precision) return KRYL_SUCCESS;
    int nt = kryl_omp_state_of(ctx)->threads;
    int64_t n = y->n;
    if (y->precision == KRYL_DOUBLE) {
        if (x->precision == KRYL_DOUBLE)
            permute_double_double(nt, n, y->data, x->data, perm, dir);
        else
            permute_double_single(nt, n, y->data, x->data, perm, dir);
    } else {
        if (x->precision == KRYL_DOUBLE)
            permute_single_double(nt, n, y->data, x->data, perm, dir);
        else
            permute_single_single(nt, n, y->data, x->data, perm, dir);
    }
    return KRYL_SUCCESS;
}
