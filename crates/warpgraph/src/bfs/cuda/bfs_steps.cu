// Kernels of the GPU breadth-first search, part 2 (after bfs_queues.cu): the top-down
// expansions (per class, flat over the hubs, listed) and the bottom-up steps (queued, on
// bitmaps).

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
