/* Assembly: collect entries in any order, duplicates summed, then build a matrix. */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "core/objects.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

struct kryl_assembly_s {
    kryl_context ctx;
    int64_t nrows, ncols, row_begin, row_end;
    int64_t add_begin, add_end; /* rows entries may name: all of them over several ranks */
    kryl_coo entries;
};

kryl_status kryl_assembly_create(kryl_assembly *assembly, kryl_context ctx, int64_t nrows,
                                 int64_t ncols, int64_t row_begin, int64_t row_end)
{
    KRYL_REQUIRE_ARG(assembly);
    *assembly = NULL;
    KRYL_REQUIRE_ARG(ctx);
    if (nrows < 0 || ncols < 0 || row_begin < 0 || row_end < row_begin || row_end > nrows)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "assembly of a %lld x %lld matrix with owned rows [%lld, %lld) is "
                          "not a valid shape",
                          (long long)nrows, (long long)ncols, (long long)row_begin,
                          (long long)row_end);
    struct kryl_assembly_s *a = calloc(1, sizeof *a);
    if (a == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate an assembly");
    a->ctx = ctx;
    a->nrows = nrows;
    a->ncols = ncols;
    a->row_begin = row_begin;
    a->row_end = row_end;
    a->add_begin = row_begin;
    a->add_end = row_end;
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) {
        /* entries of other ranks' rows are sent to them by kryl_assembly_finish */
        a->add_begin = 0;
        a->add_end = nrows;
    }
#endif
    a->entries.nrows = nrows;
    a->entries.ncols = ncols;
    *assembly = a;
    return KRYL_SUCCESS;
}

static kryl_status check_entry(const struct kryl_assembly_s *a, int64_t row, int64_t col,
                               double value)
{
    if (row < a->add_begin || row >= a->add_end || col < 0 || col >= a->ncols)
        return KRYL_ERROR(KRYL_ERR_INDEX_OUT_OF_RANGE,
                          "assembly: entry (%lld, %lld) is outside rows [%lld, %lld) and "
                          "columns [0, %lld)",
                          (long long)row, (long long)col, (long long)a->add_begin,
                          (long long)a->add_end, (long long)a->ncols);
    if (value - value != 0.0)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "assembly: entry (%lld, %lld) is %g",
                          (long long)row, (long long)col, value);
    return KRYL_SUCCESS;
}

kryl_status kryl_assembly_add(kryl_assembly assembly, int64_t count, const int64_t *rows,
                              const int64_t *cols, const double *values)
{
    KRYL_REQUIRE_ARG(assembly);
    if (count < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "assembly: count %lld is negative",
                          (long long)count);
    if (count == 0) return KRYL_SUCCESS;
    KRYL_REQUIRE_ARG(rows);
    KRYL_REQUIRE_ARG(cols);
    KRYL_REQUIRE_ARG(values);
    for (int64_t k = 0; k < count; k++)
        KRYL_TRY(check_entry(assembly, rows[k], cols[k], values[k]));
    kryl_coo *e = &assembly->entries;
    int64_t need = e->count + count;
    if (need > e->capacity)
        KRYL_TRY(kryl_coo_reserve(e, need > 2 * e->capacity ? need : 2 * e->capacity));
    memcpy(e->rows + e->count, rows, (size_t)count * sizeof *rows);
    memcpy(e->cols + e->count, cols, (size_t)count * sizeof *cols);
    memcpy(e->values + e->count, values, (size_t)count * sizeof *values);
    e->count = need;
    return KRYL_SUCCESS;
}

kryl_status kryl_assembly_add_value(kryl_assembly assembly, int64_t row, int64_t col, double value)
{
    return kryl_assembly_add(assembly, 1, &row, &col, &value);
}

kryl_status kryl_assembly_finish(kryl_assembly assembly, kryl_matrix *A)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(assembly);
    kryl_csr csr;
    const kryl_coo *entries = &assembly->entries;
#ifdef KRYL_HAVE_MPI
    kryl_coo routed;
    if (kryl_dist_active(assembly->ctx)) {
        /* every entry to the rank owning its row (collective) */
        KRYL_TRY(kryl_dist_route_entries(assembly->ctx, entries, assembly->row_begin,
                                         assembly->row_end, &routed));
        entries = &routed;
    }
#endif
    kryl_status st = kryl_csr_from_coo_on(&csr, entries, assembly->nrows, assembly->row_begin,
                                          assembly->row_end, kryl_host_threads(assembly->ctx));
    if (entries != &assembly->entries) kryl_coo_free((kryl_coo *)entries);
    KRYL_TRY(kryl_context_agree(assembly->ctx, st));
    return kryl_matrix_from_caller_csr(A, assembly->ctx, &csr);
}

kryl_status kryl_assembly_destroy(kryl_assembly *assembly)
{
    if (assembly == NULL || *assembly == NULL) return KRYL_SUCCESS;
    kryl_coo_free(&(*assembly)->entries);
    free(*assembly);
    *assembly = NULL;
    return KRYL_SUCCESS;
}
