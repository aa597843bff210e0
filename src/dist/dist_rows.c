/* Row ownership of a distributed matrix: the ranks' contiguous ranges,
 * checked to tile the global rows in rank order. */
#include <stdlib.h>

#include "dist/dist_internal.h"

kryl_status kryl_dist_rows_gather(struct kryl_dist_context *dc, int64_t row_begin, int64_t nrows,
                                  int64_t nrows_global, kryl_dist_rows **rows)
{
    *rows = NULL;
    kryl_dist_rows *r = calloc(1, sizeof *r);
    int64_t *pairs = malloc(2 * (size_t)dc->size * sizeof *pairs);
    if (r) r->begin = malloc(((size_t)dc->size + 1) * sizeof *r->begin);
    kryl_status st = r && pairs && r->begin
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the row ranges");
    int ok = st == KRYL_SUCCESS, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, dc->comm);
    if (all_ok) {
        int64_t mine[2] = {row_begin, nrows};
        MPI_Allgather(mine, 2, MPI_INT64_T, pairs, 2, MPI_INT64_T, dc->comm);
        /* rank p's rows must start where rank p-1's end */
        int64_t next = 0;
        for (int p = 0; p < dc->size && st == KRYL_SUCCESS; p++) {
            if (pairs[2 * p] != next || pairs[2 * p + 1] < 0)
                st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                "rank %d owns rows [%lld, %lld) but the ranks' rows must tile "
                                "[0, %lld) in rank order: it should start at row %lld",
                                p, (long long)pairs[2 * p],
                                (long long)(pairs[2 * p] + pairs[2 * p + 1]),
                                (long long)nrows_global, (long long)next);
            r->begin[p] = next;
            next += pairs[2 * p + 1];
        }
        r->begin[dc->size] = next;
        if (st == KRYL_SUCCESS && next != nrows_global)
            st =
                KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                           "the ranks own %lld rows of a %lld-row matrix: every row needs an owner",
                           (long long)next, (long long)nrows_global);
    } else if (st == KRYL_SUCCESS) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "another rank could not allocate its row ranges");
    }
    free(pairs);
    if (st != KRYL_SUCCESS) {
        if (r) free(r->begin);
        free(r);
        return st;
    }
    r->refs = 1;
    *rows = r;
    return KRYL_SUCCESS;
}

void kryl_dist_rows_release(kryl_dist_rows *rows)
{
    if (rows == NULL || --rows->refs > 0) return;
    free(rows->begin);
    free(rows->orig);
    free(rows);
}

int kryl_dist_owner(const int64_t *begin, int size, int64_t row)
{
    /* the last rank p with begin[p] <= row (ranks without rows are skipped) */
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (begin[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
