/* Sparse triangular solves in host memory, shared by the ref and omp
 * backends: the factor's strict off-diagonal entries by row, its diagonal
 * apart, and its level schedule (Li & Saad 2013, section 4.1). */
#ifndef KRYL_REF_TRSV_H
#define KRYL_REF_TRSV_H

#include "backends/ref/ref_ops.h"

typedef struct kryl_host_trsv {
    int64_t n;
    kryl_precision precision;
    bool lower;
    int64_t *ptr;  /* n + 1: off-diagonal entries of row i at [ptr[i], ptr[i+1]) */
    int32_t *col;  /* column of each off-diagonal entry */
    void *val;     /* its value, float or double */
    void *diag;    /* n diagonal values (float or double); NULL: unit diagonal */
    int32_t *rows; /* level schedule: level l's rows at [level_ptr[l], level_ptr[l+1]) */
    int64_t *level_ptr;
    int64_t nlevels;
    bool parallel; /* omp: solve level by level (else serial substitution) */
} kryl_host_trsv;

/* New values of T (the pattern H was set up with) into H. */
kryl_status kryl_ref_trsv_refresh(kryl_host_trsv *H, const kryl_csr *T);

/* x = T^{-1} b by substitution row after row (b, x: n values of T's precision). */
void kryl_ref_trsv_serial(const kryl_host_trsv *T, const void *b, void *x);

/* Row i of the substitution, once the rows it depends on are solved. */
void kryl_ref_trsv_row_d(const kryl_host_trsv *T, const double *b, double *x, int64_t i);
void kryl_ref_trsv_row_s(const kryl_host_trsv *T, const float *b, float *x, int64_t i);

#endif
