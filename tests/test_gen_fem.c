/* The finite-element generator kinds: sizes, symmetric patterns with values
 * symmetric only up to rounding, linear functions (Laplace) and rigid-body
 * motions (elasticity) in the kernel of the rows away from the boundary,
 * row ranges equal to slices of the whole, node coordinates, bad sizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/fem.h"
#include "test_support.h"

typedef struct fem_matrix {
    kryl_context ctx;
    kryl_matrix A;
    int64_t n, nnz;
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const double *values;
} fem_matrix;

static bool fem_generate(fem_matrix *m, const kryl_generator_options *o, int64_t begin, int64_t end)
{
    int64_t ncols;
    memset(m, 0, sizeof *m);
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_REF;
    CHECK_OK(kryl_context_create(&m->ctx, &copt));
    CHECK_OK(kryl_matrix_generate(&m->A, m->ctx, o, begin, end));
    if (!m->A) return false;
    CHECK_OK(kryl_matrix_size(m->A, &m->n, &ncols, &m->nnz));
    CHECK_OK(kryl_matrix_csr_view(m->A, &m->row_ptr, &m->col_idx, &m->values));
    return true;
}

static void fem_free(fem_matrix *m)
{
    kryl_matrix_destroy(&m->A);
    kryl_context_destroy(&m->ctx);
}

/* a_ij (0 when absent) of the whole matrix m. */
static double entry(const fem_matrix *m, int64_t i, int64_t j)
{
    for (int64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
        if (m->col_idx[k] == j) return m->values[k];
    return 0.0;
}

/* The pattern is symmetric, the values within 1e-14 max|a| of symmetric
 * (and not exactly when the mesh has jittered vertices), the diagonal
 * positive. */
static void check_symmetry(const fem_matrix *m, bool jittered, const char *what)
{
    double largest = 0.0, asym = 0.0;
    bool pattern = true, diagonal = true;
    for (int64_t i = 0; i < m->n; i++) {
        diagonal = diagonal && entry(m, i, i) > 0.0;
        for (int64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            const int64_t j = m->col_idx[k];
            bool found = false;
            for (int64_t q = m->row_ptr[j]; q < m->row_ptr[j + 1]; q++) found |= m->col_idx[q] == i;
            pattern = pattern && found;
            largest = fmax(largest, fabs(m->values[k]));
            asym = fmax(asym, fabs(m->values[k] - entry(m, j, i)));
        }
    }
    CHECK(pattern, "%s: the pattern is not symmetric", what);
    CHECK(diagonal, "%s: a diagonal entry is not positive", what);
    CHECK((asym > 0.0 || !jittered) && asym <= 1e-14 * largest,
          "%s: max |a_ij - a_ji| = %.3g, max |a_ij| = %.3g: expected rounding only", what, asym,
          largest);
}

/* (A u)_i = 0 for the rows i whose node lies over `margin` from the
 * boundary x = 0 (clamped_only) or from every boundary of [0, extent],
 * u a field of the coordinates: field(xyz, row) = u at that row. */
static void check_kernel(const fem_matrix *m, const double *xyz, int dim, int dofs,
                         const double *extent, double margin, bool clamped_only,
                         double (*field)(const double *, int, int), int which, const char *what)
{
    double worst = 0.0, scale = 0.0;
    int64_t rows = 0;
    for (int64_t i = 0; i < m->n; i++) {
        const double *p = xyz + (i / dofs) * dim;
        bool far = p[0] > margin;
        for (int d = 0; d < dim && !clamped_only; d++)
            far = far && p[d] > margin && p[d] < extent[d] - margin;
        if (!far) continue;
        double sum = 0.0, size = 0.0;
        for (int64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            const int64_t j = m->col_idx[k];
            const double u = field(xyz + (j / dofs) * dim, (int)(j % dofs), which);
            /* sum = (A u)_i, size = sum |a_ij u_j| */
            sum += m->values[k] * u;
            size += fabs(m->values[k] * u);
        }
        worst = fmax(worst, fabs(sum));
        scale = fmax(scale, size);
        rows++;
    }
    CHECK(rows > 0, "%s: no row away from the boundary", what);
    CHECK(worst <= 1e-12 * scale, "%s: field %d: max |(A u)_i| = %.3g against %.3g", what, which,
          worst, scale);
}

/* Laplace: u = x_which (1-D dofs). */
static double linear(const double *p, int component, int which)
{
    (void)component;
    return p[which];
}

/* Elasticity: the six rigid-body motions, three translations and three
 * rotations (e_r x p), component `component` of the displacement. */
static double rigid(const double *p, int component, int which)
{
    if (which < 3) return component == which ? 1.0 : 0.0;
    const int r = which - 3, a = (r + 1) % 3, b = (r + 2) % 3;
    /* (e_r x p) = e_b p_a - e_a p_b */
    return component == b ? p[a] : component == a ? -p[b] : 0.0;
}

/* Rows [begin, end) generated alone equal the same rows of the whole. */
static void check_range(const fem_matrix *whole, const kryl_generator_options *o, int64_t begin,
                        int64_t end, const char *what)
{
    fem_matrix part;
    if (!fem_generate(&part, o, begin, end)) return;
    const int64_t first = whole->row_ptr[begin], count = whole->row_ptr[end] - first;
    bool same = part.nnz == count;
    for (int64_t k = 0; k <= end - begin && same; k++)
        same = part.row_ptr[k] == whole->row_ptr[begin + k] - first;
    same = same && memcmp(part.col_idx, whole->col_idx + first, (size_t)count * 4) == 0 &&
           memcmp(part.values, whole->values + first, (size_t)count * 8) == 0;
    CHECK(same, "%s: rows [%lld, %lld) differ from the whole matrix's", what, (long long)begin,
          (long long)end);
    fem_free(&part);
}

static void check_kind(kryl_generator_kind kind, int64_t n, int64_t rows)
{
    const char *what = kryl_generator_name(kind);
    kryl_generator_options o;
    kryl_generator_options_init(&o, kind, n);
    fem_matrix m;
    if (!fem_generate(&m, &o, 0, rows)) return;
    CHECK(m.n == rows, "%s --n %lld: %lld rows, expected %lld", what, (long long)n, (long long)m.n,
          (long long)rows);
    int64_t size = 0, estimate = 0;
    CHECK_OK(kryl_generator_size(&o, &size, &estimate));
    CHECK(size == rows && estimate >= m.nnz, "%s: size %lld, estimate %lld for %lld entries", what,
          (long long)size, (long long)estimate, (long long)m.nnz);
    /* a beam one cube thick has no interior vertex to move */
    check_symmetry(&m, n > 1, what);

    int64_t nodes = 0;
    int dim = 0;
    double *xyz = NULL;
    CHECK_OK(kryl_generator_coordinates(&o, &nodes, &dim, &xyz));
    const bool elasticity = kind == KRYL_GEN_ELASTICITY3D;
    const int dofs = elasticity ? 3 : 1;
    CHECK(xyz && nodes * dofs == rows && dim == (kind <= KRYL_GEN_FEM_P2_2D ? 2 : 3),
          "%s: %lld nodes of dimension %d for %lld rows", what, (long long)nodes, dim,
          (long long)rows);
    if (xyz && nodes * dofs == rows) {
        /* nodes farther than a cell and its jitter from a boundary row see no Dirichlet node */
        const double h = 1.0 / (double)o.ny;
        const double unit[3] = {1.0, 1.0, 1.0};
        const double beam[3] = {(double)o.nx * h, 1.0, (double)o.nz * h};
        for (int which = 0; which < (elasticity ? 6 : dim); which++)
            check_kernel(&m, xyz, dim, dofs, elasticity ? beam : unit, 1.5 * h, elasticity,
                         elasticity ? rigid : linear, which, what);
    }
    free(xyz);

    check_range(&m, &o, 0, rows / 3, what);
    check_range(&m, &o, rows / 3, rows, what);
    /* another seed: another mesh and order, the same pattern size */
    kryl_generator_options other = o;
    other.seed = 7;
    fem_matrix m2;
    if (fem_generate(&m2, &other, 0, rows)) {
        CHECK(m2.nnz == m.nnz && memcmp(m2.values, m.values, (size_t)m.nnz * 8) != 0,
              "%s: seed 7 gives %lld entries (seed 1: %lld), values %s", what, (long long)m2.nnz,
              (long long)m.nnz, "identical");
        fem_free(&m2);
    }
    fem_free(&m);
}

int main(void)
{
    check_kind(KRYL_GEN_FEM_P1_2D, 12, 11 * 11);
    check_kind(KRYL_GEN_FEM_P2_2D, 8, 15 * 15);
    check_kind(KRYL_GEN_FEM_P1_3D, 7, 6 * 6 * 6);
    check_kind(KRYL_GEN_ELASTICITY3D, 3, 3 * 12 * 4 * 4);
    check_kind(KRYL_GEN_ELASTICITY3D, 1, 3 * 4 * 2 * 2);

    /* the documented size: --n 12 gives 24336 unknowns */
    kryl_generator_options o;
    int64_t rows = 0, estimate = 0;
    kryl_generator_options_init(&o, KRYL_GEN_ELASTICITY3D, 12);
    CHECK_OK(kryl_generator_size(&o, &rows, &estimate));
    CHECK(rows == 24336, "elasticity3d --n 12: %lld rows", (long long)rows);

    /* names, bad sizes and kinds without a mesh */
    kryl_generator_kind kind;
    CHECK_OK(kryl_generator_from_name("elasticity3d", &kind));
    CHECK(kind == KRYL_GEN_ELASTICITY3D, "elasticity3d -> %d", (int)kind);
    kryl_generator_options_init(&o, KRYL_GEN_FEM_P1_2D, 1);
    CHECK_STATUS(kryl_generator_size(&o, &rows, &estimate), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "nx") != NULL, "message: %s", kryl_last_error());
    int64_t nodes;
    int dim;
    double *xyz = NULL;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 4);
    CHECK_STATUS(kryl_generator_coordinates(&o, &nodes, &dim, &xyz), KRYL_ERR_UNSUPPORTED);
    CHECK(xyz == NULL && strstr(kryl_last_error(), "poisson2d"), "message: %s", kryl_last_error());
    CHECK_STATUS(kryl_generator_coordinates(&o, NULL, &dim, &xyz), KRYL_ERR_INVALID_ARGUMENT);
    return test_summary("test_gen_fem");
}
