// Kernels of the BFS over several GPUs (bfs/cuda/multi.rs drives them); cuda/common.cuh
// comes first.
//
// Rank r owns the vertices [lo, lo + nl), lo = 32 * lo_word: its rows of the graph (local
// offsets, global targets) and their depths. Bitmaps cover every vertex, a bit per vertex
// in 32-bit words, the same on every rank: `front` (the level's frontier), `visited`.
// `next` collects what this rank's top-down expansion found, anywhere in the graph; `own`
// is this rank's part (seg words) of the next frontier, which an all-gather makes the
// next `front` of every rank. `stats` gets the vertices and the out-arcs of the next
// frontier (u64 each), summed over the ranks by an all-reduce.

#define UNREACHED 0xffffffffu
#define FULL 0xffffffffu

// Sums a 64-bit value over the warp; lane 0 adds it to *dst.
__device__ __forceinline__ void warp_add(u64 x, u64* dst) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
    if ((threadIdx.x & 31) == 0 && x) atomicAdd(dst, x);
}

// Zeroes both bitmaps and this rank's depths; the source's bit goes into both, its depth
// (on its owner) to 0.
extern "C" __global__ void mbfs_reset(u32* front, u32* visited, u32 words, u32* depth, u32 nl_pad,
                                      u32 source, u32 lo) {
    u32 stride = gridDim.x * blockDim.x;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        u32 x = i == source / 32 ? 1u << (source % 32) : 0;
        front[i] = x;
        visited[i] = x;
    }
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < nl_pad; i += stride)
        depth[i] = lo + i == source ? 0 : UNREACHED;
}

// The frontier's vertices of this rank as a list of local ids; each warp reserves its
// slots with one atomic add. Vertices of BIG out-arcs or more go to `big` instead (their
// count in *blen), for the whole grid to expand.
#define BIG 2048
extern "C" __global__ void mbfs_queue(const u32* front, u32 lo_word, u32 seg, const u64* off,
                                      u32* queue, u32* qlen, u32* big, u32* blen) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    // A warp takes 32 words a round; every lane runs the same rounds (shuffles need all).
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < seg; base += stride) {
        u32 w = base + lane;
        u32 bits = w < seg ? front[lo_word + w] : 0;
        u32 c = __popc(bits), incl = c;
        for (int o = 1; o < 32; o <<= 1) {
            u32 t = __shfl_up_sync(FULL, incl, o);
            if (lane >= o) incl += t;
        }
        u32 total = __shfl_sync(FULL, incl, 31);
        u32 at = 0;
        if (lane == 31 && total) at = atomicAdd(qlen, total);
        at = __shfl_sync(FULL, at, 31) + incl - c;
        while (bits) {
            u32 b = __ffs(bits) - 1;
            bits &= bits - 1;
            u32 v = w * 32 + b;
            // A big vertex leaves a hole (UNREACHED) in the warps' queue.
            if (off[v + 1] - off[v] >= BIG) {
                big[atomicAdd(blen, 1)] = v;
                v = UNREACHED;
            }
            queue[at++] = v;
        }
    }
}

// Top-down for the big vertices: the whole grid strides over each one's arcs in turn.
extern "C" __global__ void mbfs_top_down_big(const u64* off, const u32* tgt, const u32* big,
                                             const u32* blen, const u32* visited, u32* next) {
    u32 len = *blen;
    u64 stride = (u64)gridDim.x * blockDim.x;
    for (u32 i = 0; i < len; i++) {
        u32 v = big[i];
        u64 end = off[v + 1];
        for (u64 a = off[v] + blockIdx.x * blockDim.x + threadIdx.x; a < end; a += stride) {
            u32 t = tgt[a];
            u32 bit = 1u << (t % 32);
            if (!(visited[t / 32] & bit) && !(ld(next + t / 32) & bit)) atomicOr(next + t / 32, bit);
        }
    }
}

// Top-down: a warp per queued vertex, its lanes over the out-arcs; an unvisited target's
// bit is set in `next` (wherever its owner is).
extern "C" __global__ void mbfs_top_down(const u64* off, const u32* tgt, const u32* queue,
                                         const u32* qlen, const u32* visited, u32* next) {
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    u32 len = *qlen;
    for (u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < len; i += warps) {
        u32 v = queue[i];
        if (v == UNREACHED) continue;  // a big vertex (mbfs_top_down_big)
        u64 end = off[v + 1];
        for (u64 a = off[v] + lane; a < end; a += 32) {
            u32 t = tgt[a];
            u32 bit = 1u << (t % 32);
            if (!(visited[t / 32] & bit) && !(ld(next + t / 32) & bit)) atomicOr(next + t / 32, bit);
        }
    }
}

// This rank's part of the next frontier after a top-down step: its words of `next` and of
// what the other ranks found for it (`inbox`: the addresses of `peers` buffers of seg
// words), less the visited;
// depths and statistics of the new vertices.
extern "C" __global__ void mbfs_merge(const u32* next, const u64* inbox, u32 peers, u32 lo_word,
                                      u32 seg, u32 nl, const u32* visited, u32* own, u32* depth,
                                      u32 level, const u64* off, u64* stats) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < seg; base += stride) {
        u32 w = base + lane;
        u64 found = 0, arcs = 0;
        if (w < seg) {
            u32 x = next[lo_word + w];
            for (u32 p = 0; p < peers; p++) x |= ((const u32*)inbox[p])[w];
            x &= ~visited[lo_word + w];
            own[w] = x;
            found = __popc(x);
            while (x) {
                u32 v = w * 32 + __ffs(x) - 1;
                x &= x - 1;
                if (v < nl) {
                    depth[v] = level + 1;
                    arcs += off[v + 1] - off[v];
                }
            }
        }
        warp_add(found, stats);
        warp_add(arcs, stats + 1);
    }
}

// Bottom-up: a thread per vertex of this rank, a warp per word; an unvisited vertex with
// an in-neighbour in the frontier joins the next frontier (its bit set by the warp's
// ballot, no atomics).
extern "C" __global__ void mbfs_bottom_up(const u64* roff, const u32* rtgt, u32 nl, u32 lo_word,
                                          u32 seg, const u32* front, const u32* visited, u32* own,
                                          u32* depth, u32 level, const u64* off, u64* stats) {
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    for (u32 w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < seg; w += warps) {
        u32 v = w * 32 + lane;
        bool found = false;
        if (v < nl && !(visited[lo_word + w] & (1u << lane))) {
            u64 end = roff[v + 1];
            for (u64 a = roff[v]; a < end; a++) {
                u32 u = rtgt[a];
                if (front[u / 32] & (1u << (u % 32))) {
                    found = true;
                    break;
                }
            }
        }
        u32 word = __ballot_sync(FULL, found);
        if (lane == 0) own[w] = word;
        u64 arcs = 0;
        if (found) {
            depth[v] = level + 1;
            arcs = off[v + 1] - off[v];
        }
        warp_add(found ? 1 : 0, stats);
        warp_add(arcs, stats + 1);
    }
}

// visited |= front, over every word.
extern "C" __global__ void mbfs_visit(const u32* front, u32* visited, u32 words) {
    u32 stride = gridDim.x * blockDim.x;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        visited[i] |= front[i];
}

// Parents, once every rank has every depth (`all`): the first in-neighbour, in arc order,
// one level up, so that the tree does not depend on the number of GPUs; the source is its
// own parent (and the parent of every vertex of depth 1, its only vertex of depth 0), an
// unreached vertex has none. A warp takes 32 vertices: each lane scans its own if it has
// at most 32 in-arcs, then the warp scans each bigger one together, 32 arcs a step.
extern "C" __global__ void mbfs_parents(const u64* roff, const u32* rtgt, u32 nl, u32 nl_pad,
                                        u32 lo, const u32* all, u32* parent, u32 source) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < nl_pad; base += stride) {
        u32 v = base + lane;
        u32 p = UNREACHED;
        u32 d = v < nl ? all[lo + v] : UNREACHED;
        bool wide = false;
        if (d == 0) {
            p = lo + v;
        } else if (d == 1) {
            p = source;
        } else if (d != UNREACHED) {
            u64 a = roff[v], end = roff[v + 1];
            if (end - a > 32) {
                wide = true;
            } else {
                for (; a < end; a++) {
                    u32 u = rtgt[a];
                    if (all[u] == d - 1) {
                        p = u;
                        break;
                    }
                }
            }
        }
        u32 todo = __ballot_sync(FULL, wide);
        while (todo) {
            u32 l = __ffs(todo) - 1;
            todo &= todo - 1;
            u32 wv = base + l, wd = __shfl_sync(FULL, d, l);
            u64 end = roff[wv + 1];
            u32 found = UNREACHED;
            for (u64 a = roff[wv]; a < end && found == UNREACHED; a += 32) {
                u32 u = a + lane < end ? rtgt[a + lane] : UNREACHED;
                u32 hit = __ballot_sync(FULL, u != UNREACHED && all[u] == wd - 1);
                if (hit) found = __shfl_sync(FULL, u, __ffs(hit) - 1);
            }
            if (lane == l) p = found;
        }
        if (v < nl_pad) parent[v] = p;
    }
}
