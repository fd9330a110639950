// Kernels of the BFS over several GPUs (bfs/cuda/multi.rs drives them); cuda/common.cuh
// comes first.
//
// Rank r owns the vertices [lo, lo + nl), lo = 32 * lo_word: its rows of the graph (local
// offsets, global targets), their depths and parents. Bitmaps cover every vertex, a bit
// per vertex in 32-bit words, the same on every rank: `front` (the level's frontier),
// `visited`. `next` collects what this rank's top-down expansion found, anywhere in the
// graph; `own` is this rank's part (seg words) of the next frontier, which an all-gather
// makes the next `front` of every rank. `stats` gets the vertices and the out-arcs of the
// next frontier (u64 each), all-gathered with it, a flag for lost pairs, and after a
// bottom-up step the vertices it left unvisited (STATS values); the host reads their sums
// from its mailbox (`box`, posted to with sequence number `seq`).
//
// A short top-down level (its frontier has few out-arcs) goes another way: every rank
// packs all it found, anywhere, into one list of (vertex, parent) pairs, an all-gather
// gives every rank every list, and each builds the next frontier, visited set and counts
// from them alike (`deg`: every vertex's out-degree); no bitmap crosses GPUs.
//
// Parents: a vertex's parent is its least in-neighbour one level up (rows are sorted, so
// the first such in arc order), whichever rank finds it, so the tree does not depend on
// the number of GPUs. Bottom-up, a vertex scans its in-arcs in order and stops at the
// first in the frontier. Top-down, every arc u -> t into an unvisited t lowers t's parent
// to u with an atomic min: in `parent` when t is this rank's, else in `cand` (indexed by
// vertex, every vertex), whose entries go to t's owner as (t, u) pairs.

#define UNREACHED 0xffffffffu
#define FULL 0xffffffffu
// Values of `stats` (multi.rs's STATS).
#define STATS 4

// Adds the block's sum of x to *word: one atomic add per block. Every thread of the block
// calls it.
__device__ __forceinline__ void block_sum_add(u64 x, u64* word) {
    __shared__ u64 scratch[WARPS_MAX];
    u64 total;
    block_exclusive_scan64(x, scratch, &total);
    if (threadIdx.x == 0 && total) atomicAdd(word, total);
}

// Adds the block's sums of `found` and `arcs` to stats[0] and stats[1]: one atomic add
// each per block (an add per warp and step, all on two words, held the biggest levels
// back). Every thread of the block calls it once, at the kernel's end.
__device__ __forceinline__ void block_add(u64 found, u64 arcs, u64* stats) {
    block_sum_add(found, stats);
    block_sum_add(arcs, stats + 1);
}

// Slots for the lanes with `take` set, in lane order, from one atomic add per warp on
// *ctr; every lane of the warp calls it. Returns the lane's slot (junk where !take).
__device__ __forceinline__ u32 warp_slots(u32 take, u32* ctr) {
    u32 lane = threadIdx.x & 31;
    u32 incl = take;
    for (int o = 1; o < 32; o <<= 1) {
        u32 t = __shfl_up_sync(FULL, incl, o);
        if (lane >= o) incl += t;
    }
    u32 total = __shfl_sync(FULL, incl, 31);
    u32 at = 0;
    if (lane == 31 && total) at = atomicAdd(ctr, total);
    return __shfl_sync(FULL, at, 31) + incl - take;
}

// The counters a level adds to, zeroed for the next one: the frontier's counts, the
// queue's and the big list's lengths, the number of pairs for each of the `world` ranks
// (`sent`), and the first word (the number of pairs) of this rank's list.
#define COUNTERS u64 *stats, u32 *qlen, u32 *blen, u32 *sent, u32 world, u32 *list
#define COUNTER_ARGS stats, qlen, blen, sent, world, list

// Zeroes the counters (the frontier's counts too if `with_stats`); one thread does.
__device__ __forceinline__ void clear(COUNTERS, bool with_stats) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (with_stats)
            for (u32 k = 0; k < STATS; k++) stats[k] = 0;
        *qlen = 0;
        *blen = 0;
        *list = 0;
        for (u32 p = 0; p < world; p++) sent[p] = 0;
    }
}

// Zeroes the frontier, the counters and this rank's depths and parents; `visited` starts
// as `never` (the vertices no arc leads to, which no search can reach: a bottom-up step
// then passes over them as over the visited, and a word of them with one load). The
// source's bit goes into both bitmaps, its depth (on its owner) to 0 and its parent to
// itself.
extern "C" __global__ void mbfs_reset(u32* front, u32* visited, const u32* never, u32 words,
                                      u32* depth, u32* parent, u32 nl_pad, u32 source, u32 lo,
                                      COUNTERS) {
    clear(COUNTER_ARGS, true);
    u32 stride = gridDim.x * blockDim.x;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        u32 x = i == source / 32 ? 1u << (source % 32) : 0;
        front[i] = x;
        visited[i] = never[i] | x;
    }
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < nl_pad; i += stride) {
        bool s = lo + i == source;
        depth[i] = s ? 0 : UNREACHED;
        parent[i] = s ? source : UNREACHED;
    }
}

// After mbfs_reset, the first levels the host expanded (multi.rs's HostLevels): `seeds`
// holds `count` (vertex, parent, depth) triples, every vertex they reached but the source.
// Each goes into `visited`, those of depth `last` (the frontier) into `front` in place of
// the source, and this rank's own get their depth and parent.
extern "C" __global__ void mbfs_seed(const u32* seeds, u32 count, u32 last, u32 source, u32 lo,
                                     u32 nl, u32* front, u32* visited, u32* depth,
                                     u32* parent) {
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAnd(front + source / 32, ~(1u << (source % 32)));
    u32 stride = gridDim.x * blockDim.x;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        u32 t = seeds[3 * i], p = seeds[3 * i + 1], d = seeds[3 * i + 2];
        u32 bit = 1u << (t % 32);
        atomicOr(visited + t / 32, bit);
        if (d == last) atomicOr(front + t / 32, bit);
        if (t - lo < nl) {
            depth[t - lo] = d;
            parent[t - lo] = p;
        }
    }
}

// The frontier's vertices in the words [lo_word, lo_word + seg) as a list of ids from
// vertex 32 * lo_word, their rows in `off`: this rank's own vertices in its rows, or, in a
// team that expands the whole frontier on every rank, every vertex (lo_word 0) in the
// delegates' rows. Each warp reserves its slots with one atomic add. A vertex of `piece`
// arcs or more goes to `big` instead, as one entry (v << 32 | c) for each piece c of
// `piece` arcs (their count in *blen), a warp to a piece: the hubs of a skewed graph are
// spread over the whole grid at once. With `delegate` a big vertex is left out: every
// rank expands it (mbfs_hub_queue).
extern "C" __global__ void mbfs_queue(const u32* front, u32 lo_word, u32 seg, const u64* off,
                                      u32* queue, u32* qlen, u64* big, u32* blen, u32 piece,
                                      u32 delegate) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    // A warp takes 32 words a round; every lane runs the same rounds (shuffles need all).
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < seg; base += stride) {
        u32 w = base + lane;
        u32 bits = w < seg ? front[lo_word + w] : 0;
        u32 at = warp_slots(__popc(bits), qlen);
        while (bits) {
            u32 b = __ffs(bits) - 1;
            bits &= bits - 1;
            u32 v = w * 32 + b;
            // A big vertex leaves a hole (UNREACHED) in the warps' queue.
            u64 arcs = off[v + 1] - off[v];
            if (arcs >= piece) {
                if (!delegate) {
                    u32 pieces = (u32)((arcs + piece - 1) / piece);
                    u32 at = atomicAdd(blen, pieces);
                    for (u32 c = 0; c < pieces; c++) big[at + c] = (u64)v << 32 | c;
                }
                v = UNREACHED;
            }
            queue[at++] = v;
        }
    }
}

// Hub delegates (a team of several ranks): `hubs` lists the `nhubs` vertices of `piece`
// out-arcs or more, every rank alike, and doff bounds every vertex's row of arcs into this
// rank's range (the delegates' rows). Each hub in the frontier goes to `big` as one entry
// (h << 32 | c) for each piece c of its arcs here, so every rank expands every frontier
// hub into its own range and no pair for another rank comes from a hub. One atomic add
// per warp.
extern "C" __global__ void mbfs_hub_queue(const u32* hubs, u32 nhubs, const u64* doff,
                                          const u32* front, u64* big, u32* blen, u32 piece) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < nhubs; base += stride) {
        u32 i = base + lane;
        u32 h = i < nhubs ? hubs[i] : 0, pieces = 0;
        if (i < nhubs && bit_of<false>(front, h))
            pieces = (u32)((doff[h + 1] - doff[h] + piece - 1) / piece);
        u32 at = warp_slots(pieces, blen);
        for (u32 c = 0; c < pieces; c++) big[at + c] = (u64)h << 32 | c;
    }
}

// The arc u -> t found top-down: unless t is visited, t's parent candidate is lowered to
// u (this rank's `parent` for its own t, else `cand`) and t's bit set in `next`.
__device__ __forceinline__ void td_arc(u32 u, u32 t, u32 lo, u32 nl, const u32* visited,
                                       u32* next, u32* parent, u32* cand) {
    u32 bit = 1u << (t % 32);
    if (visited[t / 32] & bit) return;
    u32* p = t - lo < nl ? parent + (t - lo) : cand + t;
    if (ld(p) > u) atomicMin(p, u);
    if (!(ld(next + t / 32) & bit)) atomicOr(next + t / 32, bit);
}

// Top-down: a warp per queued vertex, its lanes over the out-arcs, in the rows off/tgt
// (entry v: vertex qlo + v); then a warp per piece of a big vertex, in the rows boff/btgt
// (entry v: vertex blo + v). The rows are this rank's own (qlo = blo = lo) or, in a team,
// every vertex's arcs into this range (the delegates' rows, from vertex 0): for the big
// pieces of frontier hubs, or for the whole frontier when every rank expands all of it.
extern "C" __global__ void mbfs_top_down(const u64* off, const u32* tgt, u32 qlo,
                                         const u32* queue, const u32* qlen, const u64* big,
                                         const u32* blen, u32 piece, u32 lo, u32 nl,
                                         const u32* visited, u32* next, u32* parent, u32* cand,
                                         const u64* boff, const u32* btgt, u32 blo) {
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    u32 len = *qlen;
    for (u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < len; i += warps) {
        u32 v = queue[i];
        if (v == UNREACHED) continue;  // a big vertex, below
        u64 end = off[v + 1];
        for (u64 a = off[v] + lane; a < end; a += 32)
            td_arc(qlo + v, tgt[a], lo, nl, visited, next, parent, cand);
    }
    u32 pieces = *blen;
    for (u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < pieces; i += warps) {
        u64 big_piece = big[i];
        u32 v = big_piece >> 32;
        u64 first = boff[v] + (u64)(u32)big_piece * piece;
        u64 end = min(boff[v + 1], first + piece);
        for (u64 a = first + lane; a < end; a += 32)
            td_arc(blo + v, btgt[a], lo, nl, visited, next, parent, cand);
    }
}

// After a long top-down expansion, for each other rank p (peer index q, in rank order
// without this one): the vertices of p's range set in `next` as (vertex, candidate
// parent) pairs into the buffer at outbox[q], their number into sent[p] (zero before:
// `clear`); `next` and `cand` are left cleared there. A block takes a word per thread and
// reserves the slots of all their bits with one atomic add; then each warp goes through
// its 32 words a lane per bit, so that `cand` is read and the pairs written in runs.
extern "C" __global__ void mbfs_pack(u32* next, u32* cand, u32 seg, u32 world, u32 rank,
                                     const u64* outbox, u32* sent) {
    __shared__ u64 scratch[WARPS_MAX];
    __shared__ u32 block_at;
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    for (u32 p = 0, q = 0; p < world; p++) {
        if (p == rank) continue;
        u32* pairs = (u32*)outbox[q++];
        // Every thread of the block runs the same rounds (the barriers need them all).
        for (u32 base = blockIdx.x * blockDim.x; base < seg; base += stride) {
            u32 w = p * seg + base + threadIdx.x;
            u32 word = base + threadIdx.x < seg ? next[w] : 0;
            u64 total;
            u32 at = (u32)block_exclusive_scan64(__popc(word), scratch, &total);
            if (total == 0) continue;
            // (block_at is read below only after this barrier and written again only
            // after the next round's scan, whose barriers every thread passes first.)
            if (threadIdx.x == 0) block_at = atomicAdd(sent + p, (u32)total);
            __syncthreads();
            at += block_at;
            if (word) next[w] = 0;
            for (u32 j = 0; j < 32; j++) {
                u32 bits = __shfl_sync(FULL, word, j);
                u32 slot = __shfl_sync(FULL, at, j);
                if (!((bits >> lane) & 1)) continue;
                u32 t = (w - lane + j) * 32 + lane;
                slot += __popc(bits & ((1u << lane) - 1));
                pairs[2 * slot] = t;
                pairs[2 * slot + 1] = cand[t];
                cand[t] = UNREACHED;
            }
        }
    }
}

// A short top-down level, after the expansion: every vertex this rank found (set in
// `next`, any rank's) as a (vertex, candidate parent) pair into `list`, its number first
// (zero before: `clear`), then at most `cap` pairs; the parent of this rank's own
// vertices is already in `parent` (UNREACHED in the pair). `next` and `cand` are left
// cleared, and `front` (read by this level's mbfs_queue) too, for mbfs_absorb.
extern "C" __global__ void mbfs_list(u32* next, u32* cand, u32 words, u32 lo, u32 nl,
                                     u32* list, u32 cap, u32* front) {
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    u32* pairs = list + 1;
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < words; base += stride) {
        u32 w = base + lane;
        u32 bits = w < words ? next[w] : 0;
        if (w < words && front[w]) front[w] = 0;  // for mbfs_absorb
        u32 at = warp_slots(__popc(bits), list);
        if (bits) next[w] = 0;
        while (bits) {
            u32 t = w * 32 + __ffs(bits) - 1;
            bits &= bits - 1;
            u32 u = UNREACHED;
            if (t - lo >= nl) {
                u = cand[t];
                cand[t] = UNREACHED;
            }
            // Never more pairs than the level's arcs (cap): checked all the same.
            if (at < cap) {
                pairs[2 * at] = t;
                pairs[2 * at + 1] = u;
            }
            at++;
        }
    }
}

// Every rank's list (mbfs_list's, `world` of them `stride_words` apart, at most `cap`
// pairs each) into the next frontier, alike on every rank: `front` (zeroed before) and
// `visited` get each vertex's bit; this rank's vertices their depth and least parent;
// the counts every new vertex once (its out-degree from `deg`). The last block to finish
// (`ticket` counts them, zero before and after) posts the counts to the host's mailbox and
// clears them; the other counters are cleared for the next level at the start.
extern "C" __global__ void mbfs_absorb(const u32* lists, u32 stride_words, u32 cap,
                                       u32 lo, u32 nl, u32* front, u32* visited, u32* depth,
                                       u32* parent, u32 level, const u32* deg, COUNTERS,
                                       u32* ticket, u64* box, u64 seq) {
    clear(COUNTER_ARGS, false);
    // A list longer than its cap lost pairs: flagged for the host (stats[2]), which
    // fails the search. It cannot happen (a pair per frontier arc at most).
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (u32 q = 0; q < world; q++)
            if (lists[(u64)q * stride_words] > cap) stats[2] = 1;
    }
    u32 stride = gridDim.x * blockDim.x;
    u64 found = 0, arcs = 0;
    for (u32 q = 0; q < world; q++) {
        const u32* l = lists + (u64)q * stride_words;
        u32 count = min(l[0], cap);
        const u32* pairs = l + 1;
        for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
            u32 t = pairs[2 * i], u = pairs[2 * i + 1];
            u32 bit = 1u << (t % 32);
            bool mine = t - lo < nl;
            if (mine && u != UNREACHED) atomicMin(parent + (t - lo), u);
            if (!(atomicOr(front + t / 32, bit) & bit)) {
                atomicOr(visited + t / 32, bit);
                if (mine) depth[t - lo] = level + 1;
                found++;
                arcs += deg[t];
            }
        }
    }
    block_add(found, arcs, stats);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(ticket, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        // Every block's adds are in (each fenced before its ticket).
        __threadfence();
        for (u32 k = 0; k < STATS; k++)
            post_value(box, k, atomicExch((unsigned long long*)stats + k, 0ull));
        *ticket = 0;
        post(box, seq);
    }
}

// Words of new vertices whose out-degrees a warp of mbfs_merge reads at once.
#define MERGE_AHEAD 8

// This rank's part of the next frontier after a top-down step, from what it found itself:
// its words of `next` less the visited (and `next` cleared there); depths and statistics
// of the new vertices. What other ranks found for it comes after (mbfs_apply): first the
// `ncounts` numbers of pairs (`counts`, all-gathered just before) go to the host's mailbox,
// and this runs while the host sets up the exchange.
extern "C" __global__ void mbfs_merge(u32* next, u32 lo_word, u32 seg, u32 nl,
                                      const u32* visited, u32* own, u32* depth, u32 level,
                                      const u64* off, u64* stats, const u32* counts,
                                      u32 ncounts, u64* box, u64 seq) {
    if (ncounts && blockIdx.x == 0 && threadIdx.x == 0) {
        for (u32 i = 0; i < ncounts; i++) post_value(box, i, counts[i]);
        post(box, seq);
    }
    // A warp takes 32 words a round, a lane each (their loads and stores in one run), then
    // goes through those with new vertices a word a step, a lane per bit, so that depths
    // and offsets are written and read in runs, MERGE_AHEAD words' offsets in flight at
    // once. (A warp per word and round waited for memory twice a word: 0.175 ms on an
    // H200 for the 4.3M vertices of Kronecker 25's hub level.)
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    u64 found = 0, arcs = 0;
    // Every lane runs the same rounds and steps (the shuffles need them all).
    for (u32 base = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32; base < seg;
         base += 32 * warps) {
        u32 w = base + lane, x = 0;
        if (w < seg) {
            u32 nx = next[lo_word + w], seen = visited[lo_word + w];
            x = nx & ~seen;
            own[w] = x;
            if (nx) next[lo_word + w] = 0;
        }
        u32 words = __ballot_sync(FULL, x != 0);
        while (words) {
            u32 v[MERGE_AHEAD];
            u64 first[MERGE_AHEAD], end[MERGE_AHEAD];
            bool take[MERGE_AHEAD];
#pragma unroll
            for (int k = 0; k < MERGE_AHEAD; k++) {
                take[k] = false;
                if (words) {
                    u32 j = __ffs(words) - 1;
                    words &= words - 1;
                    u32 xj = __shfl_sync(FULL, x, j);
                    v[k] = (base + j) * 32 + lane;
                    take[k] = (xj >> lane) & 1 && v[k] < nl;
                    if (take[k]) {
                        first[k] = off[v[k]];
                        end[k] = off[v[k] + 1];
                    }
                }
            }
#pragma unroll
            for (int k = 0; k < MERGE_AHEAD; k++) {
                if (take[k]) {
                    depth[v[k]] = level + 1;
                    found++;
                    arcs += end[k] - first[k];
                }
            }
        }
    }
    block_add(found, arcs, stats);
}

// After mbfs_merge, the pairs other ranks found for this one (`inbox`: the addresses of
// the world - 1 buffers, in rank order without this one; `counts`: every rank's `sent`,
// all-gathered, so rank p sent this one counts[p * world + rank] pairs): each vertex's
// parent lowered and, unless visited or already there, its bit into `own`, its depth set
// and it counted.
extern "C" __global__ void mbfs_apply(const u64* inbox, const u32* counts, u32 world,
                                      u32 rank, u32 lo, const u32* visited, u32* own,
                                      u32* depth, u32* parent, u32 level, const u64* off,
                                      u64* stats) {
    u32 stride = gridDim.x * blockDim.x;
    u64 found = 0, arcs = 0;
    for (u32 p = 0, q = 0; p < world; p++) {
        if (p == rank) continue;
        u32 count = counts[p * world + rank];
        const u32* pairs = (const u32*)inbox[q];
        for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
            u32 t = pairs[2 * i], u = pairs[2 * i + 1];
            u32 v = t - lo, bit = 1u << (t % 32);
            atomicMin(parent + v, u);
            if (!(visited[t / 32] & bit) && !(atomicOr(own + v / 32, bit) & bit)) {
                depth[v] = level + 1;
                found++;
                arcs += off[v + 1] - off[v];
            }
        }
        q++;
    }
    block_add(found, arcs, stats);
}

// Bottom-up: a lane per vertex of this rank, a warp per word; an unvisited vertex with an
// in-neighbour in the frontier joins the next frontier (its bit set by the warp's ballot,
// no atomics), the first such in-neighbour its parent; the others still unvisited are
// counted in stats[3] (none left anywhere: the search is over). `same` says that `off` is
// `roff` (an undirected graph): a new vertex's out-degree is then its row's length, no
// load.
extern "C" __global__ void mbfs_bottom_up(const u64* roff, const u32* rtgt, u32 nl, u32 lo_word,
                                          u32 seg, const u32* front, const u32* visited, u32* own,
                                          u32* depth, u32* parent, u32 level, const u64* off,
                                          u32 same, u64* stats) {
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    u64 found_all = 0, arcs_all = 0, left = 0;
    for (u32 w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < seg; w += warps) {
        u32 v = w * 32 + lane;
        bool open = v < nl && !(visited[lo_word + w] & (1u << lane));
        u64 start = 0, end = 0;
        if (open) {
            start = roff[v];
            end = roff[v + 1];
        }
        u32 p = bottom_up_lanes<false>(rtgt, start, end, open, front);
        bool found = p != UNREACHED;
        u32 word = __ballot_sync(FULL, found);
        if (lane == 0) own[w] = word;
        left += open && !found;
        if (found) {
            depth[v] = level + 1;
            parent[v] = p;
            found_all++;
            arcs_all += same ? end - start : off[v + 1] - off[v];
        }
    }
    block_add(found_all, arcs_all, stats);
    block_sum_add(left, stats + 3);
}

// visited |= front, over every word; the counters cleared for the next level. First the
// sums of every rank's counts (`stats_all`, all-gathered just before) go to the host's
// mailbox.
extern "C" __global__ void mbfs_visit(const u32* front, u32* visited, u32 words, COUNTERS,
                                      const u64* stats_all, u64* box, u64 seq) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (u32 k = 0; k < STATS; k++) {
            u64 sum = 0;
            for (u32 p = 0; p < world; p++) sum += stats_all[STATS * p + k];
            post_value(box, k, sum);
        }
        post(box, seq);
    }
    clear(COUNTER_ARGS, true);
    u32 stride = gridDim.x * blockDim.x;
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
        visited[i] |= front[i];
}
