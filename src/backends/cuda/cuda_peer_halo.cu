/* The halo exchange by peer-to-peer stores among the GPUs of one host
 * (dist_peer_halo.c maps the neighbours' ghost vectors and boxes): each
 * rank gathers its send entries of x straight into every neighbour's
 * ghost vector and raises its flag there, then waits for its neighbours'
 * flags.  Two kernels on the communication stream, no host
 * involvement and no staging buffer, so they are recorded into graphs like
 * the local product they overlap.
 *
 * Exchange k (a box's sequence + 1) may write a neighbour's ghosts only
 * once the neighbour is ready for it: everything that read its ghosts of
 * exchange k - 1 (or cleared them) has run.  Each rank's store kernel of
 * exchange k says so in its neighbours' boxes first (acks = k), since its
 * stream queued it after all of that, and waits for theirs before it
 * stores.  The wait kernel waits for every neighbour's acknowledgement as
 * well as its values, so once it is done no store of a neighbour's
 * exchange k can still reach this rank's memory (before the memory is
 * freed, say).
 */
#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"
#include "backends/cuda/cuda_peer.cuh"
#include "backends/cuda/cuda_reduce.cuh"

constexpr int HALO_THREADS = 256;
/* Few blocks: they wait for the neighbours to be ready, beside the local product */
constexpr int HALO_MAX_BLOCKS = 64;
static_assert(KRYL_PEER_MAX_RANKS <= 32, "a thread of a warp per neighbour");

template <typename T>
__global__ void peer_halo_store_kernel(const T *x, const int32_t *send_perm, int rank,
                                       kryl_peer_halo_box *mine, const kryl_peer_link *links,
                                       int nlinks)
{
    const unsigned long long k = mine->sequence + 1;
    if (threadIdx.x < nlinks) {
        const kryl_peer_link &l = links[threadIdx.x];
        /* ready for its values of exchange k (once: its wait kernel counts on one store) */
        if (blockIdx.x == 0) peer_raise(&l.box->acks[rank], k);
        /* and it for mine */
        if (l.send_count > 0) peer_wait(&mine->acks[l.rank], k);
    }
    __syncthreads();
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int q = 0; q < nlinks; q++) {
        T *ghosts = static_cast<T *>(links[q].ghosts);
        const int32_t *perm = send_perm + links[q].send_offset;
        /* neighbour q's ghosts <- x[send positions for q] */
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < links[q].send_count;
             j += stride)
            ghosts[j] = x[perm[j]];
    }
    __threadfence_system();
    __syncthreads();
    /* the last block done raises my flag where my values went */
    if (kryl_last_block(&mine->arrived) && threadIdx.x == 0) {
        __threadfence_system();
        for (int q = 0; q < nlinks; q++)
            if (links[q].send_count > 0) peer_raise(&links[q].box->flags[rank], k);
    }
}

__global__ void peer_halo_wait_kernel(kryl_peer_halo_box *mine, const kryl_peer_link *links,
                                      int nlinks)
{
    const unsigned long long k = mine->sequence + 1;
    if (threadIdx.x < nlinks) {
        const kryl_peer_link &l = links[threadIdx.x];
        /* every neighbour's stores of exchange k are here: its acknowledgement ... */
        peer_wait(&mine->acks[l.rank], k);
        /* ... and its values in my ghosts */
        if (l.recv_count > 0) peer_wait(&mine->flags[l.rank], k);
    }
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) mine->sequence = k;
}

static kryl_status check_links(int nlinks)
{
    if (nlinks >= 1 && nlinks < KRYL_PEER_MAX_RANKS) return KRYL_SUCCESS;
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda peer halo: %d neighbours (1 to %d)", nlinks,
                      KRYL_PEER_MAX_RANKS - 1);
}

extern "C" kryl_status kryl_cuda_peer_halo_store(void *stream, const void *x, size_t element_size,
                                                 const int32_t *send_perm, int64_t nsend, int rank,
                                                 kryl_peer_halo_box *mine,
                                                 const kryl_peer_link *links, int nlinks)
{
    KRYL_TRY(check_links(nlinks));
    int64_t wanted = (nsend + HALO_THREADS - 1) / HALO_THREADS;
    int blocks = (int)(wanted < 1 ? 1 : wanted > HALO_MAX_BLOCKS ? HALO_MAX_BLOCKS : wanted);
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    /* ghosts of every neighbour <- x[send_perm] */
    if (element_size == sizeof(float))
        peer_halo_store_kernel<<<blocks, HALO_THREADS, 0, s>>>(
            static_cast<const float *>(x), send_perm, rank, mine, links, nlinks);
    else
        peer_halo_store_kernel<<<blocks, HALO_THREADS, 0, s>>>(
            static_cast<const double *>(x), send_perm, rank, mine, links, nlinks);
    KRYL_CUDA_CHECK(cudaGetLastError());
    return KRYL_SUCCESS;
}

extern "C" kryl_status kryl_cuda_peer_halo_wait(void *stream, kryl_peer_halo_box *mine,
                                                const kryl_peer_link *links, int nlinks)
{
    KRYL_TRY(check_links(nlinks));
    /* until the neighbours' values are in my ghosts */
    peer_halo_wait_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(mine, links, nlinks);
    KRYL_CUDA_CHECK(cudaGetLastError());
    return KRYL_SUCCESS;
}
