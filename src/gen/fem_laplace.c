/* Element stiffness matrices of -div grad u: K_ab = sum_q (w_q |det J|
 * grad phi_a(q)) . grad phi_b(q), the gradients mapped from the reference
 * element (grad phi = J^-T ghat) and the quadrature weight folded into the
 * first factor, the way a finite-element code evaluates them: K_ab and K_ba
 * may differ in the last bit. */
#include "gen/fem.h"

#include <math.h>

double kryl_fem_jacobian(int dim, const double *xyz, double J[3][3], double Jinv[3][3])
{
    /* J[i][j] = x_i(vertex j + 1) - x_i(vertex 0) */
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) J[i][j] = xyz[dim * (j + 1) + i] - xyz[i];
    double det;
    if (dim == 2) {
        det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        Jinv[0][0] = J[1][1] / det;
        Jinv[0][1] = -J[0][1] / det;
        Jinv[1][0] = -J[1][0] / det;
        Jinv[1][1] = J[0][0] / det;
    } else {
        /* J^-1 = adj(J) / det J, adjugate by cofactors */
        double C[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
                C[i][j] = J[i1][j1] * J[i2][j2] - J[i1][j2] * J[i2][j1];
            }
        det = J[0][0] * C[0][0] + J[0][1] * C[0][1] + J[0][2] * C[0][2];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Jinv[i][j] = C[j][i] / det;
    }
    return fabs(det);
}

/* Ke[a][b] += sum_i (weight g_a[i]) g_b[i] for the n basis functions,
 * g_a = J^-T ghat_a their physical gradients and ghat_a = ghat[3a..3a+dim)
 * the reference ones: the weighted gradient is rounded, so the product is
 * symmetric only up to rounding. */
static void add_gradient_products(int dim, int n, double Jinv[3][3], double weight,
                                  const double *ghat, double *Ke)
{
    double g[6][3], wg[6][3];
    for (int a = 0; a < n; a++)
        for (int i = 0; i < dim; i++) {
            /* g_a = J^-T ghat_a */
            g[a][i] = 0.0;
            for (int k = 0; k < dim; k++) g[a][i] += Jinv[k][i] * ghat[3 * a + k];
            wg[a][i] = weight * g[a][i];
        }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            double dot = 0.0;
            for (int i = 0; i < dim; i++) dot += wg[a][i] * g[b][i];
            Ke[a * n + b] += dot;
        }
}

void kryl_fem_laplace_p1_triangle(const double *xyz, double *Ke)
{
    static const double ghat[3][3] = {{-1.0, -1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}};
    double J[3][3], Jinv[3][3];
    const double det = kryl_fem_jacobian(2, xyz, J, Jinv);
    for (int k = 0; k < 9; k++) Ke[k] = 0.0;
    /* constant gradients: the reference triangle's area 1/2 */
    add_gradient_products(2, 3, Jinv, 0.5 * det, &ghat[0][0], Ke);
}

void kryl_fem_laplace_p1_tetrahedron(const double *xyz, double *Ke)
{
    static const double ghat[4][3] = {
        {-1.0, -1.0, -1.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    double J[3][3], Jinv[3][3];
    const double det = kryl_fem_jacobian(3, xyz, J, Jinv);
    for (int k = 0; k < 16; k++) Ke[k] = 0.0;
    /* the reference tetrahedron's volume 1/6 */
    add_gradient_products(3, 4, Jinv, det / 6.0, &ghat[0][0], Ke);
}

/* Quadratic Lagrange basis on the reference triangle, nodes 0-2 the vertices
 * (barycentrics l0 = 1 - s - t, l1 = s, l2 = t), 3-5 the midpoints of edges
 * 01, 12, 20: phi_v = l_v (2 l_v - 1), phi_e = 4 l_p l_q.  Gradients at
 * (s, t) in reference coordinates. */
static void p2_gradients(double s, double t, double g[6][3])
{
    const double l[3] = {1.0 - s - t, s, t};
    static const double dl[3][2] = {{-1.0, -1.0}, {1.0, 0.0}, {0.0, 1.0}};
    static const int edge[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    for (int d = 0; d < 2; d++) {
        for (int v = 0; v < 3; v++) g[v][d] = (4.0 * l[v] - 1.0) * dl[v][d];
        for (int e = 0; e < 3; e++) {
            const int p = edge[e][0], q = edge[e][1];
            g[3 + e][d] = 4.0 * (dl[p][d] * l[q] + l[p] * dl[q][d]);
        }
    }
    for (int a = 0; a < 6; a++) g[a][2] = 0.0;
}

void kryl_fem_laplace_p2_triangle(const double *xyz, double *Ke)
{
    /* the edge-midpoint rule, exact for the quadratic products of gradients */
    static const double point[3][2] = {{0.5, 0.0}, {0.5, 0.5}, {0.0, 0.5}};
    double J[3][3], Jinv[3][3];
    const double det = kryl_fem_jacobian(2, xyz, J, Jinv);
    for (int k = 0; k < 36; k++) Ke[k] = 0.0;
    for (int q = 0; q < 3; q++) {
        double g[6][3];
        p2_gradients(point[q][0], point[q][1], g);
        add_gradient_products(2, 6, Jinv, det / 6.0, &g[0][0], Ke);
    }
}
