// Kernels of the GPU breadth-first search; bfs/cuda/mod.rs drives them level by level.
// cuda/common.cuh (types, the grid barrier, block scans) is compiled in front of this file.
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
// waits on L2) or not at all. A loop per class, each unrolled by the compiler, made the
// kernel 1.4 times as long and the driver's first compile of it (PTX to machine code)
// 43 s instead of 20 s on an H100's host; and it was slower: on an H100, Kronecker 22
// 0.36 -> 0.32 ms, 24 0.83 -> 0.79 ms, uniform 2^22 of degree 4 0.61 -> 0.58 ms.
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

// Arcs a thread handles at once in an expansion: it issues all their loads before it
// uses any, so that UNROLL misses are in flight instead of one.
#define UNROLL 4

// The arcs u[k] -> w[k] (w[k] == UNVISITED: no arc) whose targets had depths d[k]: each
// target still unvisited gets depth next and parent u[k]. With app (sparse frontiers),
// each is claimed by a compare-and-swap, so exactly one thread wins it, and the winners
// are appended to app[]: all UNROLL claims in flight at once, then one atomic add per warp
// for all their slots.
__device__ __forceinline__ void visit_group(const u32* u, const u32* w, const u32* d,
                                            u32* depth, u32* parent, u32 next, u32* app,
                                            u32* ctr) {
    bool open[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) open[k] = w[k] != UNVISITED && d[k] == UNVISITED;
    if (!app) {
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            if (open[k]) {
                depth[w[k]] = next;
                parent[w[k]] = u[k];
            }
        }
        return;
    }
    u32 was[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
        was[k] = open[k] ? atomicCAS(depth + w[k], UNVISITED, next) : 0;
    bool won[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        won[k] = open[k] && was[k] == UNVISITED;
        if (won[k]) parent[w[k]] = u[k];
    }
    warp_append_all<UNROLL>(won, w, app, ctr);
}

// Expands the arcs first, first + stride, ... (below end) of u. Without PROBE (claims
// only), a target's depth is not read first: its claim finds out.
template <bool PROBE = true>
__device__ __forceinline__ void expand_arcs(u32 u, u64 first, u64 end, u32 stride,
                                            const u32* tgt, u32* depth, u32* parent, u32 next,
                                            u32* app, u32* ctr) {
    u32 us[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) us[k] = u;
    for (u64 e = first; e < end; e += (u64)UNROLL * stride) {
        u32 w[UNROLL], d[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            u64 f = e + (u64)k * stride;
            w[k] = f < end ? tgt[f] : UNVISITED;
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            d[k] = PROBE && w[k] != UNVISITED ? ld(depth + w[k]) : UNVISITED;
        visit_group(us, w, d, depth, parent, next, app, ctr);
    }
}

// Beyond the paper (tuned): classes 2 and 3 together, when they hold at most HUB_CACHE
// vertices, as one flat range of arcs that the whole grid shares evenly, so that no
// block is left alone with a vertex of 65,536 arcs. Each block sums their degrees into
// sum[] (shared memory, sum[i] = arcs of the vertices before the i-th); a thread takes
// the arcs j, j + threads, ... and finds each one's vertex by binary search. Claims and
// appends (app) only when the arcs number at most app_limit. Returns the arcs' number
// (every block finds the same).
__device__ u64 expand_flat(const u32* big, u32 count, const u64* off, const u32* tgt,
                           u32* depth, u32* parent, u32 next, u32* app, u64 app_limit,
                           u32* ctr, u64* sum, u64* scratch) {
    // Each thread sums a contiguous run of the vertices, then a block scan places runs.
    u32 per = (count + blockDim.x - 1) / blockDim.x;
    u32 lo = min(count, threadIdx.x * per), hi = min(count, lo + per);
    u64 total;
    u64 run = block_exclusive_scan64(run_arcs(off, big, lo, hi), scratch, &total);
    write_offsets(off, big, lo, hi, run, sum);
    __syncthreads();
    if (total > app_limit) app = 0;
    u64 threads = (u64)gridDim.x * blockDim.x;
    for (u64 j = blockIdx.x * blockDim.x + threadIdx.x; j < total; j += UNROLL * threads) {
        u32 u[UNROLL], w[UNROLL], d[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            u64 a = j + k * threads;
            u[k] = 0;
            w[k] = UNVISITED;
            if (a < total) {
                u32 l = 0, h = count - 1;  // the last i with sum[i] <= a
                while (l < h) {
                    u32 m = (l + h + 1) / 2;
                    if (sum[m] <= a) l = m;
                    else h = m - 1;
                }
                u[k] = ld(big + l);
                w[k] = tgt[off[u[k]] + (a - sum[l])];
            }
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) d[k] = w[k] != UNVISITED ? ld(depth + w[k]) : 0;
        visit_group(u, w, d, depth, parent, next, app, ctr);
    }
    __syncthreads();  // sum[] is shared memory that later steps reuse
    return total;
}

// Top-down expansion of the classified frontier in q (sizes c[0..3], one after another):
// a thread per class-0 vertex, a warp per class-1 vertex, a block per class-2 vertex and
// the whole grid per class-3 vertex (with flat, classes 2 and 3 as expand_flat's one
// range when they fit its table). No barrier separates the classes, so blocks done with
// one class go on to the next while others still work. With app, the vertices claimed
// are appended there (the next frontier, as a list).
__device__ void td_expand(const u32* q, const u32* c, const u64* off, const u32* tgt,
                          u32* depth, u32* parent, u32 level, u32* app, u32* ctr, bool flat,
                          u64* sum, u64* scratch) {
    u32 next = level + 1;
    u32 threads = gridDim.x * blockDim.x;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 i = t; i < c[0]; i += threads) {
        u32 u = ld(q + i);
        expand_arcs(u, off[u], off[u + 1], 1, tgt, depth, parent, next, app, ctr);
    }
    const u32* q1 = q + c[0];
    for (u32 i = t / 32; i < c[1]; i += threads / 32) {
        u32 u = ld(q1 + i);
        expand_arcs(u, off[u] + (threadIdx.x & 31), off[u + 1], 32, tgt, depth, parent, next,
                    app, ctr);
    }
    const u32* q2 = q1 + c[1];
    u32 big = c[2] + c[3];
    if (flat && big > 0 && big <= HUB_CACHE) {
        expand_flat(q2, big, off, tgt, depth, parent, next, app, ~0ull, ctr, sum, scratch);
        return;
    }
    for (u32 i = blockIdx.x; i < c[2]; i += gridDim.x) {
        u32 u = ld(q2 + i);
        expand_arcs(u, off[u] + threadIdx.x, off[u + 1], blockDim.x, tgt, depth, parent, next,
                    app, ctr);
    }
    const u32* q3 = q2 + c[2];
    for (u32 k = 0; k < c[3]; k++) {
        u32 u = ld(q3 + k);
        expand_arcs(u, off[u] + t, off[u + 1], threads, tgt, depth, parent, next, app, ctr);
    }
}

// Bottom-up step over the len unvisited vertices in q: each takes the first in-neighbour
// in the frontier (depth == level). With use_cache, each block first loads the
// frontier's hubs into a shared-memory table (slot = id mod HUB_CACHE; a collision just
// loses an entry), and an in-neighbour found there needs no load from global memory.
// The step is also the first half of the pass that compacts q for the next step: each
// block takes the part of q a classify pass would (chunk_for) and publishes its counts
// of the vertices still unvisited (class 0), of those just visited (class 1, with
// frontier) and of the hubs among them (class 4): what classify_count in mode 1 at
// level + 1 would find.
__device__ void bu_step(const u32* q, u32 len, const u32* hubs, u32 nhubs, u32 use_cache,
                        const u64* off, const u64* roff, const u32* rtgt, u32* depth,
                        u32* parent, u32 level, u64 tau, u32 frontier, u32* cache, u32* counts,
                        u32* ticket) {
    if (use_cache) {
        for (u32 i = threadIdx.x; i < HUB_CACHE; i += blockDim.x) cache[i] = UNVISITED;
        __syncthreads();
        for (u32 i = threadIdx.x; i < nhubs; i += blockDim.x) {
            u32 u = ld(hubs + i);
            cache[u & (HUB_CACHE - 1)] = u;
        }
        __syncthreads();
    }
    u32 chunk = chunk_for(len);
    u32 begin = blockIdx.x * chunk, end = min(len, begin + chunk);
    u32 mine[NCLASS] = {0, 0, 0, 0, 0};
    for (u32 i = begin + threadIdx.x; i < end; i += blockDim.x) {
        u32 v = ld(q + i);
        u32 found = UNVISITED;
        // UNROLL in-neighbours at a time: a hit in the cache settles the group, else all
        // their depths are loaded at once.
        for (u64 e = roff[v], stop = roff[v + 1]; e < stop && found == UNVISITED; e += UNROLL) {
            u32 u[UNROLL];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) u[k] = e + k < stop ? rtgt[e + k] : UNVISITED;
            if (use_cache) {
#pragma unroll
                for (int k = 0; k < UNROLL; k++)
                    if (found == UNVISITED && u[k] != UNVISITED && cache[u[k] & (HUB_CACHE - 1)] == u[k])
                        found = u[k];
                if (found != UNVISITED) break;
            }
            u32 d[UNROLL];
#pragma unroll
            for (int k = 0; k < UNROLL; k++) d[k] = u[k] != UNVISITED ? ld(depth + u[k]) : UNVISITED;
#pragma unroll
            for (int k = 0; k < UNROLL; k++)
                if (found == UNVISITED && d[k] == level) found = u[k];
        }
        if (found == UNVISITED) {
            mine[0]++;
        } else {
            depth[v] = level + 1;
            parent[v] = found;
            if (frontier) mine[1]++;
            if (off[v + 1] - off[v] > tau) mine[4]++;
        }
    }
    publish_counts(mine, counts, ticket);
}

// The sum of value(v) over the len vertices of `items`, which every block computes alike,
// without a barrier; K loads in flight per thread.
template <int K, typename F>
__device__ u64 block_sum_of(const u32* items, u32 len, u64* scratch, F value) {
    u64 mine = 0;
    for (u32 base = 0; base < len; base += K * blockDim.x) {
        u32 v[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            u32 i = base + threadIdx.x + k * blockDim.x;
            v[k] = i < len ? ld(items + i) : UNVISITED;
        }
#pragma unroll
        for (int k = 0; k < K; k++)
            if (v[k] != UNVISITED) mine += value(v[k]);
    }
    u64 total;
    block_exclusive_scan64(mine, scratch, &total);
    __syncthreads();  // scratch is reused
    return total;
}

// How many of the nhubs vertices in hub_all (every hub of the graph, at most HUB_CACHE)
// are in the frontier (depth == level); every block counts them alike.
__device__ u32 frontier_hubs_of(const u32* hub_all, u32 nhubs, const u32* depth, u32 level,
                                u64* scratch) {
    // 16 loads in flight: HUB_CACHE hubs at 256 threads.
    return (u32)block_sum_of<16>(hub_all, nhubs, scratch,
                                 [&](u32 v) -> u64 { return ld(depth + v) == level; });
}

// Beamer's switch to bottom-up, which `tuned` takes beside Enterprise's: the frontier's
// arcs above all arcs / BEAMER_ALPHA (the CPU's and the teams' default alpha, against
// all arcs rather than the unexplored ones). Only a listed frontier of at most
// ARCS_LISTED vertices is summed, by every block alike.
#define BEAMER_ALPHA 15
#define ARCS_LISTED (4 * HUB_CACHE)

// The out-arcs of the len vertices of list; every block sums them alike.
__device__ u64 frontier_arcs_of(const u32* list, u32 len, const u64* off, u64* scratch) {
    return block_sum_of<8>(list, len, scratch,
                           [&](u32 v) -> u64 { return off[v + 1] - off[v]; });
}

// Beyond the paper (tuned): bottom-up steps on bitmaps of `words` words, a bit per
// vertex: `visited`, the level's frontier `cur` and the next one `nxt`. `never` holds the
// vertices no arc leads to (no search reaches them), which a step passes over as over the
// visited; the bits past n are clear in it, and a step leaves them alone (v < n). A warp
// takes consecutive words (up to 32) at a time, its lanes loading them at once, so that
// the words already all visited cost nothing more.

// The bitmaps at the switch to bottom-up at `level`, from the status array: visited = the
// reached vertices and `never`, cur = the frontier (depth == level), whose size the
// block publishes as class 1.
__device__ void bits_from_depth(const u32* depth, u32 n, u32 words, const u32* never,
                                u32* visited, u32* cur, u32 level, u32* counts, u32* ticket) {
    const u32 all = 0xffffffffu;
    const int K = 8;  // words whose depths a warp has in flight
    u32 lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    u32 mine[NCLASS] = {0, 0, 0, 0, 0};
    for (u32 base = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32; base < words;
         base += 32 * warps) {
        u32 seen = 0, front = 0;  // lane j: the bits of word base + j
        for (u32 j = 0; j < 32 && base + j < words; j += K) {
            u32 d[K];
#pragma unroll
            for (int k = 0; k < K; k++) {
                u32 v = 32 * (base + j + k) + lane;
                d[k] = base + j + k < words && v < n ? ld(depth + v) : UNVISITED;
            }
#pragma unroll
            for (int k = 0; k < K; k++) {
                u32 s = __ballot_sync(all, d[k] != UNVISITED), f = __ballot_sync(all, d[k] == level);
                if (lane == j + k) {
                    seen = s;
                    front = f;
                }
            }
        }
        u32 w = base + lane;
        if (w < words) {
            visited[w] = seen | never[w];
            cur[w] = front;
            mine[1] += __popc(front);
        }
    }
    publish_counts(mine, counts, ticket);
}

// A bottom-up step at `level` on the bitmaps: every unvisited vertex with an in-neighbour
// in `cur` takes the first as its parent (bottom_up_lanes) and joins `nxt` and `visited`
// (a warp's ballot writes a word whole: no atomics). Every word of nxt is written. The
// block publishes the number of vertices it found as class 0 and of those still unvisited
// after the step as class 1 (true in the last block).
// A warp takes `batch` consecutive words at a time (a power of two up to 32), its first
// lanes loading them at once; each word with an unvisited vertex then takes the whole
// warp. Fewer words a batch where the words are too few for every warp to get several
// batches of 32. With L2, the frontier is read through L2 (written earlier in the same
// launch, where this multiprocessor's L1 may hold an old copy); a step that is a launch
// of its own reads it through L1.
template <bool L2>
__device__ bool bu_bits_step(const u64* roff, const u32* rtgt, u32 n, u32 words, u32* visited,
                             const u32* cur, u32* nxt, u32* depth, u32* parent, u32 level,
                             u32* counts, u32* ticket, u32 batch) {
    const u32 all = 0xffffffffu;
    u32 lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    u32 mine[NCLASS] = {0, 0, 0, 0, 0};
    for (u32 base = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * batch; base < words;
         base += batch * warps) {
        u32 w = lane < batch ? base + lane : words;
        u32 seen = w < words ? ld(visited + w) : all;
        u32 got = 0;  // lane j: the new bits of word base + j
        for (u32 todo = __ballot_sync(all, seen != all); todo; todo &= todo - 1) {
            u32 j = __ffs(todo) - 1;
            u32 vis = __shfl_sync(all, seen, j);
            u32 v = 32 * (base + j) + lane;
            bool open = v < n && !((vis >> lane) & 1);
            u64 start = 0, end = 0;
            if (open) {
                start = roff[v];
                end = roff[v + 1];
            }
            u32 p = bottom_up_lanes<L2>(rtgt, start, end, open, cur);
            u32 word = __ballot_sync(all, p != UNVISITED);
            if (lane == j) got = word;
            if (p != UNVISITED) {
                depth[v] = level + 1;
                parent[v] = p;
                mine[0]++;
            }
        }
        if (w < words) {
            nxt[w] = got;
            if (got) visited[w] = seen | got;
            u32 open = ~(seen | got);
            if (w == words - 1 && (n & 31)) open &= (1u << (n & 31)) - 1;
            mine[1] += __popc(open);
        }
    }
    return publish_counts(mine, counts, ticket);
}

// The vertices of a bitmap, ascending, into out[]: each block counts the bits of its
// equal part of the words (counts as class 0), a grid barrier, then each writes its part's
// from its offset. Ends with a grid barrier (out complete everywhere).
__device__ void list_bits(const u32* bits, u32 words, u32* out, u32* counts, u32* bar) {
    __shared__ u64 scratch[WARPS_MAX];
    u32 chunk = (words + gridDim.x - 1) / gridDim.x;
    u32 begin = min(words, blockIdx.x * chunk), end = min(words, begin + chunk);
    u32 mine[NCLASS] = {0, 0, 0, 0, 0};
    for (u32 i = begin + threadIdx.x; i < end; i += blockDim.x) mine[0] += __popc(ld(bits + i));
    publish_counts(mine, counts, bar + 2);
    grid_sync(bar);
    u32 at = ld(counts + blockIdx.x);
    // Every thread of the block runs the same rounds (the scan's barriers need them all).
    for (u32 round = begin; round < end; round += blockDim.x) {
        u32 i = round + threadIdx.x;
        u32 x = i < end ? ld(bits + i) : 0;
        u64 total;
        u32 slot = at + (u32)block_exclusive_scan64(__popc(x), scratch, &total);
        for (; x; x &= x - 1) out[slot++] = 32 * i + __ffs(x) - 1;
        at += (u32)total;
    }
    grid_sync(bar);
}

// Trace line number `line` (when below cap): level, step kind (0 top-down, 1 switch,
// 2 bottom-up, 3 small frontier, 4 solo level, 5 wide level), sizes (a tuned bottom-up
// step's: the vertices found, those left unvisited), time.
__device__ void trace_line(u32* log, u32 cap, u32 line, u32 level, u32 kind, const Placed& p) {
    if (line >= cap) return;
    u64 now = global_timer();
    u32* l = log + 10 * line;
    l[0] = level; l[1] = kind;
    for (int c = 0; c < NCLASS + 1; c++) l[2 + c] = p.total[c];
    l[8] = (u32)now; l[9] = (u32)(now >> 32);
}

// The next trace line, by block 0 of a cooperative launch (every block counts it).
__device__ void trace(u32* log, u32 cap, u32& lines, u32 level, u32 kind, const Placed& p) {
    if (blockIdx.x == 0 && threadIdx.x == 0) trace_line(log, cap, lines, level, kind, p);
    lines++;
}

// The control words `ctl` through which a split search (below) hands its state from one
// launch to the next: the phase, the level, the size of the last frontier, which
// bitmap holds the frontier (0: bits + words, 1: bits + 2 * words), and the trace lines.
#define CTL_PHASE 0
#define CTL_LEVEL 1
#define CTL_AWAKE 2
#define CTL_PARITY 3
#define CTL_LINES 4
// Where solo levels (listed_levels, below) leave the level they stopped at and that level's
// frontier size.
#define CTL_SOLO_LEVEL 5
#define CTL_SOLO_LISTED 6
// Whether bottom-up steps weigh the vertices left before going back (bu_next_phase).
#define CTL_WEIGH_LEFT 7
#define CTL_WORDS 8
// Phases: the search is over; bottom-up steps to do; back to top-down (the frontier in
// its bitmap).
#define PHASE_DONE 1
#define PHASE_BU 2
#define PHASE_TD 3

// The phase after a bottom-up step that found `found` vertices when the frontier before
// it held `awake`, leaving `left` unvisited: done when it found none or left none (no level
// after it could find one: on a graph whose every vertex with an in-arc the search reaches,
// this spares the switch back to top-down and a last level that finds nothing); back to
// top-down (direction 0, optimizing) when the frontier, shrinking, holds fewer than n /
// beta vertices (Beamer's rule) and, with `weigh_left`, fewer than are left: a bottom-up
// step's work follows the vertices left, a top-down one's the frontier, and going back
// costs a listing of the frontier and a launch (Kronecker's last levels: a frontier of
// 17,374 with 1,594 left); otherwise bottom-up again. (tuned weighs them unless the graph
// is narrow: there the top-down levels after the switch back are solo levels of a few
// microseconds, cheaper than any bottom-up step.)
__device__ __forceinline__ u32 bu_next_phase(u64 found, u64 awake, u64 left, u32 direction,
                                             u32 n, u32 beta, u32 weigh_left) {
    if (found == 0 || left == 0) return PHASE_DONE;
    bool back = found < awake && found < n / beta && (!weigh_left || found < left);
    return direction == 0 && back ? PHASE_TD : PHASE_BU;
}

// Beyond the paper (tuned, on a graph whose out-degrees are all at most NARROW_DEGREE: a
// grid, a road network, a mesh). Such a graph is crossed in hundreds or thousands of
// levels, where the whole grid's barrier and expand_flat's sums of degrees were most of a
// small level's time, and a queue's classification (pointless: every vertex has fewer than
// 32 arcs) most of a big one's. So while no switch to bottom-up is possible, a listed
// frontier is expanded from its list, a thread per vertex, with one barrier a level: of at
// most SOLO_LIST vertices by the first SOLO_BLOCKS blocks alone, which meet at a barrier of
// their own (sync_first on bar[6]) level after level while the other blocks wait at the
// next grid barrier ("solo levels"); a bigger one by every block ("wide levels").
#define NARROW_DEGREE 32
#define SOLO_BLOCKS 32
#define SOLO_LIST 8192

// The levels from `level`, its frontier the `listed` vertices in q2, expanded by the first
// `members` blocks (the others return at once; members == gridDim.x: all of them, meeting
// at grid barriers) while a frontier holds more than lo and at most cap vertices; each
// level appends its claims to q (then the lists swap) and counts them in the append
// counter of bfs_enterprise's level loop, and a trace line of `kind`. Returns with level,
// listed, q, q2 and lines as they are after the last level, in the members.
__device__ void listed_levels(const u64* off, const u32* tgt, u32* depth, u32* parent, u32 n,
                              u32*& q, u32*& q2, u32& level, u32& listed, u32 members, u32 lo,
                              u32 cap, u32* bar, u32* log, u32 log_cap, u32& lines, u32 kind) {
    if (blockIdx.x >= members) return;
    u32 threads = members * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    // This thread's first vertex of the level, read together with the level's size (a
    // stale entry where t >= listed, then unused).
    u32 mine = t < n ? ld(q2 + t) : 0;
    do {
        if (lead) {
            bar[3 + (level + 2) % 3] = 0;  // as the level loop clears it
            Placed tr = {};
            tr.total[0] = tr.total[NCLASS] = listed;
            trace_line(log, log_cap, lines, level, kind, tr);
        }
        lines++;
        u32* ctr = bar + 3 + (level + 1) % 3;
        for (u32 i = t; i < listed; i += threads) {
            u32 u = i == t ? mine : ld(q2 + i);
            expand_arcs<false>(u, off[u], off[u + 1], 1, tgt, depth, parent, level + 1, q, ctr);
        }
        if (members == gridDim.x) grid_sync(bar);
        else sync_first(bar + 6, members);
        u32* sw = q; q = q2; q2 = sw;
        mine = t < n ? ld(q2 + t) : 0;
        listed = ld(ctr);
        level++;
    } while (listed > lo && listed <= cap);
}

// Beyond the paper (tuned): one bottom-up step of a split search as a kernel of its own
// (see bfs_enterprise), so that every warp a multiprocessor holds waits on memory (the
// cooperative kernel's registers leave it a quarter of them). Does nothing unless the
// phase is PHASE_BU. The last block to finish takes the direction decision for the next
// level. counts holds (NCLASS + 1) * gridDim.x entries; batch: bu_bits_step's.
extern "C" __global__ void __launch_bounds__(256, 8)
bfs_bu_bits(const u64* roff, const u32* rtgt, u32 n, u32* bits, u32* depth, u32* parent,
            u32* counts, u32* bar, u32* ctl, u32 direction, u32 beta, u32* log, u32 log_cap,
            u32 batch) {
    if (ld(ctl + CTL_PHASE) != PHASE_BU) return;
    u32 level = ld(ctl + CTL_LEVEL), parity = ld(ctl + CTL_PARITY);
    u32 words = (n + 31) / 32;
    u32 *cur = bits + words * (1 + parity), *nxt = bits + words * (2 - parity);
    if (!bu_bits_step<false>(roff, rtgt, n, words, bits, cur, nxt, depth, parent, level,
                             counts, bar + 2, batch))
        return;
    if (threadIdx.x != 0) return;
    Placed p;
    classify_place(counts, p);
    u32 found = p.total[0], awake = ctl[CTL_AWAKE], lines = ctl[CTL_LINES];
    trace_line(log, log_cap, lines, level + 1, 2, p);
    ctl[CTL_LINES] = lines + 1;
    ctl[CTL_LEVEL] = level + 1;
    ctl[CTL_PARITY] = parity ^ 1;
    ctl[CTL_AWAKE] = found;
    ctl[CTL_PHASE] = bu_next_phase(found, awake, p.total[1], direction, n, beta,
                                   ctl[CTL_WEIGH_LEFT]);
}

// The whole traversal. direction: 0 optimizing, 1 top-down, 2 bottom-up. counts holds
// 2 * (NCLASS + 1) * gridDim.x entries; bar 8 + BARRIER_FANIN words (the grid barrier's
// count and generation, the passes' ticket, three append counters, the barrier's
// sub-counters from 8 on), the counters zero (bfs_reset zeroes the append counters).
// log gets up to log_cap trace lines; ctl[CTL_LINES] their number.
//
// With tuned (the improvements beyond the paper):
// - the frontier is kept as a list when it is small: the first is qb[0..1] (the source,
//   written by bfs_reset); a top-down expansion claims the vertices it finds and appends
//   them; a bottom-up step lists those it visits (class 1 of its queue pass); and a level
//   classifies that list instead of scanning the status array when it holds at most
//   n / 16 vertices;
// - a listed frontier of at most HUB_CACHE vertices that cannot trigger the switch to
//   bottom-up is not classified at all: expand_flat expands it whole, one barrier a level;
// - bottom-up steps run on bitmaps (visited, the frontier and the next one; `bits`, 3 *
//   words words) instead of queues: a warp per 32 vertices, the frontier looked up in a
//   bitmap that stays in L2 rather than in the status array; `never` marks the vertices
//   without an in-arc, which no search reaches. Back to top-down, the new frontier is
//   listed from its bitmap;
// - the switch to bottom-up is decided from the frontier's hubs counted in hub_all (the
//   graph's hubs_total hubs) by every block alike, so the level that switches skips its
//   top-down classification pass;
// - with split, the search is split in three (the host queues the launches one after
//   another): this launch stops at the switch to bottom-up (ctl's phase PHASE_BU, else
//   PHASE_DONE); then a few launches of bfs_bu_bits take a bottom-up step each, at full
//   occupancy, and set the phase for the next; then this kernel again, with resume: it
//   returns at once if the search is over, goes on bottom-up if it is not yet time to
//   switch back, or lists the frontier from its bitmap and goes on top-down.
extern "C" __global__ void __launch_bounds__(256)
bfs_enterprise(const u64* off, const u32* tgt, const u64* roff, const u32* rtgt, u32* depth,
               u32* parent, u32 n, u32* qa, u32* qb, u32* hubs, u32* counts, u32* bar,
               u64 tau, u32 hubs_total, u32 balance, u32 direction, u32 use_cache,
               float gamma, u32 beta, u32 tuned, u32* bits, const u32* never,
               const u32* hub_all, u32* log, u32 log_cap, u32* ctl, u32 split, u32 resume,
               u32 narrow) {
    // The bottom-up hub cache, or expand_flat's sums of degrees (never both at once).
    __shared__ u64 table[HUB_CACHE];
    u32* cache = (u32*)table;
    __shared__ u64 scratch64[WARPS_MAX];
    u32 *q = qa, *q2 = qb;
    u32 level = 0, pending = 0, frontier_hubs = 0, passes = 0, lines = 0;
    u64 awake = 0;
    bool bottom_up = false, handed = false;
    // With tuned, whether the search has been bottom-up and come back: it does not switch
    // again (the frontier is shrinking, the hubs long visited), which spares a small
    // frontier its classification and the count of its hubs.
    bool came_back = false;
    // The frontier to be listed from its bitmap, at the top of the loop.
    bool listing = false;
    // The frontier as a list (listed vertices from lst, which lies in q2), if any.
    bool have_list = tuned;
    const u32* lst = q2;
    u32 listed = tuned ? 1 : 0;
    // With tuned, bottom-up steps run on bitmaps (bits_from_depth, bu_bits_step).
    u32 words = (n + 31) / 32;
    u32 *visited = bits, *cur = bits + words, *nxt = bits + 2 * words;
    Placed p;
    Scan sc;
    // One pass over the status array (list == 0) or a queue: count, barrier, place; then
    // `write` writes the lists. Alternate passes use alternate count arrays, so that a
    // pass never overwrites counts another block may still be reading.
    auto count_place = [&](u32 mode, const u32* list, u32 len, u32 lvl, u32 bal) {
        sc = Scan{mode, list, len, depth, off, lvl, tau, bal, tuned};
        u32* cnt = counts + (passes++ & 1) * (NCLASS + 1) * gridDim.x;
        classify_count(sc, cnt, bar + 2);
        grid_sync(bar);
        classify_place(cnt, p);
    };
    auto write = [&](u32* out) { classify_write(sc, p, out, hubs); };
    // The explosion level (the switch to bottom-up): with tuned, the bitmaps (and the
    // frontier's size as class 1); otherwise the unvisited vertices, in order, and the
    // frontier's hubs, from one contiguous scan of the status array.
    auto explode = [&]() {
        if (tuned) {
            u32* cnt = counts + (passes++ & 1) * (NCLASS + 1) * gridDim.x;
            bits_from_depth(depth, n, words, never, visited, cur, level, cnt, bar + 2);
            grid_sync(bar);
            classify_place(cnt, p);
            awake = p.total[1];
        } else {
            count_place(1, 0, n, level, 0);
            write(q);
            grid_sync(bar);
            pending = p.total[0];
            frontier_hubs = p.total[4];
        }
        trace(log, log_cap, lines, level, 1, p);
        bottom_up = true;
        handed = split;
    };
    if (resume) {
        // Only block 0 keeps the count of trace lines.
        lines = ld(ctl + CTL_LINES);
        u32 phase = ld(ctl + CTL_PHASE);
        if (phase == PHASE_DONE) return;
        level = ld(ctl + CTL_LEVEL);
        awake = ld(ctl + CTL_AWAKE);
        if (ld(ctl + CTL_PARITY)) {
            u32* t = cur; cur = nxt; nxt = t;
        }
        // bfs_bu_bits does not clear the append counters as the levels here do.
        if (blockIdx.x == 0 && threadIdx.x < 3) bar[3 + threadIdx.x] = 0;
        bottom_up = phase == PHASE_BU;
        if (!bottom_up) {
            listing = true;
            came_back = true;
            have_list = true;
            listed = (u32)awake;
            lst = q2;
        }
    }
    // Set where a level switches to bottom-up; taken at the top of the loop, the one place
    // that expands `explode` (each inlined copy of its passes costs the driver's first
    // compile of this kernel seconds).
    bool exploding = !resume && direction == 2;
    while (!handed) {
        if (exploding) {
            explode();
            exploding = false;
            continue;
        }
        if (listing) {
            // Back to top-down: the frontier listed in order from its bitmap (one place
            // for it too). (list_bits's barriers come before any use of the counters.)
            list_bits(cur, words, q2, counts + (passes++ & 1) * (NCLASS + 1) * gridDim.x, bar);
            listing = false;
        }
        // The appends of level L's expansion count in bar[3 + (L + 1) % 3], read by every
        // block at the start of level L + 1; the one of level L + 1's is cleared here, at
        // level L, when no block reads it any more (its last reads, at the start of level
        // L - 1, came before the barrier that ended level L - 1).
        if (blockIdx.x == 0 && threadIdx.x == 0) bar[3 + (level + 2) % 3] = 0;
        u32* ctr = bar + 3 + (level + 1) % 3;
        if (!bottom_up) {
            // With narrow (the graph's largest out-degree, at most NARROW_DEGREE; else 0), a
            // listed frontier goes solo or wide while no switch to bottom-up is possible:
            // while optimizing, at most a BEAMER_ALPHA-th of all arcs (Beamer's rule) in
            // it (Enterprise's share of hubs is left out on such graphs: their "hubs" are
            // only the best connected of vertices much alike).
            u64 most = 0;
            if (narrow)
                most = direction == 0 && !came_back ? (off[n] - off[0]) / BEAMER_ALPHA / narrow
                                                    : n;
            u32 solo_cap = (u32)min(most, (u64)SOLO_LIST);
            if (have_list && listed > 0 && listed <= solo_cap) {
                u32 before = level, was = lines;
                u32 members = min((u32)SOLO_BLOCKS, gridDim.x);
                listed_levels(off, tgt, depth, parent, n, q, q2, level, listed, members, 0,
                              solo_cap, bar, log, log_cap, lines, 4);
                if (blockIdx.x == 0 && threadIdx.x == 0) {
                    ctl[CTL_SOLO_LEVEL] = level;
                    ctl[CTL_SOLO_LISTED] = listed;
                }
                // The other blocks take the members' state.
                grid_sync(bar);
                level = ld(ctl + CTL_SOLO_LEVEL);
                listed = ld(ctl + CTL_SOLO_LISTED);
                if (blockIdx.x >= members && ((level - before) & 1)) {
                    u32* t2 = q; q = q2; q2 = t2;
                }
                lines = was + (level - before);
                lst = q2;
                continue;
            }
            if (have_list && listed > SOLO_LIST && listed <= most) {
                listed_levels(off, tgt, depth, parent, n, q, q2, level, listed, gridDim.x,
                              SOLO_LIST, (u32)min(most, (u64)n), bar, log, log_cap, lines, 5);
                lst = q2;
                continue;
            }
            bool may_switch = direction == 0 && hubs_total > 0 && !came_back &&
                              (float)listed / (float)hubs_total > gamma;
            if (tuned && have_list && listed <= HUB_CACHE && !may_switch) {
                // A small frontier: expanded whole, unclassified.
                Placed t = {};
                t.total[0] = t.total[NCLASS] = listed;
                trace(log, log_cap, lines, level, 3, t);
                if (listed == 0) break;
                u64 arcs = expand_flat(lst, listed, off, tgt, depth, parent, level + 1, q, n / 16,
                                       ctr, table, scratch64);
                grid_sync(bar);
                // It appended the next frontier (every block decided alike) when the arcs
                // were few.
                have_list = arcs <= n / 16;
                listed = have_list ? ld(ctr) : 0;
                u32* t2 = q; q = q2; q2 = t2;
                lst = q2;
                level++;
                continue;
            }
            if (tuned && direction == 0 && hubs_total > 0 && !came_back &&
                ((float)frontier_hubs_of(hub_all, hubs_total, depth, level, scratch64) /
                         (float)hubs_total > gamma ||
                 (have_list && listed <= ARCS_LISTED &&
                  frontier_arcs_of(lst, listed, off, scratch64) >
                          (off[n] - off[0]) / BEAMER_ALPHA))) {
                exploding = true;
                continue;
            }
            bool by_list = have_list && listed <= n / 16;
            count_place(0, by_list ? lst : 0, by_list ? listed : n, level, balance);
            trace(log, log_cap, lines, level, 0, p);
            if (p.total[NCLASS] == 0) break;
            float share = hubs_total ? (float)p.total[4] / (float)hubs_total : 0.0f;
            if (direction == 0 && !came_back && share > gamma) {
                awake = p.total[NCLASS];
                exploding = true;
                continue;
            }
            write(q);
            grid_sync(bar);
            u32 c[4] = {p.total[0], p.total[1], p.total[2], p.total[3]};
            // List the next frontier only when it cannot be large: claims cost a
            // compare-and-swap per vertex found, which a big expansion should not pay.
            u64 least_arcs = 32ull * c[1] + 256ull * c[2] + 65536ull * c[3];
            bool list_next = tuned && least_arcs <= n / 16;
            td_expand(q, c, off, tgt, depth, parent, level, list_next ? q2 : 0, ctr, tuned, table,
                      scratch64);
            grid_sync(bar);
            have_list = list_next;
            listed = have_list ? ld(ctr) : 0;
            lst = q2;
            level++;
        } else if (tuned) {
            u32* cnt = counts + (passes++ & 1) * (NCLASS + 1) * gridDim.x;
            bu_bits_step<true>(roff, rtgt, n, words, visited, cur, nxt, depth, parent, level,
                               cnt, bar + 2, 32);
            grid_sync(bar);
            level++;
            classify_place(cnt, p);
            trace(log, log_cap, lines, level, 2, p);
            u32 found = p.total[0];
            u32* t = cur; cur = nxt; nxt = t;
            u32 next = bu_next_phase(found, awake, p.total[1], direction, n, beta, narrow == 0);
            if (next == PHASE_DONE) break;
            awake = found;
            if (next == PHASE_TD) {
                // Back to top-down, the new frontier listed in order for its
                // classification (at the top of the loop).
                listing = true;
                bottom_up = false;
                came_back = true;
                have_list = true;
                listed = found;
                lst = q2;
            }
        } else {
            if (pending == 0) break;
            u32* cnt = counts + (passes++ & 1) * (NCLASS + 1) * gridDim.x;
            bu_step(q, pending, hubs, frontier_hubs, use_cache, off, roff, rtgt, depth, parent,
                    level, tau, tuned, cache, cnt, bar + 2);
            grid_sync(bar);
            level++;
            // The new queue: the old one less what this step visited (then, with tuned,
            // those it visited: the new frontier); and the hubs it visited (the next
            // frontier's), placed by the counts the step published.
            sc = Scan{1, q, pending, depth, off, level, tau, 0, tuned};
            classify_place(cnt, p);
            write(q2);
            grid_sync(bar);
            trace(log, log_cap, lines, level, 2, p);
            u64 found = pending - p.total[0];
            u32* t = q; q = q2; q2 = t;
            pending = p.total[0];
            frontier_hubs = p.total[4];
            u32 next = bu_next_phase(found, awake, pending, direction, n, beta, 0);
            if (next == PHASE_DONE) break;
            awake = found;
            if (next == PHASE_TD) {
                bottom_up = false;
                // With tuned, the new frontier is listed after the queue: that buffer
                // becomes q2, the list's home.
                have_list = tuned;
                listed = p.total[1];
                u32* t2 = q; q = q2; q2 = t2;
                lst = q2 + pending;
            }
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        ctl[CTL_LINES] = lines;
        if (handed) {
            ctl[CTL_PHASE] = PHASE_BU;
            ctl[CTL_LEVEL] = level;
            ctl[CTL_AWAKE] = (u32)awake;
            ctl[CTL_PARITY] = 0;
            ctl[CTL_WEIGH_LEFT] = narrow == 0;
        } else if (!resume) {
            // (The resumed launch leaves the phase alone: its blocks read it at their start.)
            ctl[CTL_PHASE] = PHASE_DONE;
        }
    }
}
