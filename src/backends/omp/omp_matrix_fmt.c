/* The omp backend's storage of the formats other than CSR (A->fmt, used
 * as it is): the units its SpMV hands to threads (rows, slices or block
 * rows), balanced by the stored entries their kernels read, the rows a
 * kernel sums together, and float values where they lose nothing (see
 * kryl_omp_matrix). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backends/omp/omp_backend.h"

/* Units of the format's SpMV: block rows (BCSR), slices (SELL, pJDS) or
 * rows (the others). */
static int64_t unit_count(const kryl_fmt *f)
{
    switch (f->kind) {
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: return f->u.bcsr.nbrows;
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS: return f->u.sell.nslices;
    default: return f->nrows;
    }
}

/* Slots of one cache line of 4-byte columns. */
#define LINE_SLOTS 16

/* Cost of a SELL or pJDS slice: its rows, sorted by decreasing length,
 * are read as far as each one's length (omp_spmv_fmt_template.h), but a
 * slot touched by fewer than LINE_SLOTS rows still costs a cache line. */
static int64_t slice_cost(const kryl_fmt_sell *a, int64_t s)
{
    const int32_t *len = a->row_len + s * a->C;
    int64_t cost = a->C, active = a->C;
    /* cost += sum_j max(rows reaching slot j, LINE_SLOTS) */
    for (int64_t j = 0; j < a->slice_width[s]; j++) {
        while (active > 0 && len[active - 1] <= j) active--;
        cost += active > LINE_SLOTS ? active : LINE_SLOTS;
    }
    return cost;
}

/* Cost of unit u: the value slots its kernel reads plus one per row it
 * writes (so runs of empty rows still count). */
static int64_t unit_cost(const kryl_fmt *f, int64_t u)
{
    switch (f->kind) {
    case KRYL_FORMAT_ELL: return f->u.ell.width + 1;
    case KRYL_FORMAT_ELLR: return f->u.ell.row_len[u] + 1;
    case KRYL_FORMAT_JDS: return f->u.jds.row_len[u] + 1;
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS: return slice_cost(&f->u.sell, u);
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4: {
        const kryl_fmt_bcsr *a = &f->u.bcsr;
        return ((a->brow_ptr[u + 1] - a->brow_ptr[u]) * a->b + 1) * a->b;
    }
    default: return f->u.dia.ndiag + 1; /* DIA */
    }
}

/* part[0..nparts]: part[b] is the first unit whose preceding units cost at
 * least b/nparts of the total (as kryl_omp_matrix_setup splits CSR rows). */
static void balance_units(const kryl_fmt *f, int64_t units, int nparts, int64_t *part)
{
    int64_t total = 0;
    for (int64_t u = 0; u < units; u++) total += unit_cost(f, u);
    int b = 1;
    int64_t before = 0; /* cost of units 0..u-1 */
    part[0] = 0;
    for (int64_t u = 0; u < units && b < nparts; u++) {
        while (b < nparts && before >= (int64_t)((double)total * b / nparts)) part[b++] = u;
        before += unit_cost(f, u);
    }
    while (b <= nparts) part[b++] = units;
}

/* Rows per chunk of the row-wise kernels: 8 per slot of the widest row,
 * rounded up to 32, within [KRYL_OMP_CHUNK_MIN, KRYL_OMP_CHUNK_MAX].  Slot
 * j of a chunk's rows is one contiguous run, so a chunk reads `width` runs
 * at once; measured on poisson matrices (bench/bench_formats_cpu.c), wide
 * rows (27 slots) ran fastest with runs of 256 rows, narrow ones (5 or 7
 * slots) with 64. */
static int64_t chunk_rows(const kryl_fmt *f)
{
    int64_t width = 0;
    if (f->kind == KRYL_FORMAT_ELL || f->kind == KRYL_FORMAT_ELLR) width = f->u.ell.width;
    if (f->kind == KRYL_FORMAT_JDS) width = f->u.jds.ndiag;
    if (f->kind == KRYL_FORMAT_DIA) width = f->u.dia.ndiag;
    const int64_t rows =
        width < KRYL_OMP_CHUNK_MAX / 8 ? (8 * width + 31) / 32 * 32 : KRYL_OMP_CHUNK_MAX;
    return rows < KRYL_OMP_CHUNK_MIN ? KRYL_OMP_CHUNK_MIN : rows;
}

/* M->values_single = (float) values, by the threads in the static blocks
 * that also zero backend memory.  Single precision needs every value in
 * the float range; double keeps the floats only when each is exact. */
static kryl_status float_values(int nt, kryl_omp_matrix *M, const double *values, int64_t count,
                                bool single)
{
    if (count == 0) return KRYL_SUCCESS;
    float *v = M->values_single = kryl_omp_aligned_array(count, sizeof(float));
    if (v == NULL)
        return single ? KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                   "omp backend: cannot allocate %lld bytes of single-precision "
                                   "values",
                                   (long long)count * (long long)sizeof(float))
                      : KRYL_SUCCESS; /* doubles serve */
    int64_t inexact = 0, overflow = 0;
    /* v_k = (float) a_k */
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : inexact, overflow)         \
    if (count >= KRYL_OMP_MIN_PARALLEL)
    for (int64_t k = 0; k < count; k++) {
        v[k] = (float)values[k];
        inexact += (double)v[k] != values[k];
        overflow += !isfinite(v[k]);
    }
    return kryl_omp_keep_floats(M, single, inexact, overflow);
}

kryl_status kryl_omp_fmt_setup(kryl_context ctx, kryl_matrix A)
{
    const kryl_fmt *f = &A->fmt;
    switch (f->kind) {
    case KRYL_FORMAT_ELL:
    case KRYL_FORMAT_ELLR:
    case KRYL_FORMAT_JDS:
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS:
    case KRYL_FORMAT_BCSR2:
    case KRYL_FORMAT_BCSR4:
    case KRYL_FORMAT_DIA: break;
    default:
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "omp backend: format %d (%s) has no SpMV kernel, expected csr, ell, "
                          "ellr, jds, pjds, sell, bcsr2, bcsr4 or dia",
                          (int)f->kind, kryl_format_name(f->kind));
    }
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    kryl_omp_matrix *M = calloc(1, sizeof *M);
    const size_t part_bytes = ((size_t)s->max_threads + 1) * sizeof *M->part;
    if (M == NULL || (M->part = malloc(part_bytes)) == NULL) {
        free(M);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp backend: cannot allocate %zu bytes",
                          sizeof *M + part_bytes);
    }
    M->nrows = f->nrows;
    M->ncols = f->ncols;
    M->fmt = f;
    M->nparts = s->max_threads;
    M->chunk = chunk_rows(f);
    balance_units(f, unit_count(f), M->nparts, M->part);
    double *values;
    int64_t count;
    kryl_fmt_values(f, &values, &count);
    M->values_double = values;
    kryl_status st = float_values(s->threads, M, values, count, A->precision == KRYL_SINGLE);
    if (st != KRYL_SUCCESS) {
        free(M->values_single);
        free(M->part);
        free(M);
        return st;
    }
    A->storage = M;
    return KRYL_SUCCESS;
}
