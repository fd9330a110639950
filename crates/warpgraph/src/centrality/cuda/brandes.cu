// Betweenness centrality on the GPU: Brandes' algorithm from many sources at once, a block
// per source (centrality/cuda/mod.rs launches it and rescales the sums on the host).
//
// Block b takes source s = sources[first + b] and its own slices of the state: levels
// (UNSEEN until reached), path counts sigma (f64, as NetworkX counts them), dependencies
// delta, the vertices in the order they were reached, and the start of each level in that
// order. Forward, level by level: the frontier's vertices (a group of `group` lanes each,
// the lanes over its arcs) claim unseen neighbours for the next level by compare-and-swap,
// appending them to the order, and add their path counts to every neighbour on the next
// level (parallel arcs are distinct paths; self loops and arcs within a level count
// nothing). Backward, from the deepest level up: each vertex w pulls
// delta(w) = sum over arcs w -> v with level(v) = level(w) + 1 of
// sigma(w) / sigma(v) * (1 + delta(v)), its group's lanes summing by shuffles; then every
// reached vertex but s adds delta(w) (plus 1 with endpoints; s then adds the number it
// reached) to bc by atomic addition, and the block sums its source's fingerprint (each
// contribution times a fixed weight of its vertex, centrality/mod.rs's
// fingerprint_weight, for the verifier) into fps[first + b]. Out-arcs serve both passes, so directed graphs need
// no transpose. Values other threads of the block write are read with __ldcg (from L2),
// so that no stale L1 line is read after a barrier.

#define UNSEEN 0xffffffffu

// centrality/mod.rs's fingerprint_weight: 1 + (SplitMix64 of x ^ golden) / 2^64, in [1, 2).
__device__ __forceinline__ double fingerprint_weight(u64 x) {
    u64 z = x ^ 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 1.0 + (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

extern "C" __global__ void brandes_batch(const u64* off, const u32* tgt, u32 n,
                                         const u32* sources, u32 first, u32 group,
                                         u32 endpoints, u32* level_all, double* sigma_all,
                                         double* delta_all, u32* order_all, u32* bounds_all,
                                         double* bc, double* fps) {
    __shared__ u32 tail;
    __shared__ double fp;
    u32 s = sources[first + blockIdx.x];
    u64 base = (u64)blockIdx.x * n;
    u32* level = level_all + base;
    double* sigma = sigma_all + base;
    double* delta = delta_all + base;
    u32* order = order_all + base;
    u32* bounds = bounds_all + (u64)blockIdx.x * (n + 1);
    u32 lane = threadIdx.x & (group - 1), team = threadIdx.x / group, teams = blockDim.x / group;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) {
        level[v] = v == s ? 0 : UNSEEN;
        sigma[v] = v == s ? 1.0 : 0.0;
        delta[v] = 0.0;
    }
    if (threadIdx.x == 0) {
        order[0] = s;
        bounds[0] = 0;
        tail = 1;
        fp = 0.0;
    }
    __threadfence_block();
    __syncthreads();
    u32 start = 0, end = 1, depth = 0;
    while (start < end) {
        u32 next = depth + 1;
        for (u32 i = start + team; i < end; i += teams) {
            u32 u = order[i];
            double su = __ldcg(sigma + u);
            for (u64 e = off[u] + lane; e < off[u + 1]; e += group) {
                u32 v = tgt[e];
                u32 lv = __ldcg(level + v);
                if (lv == UNSEEN) {
                    lv = atomicCAS(level + v, UNSEEN, next);
                    if (lv == UNSEEN) {
                        order[atomicAdd(&tail, 1)] = v;
                        lv = next;
                    }
                }
                if (lv == next) atomicAdd(sigma + v, su);
            }
        }
        __threadfence_block();
        __syncthreads();
        start = end;
        end = tail;
        depth = next;
        if (threadIdx.x == 0) bounds[depth] = start;
        __syncthreads();
    }
    // Levels 0..depth - 1: level k is order[bounds[k]..bounds[k + 1]]; the deepest one's
    // dependencies stay 0.
    u32 reached = end;
    for (int k = (int)depth - 2; k >= 0; k--) {
        u32 lo = __ldcg(bounds + k), hi = __ldcg(bounds + k + 1), succ = (u32)k + 1;
        // Every thread runs the same rounds, so that the shuffles below see whole groups.
        for (u32 round = lo; round < hi; round += teams) {
            u32 i = round + team;
            double d = 0.0;
            u32 w = 0;
            if (i < hi) {
                w = __ldcg(order + i);
                double sw = __ldcg(sigma + w);
                for (u64 e = off[w] + lane; e < off[w + 1]; e += group) {
                    u32 v = tgt[e];
                    if (__ldcg(level + v) == succ)
                        d += sw / __ldcg(sigma + v) * (1.0 + __ldcg(delta + v));
                }
            }
            for (u32 o = group / 2; o > 0; o /= 2) d += __shfl_down_sync(0xffffffffu, d, o, group);
            if (i < hi && lane == 0) delta[w] = d;
        }
        __threadfence_block();
        __syncthreads();
    }
    double one = endpoints ? 1.0 : 0.0, mine = 0.0;
    for (u32 i = 1 + threadIdx.x; i < reached; i += blockDim.x) {
        u32 w = __ldcg(order + i);
        double c = __ldcg(delta + w) + one;
        atomicAdd(bc + w, c);
        mine += c * fingerprint_weight(w);
    }
    if (endpoints && threadIdx.x == 0) {
        double c = (double)(reached - 1);
        atomicAdd(bc + s, c);
        mine += c * fingerprint_weight(s);
    }
    atomicAdd(&fp, mine);
    __syncthreads();
    if (threadIdx.x == 0) fps[first + blockIdx.x] = fp;
}
