/* The finite-element kinds: sizes, assembly element by element in a
 * shuffled order into the rows asked for, and the unknowns' coordinates. */
#include "gen/fem.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gen/hash.h"

/* Largest element matrix: 12 x 12 (elasticity: 4 nodes x 3 dofs). */
#define ELEMENT_DOFS_MAX 12

bool kryl_gen_fem_kind(kryl_generator_kind kind)
{
    return kind == KRYL_GEN_FEM_P1_2D || kind == KRYL_GEN_FEM_P2_2D || kind == KRYL_GEN_FEM_P1_3D ||
           kind == KRYL_GEN_ELASTICITY3D;
}

kryl_status kryl_gen_fem_init(kryl_generator *g)
{
    const kryl_generator_options *o = &g->options;
    const bool elasticity = o->kind == KRYL_GEN_ELASTICITY3D;
    const int64_t least = elasticity ? 1 : 2, n[3] = {o->nx, o->ny, o->nz};
    const int dims = o->kind == KRYL_GEN_FEM_P1_2D || o->kind == KRYL_GEN_FEM_P2_2D ? 2 : 3;
    const int order = o->kind == KRYL_GEN_FEM_P2_2D ? 2 : 1;
    double nodes = 1.0;
    for (int d = 0; d < dims; d++) {
        if (n[d] < least)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "kryl_generator_init: %s: options->%s = %lld elements, must be "
                              ">= %lld",
                              kryl_generator_name(o->kind),
                              d == 0   ? "nx"
                              : d == 1 ? "ny"
                                       : "nz",
                              (long long)n[d], (long long)least);
        nodes *= (double)(order * n[d] + 1);
    }
    /* meshes are built whole: keep them within 2^31 nodes */
    if (nodes * (elasticity ? 3.0 : 1.0) > (double)INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_generator_init: %s on %lld x %lld x %lld elements: %.3g unknowns "
                          "exceed the 32-bit column indices",
                          kryl_generator_name(o->kind), (long long)n[0], (long long)n[1],
                          (long long)n[2], nodes * (elasticity ? 3.0 : 1.0));
    /* unknowns, and entries of an interior row: its node's neighbours times the dofs */
    switch (o->kind) {
    case KRYL_GEN_FEM_P1_2D:
        g->nrows = (n[0] - 1) * (n[1] - 1);
        g->max_row_length = 7;
        g->nnz_estimate = 7 * g->nrows;
        break;
    case KRYL_GEN_FEM_P2_2D:
        /* vertices couple to 19 nodes, edge nodes to 9; a quarter of the nodes are vertices */
        g->nrows = (2 * n[0] - 1) * (2 * n[1] - 1);
        g->max_row_length = 19;
        g->nnz_estimate = g->nrows * 23 / 2;
        break;
    case KRYL_GEN_FEM_P1_3D:
        g->nrows = (n[0] - 1) * (n[1] - 1) * (n[2] - 1);
        g->max_row_length = 15;
        g->nnz_estimate = 15 * g->nrows;
        break;
    default:
        g->nrows = 3 * n[0] * (n[1] + 1) * (n[2] + 1);
        g->max_row_length = 45;
        g->nnz_estimate = 45 * g->nrows;
        break;
    }
    return KRYL_SUCCESS;
}

/* The node graph of the unknowns: node k couples to node m when an element
 * holds both (k itself included), as a CSR of unknowns x unknowns. */
static kryl_status node_graph(const kryl_fem_mesh *m, kryl_csr *graph)
{
    kryl_coo pairs = {.nrows = m->unknowns, .ncols = m->unknowns};
    const int per = m->nodes_per_element;
    kryl_status st = kryl_coo_reserve(&pairs, m->elements * per * per);
    for (int64_t e = 0; e < m->elements && st == KRYL_SUCCESS; e++) {
        const int64_t *en = m->element_nodes + (int64_t)per * e;
        for (int a = 0; a < per; a++)
            for (int b = 0; b < per; b++) {
                const int64_t ua = m->unknown[en[a]], ub = m->unknown[en[b]];
                if (ua >= 0 && ub >= 0) kryl_coo_push(&pairs, ua, ub, 0.0);
            }
    }
    if (st == KRYL_SUCCESS) st = kryl_csr_from_coo(graph, &pairs, m->unknowns, 0, m->unknowns);
    kryl_coo_free(&pairs);
    return st;
}

/* The pattern of dof rows [row_begin, row_end): row dofs k + c holds the
 * columns dofs m + e of every neighbour m of node k; values zero. */
static kryl_status dof_pattern(const kryl_csr *graph, int dofs, int64_t row_begin, int64_t row_end,
                               kryl_csr *csr)
{
    const int64_t rows = row_end - row_begin;
    int64_t nnz = 0;
    for (int64_t r = row_begin; r < row_end; r++) {
        const int64_t k = r / dofs;
        nnz += dofs * (graph->row_ptr[k + 1] - graph->row_ptr[k]);
    }
    KRYL_TRY(kryl_csr_alloc(csr, rows, dofs * graph->ncols, nnz));
    csr->nrows_global = dofs * graph->nrows;
    csr->row_begin = row_begin;
    int64_t at = 0;
    for (int64_t r = row_begin; r < row_end; r++) {
        const int64_t k = r / dofs;
        for (int64_t q = graph->row_ptr[k]; q < graph->row_ptr[k + 1]; q++)
            for (int e = 0; e < dofs; e++) {
                csr->col_idx[at] = (int32_t)(dofs * graph->col_idx[q] + e);
                csr->values[at++] = 0.0;
            }
        csr->row_ptr[r - row_begin + 1] = at;
    }
    return KRYL_SUCCESS;
}

/* order[0..count) = a random permutation of the elements (Fisher-Yates, seeded). */
static kryl_status shuffled(int64_t count, uint64_t seed, int64_t **order)
{
    int64_t *p = malloc((size_t)(count > 0 ? count : 1) * sizeof *p);
    if (!p)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_matrix_generate: cannot allocate the order of %lld elements",
                          (long long)count);
    for (int64_t e = 0; e < count; e++) p[e] = e;
    for (int64_t e = count - 1; e > 0; e--) {
        const uint64_t h = kryl_gen_hash(seed, KRYL_GEN_STREAM_SHUFFLE, (uint64_t)e, 0);
        const int64_t swap = (int64_t)(h % (uint64_t)(e + 1)), t = p[e];
        p[e] = p[swap];
        p[swap] = t;
    }
    *order = p;
    return KRYL_SUCCESS;
}

/* a_(rows, cols) += Ke for every element in the shuffled order, rows
 * outside the csr's range skipped. */
static void add_elements(const kryl_fem_mesh *m, const int64_t *order, kryl_csr *csr)
{
    const int per = m->nodes_per_element, dofs = m->dofs_per_node, size = per * dofs;
    double xyz[6 * 3], Ke[ELEMENT_DOFS_MAX * ELEMENT_DOFS_MAX];
    for (int64_t q = 0; q < m->elements; q++) {
        const int64_t *en = m->element_nodes + (int64_t)per * order[q];
        for (int a = 0; a < per; a++)
            for (int d = 0; d < m->dim; d++) xyz[m->dim * a + d] = m->xyz[m->dim * en[a] + d];
        m->element(xyz, Ke);
        for (int a = 0; a < size; a++) {
            const int64_t ua = m->unknown[en[a / dofs]];
            const int64_t row = dofs * ua + a % dofs - csr->row_begin;
            if (ua < 0 || row < 0 || row >= csr->nrows) continue;
            for (int b = 0; b < size; b++) {
                const int64_t ub = m->unknown[en[b / dofs]];
                if (ub < 0) continue;
                /* a_(row, col) += Ke[a][b] */
                csr->values[kryl_csr_find(csr, row, dofs * ub + b % dofs)] += Ke[a * size + b];
            }
        }
    }
}

kryl_status kryl_gen_fem_assemble(const kryl_generator *g, int64_t row_begin, int64_t row_end,
                                  kryl_csr *csr)
{
    kryl_fem_mesh m;
    kryl_csr graph = {0};
    int64_t *order = NULL;
    memset(csr, 0, sizeof *csr);
    kryl_status st = kryl_gen_fem_mesh(g, &m);
    if (st != KRYL_SUCCESS) return st;
    st = node_graph(&m, &graph);
    if (st == KRYL_SUCCESS) st = dof_pattern(&graph, m.dofs_per_node, row_begin, row_end, csr);
    if (st == KRYL_SUCCESS) st = shuffled(m.elements, g->options.seed, &order);
    if (st == KRYL_SUCCESS) add_elements(&m, order, csr);
    if (st != KRYL_SUCCESS) kryl_csr_free(csr);
    free(order);
    kryl_csr_free(&graph);
    kryl_gen_fem_mesh_free(&m);
    return st;
}

kryl_status kryl_generator_coordinates(const kryl_generator_options *options, int64_t *nodes,
                                       int *dim, double **xyz)
{
    KRYL_REQUIRE_ARG(options);
    KRYL_REQUIRE_ARG(nodes);
    KRYL_REQUIRE_ARG(dim);
    KRYL_REQUIRE_ARG(xyz);
    *xyz = NULL;
    kryl_generator g;
    KRYL_TRY(kryl_generator_init(&g, options));
    if (!kryl_gen_fem_kind(g.options.kind))
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_generator_coordinates: %s has no mesh: only the finite-element "
                          "kinds (fem-p1-2d, fem-p2-2d, fem-p1-3d, elasticity3d) have node "
                          "coordinates",
                          kryl_generator_name(g.options.kind));
    kryl_fem_mesh m;
    KRYL_TRY(kryl_gen_fem_mesh(&g, &m));
    double *out = malloc((size_t)(m.unknowns > 0 ? m.unknowns * m.dim : 1) * sizeof *out);
    if (!out) {
        kryl_gen_fem_mesh_free(&m);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_generator_coordinates: cannot allocate %lld coordinates",
                          (long long)(m.unknowns * m.dim));
    }
    /* out[dim u + d] = coordinate d of the node whose unknown index is u */
    for (int64_t k = 0; k < m.nodes; k++)
        if (m.unknown[k] >= 0)
            for (int d = 0; d < m.dim; d++) out[m.dim * m.unknown[k] + d] = m.xyz[m.dim * k + d];
    *nodes = m.unknowns;
    *dim = m.dim;
    *xyz = out;
    kryl_gen_fem_mesh_free(&m);
    return KRYL_SUCCESS;
}
