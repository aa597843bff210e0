/* The stencils of the grid kinds: each is written into a 5x5x5 box of
 * coefficients and compressed into a kryl_stencil (nonzeros only, sorted by
 * (dz, dy, dx)).  All grids are unscaled (no 1/h^2). */
#include "gen/families.h"

#include <string.h>

/* box[dz + 2][dy + 2][dx + 2] = coefficient of the coupling (dx, dy, dz). */
typedef double stencil_box[5][5][5];

/* -sum_d weight[d] u_dd, second differences: 2*sum(weight) on the diagonal,
 * -weight[d] for both neighbours along axis d (weight 0: axis absent). */
static void add_laplacian(stencil_box box, const double weight[3])
{
    for (int d = 0; d < 3; d++) {
        if (weight[d] == 0.0) continue;
        int at[3] = {2, 2, 2};
        box[2][2][2] += 2.0 * weight[d];
        for (int side = 1; side <= 3; side += 2) {
            at[d] = side;
            box[at[2]][at[1]][at[0]] -= weight[d];
        }
    }
}

/* w . grad u with w = peclet*(1, ..., 1) over `dims` axes, first-order
 * upwind: peclet*(u_P - u_{P - e_d}) per axis d. */
static void add_upwind(stencil_box box, int dims, double peclet)
{
    for (int d = 0; d < dims; d++) {
        int at[3] = {2, 2, 2};
        at[d] = 1;
        box[2][2][2] += peclet;
        box[at[2]][at[1]][at[0]] -= peclet;
    }
}

/* The 27-point Laplacian (3x3x3 box): 26 on the diagonal, -1 for each of the
 * 26 neighbours; interior rows sum to 0. */
static void add_box27(stencil_box box)
{
    for (int c = 1; c <= 3; c++)
        for (int b = 1; b <= 3; b++)
            for (int a = 1; a <= 3; a++) box[c][b][a] = -1.0;
    box[2][2][2] = 26.0;
}

/* The 125-point higher-order Laplacian (5x5x5 box), scaled by 12*16*16 = 3072
 * so that every coefficient is an integer:
 *   A = K(x)M(x)M + M(x)K(x)M + M(x)M(x)K   (Kronecker products, x fastest)
 * with K = 12 * (1/12)[1, -16, 30, -16, 1], the 4th-order second difference
 * -u'' (symbol (1/3)(c-1)(c-7) >= 0, c = cos(theta)), and M = 16 * (1/16)
 * [1, 4, 6, 4, 1], the binomial smoother (symbol cos^4(theta/2) >= 0).  Both
 * symbols are nonnegative and vanish only on a null set, so every Dirichlet
 * truncation of K and M is positive definite and so is A (a sum of Kronecker
 * products of positive definite matrices).  Diagonal 3*30*6*6 = 3240; K sums
 * to 0, so interior rows sum to 0 exactly; no coefficient is 0. */
static void add_box125(stencil_box box)
{
    static const double k[5] = {1.0, -16.0, 30.0, -16.0, 1.0};
    static const double m[5] = {1.0, 4.0, 6.0, 4.0, 1.0};
    for (int c = 0; c < 5; c++)
        for (int b = 0; b < 5; b++)
            for (int a = 0; a < 5; a++)
                /* a_(dx,dy,dz) = K_dx M_dy M_dz + M_dx K_dy M_dz + M_dx M_dy K_dz */
                box[c][b][a] += k[a] * m[b] * m[c] + m[a] * k[b] * m[c] + m[a] * m[b] * k[c];
}

void kryl_gen_stencil_build(kryl_stencil *s, const kryl_generator_options *o)
{
    stencil_box box;
    memset(box, 0, sizeof box);
    const double unit2[3] = {1.0, 1.0, 0.0}, unit3[3] = {1.0, 1.0, 1.0};
    const double aniso2[3] = {o->epsilon, 1.0, 0.0}, aniso3[3] = {o->epsilon, 1.0, 1.0};
    switch (o->kind) {
    case KRYL_GEN_POISSON2D5: add_laplacian(box, unit2); break;
    case KRYL_GEN_POISSON3D7: add_laplacian(box, unit3); break;
    case KRYL_GEN_POISSON3D27: add_box27(box); break;
    case KRYL_GEN_POISSON3D125: add_box125(box); break;
    case KRYL_GEN_ANISOTROPIC2D: add_laplacian(box, aniso2); break;
    case KRYL_GEN_ANISOTROPIC3D: add_laplacian(box, aniso3); break;
    case KRYL_GEN_CONVDIFF2D:
        add_laplacian(box, unit2);
        add_upwind(box, 2, o->peclet);
        break;
    case KRYL_GEN_CONVDIFF3D:
        add_laplacian(box, unit3);
        add_upwind(box, 3, o->peclet);
        break;
    default: break;
    }
    /* keep the nonzero couplings in (dz, dy, dx) order */
    s->count = 0;
    for (int c = 0; c < 5; c++)
        for (int b = 0; b < 5; b++)
            for (int a = 0; a < 5; a++) {
                if (box[c][b][a] == 0.0) continue;
                s->offset[s->count][0] = a - 2;
                s->offset[s->count][1] = b - 2;
                s->offset[s->count][2] = c - 2;
                s->coef[s->count] = box[c][b][a];
                s->count++;
            }
}
