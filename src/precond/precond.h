/* Preconditioners: z = M^{-1} r through backend operations only. */
#ifndef KRYL_PRECOND_PRECOND_H
#define KRYL_PRECOND_PRECOND_H

#include "backends/backend.h"

typedef struct kryl_precond kryl_precond;

struct kryl_precond {
    kryl_precond_kind kind;
    kryl_context ctx;
    /* Pointwise preconditioners (Jacobi) expose M^{-1} = diag(dinv) so a
     * solver can fuse the apply into its vector updates; NULL otherwise. */
    kryl_vector dinv;
    /* z = M^{-1} r */
    kryl_status (*apply)(kryl_precond *pc, kryl_vector r, kryl_vector z);
    void (*destroy)(kryl_precond *pc);
    /* Optional: recompute from the matrix's new values (same pattern),
     * keeping what depends on the pattern alone; NULL: built again. */
    kryl_status (*update)(kryl_precond *pc);
    /* update reads A's values from its backend storage alone, never the
     * host copy (IC(0) factored by the backend from A's stored CSR) */
    bool update_on_backend;
    void *data;
    /* One line on how it was built (the incomplete factorizations: each
     * triangle's levels and solve path); "" when its name says it all. */
    char info[160];
    /* Incomplete factorizations: ||A||_inf ||(L U)^{-1} e||_inf
     * (kryl_factor_condest); 0 for the others */
    double condest;
};

/* condest above which incomplete factors count as unstable (a log warning;
 * --method auto moves to its next candidate): between zenios's ILUTP,
 * 1.2e26, with which GMRES converges in 12 iterations, and fidap_ex6's
 * ILU(2), 2.5e37, with which it diverges (docs/SOLVERS.md). */
#define KRYL_ILU_CONDEST_MAX 1e30

/* Build the preconditioner of `kind` for A (in A's precision and layout);
 * opts (NULL: the defaults of kryl_solver_options_init) gives the lspoly
 * degree, the ILU(k)/ILUT parameters, the block Jacobi block count and the
 * multicolor SSOR sweeps and omega.  `source` is the double matrix A was
 * converted from, where A is such a copy (multigrid builds its finest
 * level from it where the two share a row order), else NULL.  *pc is NULL
 * for KRYL_PRECOND_NONE. */
kryl_status kryl_precond_create(kryl_precond **pc, kryl_precond_kind kind,
                                const kryl_solver_options *opts, kryl_matrix A, kryl_matrix source);

void kryl_precond_destroy(kryl_precond **pc);

/* Whether the preconditioner serves a CG method (cg, pcg, pipecg, and the
 * mixed schemes around them), which needs M symmetric positive definite. */
bool kryl_precond_for_cg(const kryl_solver_options *opts);

/* The refusal of the factorization `factor` of pc (ILU(0) or ILU(k)) whose
 * pivot u_ii at `row` is not positive under the CG method `method`. */
kryl_status kryl_precond_pivot_not_positive(const kryl_precond *pc, kryl_precond_kind factor,
                                            kryl_method method, int64_t row, double u);

/* Constructors of each kind (one file each). */
kryl_status kryl_precond_jacobi_create(kryl_precond *pc, kryl_matrix A);
kryl_status kryl_precond_lspoly_create(kryl_precond *pc, kryl_matrix A, int degree,
                                       double symmetry_tol);
/* IC(0), MIC(0), ILU(0), ILU(k), ILUT (pc->kind), applied by triangular solves. */
kryl_status kryl_precond_ilu_create(kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts);

/* Drops entries of B (the iteration matrix in its own row order, a private
 * copy) in place before it is factored. */
typedef struct kryl_precond_filter {
    kryl_status (*apply)(kryl_precond *pc, kryl_csr *B, const void *user);
    const void *user;
} kryl_precond_filter;

/* The factorization `factor` (IC0, MIC0, ILU0, ILUK or ILUT) of A, filtered
 * first when filter is not NULL, applied by triangular solves under the
 * name of pc->kind. */
kryl_status kryl_precond_factor_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts, kryl_precond_kind factor,
                                       const kryl_precond_filter *filter);

/* Block Jacobi: IC(0) or ILU(0) of the block diagonal of A (opts->blocks
 * blocks balanced by nonzeros: METIS parts or contiguous ranges, per
 * opts->partition). */
kryl_status kryl_precond_bjacobi_create(kryl_precond *pc, kryl_matrix A,
                                        const kryl_solver_options *opts);

struct kryl_factor;

/* A private symmetric reordering of the factored matrix, and optionally
 * another M = L U than a factorization of it. */
typedef struct kryl_precond_ordering {
    /* order[i] = row of A (natural numbering) at position i: B is A
     * reordered by it instead of the iteration order, and each apply
     * gathers r into that order and scatters z back (backend permute_copy) */
    const int32_t *order;
    /* NULL: the factorization `factor` of B; else M = L U built from the
     * filtered B by this (L unit lower, U with its diagonal first) */
    kryl_status (*build)(kryl_precond *pc, const kryl_csr *B, struct kryl_factor *F,
                         const void *user);
    const void *user;
} kryl_precond_ordering;

/* kryl_precond_factor_create of B in ordering->order (NULL: as
 * kryl_precond_factor_create). */
kryl_status kryl_precond_factor_create_ordered(kryl_precond *pc, kryl_matrix A,
                                               const kryl_solver_options *opts,
                                               kryl_precond_kind factor,
                                               const kryl_precond_filter *filter,
                                               const kryl_precond_ordering *ordering);

/* Factor again for the matrix's new values, keeping the order, the
 * filter and ordering given at creation (their user data must live as
 * long as pc) and the level schedules (the pattern is the same; ILUT's
 * are computed again).  pc->update of the factorization preconditioners. */
kryl_status kryl_precond_factor_update(kryl_precond *pc);

/* *out[i] = the iteration row (A's layout) holding row order[i] of A, in
 * backend memory (ilu.c). */
kryl_status kryl_precond_upload_order(kryl_context ctx, const kryl_layout *layout,
                                      const int32_t *order, int32_t **out);

/* Multicolor SSOR: opts->sweeps SSOR(opts->omega) sweeps in a
 * Jones-Plassmann color order (mcssor.c). */
kryl_status kryl_precond_mcssor_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts);

/* Multicolor ILU(0): ILU(0), or IC(0) for a symmetric A with a CG method,
 * of A in a Jones-Plassmann color order (mcilu0.c), sparsified beyond
 * KRYL_MCOLOR_FEW_COLORS colors (precond/mcolor.h). */
kryl_status kryl_precond_mcilu0_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts);
/* The same, where the backend factors in the color order itself keeping
 * colorings of up to backend_colors colors whole. */
kryl_status kryl_precond_mcilu0_create_keeping(kryl_precond *pc, kryl_matrix A,
                                               const kryl_solver_options *opts,
                                               int32_t backend_colors);

/* Algebraic multigrid, opts->amg (amg.c, src/amg/); source as for
 * kryl_precond_create. */
kryl_status kryl_precond_amg_create(kryl_precond *pc, kryl_matrix A, kryl_matrix source,
                                    const kryl_solver_options *opts);

/* The hierarchy of an AMG preconditioner. */
kryl_status kryl_precond_amg_info(const kryl_precond *pc, kryl_amg_info *info);

/* Whether the AMG options are valid for a matrix of n rows. */
kryl_status kryl_amg_options_check(const kryl_amg_options *o, int64_t n);

#endif
