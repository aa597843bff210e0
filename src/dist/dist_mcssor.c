/* The multicolor SSOR(k) preconditioner of mcssor.c on a matrix
 * distributed over ranks.  It lives in src/dist, not src/precond, because
 * it is made of the halo: between colors its sweeps exchange z's halo
 * through the SpMV's own exchange (kryl_dist_halo_begin/end: every
 * transport and overlap mode), which only MPI builds have.
 *
 * M is that of mcssor.c: with A = D + L + U in a color order, one
 * symmetric sweep from z = 0 is z = M^{-1} r with
 *   M = (omega / (2 - omega)) (D/omega + L) D^{-1} (D/omega + U),
 * and k sweeps are k SSOR steps z += M^{-1} (r - A z) from z = 0 (Saad,
 * Iterative Methods for Sparse Linear Systems, 2nd ed., SIAM 2003,
 * sections 4.1.1 and 12.4; Li & Saad, J. Supercomputing 63 (2013),
 * section 5.3).  The colors are a proper coloring of the global graph
 * (dist_color.c): rows of one color are never coupled, on one rank or
 * across ranks, so a Gauss-Seidel pass over one color is a Jacobi step
 * over its rows.  The forward sweep visits colors 0..C-1, the backward
 * sweep C-1..0, and color c's rows become
 *   z_c += omega D_c^{-1} (r_c - A_c z),
 * A_c being those rows against every column, owned and ghost.  The whole
 * graph is colored (no sparsification as on one rank: a coupling left out
 * of M would have to be left out alike by both of its ranks).
 *
 * Layout: z and the work vectors live in a private color order (each
 * color's rows contiguous, those coupled to other ranks first); one
 * product s = omega D^{-1} r gathers r into it and a permuted copy
 * scatters z back.  Each color c has two CSR matrices built once,
 * B_c = omega D_c^{-1} A_c over the owned columns (in the color order)
 * and over the ghosts (its boundary rows only), and its update is three
 * backend operations:
 *   t = s_c - B_c,loc z;  t -= B_c,nl ghosts;  z_c += t.
 * z's halo is exchanged before color c only when a row of color c, on
 * some rank, reads a ghost whose color was updated since the last
 * exchange: a schedule fixed at setup, alike on every rank, from a global
 * table of which colors' rows read ghosts of which colors.  The ghosts
 * start at 0 with z, so the first color of the first sweep exchanges
 * nothing, and with two colors (a 5-point stencil) one exchange per color
 * step remains.  An exchange overlaps the color's local product in naive
 * and task modes, as in the SpMV. */
#include <stdio.h>
#include <stdlib.h>

#include "dist/dist_internal.h"
#include "precond/mcolor.h"

typedef struct dist_mcssor {
    struct kryl_dist_context *dc;
    int32_t ncolors;
    int sweeps;
    int64_t *start;                /* ncolors + 1: color c's rows at [start[c], start[c+1]) */
    int64_t *bound;                /* how many of them (the first) couple to ghosts */
    kryl_matrix *loc, *nl;         /* per color: B_c over owned columns, over ghosts (or NULL) */
    kryl_matrix scale;             /* s = omega D^{-1} r into the color order (NULL: no rows) */
    int32_t *order;                /* backend: position in A's layout of color-ordered row k */
    struct kryl_dist_matrix *halo; /* z's halo exchange, z in the color order */
    kryl_vector s, z, t;           /* color order */
    bool *exchange;                /* per sweep step: exchange z's halo first */
} dist_mcssor;

/* The color of sweep step `step`: forward 0..C-1, then backward C-1..0. */
static int32_t step_color(int64_t step, int32_t ncolors)
{
    int64_t p = step % (2 * (int64_t)ncolors);
    return (int32_t)(p < ncolors ? p : 2 * (int64_t)ncolors - 1 - p);
}

/* Entries [begin, begin + n) of v as a vector (v of no entries has no data). */
static struct kryl_vector_s slice(kryl_vector v, int64_t begin, int64_t n)
{
    struct kryl_vector_s s = *v;
    s.n = n;
    if (v->data) s.data = (char *)v->data + (size_t)begin * kryl_precision_size(v->precision);
    return s;
}

/* One color's rows relaxed (sweep step `step`). */
static kryl_status relax(kryl_context ctx, dist_mcssor *m, int64_t step)
{
    kryl_context in = &m->dc->inner;
    const kryl_backend_ops *ops = m->dc->inner_ops;
    int32_t c = step_color(step, m->ncolors);
    int64_t begin = m->start[c], rows = m->start[c + 1] - begin;
    struct kryl_vector_s s = slice(m->s, begin, rows), t = slice(m->t, begin, rows),
                         z = slice(m->z, begin, rows), tb = slice(m->t, begin, m->bound[c]);
    kryl_overlap mode = KRYL_OVERLAP_VECTOR;
    if (m->exchange[step]) KRYL_TRY(kryl_dist_halo_begin(ctx, m->halo, m->z, &mode));
    /* t = s_c - B_c,loc z */
    if (rows > 0) KRYL_TRY(ops->spmv(in, m->loc[c], -1.0, m->z, 1.0, &s, &t, NULL));
    if (m->exchange[step]) KRYL_TRY(kryl_dist_halo_end(ctx, m->halo, mode));
    /* t -= B_c,nl ghosts over the color's boundary rows */
    if (m->bound[c] > 0)
        KRYL_TRY(ops->spmv(in, m->nl[c], -1.0, m->halo->ghost, 1.0, &tb, &tb, NULL));
    /* z_c += t */
    if (rows > 0) KRYL_TRY(ops->axpby(in, 1.0, &t, 1.0, &z));
    return KRYL_SUCCESS;
}

static kryl_status dist_mcssor_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    dist_mcssor *m = pc->data;
    kryl_context in = &m->dc->inner;
    const kryl_backend_ops *ops = m->dc->inner_ops;
    /* s = omega D^{-1} r in the color order */
    if (m->scale) KRYL_TRY(ops->spmv(in, m->scale, 1.0, r, 0.0, NULL, m->s, NULL));
    /* z = 0, and so its ghosts */
    KRYL_TRY(ops->fill(in, m->z, 0.0));
    KRYL_TRY(ops->fill(in, m->halo->ghost, 0.0));
    for (int64_t step = 0; step < 2 * (int64_t)m->ncolors * m->sweeps; step++)
        KRYL_TRY(relax(pc->ctx, m, step));
    /* z = the color order scattered back to A's */
    return ops->permute_copy(in, z, m->z, m->order, KRYL_SCATTER, NULL);
}

static void dist_mcssor_destroy(kryl_precond *pc)
{
    dist_mcssor *m = pc->data;
    if (m == NULL) return;
    for (int32_t c = 0; c < m->ncolors && m->loc; c++) {
        kryl_matrix_destroy(&m->loc[c]);
        kryl_matrix_destroy(&m->nl[c]);
    }
    kryl_matrix_destroy(&m->scale);
    if (m->order) m->dc->inner_ops->release(&m->dc->inner, m->order);
    kryl_dist_parts_free(m->dc, m->halo);
    kryl_vector_destroy(&m->s);
    kryl_vector_destroy(&m->z);
    kryl_vector_destroy(&m->t);
    free(m->start);
    free(m->bound);
    free(m->loc);
    free(m->nl);
    free(m->exchange);
    free(m);
    pc->data = NULL;
}

/* A zero or missing diagonal entry on any rank is refused on every rank,
 * naming the first such global row (collective). */
static kryl_status check_diagonal(kryl_precond *pc, struct kryl_dist_context *dc, const kryl_csr *A)
{
    int64_t mine = INT64_MAX, first = INT64_MAX;
    for (int64_t i = 0; i < A->nrows && mine == INT64_MAX; i++) {
        int64_t k = kryl_csr_find(A, i, A->row_begin + i);
        if (k < 0 || A->values[k] == 0.0) mine = A->row_begin + i;
    }
    KRYL_TRY(kryl_mpi_status(MPI_Allreduce(&mine, &first, 1, MPI_INT64_T, MPI_MIN, dc->comm),
                             "the check of the diagonal"));
    return first == INT64_MAX ? KRYL_SUCCESS : kryl_mcolor_zero_diagonal(pc, first);
}

/* What the setup works with on the host. */
typedef struct setup {
    const kryl_csr *A;  /* owned rows, natural order, global columns */
    const kryl_csr *nl; /* the ghost columns of row lpos[i] (A's non-local part) */
    const int32_t *color;
    int32_t *lpos;   /* natural row -> position in A's layout */
    int32_t *cpos;   /* natural row -> position in the color order */
    int32_t *nat;    /* position in the color order -> natural row */
    int32_t *gcolor; /* colors of the ghosts */
    double *diag;
} setup;

/* Ghost couplings of natural row i: entries [*b, *e) of u->nl. */
static void ghost_range(const setup *u, int64_t i, int64_t *b, int64_t *e)
{
    *b = u->nl->row_ptr[u->lpos[i]];
    *e = u->nl->row_ptr[u->lpos[i] + 1];
}

/* The color order: by color, and within a color the rows coupled to
 * ghosts first, each group in natural order; start and bound per color. */
static void color_order(dist_mcssor *m, setup *u)
{
    int64_t n = u->A->nrows;
    int64_t *at = m->bound; /* bound doubles as the insertion points, then is set */
    for (int32_t c = 0; c <= m->ncolors; c++) m->start[c] = 0;
    for (int64_t i = 0; i < n; i++) m->start[u->color[i] + 1]++;
    for (int32_t c = 0; c < m->ncolors; c++) m->start[c + 1] += m->start[c];
    for (int32_t c = 0; c < m->ncolors; c++) at[c] = m->start[c];
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < n; i++) {
            int64_t b, e;
            ghost_range(u, i, &b, &e);
            if ((e > b) != (pass == 0)) continue;
            /* row i at the next place of its color (boundary rows in pass 0) */
            int64_t k = at[u->color[i]]++;
            u->nat[k] = (int32_t)i;
            u->cpos[i] = (int32_t)k;
        }
    for (int32_t c = 0; c < m->ncolors; c++) {
        /* bound = the leading rows of color c with ghost couplings */
        int64_t k = m->start[c];
        for (; k < m->start[c + 1]; k++) {
            int64_t b, e;
            ghost_range(u, u->nat[k], &b, &e);
            if (e == b) break;
        }
        m->bound[c] = k - m->start[c];
    }
}

/* exchange[step] for every sweep step: before color c when a row of color
 * c (some rank's) reads a ghost of a color updated since the last exchange
 * (reads[c C + d]: color c's rows read ghosts of color d).  Returns the
 * number of exchanges. */
static int64_t make_schedule(dist_mcssor *m, const int *reads, bool *dirty)
{
    int32_t nc = m->ncolors;
    int64_t steps = 2 * (int64_t)nc * m->sweeps, count = 0;
    for (int32_t d = 0; d < nc; d++) dirty[d] = false; /* z = 0 and its ghosts agree */
    for (int64_t step = 0; step < steps; step++) {
        int32_t c = step_color(step, nc);
        bool need = false;
        for (int32_t d = 0; d < nc && !need; d++) need = dirty[d] && reads[(int64_t)c * nc + d];
        m->exchange[step] = need;
        count += need;
        for (int32_t d = 0; need && d < nc; d++) dirty[d] = false;
        dirty[c] = true;
    }
    return count;
}

/* The exchange schedule from the ghost colors of every rank (collective). */
static kryl_status schedule(dist_mcssor *m, const setup *u, int64_t *exchanges)
{
    int32_t nc = m->ncolors;
    size_t cells = (size_t)nc * (size_t)nc;
    int *mine = calloc(cells > 0 ? cells : 1, sizeof *mine);
    int *reads = calloc(cells > 0 ? cells : 1, sizeof *reads);
    bool *dirty = malloc((size_t)(nc > 0 ? nc : 1) * sizeof *dirty);
    m->exchange = malloc((size_t)(2 * (int64_t)nc * m->sweeps + 1) * sizeof *m->exchange);
    kryl_status st = mine && reads && dirty && m->exchange
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                      "mcssor: cannot allocate the schedule of %d colors", nc);
    st = kryl_dist_agree_comm(m->dc->comm, st);
    for (int64_t i = 0; st == KRYL_SUCCESS && i < u->A->nrows; i++) {
        int64_t b, e;
        ghost_range(u, i, &b, &e);
        /* mine[color_i, color_g] = 1 for each ghost g row i reads */
        for (int64_t k = b; k < e; k++)
            mine[(int64_t)u->color[i] * nc + u->gcolor[u->nl->col_idx[k]]] = 1;
    }
    if (st == KRYL_SUCCESS)
        st = kryl_mpi_status(MPI_Allreduce(mine, reads, (int)cells, MPI_INT, MPI_LOR, m->dc->comm),
                             "the exchange schedule's reduction");
    if (st == KRYL_SUCCESS) *exchanges = make_schedule(m, reads, dirty);
    free(mine);
    free(reads);
    free(dirty);
    return st;
}

/* A CSR matrix of the inner context in `precision` (takes csr's arrays). */
static kryl_status part_matrix(struct kryl_dist_context *dc, kryl_csr *csr,
                               kryl_precision precision, kryl_matrix *out)
{
    kryl_matrix whole = NULL;
    KRYL_TRY(kryl_matrix_from_csr(&whole, &dc->inner, csr));
    if (precision == KRYL_DOUBLE) {
        *out = whole;
        return KRYL_SUCCESS;
    }
    kryl_status st =
        kryl_matrix_convert(out, whole, precision, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE);
    kryl_matrix_destroy(&whole);
    return st;
}

/* B_c = omega D_c^{-1} A_c over the owned columns (color order) and over
 * the ghosts (the color's first bound[c] rows). */
static kryl_status color_matrices(dist_mcssor *m, const setup *u, int32_t c, double omega,
                                  kryl_precision precision)
{
    const kryl_csr *A = u->A;
    int64_t lo = A->row_begin, hi = lo + A->nrows, first = m->start[c];
    int64_t rows = m->start[c + 1] - first, nnz_loc = 0, nnz_nl = 0;
    if (rows == 0) return KRYL_SUCCESS;
    for (int64_t k = first; k < first + rows; k++) {
        int64_t i = u->nat[k], b, e;
        ghost_range(u, i, &b, &e);
        nnz_nl += e - b;
        nnz_loc += A->row_ptr[i + 1] - A->row_ptr[i] - (e - b);
    }
    kryl_csr L = {0}, G = {0};
    KRYL_TRY(kryl_csr_alloc(&L, rows, A->nrows, nnz_loc));
    kryl_status st = kryl_csr_alloc(&G, m->bound[c], u->nl->ncols, nnz_nl);
    for (int64_t r = 0; st == KRYL_SUCCESS && r < rows; r++) {
        int64_t i = u->nat[first + r], b, e, a = L.row_ptr[r];
        double w = omega / u->diag[i];
        /* row r of L: omega a_ij / a_ii at the color position of owned j */
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            if (A->col_idx[k] < lo || A->col_idx[k] >= hi) continue;
            L.col_idx[a] = u->cpos[A->col_idx[k] - lo];
            L.values[a++] = w * A->values[k];
        }
        L.row_ptr[r + 1] = a;
        ghost_range(u, i, &b, &e);
        if (r >= m->bound[c]) continue;
        /* row r of G: omega a_ij / a_ii at ghost j */
        for (int64_t k = b; k < e; k++) {
            G.col_idx[G.row_ptr[r] + k - b] = u->nl->col_idx[k];
            G.values[G.row_ptr[r] + k - b] = w * u->nl->values[k];
        }
        G.row_ptr[r + 1] = G.row_ptr[r] + e - b;
    }
    if (st == KRYL_SUCCESS) st = kryl_csr_sort_and_sum(&L);
    if (st == KRYL_SUCCESS) {
        st = part_matrix(m->dc, &L, precision, &m->loc[c]);
        if (st == KRYL_SUCCESS && m->bound[c] > 0)
            return part_matrix(m->dc, &G, precision, &m->nl[c]);
    }
    kryl_csr_free(&L);
    kryl_csr_free(&G);
    return st;
}

/* The scaling s = omega D^{-1} r into the color order, and the scatter
 * positions of z back into A's layout. */
static kryl_status gather_scatter(dist_mcssor *m, const setup *u, double omega,
                                  kryl_precision precision)
{
    int64_t n = u->A->nrows;
    if (n == 0) return KRYL_SUCCESS;
    kryl_csr S = {0};
    KRYL_TRY(kryl_csr_alloc(&S, n, n, n));
    for (int64_t k = 0; k < n; k++) {
        /* s_k = omega / a_ii r_i, i the natural row at position k; order[k] = its place in A */
        S.row_ptr[k + 1] = k + 1;
        S.col_idx[k] = u->lpos[u->nat[k]];
        S.values[k] = omega / u->diag[u->nat[k]];
    }
    size_t bytes = (size_t)n * sizeof *m->order;
    kryl_context in = &m->dc->inner;
    kryl_status st = m->dc->inner_ops->alloc(in, (void **)&m->order, bytes);
    if (st == KRYL_SUCCESS) st = m->dc->inner_ops->upload(in, m->order, S.col_idx, bytes);
    if (st == KRYL_SUCCESS) return part_matrix(m->dc, &S, precision, &m->scale);
    kryl_csr_free(&S);
    return st;
}

/* The line KRYL_LOG=info shows: colors, this rank's rows per color, exchanges. */
static void log_colors(kryl_precond *pc, const dist_mcssor *m, const kryl_dist_coloring *col,
                       double omega, int64_t exchanges)
{
    char list[256] = "";
    size_t used = 0;
    int32_t c = 0;
    /* each count takes at most 21 characters, " ..." 5 */
    for (; c < m->ncolors && used + 27 < sizeof list; c++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%lld", c ? " " : "",
                                 (long long)(m->start[c + 1] - m->start[c]));
    if (c < m->ncolors) snprintf(list + used, sizeof list - used, " ...");
    kryl_log(pc->ctx, KRYL_LOG_INFO,
             "mcssor: distributed coloring: %d colors after %d round(s); rank %d: %lld rows, "
             "per color %s; %d sweep(s) of SSOR(omega = %g), %lld halo exchanges per apply",
             (int)m->ncolors, col->rounds, m->dc->rank, (long long)m->start[m->ncolors], list,
             m->sweeps, omega, (long long)exchanges);
}

/* Everything but the coloring (collective). */
static kryl_status build(kryl_precond *pc, dist_mcssor *m, kryl_matrix A, double omega,
                         const kryl_dist_coloring *col)
{
    struct kryl_dist_context *dc = m->dc;
    setup u = {&A->host->csr, &A->dist->nl->host->csr, col->color, NULL, NULL, NULL, NULL, NULL};
    int64_t n = u.A->nrows, g = A->dist->halo->nghost, exchanges = 0;
    size_t rows = (size_t)(n > 0 ? n : 1), colors = (size_t)m->ncolors + 1;
    u.lpos = malloc(rows * sizeof *u.lpos);
    u.cpos = malloc(rows * sizeof *u.cpos);
    u.nat = malloc(rows * sizeof *u.nat);
    u.gcolor = malloc((size_t)(g > 0 ? g : 1) * sizeof *u.gcolor);
    u.diag = malloc(rows * sizeof *u.diag);
    m->start = malloc(colors * sizeof *m->start);
    m->bound = malloc(colors * sizeof *m->bound);
    m->loc = calloc(colors, sizeof *m->loc);
    m->nl = calloc(colors, sizeof *m->nl);
    kryl_status st =
        u.lpos && u.cpos && u.nat && u.gcolor && u.diag && m->start && m->bound && m->loc && m->nl
            ? KRYL_SUCCESS
            : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcssor: cannot allocate the order of %lld rows",
                         (long long)n);
    st = kryl_dist_agree_comm(dc->comm, st);
    /* gcolor = the colors of A's ghosts, from their owners */
    if (st == KRYL_SUCCESS) st = kryl_halo_exchange_int32(dc, A->dist->halo, u.color, u.gcolor);
    if (st == KRYL_SUCCESS) {
        const int32_t *perm = A->layout->perm;
        /* lpos[perm[k]] = k: where natural row perm[k] sits in A's layout */
        for (int64_t k = 0; k < n; k++) u.lpos[perm ? perm[k] : k] = (int32_t)k;
        kryl_csr_diagonal(u.A, u.diag);
        color_order(m, &u);
        st = schedule(m, &u, &exchanges);
    }
    /* the rest is this rank's own */
    for (int32_t c = 0; st == KRYL_SUCCESS && c < m->ncolors; c++)
        st = color_matrices(m, &u, c, omega, A->precision);
    if (st == KRYL_SUCCESS) st = gather_scatter(m, &u, omega, A->precision);
    if (st == KRYL_SUCCESS) {
        m->halo = calloc(1, sizeof *m->halo);
        if (m->halo == NULL) st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcssor: out of memory");
    }
    if (st == KRYL_SUCCESS) {
        /* z's halo: A's, with z's send entries at their color positions */
        m->halo->halo = A->dist->halo;
        m->halo->halo->refs++;
        st = kryl_dist_exchange_buffers(dc, m->halo, A->precision, u.cpos);
    }
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&m->s, pc->ctx, A->layout, A->precision);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&m->z, pc->ctx, A->layout, A->precision);
    if (st == KRYL_SUCCESS) st = kryl_vector_create_like(&m->t, pc->ctx, A->layout, A->precision);
    if (st == KRYL_SUCCESS) log_colors(pc, m, col, omega, exchanges);
    free(u.lpos);
    free(u.cpos);
    free(u.nat);
    free(u.gcolor);
    free(u.diag);
    return st;
}

kryl_status kryl_dist_mcssor_create(kryl_precond *pc, kryl_matrix A,
                                    const kryl_solver_options *opts)
{
    struct kryl_dist_context *dc = A->ctx->dist;
    KRYL_TRY(check_diagonal(pc, dc, &A->host->csr));
    dist_mcssor *m = calloc(1, sizeof *m);
    kryl_status st = m ? KRYL_SUCCESS : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcssor: out of memory");
    KRYL_TRY(kryl_dist_agree_comm(dc->comm, st));
    pc->data = m;
    pc->apply = dist_mcssor_apply;
    pc->destroy = dist_mcssor_destroy;
    m->dc = dc;
    m->sweeps = opts->sweeps;
    kryl_dist_coloring col;
    KRYL_TRY(kryl_dist_color(dc, &A->host->csr, A->dist->rows->begin, &col));
    m->ncolors = col.ncolors;
    st = build(pc, m, A, opts->omega, &col);
    kryl_dist_coloring_free(&col);
    return st;
}
