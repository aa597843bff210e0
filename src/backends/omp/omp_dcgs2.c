/* The omp backend's passes of GMRES by DCGS2 (Bielich et al., Parallel
 * Comput. 2022): the fused dot [V_0..V_k]'[V_k w] with w'w and the fused
 * update of V_k and w, each one parallel pass over the basis, from the
 * loops of omp_dcgs2_template.h. */
#include <omp.h>
#include <stdint.h>

#include "backends/omp/omp_krylov.h"
#include "backends/omp/omp_real.h"

/* Columns whose partial dot products a part holds at once (two sums each,
 * and w'w, in its KRYL_OMP_PART_SLOTS): up to this many, V_k and w are
 * swept once; beyond it, once per group. */
#define DCGS2_OMP_GROUP ((KRYL_OMP_PART_SLOTS - 1) / 2)

#define KRYL_OMP_TEMPLATE "backends/omp/omp_dcgs2_template.h"
#include "backends/omp/omp_instantiate.h"

/* A basis of k+1 vectors like w (w may be NULL) and somewhere for d. */
static kryl_status check_basis(const char *op, kryl_vector V, int k, kryl_vector w, kryl_scalar d)
{
    KRYL_REQUIRE_ARG(V);
    if (w) KRYL_TRY(kryl_omp_check_pair(op, V, w));
    if (k < 0) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "omp %s: k = %d, expected >= 0", op, k);
    if (d.ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "omp %s: the coefficients d are NULL", op);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                     kryl_scalar d, kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("gmres_dcgs2_dot", V, k, w, d));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    /* d = [V_0 .. V_k]'[V_k w];  d[2k+2] = w'w */
    if (V->precision == KRYL_SINGLE)
        dcgs2_dot_single(st, V->n, V->data, k, w ? w->data : NULL, d.ptr);
    else
        dcgs2_dot_double(st, V->n, V->data, k, w ? w->data : NULL, d.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                        kryl_scalar d, kryl_scalar f, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(w);
    KRYL_TRY(check_basis("gmres_dcgs2_update", V, k, w, d));
    if (f.ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp gmres_dcgs2_update: the factors f are NULL, expected 3 doubles");
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    int threads = kryl_omp_state_of(ctx)->threads;
    /* V_k = (V_k - Q s) f0;  w = (w - Q t - f1 V_k) f2 */
    if (V->precision == KRYL_SINGLE)
        dcgs2_update_single(threads, V->n, V->data, k, w->data, d.ptr, f.ptr);
    else
        dcgs2_update_double(threads, V->n, V->data, k, w->data, d.ptr, f.ptr);
    return KRYL_SUCCESS;
}
