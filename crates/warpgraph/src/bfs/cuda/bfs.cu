// Kernels of the GPU breadth-first search; bfs/cuda/mod.rs drives them level by level.
//
// State: depth[v] (UNVISITED until reached) and parent[v]. A vertex is written by every
// thread that finds it in the same level, each writing the same depth and a valid parent,
// so no atomics are needed: whichever parent lands last is one level up and joined by
// an arc.
//
// Queues (Enterprise, Liu and Huang, SC'15): bfs_classify scans the status array (or the
// previous queue) in two passes, counting per block and then writing, with one exclusive
// scan (bfs_scan) in between that places every block's vertices: no atomics, no
// duplicates, and the output keeps vertex order. Each pass sorts vertices into up to
// five lists at once:
//   top-down (mode 0), the frontier (depth == level) by out-degree:
//     class 0: < 32 arcs (a thread each), 1: 32..255 (a warp), 2: 256..65,536 (a block),
//     3: > 65,536 (the whole grid); without balancing every vertex goes to class 0;
//   bottom-up (mode 1), class 0: the unvisited vertices (the next bottom-up queue);
//   both modes, class 4: the frontier's hubs (out-degree > tau), for the switch and for
//     the bottom-up hub cache.

typedef unsigned int u32;
typedef unsigned long long u64;

#define UNVISITED 0xffffffffu
#define NCLASS 5
#define WARPS_MAX 32
// Entries of the bottom-up hub cache (a power of two; 16 KiB of shared memory).
#define HUB_CACHE 4096

__device__ __forceinline__ void visit(u32* depth, u32* parent, u32 u, u32 w, u32 next) {
    if (depth[w] == UNVISITED) {
        depth[w] = next;
        parent[w] = u;
    }
}

// Every vertex unvisited except the source.
extern "C" __global__ void bfs_reset(u32* depth, u32* parent, u32 n, u32 source) {
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        depth[v] = v == source ? 0 : UNVISITED;
        parent[v] = v == source ? source : UNVISITED;
    }
}

// Baseline top-down step: one thread per vertex; the frontier's vertices expand their arcs.
extern "C" __global__ void bfs_td_baseline(const u64* off, const u32* tgt, u32* depth,
                                           u32* parent, u32 n, u32 level, u32* awake) {
    bool found = false;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        if (depth[v] != level) continue;
        for (u64 e = off[v]; e < off[v + 1]; e++) {
            u32 w = tgt[e];
            if (depth[w] == UNVISITED) {
                depth[w] = level + 1;
                parent[w] = v;
                found = true;
            }
        }
    }
    if (found) *awake = 1;
}

// Baseline bottom-up step: one thread per vertex; an unvisited vertex takes the first
// in-neighbour it finds in the frontier.
extern "C" __global__ void bfs_bu_baseline(const u64* roff, const u32* rtgt, u32* depth,
                                           u32* parent, u32 n, u32 level, u32* awake) {
    bool found = false;
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        if (depth[v] != UNVISITED) continue;
        for (u64 e = roff[v]; e < roff[v + 1]; e++) {
            u32 u = rtgt[e];
            if (depth[u] == level) {
                depth[v] = level + 1;
                parent[v] = u;
                found = true;
                break;
            }
        }
    }
    if (found) *awake = 1;
}

// The classes vertex v belongs to, as a bit mask (see the file comment).
__device__ __forceinline__ u32 classes_of(u32 v, u32 mode, const u32* depth, const u64* off,
                                          u32 level, u64 tau, u32 balance) {
    u32 d = depth[v];
    u32 mask = 0;
    if (d == level) {
        // Only the frontier's degrees are needed: the other vertices cost one load.
        u64 deg = off[v + 1] - off[v];
        if (mode == 0) {
            u32 c = 0;
            if (balance) c = deg < 32 ? 0 : deg < 256 ? 1 : deg <= 65536 ? 2 : 3;
            mask = 1u << c;
        }
        if (deg > tau) mask |= 1u << 4;
    } else if (mode == 1 && d == UNVISITED) {
        mask = 1;
    }
    return mask;
}

// Sum over the block of one value per thread (blockDim.x a multiple of 32).
__device__ u32 block_sum(u32 x, u32* scratch) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __syncthreads();
    if (lane == 0) scratch[warp] = x;
    __syncthreads();
    u32 total = 0;
    for (u32 w = 0; w < blockDim.x / 32; w++) total += scratch[w];
    return total;
}

// Queue generation. Items 0..len are vertex ids (use_list == 0) or list[0..len]. Block b
// handles items [b * chunk, (b + 1) * chunk), threads interleaved within it.
//   write == 0: counts[c * gridDim.x + b] = vertices of class c in block b.
//   write == 1: counts holds, per class and block, the first output slot (bfs_scan made
//     it); class c < 4 goes to out[], class 4 to hubs[].
extern "C" __global__ void bfs_classify(u32 mode, u32 write, const u32* list, u32 use_list,
                                        u32 len, u32 chunk, const u32* depth, const u64* off,
                                        u32 level, u64 tau, u32 balance, u32* counts, u32* out,
                                        u32* hubs) {
    __shared__ u32 warp_counts[NCLASS][WARPS_MAX];
    __shared__ u32 running[NCLASS];
    __shared__ u32 scratch[WARPS_MAX];
    u32 b = blockIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 nwarps = blockDim.x / 32;
    u32 begin = b * chunk;
    u32 end = min(len, begin + chunk);

    if (!write) {
        u32 mine[NCLASS] = {0, 0, 0, 0, 0};
        for (u32 i = begin + threadIdx.x; i < end; i += blockDim.x) {
            u32 v = use_list ? list[i] : i;
            u32 m = classes_of(v, mode, depth, off, level, tau, balance);
            for (int c = 0; c < NCLASS; c++) mine[c] += (m >> c) & 1;
        }
        for (int c = 0; c < NCLASS; c++) {
            u32 total = block_sum(mine[c], scratch);
            if (threadIdx.x == 0) counts[c * gridDim.x + b] = total;
        }
        return;
    }

    if (threadIdx.x < NCLASS) running[threadIdx.x] = counts[threadIdx.x * gridDim.x + b];
    // Every thread of the block runs the same number of rounds (the ballots need them all).
    for (u32 base = begin; base < end; base += blockDim.x) {
        u32 i = base + threadIdx.x;
        u32 v = 0, m = 0;
        if (i < end) {
            v = use_list ? list[i] : i;
            m = classes_of(v, mode, depth, off, level, tau, balance);
        }
        u32 ballots[NCLASS];
        for (int c = 0; c < NCLASS; c++) {
            ballots[c] = __ballot_sync(0xffffffffu, (m >> c) & 1);
            if (lane == 0) warp_counts[c][warp] = __popc(ballots[c]);
        }
        __syncthreads();
        // One thread per class turns the warp counts into exclusive offsets.
        if (threadIdx.x < NCLASS) {
            u32 c = threadIdx.x, sum = running[c];
            for (u32 w = 0; w < nwarps; w++) {
                u32 x = warp_counts[c][w];
                warp_counts[c][w] = sum;
                sum += x;
            }
            running[c] = sum;
        }
        __syncthreads();
        u32 below = (1u << lane) - 1;
        for (int c = 0; c < NCLASS; c++) {
            if ((m >> c) & 1) {
                u32 slot = warp_counts[c][warp] + __popc(ballots[c] & below);
                if (c < 4) out[slot] = v;
                else hubs[slot] = v;
            }
        }
        __syncthreads();
    }
}

// One block: for each class c, an exclusive scan of counts[c * blocks .. + blocks] in
// place, classes 0-3 laid out one after another (class 4 starts at 0 in its own list).
// totals[c] = the class's size; totals[5] = classes 0-3 together.
extern "C" __global__ void bfs_scan(u32* counts, u32 blocks, u32* totals) {
    __shared__ u32 sums[1024];
    u32 t = threadIdx.x;
    u32 per = (blocks + blockDim.x - 1) / blockDim.x;
    u32 base = 0;
    for (int c = 0; c < NCLASS; c++) {
        u32* row = counts + c * blocks;
        u32 lo = min(blocks, t * per), hi = min(blocks, lo + per);
        u32 s = 0;
        for (u32 i = lo; i < hi; i++) s += row[i];
        sums[t] = s;
        __syncthreads();
        // Hillis-Steele inclusive scan of the per-thread sums.
        for (u32 o = 1; o < blockDim.x; o <<= 1) {
            u32 x = t >= o ? sums[t - o] : 0;
            __syncthreads();
            sums[t] += x;
            __syncthreads();
        }
        u32 total = sums[blockDim.x - 1];
        u32 run = (c < 4 ? base : 0) + sums[t] - s;
        for (u32 i = lo; i < hi; i++) {
            u32 x = row[i];
            row[i] = run;
            run += x;
        }
        if (t == 0) totals[c] = total;
        if (c < 4) base += total;
        __syncthreads();
    }
    if (t == 0) totals[5] = base;
}

// Top-down expansion of the classified frontier, all four granularities in one launch:
// blocks [0, b1) give a thread to each class-0 vertex, [b1, b2) a warp to each class-1
// vertex, [b2, b3) a block to each class-2 vertex, and [b3, gridDim.x) share every
// class-3 vertex's arcs among all their threads. The classes sit one after another in
// queue: sizes c0, c1, c2, c3.
extern "C" __global__ void bfs_td_expand(const u32* queue, u32 c0, u32 c1, u32 c2, u32 c3,
                                         u32 b1, u32 b2, u32 b3, const u64* off,
                                         const u32* tgt, u32* depth, u32* parent, u32 level) {
    u32 b = blockIdx.x, next = level + 1;
    if (b < b1) {
        u32 i = b * blockDim.x + threadIdx.x;
        if (i >= c0) return;
        u32 u = queue[i];
        for (u64 e = off[u]; e < off[u + 1]; e++) visit(depth, parent, u, tgt[e], next);
    } else if (b < b2) {
        u32 i = (b - b1) * (blockDim.x / 32) + (threadIdx.x >> 5);
        if (i >= c1) return;
        u32 u = queue[c0 + i];
        for (u64 e = off[u] + (threadIdx.x & 31); e < off[u + 1]; e += 32)
            visit(depth, parent, u, tgt[e], next);
    } else if (b < b3) {
        u32 i = b - b2;
        if (i >= c2) return;
        u32 u = queue[c0 + c1 + i];
        for (u64 e = off[u] + threadIdx.x; e < off[u + 1]; e += blockDim.x)
            visit(depth, parent, u, tgt[e], next);
    } else {
        u64 t = (u64)(b - b3) * blockDim.x + threadIdx.x;
        u64 stride = (u64)(gridDim.x - b3) * blockDim.x;
        for (u32 k = 0; k < c3; k++) {
            u32 u = queue[c0 + c1 + c2 + k];
            for (u64 e = off[u] + t; e < off[u + 1]; e += stride)
                visit(depth, parent, u, tgt[e], next);
        }
    }
}

// Bottom-up step over the queue of unvisited vertices: each takes the first in-neighbour
// in the frontier (depth == level). With use_cache, each block first loads the frontier's
// hubs into a shared-memory table (slot = id mod HUB_CACHE; a collision just loses an
// entry) and an in-neighbour found there needs no load from global memory.
extern "C" __global__ void bfs_bu_queue(const u32* queue, u32 len, const u32* hubs, u32 nhubs,
                                        u32 use_cache, const u64* roff, const u32* rtgt,
                                        u32* depth, u32* parent, u32 level) {
    __shared__ u32 cache[HUB_CACHE];
    if (use_cache) {
        for (u32 i = threadIdx.x; i < HUB_CACHE; i += blockDim.x) cache[i] = UNVISITED;
        __syncthreads();
        for (u32 i = threadIdx.x; i < nhubs; i += blockDim.x) {
            u32 u = hubs[i];
            cache[u & (HUB_CACHE - 1)] = u;
        }
        __syncthreads();
    }
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        u32 v = queue[i];
        for (u64 e = roff[v]; e < roff[v + 1]; e++) {
            u32 u = rtgt[e];
            if ((use_cache && cache[u & (HUB_CACHE - 1)] == u) || depth[u] == level) {
                depth[v] = level + 1;
                parent[v] = u;
                break;
            }
        }
    }
}
