// Dijkstra with a parallel ExtractMin (the CUDA SSSP thesis's Algorithm 1), and that
// ExtractMin reduction alone for the thesis's Table 1 (sssp/cuda/dijkstra.rs and
// extract_min.rs launch them).

// (key, index) pairs: the smaller key, the smaller index on ties.
template <typename D>
__device__ __forceinline__ void keep_min(D& key, u32& idx, D k, u32 i) {
    if (k < key || (k == key && i < idx)) {
        key = k;
        idx = i;
    }
}

// The least (key, index) pair of the block, returned to every thread: a reduction by warp
// shuffles, then over the warps' results in shared memory. Every thread of the block
// calls it.
template <typename D>
__device__ void block_argmin(D& key, u32& idx) {
    __shared__ D skey[WARPS_MAX];
    __shared__ u32 sidx[WARPS_MAX];
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        keep_min(key, idx, __shfl_down_sync(0xffffffffu, key, o),
                 __shfl_down_sync(0xffffffffu, idx, o));
    __syncthreads();  // the previous call's readers are done with skey
    if (lane == 0) {
        skey[warp] = key;
        sidx[warp] = idx;
    }
    __syncthreads();
    if (warp == 0) {
        u32 warps = (blockDim.x + 31) / 32;
        key = lane < warps ? skey[lane] : Dist<D>::inf();
        idx = lane < warps ? sidx[lane] : 0xffffffffu;
        for (int o = 16; o > 0; o >>= 1)
            keep_min(key, idx, __shfl_down_sync(0xffffffffu, key, o),
                     __shfl_down_sync(0xffffffffu, idx, o));
        if (lane == 0) {
            skey[0] = key;
            sidx[0] = idx;
        }
    }
    __syncthreads();
    key = skey[0];
    idx = sidx[0];
}

// The CUDA SSSP thesis's Dijkstra (its Algorithm 1), one cooperative launch. Each iteration:
// ExtractMin, the unsettled vertex of least distance (the smaller number on ties), by a
// parallel reduction: every thread scans a grid-stride share of the vertices, each block
// reduces its threads' minima to bkey/bidx[block], and after a barrier every block
// reduces those; then Relax: the grid's threads share the arcs of that vertex, lowering
// distances by atomic minimum. It ends when the least distance is infinite. Each
// iteration reads all n vertices: O(n^2 / threads) in all, the thesis's bound.
// settled: n zeroes; bkey, bidx: gridDim.x entries. *iterations_out: vertices settled.
template <typename W, typename D>
__device__ void dijkstra(const u64* off, const u32* tgt, const W* wt, D* dist, u32* settled,
                         u32 n, D* bkey, u32* bidx, u32* bar, u32* flags,
                         u32* iterations_out) {
    u32 threads = gridDim.x * blockDim.x;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 it = 0;
    for (;; it++) {
        D key = Dist<D>::inf();
        u32 u = 0xffffffffu;
        for (u32 v = t; v < n; v += threads) {
            if (ld(settled + v)) continue;
            D d = Dist<D>::load(dist + v);
            if (d < key) {  // v grows: the first of equal keys is the smallest
                key = d;
                u = v;
            }
        }
        block_argmin(key, u);
        if (threadIdx.x == 0) {
            bkey[blockIdx.x] = key;
            bidx[blockIdx.x] = u;
        }
        grid_sync(bar);
        key = Dist<D>::inf();
        u = 0xffffffffu;
        for (u32 b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            keep_min(key, u, Dist<D>::load(bkey + b), ld(bidx + b));
        block_argmin(key, u);
        if (!(key < Dist<D>::inf())) break;
        if (t == 0) settled[u] = 1;
        for (u64 a = off[u] + t; a < off[u + 1]; a += threads) {
            u32 v = tgt[a];
            D nd;
            if (!Dist<D>::add(key, (D)wt[a], nd)) flags[FLAG_OVERFLOW] = 1;
            else if (nd < Dist<D>::load(dist + v)) Dist<D>::atomic_min(dist + v, nd);
        }
        grid_sync(bar);  // bkey and bidx are rewritten, settled and dist read
    }
    if (t == 0) *iterations_out = it;
}

// One pass of the ExtractMin study (the thesis's Table 1; sssp/cuda/extract_min.rs): block
// b reduces entries [2 b blockDim.x, 2 (b + 1) blockDim.x) of keys (their indices in idx,
// or their positions when first) to out_key/out_idx[b], each thread taking two entries
// before the block's reduction. The host repeats passes until one entry is left.
extern "C" __global__ void __launch_bounds__(1024)
    extract_min_pass(const i64* keys, const u32* idx, u32 n, u32 first, i64* out_key,
                     u32* out_idx) {
    u64 i = (u64)blockIdx.x * 2 * blockDim.x + threadIdx.x, j = i + blockDim.x;
    i64 key = Dist<i64>::inf();
    u32 at = 0xffffffffu;
    if (i < n) keep_min(key, at, keys[i], first ? (u32)i : idx[i]);
    if (j < n) keep_min(key, at, keys[j], first ? (u32)j : idx[j]);
    block_argmin(key, at);
    if (threadIdx.x == 0) {
        out_key[blockIdx.x] = key;
        out_idx[blockIdx.x] = at;
    }
}

#define DIJKSTRA_KERNELS(SUFFIX, W, D)                                                         \
    extern "C" __global__ void __launch_bounds__(1024) sssp_dijkstra_##SUFFIX(                 \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* settled, u32 n, D* bkey,    \
        u32* bidx, u32* bar, u32* flags, u32* iterations_out) {                                \
        dijkstra<W, D>(off, tgt, wt, dist, settled, n, bkey, bidx, bar, flags,                 \
                       iterations_out);                                                        \
    }
SSSP_INSTANTIATE(DIJKSTRA_KERNELS)
