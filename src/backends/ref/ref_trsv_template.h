/* The substitution kernels of ref_trsv.c for one REAL (float or double),
 * instantiated by ref_instantiate.h with names suffixed _S. */
#define TRSV_CAT_(a, b) a##_##b
#define TRSV_CAT(a, b)  TRSV_CAT_(a, b)
#define TRSV_ROW        TRSV_CAT(kryl_ref_trsv_row, S)
#define TRSV_SERIAL     TRSV_CAT(ref_trsv_serial, S)
#define TRSV_STORE      TRSV_CAT(ref_trsv_store, S)

void TRSV_ROW(const kryl_host_trsv *T, const REAL *b, REAL *x, int64_t i)
{
    const REAL *val = T->val;
    const REAL *diag = T->diag;
    double s = b[i];
    /* x_i = (b_i - sum_{j != i} t_ij x_j) / t_ii, summed in double */
    for (int64_t k = T->ptr[i]; k < T->ptr[i + 1]; k++) s -= (double)val[k] * (double)x[T->col[k]];
    x[i] = (REAL)(diag ? s / (double)diag[i] : s);
}

/* forward substitution for a lower triangle, backward for an upper one */
static void TRSV_SERIAL(const kryl_host_trsv *T, const REAL *b, REAL *x)
{
    if (T->lower)
        for (int64_t i = 0; i < T->n; i++) TRSV_ROW(T, b, x, i);
    else
        for (int64_t i = T->n - 1; i >= 0; i--) TRSV_ROW(T, b, x, i);
}

/* val[k] = value k of the off-diagonal entries, diag[i] = t_ii, in REAL */
static void TRSV_STORE(const double *offdiag, const double *diagonal, int64_t nnz, int64_t n,
                       void *val, void *diag)
{
    for (int64_t k = 0; k < nnz; k++) ((REAL *)val)[k] = (REAL)offdiag[k];
    if (diag)
        for (int64_t i = 0; i < n; i++) ((REAL *)diag)[i] = (REAL)diagonal[i];
}

#undef TRSV_CAT_
#undef TRSV_CAT
#undef TRSV_ROW
#undef TRSV_SERIAL
#undef TRSV_STORE
