// The kernels around every search (sssp/cuda/search.rs launches them): the
// reset of distances, stamps and counters before it, and the parents pass after it,
// which gives every reached vertex the smallest tail of a tight arc, the CPU backend's
// rule (sssp/cpu/parents.rs), so that both backends return the same tree.

// Every distance infinite except the source's (packed: with itself as parent); the first
// list holds the source; the list counters (bar[3..8)) and flags zero; stamps zero; both
// gmin infinite, the two sums after them (doubles) zero. With source EVERYWHERE (never
// packed): every distance 0 and the first list holds every vertex.
template <typename D>
__device__ void reset(D* dist, u32* stamp, u32 n, u32 source, u32 packed, u32* first, u32* bar,
                      u32* flags, D* gmin) {
    bool everywhere = source == EVERYWHERE;
    if (blockIdx.x == 0 && threadIdx.x < 5) bar[3 + threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x < 2) flags[threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x < 2) gmin[threadIdx.x] = Dist<D>::inf();
    if (blockIdx.x == 0 && threadIdx.x < 2) ((double*)(gmin + 2))[threadIdx.x] = 0.0;
    if (blockIdx.x == 0 && threadIdx.x == 0 && !everywhere) first[0] = source;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        dist[v] = everywhere || v == source
                      ? (packed ? Packing<D>::pack(Dist<D>::zero(), source) : Dist<D>::zero())
                      : Dist<D>::inf();
        if (everywhere) first[v] = v;
        stamp[v] = 0;
    }
}

// Whether arc e (from x, at distance dx, to y) is tight: dist[y] == dx + w(e) (push) or,
// with pull, dist[y] + w(e) == dx.
template <typename W, typename D>
__device__ __forceinline__ bool tight(const u32* tgt, const W* wt, const D* dist, u64 e, D dx,
                                      bool pull, u32 source) {
    u32 y = tgt[e];
    D w = (D)wt[e], s, dy = dist[y];
    if (pull) return dy < Dist<D>::inf() && Dist<D>::add(dy, w, s) && s == dx;
    return y != source && Dist<D>::add(dx, w, s) && s == dy;
}

// Parents from final distances, as the CPU backend chooses them (sssp/cpu/parents.rs):
// each reached v other than the source takes the smallest u of a tight arc u -> v
// (dist[u] + w == dist[v]); pulled from v's own row when the graph is symmetric (rows are
// sorted, so the first tight one is the smallest), else pushed by every reached u with an
// atomic minimum (parent[] must hold NO_VERTEX, the source's itself). A tight arc of
// weight <= 0 (pulling: the chosen one; pushing: any, as the CPU backend decides) sets
// flags[FLAG_PARENTS]: the parents might then form a cycle, and parents.cu's breadth-first
// search over tight arcs chooses them instead.
template <typename W, typename D>
__device__ void parents(const u64* off, const u32* tgt, const W* wt, const D* dist,
                        u32* parent, u32 n, u32 source, u32 symmetric, u32* flags) {
    u32 lane = threadIdx.x & 31;
    u32 threads = gridDim.x * blockDim.x;
    bool pull = symmetric != 0;
    // What vertex x does with its tight arc e.
    auto take = [&](u32 x, u64 e) {
        u32 y = tgt[e];
        bool positive = (D)wt[e] > Dist<D>::zero();
        if (pull) {
            parent[x] = y;
            if (!positive) flags[FLAG_PARENTS] = 1;
        } else {
            atomicMin(parent + y, x);
            if (!positive) flags[FLAG_PARENTS] = 1;
        }
    };
    // A thread per vertex of fewer than 32 arcs; a warp for each bigger one, 32 arcs at a
    // time, pulling stopping at the first tight arc (rows are sorted: the smallest u).
    for (u32 base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < n; base += threads) {
        u32 x = base + lane;
        D dx = x < n ? dist[x] : Dist<D>::inf();
        bool live = dx < Dist<D>::inf() && !(pull && x == source);
        u64 b = live ? off[x] : 0, e = live ? off[x + 1] : 0;
        if (e - b < 32) {
            for (u64 a = b; a < e; a++) {
                if (tight(tgt, wt, dist, a, dx, pull, source)) {
                    take(x, a);
                    if (pull) break;
                }
            }
        }
        unsigned big = __ballot_sync(0xffffffffu, e - b >= 32);
        while (big) {
            int src = __ffs(big) - 1;
            big &= big - 1;
            u32 xx = __shfl_sync(0xffffffffu, x, src);
            D dd = __shfl_sync(0xffffffffu, dx, src);
            u64 bb = __shfl_sync(0xffffffffu, b, src), ee = __shfl_sync(0xffffffffu, e, src);
            for (u64 a0 = bb; a0 < ee; a0 += 32) {
                u64 a = a0 + lane;
                bool t = a < ee && tight(tgt, wt, dist, a, dd, pull, source);
                unsigned hits = __ballot_sync(0xffffffffu, t);
                if (pull) {
                    if (hits) {
                        if (lane == (u32)(__ffs(hits) - 1)) take(xx, a);
                        break;
                    }
                } else if (t) {
                    take(xx, a);
                }
            }
        }
    }
}

// parent[v] = NO_VERTEX for every v but the source (its own); flags[FLAG_PARENTS] = 0.
extern "C" __global__ void sssp_parents_init(u32* parent, u32 n, u32 source, u32* flags) {
    if (blockIdx.x == 0 && threadIdx.x == 0) flags[FLAG_PARENTS] = 0;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
        parent[v] = v == source ? source : 0xffffffffu;
}

#define SEARCH_KERNELS(SUFFIX, W, D)                                                           \
    extern "C" __global__ void sssp_reset_##SUFFIX(D* dist, u32* stamp, u32 n, u32 source,     \
                                                   u32 packed, u32* first, u32* bar,           \
                                                   u32* flags, D* gmin) {                      \
        reset<D>(dist, stamp, n, source, packed, first, bar, flags, gmin);                     \
    }                                                                                          \
    extern "C" __global__ void sssp_parents_##SUFFIX(const u64* off, const u32* tgt,           \
                                                     const W* wt, const D* dist, u32* parent,  \
                                                     u32 n, u32 source, u32 symmetric,         \
                                                     u32* flags) {                             \
        parents<W, D>(off, tgt, wt, dist, parent, n, source, symmetric, flags);                \
    }
SSSP_INSTANTIATE(SEARCH_KERNELS)
