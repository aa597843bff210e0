/* The element stiffness of 3-D linear elasticity with linear tetrahedra:
 * Ke = V B^T (D B), B the 6 x 12 strain-displacement matrix (Voigt order
 * xx, yy, zz, yz, xz, xy with engineering shears), D the isotropic
 * material matrix with Young's modulus 1 and Poisson ratio 0.3 (T. J. R.
 * Hughes, The Finite Element Method, 2000, sections 2.7 and 3.I).  D B is
 * rounded before B^T multiplies it, so Ke is symmetric up to rounding. */
#include "gen/fem.h"

#define YOUNG   1.0
#define POISSON 0.3

void kryl_fem_elasticity_p1_tetrahedron(const double *xyz, double *Ke)
{
    static const double ghat[4][3] = {
        {-1.0, -1.0, -1.0}, {1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    double J[3][3], Jinv[3][3];
    const double volume = kryl_fem_jacobian(3, xyz, J, Jinv) / 6.0;
    /* Lame parameters */
    const double lambda = YOUNG * POISSON / ((1.0 + POISSON) * (1.0 - 2.0 * POISSON));
    const double mu = YOUNG / (2.0 * (1.0 + POISSON));
    double D[6][6] = {{0.0}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) D[i][j] = lambda;
        D[i][i] = lambda + 2.0 * mu;
        D[3 + i][3 + i] = mu;
    }
    double B[6][12] = {{0.0}};
    for (int a = 0; a < 4; a++) {
        /* grad phi_a = J^-T ghat_a */
        double g[3];
        for (int i = 0; i < 3; i++)
            g[i] = Jinv[0][i] * ghat[a][0] + Jinv[1][i] * ghat[a][1] + Jinv[2][i] * ghat[a][2];
        B[0][3 * a] = g[0];
        B[1][3 * a + 1] = g[1];
        B[2][3 * a + 2] = g[2];
        B[3][3 * a + 1] = g[2];
        B[3][3 * a + 2] = g[1];
        B[4][3 * a] = g[2];
        B[4][3 * a + 2] = g[0];
        B[5][3 * a] = g[1];
        B[5][3 * a + 1] = g[0];
    }
    double DB[6][12];
    for (int i = 0; i < 6; i++)
        for (int c = 0; c < 12; c++) {
            DB[i][c] = 0.0;
            for (int k = 0; k < 6; k++) DB[i][c] += D[i][k] * B[k][c];
        }
    /* Ke = V B^T (D B) */
    for (int r = 0; r < 12; r++)
        for (int c = 0; c < 12; c++) {
            double sum = 0.0;
            for (int k = 0; k < 6; k++) sum += B[k][r] * DB[k][c];
            Ke[12 * r + c] = volume * sum;
        }
}
