/* kryl solve's near-nullspace for AMG: --nullspace FILE or --coordinates FILE. */
#include "amg_nullspace.h"

#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"

/* The rigid-body modes of a coordinates file's nodes. */
static kryl_status rigid_body_modes(const char *path, int64_t n, double **B, int *k)
{
    int64_t rows = 0, cols = 0;
    double *xyz = NULL;
    kryl_status st = kryl_read_mtx_array(path, &rows, &cols, &xyz);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    int64_t nodes = n / 3;
    /* a row per node, or a row per unknown (each node's first unknown gives it) */
    int64_t stride = rows == n ? 3 : 1;
    if (cols != 3 || n % 3 != 0 || (rows != nodes && rows != n)) {
        free(xyz);
        cli_error_message("--coordinates %s: a %" PRId64 " x %" PRId64
                          " array; expected 3 columns (x, y, z) and %" PRId64
                          " rows (a node per row, 3 unknowns each) or %" PRId64
                          " (an unknown per row)",
                          path, rows, cols, nodes, n);
        return KRYL_ERR_DIMENSION_MISMATCH;
    }
    /* node by node, as kryl_amg_rigid_body_modes takes them */
    double *points = malloc((size_t)(3 * nodes + 1) * sizeof *points);
    *B = malloc((size_t)(6 * n + 1) * sizeof **B);
    st = points && *B ? KRYL_SUCCESS : KRYL_ERR_OUT_OF_MEMORY;
    if (st == KRYL_SUCCESS) {
        for (int64_t i = 0; i < nodes; i++)
            for (int d = 0; d < 3; d++) points[3 * i + d] = xyz[stride * i + rows * d];
        st = kryl_amg_rigid_body_modes(nodes, points, *B);
    }
    free(points);
    free(xyz);
    if (st != KRYL_SUCCESS) {
        free(*B);
        *B = NULL;
        if (st == KRYL_ERR_OUT_OF_MEMORY)
            cli_error_message("out of memory for the rigid-body modes of %" PRId64 " nodes", nodes);
        else
            cli_error(st);
        return st;
    }
    *k = 6;
    return KRYL_SUCCESS;
}

kryl_status cli_amg_nullspace(const char *nullspace, const char *coordinates, int64_t n, double **B,
                              int *k)
{
    *B = NULL;
    *k = 0;
    if (coordinates != NULL) return rigid_body_modes(coordinates, n, B, k);
    if (nullspace == NULL) return KRYL_SUCCESS;
    int64_t rows = 0, cols = 0;
    kryl_status st = kryl_read_mtx_array(nullspace, &rows, &cols, B);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    if (rows != n || cols < 1 || cols > KRYL_AMG_MAX_NULLSPACE) {
        free(*B);
        *B = NULL;
        cli_error_message("--nullspace %s: a %" PRId64 " x %" PRId64 " array; expected %" PRId64
                          " rows (the matrix's) and 1 to %d columns",
                          nullspace, rows, cols, n, KRYL_AMG_MAX_NULLSPACE);
        return KRYL_ERR_DIMENSION_MISMATCH;
    }
    *k = (int)cols;
    return KRYL_SUCCESS;
}
