/* The halo exchange by peer-to-peer stores (kryl_cuda_peer_halo_store and
 * _wait) instead of ncclSend/ncclRecv, where the sums already go by
 * peer-to-peer stores (dist_peer.c: every rank on one host, mapping the
 * others' memory): each rank allocates a box for a matrix's halo, sends
 * the CUDA IPC exports of it and of its ghost vector (dist_peer.h) to its
 * neighbours over MPI, with where each neighbour's values start there, and
 * maps theirs.  Where that fails on any rank, all ranks keep NCCL for that
 * halo. */
#ifdef KRYL_HAVE_NCCL
#include <stdlib.h>

#include "backends/cuda/cuda_hooks.h"
#include "dist/dist_peer.h"

struct kryl_peer_halo {
    int rank, nlinks;
    kryl_peer_halo_box *box; /* mine (device) */
    void **opened;           /* per neighbour: the blocks of its box and its ghosts mapped here */
    kryl_peer_link *links;   /* device */
};

/* What a rank sends each neighbour. */
typedef struct peer_halo_offer {
    kryl_peer_export box, ghosts;
    int64_t recv_offset; /* where the neighbour's values start in the ghosts */
} peer_halo_offer;

enum { OFFER_TAG = 7302 };

void kryl_peer_halo_free(struct kryl_peer_halo *p)
{
    if (p == NULL) return;
    cudaDeviceSynchronize(); /* no store of this rank's is on the way to a neighbour */
    for (int k = 0; p->opened && k < 2 * p->nlinks; k++)
        if (p->opened[k]) cudaIpcCloseMemHandle(p->opened[k]);
    cudaFree(p->box);
    cudaFree(p->links);
    cudaGetLastError(); /* teardown errors are not reported: clear them */
    free(p->opened);
    free(p);
}

/* My box, zeroed, and the offers of it and of my ghosts to each neighbour. */
static kryl_status make_offers(struct kryl_peer_halo *p, const struct kryl_dist_matrix *d,
                               peer_halo_offer *offers)
{
    const kryl_halo *h = d->halo;
    kryl_peer_export box, ghosts = {0};
    KRYL_TRY(kryl_peer_new_box(sizeof *p->box, (void **)&p->box, &box));
    if (h->nghost > 0) KRYL_TRY(kryl_peer_export_memory(d->ghost->data, &ghosts));
    for (int q = 0; q < h->nneigh; q++)
        offers[q] = (peer_halo_offer){box, ghosts, h->recv_offset[q]};
    return KRYL_SUCCESS;
}

/* The offers swapped with the neighbours. */
static kryl_status swap_offers(struct kryl_dist_context *dc, const kryl_halo *h,
                               peer_halo_offer *mine, peer_halo_offer *theirs)
{
    MPI_Request *requests = malloc(2 * (size_t)h->nneigh * sizeof *requests);
    if (requests == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "peer halo: cannot allocate the requests of %d neighbours", h->nneigh);
    for (int q = 0; q < h->nneigh; q++) {
        MPI_Irecv(&theirs[q], (int)sizeof *theirs, MPI_BYTE, h->neigh[q], OFFER_TAG, dc->comm,
                  &requests[2 * q]);
        MPI_Isend(&mine[q], (int)sizeof *mine, MPI_BYTE, h->neigh[q], OFFER_TAG, dc->comm,
                  &requests[2 * q + 1]);
    }
    int err = MPI_Waitall(2 * h->nneigh, requests, MPI_STATUSES_IGNORE);
    free(requests);
    return kryl_mpi_status(err, "the peer halo set-up's MPI_Waitall");
}

/* Each neighbour's box, and its ghosts where I send it values, mapped; the
 * device links. */
static kryl_status map_links(struct kryl_peer_halo *p, const kryl_halo *h, size_t element_size,
                             const peer_halo_offer *theirs)
{
    kryl_peer_link *links = calloc((size_t)h->nneigh, sizeof *links);
    if (links == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "peer halo: cannot allocate the links to %d neighbours", h->nneigh);
    kryl_status st = KRYL_SUCCESS;
    for (int q = 0; q < h->nneigh && st == KRYL_SUCCESS; q++) {
        void *box = NULL, *ghosts = NULL;
        st = kryl_peer_import_memory(&theirs[q].box, &p->opened[2 * q], &box);
        if (st == KRYL_SUCCESS && h->send_count[q] > 0)
            st = kryl_peer_import_memory(&theirs[q].ghosts, &p->opened[2 * q + 1], &ghosts);
        links[q] = (kryl_peer_link){
            .box = box,
            .ghosts = ghosts ? (char *)ghosts + (size_t)theirs[q].recv_offset * element_size : NULL,
            .send_offset = h->send_offset[q],
            .send_count = h->send_count[q],
            .recv_count = h->recv_count[q],
            .rank = h->neigh[q]};
    }
    size_t bytes = (size_t)h->nneigh * sizeof *links;
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaMalloc((void **)&p->links, bytes), "cudaMalloc");
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaMemcpy(p->links, links, bytes, cudaMemcpyHostToDevice),
                                   "cudaMemcpy");
    free(links);
    return st;
}

kryl_status kryl_peer_halo_start(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                 kryl_precision precision, struct kryl_peer_halo **out)
{
    *out = NULL;
    const kryl_halo *h = d->halo;
    int nlinks = h->nneigh;
    size_t count = nlinks > 0 ? (size_t)nlinks : 1;
    struct kryl_peer_halo *p = calloc(1, sizeof *p);
    peer_halo_offer *mine = calloc(count, sizeof *mine), *theirs = calloc(count, sizeof *theirs);
    if (p) p->opened = calloc(2 * count, sizeof *p->opened);
    kryl_status st =
        p && p->opened && mine && theirs
            ? KRYL_SUCCESS
            : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                         "peer halo: cannot allocate the offers of %d neighbours", nlinks);
    if (st == KRYL_SUCCESS && nlinks > 0) {
        p->rank = dc->rank;
        p->nlinks = nlinks;
        st = make_offers(p, d, mine);
    }
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st == KRYL_SUCCESS && nlinks > 0) st = swap_offers(dc, h, mine, theirs);
    if (st == KRYL_SUCCESS && nlinks > 0)
        st = map_links(p, h, kryl_precision_size(precision), theirs);
    /* every box is zeroed and mapped by every neighbour before any rank stores */
    st = kryl_dist_agree_comm(dc->comm, st);
    free(mine);
    free(theirs);
    if (st != KRYL_SUCCESS || nlinks == 0) {
        /* NCCL instead, or no exchange at all */
        kryl_peer_halo_free(p);
        return KRYL_SUCCESS;
    }
    *out = p;
    return KRYL_SUCCESS;
}

kryl_status kryl_peer_halo_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                    kryl_vector x)
{
    struct kryl_peer_halo *p = d->peer_halo;
    void *stream = kryl_cuda_stream(&dc->inner);
    /* the neighbours' ghosts <- x[send_perm] */
    KRYL_TRY(kryl_cuda_peer_halo_store(stream, x->data, kryl_precision_size(x->precision),
                                       d->send_perm, d->halo->nsend, p->rank, p->box, p->links,
                                       p->nlinks));
    /* until mine hold theirs */
    return kryl_cuda_peer_halo_wait(stream, p->box, p->links, p->nlinks);
}
#else
typedef int kryl_dist_peer_halo_empty; /* ISO C: a translation unit is never empty */
#endif
