/* The undirected graph the orderings work on: the symmetrised pattern of a
 * square CSR matrix without its diagonal, optionally sparsified. */
#ifndef KRYL_ORDER_GRAPH_H
#define KRYL_ORDER_GRAPH_H

#include "order/order.h"

/* Vertex v's neighbours are adj[ptr[v] .. ptr[v + 1]), ascending, unique. */
typedef struct order_graph {
    int64_t n;
    int64_t *ptr; /* n + 1 */
    int32_t *adj; /* ptr[n] */
} order_graph;

/* KRYL_SUCCESS when A is a whole square matrix an ordering can take:
 * KRYL_ERR_NOT_SQUARE, KRYL_ERR_UNSUPPORTED (a partial row range),
 * KRYL_ERR_INDEX_OVERFLOW (more than INT32_MAX rows) naming `caller`. */
kryl_status order_check_matrix(const kryl_csr *A, const char *caller);

/* The graph of the off-diagonal entries with |a_ij| > tau*sqrt(|a_ii a_jj|)
 * (every stored one when tau = 0), in both directions; _on merges each row with its
 * transpose's on `threads` host threads (the same graph whatever the
 * count). */
kryl_status order_graph_build_on(const kryl_csr *A, double tau, int threads, order_graph *g);
kryl_status order_graph_build(const kryl_csr *A, double tau, order_graph *g);
void order_graph_free(order_graph *g);

/* *inv = NULL for perm NULL (the natural order); else perm is checked and
 * *inv (malloc'ed) holds inv[perm[i]] = i. */
kryl_status order_inverse(const int32_t *perm, int64_t n, int32_t **inv);

#endif
