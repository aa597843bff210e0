/* Grid stencil generators (Poisson 5/7/27/125-point, anisotropic,
 * convection-diffusion): structure, exact sizes, symmetry, row sums,
 * dominance, definiteness, agreement with an independent per-entry model,
 * and row ranges built alone. */
#include "test_gen_support.h"

static const kryl_generator_kind grid_kinds[] = {
    KRYL_GEN_POISSON2D5,    KRYL_GEN_POISSON3D7,    KRYL_GEN_POISSON3D27, KRYL_GEN_POISSON3D125,
    KRYL_GEN_ANISOTROPIC2D, KRYL_GEN_ANISOTROPIC3D, KRYL_GEN_CONVDIFF2D,  KRYL_GEN_CONVDIFF3D};
#define GRID_KIND_COUNT ((int)(sizeof grid_kinds / sizeof grid_kinds[0]))

static bool is_3d(kryl_generator_kind k)
{
    return k == KRYL_GEN_POISSON3D7 || k == KRYL_GEN_POISSON3D27 || k == KRYL_GEN_POISSON3D125 ||
           k == KRYL_GEN_ANISOTROPIC3D || k == KRYL_GEN_CONVDIFF3D;
}

static bool is_convdiff(kryl_generator_kind k)
{
    return k == KRYL_GEN_CONVDIFF2D || k == KRYL_GEN_CONVDIFF3D;
}

/* The coefficient coupling a point to its neighbour at offset d, written
 * from each kind's definition independently of the library's stencils. */
static double model_coef(const kryl_generator_options *o, const int d[3])
{
    const int dims = is_3d(o->kind) ? 3 : 2;
    const int l1 = abs(d[0]) + abs(d[1]) + abs(d[2]);
    int linf = 0;
    for (int a = 0; a < 3; a++) linf = abs(d[a]) > linf ? abs(d[a]) : linf;
    if (dims == 2 && d[2] != 0) return 0.0;
    switch (o->kind) {
    case KRYL_GEN_POISSON3D27: return linf > 1 ? 0.0 : l1 == 0 ? 26.0 : -1.0;
    case KRYL_GEN_POISSON3D125: {
        /* 3072 * (K(x)M(x)M + M(x)K(x)M + M(x)M(x)K) */
        static const double k[5] = {1, -16, 30, -16, 1}, m[5] = {1, 4, 6, 4, 1};
        if (linf > 2) return 0.0;
        const int a = d[0] + 2, b = d[1] + 2, c = d[2] + 2;
        return k[a] * m[b] * m[c] + m[a] * k[b] * m[c] + m[a] * m[b] * k[c];
    }
    default: break;
    }
    /* second differences with per-axis weights, plus upwind convection */
    const bool aniso = o->kind == KRYL_GEN_ANISOTROPIC2D || o->kind == KRYL_GEN_ANISOTROPIC3D;
    const double wx = aniso ? o->epsilon : 1.0;
    const double pe = is_convdiff(o->kind) ? o->peclet : 0.0;
    if (l1 == 0) return 2.0 * wx + 2.0 * (dims - 1) + dims * pe;
    if (l1 != 1) return 0.0;
    const double w = d[0] != 0 ? wx : 1.0;
    const bool upwind = d[0] + d[1] + d[2] == -1;
    return -w - (upwind ? pe : 0.0);
}

/* Every entry of the generated matrix equals the model, and every model
 * coupling inside the grid is present. */
static void check_against_model(const kryl_csr *A, const kryl_generator *g, const char *what)
{
    const kryl_generator_options *o = &g->options;
    const int64_t n[3] = {o->nx, o->ny, o->nz};
    int bad = 0;
    for (int64_t i = 0; i < A->nrows && bad < 5; i++) {
        const int64_t p[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
        int64_t expected = 0;
        for (int dz = -2; dz <= 2; dz++)
            for (int dy = -2; dy <= 2; dy++)
                for (int dx = -2; dx <= 2; dx++) {
                    const int d[3] = {dx, dy, dz};
                    bool inside = true;
                    for (int a = 0; a < 3; a++)
                        inside = inside && p[a] + d[a] >= 0 && p[a] + d[a] < n[a];
                    if (!inside) continue;
                    const double c = model_coef(o, d);
                    const int64_t j = i + dx + n[0] * (dy + n[1] * dz);
                    if (c != 0.0) expected++;
                    if (gen_entry(A, i, j) != c) {
                        CHECK(false, "%s: a(%lld, %lld) = %g, expected %g", what, (long long)i,
                              (long long)j, gen_entry(A, i, j), c);
                        bad++;
                    }
                }
        CHECK(A->row_ptr[i + 1] - A->row_ptr[i] == expected,
              "%s row %lld: %lld entries, expected %lld", what, (long long)i,
              (long long)(A->row_ptr[i + 1] - A->row_ptr[i]), (long long)expected);
    }
}

/* Rows of points at least `radius` from every face sum to 0 (exactly for the
 * integer stencils); no row sum is negative (boundary rows lose couplings). */
static void check_row_sums(const kryl_csr *A, const kryl_generator *g, int radius, const char *what)
{
    const kryl_generator_options *o = &g->options;
    const int64_t n[3] = {o->nx, o->ny, o->nz};
    const int dims = is_3d(o->kind) ? 3 : 2;
    const bool integer = o->kind != KRYL_GEN_ANISOTROPIC2D && o->kind != KRYL_GEN_ANISOTROPIC3D;
    int64_t interior = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double sum = 0.0; /* sum_j a_ij */
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) sum += A->values[e];
        const int64_t p[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
        bool inner = true;
        for (int a = 0; a < dims; a++) inner = inner && p[a] >= radius && p[a] < n[a] - radius;
        if (inner) {
            interior++;
            if (integer)
                CHECK(sum == 0.0, "%s: interior row %lld sums to %g", what, (long long)i, sum);
            else
                CHECK(fabs(sum) <= 1e-12, "%s: interior row %lld sums to %g", what, (long long)i,
                      sum);
        } else if (o->kind != KRYL_GEN_POISSON3D125) {
            CHECK(sum >= -1e-12, "%s: boundary row %lld sums to %g", what, (long long)i, sum);
        }
    }
    if (o->nx > 2 * radius && (dims < 2 || o->ny > 2 * radius) && (dims < 3 || o->nz > 2 * radius))
        CHECK(interior > 0, "%s: no interior rows", what);
}

static void check_kind(kryl_generator_kind kind, int64_t nx, int64_t ny, int64_t nz)
{
    kryl_generator_options o;
    kryl_generator_options_init(&o, kind, nx);
    o.ny = ny;
    if (is_3d(kind)) o.nz = nz;
    char what[96];
    snprintf(what, sizeof what, "%s %lldx%lldx%lld", kryl_generator_name(kind), (long long)o.nx,
             (long long)o.ny, (long long)o.nz);
    kryl_generator g;
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    gen_check_rows(&A, what);
    int64_t nrows = 0, nnz = 0;
    CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
    CHECK(nrows == o.nx * o.ny * o.nz && nrows == A.nrows, "%s: %lld rows", what, (long long)nrows);
    CHECK(nnz == kryl_csr_nnz(&A), "%s: size says %lld entries, rows hold %lld", what,
          (long long)nnz, (long long)kryl_csr_nnz(&A));
    check_against_model(&A, &g, what);
    const int radius = kind == KRYL_GEN_POISSON3D125 ? 2 : 1;
    check_row_sums(&A, &g, radius, what);
    const bool symmetric = gen_is_symmetric(&A);
    if (is_convdiff(kind))
        CHECK(!symmetric || nrows == 1, "%s: convection-diffusion came out symmetric", what);
    else
        CHECK(symmetric, "%s: not symmetric", what);
    if (kind != KRYL_GEN_POISSON3D125)
        CHECK(gen_dominance_margin(&A) >= -1e-12, "%s: not diagonally dominant (margin %g)", what,
              gen_dominance_margin(&A));
    if (nrows <= 400) CHECK(is_convdiff(kind) || gen_cholesky_ok(&A), "%s: Cholesky fails", what);
    /* a middle range and a one-row range, built alone */
    gen_check_range(&A, &g, nrows / 3, nrows - nrows / 4, what);
    gen_check_range(&A, &g, nrows - 1, nrows, what);
    gen_csr_free(&A);
}

int main(void)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 33};
    for (int k = 0; k < GRID_KIND_COUNT; k++) {
        for (int s = 0; s < 5; s++) {
            const int64_t n = sizes[s];
            /* 33^3 with the 125-point stencil is 4.5M entries: keep it, it is quick */
            check_kind(grid_kinds[k], n, n, n);
        }
        /* unequal sides catch x/y/z mix-ups */
        check_kind(grid_kinds[k], 5, 3, 4);
        check_kind(grid_kinds[k], 2, 7, 6);
    }

    /* the 125-point stencil is SPD on 4^3 and on a flat 6x5x2 grid */
    static const int64_t spd_grids[2][3] = {{4, 4, 4}, {6, 5, 2}};
    for (int t = 0; t < 2; t++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, KRYL_GEN_POISSON3D125, spd_grids[t][0]);
        o.ny = spd_grids[t][1];
        o.nz = spd_grids[t][2];
        kryl_generator g;
        kryl_csr A;
        if (!gen_whole(&A, &g, &o)) continue;
        CHECK(gen_cholesky_ok(&A), "poisson3d125 %lldx%lldx%lld: Cholesky fails", (long long)o.nx,
              (long long)o.ny, (long long)o.nz);
        CHECK(g.max_row_length == (A.nrows < 125 ? A.nrows : 125), "max_row_length %lld",
              (long long)g.max_row_length);
        gen_csr_free(&A);
    }

    /* the exact entry counts of a few closed forms */
    struct {
        kryl_generator_kind kind;
        int64_t n, nnz;
    } counts[] = {
        {KRYL_GEN_POISSON2D5, 3, 9 + 2 * 2 * (2 * 3)}, /* n^2 + 4 n (n - 1) */
        {KRYL_GEN_POISSON3D7, 10, 1000 + 6 * 100 * 9}, /* n^3 + 6 n^2 (n - 1) */
        {KRYL_GEN_POISSON3D27, 10, 28 * 28 * 28},      /* (3n - 2)^3 */
        {KRYL_GEN_POISSON3D125, 10, 44 * 44 * 44},     /* (5n - 6)^3 */
        {KRYL_GEN_CONVDIFF3D, 1, 1},
    };
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, counts[t].kind, counts[t].n);
        int64_t nrows = 0, nnz = 0;
        CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
        CHECK(nnz == counts[t].nnz, "%s n=%lld: nnz %lld, expected %lld",
              kryl_generator_name(counts[t].kind), (long long)counts[t].n, (long long)nnz,
              (long long)counts[t].nnz);
    }

    /* a huge grid is sized without building it */
    kryl_generator_options big;
    kryl_generator_options_init(&big, KRYL_GEN_POISSON3D7, 100000);
    int64_t nrows = 0, nnz = 0;
    CHECK_OK(kryl_generator_size(&big, &nrows, &nnz));
    CHECK(nrows == INT64_C(1000000000000000) && nnz == nrows + 6 * INT64_C(10000000000) * 99999,
          "100000^3: %lld rows, %lld entries", (long long)nrows, (long long)nnz);
    return test_summary("test_gen_stencil");
}
