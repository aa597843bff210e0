/* Distributed contexts: the communicator, rank and size, and the operation
 * table of a context over several ranks (the backend's own, with the SpMV
 * replaced by the distributed one, and graph capture kept only where every
 * step stays on the device: MPI calls cannot be recorded into a CUDA graph). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "kryl_mpi.h"

#ifdef KRYL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_hooks.h"
#endif
#if defined(KRYL_HAVE_CUDA) && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif

kryl_status kryl_mpi_status(int err, const char *what)
{
    if (err == MPI_SUCCESS) return KRYL_SUCCESS;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    return KRYL_ERROR(KRYL_ERR_INTERNAL, "%s failed: %s", what, text);
}

/* The GPU of this rank: its rank among the ranks of its host, modulo the GPUs
 * (nodes emulated by KRYL_NODE_SIZE share the host's GPUs). */
static int node_local_device(MPI_Comm comm)
{
    MPI_Comm node;
    int local = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    int count = 1;
#ifdef KRYL_HAVE_CUDA
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) count = 1;
#endif
    return local % count;
}

/* Whether MPI can read and write device memory (asked at run time). */
static bool cuda_aware_mpi(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

/* The transport of a device backend: KRYL_DIST_TRANSPORT (nccl, mpi,
 * staged) if set, else NCCL when built with it, else CUDA-aware MPI when
 * MPI says it is, else staging through host memory.  Collective. */
static void choose_transport(struct kryl_dist_context *d, kryl_context c)
{
    const char *want = getenv("KRYL_DIST_TRANSPORT");
    bool any = want == NULL || want[0] == '\0';
    d->transport = KRYL_TRANSPORT_STAGED;
#ifdef KRYL_HAVE_NCCL
    if (any || strcmp(want, "nccl") == 0) {
        if (kryl_nccl_start(d, c, &d->nccl) == KRYL_SUCCESS) {
            d->transport = KRYL_TRANSPORT_NCCL;
            return;
        }
        kryl_log(c, KRYL_LOG_WARNING, "kryl: NCCL unusable (%s): halo exchange through MPI",
                 kryl_last_error());
    }
#endif
    /* every rank must pick the same: device MPI only if all ranks have it */
    int mine = (any || strcmp(want, "mpi") == 0) && cuda_aware_mpi(), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, d->comm);
    if (all) d->transport = KRYL_TRANSPORT_DEVICE_MPI;
}

/* d->node_size from KRYL_NODE_SIZE (unset or empty: 0, the hosts' nodes).
 * Collective: every rank must read the same. */
static kryl_status read_node_size(struct kryl_dist_context *d)
{
    const char *text = getenv("KRYL_NODE_SIZE");
    kryl_status st = KRYL_SUCCESS;
    d->node_size = 0;
    if (text != NULL && text[0] != '\0') {
        char *end = NULL;
        long v = strtol(text, &end, 10);
        if (*end != '\0' || v < 1 || v > INT_MAX)
            st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                            "KRYL_NODE_SIZE='%s': expected the ranks per emulated node, a "
                            "positive integer",
                            text);
        else
            d->node_size = (int)v;
    }
    int mine[2] = {d->node_size, -d->node_size}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, d->comm);
    if (st == KRYL_SUCCESS && all[0] != -all[1])
        st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                        "KRYL_NODE_SIZE differs between ranks (from %d to %d)", -all[1], all[0]);
    return kryl_dist_agree_comm(d->comm, st);
}

int kryl_dist_emulated_node(const struct kryl_dist_context *dc)
{
    return dc->node_size > 0 ? dc->rank / dc->node_size : -1;
}

bool kryl_dist_one_node(struct kryl_dist_context *dc)
{
    if (dc->node_size > 0) return dc->node_size >= dc->size;
    MPI_Comm local;
    if (MPI_Comm_split_type(dc->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) !=
        MPI_SUCCESS)
        return false;
    int local_size = 0;
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    /* every rank answers the same: some host may hold them all while others do not */
    int mine = local_size == dc->size, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, dc->comm);
    return all != 0;
}

static const char *transport_name(kryl_dist_transport t)
{
    static const char *names[] = {"host memory", "staged through host memory", "CUDA-aware MPI",
                                  "NCCL"};
    return names[t];
}

/* The operation table of a context over several ranks. */
static void wrap_ops(struct kryl_dist_context *d)
{
    d->ops = *d->inner_ops;
    d->ops.name = d->inner_ops->name;
    d->ops.matrix_setup = kryl_dist_matrix_setup;
    d->ops.matrix_release = kryl_dist_matrix_release;
    d->ops.spmv = kryl_dist_spmv;
    /* new values of a matrix in parts: through the host and matrix_setup */
    d->ops.matrix_values = NULL;
    d->ops.matrix_inverse_diagonal = NULL;
    /* a matrix in parts is no whole CSR to color, permute or convert, and
     * takes new values through the host */
    d->ops.matrix_csr_arrays = NULL;
    d->ops.amg_aggregate = NULL;
    d->ops.matrix_convert = NULL;
    /* every operation that takes a matrix must see its parts: the fused
     * SpMV-and-dot falls back to the distributed SpMV, then a dot, and
     * pipelined CG's SpMV overlaps its reduction instead of fusing */
    d->ops.spmv_dot = NULL;
    d->ops.spmv_dot_fuses = NULL;
    d->ops.pipecg_spmv_update = NULL;
    d->ops.pipecg_spmv_steps = NULL;
    d->ops.cg1_steps = NULL;
    /* a single-reduction step in one launch where the ranks sum by peer
     * stores; elsewhere cg.c's terms, sum over the ranks and update */
    d->ops.cg1_step = NULL;
#ifdef KRYL_HAVE_NCCL
    if (d->transport == KRYL_TRANSPORT_NCCL && kryl_nccl_peer_sums(d, KRYL_CG1_TERMS))
        d->ops.cg1_step = kryl_nccl_cg1_step;
#endif
    /* the checks of a distributed matrix are collective, on the host copies */
    d->ops.csr_asymmetry = NULL;
    d->ops.csr_diagonal = NULL;
    d->ops.csr_row_sums = NULL;
    d->ops.csr_reach = NULL;
    d->ops.csr_diagonals = NULL;
    d->ops.csr_blocks = NULL;
    /* graphs only where no step needs the host (dist_graph.c) */
    kryl_dist_graph_ops(d);
}

kryl_status kryl_context_create_mpi(kryl_context *ctx, const kryl_context_options *options,
                                    MPI_Comm comm)
{
    KRYL_REQUIRE_ARG(ctx);
    *ctx = NULL;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_context_create_mpi: MPI is not initialised; call MPI_Init or "
                          "MPI_Init_thread first");
    kryl_context_options o;
    kryl_context_options_init(&o);
    if (options) o = *options;
    if (o.device == 0 && o.backend != KRYL_BACKEND_REF && o.backend != KRYL_BACKEND_OMP)
        o.device = node_local_device(comm);
    struct kryl_dist_context *d = calloc(1, sizeof *d);
    if (d == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a distributed context");
    kryl_status st = kryl_mpi_status(MPI_Comm_dup(comm, &d->comm), "MPI_Comm_dup");
    if (st != KRYL_SUCCESS) {
        free(d);
        return st;
    }
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    MPI_Query_thread(&d->thread_level);
    d->overlap = KRYL_OVERLAP_NAIVE;
    d->partition = KRYL_PARTITION_CONTIGUOUS;
    d->reduce_req = MPI_REQUEST_NULL;
    kryl_context c = NULL;
    st = read_node_size(d);
    if (st == KRYL_SUCCESS) st = kryl_context_create(&c, &o);
    st = kryl_dist_agree_comm(d->comm, st);
    if (st != KRYL_SUCCESS) {
        kryl_context_destroy(&c);
        MPI_Comm_free(&d->comm);
        free(d);
        return st;
    }
    d->inner_ops = c->ops;
    d->transport = KRYL_TRANSPORT_HOST;
#ifdef KRYL_HAVE_CUDA
    /* the ranks of a host map each other's halos: no pool's blocks */
    if (c->kind == KRYL_BACKEND_CUDA && d->size > 1) kryl_cuda_share_memory(c);
#endif
    if (c->kind == KRYL_BACKEND_CUDA && d->size > 1) choose_transport(d, c);
    d->inner = *c;
    d->inner.live_objects = 0;
    c->dist = d;
    if (d->size > 1) {
        wrap_ops(d);
        c->ops = &d->ops;
    }
    kryl_log(c, KRYL_LOG_INFO, "kryl: rank %d of %d, MPI thread level %d, halo %s", d->rank,
             d->size, d->thread_level, transport_name(d->transport));
    if (d->node_size > 0)
        kryl_log(c, KRYL_LOG_INFO, "kryl: KRYL_NODE_SIZE=%d: rank %d on emulated node %d",
                 d->node_size, d->rank, kryl_dist_emulated_node(d));
    *ctx = c;
    return KRYL_SUCCESS;
}

kryl_status kryl_context_comm(kryl_context ctx, MPI_Comm *comm)
{
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(comm);
    *comm = ctx->dist ? ctx->dist->comm : MPI_COMM_SELF;
    return KRYL_SUCCESS;
}

bool kryl_dist_active(kryl_context ctx) { return ctx->dist != NULL && ctx->dist->size > 1; }

void kryl_dist_rank(kryl_context ctx, int *rank, int *size)
{
    *rank = ctx->dist->rank;
    *size = ctx->dist->size;
}

void kryl_dist_context_free(kryl_context ctx)
{
    struct kryl_dist_context *d = ctx->dist;
    if (d == NULL) return;
    if (d->thread) kryl_comm_thread_stop(d->thread);
#ifdef KRYL_HAVE_NCCL
    kryl_nccl_free(d->nccl);
#endif
    if (d->reduce_req != MPI_REQUEST_NULL) MPI_Wait(&d->reduce_req, MPI_STATUS_IGNORE);
    if (d->inner.live_objects != 0)
        kryl_log(ctx, KRYL_LOG_WARNING, "kryl: %d matrix parts still alive", d->inner.live_objects);
    ctx->ops = d->inner_ops;
    free(d->reduce_buf);
    MPI_Comm_free(&d->comm);
    free(d);
    ctx->dist = NULL;
}

kryl_status kryl_dist_agree_comm(MPI_Comm comm, kryl_status st)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int mine[2] = {(int)st, rank}, worst[2];
    MPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MINLOC, comm);
    if (st != KRYL_SUCCESS || worst[0] == KRYL_SUCCESS) return st;
    return KRYL_ERROR((kryl_status)worst[0], "rank %d failed (%s); its message is on that rank",
                      worst[1], kryl_strerror((kryl_status)worst[0]));
}

kryl_status kryl_dist_agree(kryl_context ctx, kryl_status st)
{
    return kryl_dist_agree_comm(ctx->dist->comm, st);
}

void kryl_dist_set_overlap(kryl_context ctx, kryl_overlap overlap) { ctx->dist->overlap = overlap; }

void kryl_dist_set_partition(kryl_context ctx, kryl_partition_kind partition)
{
    ctx->dist->partition = partition;
}

void kryl_dist_reset_stats(kryl_context ctx)
{
    memset(&ctx->dist->stats, 0, sizeof ctx->dist->stats);
}
