/* The omp backend's operations on GMRES's basis (semantics in backend.h,
 * ref_krylov.c the specification): h = V'w (multi_dot), w += alpha V h
 * with ||w||^2 (multi_axpy), v = v/||v|| (normalize), each one parallel
 * pass over the vectors, from the loops of omp_basis_template.h. */
#include <omp.h>
#include <stdint.h>

#include "backends/omp/omp_krylov.h"
#include "backends/omp/omp_real.h"

#define KRYL_OMP_TEMPLATE "backends/omp/omp_basis_template.h"
#include "backends/omp/omp_instantiate.h"

/* A basis of k vectors like w, and somewhere for the k coefficients. */
static kryl_status check_basis(const char *op, kryl_vector V, int k, kryl_vector w, kryl_scalar h)
{
    KRYL_TRY(kryl_omp_check_pair(op, V, w));
    if (k < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "omp %s: k = %d basis vectors, expected >= 0",
                          op, k);
    if (k > 0 && h.ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp %s: the %d coefficients h are NULL, expected k doubles", op, k);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar h,
                               kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("multi_dot", V, k, w, h));
    if (kryl_host_halted(monitor) || k == 0) return KRYL_SUCCESS;
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    /* h = [V_0 ... V_{k-1}]' w */
    if (w->precision == KRYL_SINGLE)
        multi_dot_single(st, w->n, V->data, k, w->data, h.ptr);
    else
        multi_dot_double(st, w->n, V->data, k, w->data, h.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha, kryl_scalar h,
                                kryl_vector w, kryl_scalar ww, kryl_monitor *monitor)
{
    KRYL_TRY(check_basis("multi_axpy", V, k, w, h));
    /* w is written: it must not be one of the k vectors read */
    uintptr_t base = (uintptr_t)V->data, wp = (uintptr_t)w->data;
    uintptr_t bytes = (uintptr_t)V->n * kryl_precision_size(V->precision);
    if (w->n > 0 && wp >= base && wp - base < (uintptr_t)k * bytes)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp multi_axpy: w lies inside the %d basis vectors it combines, "
                          "expected a vector outside them",
                          k);
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    /* w += alpha [V_0 ... V_{k-1}] h;  ww = w'w */
    double sum = w->precision == KRYL_SINGLE
                     ? multi_axpy_single(st, w->n, V->data, k, alpha, h.ptr, w->data)
                     : multi_axpy_double(st, w->n, V->data, k, alpha, h.ptr, w->data);
    if (ww.ptr != NULL) *ww.ptr = sum;
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                               kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(vv.ptr);
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double norm = sqrt(*vv.ptr);
    /* a zero, negative or non-finite vv leaves v as it is */
    if (!(norm > 0.0) || !isfinite(norm)) return KRYL_SUCCESS;
    int threads = kryl_omp_state_of(ctx)->threads;
    /* v = v / ||v|| */
    if (v->precision == KRYL_SINGLE)
        scale_down_single(threads, v->n, norm, v->data);
    else
        scale_down_double(threads, v->n, norm, v->data);
    return KRYL_SUCCESS;
}
