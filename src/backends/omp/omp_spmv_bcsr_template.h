/* BCSR SpMV with BS x BS blocks, BS a constant, inside
 * omp_spmv_fmt_template.h (which names the variant: REAL, VALUE, SUFFIX).
 * Included once per block size, so it has no include guard; it undefines
 * BS at the end. */

/* Block rows I0 <= I < I1, register-blocked (Im, Yelick and Vuduc 2004,
 * "SPARSITY"; Buatois et al. 2009 for the blocks): BS row sums and BS
 * entries of x stay in registers, and the constant trip counts unroll each
 * block's multiply.  A block reaching past column n (the padding of the
 * last block column, value 0) takes x = 0 there: it adds exactly +-0 to a
 * sum that is never -0, the reference's bits. */
static void OMP_FN(OMP_CAT_(fmt_bcsr, BS))(const kryl_fmt *f, const VALUE *restrict val, int64_t I0,
                                           int64_t I1, double alpha, const REAL *restrict x,
                                           double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_bcsr *a = &f->u.bcsr;
    const int64_t n = f->ncols;
    for (int64_t I = I0; I < I1; I++) {
        double sum[BS] = {0.0};
        for (int64_t k = a->brow_ptr[I]; k < a->brow_ptr[I + 1]; k++) {
            const VALUE *restrict blk = val + k * BS * BS;
            const int64_t c0 = (int64_t)BS * a->bcol[k];
            double xc[BS];
            if (c0 + BS <= n)
                for (int c = 0; c < BS; c++) xc[c] = (double)x[c0 + c];
            else
                for (int c = 0; c < BS; c++) xc[c] = c0 + c < n ? (double)x[c0 + c] : 0.0;
            /* sum_r += sum_c blk[r][c] x[c0 + c] */
            for (int r = 0; r < BS; r++)
                for (int c = 0; c < BS; c++) sum[r] += (double)blk[r * BS + c] * xc[c];
        }
        /* row by row: sum never has its address taken, so it stays in registers */
        for (int r = 0; r < BS && I * BS + r < f->nrows; r++)
            OMP_FN(fmt_put1)(sum[r], I * BS + r, alpha, beta, z, y);
    }
}

#undef BS
