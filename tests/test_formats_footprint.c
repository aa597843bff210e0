/* Exact footprints and layouts of the formats on hand-made matrices,
 * refusals and their messages, and rejection of bad input. */
#include "backends/ref/ref_spmv_fmt.h"
#include "test_formats_util.h"

/* Build a CSR from dense rows (0 = no entry). */
static void from_dense(kryl_csr *A, int64_t n, const double *dense)
{
    int64_t nnz = 0;
    for (int64_t k = 0; k < n * n; k++) nnz += dense[k] != 0.0;
    if (kryl_csr_alloc(A, n, n, nnz) != KRYL_SUCCESS) abort();
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            if (dense[i * n + j] != 0.0) {
                A->col_idx[k] = (int32_t)j;
                A->values[k++] = dense[i * n + j];
            }
        A->row_ptr[i + 1] = k;
    }
}

/* The pJDS paper's example (Kreutzer et al. 2012, sec. 2.1): row 0 full,
 * every other row a single (diagonal) entry. */
static void full_row_matrix(kryl_csr *A, int64_t n)
{
    if (kryl_csr_alloc(A, n, n, 2 * n - 1) != KRYL_SUCCESS) abort();
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = (i == 0 ? 0 : i); j <= (i == 0 ? n - 1 : i); j++) {
            A->col_idx[k] = (int32_t)j;
            A->values[k++] = 1.0 + (double)j;
        }
        A->row_ptr[i + 1] = k;
    }
}

static int64_t stored_of(const kryl_csr *A, kryl_format kind)
{
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    p.max_padding = p.max_block_fill = 1e12;
    p.max_diagonals = INT64_MAX;
    kryl_fmt_cost c;
    CHECK_OK(kryl_fmt_cost_of(A, kind, &p, &c));
    return c.stored;
}

static void check_full_row(int64_t n)
{
    kryl_csr A;
    full_row_matrix(&A, n);
    const int64_t r = (n + 31) / 32 * 32, slices = (n + 31) / 32;
    const struct {
        kryl_format kind;
        int64_t expect;
    } cases[] = {
        {KRYL_FORMAT_CSR, 2 * n - 1},
        {KRYL_FORMAT_ELL, n * r}, /* N x N, rows aligned to 32 */
        {KRYL_FORMAT_ELLR, n * r},
        {KRYL_FORMAT_JDS, r + 32 * (n - 1)}, /* diagonal 0 holds every row, the others one */
        {KRYL_FORMAT_PJDS, 32 * n + 32 * (slices - 1)}, /* (b_r + 1) N - b_r when 32 | N */
        {KRYL_FORMAT_SELL, 32 * n + 32 * (slices - 1)},
        {KRYL_FORMAT_BCSR2,
         4 * (2 * ((n + 1) / 2) - 1)}, /* block row 0 full, then diagonal blocks */
        {KRYL_FORMAT_BCSR4, 16 * ((n + 3) / 4 + (n + 3) / 4 - 1)},
        {KRYL_FORMAT_DIA, n * r}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t got = stored_of(&A, cases[c].kind);
        CHECK(got == cases[c].expect, "full row N=%lld %s: stored %lld, expected %lld",
              (long long)n, kryl_format_name(cases[c].kind), (long long)got,
              (long long)cases[c].expect);
    }
    if (n % 32 == 0)
        CHECK(stored_of(&A, KRYL_FORMAT_PJDS) == 33 * n - 32, "pJDS (b_r+1)N - b_r for N=%lld",
              (long long)n);
    kryl_csr_free(&A);
}

/* 5 x 5, row lengths 1, 3, 2, 0, 2 */
static const double small[25] = {1, 0, 0, 0, 0, /**/ 2, 0, 3,      0, 4, /**/ 0, 5, 6,
                                 0, 0, 0, 0, 0, 0,      0, /**/ 0, 0, 0, 7,      8};

#define CHECK_ARRAY(got, want, count, what)                                                        \
    do {                                                                                           \
        for (int64_t q_ = 0; q_ < (count); q_++)                                                   \
            CHECK((got)[q_] == (want)[q_], "%s[%lld] = %g, expected %g", what, (long long)q_,      \
                  (double)(got)[q_], (double)(want)[q_]);                                          \
    } while (0)

static void check_small_layouts(void)
{
    kryl_csr A;
    from_dense(&A, 5, small);
    kryl_fmt f;
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    p.slice_height = 2;
    p.sort_window = 4;
    p.max_padding = 1e9;
    p.max_block_fill = 1e9;
    /* SELL-2-4: window {0..3} sorted to rows 1, 2, 0, 3; slices {1,2} {0,3} {4,pad} */
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_SELL, NULL, &p, &f));
    const int32_t sell_perm[] = {1, 2, 0, 3, 4}, sell_col[] = {1, 0, 2, 1, 4, 1, 2, 3, 3, 0, 4, 0};
    const int64_t sell_ptr[] = {0, 6, 8, 12};
    const int32_t sell_width[] = {3, 1, 2}, sell_len[] = {3, 2, 1, 0, 2, 0};
    const double sell_val[] = {3, 5, 2, 6, 4, 0, 1, 0, 7, 0, 8, 0};
    CHECK(f.stored == 12 && f.u.sell.nslices == 3 && f.u.sell.C == 2 && f.u.sell.sigma == 4,
          "sell: stored %lld slices %lld", (long long)f.stored, (long long)f.u.sell.nslices);
    CHECK_ARRAY(f.perm, sell_perm, 5, "sell perm");
    CHECK_ARRAY(f.u.sell.slice_ptr, sell_ptr, 4, "sell slice_ptr");
    CHECK_ARRAY(f.u.sell.slice_width, sell_width, 3, "sell slice_width");
    CHECK_ARRAY(f.u.sell.row_len, sell_len, 6, "sell row_len");
    CHECK_ARRAY(f.u.sell.col, sell_col, 12, "sell col");
    CHECK_ARRAY(f.u.sell.val, sell_val, 12, "sell val");
    kryl_fmt_free(&f);
    /* JDS: rows by length 1, 2, 4, 0, 3; diagonals of 4, 3, 1 rows, each padded to 32 */
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_JDS, NULL, &p, &f));
    const int32_t jds_perm[] = {1, 2, 4, 0, 3}, jds_len[] = {3, 2, 2, 1, 0};
    const int64_t jds_ptr[] = {0, 32, 64, 96};
    CHECK(f.u.jds.ndiag == 3 && f.stored == 96, "jds: %lld diagonals, stored %lld",
          (long long)f.u.jds.ndiag, (long long)f.stored);
    CHECK_ARRAY(f.perm, jds_perm, 5, "jds perm");
    CHECK_ARRAY(f.u.jds.diag_ptr, jds_ptr, 4, "jds diag_ptr");
    CHECK_ARRAY(f.u.jds.row_len, jds_len, 5, "jds row_len");
    /* new row 0 = old row 1: columns 0, 2, 4 renumbered to 3, 1, 2 -> sorted 1, 2, 3 */
    CHECK(f.u.jds.col[0] == 1 && f.u.jds.val[0] == 3.0 && f.u.jds.col[32] == 2 &&
              f.u.jds.val[32] == 4.0 && f.u.jds.col[64] == 3 && f.u.jds.val[64] == 2.0,
          "jds row 0: (%d, %g) (%d, %g) (%d, %g)", f.u.jds.col[0], f.u.jds.val[0], f.u.jds.col[32],
          f.u.jds.val[32], f.u.jds.col[64], f.u.jds.val[64]);
    kryl_fmt_free(&f);
    /* ELL: width 3, stride 32; padding of row 3 is column 3 */
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_ELLR, NULL, &p, &f));
    CHECK(f.u.ell.width == 3 && f.u.ell.stride == 32 && f.stored == 96 && f.perm == NULL &&
              f.u.ell.col[3] == 3 && f.u.ell.val[3] == 0.0 && f.u.ell.col[32 + 1] == 2 &&
              f.u.ell.val[32 + 1] == 3.0 && f.u.ell.row_len[1] == 3,
          "ellr layout");
    kryl_fmt_free(&f);
    /* DIA: offsets -1, 0, 1, 3 */
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_DIA, NULL, &p, &f));
    const int64_t dia_off[] = {-1, 0, 1, 3};
    CHECK(f.u.dia.ndiag == 4 && f.stored == 128, "dia: %lld diagonals", (long long)f.u.dia.ndiag);
    CHECK_ARRAY(f.u.dia.offset, dia_off, 4, "dia offset");
    CHECK(f.u.dia.val[1] == 2.0 && f.u.dia.val[2] == 5.0 && f.u.dia.val[4] == 7.0 &&
              f.u.dia.val[32 + 2] == 6.0 && f.u.dia.val[96 + 1] == 4.0 && f.u.dia.val[0] == 0.0,
          "dia values");
    kryl_fmt_free(&f);
    /* BCSR2: block rows {0,1} {2,3} {4,pad}: blocks (0,0) (0,1) (0,2) (1,0) (1,1) (2,1) (2,2) */
    CHECK_OK(kryl_fmt_build(&A, KRYL_FORMAT_BCSR2, NULL, &p, &f));
    const int64_t b_ptr[] = {0, 3, 5, 7};
    const int32_t b_col[] = {0, 1, 2, 0, 1, 1, 2};
    const double b_val0[] = {1, 0, 2, 0, /**/ 0, 0, 3, 0, /**/ 0, 0, 4, 0};
    CHECK(f.u.bcsr.nbrows == 3 && f.stored == 28, "bcsr2: %lld block rows, stored %lld",
          (long long)f.u.bcsr.nbrows, (long long)f.stored);
    CHECK_ARRAY(f.u.bcsr.brow_ptr, b_ptr, 4, "bcsr2 brow_ptr");
    CHECK_ARRAY(f.u.bcsr.bcol, b_col, 7, "bcsr2 bcol");
    CHECK_ARRAY(f.u.bcsr.bval, b_val0, 12, "bcsr2 bval");
    CHECK(f.u.bcsr.bval[6 * 4] == 8.0 && f.u.bcsr.bval[5 * 4 + 1] == 7.0, "bcsr2 last block row");
    kryl_fmt_free(&f);
    kryl_csr_free(&A);
}

/* kind is refused with a message containing each of the given pieces. */
static void check_refused(const kryl_csr *A, kryl_format kind, const char *what, const char *piece1,
                          const char *piece2)
{
    kryl_fmt f;
    kryl_fmt_cost c;
    CHECK_STATUS(kryl_fmt_build(A, kind, NULL, NULL, &f), KRYL_ERR_FORMAT_UNSUITABLE);
    const char *msg = kryl_last_error();
    CHECK(strstr(msg, piece1) && strstr(msg, piece2), "%s %s: message '%s' lacks '%s' / '%s'", what,
          kryl_format_name(kind), msg, piece1, piece2);
    CHECK(f.perm == NULL && f.stored == 0, "%s: a refused format is left empty", what);
    CHECK_OK(kryl_fmt_cost_of(A, kind, NULL, &c));
    CHECK(!c.suitable && strstr(c.why, piece1), "%s %s: cost says suitable", what,
          kryl_format_name(kind));
}

static void check_accepted(const kryl_csr *A, kryl_format kind, const char *what)
{
    kryl_fmt f;
    CHECK_OK(kryl_fmt_build(A, kind, NULL, NULL, &f));
    printf("  %-22s %-5s stored/nnz %.3f\n", what, kryl_format_name(kind),
           (double)f.stored / (double)kryl_csr_nnz(A));
    kryl_fmt_free(&f);
}

static void check_refusals(void)
{
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_DENSE_ROW, 4099, 4099, 1);
    check_refused(&A, KRYL_FORMAT_ELL, "dense row",
                  "ell: the longest row has 4099 entries, so ELLPACK would store 4099 x 4128 = "
                  "16.9 M slots for 14.2 k nonzeros (1193x",
                  "; limit 3x); use sell or csr");
    printf("  %s\n", kryl_last_error());
    check_refused(&A, KRYL_FORMAT_ELLR, "dense row", "ELLPACK-R would store 4099 x 4128", "3x");
    check_refused(&A, KRYL_FORMAT_JDS, "dense row", "4099 jagged diagonals", "use sell or csr");
    check_refused(&A, KRYL_FORMAT_DIA, "dense row", "occupied diagonals (limit 64)", "use csr");
    /* one slice holds the dense row: 32 x 4099 slots, still 10x the nonzeros */
    check_refused(&A, KRYL_FORMAT_SELL, "dense row", "slices of 32 rows", "use pjds or csr");
    check_refused(&A, KRYL_FORMAT_PJDS, "dense row", "rows sorted globally, longest 4099",
                  "use csr");
    check_accepted(&A, KRYL_FORMAT_CSR, "dense row");
    kryl_csr_free(&A);
    test_random_csr(&A, TEST_SHAPE_RANDOM, 1000, 1000, 2);
    check_refused(&A, KRYL_FORMAT_DIA, "random", "dia: the matrix has ", "(limit 64)");
    check_refused(&A, KRYL_FORMAT_BCSR2, "random", "dense 2x2 blocks would store", "limit 1.5x");
    /* bcsr2 is refused too: not suggested */
    check_refused(&A, KRYL_FORMAT_BCSR4, "random", "dense 4x4 blocks would store",
                  "limit 1.5x); use csr or sell");
    printf("  %s\n", kryl_last_error());
    kryl_csr_free(&A);
    if (tf_generate(&A, KRYL_GEN_POISSON2D5, 64)) {
        check_accepted(&A, KRYL_FORMAT_DIA, "poisson2d5 64^2");
        gen_csr_free(&A);
    }
    if (tf_generate(&A, KRYL_GEN_POISSON3D27, 16)) {
        check_accepted(&A, KRYL_FORMAT_DIA, "poisson3d27 16^3");
        check_refused(&A, KRYL_FORMAT_BCSR4, "poisson3d27", "4x4 blocks", "1.5x");
        gen_csr_free(&A);
    }
    /* dense 2x2 blocks, block tridiagonal: bcsr2 stores them exactly, bcsr4 twice over */
    tf_dense_blocks(&A, 600, 2, 6);
    check_accepted(&A, KRYL_FORMAT_BCSR2, "dense 2x2 blocks");
    check_refused(&A, KRYL_FORMAT_BCSR4, "dense 2x2 blocks", "dense 4x4 blocks would store",
                  "use bcsr2 or csr");
    kryl_csr_free(&A);
    tf_dense_blocks(&A, 200, 5, 4);
    check_accepted(&A, KRYL_FORMAT_BCSR4, "dense 5x5 blocks");
    check_accepted(&A, KRYL_FORMAT_BCSR2, "dense 5x5 blocks");
    kryl_csr_free(&A);
    /* a stricter limit refuses what the default accepts */
    /* dense 2x2 blocks, block tridiagonal: bcsr2 stores them exactly, bcsr4 twice over */
    tf_dense_blocks(&A, 600, 2, 6);
    check_accepted(&A, KRYL_FORMAT_BCSR2, "dense 2x2 blocks");
    check_refused(&A, KRYL_FORMAT_BCSR4, "dense 2x2 blocks", "dense 4x4 blocks would store",
                  "use bcsr2 or csr");
    kryl_csr_free(&A);
    tf_dense_blocks(&A, 200, 5, 4);
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    p.max_block_fill = 1.1;
    kryl_fmt f;
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_BCSR4, NULL, &p, &f), KRYL_ERR_FORMAT_UNSUITABLE);
    CHECK(strstr(kryl_last_error(), "limit 1.1x") != NULL, "%s", kryl_last_error());
    kryl_csr_free(&A);
}

static void check_bad_input(void)
{
    kryl_csr A, R;
    kryl_fmt f;
    kryl_fmt_cost c;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 40, 40, 3);
    test_random_csr(&R, TEST_SHAPE_RANDOM, 40, 50, 3);
    CHECK_STATUS(kryl_fmt_build(&R, KRYL_FORMAT_CSR, NULL, NULL, &f), KRYL_ERR_UNSUPPORTED);
    CHECK(strstr(kryl_last_error(), "40 x 50") != NULL, "%s", kryl_last_error());
    kryl_csr part = A;
    part.nrows_global = 80;
    CHECK_STATUS(kryl_fmt_build(&part, KRYL_FORMAT_SELL, NULL, NULL, &f), KRYL_ERR_UNSUPPORTED);
    CHECK_STATUS(kryl_fmt_cost_of(&part, KRYL_FORMAT_CSR, NULL, &c), KRYL_ERR_UNSUPPORTED);
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_AUTO, NULL, NULL, &f), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_fmt_build(&A, (kryl_format)42, NULL, NULL, &f), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_fmt_build(NULL, KRYL_FORMAT_CSR, NULL, NULL, &f), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_CSR, NULL, NULL, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_fmt_cost_of(&A, KRYL_FORMAT_CSR, NULL, NULL), KRYL_ERR_INVALID_ARGUMENT);
    int32_t *order = tf_random_order(40, 9);
    order[7] = order[3];
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_ELL, order, NULL, &f), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "repeats") != NULL, "%s", kryl_last_error());
    order[7] = 40;
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_JDS, order, NULL, &f), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "out of range") != NULL, "%s", kryl_last_error());
    free(order);
    kryl_fmt_params p;
    kryl_fmt_params_init(&p);
    p.slice_height = 0;
    CHECK_STATUS(kryl_fmt_build(&A, KRYL_FORMAT_SELL, NULL, &p, &f), KRYL_ERR_INVALID_ARGUMENT);
    kryl_fmt_params_init(&p);
    p.max_padding = NAN;
    CHECK_STATUS(kryl_fmt_cost_of(&A, KRYL_FORMAT_ELL, &p, &c), KRYL_ERR_INVALID_ARGUMENT);
    kryl_fmt_free(NULL);
    kryl_fmt_free(&f); /* a failed build leaves f empty: freeing it is harmless */
    kryl_csr_free(&A);
    kryl_csr_free(&R);
}

/* A 0 x 0 matrix builds in every format and multiplies to nothing. */
static void check_empty(void)
{
    kryl_csr A;
    CHECK_OK(kryl_csr_alloc(&A, 0, 0, 0));
    for (int k = 0; k < TF_NFORMATS; k++) {
        kryl_fmt f;
        CHECK_OK(kryl_fmt_build(&A, tf_formats[k], NULL, NULL, &f));
        double y = 7.0, *val;
        kryl_fmt_values(&f, &val, NULL);
        ref_fmt_spmv_d(&f, val, 1.0, &y, 0.0, NULL, &y);
        CHECK(f.stored == 0 && y == 7.0, "empty %s: stored %lld", kryl_format_name(tf_formats[k]),
              (long long)f.stored);
        kryl_fmt_free(&f);
    }
    kryl_csr_free(&A);
}

int main(void)
{
    check_full_row(64);
    check_full_row(100);
    check_full_row(1);
    check_full_row(33);
    check_small_layouts();
    check_refusals();
    check_bad_input();
    check_empty();
    return test_summary("test_formats_footprint");
}
