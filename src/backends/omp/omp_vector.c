/* The omp backend's vector operations: fill, axpby, pointwise product, the
 * Chebyshev smoother's step and dot, in both precisions from one template. */
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_real.h"
#include "gen/hash.h"

#define KRYL_OMP_TEMPLATE "backends/omp/omp_vector_template.h"
#include "backends/omp/omp_instantiate.h"

kryl_status kryl_omp_check_pair(const char *op, kryl_vector a, kryl_vector b)
{
    if (a == NULL || b == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "omp %s: a vector argument is NULL", op);
    if (a->n != b->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "omp %s: vectors of %lld and %lld entries, expected equal lengths", op,
                          (long long)a->n, (long long)b->n);
    if (a->precision != b->precision)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp %s: vectors in %s and %s precision, expected the same", op,
                          kryl_precision_name(a->precision), kryl_precision_name(b->precision));
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_fill(kryl_context ctx, kryl_vector y, double value)
{
    KRYL_REQUIRE_ARG(y);
    int nt = kryl_omp_state_of(ctx)->threads;
    if (y->precision == KRYL_SINGLE)
        fill_single(nt, y->n, y->data, (float)value);
    else
        fill_double(nt, y->n, y->data, value);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_fill_random(kryl_context ctx, kryl_vector y, uint64_t seed, int64_t first)
{
    KRYL_REQUIRE_ARG(y);
    const int nt = kryl_omp_state_of(ctx)->threads;
    if (y->precision == KRYL_SINGLE)
        fill_random_single(nt, y->n, y->data, seed, first);
    else
        fill_random_double(nt, y->n, y->data, seed, first);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_axpby(kryl_context ctx, double alpha, kryl_vector x, double beta,
                           kryl_vector y)
{
    KRYL_TRY(kryl_omp_check_pair("axpby", x, y));
    int nt = kryl_omp_state_of(ctx)->threads;
    if (y->precision == KRYL_SINGLE) {
        if (beta == 0.0)
            scale_single(nt, y->n, (float)alpha, x->data, y->data);
        else
            axpby_single(nt, y->n, (float)alpha, x->data, (float)beta, y->data);
    } else {
        if (beta == 0.0)
            scale_double(nt, y->n, alpha, x->data, y->data);
        else
            axpby_double(nt, y->n, alpha, x->data, beta, y->data);
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_pointwise_mult(kryl_context ctx, kryl_vector y, kryl_vector d, kryl_vector x)
{
    KRYL_TRY(kryl_omp_check_pair("pointwise_mult", d, y));
    KRYL_TRY(kryl_omp_check_pair("pointwise_mult", x, y));
    int nt = kryl_omp_state_of(ctx)->threads;
    if (y->precision == KRYL_SINGLE)
        pointwise_mult_single(nt, y->n, y->data, d->data, x->data);
    else
        pointwise_mult_double(nt, y->n, y->data, d->data, x->data);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_chebyshev_step(kryl_context ctx, double alpha, kryl_vector r, kryl_vector dinv,
                                    double beta, kryl_vector d, kryl_vector x, bool x_zero)
{
    KRYL_TRY(kryl_omp_check_pair("chebyshev_step", r, x));
    KRYL_TRY(kryl_omp_check_pair("chebyshev_step", dinv, x));
    if (d) KRYL_TRY(kryl_omp_check_pair("chebyshev_step", d, x));
    KRYL_TRY(kryl_chebyshev_step_check("omp", d, beta));
    int nt = kryl_omp_state_of(ctx)->threads;
    void *dd = d ? d->data : NULL;
    if (x->precision == KRYL_SINGLE)
        chebyshev_step_single(nt, x->n, (float)alpha, r->data, dinv->data, (float)beta, dd, x->data,
                              x_zero);
    else
        chebyshev_step_double(nt, x->n, alpha, r->data, dinv->data, beta, dd, x->data, x_zero);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_dot(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out)
{
    KRYL_TRY(kryl_omp_check_pair("dot", x, y));
    KRYL_REQUIRE_ARG(out.ptr);
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    *out.ptr = y->precision == KRYL_SINGLE ? dot_single(s, y->n, x->data, y->data)
                                           : dot_double(s, y->n, x->data, y->data);
    return KRYL_SUCCESS;
}
