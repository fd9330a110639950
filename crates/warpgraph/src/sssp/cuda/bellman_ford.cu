// Bellman-Ford in rounds over all vertices, the CUDA SSSP thesis's label-correcting
// method; sssp/cuda/bellman_ford.rs launches it.

// Bellman-Ford in rounds over the vertices: each round, every vertex that changed in the
// previous one (active[v] == round) relaxes its arcs, marking what it lowers for the next
// round; rounds end when one changes nothing, or after n rounds that still change
// something (a negative cycle: flags).
template <typename W, typename D>
__device__ void rounds(const u64* off, const u32* tgt, const W* wt, D* dist, u32* active,
                       u32 n, u32 source, u32* bar, u32* flags, u32* rounds_out) {
    u32 threads = gridDim.x * blockDim.x;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 v = t; v < n; v += threads) active[v] = v == source ? 1 : 0;
    grid_sync(bar);
    u32 round = 1;
    for (;; round++) {
        // bar[3 + round % 3] counts this round's blocks with changes, read by every block
        // after the round's barrier; the next round's is cleared now (its last reads came
        // before the barrier that ended round - 1).
        if (blockIdx.x == 0 && threadIdx.x == 0) bar[3 + (round + 1) % 3] = 0;
        bool changed = false;
        for (u32 u = t; u < n; u += threads) {
            if (ld(active + u) != round) continue;
            D du = Dist<D>::load(dist + u);
            for (u64 e = off[u]; e < off[u + 1]; e++) {
                u32 v = tgt[e];
                D nd;
                if (!Dist<D>::add(du, (D)wt[e], nd)) {
                    flags[FLAG_OVERFLOW] = 1;
                } else if (nd < Dist<D>::load(dist + v) && nd < Dist<D>::atomic_min(dist + v, nd)) {
                    active[v] = round + 1;
                    changed = true;
                }
            }
        }
        if (__syncthreads_or(changed) && threadIdx.x == 0) atomicAdd(bar + 3 + round % 3, 1);
        grid_sync(bar);
        if (ld(bar + 3 + round % 3) == 0) break;
        if (round >= n) {
            if (blockIdx.x == 0 && threadIdx.x == 0) flags[FLAG_NEGATIVE_CYCLE] = 1;
            break;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *rounds_out = round;
}

#define BELLMAN_FORD_KERNELS(SUFFIX, W, D)                                                     \
    extern "C" __global__ void __launch_bounds__(256) sssp_rounds_##SUFFIX(                    \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* active, u32 n, u32 source,  \
        u32* bar, u32* flags, u32* rounds_out) {                                               \
        rounds<W, D>(off, tgt, wt, dist, active, n, source, bar, flags, rounds_out);           \
    }
SSSP_INSTANTIATE(BELLMAN_FORD_KERNELS)
