/* Matrix generators, one row at a time: any contiguous range of rows can be
 * built without building any other row (a distributed run builds only its
 * own rows).  The finite-element kinds are the exception (gen/fem.h). */
#ifndef KRYL_GEN_GENERATOR_H
#define KRYL_GEN_GENERATOR_H

#include "gen/scramble.h"
#include "kryl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest stencil: the 5x5x5 box. */
#define KRYL_STENCIL_MAX 125

/* A constant-coefficient stencil on an nx x ny x nz grid (natural order,
 * x fastest): entry k couples point (x, y, z) to (x + dx, y + dy, z + dz),
 * i.e. row i to column i + delta[k], with coefficient coef[k].  Entries are
 * sorted by (dz, dy, dx), hence by column.  Couplings that leave the grid
 * are dropped (Dirichlet boundary). */
typedef struct kryl_stencil {
    int count;
    int offset[KRYL_STENCIL_MAX][3]; /* dx, dy, dz, each in -2..2 */
    int64_t delta[KRYL_STENCIL_MAX]; /* dx + nx*(dy + ny*dz) */
    double coef[KRYL_STENCIL_MAX];
} kryl_stencil;

typedef struct kryl_generator {
    kryl_generator_options options; /* validated; unused grid sizes set to 1 */
    int64_t nrows;                  /* = ncols */
    int64_t max_row_length;         /* upper bound on entries of any row */
    int64_t nnz_estimate;           /* exact for the stencils, expected for random kinds */
    kryl_stencil stencil;           /* grid kinds */
    int64_t window;                 /* random-spd: candidate columns i-window..i+window */
    double keep_probability;        /* random-spd: chance that a candidate is an entry */
    double scale;                   /* powerlaw: scale s of the row-length law */
    int64_t cells;                  /* rgg: cells per direction of the unit cube */
    double radius;                  /* rgg: points closer than this are coupled */
    kryl_gen_scramble scramble;     /* rgg: row of a point in the scrambled numbering */
} kryl_generator;

/* Validate options and fill g: KRYL_ERR_INVALID_ARGUMENT naming the bad
 * option; KRYL_ERR_INDEX_OVERFLOW when the rows or the entries do not fit
 * 64-bit indices. */
kryl_status kryl_generator_init(kryl_generator *g, const kryl_generator_options *options);

/* Row i (0 <= i < g->nrows) of a row kind (not the finite-element kinds,
 * which kryl_matrix_generate assembles whole, gen/fem.h): writes its entries (columns ascending,
 * unique) to cols/values, which have room for the row (at most g->max_row_length), and returns how
 * many.  With cols and values both NULL it only returns the count, cheaply. */
int64_t kryl_generator_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values);

#ifdef __cplusplus
}
#endif

#endif
