/* Pieces shared by the factorizations: argument checks, splitting a
 * combined L+U row set into the result, fill counting. */
#ifndef KRYL_FACTOR_INTERNAL_H
#define KRYL_FACTOR_INTERNAL_H

#include "factor/factor.h"

/* A is a whole square matrix with consistent arrays; `who` names the caller. */
kryl_status kryl_factor_check_input(const kryl_csr *A, const char *who);

/* Fill F from the combined factor C (rows sorted, each row holding its
 * diagonal): L = strict lower part (unit_lower) and U = upper part. */
kryl_status kryl_factor_split_lu(const kryl_csr *C, const kryl_csr *A, kryl_factor *F);

/* The refusal of a row with no diagonal entry in the factor's pattern:
 * KRYL_ERR_NOT_POSITIVE_DEFINITE for the IC kinds, KRYL_ERR_ZERO_DIAGONAL
 * for ILU. */
kryl_status kryl_factor_no_diagonal_error(kryl_factor_kind kind, const char *who, int64_t row);

/* The refusal of a pivot met at `row` (kryl_factor_pivot_what says which). */
kryl_status kryl_factor_pivot_error(kryl_factor_kind kind, const char *who, int what, int64_t row,
                                    double value);

/* Fill F from the IC factor L (diagonal last in each row): U = L^T. */
kryl_status kryl_factor_from_cholesky(kryl_csr *L, const kryl_csr *A, kryl_factor *F);

#endif
