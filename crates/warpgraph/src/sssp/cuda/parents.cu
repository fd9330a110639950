// The breadth-first search over tight arcs that chooses the parents when some tight arc
// weighs 0 or less (search.cu's parents pass then sets flags[FLAG_PARENTS] and
// sssp/cuda/parents.rs runs this instead): the CPU backend's rule (sssp/cpu/parents.rs,
// tight_bfs), level by level from the source, where v on level L + 1 takes the smallest
// tight in-neighbour on level L. A launch per level over its frontier: each tail u walks
// its arcs, claims an unlevelled tight head v for level L + 1 with a compare-and-swap
// (the winner appends v to the next frontier), and where v's level is L + 1 lowers v's
// parent to u with an atomic minimum. Levels and parents do not depend on thread timing,
// so both backends give the same tree.

// No level yet.
#define TIGHT_UNSET 0xffffffffu

// level[v] = TIGHT_UNSET and parent[v] = NONE for every v but the source (level 0, its own
// parent); the first frontier holds the source.
extern "C" __global__ void sssp_tight_init(u32* level, u32* parent, u32 n, u32 source,
                                           u32* frontier) {
    if (blockIdx.x == 0 && threadIdx.x == 0) frontier[0] = source;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        level[v] = v == source ? 0 : TIGHT_UNSET;
        parent[v] = v == source ? source : NONE;
    }
}

// What tail u on level depth does with its tight arc to v.
__device__ __forceinline__ void tight_visit(u32 u, u32 v, u32 depth, u32* level, u32* parent,
                                            u32* next, u32* ctr) {
    u32 up = depth + 1;
    u32 l = ld(level + v);
    bool claimed = false;
    if (l == TIGHT_UNSET) {
        l = atomicCAS(level + v, TIGHT_UNSET, up);
        claimed = l == TIGHT_UNSET;
        if (claimed) l = up;
    }
    if (claimed) next[atomicAdd(ctr, 1u)] = v;
    if (l == up) atomicMin(parent + v, u);
}

// One level: the `count` vertices of frontier[] (all on level `depth`) visit their tight
// arcs (search.cu's tight test, pushing); the next frontier goes to next[], its size to
// *ctr (zero before the launch). A thread per vertex of fewer than 32 arcs, a warp for
// each bigger one, 32 arcs at a time.
template <typename W, typename D>
__device__ void tight_level(const u64* off, const u32* tgt, const W* wt, const D* dist,
                            const u32* frontier, u32 count, u32 depth, u32 source, u32* level,
                            u32* parent, u32* next, u32* ctr) {
    u32 lane = threadIdx.x & 31;
    u32 threads = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < count;
         base += threads) {
        u32 i = base + lane;
        u32 u = i < count ? frontier[i] : 0;
        D du = i < count ? dist[u] : Dist<D>::inf();
        u64 b = i < count ? off[u] : 0, e = i < count ? off[u + 1] : 0;
        if (e - b < 32) {
            for (u64 a = b; a < e; a++)
                if (tight(tgt, wt, dist, a, du, false, source))
                    tight_visit(u, tgt[a], depth, level, parent, next, ctr);
        }
        unsigned big = __ballot_sync(0xffffffffu, e - b >= 32);
        while (big) {
            int src = __ffs(big) - 1;
            big &= big - 1;
            u32 uu = __shfl_sync(0xffffffffu, u, src);
            D dd = __shfl_sync(0xffffffffu, du, src);
            u64 bb = __shfl_sync(0xffffffffu, b, src), ee = __shfl_sync(0xffffffffu, e, src);
            for (u64 a = bb + lane; a < ee; a += 32)
                if (tight(tgt, wt, dist, a, dd, false, source))
                    tight_visit(uu, tgt[a], depth, level, parent, next, ctr);
        }
    }
}

#define TIGHT_KERNELS(SUFFIX, W, D)                                                            \
    extern "C" __global__ void sssp_tight_level_##SUFFIX(                                      \
        const u64* off, const u32* tgt, const W* wt, const D* dist, const u32* frontier,       \
        u32 count, u32 depth, u32 source, u32* level, u32* parent, u32* next, u32* ctr) {      \
        tight_level<W, D>(off, tgt, wt, dist, frontier, count, depth, source, level, parent,   \
                          next, ctr);                                                          \
    }
SSSP_INSTANTIATE(TIGHT_KERNELS)
