/* Host copies of a format's device arrays (cuda_hooks.h:
 * kryl_cuda_fmt_download), so tests can hold the storage built on the
 * device, or uploaded, to kryl_fmt_build's arrays entry by entry. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_fmt.cuh"

/* *dst = a host copy of count elements of device src (NULL when count is 0 or src NULL) */
template <typename E>
static kryl_status fetch(kryl_cuda_state *s, E **dst, const void *src, int64_t count)
{
    *dst = nullptr;
    if (count <= 0 || src == nullptr) return KRYL_SUCCESS;
    *dst = static_cast<E *>(malloc((size_t)count * sizeof(E)));
    if (*dst == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot copy %lld entries to the host",
                          (long long)count);
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(*dst, src, (size_t)count * sizeof(E), cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

extern "C" kryl_status kryl_cuda_fmt_download(kryl_matrix A, kryl_cuda_fmt_copy *out)
{
    KRYL_REQUIRE_ARG(out);
    memset(out, 0, sizeof *out);
    KRYL_REQUIRE_ARG(A);
    const kryl_format kind = A->fmt.kind;
    if (A->ctx->kind != KRYL_BACKEND_CUDA || A->storage == nullptr || kind == KRYL_FORMAT_CSR ||
        kind == KRYL_FORMAT_BCSR2 || kind == KRYL_FORMAT_BCSR4)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda fmt_download: A is not a cuda matrix in ELL, ELLR, JDS, pJDS, "
                          "SELL or DIA");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(A->ctx, &s));
    const cuda_fmt *m = static_cast<const cuda_fmt *>(A->storage);
    out->stored = m->stored;
    switch (kind) {
    case KRYL_FORMAT_ELLR: out->row_len_count = m->stride; break;
    case KRYL_FORMAT_JDS:
        out->row_len_count = m->nrows;
        out->ptr_count = m->ndiag + 1;
        break;
    case KRYL_FORMAT_SELL:
    case KRYL_FORMAT_PJDS: {
        const int64_t slices = (m->nrows + m->C - 1) / m->C;
        out->row_len_count = slices * m->C;
        out->ptr_count = slices + 1;
        break;
    }
    case KRYL_FORMAT_DIA: out->ndiag = m->ndiag; break;
    default: break;
    }
    kryl_status st = fetch(s, &out->col, m->col, kind == KRYL_FORMAT_DIA ? 0 : m->stored);
    if (st == KRYL_SUCCESS) st = fetch(s, &out->row_len, m->row_len, out->row_len_count);
    if (st == KRYL_SUCCESS) st = fetch(s, &out->ptr, m->ptr, out->ptr_count);
    if (st == KRYL_SUCCESS) st = fetch(s, &out->offset, m->offset, out->ndiag);
    if (st == KRYL_SUCCESS && A->precision == KRYL_DOUBLE)
        st = fetch(s, &out->val, m->val, m->stored);
    if (st == KRYL_SUCCESS && A->precision == KRYL_SINGLE) {
        float *narrow = nullptr;
        st = fetch(s, &narrow, m->val, m->stored);
        out->val = st == KRYL_SUCCESS && m->stored > 0
                       ? static_cast<double *>(malloc((size_t)m->stored * sizeof(double)))
                       : nullptr;
        for (int64_t k = 0; out->val && k < m->stored; k++) out->val[k] = narrow[k];
        if (st == KRYL_SUCCESS && m->stored > 0 && out->val == nullptr)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot copy values to the host");
        free(narrow);
    }
    if (st != KRYL_SUCCESS) kryl_cuda_fmt_copy_free(out);
    return st;
}

extern "C" void kryl_cuda_fmt_copy_free(kryl_cuda_fmt_copy *copy)
{
    if (copy == nullptr) return;
    free(copy->col);
    free(copy->val);
    free(copy->row_len);
    free(copy->ptr);
    free(copy->offset);
    memset(copy, 0, sizeof *copy);
}
