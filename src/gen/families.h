/* The generator families behind kryl_generator_init / kryl_generator_row:
 * grid stencils, random SPD, power-law rows and random geometric graphs.  Each init reads
 * g->options and g->nrows (already validated) and fills the rest of g; each
 * row function follows the contract of kryl_generator_row. */
#ifndef KRYL_GEN_FAMILIES_H
#define KRYL_GEN_FAMILIES_H

#include "gen/generator.h"

/* The stencil of a grid kind (stencil_kinds.c). */
void kryl_gen_stencil_build(kryl_stencil *s, const kryl_generator_options *options);

/* Grid stencils (stencil.c): builds g->stencil, exact nnz. */
kryl_status kryl_gen_stencil_init(kryl_generator *g);
int64_t kryl_gen_stencil_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values);

/* Random symmetric diagonally dominant (random_spd.c). */
kryl_status kryl_gen_random_spd_init(kryl_generator *g);
int64_t kryl_gen_random_spd_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values);

/* Power-law row lengths (powerlaw.c). */
kryl_status kryl_gen_powerlaw_init(kryl_generator *g);
int64_t kryl_gen_powerlaw_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values);

/* Random geometric graphs, scrambled or spatial numbering (rgg.c). */
kryl_status kryl_gen_rgg_init(kryl_generator *g);
int64_t kryl_gen_rgg_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values);

#endif
