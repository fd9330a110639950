// Delta-stepping (Meyer and Sanders) as the CUDA SSSP thesis lays it out for a GPU (its
// Algorithm 3): a bucket index per vertex, light phases and a heavy phase, request lists
// laid out by a prefix sum. sssp/cuda/delta_stepping.rs launches it.

// The thesis's delta-stepping (its Algorithm 3), one cooperative launch. Bucket i holds the
// vertices v with bindex[v] == i, the bucket of their tentative distance (floor(d /
// delta)): inserting, moving and removing a vertex is one write (an atomic minimum when
// lowered, since a lower distance never has a higher bucket). For the least non-empty
// bucket: light phases, while it refills: its vertices are taken out (list F, and once
// each into R), a prefix sum over their degrees lays out the request list (reqidx, like a
// CSR row pointer) and one thread per request relaxes it if the arc is light (weight <=
// delta; decided on the fly); then one heavy phase relaxes the heavy arcs of R. Every
// step ends at a grid barrier. F's counter and the least bucket alternate between two
// words each (by phase and by bucket), the one not in use cleared for the next: its last
// reads came barriers before.
//
// bindex: n entries; F, R: lists of n; reqidx: n + 1; bsum: gridDim.x; words: 8.
// *phases_out: light and heavy phases run.
#define NO_BUCKET 0xffffffffu

template <typename D>
__device__ __forceinline__ u32 bucket_of(D d, D delta) {
    return (u32)(d / delta);
}
template <>
__device__ __forceinline__ u32 bucket_of<double>(double d, double delta) {
    return (u32)floor(d / delta);
}

// Lays out the requests of list[0..len): reqidx[k] = the degrees of list[0..k) summed,
// reqidx[len] = the total, which it returns. Two steps (grid barriers).
template <typename W, typename D>
__device__ u64 lay_out_requests(const u64* off, const u32* list, u32 len, u64* reqidx,
                                u64* bsum, u64* scratch, u32* bar) {
    u32 threads = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 per = (len + threads - 1) / threads;
    u32 lo = min(len, t * per), hi = min(len, lo + per);
    u64 block_total;
    u64 run = block_exclusive_scan64(run_arcs(off, list, lo, hi), scratch, &block_total);
    if (threadIdx.x == 0) bsum[blockIdx.x] = block_total;
    grid_sync(bar);
    // This block's offset (the blocks before it) and the total.
    u64 before = 0, all = 0;
    for (u32 b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        u64 x = __ldcg(bsum + b);
        all += x;
        if (b < blockIdx.x) before += x;
    }
    u64 sum_before, total;
    block_exclusive_scan64(before, scratch, &sum_before);
    block_exclusive_scan64(all, scratch, &total);
    write_offsets(off, list, lo, hi, run + sum_before, reqidx);
    if (t == 0) reqidx[len] = total;
    grid_sync(bar);
    return total;
}

// One thread per request j < total of list[0..len) (laid out in reqidx): the arc
// j - reqidx[k] of v = list[k] (k found by binary search) is relaxed when it is light
// (heavy false) or heavy (heavy true); a lowered target moves to its new bucket.
template <typename W, typename D>
__device__ void relax_requests(const u64* off, const u32* tgt, const W* wt, D* dist,
                               u32* bindex, D delta, const u32* list, u32 len,
                               const u64* reqidx, u64 total, bool heavy, u32* flags) {
    u64 threads = (u64)gridDim.x * blockDim.x;
    for (u64 j = blockIdx.x * blockDim.x + threadIdx.x; j < total; j += threads) {
        u32 l = 0, h = len - 1;  // the last k with reqidx[k] <= j
        while (l < h) {
            u32 m = (l + h + 1) / 2;
            if (__ldcg(reqidx + m) <= j) l = m;
            else h = m - 1;
        }
        u32 v = ld(list + l);
        u64 a = off[v] + (j - __ldcg(reqidx + l));
        D c = (D)wt[a];
        if ((c > delta) != heavy) continue;
        D nd;
        if (!Dist<D>::add(Dist<D>::load(dist + v), c, nd)) {
            flags[FLAG_OVERFLOW] = 1;
            continue;
        }
        u32 w = tgt[a];
        if (nd < Dist<D>::load(dist + w) && nd < Dist<D>::atomic_min(dist + w, nd))
            atomicMin(bindex + w, bucket_of(nd, delta));
    }
}

template <typename W, typename D>
__device__ void buckets(const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp,
                        u32* bindex, u32 n, D delta, u32* F, u32* R, u64* reqidx, u64* bsum,
                        u32* bar, u32* words, u32* flags, u32* phases_out) {
    __shared__ u64 scratch[WARPS_MAX];
    u32 threads = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 lane = threadIdx.x & 31;
    // words[0..2): F's counter, by phase; words[2..4): the least bucket, by bucket;
    // words[4]: R's length.
    u32 phase = 0, round = 0;
    if (t == 0) {
        words[0] = words[1] = words[4] = 0;
        words[2] = words[3] = NO_BUCKET;
    }
    for (u32 v = t; v < n; v += threads) {
        D d = Dist<D>::load(dist + v);
        bindex[v] = d < Dist<D>::inf() ? bucket_of(d, delta) : NO_BUCKET;
    }
    grid_sync(bar);
    for (;; round++) {
        // The least non-empty bucket.
        u32* mslot = words + 2 + round % 2;
        u32 least = NO_BUCKET;
        for (u32 v = t; v < n; v += threads) least = min(least, ld(bindex + v));
        for (int o = 16; o > 0; o >>= 1) least = min(least, __shfl_down_sync(0xffffffffu, least, o));
        if (lane == 0 && least != NO_BUCKET) atomicMin(mslot, least);
        if (t == 0) {
            words[2 + (round + 1) % 2] = NO_BUCKET;
            words[4] = 0;  // R's last reads came before the last barrier
        }
        grid_sync(bar);
        u32 cur = ld(mslot);
        if (cur == NO_BUCKET) break;
        for (;; phase++) {
            // Light phase: take the bucket's vertices out (F; R once each).
            u32* fslot = words + phase % 2;
            if (t == 0) words[(phase + 1) % 2] = 0;
            for (u32 base = t & ~31u; base < n; base += threads) {
                u32 v = base + lane;
                bool in = v < n && ld(bindex + v) == cur;
                if (in) bindex[v] = NO_BUCKET;
                warp_append(in, v, F, fslot);
                bool first = in && stamp[v] != cur + 1;
                if (first) stamp[v] = cur + 1;
                warp_append(first, v, R, words + 4);
            }
            grid_sync(bar);
            u32 len = ld(fslot);
            if (len == 0) break;
            u64 total = lay_out_requests<W, D>(off, F, len, reqidx, bsum, scratch, bar);
            relax_requests(off, tgt, wt, dist, bindex, delta, F, len, reqidx, total, false,
                           flags);
            grid_sync(bar);
        }
        // Heavy phase: the heavy arcs of every vertex the bucket settled.
        u32 rlen = ld(words + 4);
        if (rlen > 0) {
            u64 total = lay_out_requests<W, D>(off, R, rlen, reqidx, bsum, scratch, bar);
            relax_requests(off, tgt, wt, dist, bindex, delta, R, rlen, reqidx, total, true,
                           flags);
            grid_sync(bar);
            phase++;
        }
    }
    if (t == 0) *phases_out = phase;
}

#define DELTA_STEPPING_KERNELS(SUFFIX, W, D)                                                   \
    extern "C" __global__ void __launch_bounds__(256) sssp_buckets_##SUFFIX(                   \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp, u32* bindex, u32 n,  \
        D delta, u32* F, u32* R, u64* reqidx, u64* bsum, u32* bar, u32* words, u32* flags,     \
        u32* phases_out) {                                                                     \
        buckets<W, D>(off, tgt, wt, dist, stamp, bindex, n, delta, F, R, reqidx, bsum, bar,    \
                      words, flags, phases_out);                                               \
    }
SSSP_INSTANTIATE(DELTA_STEPPING_KERNELS)
