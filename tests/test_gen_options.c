/* Generator names, default options, validation messages and sizes. */
#include <string.h>

#include "test_gen_support.h"

int main(void)
{
    static const char *names[] = {"poisson2d",  "poisson3d", "poisson3d27", "poisson3d125",
                                  "aniso2d",    "aniso3d",   "convdiff2d",  "convdiff3d",
                                  "random-spd", "powerlaw"};
    for (int k = 0; k < 10; k++) {
        kryl_generator_kind kind = KRYL_GEN_POWERLAW;
        CHECK_OK(kryl_generator_from_name(names[k], &kind));
        CHECK((int)kind == k, "%s -> %d", names[k], (int)kind);
        CHECK(strcmp(kryl_generator_name((kryl_generator_kind)k), names[k]) == 0, "name %d = %s", k,
              kryl_generator_name((kryl_generator_kind)k));
    }
    kryl_generator_kind kind;
    CHECK_STATUS(kryl_generator_from_name("poisson", &kind), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "'poisson'") && strstr(kryl_last_error(), "random-spd"),
          "message '%s' names neither the input nor the choices", kryl_last_error());
    CHECK_STATUS(kryl_generator_from_name(NULL, &kind), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_generator_from_name("powerlaw", NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(kryl_generator_name((kryl_generator_kind)42), "unknown") == 0, "name 42");

    /* defaults */
    kryl_generator_options o;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON3D27, 9);
    CHECK(o.kind == KRYL_GEN_POISSON3D27 && o.nx == 9 && o.ny == 9 && o.nz == 9, "3-D sizes");
    CHECK(o.epsilon == 1e-3 && o.peclet == 10.0 && o.row_length == 8 && o.exponent == 2.1 &&
              o.seed == 1,
          "default parameters");
    kryl_generator_options_init(&o, KRYL_GEN_CONVDIFF2D, 9);
    CHECK(o.nx == 9 && o.ny == 9 && o.nz == 1, "2-D sizes %lld %lld %lld", (long long)o.nx,
          (long long)o.ny, (long long)o.nz);
    kryl_generator_options_init(&o, KRYL_GEN_RANDOM_SPD, 9);
    CHECK(o.nx == 9 && o.ny == 1 && o.nz == 1, "random sizes");
    kryl_generator_options_init(NULL, KRYL_GEN_RANDOM_SPD, 9); /* no crash */

    /* 2-D kinds ignore nz, random kinds ny and nz */
    kryl_generator g;
    kryl_generator_options_init(&o, KRYL_GEN_ANISOTROPIC2D, 4);
    o.nz = 0;
    CHECK_OK(kryl_generator_init(&g, &o));
    CHECK(g.nrows == 16 && g.options.nz == 1, "aniso2d 4x4: %lld rows", (long long)g.nrows);
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, 50);
    o.ny = -3;
    CHECK_OK(kryl_generator_init(&g, &o));
    CHECK(g.nrows == 50, "powerlaw 50: %lld rows", (long long)g.nrows);

    /* bad options, each named */
    for (int k = 0; k < 10; k++) {
        kryl_generator_options_init(&o, (kryl_generator_kind)k, 0);
        check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "nx");
    }
    kryl_generator_options_init(&o, KRYL_GEN_POISSON3D7, 5);
    o.ny = -1;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "ny");
    o.ny = 5;
    o.nz = 0;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "nz");
    kryl_generator_options_init(&o, KRYL_GEN_POISSON3D7, INT64_C(1) << 22); /* 2^66 rows */
    check_rejected(&o, KRYL_ERR_INDEX_OVERFLOW, "nx*ny*nz");
    kryl_generator_options_init(&o, KRYL_GEN_POISSON3D125, 1 << 20); /* 2^60 rows x 125 */
    check_rejected(&o, KRYL_ERR_INDEX_OVERFLOW, "entries");
    kryl_generator_options_init(&o, KRYL_GEN_ANISOTROPIC3D, 5);
    o.epsilon = 0.0;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "epsilon");
    o.epsilon = NAN;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "epsilon");
    kryl_generator_options_init(&o, KRYL_GEN_CONVDIFF3D, 5);
    o.peclet = -1.0;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "peclet");
    o.peclet = INFINITY;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "peclet");
    kryl_generator_options_init(&o, KRYL_GEN_RANDOM_SPD, 5);
    o.row_length = 0;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "row_length");
    kryl_generator_options_init(&o, KRYL_GEN_RANDOM_SPD, INT64_MAX);
    o.row_length = INT64_MAX;
    check_rejected(&o, KRYL_ERR_INDEX_OVERFLOW, "overflows");
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, 5);
    o.row_length = -2;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "row_length");
    o.row_length = 8;
    o.exponent = 1.0;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "exponent");
    o.exponent = NAN;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "exponent");
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, (INT64_C(1) << 53) + 1);
    check_rejected(&o, KRYL_ERR_INDEX_OVERFLOW, "2^53");
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 5);
    o.kind = (kryl_generator_kind)42;
    check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "kind");
    /* options that a kind does not use are not checked */
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 5);
    o.epsilon = -1.0;
    o.peclet = NAN;
    o.row_length = 0;
    o.exponent = 0.0;
    CHECK_OK(kryl_generator_init(&g, &o));

    /* NULL arguments */
    int64_t nrows = 0, nnz = 0;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 5);
    CHECK_STATUS(kryl_generator_init(NULL, &o), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_generator_init(&g, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_generator_size(NULL, &nrows, &nnz), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_generator_size(&o, NULL, &nnz), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_generator_size(&o, &nrows, NULL), KRYL_ERR_INVALID_ARGUMENT);

    /* sizes of the random kinds: the estimate of the defaults is n*row_length */
    kryl_generator_options_init(&o, KRYL_GEN_RANDOM_SPD, 100000);
    CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
    CHECK(nrows == 100000 && fabs((double)nnz - 8e5) < 0.001 * 8e5, "random-spd: %lld, %lld",
          (long long)nrows, (long long)nnz);
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, 100000);
    CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
    CHECK(nrows == 100000 && fabs((double)nnz - 8e5) < 0.01 * 8e5, "powerlaw: %lld, %lld",
          (long long)nrows, (long long)nnz);
    kryl_generator_options_init(&o, KRYL_GEN_POWERLAW, 1000000000);
    CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
    CHECK(fabs((double)nnz - 8e9) < 0.01 * 8e9, "powerlaw 1e9 rows: %lld", (long long)nnz);
    return test_summary("test_gen_options");
}
