// Betweenness centrality on the GPU: Brandes' algorithm from many sources at once, a block
// per source (centrality/cuda/mod.rs launches it and rescales the sums on the host).
//
// Block b takes source s = sources[first + b] and its own slices of the state: a cell of
// 16 bytes per vertex (its level, UNSEEN until reached, and one double: first the number
// of shortest paths sigma, f64 as NetworkX counts them, then the vertex's coefficient
// (1 + delta) / sigma once its dependency delta is known), the vertices in the order they
// were reached, and the start of each level in that order. A vertex's level and value
// share one 32-byte sector, so that an arc's visit costs one random access, not two or
// three. Forward, level by level: the frontier's vertices (a group of `group` lanes each,
// the lanes over its arcs) claim unseen neighbours for the next level by compare-and-swap,
// appending them to the order, and add their path counts to every neighbour on the next
// level (parallel arcs are distinct paths; self loops and arcs within a level count
// nothing). Backward, from the deepest level up: each vertex w pulls
// delta(w) = sigma(w) * sum over arcs w -> v with level(v) = level(w) + 1 of coef(v),
// its group's lanes summing by shuffles (NetworkX's arithmetic: coef(v) = (1 + delta(v)) /
// sigma(v), times sigma(w)), replaces its sigma with its own coefficient (only the level
// below is read meanwhile), and, unless it is s, adds delta(w) (plus 1 with endpoints; s
// then adds the number it reached) to bc by atomic addition and its fingerprint term
// (the contribution times a fixed weight of its vertex, centrality/mod.rs's
// fingerprint_weight, for the verifier) to the block's, written to fps[first + b]. Out-arcs
// serve both passes, so directed graphs need no transpose. Values other threads of the
// block write are read with __ldcg (from L2), so that no stale L1 line is read after a
// barrier.

#define UNSEEN 0xffffffffu

// centrality/mod.rs's fingerprint_weight: 1 + (SplitMix64 of x ^ golden) / 2^64, in [1, 2).
__device__ __forceinline__ double fingerprint_weight(u64 x) {
    u64 z = x ^ 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return 1.0 + (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

struct __align__(16) Cell {
    u32 level;
    u32 unused;
    double x;  // sigma, then (1 + delta) / sigma
};

// The level and value of cell c, in one 16-byte load from L2.
__device__ __forceinline__ void load_cell(const Cell* c, u32& level, double& x) {
    longlong2 both = __ldcg((const longlong2*)c);
    level = (u32)both.x;
    x = __longlong_as_double(both.y);
}

extern "C" __global__ void brandes_batch(const u64* off, const u32* tgt, u32 n,
                                         const u32* sources, u32 first, u32 group,
                                         u32 endpoints, Cell* cell_all, u32* order_all,
                                         u32* bounds_all, double* bc, double* fps) {
    __shared__ u32 tail;
    __shared__ double fp;
    u32 s = sources[first + blockIdx.x];
    Cell* cell = cell_all + (u64)blockIdx.x * n;
    u32* order = order_all + (u64)blockIdx.x * n;
    u32* bounds = bounds_all + (u64)blockIdx.x * (n + 1);
    u32 lane = threadIdx.x & (group - 1), team = threadIdx.x / group, teams = blockDim.x / group;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) {
        cell[v].level = v == s ? 0 : UNSEEN;
        cell[v].x = v == s ? 1.0 : 0.0;
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
            double su = __ldcg(&cell[u].x);
            for (u64 e = off[u] + lane; e < off[u + 1]; e += group) {
                u32 v = tgt[e];
                u32 lv = __ldcg(&cell[v].level);
                if (lv == UNSEEN) {
                    lv = atomicCAS(&cell[v].level, UNSEEN, next);
                    if (lv == UNSEEN) {
                        order[atomicAdd(&tail, 1)] = v;
                        lv = next;
                    }
                }
                if (lv == next) atomicAdd(&cell[v].x, su);
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
    // Levels 0..depth - 1: level k is order[bounds[k]..bounds[k + 1]]. The deepest level
    // has no successors (its dependencies are 0); level 0 is s alone, which adds nothing.
    u32 reached = end;
    double one = endpoints ? 1.0 : 0.0, mine = 0.0;
    for (int k = (int)depth - 1; k >= 1; k--) {
        u32 lo = __ldcg(bounds + k), hi = __ldcg(bounds + k + 1), succ = (u32)k + 1;
        bool deepest = k == (int)depth - 1;
        // Every thread runs the same rounds, so that the shuffles below see whole groups.
        for (u32 round = lo; round < hi; round += teams) {
            u32 i = round + team;
            double sum = 0.0;
            u32 w = 0;
            if (i < hi && !deepest) {
                w = __ldcg(order + i);
                for (u64 e = off[w] + lane; e < off[w + 1]; e += group) {
                    u32 lv;
                    double coef;
                    load_cell(cell + tgt[e], lv, coef);
                    if (lv == succ) sum += coef;
                }
            }
            for (u32 o = group / 2; o > 0; o /= 2)
                sum += __shfl_down_sync(0xffffffffu, sum, o, group);
            if (i < hi && lane == 0) {
                if (deepest) w = __ldcg(order + i);
                double sw = __ldcg(&cell[w].x);
                double delta = sw * sum;
                cell[w].x = (1.0 + delta) / sw;
                double c = delta + one;
                atomicAdd(bc + w, c);
                mine += c * fingerprint_weight(w);
            }
        }
        __threadfence_block();
        __syncthreads();
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
