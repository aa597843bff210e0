/* One implementation for every grid stencil: rows of a constant-coefficient
 * stencil on an nx x ny x nz grid with a Dirichlet boundary. */
#include "gen/families.h"

#include "core/error.h"

kryl_status kryl_gen_stencil_init(kryl_generator *g)
{
    kryl_stencil *s = &g->stencil;
    const int64_t n[3] = {g->options.nx, g->options.ny, g->options.nz};
    kryl_gen_stencil_build(s, &g->options);
    if (g->nrows > INT64_MAX / s->count)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_generator_init: %s on %lld rows: %d entries per row overflow "
                          "64-bit entry counts",
                          kryl_generator_name(g->options.kind), (long long)g->nrows, s->count);
    g->nnz_estimate = 0;
    for (int k = 0; k < s->count; k++) {
        const int *o = s->offset[k];
        s->delta[k] = o[0] + n[0] * (o[1] + n[1] * o[2]);
        /* nnz += prod_d max(0, n_d - |o_d|): the points whose neighbour o is on the grid */
        int64_t points = 1;
        for (int d = 0; d < 3; d++) {
            int64_t inside = n[d] - (o[d] < 0 ? -o[d] : o[d]);
            points *= inside > 0 ? inside : 0;
        }
        g->nnz_estimate += points;
    }
    g->max_row_length = s->count < g->nrows ? s->count : g->nrows;
    return KRYL_SUCCESS;
}

int64_t kryl_gen_stencil_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values)
{
    const kryl_stencil *s = &g->stencil;
    const int64_t nx = g->options.nx, ny = g->options.ny, nz = g->options.nz;
    const int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    int64_t count = 0;
    for (int k = 0; k < s->count; k++) {
        const int *o = s->offset[k];
        /* keep the coupling only when (x, y, z) + o lies on the grid */
        if (x + o[0] < 0 || x + o[0] >= nx || y + o[1] < 0 || y + o[1] >= ny || z + o[2] < 0 ||
            z + o[2] >= nz)
            continue;
        if (cols) {
            cols[count] = i + s->delta[k];
            values[count] = s->coef[k];
        }
        count++;
    }
    return count;
}
