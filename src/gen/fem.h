/* Finite-element generator kinds: a structured mesh with jittered interior
 * nodes, element matrices computed as a finite-element code computes them
 * (reference gradients through the Jacobian's metric, B^T (D B)), so
 * a_ij and a_ji differ by rounding, and assembly element by element in a
 * shuffled element order.  Dirichlet nodes are eliminated (their rows and
 * columns are not unknowns), so every kind is symmetric positive definite
 * up to rounding.  Unlike the row generators, a matrix is assembled whole:
 * kryl_matrix_generate builds all of it and keeps the rows asked for. */
#ifndef KRYL_GEN_FEM_H
#define KRYL_GEN_FEM_H

#include "core/csr.h"
#include "gen/generator.h"

/* An element's matrix from its nodes' coordinates: xyz[dim * a + d] for
 * node a; Ke[(dofs * a + c) * size + dofs * b + e], size = nodes * dofs. */
typedef void (*kryl_fem_element_fn)(const double *xyz, double *Ke);

typedef struct kryl_fem_mesh {
    int dim;                 /* 2 or 3 */
    int nodes_per_element;   /* 3, 4 or 6 */
    int dofs_per_node;       /* 1 (Laplace) or 3 (elasticity) */
    int64_t nodes, elements; /* all nodes, Dirichlet ones included */
    double *xyz;             /* nodes x dim coordinates */
    int64_t *element_nodes;  /* elements x nodes_per_element */
    int64_t *unknown;        /* node -> its index among the unknown nodes, or -1 */
    int64_t unknowns;        /* nodes that are not Dirichlet nodes */
    kryl_fem_element_fn element;
} kryl_fem_mesh;

/* Whether kind is a finite-element kind. */
bool kryl_gen_fem_kind(kryl_generator_kind kind);

/* Fills g->nrows, g->nnz_estimate and g->max_row_length of a finite-element
 * kind (validated: at least 2 elements a direction for Laplace, 1 for
 * elasticity). */
kryl_status kryl_gen_fem_init(kryl_generator *g);

/* The mesh of g's kind (fem_mesh.c); kryl_gen_fem_mesh_free releases it. */
kryl_status kryl_gen_fem_mesh(const kryl_generator *g, kryl_fem_mesh *mesh);
void kryl_gen_fem_mesh_free(kryl_fem_mesh *mesh);

/* Rows [row_begin, row_end) of the assembled matrix into csr (fem_assemble.c). */
kryl_status kryl_gen_fem_assemble(const kryl_generator *g, int64_t row_begin, int64_t row_end,
                                  kryl_csr *csr);

/* Element matrices (fem_laplace.c, fem_elasticity.c). */
void kryl_fem_laplace_p1_triangle(const double *xyz, double *Ke);
void kryl_fem_laplace_p2_triangle(const double *xyz, double *Ke);
void kryl_fem_laplace_p1_tetrahedron(const double *xyz, double *Ke);
void kryl_fem_elasticity_p1_tetrahedron(const double *xyz, double *Ke);

/* The Jacobian J (J[i][j] = dx_i / dxi_j) of the affine map from the
 * reference simplex to the element with vertices xyz, its inverse and
 * |det J|. */
double kryl_fem_jacobian(int dim, const double *xyz, double J[3][3], double Jinv[3][3]);

#endif
