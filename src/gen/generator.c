/* Generator kinds: names, default options, validation, sizes and the
 * dispatch of a row to its family (stencil, random-spd, powerlaw, rgg);
 * the finite-element kinds are assembled whole (fem.h). */
#include "gen/generator.h"

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "gen/families.h"
#include "gen/fem.h"

#define KIND_COUNT 16

static const char *const kind_names[KIND_COUNT] = {
    "poisson2d",  "poisson3d",  "poisson3d27", "poisson3d125", "aniso2d", "aniso3d",
    "convdiff2d", "convdiff3d", "random-spd",  "powerlaw",     "rgg",     "rgg-spatial",
    "fem-p1-2d",  "fem-p2-2d",  "fem-p1-3d",   "elasticity3d"};

/* Grid directions of a kind: 2 or 3 for the stencils, 1 (rows) for random kinds. */
static int kind_dims(kryl_generator_kind kind)
{
    switch (kind) {
    case KRYL_GEN_POISSON2D5:
    case KRYL_GEN_ANISOTROPIC2D:
    case KRYL_GEN_CONVDIFF2D:
    case KRYL_GEN_FEM_P1_2D:
    case KRYL_GEN_FEM_P2_2D: return 2;
    case KRYL_GEN_RANDOM_SPD:
    case KRYL_GEN_POWERLAW:
    case KRYL_GEN_RGG:
    case KRYL_GEN_RGG_SPATIAL: return 1;
    default: return 3;
    }
}

static bool kind_valid(kryl_generator_kind kind)
{
    return (int)kind >= 0 && (int)kind < KIND_COUNT;
}

const char *kryl_generator_name(kryl_generator_kind kind)
{
    return kind_valid(kind) ? kind_names[kind] : "unknown";
}

kryl_status kryl_generator_from_name(const char *name, kryl_generator_kind *kind)
{
    KRYL_REQUIRE_ARG(name);
    KRYL_REQUIRE_ARG(kind);
    for (int k = 0; k < KIND_COUNT; k++)
        if (strcmp(name, kind_names[k]) == 0) {
            *kind = (kryl_generator_kind)k;
            return KRYL_SUCCESS;
        }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                      "unknown generator '%s': expected one of poisson2d, poisson3d, poisson3d27, "
                      "poisson3d125, aniso2d, aniso3d, convdiff2d, convdiff3d, random-spd, "
                      "powerlaw, rgg, rgg-spatial, fem-p1-2d, fem-p2-2d, fem-p1-3d, elasticity3d",
                      name);
}

void kryl_generator_options_init(kryl_generator_options *options, kryl_generator_kind kind,
                                 int64_t n)
{
    if (!options) return;
    const int dims = kind_dims(kind);
    options->kind = kind;
    /* the elasticity beam is four times longer than wide */
    options->nx = kind == KRYL_GEN_ELASTICITY3D ? 4 * n : n;
    options->ny = dims >= 2 ? n : 1;
    options->nz = dims >= 3 ? n : 1;
    options->epsilon = 1e-3;
    options->peclet = 10.0;
    options->row_length = 8;
    options->exponent = 2.1;
    options->seed = 1;
}

/* The options a kind uses, checked; g->options gets 1 for unused grid sizes. */
static kryl_status validate(kryl_generator *g, const kryl_generator_options *o)
{
    if (!kind_valid(o->kind))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_generator_init: options->kind = %d is not a generator kind "
                          "(0..%d)",
                          (int)o->kind, KIND_COUNT - 1);
    const char *name = kind_names[o->kind];
    const int dims = kind_dims(o->kind);
    const int64_t size[3] = {o->nx, dims >= 2 ? o->ny : 1, dims >= 3 ? o->nz : 1};
    static const char *const size_names[3] = {"nx", "ny", "nz"};
    int64_t rows = 1;
    for (int d = 0; d < 3; d++) {
        if (size[d] < 1)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "kryl_generator_init: %s: options->%s = %lld, must be >= 1", name,
                              size_names[d], (long long)size[d]);
        if (rows > INT64_MAX / size[d])
            return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                              "kryl_generator_init: %s: nx*ny*nz = %lld*%lld*%lld overflows "
                              "64-bit row indices",
                              name, (long long)size[0], (long long)size[1], (long long)size[2]);
        rows *= size[d];
    }
    if ((o->kind == KRYL_GEN_ANISOTROPIC2D || o->kind == KRYL_GEN_ANISOTROPIC3D) &&
        !(isfinite(o->epsilon) && o->epsilon > 0.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_generator_init: %s: options->epsilon = %g, must be finite and "
                          "> 0",
                          name, o->epsilon);
    if ((o->kind == KRYL_GEN_CONVDIFF2D || o->kind == KRYL_GEN_CONVDIFF3D) &&
        !(isfinite(o->peclet) && o->peclet >= 0.0))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_generator_init: %s: options->peclet = %g, must be finite and "
                          ">= 0",
                          name, o->peclet);
    if (dims == 1 && o->row_length < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_generator_init: %s: options->row_length = %lld, must be >= 1", name,
                          (long long)o->row_length);
    if (o->kind == KRYL_GEN_POWERLAW) {
        if (!(isfinite(o->exponent) && o->exponent > 1.0))
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "kryl_generator_init: powerlaw: options->exponent = %g, must be "
                              "finite and > 1",
                              o->exponent);
        /* columns are sampled as doubles, exact below 2^53 */
        if (rows > (INT64_C(1) << 53))
            return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                              "kryl_generator_init: powerlaw: options->nx = %lld, must be <= "
                              "2^53",
                              (long long)rows);
    }
    g->options = *o;
    g->options.ny = size[1];
    g->options.nz = size[2];
    g->nrows = rows;
    return KRYL_SUCCESS;
}

kryl_status kryl_generator_init(kryl_generator *g, const kryl_generator_options *options)
{
    KRYL_REQUIRE_ARG(g);
    KRYL_REQUIRE_ARG(options);
    memset(g, 0, sizeof *g);
    KRYL_TRY(validate(g, options));
    if (kryl_gen_fem_kind(g->options.kind)) return kryl_gen_fem_init(g);
    switch (g->options.kind) {
    case KRYL_GEN_RANDOM_SPD: return kryl_gen_random_spd_init(g);
    case KRYL_GEN_POWERLAW: return kryl_gen_powerlaw_init(g);
    case KRYL_GEN_RGG:
    case KRYL_GEN_RGG_SPATIAL: return kryl_gen_rgg_init(g);
    default: return kryl_gen_stencil_init(g);
    }
}

int64_t kryl_generator_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values)
{
    switch (g->options.kind) {
    case KRYL_GEN_RANDOM_SPD: return kryl_gen_random_spd_row(g, i, cols, values);
    case KRYL_GEN_POWERLAW: return kryl_gen_powerlaw_row(g, i, cols, values);
    case KRYL_GEN_RGG:
    case KRYL_GEN_RGG_SPATIAL: return kryl_gen_rgg_row(g, i, cols, values);
    default: return kryl_gen_stencil_row(g, i, cols, values);
    }
}

kryl_status kryl_generator_size(const kryl_generator_options *options, int64_t *nrows,
                                int64_t *nnz_estimate)
{
    KRYL_REQUIRE_ARG(options);
    KRYL_REQUIRE_ARG(nrows);
    KRYL_REQUIRE_ARG(nnz_estimate);
    kryl_generator g;
    KRYL_TRY(kryl_generator_init(&g, options));
    *nrows = g.nrows;
    *nnz_estimate = g.nnz_estimate;
    return KRYL_SUCCESS;
}
