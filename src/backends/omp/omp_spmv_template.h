/* CSR sparse matrix-vector product in one storage variant, defined by the
 * including file (see omp_real.h): REAL (vector entries), VALUE (matrix
 * values), COLUMN_T and COLUMNS (the type and the field of
 * kryl_omp_matrix holding columns: absolute, or offsets from the row),
 * COLUMN(i, c) (the column of row i's stored c) and SUFFIX.  Included once per variant by
 * omp_spmv.c, so it has no include guard; it undefines its parameters at the end.  Row sums are
 * accumulated in double. */

/* y_i = alpha * sum_k a_ik x_k  (+ beta z_i when z), rows r0 <= i < r1.
 * z may be y: each z_i is read before y_i is written. */
static void OMP_FN(spmv_rows)(const kryl_omp_matrix *M, const VALUE *restrict val, int64_t r0,
                              int64_t r1, double alpha, const REAL *restrict x, double beta,
                              const REAL *z, REAL *y)
{
    const int64_t *restrict row_ptr = M->row_ptr;
    const COLUMN_T *restrict col = M->COLUMNS;
    for (int64_t i = r0; i < r1; i++) {
        double sum = 0.0;
        /* sum = a_i: x */
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            sum += (double)val[k] * (double)x[COLUMN(i, col[k])];
        y[i] = (REAL)(z != NULL ? alpha * sum + beta * (double)z[i] : alpha * sum);
    }
}

/* y = alpha*A*x (+ beta*z): each thread takes the row blocks balanced by
 * nonzeros at setup (block t, t + team, ...: all of them when the region
 * runs on fewer threads than there are blocks). */
static void OMP_FN(spmv)(int nt, const kryl_omp_matrix *M, const VALUE *val, double alpha,
                         const REAL *x, double beta, const REAL *z, REAL *y)
{
    const int64_t work = M->nrows + M->row_ptr[M->nrows];
#pragma omp parallel num_threads(nt) if (work >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        for (int b = t; b < M->nparts; b += team)
            OMP_FN(spmv_rows)(M, val, M->part[b], M->part[b + 1], alpha, x, beta, z, y);
    }
}

#undef REAL
#undef VALUE
#undef COLUMN_T
#undef COLUMNS
#undef COLUMN
#undef SUFFIX
