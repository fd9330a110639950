// Bellman-Ford as (min, +) sparse matrix-vector products over the incoming arcs, in CSR
// or ELL, the CUDA SSSP thesis's SpMV method; sssp/cuda/spmv.rs repeats them until one
// changes nothing.

// One (min, +) product, the thesis's SpMV Bellman-Ford: every row v pulls from the previous
// vector, dout[v] = min(din[v], min over its entries u of din[u] + w); a row that lowers
// its value sets *changed. CSR: the rows of the incoming arcs (off, tgt, wt), a thread a
// row. ELL: width entries a row, column-major (entry k of row v at k * n + v), padding
// NO_VERTEX, so that a warp's loads of one column are contiguous.
template <typename W, typename D>
__device__ __forceinline__ void pull(u32 u, W w, const D* din, D& best, u32* flags) {
    D du = din[u], s;
    if (!(du < Dist<D>::inf())) return;
    if (!Dist<D>::add(du, (D)w, s)) flags[FLAG_OVERFLOW] = 1;
    else if (s < best) best = s;
}

template <typename W, typename D>
__device__ void spmv_csr(const u64* off, const u32* tgt, const W* wt, const D* din, D* dout,
                         u32 n, u32* changed, u32* flags) {
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        D best = din[v];
        for (u64 e = off[v]; e < off[v + 1]; e++) pull(tgt[e], wt[e], din, best, flags);
        dout[v] = best;
        if (best < din[v]) *changed = 1;
    }
}

template <typename W, typename D>
__device__ void spmv_ell(const u32* idx, const W* ew, u32 width, const D* din, D* dout, u32 n,
                         u32* changed, u32* flags) {
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        D best = din[v];
        for (u32 k = 0; k < width; k++) {
            u64 at = (u64)k * n + v;
            u32 u = idx[at];
            if (u == 0xffffffffu) break;
            pull(u, ew[at], din, best, flags);
        }
        dout[v] = best;
        if (best < din[v]) *changed = 1;
    }
}

#define SPMV_KERNELS(SUFFIX, W, D)                                                             \
    extern "C" __global__ void sssp_spmv_csr_##SUFFIX(const u64* off, const u32* tgt,          \
                                                      const W* wt, const D* din, D* dout,      \
                                                      u32 n, u32* changed, u32* flags) {       \
        spmv_csr<W, D>(off, tgt, wt, din, dout, n, changed, flags);                            \
    }                                                                                          \
    extern "C" __global__ void sssp_spmv_ell_##SUFFIX(const u32* idx, const W* ew, u32 width,  \
                                                      const D* din, D* dout, u32 n,            \
                                                      u32* changed, u32* flags) {              \
        spmv_ell<W, D>(idx, ew, width, din, dout, n, changed, flags);                          \
    }
SSSP_INSTANTIATE(SPMV_KERNELS)
