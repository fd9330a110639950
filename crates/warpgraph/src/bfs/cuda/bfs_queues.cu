// Kernels of the GPU breadth-first search; bfs/cuda/mod.rs drives them level by level.
// Three files make one source, compiled as one module in this order: bfs_queues.cu (this
// one: state, the baseline, the queues' classification), bfs_steps.cu (the expansions and
// the bottom-up steps) and bfs_search.cu (the split search's phases and the kernels that
// run a whole search). cuda/common.cuh (types, the grid barrier, block scans) is compiled
// in front of them.
//
// State: depth[v] (UNVISITED until reached) and parent[v]. A vertex is written by every
// thread that finds it in the same level, each writing the same depth and a valid parent,
// so no atomics are needed: whichever parent lands last is one level up and joined by
// an arc.
//
// The baseline launches one kernel per level (bfs_td_baseline / bfs_bu_baseline). The
// queued search (bfs_enterprise) is one cooperative launch that runs every level on the
// GPU, its blocks meeting at grid-wide barriers, so no level waits for the host.
//
// Queues (Enterprise, Liu and Huang, SC'15): classify scans the status array (or the
// previous queue) in two passes, counting per block and then writing, every block
// placing its vertices by an exclusive sum of the counts of the blocks before it: no
// atomics, no duplicates, and the output keeps vertex order. Each pass sorts vertices
// into up to five lists at once:
//   top-down (mode 0), the frontier (depth == level) by out-degree:
//     class 0: < 32 arcs (a thread each), 1: 32..255 (a warp), 2: 256..65,536 (a block),
//     3: > 65,536 (the whole grid); without balancing every vertex goes to class 0;
//   bottom-up (mode 1), class 0: the unvisited vertices (the next bottom-up queue);
//   both modes, class 4: the frontier's hubs (out-degree > tau), for the switch and for
//     the bottom-up hub cache.


#define UNVISITED 0xffffffffu
#define NCLASS 5
// Entries of the bottom-up hub cache (a power of two; 16 KiB of shared memory).
#define HUB_CACHE 4096


// Every vertex unvisited except the source; first[0] = source (the first frontier, as
// a list); the append counters of bfs_enterprise (bar[3..6]) zero.
extern "C" __global__ void bfs_reset(u32* depth, u32* parent, u32 n, u32 source, u32* first,
                                     u32* bar) {
    if (blockIdx.x == 0 && threadIdx.x < 3) bar[3 + threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) first[0] = source;
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

// The classes vertex v, of depth d, belongs to, as a bit mask (see the file comment;
// with frontier, mode 1 also lists the frontier as class 1).
__device__ __forceinline__ u32 classes_of(u32 v, u32 d, u32 mode, const u64* off, u32 level,
                                          u64 tau, u32 balance, u32 frontier) {
    u32 mask = 0;
    if (d == level) {
        // Only the frontier's degrees are needed: the other vertices cost one load.
        u64 deg = off[v + 1] - off[v];
        if (mode == 0) {
            u32 c = 0;
            if (balance) c = deg < 32 ? 0 : deg < 256 ? 1 : deg <= 65536 ? 2 : 3;
            mask = 1u << c;
        } else if (frontier) {
            mask = 2;
        }
        if (deg > tau) mask |= 1u << 4;
    } else if (mode == 1 && d == UNVISITED) {
        mask = 1;
    }
    return mask;
}

// Exclusive prefix sums over the block of NCLASS values per thread, in thread order
// (blockDim.x a multiple of 32): before[c] gets the sum of x[c] over the threads before
// this one, total[c] the block's sum. scratch holds WARPS_MAX * NCLASS entries.
//
// This and publish_counts are inlined at every pass of bfs_enterprise, so their loops of
// unknown length take the classes inside (each step's NCLASS loads issued at once) and
// are unrolled at most 4 times (the last block's walk over the blocks' counts, which
// waits on L2) or not at all. A loop per class, each unrolled by the compiler, would make
// the kernel 1.4 times as long, its first compile by the driver (PTX to machine code)
// twice as slow, and the search itself slower.
__device__ void block_scan_classes(const u32* x, u32* before, u32* total, u32* scratch) {
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 incl[NCLASS];
#pragma unroll
    for (int c = 0; c < NCLASS; c++) {
        incl[c] = x[c];
        for (int o = 1; o < 32; o <<= 1) {
            u32 t = __shfl_up_sync(0xffffffffu, incl[c], o);
            if (lane >= o) incl[c] += t;
        }
    }
    __syncthreads();
    if (lane == 31)
        for (int c = 0; c < NCLASS; c++) scratch[warp * NCLASS + c] = incl[c];
    __syncthreads();
    u32 b[NCLASS] = {0, 0, 0, 0, 0}, all[NCLASS] = {0, 0, 0, 0, 0};
#pragma unroll 1
    for (u32 w = 0; w < blockDim.x / 32; w++) {
#pragma unroll
        for (int c = 0; c < NCLASS; c++) {
            u32 y = scratch[w * NCLASS + c];
            if (w < warp) b[c] += y;
            all[c] += y;
        }
    }
#pragma unroll
    for (int c = 0; c < NCLASS; c++) {
        before[c] = b[c] + incl[c] - x[c];
        total[c] = all[c];
    }
}


// Items a thread takes at once: four consecutive ones, read with one 16-byte load.
#define PER 4

// What a classification pass needs to know.
struct Scan {
    u32 mode;             // 0 top-down, 1 bottom-up (see the file comment)
    const u32* list;      // the items, or 0 for the vertices 0..len
    u32 len;
    const u32* depth;
    const u64* off;
    u32 level;
    u64 tau;
    u32 balance;
    u32 frontier;         // mode 1: list the frontier as class 1
};

// Items per block of a pass: an equal share, a multiple of PER so that every group of
// PER items starts 16-byte aligned. Fused passes (bu_step) take the same parts.
__device__ __forceinline__ u32 chunk_for(u32 len) {
    u32 per = (len + gridDim.x - 1) / gridDim.x;
    return (per + PER - 1) / PER * PER;
}

// Items i..i+PER-1 (those below end): their vertices and class masks (0 past the end).
// The loads differ by case; the masks come from one loop after them (inlined at every
// pass, classes_of once per item rather than once per item per case).
__device__ __forceinline__ void load_group(const Scan& s, u32 i, u32 end, u32* v, u32* m) {
    u32 d[PER];
    // A list that starts off 16-byte alignment (a frontier listed after a bottom-up
    // queue) is read an item at a time.
    if (i + PER <= end && ((size_t)s.list & 15) == 0) {
        if (s.list) {
            uint4 x = __ldcg((const uint4*)(s.list + i));
            v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
            for (int k = 0; k < PER; k++) d[k] = ld(s.depth + v[k]);
        } else {
            uint4 x = __ldcg((const uint4*)(s.depth + i));
            d[0] = x.x; d[1] = x.y; d[2] = x.z; d[3] = x.w;
            for (int k = 0; k < PER; k++) v[k] = i + k;
        }
    } else {
        for (int k = 0; k < PER; k++) {
            v[k] = 0;
            d[k] = 0;
            if (i + k < end) {
                v[k] = s.list ? ld(s.list + i + k) : i + k;
                d[k] = ld(s.depth + v[k]);
            }
        }
    }
    for (int k = 0; k < PER; k++)
        m[k] = i + k < end ? classes_of(v[k], d[k], s.mode, s.off, s.level, s.tau, s.balance,
                                        s.frontier)
                           : 0;
}

// Per-block result of a pass.
struct Placed {
    u32 start[NCLASS];      // this block's first output slot per class
    u32 total[NCLASS + 1];  // class sizes; [NCLASS]: classes 0-3 together
};

// The block's sums of its threads' class counts `mine` go to counts[c * gridDim.x +
// blockIdx.x]; the last block to finish turns them into each block's offset within its
// class (an exclusive scan per class) and writes the class sizes to
// counts[NCLASS * gridDim.x ..]. `ticket` counts finished blocks (zero before, zero after).
// Returns true in the last block (every thread), the totals then written.
__device__ bool publish_counts(const u32* mine, u32* counts, u32* ticket) {
    __shared__ u32 scratch[WARPS_MAX * NCLASS];
    __shared__ bool last;
    u32 before[NCLASS], total[NCLASS];
    block_scan_classes(mine, before, total, scratch);
    if (threadIdx.x == 0) {
        for (int c = 0; c < NCLASS; c++) counts[c * gridDim.x + blockIdx.x] = total[c];
        __threadfence();
        last = atomicAdd(ticket, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return false;
    // The last block: every block's counts are visible (each fenced before its ticket).
    // Each thread takes a contiguous run of blocks (a block's loads of its NCLASS counts
    // issued at once), and one block scan places the runs.
    u32 per = (gridDim.x + blockDim.x - 1) / blockDim.x;
    u32 lo = min(gridDim.x, threadIdx.x * per), hi = min(gridDim.x, lo + per);
    u32 sum[NCLASS] = {0, 0, 0, 0, 0};
#pragma unroll 4
    for (u32 j = lo; j < hi; j++) {
#pragma unroll
        for (int c = 0; c < NCLASS; c++) sum[c] += ld(counts + c * gridDim.x + j);
    }
    block_scan_classes(sum, before, total, scratch);
#pragma unroll 4
    for (u32 j = lo; j < hi; j++) {
        u32 x[NCLASS];
#pragma unroll
        for (int c = 0; c < NCLASS; c++) x[c] = ld(counts + c * gridDim.x + j);
#pragma unroll
        for (int c = 0; c < NCLASS; c++) {
            counts[c * gridDim.x + j] = before[c];
            before[c] += x[c];
        }
    }
    if (threadIdx.x == 0)
        for (int c = 0; c < NCLASS; c++) counts[NCLASS * gridDim.x + c] = total[c];
    if (threadIdx.x == 0) *ticket = 0;
    __threadfence();
    return true;
}

// Pass, first half: counts this block's part of the items by class (publish_counts).
__device__ void classify_count(const Scan& s, u32* counts, u32* ticket) {
    u32 chunk = chunk_for(s.len);
    u32 begin = blockIdx.x * chunk, end = min(s.len, begin + chunk);
    u32 mine[NCLASS] = {0, 0, 0, 0, 0};
    for (u32 i = begin + PER * threadIdx.x; i < end; i += PER * blockDim.x) {
        u32 v[PER], m[PER];
        load_group(s, i, end, v, m);
        for (int k = 0; k < PER; k++)
            for (int c = 0; c < NCLASS; c++) mine[c] += (m[k] >> c) & 1;
    }
    publish_counts(mine, counts, ticket);
}

// Pass, after a grid barrier: this block's output slots (classes 0-3 one after another
// in one list, class 4 in its own) and the totals.
__device__ void classify_place(const u32* counts, Placed& p) {
    u32 base = 0;
    for (int c = 0; c < NCLASS; c++) {
        p.total[c] = ld(counts + NCLASS * gridDim.x + c);
        p.start[c] = (c < 4 ? base : 0) + ld(counts + c * gridDim.x + blockIdx.x);
        if (c < 4) base += p.total[c];
    }
    p.total[NCLASS] = base;
}


// Bits per class in a packed count: a round has at most PER * 256 = 1024 items per class
// (blocks of 256 threads), and five fields of 12 bits fit 64.
#define FIELD 12

// Pass, second half: writes this block's vertices in order; class c < 4 to out[], class 4
// to hubs[]. Each round a block takes PER * blockDim.x items, a thread PER consecutive
// ones; one exclusive scan of the threads' counts, all five classes packed into 64 bits,
// places them. A round with nothing to write costs one barrier.
__device__ void classify_write(const Scan& s, const Placed& p, u32* out, u32* hubs) {
    __shared__ u64 scratch[WARPS_MAX];
    u32 chunk = chunk_for(s.len);
    u32 begin = blockIdx.x * chunk, end = min(s.len, begin + chunk);
    u32 running[NCLASS];
    for (int c = 0; c < NCLASS; c++) running[c] = p.start[c];
    // Every thread of the block runs the same number of rounds (the barriers need them all).
    for (u32 base = begin; base < end; base += PER * blockDim.x) {
        u32 v[PER], m[PER];
        load_group(s, base + PER * threadIdx.x, end, v, m);
        u64 mine = 0;
        for (int k = 0; k < PER; k++)
            for (int c = 0; c < NCLASS; c++) mine += (u64)((m[k] >> c) & 1) << (FIELD * c);
        if (!__syncthreads_or(mine != 0)) continue;
        u64 total;
        u64 before = block_exclusive_scan64(mine, scratch, &total);
        for (int c = 0; c < NCLASS; c++) {
            u32 slot = running[c] + (u32)((before >> (FIELD * c)) & ((1u << FIELD) - 1));
            for (int k = 0; k < PER; k++) {
                if ((m[k] >> c) & 1) {
                    if (c < 4) out[slot] = v[k];
                    else hubs[slot] = v[k];
                    slot++;
                }
            }
            running[c] += (u32)((total >> (FIELD * c)) & ((1u << FIELD) - 1));
        }
    }
}

