/* The meshes of the finite-element kinds: the unit square cut into nx x ny
 * cells of two triangles each (linear or quadratic), a box of nx x ny x nz
 * cubes of six tetrahedra each (Kuhn's subdivision along the main
 * diagonal, conforming from cube to cube).  Interior vertices move by a
 * random fraction of the cell size (seeded), so element matrices differ
 * from element to element and carry rounding like a real mesh's. */
#include "gen/fem.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gen/hash.h"

/* Largest move of an interior vertex, per direction, in cell sizes. */
#define JITTER_2D 0.2
#define JITTER_3D 0.1

/* Cube edge of the elasticity beam: ny cells span the unit width. */
#define BEAM_CELLS_PER_UNIT(g) ((double)(g)->options.ny)

/* A uniform number in [-1, 1) keyed by (seed, node, direction). */
static double jitter(uint64_t seed, int64_t node, int d)
{
    return 2.0 * kryl_gen_uniform(
                     kryl_gen_hash(seed, KRYL_GEN_STREAM_JITTER, (uint64_t)node, (uint64_t)d)) -
           1.0;
}

static kryl_status mesh_alloc(kryl_fem_mesh *m, int dim, int per_element, int64_t nodes,
                              int64_t elements)
{
    m->dim = dim;
    m->nodes_per_element = per_element;
    m->nodes = nodes;
    m->elements = elements;
    m->xyz = malloc((size_t)(nodes * dim) * sizeof *m->xyz);
    m->element_nodes = malloc((size_t)(elements * per_element) * sizeof *m->element_nodes);
    m->unknown = malloc((size_t)nodes * sizeof *m->unknown);
    if (!m->xyz || !m->element_nodes || !m->unknown) {
        kryl_gen_fem_mesh_free(m);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_matrix_generate: cannot allocate a mesh of %lld nodes and %lld "
                          "elements",
                          (long long)nodes, (long long)elements);
    }
    return KRYL_SUCCESS;
}

void kryl_gen_fem_mesh_free(kryl_fem_mesh *m)
{
    free(m->xyz);
    free(m->element_nodes);
    free(m->unknown);
    memset(m, 0, sizeof *m);
}

/* Number the nodes that are not Dirichlet nodes (unknown[k] >= 0 on entry
 * marks them) in node order. */
static void number_unknowns(kryl_fem_mesh *m)
{
    m->unknowns = 0;
    for (int64_t k = 0; k < m->nodes; k++)
        if (m->unknown[k] >= 0) m->unknown[k] = m->unknowns++;
}

/* Triangles of order 1 or 2 on the unit square, all boundary nodes Dirichlet.
 * Nodes are the points of the (order nx + 1) x (order ny + 1) grid, x
 * fastest; a quadratic element's edge nodes sit at its edges' midpoints. */
static kryl_status triangles(const kryl_generator *g, int order, kryl_fem_mesh *m)
{
    const int64_t nx = g->options.nx, ny = g->options.ny;
    const int64_t px = order * nx + 1, py = order * ny + 1; /* grid points per direction */
    KRYL_TRY(mesh_alloc(m, 2, order == 1 ? 3 : 6, px * py, 2 * nx * ny));
    /* vertices: (i / nx, j / ny) moved inside when interior */
    for (int64_t j = 0; j <= ny; j++)
        for (int64_t i = 0; i <= nx; i++) {
            const int64_t v = i + (nx + 1) * j, node = order * i + px * order * j;
            const bool inside = i > 0 && i < nx && j > 0 && j < ny;
            m->xyz[2 * node] =
                ((double)i + (inside ? JITTER_2D * jitter(g->options.seed, v, 0) : 0.0)) /
                (double)nx;
            m->xyz[2 * node + 1] =
                ((double)j + (inside ? JITTER_2D * jitter(g->options.seed, v, 1) : 0.0)) /
                (double)ny;
        }
    /* cell (i, j): triangles (00, 10, 11) and (00, 11, 01) counterclockwise */
    static const int corner[2][3][2] = {{{0, 0}, {1, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
    int64_t e = 0;
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++)
            for (int t = 0; t < 2; t++, e++) {
                int64_t *en = m->element_nodes + (int64_t)m->nodes_per_element * e;
                int64_t I[3], J[3];
                for (int a = 0; a < 3; a++) {
                    I[a] = order * (i + corner[t][a][0]);
                    J[a] = order * (j + corner[t][a][1]);
                    en[a] = I[a] + px * J[a];
                }
                if (order == 1) continue;
                /* edge nodes of edges 01, 12, 20 at the grid point halfway */
                for (int a = 0; a < 3; a++) {
                    const int b = (a + 1) % 3;
                    const int64_t node = (I[a] + I[b]) / 2 + px * ((J[a] + J[b]) / 2);
                    en[3 + a] = node;
                    for (int d = 0; d < 2; d++)
                        m->xyz[2 * node + d] =
                            0.5 * (m->xyz[2 * en[a] + d] + m->xyz[2 * en[b] + d]);
                }
            }
    for (int64_t J = 0; J < py; J++)
        for (int64_t I = 0; I < px; I++)
            m->unknown[I + px * J] = I > 0 && I < px - 1 && J > 0 && J < py - 1 ? 0 : -1;
    number_unknowns(m);
    m->dofs_per_node = 1;
    m->element = order == 1 ? kryl_fem_laplace_p1_triangle : kryl_fem_laplace_p2_triangle;
    return KRYL_SUCCESS;
}

/* Linear tetrahedra on a box of nx x ny x nz cubes of side h.  Laplace: the
 * unit cube (h = 1/n per direction), every boundary node Dirichlet.
 * Elasticity: the beam [0, nx/ny] x [0, 1] x [0, nz/ny] (cubes of side
 * 1/ny), clamped at x = 0, the other faces free. */
static kryl_status tetrahedra(const kryl_generator *g, bool elasticity, kryl_fem_mesh *m)
{
    const int64_t n[3] = {g->options.nx, g->options.ny, g->options.nz};
    const int64_t p[3] = {n[0] + 1, n[1] + 1, n[2] + 1};
    KRYL_TRY(mesh_alloc(m, 3, 4, p[0] * p[1] * p[2], 6 * n[0] * n[1] * n[2]));
    double h[3];
    for (int d = 0; d < 3; d++)
        h[d] = elasticity ? 1.0 / BEAM_CELLS_PER_UNIT(g) : 1.0 / (double)n[d];
    for (int64_t k = 0; k < p[2]; k++)
        for (int64_t j = 0; j < p[1]; j++)
            for (int64_t i = 0; i < p[0]; i++) {
                const int64_t node = i + p[0] * (j + p[1] * k), at[3] = {i, j, k};
                bool inside = true;
                for (int d = 0; d < 3; d++) inside = inside && at[d] > 0 && at[d] < n[d];
                for (int d = 0; d < 3; d++)
                    m->xyz[3 * node + d] =
                        ((double)at[d] +
                         (inside ? JITTER_3D * jitter(g->options.seed, node, d) : 0.0)) *
                        h[d];
                m->unknown[node] = elasticity ? (i > 0 ? 0 : -1) : (inside ? 0 : -1);
            }
    /* cube (i, j, k): for each order (a, b, c) of the axes the tetrahedron
     * 0, e_a, e_a + e_b, e_a + e_b + e_c */
    static const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    int64_t e = 0;
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++)
                for (int t = 0; t < 6; t++, e++) {
                    int64_t at[3] = {i, j, k};
                    int64_t *en = m->element_nodes + 4 * e;
                    en[0] = at[0] + p[0] * (at[1] + p[1] * at[2]);
                    for (int a = 0; a < 3; a++) {
                        at[axes[t][a]]++;
                        en[a + 1] = at[0] + p[0] * (at[1] + p[1] * at[2]);
                    }
                }
    number_unknowns(m);
    m->dofs_per_node = elasticity ? 3 : 1;
    m->element = elasticity ? kryl_fem_elasticity_p1_tetrahedron : kryl_fem_laplace_p1_tetrahedron;
    return KRYL_SUCCESS;
}

kryl_status kryl_gen_fem_mesh(const kryl_generator *g, kryl_fem_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    switch (g->options.kind) {
    case KRYL_GEN_FEM_P1_2D: return triangles(g, 1, mesh);
    case KRYL_GEN_FEM_P2_2D: return triangles(g, 2, mesh);
    case KRYL_GEN_FEM_P1_3D: return tetrahedra(g, false, mesh);
    default: return tetrahedra(g, true, mesh);
    }
}
