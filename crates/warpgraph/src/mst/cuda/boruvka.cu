// Borůvka's minimum spanning forest on the GPU (after Vineet, Harish, Patidar and Narayanan's
// GPU MST; edge-centric after round 1).
// Host side and the method: mst/cuda/mod.rs.
//
// Keys: an arc's place in the total order is one 64-bit word, wk[arc] << shift | arc,
// where wk is the weight's 32-bit order key (or rank) and arc its CSR index; shift is the
// number of bits of the largest arc index, at most 31, so a key is below 2^63 and never
// NONE. Within a row arcs run in neighbour order, and canonical arcs (u < v) run in
// (u, v) order, so comparing keys compares (weight, smaller end, larger end).

#define NONE 0xffffffffffffffffULL
// Rows of at most THREAD_MAX arcs are scanned by a thread, up to WARP_MAX by a warp,
// longer ones by a block.
#define THREAD_MAX 16
#define WARP_MAX 4096
// Pointer-jumping steps one thread takes per launch before it leaves the rest to the next.
#define JUMP_STEPS 8

// The control words: the jump flag, the forest's length, the edge lists' lengths (two,
// ping-pong) and the root lists' lengths (two).
#define CTL_FLAG 0
#define CTL_FOREST 1
#define CTL_EDGES 2
#define CTL_ROOTS 4

// One edge between two different components: its key and the components' roots.
struct Entry {
    u64 key;
    u32 a, b;
};

__device__ __forceinline__ u64 arc_key(const u32* wk, u32 has_w, u32 shift, u64 arc) {
    return ((has_w ? (u64)wk[arc] : 0ULL) << shift) | arc;
}

// Lowers *p to k (a load first: most offers lose).
__device__ __forceinline__ void lower(u64* p, u64 k) {
    if (__ldcg(p) > k) atomicMin(p, k);
}

__device__ __forceinline__ u64 warp_min(u64 x) {
    for (int o = 16; o > 0; o >>= 1) x = min(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}

// A row is scanned by a group of G threads: 1 (a thread), 32 (a warp) or 0 (the block).
template <int G>
__device__ __forceinline__ u32 group_rank() {
    return G == 1 ? 0 : G == 32 ? (threadIdx.x & 31) : threadIdx.x;
}
template <int G>
__device__ __forceinline__ u32 group_size() {
    return G == 1 ? 1 : G == 32 ? 32 : blockDim.x;
}
template <int G>
__device__ __forceinline__ u64 group_index() {
    u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    return G == 1 ? t : G == 32 ? t >> 5 : blockIdx.x;
}

// The minimum over the group (every thread of the group calls it and gets it).
template <int G>
__device__ u64 group_min(u64 x) {
    if (G == 1) return x;
    x = warp_min(x);
    if (G == 32) return x;
    __shared__ u64 part[WARPS_MAX];
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) part[warp] = x;
    __syncthreads();
    if (warp == 0) {
        x = warp_min(lane < blockDim.x / 32 ? part[lane] : NONE);
        if (lane == 0) part[0] = x;
    }
    __syncthreads();
    return part[0];
}

// The vertex a group works on, or false when the group has none. The thread pass takes
// every vertex but leaves the rows longer than THREAD_MAX to the warp and block passes,
// whose lists the host made.
template <int G>
__device__ __forceinline__ bool group_vertex(const u64* off, u32 n, const u32* list, u32 count,
                                             u32* u) {
    u64 gi = group_index<G>();
    if (gi >= (G == 1 ? (u64)n : (u64)count)) return false;
    *u = G == 1 ? (u32)gi : list[gi];
    return G != 1 || off[*u + 1] - off[*u] <= THREAD_MAX;
}

// Round 1, vertex-centric: best[u] = the key of u's lightest arc to another vertex.
template <int G>
__device__ void choose(const u64* off, const u32* tgt, const u32* wk, u32 has_w, u32 shift,
                       u32 n, const u32* list, u32 count, u64* best) {
    u32 u;
    if (!group_vertex<G>(off, n, list, count, &u)) return;
    u64 m = NONE;
    for (u64 a = off[u] + group_rank<G>(); a < off[u + 1]; a += group_size<G>())
        if (tgt[a] != u) m = min(m, arc_key(wk, has_w, shift, a));
    m = group_min<G>(m);
    if (group_rank<G>() == 0) best[u] = m;
}

extern "C" __global__ void mst_choose_thread(const u64* off, const u32* tgt, const u32* wk,
                                             u32 has_w, u32 shift, u32 n, u64* best) {
    choose<1>(off, tgt, wk, has_w, shift, n, nullptr, 0, best);
}
extern "C" __global__ void mst_choose_warp(const u64* off, const u32* tgt, const u32* wk,
                                           u32 has_w, u32 shift, u32 n, const u32* list,
                                           u32 count, u64* best) {
    choose<32>(off, tgt, wk, has_w, shift, n, list, count, best);
}
extern "C" __global__ void mst_choose_block(const u64* off, const u32* tgt, const u32* wk,
                                            u32 has_w, u32 shift, u32 n, const u32* list,
                                            u32 count, u64* best) {
    choose<0>(off, tgt, wk, has_w, shift, n, list, count, best);
}

// The key of the canonical arc (u < v) of the lightest edge between u and v, given the
// key k of the lightest arc u -> v: k itself when u < v, else that of the lightest arc
// v -> u, found by binary search in v's sorted row (parallel arcs lie side by side).
__device__ u64 canonical_key(const u64* off, const u32* tgt, const u32* wk, u32 has_w,
                             u32 shift, u32 u, u32 v, u64 k) {
    if (u < v) return k;
    u64 lo = off[v], hi = off[v + 1];
    while (lo < hi) {
        u64 mid = (lo + hi) / 2;
        if (tgt[mid] < u) lo = mid + 1; else hi = mid;
    }
    u64 best = NONE;
    for (u64 a = lo; a < off[v + 1] && tgt[a] == u; a++)
        best = min(best, arc_key(wk, has_w, shift, a));
    return best;
}

// Round 1's hooks: u hooks onto the vertex its lightest arc leads to, except the smaller
// of a pair that chose each other, which stays a root; a hooking vertex's edge joins the
// forest (as its canonical key). Thread 0 also clears the control words of round 2.
extern "C" __global__ void mst_first_hook(const u64* off, const u32* tgt, const u32* wk,
                                          u32 has_w, const u64* best, u32 n, u32 shift,
                                          u32* parent, u64* forest, u32* ctl) {
    u32 u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u == 0) {
        ctl[CTL_FLAG] = 0;
        ctl[CTL_EDGES] = 0;
        ctl[CTL_ROOTS] = 0;
    }
    if (u >= n) return;
    u64 mask = (1ULL << shift) - 1;
    u64 k = best[u];
    u32 p = u;
    if (k != NONE) {
        u32 s = tgt[k & mask];
        u64 ks = best[s];
        bool mutual = ks != NONE && tgt[ks & mask] == u;
        if (!(mutual && u < s)) p = s;
    }
    parent[u] = p;
    bool hooks = p != u;
    u32 slot = warp_reserve(hooks, ctl + CTL_FOREST);
    if (hooks) forest[slot] = canonical_key(off, tgt, wk, has_w, shift, u, p, k);
}

// Pointer jumping: every listed root (every vertex when `all`) follows its parent chain,
// halving it, for up to JUMP_STEPS steps, and raises the flag if it has not reached the
// top. Resets the vertex's best key for the next offers on the way.
extern "C" __global__ void mst_jump(const u32* list, u32 count, u32 all, u32* parent, u64* best,
                                    u32* ctl) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    u32 r = all ? i : list[i];
    best[r] = NONE;
    u32 p = ld(parent + r);
    for (int step = 0; step < JUMP_STEPS; step++) {
        u32 up = ld(parent + p);
        if (up == p) return;
        p = up;
        parent[r] = p;
    }
    if (ld(parent + p) != p) ctl[CTL_FLAG] = 1;
}

// Keeps an edge between roots a != b (when `want`): appends it to the list, offers its key
// to both roots and puts each root on the next round's list once (stamp = round).
__device__ __forceinline__ void keep(bool want, u32 a, u32 b, u64 key, Entry* out, u64* best,
                                     u32* stamp, u32 round, u32* roots, u32* ctl, u32 slot) {
    u32 at = warp_reserve(want, ctl + CTL_EDGES + slot);
    bool fresh_a = false, fresh_b = false;
    if (want) {
        Entry e;
        e.key = key;
        e.a = a;
        e.b = b;
        out[at] = e;
        lower(best + a, key);
        lower(best + b, key);
        fresh_a = ld(stamp + a) != round && atomicExch(stamp + a, round) != round;
        fresh_b = ld(stamp + b) != round && atomicExch(stamp + b, round) != round;
    }
    warp_append(fresh_a, a, roots, ctl + CTL_ROOTS + slot);
    warp_append(fresh_b, b, roots, ctl + CTL_ROOTS + slot);
}

// After round 1: the list of the edges between different components, from the canonical
// arcs u -> v (u < v).
template <int G>
__device__ void first_edges(const u64* off, const u32* tgt, const u32* wk, u32 has_w, u32 shift,
                            u32 n, const u32* list, u32 count, const u32* parent, Entry* out,
                            u64* best, u32* stamp, u32* roots, u32* ctl) {
    u32 u;
    if (!group_vertex<G>(off, n, list, count, &u)) return;
    u32 a = parent[u];
    for (u64 arc = off[u] + group_rank<G>(); arc < off[u + 1]; arc += group_size<G>()) {
        u32 v = tgt[arc];
        u32 b = v > u ? parent[v] : a;
        keep(a != b, a, b, arc_key(wk, has_w, shift, arc), out, best, stamp, 1, roots, ctl, 0);
    }
}

extern "C" __global__ void mst_edges_thread(const u64* off, const u32* tgt, const u32* wk,
                                            u32 has_w, u32 shift, u32 n, const u32* parent,
                                            Entry* out, u64* best, u32* stamp, u32* roots,
                                            u32* ctl) {
    first_edges<1>(off, tgt, wk, has_w, shift, n, nullptr, 0, parent, out, best, stamp, roots,
                   ctl);
}
extern "C" __global__ void mst_edges_warp(const u64* off, const u32* tgt, const u32* wk,
                                          u32 has_w, u32 shift, u32 n, const u32* list,
                                          u32 count, const u32* parent, Entry* out, u64* best,
                                          u32* stamp, u32* roots, u32* ctl) {
    first_edges<32>(off, tgt, wk, has_w, shift, n, list, count, parent, out, best, stamp, roots,
                    ctl);
}
extern "C" __global__ void mst_edges_block(const u64* off, const u32* tgt, const u32* wk,
                                           u32 has_w, u32 shift, u32 n, const u32* list,
                                           u32 count, const u32* parent, Entry* out, u64* best,
                                           u32* stamp, u32* roots, u32* ctl) {
    first_edges<0>(off, tgt, wk, has_w, shift, n, list, count, parent, out, best, stamp, roots,
                   ctl);
}

// Later rounds' hooks: a root whose lightest edge this is hooks onto the other end (of a
// pair that chose the same edge, the larger onto the smaller), and the edge joins the
// forest once (its key: the canonical arc's). Thread 0 clears the control words the jump and filter passes fill.
extern "C" __global__ void mst_hook(const Entry* edges, u32 count, const u64* best,
                                    u32* parent, u64* forest, u32* ctl, u32 next) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        ctl[CTL_FLAG] = 0;
        ctl[CTL_EDGES + next] = 0;
        ctl[CTL_ROOTS + next] = 0;
    }
    if (i >= count) return;
    Entry e = edges[i];
    bool ta = best[e.a] == e.key, tb = best[e.b] == e.key;
    if (ta && tb)
        parent[max(e.a, e.b)] = min(e.a, e.b);
    else if (ta)
        parent[e.a] = e.b;
    else if (tb)
        parent[e.b] = e.a;
    bool take = ta || tb;
    u32 slot = warp_reserve(take, ctl + CTL_FOREST);
    if (take) forest[slot] = e.key;
}

// Drops the edges now inside one component, renames the others' ends to their roots and
// offers them for the next round (roots fully jumped before).
extern "C" __global__ void mst_filter(const Entry* in, u32 count, const u32* parent, Entry* out,
                                      u64* best, u32* stamp, u32 round, u32* roots, u32* ctl,
                                      u32 next) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    Entry e = in[i];
    u32 a = parent[e.a], b = parent[e.b];
    keep(a != b, a, b, e.key, out, best, stamp, round, roots, ctl, next);
}
