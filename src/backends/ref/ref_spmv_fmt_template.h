/* Reference SpMV per storage format, instantiated for REAL = double
 * (S = d) and float (S = s) by ref_spmv_fmt.c.  Each kernel walks the
 * format's own arrays one row at a time (layouts in formats/format.h),
 * sums in double, then writes y_i = alpha*sum + beta*z_i, so z may be y. */
#define REF_FMT_NAME2(a, b) a##_##b
#define REF_FMT_NAME(a, b)  REF_FMT_NAME2(a, b)

/* y_i = alpha*sum + beta*z_i (z NULL: y_i = alpha*sum) */
static void REF_FMT_NAME(ref_fmt_put, S)(REAL *y, const REAL *z, int64_t i, double alpha,
                                         double beta, double sum)
{
    y[i] = (REAL)(z ? alpha * sum + beta * (double)z[i] : alpha * sum);
}

static void REF_FMT_NAME(ref_fmt_csr, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                         const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_csr *a = &f->u.csr;
    for (int64_t i = 0; i < f->nrows; i++) {
        double sum = 0.0;
        /* sum = sum_k val[k] x[col[k]] over row i */
        for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
            sum += (double)val[k] * (double)x[a->col[k]];
        REF_FMT_NAME(ref_fmt_put, S)(y, z, i, alpha, beta, sum);
    }
}

/* ELLPACK walks every slot of the row, padding included; ELLPACK-R stops
 * at row_len (Kreutzer et al. 2012, listing 1). */
static void REF_FMT_NAME(ref_fmt_ell, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                         const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_ell *a = &f->u.ell;
    for (int64_t i = 0; i < f->nrows; i++) {
        const int64_t len = a->row_len ? a->row_len[i] : a->width;
        double sum = 0.0;
        /* sum = sum_j val[j*stride + i] x[col[j*stride + i]] */
        for (int64_t j = 0; j < len; j++)
            sum += (double)val[j * a->stride + i] * (double)x[a->col[j * a->stride + i]];
        REF_FMT_NAME(ref_fmt_put, S)(y, z, i, alpha, beta, sum);
    }
}

/* JDS, the row-per-thread "CSR-like" walk (Cevahir et al. 2009, fig. 3):
 * entry d of row i is in jagged diagonal d. */
static void REF_FMT_NAME(ref_fmt_jds, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                         const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_jds *a = &f->u.jds;
    for (int64_t i = 0; i < f->nrows; i++) {
        double sum = 0.0;
        /* sum = sum_d val[diag_ptr[d] + i] x[col[diag_ptr[d] + i]] */
        for (int64_t d = 0; d < a->row_len[i]; d++)
            sum += (double)val[a->diag_ptr[d] + i] * (double)x[a->col[a->diag_ptr[d] + i]];
        REF_FMT_NAME(ref_fmt_put, S)(y, z, i, alpha, beta, sum);
    }
}

/* SELL-C-sigma and pJDS: row i is row i % C of slice i / C. */
static void REF_FMT_NAME(ref_fmt_sell, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                          const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_sell *a = &f->u.sell;
    for (int64_t i = 0; i < f->nrows; i++) {
        const int64_t at = a->slice_ptr[i / a->C] + i % a->C;
        double sum = 0.0;
        /* sum = sum_j val[slice_ptr[s] + j*C + r] x[col[...]] */
        for (int64_t j = 0; j < a->row_len[i]; j++)
            sum += (double)val[at + j * a->C] * (double)x[a->col[at + j * a->C]];
        REF_FMT_NAME(ref_fmt_put, S)(y, z, i, alpha, beta, sum);
    }
}

/* BCSR: b sums per block row; block columns past n are padding. */
static void REF_FMT_NAME(ref_fmt_bcsr, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                          const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_bcsr *a = &f->u.bcsr;
    const int64_t b = a->b, n = f->nrows;
    for (int64_t I = 0; I < a->nbrows; I++) {
        double sum[4] = {0.0, 0.0, 0.0, 0.0};
        /* sum_r = sum over blocks k, columns c of bval[k][r][c] x[b*bcol[k] + c] */
        for (int64_t k = a->brow_ptr[I]; k < a->brow_ptr[I + 1]; k++)
            for (int64_t r = 0; r < b; r++)
                for (int64_t c = 0; c < b && b * a->bcol[k] + c < n; c++)
                    sum[r] += (double)val[(k * b + r) * b + c] * (double)x[b * a->bcol[k] + c];
        for (int64_t r = 0; r < b && I * b + r < n; r++)
            REF_FMT_NAME(ref_fmt_put, S)(y, z, I * b + r, alpha, beta, sum[r]);
    }
}

/* DIA: x read along each diagonal, skipping positions outside the matrix. */
static void REF_FMT_NAME(ref_fmt_dia, S)(const kryl_fmt *f, const REAL *val, double alpha,
                                         const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_dia *a = &f->u.dia;
    for (int64_t i = 0; i < f->nrows; i++) {
        double sum = 0.0;
        /* sum = sum_d val[d*stride + i] x[i + offset[d]] */
        for (int64_t d = 0; d < a->ndiag; d++) {
            const int64_t j = i + a->offset[d];
            if (j >= 0 && j < f->ncols) sum += (double)val[d * a->stride + i] * (double)x[j];
        }
        REF_FMT_NAME(ref_fmt_put, S)(y, z, i, alpha, beta, sum);
    }
}

void REF_FMT_NAME(ref_fmt_spmv, S)(const kryl_fmt *f, const REAL *val, double alpha, const REAL *x,
                                   double beta, const REAL *z, REAL *y)
{
    switch (f->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: REF_FMT_NAME(ref_fmt_ell, S)(f, val, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_JDS: REF_FMT_NAME(ref_fmt_jds, S)(f, val, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_SELL: REF_FMT_NAME(ref_fmt_sell, S)(f, val, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: REF_FMT_NAME(ref_fmt_bcsr, S)(f, val, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_DIA: REF_FMT_NAME(ref_fmt_dia, S)(f, val, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_CSR: REF_FMT_NAME(ref_fmt_csr, S)(f, val, alpha, x, beta, z, y); break;
    default: break; /* not a built format: nothing to multiply */
    }
}

#undef REF_FMT_NAME
#undef REF_FMT_NAME2
