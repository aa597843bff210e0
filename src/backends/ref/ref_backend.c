/* The ref backend: host memory, serial loops.  The oracle every other
 * backend is tested against; kept plain on purpose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/host_mcsweep.h"
#include "backends/host_step.h"
#include "backends/ref/ref_factor.h"
#include "backends/ref/ref_kernels.h"
#include "backends/ref/ref_krylov.h"
#include "backends/ref/ref_ops.h"
#include "backends/ref/ref_spmv_fmt.h"
#include "backends/ref/ref_trsv.h"
#include "gen/hash.h"
#include "order/order.h"

static kryl_status ref_init(kryl_context ctx)
{
    snprintf(ctx->device_name, sizeof ctx->device_name, "host, serial reference");
    ctx->backend = NULL;
    return KRYL_SUCCESS;
}

static void ref_finalize(kryl_context ctx) { (void)ctx; }

static kryl_status ref_alloc(kryl_context ctx, void **ptr, size_t bytes)
{
    (void)ctx;
    *ptr = NULL;
    if (bytes == 0) return KRYL_SUCCESS;
    *ptr = calloc(1, bytes);
    if (*ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory",
                          bytes);
    return KRYL_SUCCESS;
}

static void ref_release(kryl_context ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static kryl_status ref_copy_bytes(kryl_context ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    if (bytes) memcpy(dst, src, bytes);
    return KRYL_SUCCESS;
}

static kryl_status ref_synchronize(kryl_context ctx)
{
    (void)ctx;
    return KRYL_SUCCESS;
}

/* The format's own arrays serve double precision; single keeps a float
 * copy of its values (A->storage). */
static kryl_status ref_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    (void)ctx;
    A->storage = NULL;
    if (A->precision == KRYL_DOUBLE) return KRYL_SUCCESS;
    double *values;
    int64_t count;
    kryl_fmt_values(&A->fmt, &values, &count);
    float *v = malloc((size_t)(count > 0 ? count : 1) * sizeof *v);
    if (v == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld float values",
                          (long long)count);
    for (int64_t k = 0; k < count; k++) v[k] = (float)values[k];
    A->storage = v;
    return KRYL_SUCCESS;
}

static void ref_matrix_release(kryl_context ctx, kryl_matrix A)
{
    (void)ctx;
    free(A->storage);
    A->storage = NULL;
}

static bool is_double(kryl_vector v) { return v->precision == KRYL_DOUBLE; }

static kryl_status ref_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                            double beta, kryl_vector z, kryl_vector y, const kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* y = alpha*A*x + beta*z */
    if (is_double(y)) {
        double *values;
        kryl_fmt_values(&A->fmt, &values, NULL);
        ref_fmt_spmv_d(&A->fmt, values, alpha, x->data, beta, z ? z->data : NULL, y->data);
    } else {
        ref_fmt_spmv_s(&A->fmt, A->storage, alpha, x->data, beta, z ? z->data : NULL, y->data);
    }
    return KRYL_SUCCESS;
}

static kryl_status ref_fill(kryl_context ctx, kryl_vector y, double value)
{
    (void)ctx;
    if (is_double(y))
        ref_fill_d(y->n, y->data, value);
    else
        ref_fill_s(y->n, y->data, value);
    return KRYL_SUCCESS;
}

static double get_value(kryl_vector v, int64_t i)
{
    return is_double(v) ? ((const double *)v->data)[i] : (double)((const float *)v->data)[i];
}

static void set_value(kryl_vector v, int64_t i, double value)
{
    if (is_double(v))
        ((double *)v->data)[i] = value;
    else
        ((float *)v->data)[i] = (float)value;
}

static kryl_status ref_fill_random(kryl_context ctx, kryl_vector y, uint64_t seed, int64_t first)
{
    (void)ctx;
    KRYL_REQUIRE_ARG(y);
    for (int64_t i = 0; i < y->n; i++) set_value(y, i, kryl_random_entry(seed, first + i));
    return KRYL_SUCCESS;
}

static kryl_status ref_permute_copy(kryl_context ctx, kryl_vector y, kryl_vector x,
                                    const int32_t *perm, kryl_permute_dir dir,
                                    const kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    for (int64_t i = 0; i < y->n; i++) {
        int64_t j = perm ? perm[i] : i;
        /* gather: y_i = x_perm(i);  scatter: y_perm(i) = x_i;  add: y_perm(i) += x_i */
        if (dir == KRYL_GATHER)
            set_value(y, i, get_value(x, j));
        else if (dir == KRYL_SCATTER)
            set_value(y, j, get_value(x, i));
        else /* x_i in y's precision first, as the other backends add it */
            set_value(y, j,
                      get_value(y, j) +
                          (is_double(y) ? get_value(x, i) : (double)(float)get_value(x, i)));
    }
    return KRYL_SUCCESS;
}

static kryl_status ref_axpby(kryl_context ctx, double alpha, kryl_vector x, double beta,
                             kryl_vector y)
{
    (void)ctx;
    /* y = alpha*x + beta*y */
    if (is_double(y))
        ref_axpby_d(y->n, alpha, x->data, beta, y->data);
    else
        ref_axpby_s(y->n, alpha, x->data, beta, y->data);
    return KRYL_SUCCESS;
}

static kryl_status ref_pointwise_mult(kryl_context ctx, kryl_vector y, kryl_vector d, kryl_vector x)
{
    (void)ctx;
    /* y = d .* x */
    if (is_double(y))
        ref_pointwise_mult_d(y->n, y->data, d->data, x->data);
    else
        ref_pointwise_mult_s(y->n, y->data, d->data, x->data);
    return KRYL_SUCCESS;
}

static kryl_status ref_chebyshev_step(kryl_context ctx, double alpha, kryl_vector r,
                                      kryl_vector dinv, double beta, kryl_vector d, kryl_vector x,
                                      bool x_zero)
{
    (void)ctx;
    KRYL_TRY(kryl_chebyshev_step_check("ref", d, beta));
    void *dd = d ? d->data : NULL;
    /* d = alpha dinv .* r + beta d;  x += d (x = d) */
    if (is_double(x))
        ref_chebyshev_step_d(x->n, alpha, r->data, dinv->data, beta, dd, x->data, x_zero);
    else
        ref_chebyshev_step_s(x->n, alpha, r->data, dinv->data, beta, dd, x->data, x_zero);
    return KRYL_SUCCESS;
}

static kryl_status ref_dot(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_scalar out)
{
    (void)ctx;
    /* out = x'y */
    *out.ptr = is_double(x) ? ref_dot_d(x->n, x->data, y->data) : ref_dot_s(x->n, x->data, y->data);
    return KRYL_SUCCESS;
}

static kryl_status ref_cg_update_xr(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                    kryl_vector p, kryl_vector q, kryl_vector x, kryl_vector r,
                                    kryl_vector dinv, kryl_vector z, kryl_scalar rz, kryl_scalar rr,
                                    kryl_monitor *monitor)
{
    (void)ctx;
    double alpha;
    kryl_host_mark_step(monitor, false);
    if (kryl_host_halted(monitor) || !kryl_host_cg_alpha(*num.ptr, *den.ptr, monitor, &alpha))
        return KRYL_SUCCESS;
    /* x += alpha p;  r -= alpha q;  z = dinv .* r;  rz = r'z;  rr = r'r */
    if (is_double(x))
        ref_cg_update_xr_d(x->n, alpha, p->data, q->data, x->data, r->data,
                           dinv ? dinv->data : NULL, z ? z->data : NULL, rz.ptr, rr.ptr);
    else
        ref_cg_update_xr_s(x->n, alpha, p->data, q->data, x->data, r->data,
                           dinv ? dinv->data : NULL, z ? z->data : NULL, rz.ptr, rr.ptr);
    kryl_host_mark_step(monitor, true);
    return KRYL_SUCCESS;
}

static kryl_status ref_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                   kryl_vector z, kryl_vector p, kryl_scalar rr,
                                   kryl_monitor *monitor)
{
    (void)ctx;
    double beta;
    if (kryl_host_step_skipped(monitor) || !kryl_host_ratio(*num.ptr, *den.ptr, monitor, &beta))
        return KRYL_SUCCESS;
    /* p = z + beta p */
    if (is_double(p))
        ref_cg_update_p_d(p->n, beta, z->data, p->data);
    else
        ref_cg_update_p_s(p->n, beta, z->data, p->data);
    /* record ||r|| */
    if (rr.ptr && monitor) kryl_monitor_record(monitor, *rr.ptr, 1);
    return KRYL_SUCCESS;
}

static kryl_status ref_monitor_update(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                      int advance)
{
    (void)ctx;
    kryl_monitor_record(monitor, *rr.ptr, advance);
    return KRYL_SUCCESS;
}

/* The coloring's definition itself (src/order/color_jp.c). */
static kryl_status ref_color_rows(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                  const int32_t *col_idx, bool symmetric, int32_t *color,
                                  int32_t *ncolors)
{
    (void)ctx;
    (void)symmetric;
    return kryl_color_jp_serial(n, row_ptr, col_idx, color, ncolors);
}

static const kryl_backend_ops ref_ops = {
    .name = "ref",
    .check_interval = 1,
    .formats = ~0u, /* every format: the reference kernels read each one's own arrays */
    .device_memory = false,
    .init = ref_init,
    .finalize = ref_finalize,
    .alloc = ref_alloc,
    .release = ref_release,
    .upload = ref_copy_bytes,
    .download = ref_copy_bytes,
    .synchronize = ref_synchronize,
    .copy_to_host_async = kryl_host_copy_async,
    .copy_from_host_async = kryl_host_copy_async,
    .copy_wait = kryl_host_copy_wait,
    .host_pin = kryl_host_pin,
    .host_unpin = kryl_host_unpin,
    .matrix_setup = ref_matrix_setup,
    .matrix_release = ref_matrix_release,
    .csr_asymmetry = kryl_host_csr_asymmetry,
    .csr_diagonal = kryl_host_csr_diagonal,
    .csr_row_sums = kryl_host_csr_row_sums,
    .csr_unmirrored = kryl_host_csr_unmirrored,
    .spmv = ref_spmv,
    .fill = ref_fill,
    .fill_random = ref_fill_random,
    .permute_copy = ref_permute_copy,
    .axpby = ref_axpby,
    .pointwise_mult = ref_pointwise_mult,
    .chebyshev_step = ref_chebyshev_step,
    .dot = ref_dot,
    .cg_update_xr = ref_cg_update_xr,
    .cg_update_p = ref_cg_update_p,
    .monitor_update = ref_monitor_update,
    /* operations of the other Krylov methods (ref_krylov.c) */
    .cg1_terms = kryl_ref_cg1_terms,
    .cg1_update = kryl_ref_cg1_update,
    .pipecg_update = kryl_ref_pipecg_update,
    .dot2 = kryl_ref_dot2,
    .bicgstab_update_s = kryl_ref_bicgstab_update_s,
    .bicgstab_update_xr = kryl_ref_bicgstab_update_xr,
    .bicgstab_update_p = kryl_ref_bicgstab_update_p,
    .multi_dot = kryl_ref_multi_dot,
    .multi_axpy = kryl_ref_multi_axpy,
    .normalize = kryl_ref_normalize,
    .gmres_cycle_start = kryl_ref_gmres_cycle_start,
    .gmres_givens = kryl_ref_gmres_givens,
    .gmres_solve = kryl_ref_gmres_solve,
    .gmres_dcgs2_dot = kryl_ref_gmres_dcgs2_dot,
    .gmres_dcgs2_update = kryl_ref_gmres_dcgs2_update,
    .gmres_dcgs2_column = kryl_ref_gmres_dcgs2_column,
    .fcg_update_p = kryl_ref_fcg_update_p,
    .monitor_restart = kryl_ref_monitor_restart,
    /* triangular solves (ref_trsv.c) */
    .trsv_setup = kryl_ref_trsv_setup,
    .trsv = kryl_ref_trsv,
    .trsv_release = kryl_ref_trsv_release,
    .trsv_path = kryl_ref_trsv_path,
    /* algebraic multigrid aggregation: the host's code (host_aggregate.c) */
    .amg_aggregate = kryl_host_amg_aggregate,
    /* multicolor ordering */
    .color_rows = ref_color_rows,
    .color_group = kryl_host_color_group,
    .color_first_fit = kryl_host_color_first_fit,
    .amg_tentative = kryl_host_amg_tentative,
    /* multicolor SSOR (ref_mcsweep.c) */
    .csr_permute = kryl_ref_csr_permute,
    .mcsweep_setup = kryl_ref_mcsweep_setup,
    .mcsweep = kryl_ref_mcsweep,
    .mcsweep_release = kryl_host_mcsweep_release,
    /* incomplete factorizations on a kept pattern (ref_factor.c) */
    .factor_setup = kryl_ref_factor_setup,
    .factor_numeric = kryl_ref_factor_numeric,
    .factor_trsv = kryl_ref_factor_trsv,
    .factor_release = kryl_ref_factor_release,
    .amax = kryl_ref_amax,
};

const kryl_backend_ops *kryl_backend_ref(void) { return &ref_ops; }
