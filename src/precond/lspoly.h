/* The least-squares polynomial preconditioner's coefficients (lspoly.c). */
#ifndef KRYL_PRECOND_LSPOLY_H
#define KRYL_PRECOND_LSPOLY_H

#include "precond/precond.h"

#define KRYL_LSPOLY_DEFAULT_DEGREE 8
#define KRYL_LSPOLY_MAX_DEGREE     64

/* M^-1 = s(A) with s of degree `degree` minimising ||1 - t s(t)|| in the
 * Chebyshev-weighted L2 norm on [lower, upper].  With P_j = t Q_j the
 * orthonormal polynomials of the Stieltjes procedure started from t:
 *   s = sum_{j=1}^{degree+1} gamma[j] Q_j,  Q_0 = 0,  Q_1 = 1/beta[1],
 *   beta[j+1] Q_{j+1}(t) = (t - alpha[j]) Q_j(t) - beta[j] Q_{j-1}(t).
 * Index 0 of each array is unused, as in Li & Saad's Algorithms 3 and 4. */
typedef struct kryl_lspoly {
    kryl_matrix A; /* the matrix s is a polynomial in (not owned) */
    int degree;
    double lower, upper; /* the interval [a, b] holding the spectrum */
    double alpha[KRYL_LSPOLY_MAX_DEGREE + 1];
    double beta[KRYL_LSPOLY_MAX_DEGREE + 2];
    double gamma[KRYL_LSPOLY_MAX_DEGREE + 2];
    kryl_vector work[2]; /* the recurrence's vectors */
} kryl_lspoly;

#endif
