/* kryl_solver_iteration_bound: the bytes one iteration must move, from the
 * shape of the matrix's storage and the vector passes the method counts
 * (iteration_vectors), against the device model's bandwidth. */
#include <string.h>

#include "solvers/auto_choice.h"
#include "solvers/solver_impl.h"

kryl_status kryl_solver_iteration_bound(kryl_solver solver, kryl_iteration_bound *bound)
{
    KRYL_REQUIRE_ARG(bound);
    memset(bound, 0, sizeof *bound);
    KRYL_REQUIRE_ARG(solver);
    kryl_solver s = kryl_auto_chosen(solver);
    const kryl_matrix A = s->Aw;
    if (s->iteration_vectors == 0 || A->precision != KRYL_DOUBLE || A->dist != NULL ||
        s->ctx->dist != NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_solver_iteration_bound: counted for cg and pcg with jacobi in "
                          "double precision on one process, not %s%s in %s",
                          kryl_method_name(s->options.method),
                          s->pc ? " with this preconditioner" : "",
                          kryl_precision_name(A->precision));
    kryl_device_model dev;
    KRYL_TRY(kryl_context_device_model(s->ctx, &dev));
    const double n = (double)A->fmt.nrows;
    /* the format's arrays + x once + y once;  the method's vectors */
    bound->spmv_bytes = (double)kryl_fmt_read_bytes(&A->fmt) + 8.0 * (double)A->fmt.ncols + 8.0 * n;
    bound->vector_bytes = 8.0 * n * (double)s->iteration_vectors;
    bound->bytes = bound->spmv_bytes + bound->vector_bytes;
    bound->bandwidth = dev.bandwidth;
    bound->seconds = bound->bytes / dev.bandwidth;
    return KRYL_SUCCESS;
}
