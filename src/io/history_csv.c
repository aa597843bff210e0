/* The residual history as CSV, written whole or not at all. */
#include <inttypes.h>

#include "core/error.h"
#include "io/file_out.h"

kryl_status kryl_write_history_csv(const char *path, const double *history, int64_t length,
                                   double bnorm)
{
    KRYL_REQUIRE_ARG(path);
    if (length < 0 || (length > 0 && history == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: cannot write %" PRId64 " entries from %p",
                          path, length, (const void *)history);
    kryl_file_out f;
    KRYL_TRY(kryl_file_out_open(&f, path));
    kryl_file_out_printf(&f, "iteration,residual_norm,relative_residual\n");
    /* ||r_k|| and ||r_k|| / ||b|| (||r_k|| itself when b = 0) */
    for (int64_t k = 0; k < length && f.error == 0; k++)
        kryl_file_out_printf(&f, "%" PRId64 ",%.17g,%.17g\n", k, history[k],
                             bnorm > 0.0 ? history[k] / bnorm : history[k]);
    return kryl_file_out_commit(&f);
}
