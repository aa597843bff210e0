/* kryl gen: generate a test matrix and write it as Matrix Market. */
#include <inttypes.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"

typedef struct gen_args {
    const char *kind, *out, *coordinates;
    int64_t n, nx, ny, nz, row_length, seed;
    double epsilon, peclet, exponent;
    bool n_given, nx_given, ny_given, nz_given, epsilon_given, peclet_given;
    bool row_length_given, exponent_given, seed_given;
} gen_args;

/* Parse the command line into the generator options and the output path. */
static args_result parse(int argc, char **argv, kryl_generator_options *g, const char **out,
                         const char **coordinates)
{
    static const char *cmd = "gen";
    gen_args a = {0};
    const arg_spec specs[] = {
        {"--n", NULL, ARG_POSITIVE, &a.n, &a.n_given},
        {"--out", "-o", ARG_STRING, &a.out, NULL},
        {"--coordinates", NULL, ARG_STRING, &a.coordinates, NULL},
        {"--nx", NULL, ARG_POSITIVE, &a.nx, &a.nx_given},
        {"--ny", NULL, ARG_POSITIVE, &a.ny, &a.ny_given},
        {"--nz", NULL, ARG_POSITIVE, &a.nz, &a.nz_given},
        {"--epsilon", NULL, ARG_DOUBLE, &a.epsilon, &a.epsilon_given},
        {"--peclet", NULL, ARG_REAL, &a.peclet, &a.peclet_given},
        {"--row-length", NULL, ARG_POSITIVE, &a.row_length, &a.row_length_given},
        {"--exponent", NULL, ARG_DOUBLE, &a.exponent, &a.exponent_given},
        {"--seed", NULL, ARG_COUNT, &a.seed, &a.seed_given},
        {"--max-memory", NULL, ARG_MEMORY, NULL, NULL},
    };
    int npos;
    args_result r = args_parse(cmd, argc, argv, specs, (int)(sizeof specs / sizeof specs[0]),
                               &a.kind, 1, &npos);
    if (r != ARGS_OK) return r;
    if (npos == 0) return args_usage_error(cmd, "missing the matrix KIND");
    kryl_generator_kind kind;
    if (kryl_generator_from_name(a.kind, &kind) != KRYL_SUCCESS)
        return args_usage_error(cmd, "%s", kryl_last_error());
    if (!a.n_given && !a.nx_given) return args_usage_error(cmd, "missing the size --n N");
    if (a.out == NULL) return args_usage_error(cmd, "missing the output file -o A.mtx");
    kryl_generator_options_init(g, kind, a.n_given ? a.n : a.nx);
    /* options given explicitly override the kind's defaults */
    if (a.nx_given) g->nx = a.nx;
    if (a.ny_given) g->ny = a.ny;
    if (a.nz_given) g->nz = a.nz;
    if (a.epsilon_given) g->epsilon = a.epsilon;
    if (a.peclet_given) g->peclet = a.peclet;
    if (a.row_length_given) g->row_length = a.row_length;
    if (a.exponent_given) g->exponent = a.exponent;
    if (a.seed_given) g->seed = (uint64_t)a.seed;
    *out = a.out;
    *coordinates = a.coordinates;
    return ARGS_OK;
}

/* Write the node coordinates of a finite-element kind as a Matrix Market
 * array, one row per node, one column per direction. */
static kryl_status write_coordinates(const kryl_generator_options *g, const char *path)
{
    int64_t nodes = 0;
    int dim = 0;
    double *xyz = NULL, *columns = NULL;
    kryl_status st = kryl_generator_coordinates(g, &nodes, &dim, &xyz);
    if (st == KRYL_SUCCESS) {
        columns = malloc((size_t)(nodes > 0 ? nodes * dim : 1) * sizeof *columns);
        if (columns == NULL) st = KRYL_ERR_OUT_OF_MEMORY;
    }
    if (st == KRYL_SUCCESS) {
        /* columns[k + nodes d] = xyz[dim k + d]: node k's coordinate d, column by column */
        for (int64_t k = 0; k < nodes; k++)
            for (int d = 0; d < dim; d++) columns[k + nodes * d] = xyz[(int64_t)dim * k + d];
        st = kryl_write_mtx_array(path, nodes, dim, columns);
    }
    if (st == KRYL_SUCCESS)
        fprintf(stderr, "wrote %s: %" PRId64 " nodes x %d coordinates\n", path, nodes, dim);
    else
        cli_error(st);
    free(columns);
    free(xyz);
    return st;
}

/* Generate the matrix on the ref backend (host only) and write it. */
static kryl_status generate(const kryl_generator_options *g, const char *out)
{
    kryl_context ctx = NULL;
    kryl_matrix A = NULL;
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_REF;
    int64_t nrows = 0, ncols, nnz = 0, estimate;
    kryl_status st = kryl_generator_size(g, &nrows, &estimate);
    if (st == KRYL_SUCCESS) st = kryl_context_create(&ctx, &copt);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&A, ctx, g, 0, nrows);
    if (st == KRYL_SUCCESS) st = kryl_matrix_write_mtx(A, out);
    if (st == KRYL_SUCCESS) st = kryl_matrix_size(A, &nrows, &ncols, &nnz);
    if (st == KRYL_SUCCESS)
        fprintf(stderr, "wrote %s: %" PRId64 " rows, %" PRId64 " entries\n", out, nrows, nnz);
    else
        cli_error(st);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return st;
}

int cmd_gen(int argc, char **argv)
{
    kryl_generator_options g;
    const char *out = NULL, *coordinates = NULL;
    args_result r = parse(argc, argv, &g, &out, &coordinates);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    if (generate(&g, out) != KRYL_SUCCESS) return CLI_EXIT_ERROR;
    if (coordinates != NULL && write_coordinates(&g, coordinates) != KRYL_SUCCESS)
        return CLI_EXIT_ERROR;
    return CLI_EXIT_OK;
}
