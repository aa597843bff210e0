/* SpMV kernels of the storage formats other than CSR in one variant,
 * defined by the including file (omp_spmv_fmt.c; see omp_real.h): REAL
 * (vector entries), VALUE (matrix values) and SUFFIX.  Each kernel reads
 * the format's own arrays (layouts in formats/format.h), sums every row in
 * double and in the order of the reference kernels
 * (backends/ref/ref_spmv_fmt_template.h), and covers a range of units
 * (rows, slices or block rows) so that the threads can split the matrix.
 * Rows go M->chunk at a time: a chunk plays the part of a GPU warp, and in
 * the column-major formats its rows' slot j is contiguous, so the inner
 * loops stream.  Included once per variant, so it has no include guard; it
 * undefines its parameters at the end. */

/* y_i = alpha*sum (+ beta*z_i); z may be y (z_i is read before y_i is written). */
static inline void OMP_FN(fmt_put1)(double sum, int64_t i, double alpha, double beta, const REAL *z,
                                    REAL *y)
{
    y[i] = (REAL)(z != NULL ? alpha * sum + beta * (double)z[i] : alpha * sum);
}

/* The same for rows i0 <= i < i0 + m. */
static void OMP_FN(fmt_put)(const double *sum, int64_t i0, int64_t m, double alpha, double beta,
                            const REAL *z, REAL *y)
{
    for (int64_t r = 0; r < m; r++) OMP_FN(fmt_put1)(sum[r], i0 + r, alpha, beta, z, y);
}

/* Rows 0 <= r < m whose slot j sits at [at + j*step + r] (ELLPACK,
 * SELL-C-sigma), through slot width - 1, or with row lengths len as far as
 * the chunk's longest row (ELLPACK-R: Kreutzer et al.'s row_len, here per
 * chunk as per warp).  Padding (value 0, a valid column) is multiplied
 * rather than tested, so the loops have no branch: for finite x it adds
 * exactly +-0 to a sum that is never -0, leaving the reference's bits (an
 * Inf or NaN in x can reach a row through its padding).  When the chunk's
 * rows are sorted by decreasing length (SELL and pJDS slices), the rows
 * past the shortest one's end are a shrinking prefix and the padding is
 * skipped: one long row in a slice then costs its own length, not the
 * slice's.  Slots go four at a time, each row's sum kept in a register
 * across them. */
static void OMP_FN(fmt_slots)(const VALUE *restrict val, const int32_t *restrict col, int64_t at,
                              int64_t step, int64_t m, const int32_t *restrict len, int64_t width,
                              const REAL *restrict x, double *restrict sum)
{
    int64_t every = width; /* slots taken for every row */
    if (len != NULL && m > 0) {
        /* 32-bit, so the loop vectorizes */
        int32_t longest = len[0], shortest = len[0], unsorted = 0;
        for (int64_t r = 1; r < m; r++) {
            longest = len[r] > longest ? len[r] : longest;
            shortest = len[r] < shortest ? len[r] : shortest;
            unsorted |= len[r] > len[r - 1];
        }
        width = longest;
        every = unsorted ? longest : shortest;
    }
    for (int64_t r = 0; r < m; r++) sum[r] = 0.0;
    int64_t j = 0;
    /* sum_r += sum_j val[at + j*step + r] x[col[at + j*step + r]] */
    for (; j + 4 <= every; j += 4, at += 4 * step)
        for (int64_t r = 0; r < m; r++) {
            const int64_t k = at + r;
            double s = sum[r] + (double)val[k] * (double)x[col[k]];
            s += (double)val[k + step] * (double)x[col[k + step]];
            s += (double)val[k + 2 * step] * (double)x[col[k + 2 * step]];
            sum[r] = s + (double)val[k + 3 * step] * (double)x[col[k + 3 * step]];
        }
    for (; j < every; j++, at += step)
        for (int64_t r = 0; r < m; r++) sum[r] += (double)val[at + r] * (double)x[col[at + r]];
    /* sorted rows: those reaching slot j are r < active */
    for (int64_t active = m; j < width; j++, at += step) {
        while (len[active - 1] <= j) active--;
        for (int64_t r = 0; r < active; r++) sum[r] += (double)val[at + r] * (double)x[col[at + r]];
    }
}

/* ELLPACK and ELLPACK-R, rows r0 <= i < r1 (Kreutzer et al. 2012, listing
 * 1, a chunk of rows standing for a warp): slot j of row i at [j*stride + i]. */
static void OMP_FN(fmt_ell)(const kryl_omp_matrix *M, const VALUE *val, int64_t r0, int64_t r1,
                            double alpha, const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt_ell *a = &M->fmt->u.ell;
    double sum[KRYL_OMP_CHUNK_MAX];
    for (int64_t i0 = r0; i0 < r1; i0 += M->chunk) {
        const int64_t m = r1 - i0 < M->chunk ? r1 - i0 : M->chunk;
        const int32_t *len = a->row_len ? a->row_len + i0 : NULL;
        OMP_FN(fmt_slots)(val, a->col, i0, a->stride, m, len, a->width, x, sum);
        OMP_FN(fmt_put)(sum, i0, m, alpha, beta, z, y);
    }
}

/* SELL-C-sigma and pJDS, slices s0 <= s < s1 (Kreutzer et al. 2014): row r
 * of slice s is row s*C + r, its slot j at [slice_ptr[s] + j*C + r]; the
 * padding rows past n are not computed. */
static void OMP_FN(fmt_sell)(const kryl_omp_matrix *M, const VALUE *val, int64_t s0, int64_t s1,
                             double alpha, const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt *f = M->fmt;
    const kryl_fmt_sell *a = &f->u.sell;
    double sum[KRYL_OMP_CHUNK_MAX];
    for (int64_t s = s0; s < s1; s++)
        for (int64_t r0 = 0; r0 < a->C && s * a->C + r0 < f->nrows; r0 += KRYL_OMP_CHUNK_MAX) {
            const int64_t i0 = s * a->C + r0, at = a->slice_ptr[s] + r0, w = a->slice_width[s];
            int64_t m = a->C - r0 < KRYL_OMP_CHUNK_MAX ? a->C - r0 : KRYL_OMP_CHUNK_MAX;
            m = f->nrows - i0 < m ? f->nrows - i0 : m;
            OMP_FN(fmt_slots)(val, a->col, at, a->C, m, a->row_len + i0, w, x, sum);
            OMP_FN(fmt_put)(sum, i0, m, alpha, beta, z, y);
        }
}

/* JDS, rows r0 <= i < r1: the row-per-thread walk over the jagged diagonals
 * (Cevahir et al. 2009, fig. 3), a chunk of rows at a time.  Rows are
 * sorted by decreasing length, so the chunk's rows that reach diagonal d
 * are a prefix of it, contiguous in that diagonal (its padding to 32 may
 * end before the chunk does, so rows past the prefix are not read). */
static void OMP_FN(fmt_jds)(const kryl_omp_matrix *M, const VALUE *restrict val, int64_t r0,
                            int64_t r1, double alpha, const REAL *restrict x, double beta,
                            const REAL *z, REAL *y)
{
    const kryl_fmt_jds *a = &M->fmt->u.jds;
    const int32_t *restrict col = a->col;
    double sum[KRYL_OMP_CHUNK_MAX];
    for (int64_t i0 = r0; i0 < r1; i0 += M->chunk) {
        const int64_t m = r1 - i0 < M->chunk ? r1 - i0 : M->chunk;
        int64_t end = i0 + m; /* rows i0 <= i < end reach diagonal d */
        for (int64_t r = 0; r < m; r++) sum[r] = 0.0;
        for (int64_t d = 0;;) {
            while (end > i0 && a->row_len[end - 1] <= d) end--;
            if (end == i0) break;
            const int64_t *p = a->diag_ptr + d;
            if (a->row_len[end - 1] > d + 3) {
                /* every row left reaches diagonals d..d+3: four at a time, the
                 * sum in a register */
                for (int64_t i = i0; i < end; i++) {
                    double s = sum[i - i0] + (double)val[p[0] + i] * (double)x[col[p[0] + i]];
                    s += (double)val[p[1] + i] * (double)x[col[p[1] + i]];
                    s += (double)val[p[2] + i] * (double)x[col[p[2] + i]];
                    sum[i - i0] = s + (double)val[p[3] + i] * (double)x[col[p[3] + i]];
                }
                d += 4;
            } else {
                /* sum_i += val[diag_ptr[d] + i] x[col[diag_ptr[d] + i]] */
                for (int64_t i = i0; i < end; i++)
                    sum[i - i0] += (double)val[p[0] + i] * (double)x[col[p[0] + i]];
                d++;
            }
        }
        OMP_FN(fmt_put)(sum, i0, m, alpha, beta, z, y);
    }
}

#define BS 2
#include "backends/omp/omp_spmv_bcsr_template.h"
#define BS 4
#include "backends/omp/omp_spmv_bcsr_template.h"

/* DIA, rows r0 <= i < r1 a chunk at a time: diagonal d covers the chunk's
 * rows whose column i + offset[d] is inside the matrix, contiguous in val
 * and in x. */
static void OMP_FN(fmt_dia)(const kryl_omp_matrix *M, const VALUE *restrict val, int64_t r0,
                            int64_t r1, double alpha, const REAL *restrict x, double beta,
                            const REAL *z, REAL *y)
{
    const kryl_fmt *f = M->fmt;
    const kryl_fmt_dia *a = &f->u.dia;
    double sum[KRYL_OMP_CHUNK_MAX];
    for (int64_t i0 = r0; i0 < r1; i0 += M->chunk) {
        const int64_t i1 = r1 - i0 < M->chunk ? r1 : i0 + M->chunk;
        for (int64_t r = 0; r < i1 - i0; r++) sum[r] = 0.0;
        for (int64_t d = 0; d < a->ndiag;) {
            const int64_t *off = a->offset + d;
            const VALUE *restrict v = val + d * a->stride;
            const int64_t s = a->stride;
            if (d + 4 <= a->ndiag && i0 + off[0] >= 0 && i1 + off[3] <= f->ncols) {
                /* diagonals d..d+3 lie inside the matrix over the whole chunk
                 * (offsets ascend): four at a time, the sum in a register */
                for (int64_t i = i0; i < i1; i++) {
                    double t = sum[i - i0] + (double)v[i] * (double)x[i + off[0]];
                    t += (double)v[s + i] * (double)x[i + off[1]];
                    t += (double)v[2 * s + i] * (double)x[i + off[2]];
                    sum[i - i0] = t + (double)v[3 * s + i] * (double)x[i + off[3]];
                }
                d += 4;
                continue;
            }
            const int64_t lo = -off[0] > i0 ? -off[0] : i0;
            const int64_t hi = f->ncols - off[0] < i1 ? f->ncols - off[0] : i1;
            /* sum_i += val[d*stride + i] x[i + offset[d]], 0 <= i + offset[d] < n */
            for (int64_t i = lo; i < hi; i++) sum[i - i0] += (double)v[i] * (double)x[i + off[0]];
            d++;
        }
        OMP_FN(fmt_put)(sum, i0, i1 - i0, alpha, beta, z, y);
    }
}

/* y = alpha*A*x (+ beta*z) over the format's units u0 <= u < u1. */
static void OMP_FN(fmt_units)(const kryl_omp_matrix *M, const VALUE *val, int64_t u0, int64_t u1,
                              double alpha, const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt *f = M->fmt;
    switch (f->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR: OMP_FN(fmt_ell)(M, val, u0, u1, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_JDS: OMP_FN(fmt_jds)(M, val, u0, u1, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS: OMP_FN(fmt_sell)(M, val, u0, u1, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_BCSR2: OMP_FN(fmt_bcsr2)(f, val, u0, u1, alpha, x, beta, z, y); break;
    case KRYL_FORMAT_BCSR4: OMP_FN(fmt_bcsr4)(f, val, u0, u1, alpha, x, beta, z, y); break;
    default: OMP_FN(fmt_dia)(M, val, u0, u1, alpha, x, beta, z, y); break; /* DIA: setup checked */
    }
}

/* y = alpha*A*x (+ beta*z): each thread takes the unit blocks balanced at
 * setup (block t, t + team, ...: all of them when the region runs on fewer
 * threads than there are blocks).  A row's sum never depends on the
 * blocks, so the result is the same on any number of threads. */
static void OMP_FN(fmt_spmv)(int nt, const kryl_omp_matrix *M, const VALUE *val, double alpha,
                             const REAL *x, double beta, const REAL *z, REAL *y)
{
    const kryl_fmt *f = M->fmt;
#pragma omp parallel num_threads(nt) if (f->stored + f->nrows >= KRYL_OMP_MIN_PARALLEL)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        for (int b = t; b < M->nparts; b += team)
            OMP_FN(fmt_units)(M, val, M->part[b], M->part[b + 1], alpha, x, beta, z, y);
    }
}

#undef REAL
#undef VALUE
#undef SUFFIX
