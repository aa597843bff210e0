/* Vectors: backend arrays laid out like a matrix's rows. */
#include <math.h>
#include <stdlib.h>

#include "backends/backend.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

kryl_status kryl_vector_create_like(kryl_vector *v, kryl_context ctx, kryl_layout *layout,
                                    kryl_precision precision)
{
    *v = NULL;
    struct kryl_vector_s *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a vector");
    w->ctx = ctx;
    w->n = layout->n;
    w->precision = precision;
    kryl_status st = ctx->ops->alloc(ctx, &w->data, (size_t)w->n * kryl_precision_size(precision));
    if (st != KRYL_SUCCESS) {
        free(w);
        return st;
    }
    w->layout = kryl_layout_retain(layout);
    ctx->live_objects++;
    *v = w;
    return KRYL_SUCCESS;
}

kryl_status kryl_vector_create(kryl_vector *v, kryl_matrix A, kryl_precision precision)
{
    KRYL_REQUIRE_ARG(v);
    *v = NULL;
    KRYL_REQUIRE_ARG(A);
    if (precision != KRYL_DOUBLE && precision != KRYL_SINGLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "vector precision %d is not double or single",
                          (int)precision);
    return kryl_vector_create_like(v, A->ctx, A->layout, precision);
}

kryl_status kryl_vector_wrap(kryl_vector *v, kryl_matrix A, double *values, int64_t length)
{
    KRYL_REQUIRE_ARG(v);
    *v = NULL;
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(values);
    kryl_layout *layout = A->layout;
    if (length != layout->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "kryl_vector_wrap: %lld values given for a matrix of %lld rows",
                          (long long)length, (long long)layout->n);
    if (layout->perm != NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_vector_wrap: the matrix's rows are reordered; wrap memory for "
                          "the matrix the caller created");
    struct kryl_vector_s *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a vector");
    w->ctx = A->ctx;
    w->n = layout->n;
    w->precision = KRYL_DOUBLE;
    w->data = values;
    w->borrowed = true;
    w->layout = kryl_layout_retain(layout);
    w->ctx->live_objects++;
    *v = w;
    return KRYL_SUCCESS;
}

kryl_status kryl_vector_destroy(kryl_vector *v)
{
    if (v == NULL || *v == NULL) return KRYL_SUCCESS;
    kryl_vector w = *v;
    kryl_context ctx = w->ctx;
    if (!w->borrowed) ctx->ops->release(ctx, w->data);
    kryl_layout_release(ctx, w->layout);
    ctx->live_objects--;
    free(w);
    *v = NULL;
    return KRYL_SUCCESS;
}

int64_t kryl_vector_length(kryl_vector v) { return v ? v->n : 0; }

static kryl_status check_length(kryl_vector v, int64_t length, const char *what)
{
    if (length != v->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH, "%s: %lld values given for a vector of %lld",
                          what, (long long)length, (long long)v->n);
    return KRYL_SUCCESS;
}

/* Host doubles -> a temporary backend vector -> v (converted, permuted into v's order). */
kryl_status kryl_vector_set(kryl_vector v, const double *values, int64_t length)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(values);
    KRYL_TRY(check_length(v, length, "kryl_vector_set"));
    for (int64_t i = 0; i < length; i++)
        if (!isfinite(values[i]))
            return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "kryl_vector_set: entry %lld is %g",
                              (long long)i, values[i]);
    kryl_context ctx = v->ctx;
    const int32_t *perm = v->layout->perm_backend;
    if (v->precision == KRYL_DOUBLE && perm == NULL)
        return ctx->ops->upload(ctx, v->data, values, (size_t)length * sizeof(double));
    kryl_vector staging;
    KRYL_TRY(kryl_vector_create_like(&staging, ctx, v->layout, KRYL_DOUBLE));
    kryl_status st = ctx->ops->upload(ctx, staging->data, values, (size_t)length * sizeof(double));
    if (st == KRYL_SUCCESS) st = ctx->ops->permute_copy(ctx, v, staging, perm, KRYL_GATHER, NULL);
    if (st == KRYL_SUCCESS) st = ctx->ops->synchronize(ctx);
    kryl_vector_destroy(&staging);
    return st;
}

kryl_status kryl_vector_get(kryl_vector v, double *values, int64_t length)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(values);
    KRYL_TRY(check_length(v, length, "kryl_vector_get"));
    kryl_context ctx = v->ctx;
    const int32_t *perm = v->layout->perm_backend;
    if (v->precision == KRYL_DOUBLE && perm == NULL)
        return ctx->ops->download(ctx, values, v->data, (size_t)length * sizeof(double));
    kryl_vector staging;
    KRYL_TRY(kryl_vector_create_like(&staging, ctx, v->layout, KRYL_DOUBLE));
    kryl_status st = ctx->ops->permute_copy(ctx, staging, v, perm, KRYL_SCATTER, NULL);
    if (st == KRYL_SUCCESS)
        st = ctx->ops->download(ctx, values, staging->data, (size_t)length * sizeof(double));
    kryl_vector_destroy(&staging);
    return st;
}

/* v's struct over caller memory the backend addresses: borrowed, never released. */
static struct kryl_vector_s borrowed_like(kryl_vector v, double *values)
{
    struct kryl_vector_s w = *v;
    w.precision = KRYL_DOUBLE;
    w.data = values;
    return w;
}

kryl_status kryl_vector_set_device(kryl_vector v, const double *values, int64_t length)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(values);
    KRYL_TRY(check_length(v, length, "kryl_vector_set_device"));
    kryl_context ctx = v->ctx;
    struct kryl_vector_s source = borrowed_like(v, (double *)values);
    /* v = values, converted and permuted into v's order */
    KRYL_TRY(ctx->ops->permute_copy(ctx, v, &source, v->layout->perm_backend, KRYL_GATHER, NULL));
    return ctx->ops->synchronize(ctx);
}

kryl_status kryl_vector_get_device(kryl_vector v, double *values, int64_t length)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(values);
    KRYL_TRY(check_length(v, length, "kryl_vector_get_device"));
    kryl_context ctx = v->ctx;
    struct kryl_vector_s target = borrowed_like(v, values);
    /* values = v, in the caller's order and in double */
    KRYL_TRY(ctx->ops->permute_copy(ctx, &target, v, v->layout->perm_backend, KRYL_SCATTER, NULL));
    return ctx->ops->synchronize(ctx);
}

kryl_status kryl_vector_fill(kryl_vector v, double value)
{
    KRYL_REQUIRE_ARG(v);
    if (!isfinite(value))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "kryl_vector_fill: value is %g", value);
    /* v_i = value */
    KRYL_TRY(v->ctx->ops->fill(v->ctx, v, value));
    return v->ctx->ops->synchronize(v->ctx);
}

/* v must be laid out like A's rows. */
static kryl_status check_global(kryl_vector v, kryl_matrix A, const char *what)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_REQUIRE_ARG(A);
    if (v->ctx != A->ctx)
        return KRYL_ERROR(KRYL_ERR_CONTEXT_MISMATCH, "%s: v and A belong to different contexts",
                          what);
    if (v->n != A->layout->n)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "%s: v has %lld entries but A owns %lld rows here", what, (long long)v->n,
                          (long long)A->layout->n);
    return KRYL_SUCCESS;
}

kryl_status kryl_vector_set_global(kryl_vector v, kryl_matrix A, const double *values)
{
    KRYL_TRY(check_global(v, A, "kryl_vector_set_global"));
#ifdef KRYL_HAVE_MPI
    if (A->dist) return kryl_dist_vector_set_global(v, A, values);
#endif
    return kryl_vector_set(v, values, v->n);
}

kryl_status kryl_vector_get_global(kryl_vector v, kryl_matrix A, double *values)
{
    KRYL_TRY(check_global(v, A, "kryl_vector_get_global"));
#ifdef KRYL_HAVE_MPI
    if (A->dist) return kryl_dist_vector_get_global(v, A, values);
#endif
    return kryl_vector_get(v, values, v->n);
}
