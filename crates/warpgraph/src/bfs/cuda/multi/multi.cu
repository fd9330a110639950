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
// A short top-down level (its frontier has few out-arcs) goes another way: each rank's
// expansion writes a (vertex, parent) pair for every arc into an unvisited vertex,
// anywhere, into one list, an all-gather gives every rank every list, and each builds the
// visited set and counts from them alike (`deg`: every vertex's out-degree), and lists
// its own part of the next frontier in pieces (`listed`); no bitmap crosses GPUs. A short
// level after a short one expands those pieces: it is two launches and the all-gather.
// `front` is cleared by the first short level of a run and set from the last one's lists
// (mbfs_front) only where a level that is not short needs it. A rank that holds every
// vertex's rows (solo, multi.rs) takes its short levels alone, as a team of one: every
// rank expands the whole level (lo 0, nl n, its depths and parents every vertex's), and
// its own list is every rank's.
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

// Inclusive prefix sum of x over the warp's lanes (every lane calls it); where every x is
// 0 or 1 (a lane's one claim, a vertex's one piece), a ballot's count.
__device__ __forceinline__ u32 warp_inclusive(u32 x) {
    u32 lane = threadIdx.x & 31;
    if (__all_sync(FULL, x <= 1)) return __popc(__ballot_sync(FULL, x) & (FULL >> (31 - lane)));
    for (int o = 1; o < 32; o <<= 1) {
        u32 t = __shfl_up_sync(FULL, x, o);
        if (lane >= o) x += t;
    }
    return x;
}

// Slots for the lanes with `take` set, in lane order, from one atomic add per warp on
// *ctr; every lane of the warp calls it. Returns the lane's slot (junk where !take).
__device__ __forceinline__ u32 warp_slots(u32 take, u32* ctr) {
    u32 incl = warp_inclusive(take);
    u32 total = __shfl_sync(FULL, incl, 31);
    u32 at = 0;
    if ((threadIdx.x & 31) == 31 && total) at = atomicAdd(ctr, total);
    return __shfl_sync(FULL, at, 31) + incl - take;
}

// Two warp_slots at once (their atomic adds both in flight): slots for the lanes with `a`
// set on *ca into sa, for those with `b` set on *cb into sb.
__device__ __forceinline__ void warp_slots2(u32 a, u32* ca, bool b, u32* cb, u32& sa, u32& sb) {
    u32 lane = threadIdx.x & 31;
    u32 ia = warp_inclusive(a), mb = __ballot_sync(FULL, b);
    u32 ta = __shfl_sync(FULL, ia, 31);
    u32 xa = 0, xb = 0;
    if (lane == 31) {
        if (ta) xa = atomicAdd(ca, ta);
        if (mb) xb = atomicAdd(cb, __popc(mb));
    }
    sa = __shfl_sync(FULL, xa, 31) + ia - a;
    sb = __shfl_sync(FULL, xb, 31) + __popc(mb & ((1u << lane) - 1));
}

// The counters a level adds to, zeroed for the next one: the frontier's counts, the
// queue's and the big list's lengths, the number of pairs for each of the `world` ranks
// (`sent`), the first word (the number of pairs) of this rank's list, and the lengths of
// the two lists of a listed frontier's pieces and the arcs of their vertices (mbfs_absorb).
#define COUNTERS u64 *stats, u32 *qlen, u32 *blen, u32 *sent, u32 world, u32 *list, \
    u32 *listed_len
#define COUNTER_ARGS stats, qlen, blen, sent, world, list, listed_len

// Zeroes the counters; one thread does. `level_end`: at the end of a level that was not
// short and at a search's start, the frontier's counts too, and the listed pieces' lengths
// (mbfs_absorb keeps its own).
__device__ __forceinline__ void clear(COUNTERS, bool level_end) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (level_end) {
            for (u32 k = 0; k < STATS; k++) stats[k] = 0;
            for (u32 k = 0; k < 4; k++) listed_len[k] = 0;
        }
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

// A warp's new vertices' pieces into a list of pieces (`out`, at most `cap`): lane's
// vertex v in `pieces` pieces (0: none) from slot `at` (warp_slots's). Every lane
// of the warp calls it.
__device__ __forceinline__ void put_pieces(u32 v, u32 pieces, u32 at, u64* out, u32 cap) {
    u32 lane = threadIdx.x & 31;
    // Each lane its vertex's first piece; then the warp together each vertex's others.
    if (pieces && at < cap) out[at] = (u64)v << 32;
    for (u32 todo = __ballot_sync(FULL, pieces > 1); todo; todo &= todo - 1) {
        u32 j = __ffs(todo) - 1;
        u32 pj = __shfl_sync(FULL, pieces, j), aj = __shfl_sync(FULL, at, j);
        u64 vj = __shfl_sync(FULL, v, j);
        for (u32 c = lane + 1; c < pj && aj + c < cap; c += 32) out[aj + c] = vj << 32 | c;
    }
}

// After mbfs_reset, the first levels the host expanded (multi.rs's HostLevels): `seeds`
// holds `count` (vertex, parent, depth) triples, every vertex they reached but the source.
// Each goes into `visited`, and this rank's own get their depth and parent. Those of depth
// `last` (the frontier) go into `front` in place of the source; or, with `queue`, where
// the next level is short, straight into its queue as mbfs_queue would list them (those
// of [qlo, qlo + qn), ids from qlo, rows in `off`; one of `piece` arcs or more as its
// pieces in `big`), and `front` stays empty: no scan of the bitmap for that level. Every
// lane of a warp runs the same rounds (warp_slots).
extern "C" __global__ void mbfs_seed(const u32* seeds, u32 count, u32 last, u32 source, u32 lo,
                                     u32 nl, u32* front, u32* visited, u32* depth,
                                     u32* parent, u32 qlo, u32 qn, const u64* off, u32* queue,
                                     u32* qlen, u64* big, u32* blen, u32 piece) {
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAnd(front + source / 32, ~(1u << (source % 32)));
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < count; base += stride) {
        u32 i = base + lane;
        u32 t = 0, d = 0;
        if (i < count) {
            t = seeds[3 * i];
            u32 p = seeds[3 * i + 1];
            d = seeds[3 * i + 2];
            u32 bit = 1u << (t % 32);
            atomicOr(visited + t / 32, bit);
            if (d == last && !queue) atomicOr(front + t / 32, bit);
            if (t - lo < nl) {
                depth[t - lo] = d;
                parent[t - lo] = p;
            }
        }
        if (!queue) continue;
        u32 v = t - qlo;
        bool listed = i < count && d == last && v < qn;
        u64 arcs = listed ? off[v + 1] - off[v] : 0;
        bool small = listed && arcs < piece;
        u32 at = warp_slots(small, qlen);
        if (small) queue[at] = v;
        u32 pieces = listed && !small ? (u32)((arcs + piece - 1) / piece) : 0;
        put_pieces(v, pieces, warp_slots(pieces, blen), big, 0xffffffffu);
    }
}

// The frontier's vertices in the words [lo_word, lo_word + seg) as a list of ids from
// vertex 32 * lo_word, their rows in `off`: this rank's own vertices in its rows, or, in a
// team that expands the whole frontier on every rank, every vertex (lo_word 0) in the
// delegates' rows. Each block reserves the slots of a round's words with one atomic add
// (a warp's add each, on one counter, would serialise a short level of many vertices). A
// vertex of `piece` arcs or more goes to `big` instead, as one entry (v << 32 | c) for
// each piece c of `piece` arcs (their count in *blen), a warp to a piece: the hubs of a
// skewed graph are spread over the whole grid at once. Its warp writes those entries
// together (a lane writing a hub's thousands alone held the hub level back). With
// `delegate` a big vertex is left out: every rank expands it (mbfs_hub_queue). With
// `clear` the words read are cleared (a short level's frontier is not needed after this).
// With `visited` (reading every word) the level before's visit is done here: visited |=
// front.
extern "C" __global__ void mbfs_queue(u32* front, u32 lo_word, u32 seg, const u64* off,
                                      u32* queue, u32* qlen, u64* big, u32* blen, u32 piece,
                                      u32 delegate, u32 clear, u32* visited) {
    __shared__ u64 scratch[WARPS_MAX];
    __shared__ u32 block_at;
    u32 stride = gridDim.x * blockDim.x;
    // Every thread of the block runs the same rounds (the barriers need them all), and
    // every lane of a warp the same steps (the shuffles).
    for (u32 base = blockIdx.x * blockDim.x; base < seg; base += stride) {
        u32 w = base + threadIdx.x;
        u32 bits = w < seg ? front[lo_word + w] : 0;
        if (clear && bits) front[lo_word + w] = 0;
        if (visited && bits) visited[lo_word + w] |= bits;
        u64 total;
        u32 at = (u32)block_exclusive_scan64(__popc(bits), scratch, &total);
        if (total == 0) continue;
        // (block_at is read below only after this barrier and written again only after
        // the next round's scan, whose barriers every thread passes first.)
        if (threadIdx.x == 0) block_at = atomicAdd(qlen, (u32)total);
        __syncthreads();
        at += block_at;
        while (__any_sync(FULL, bits)) {
            u32 v = 0, pieces = 0;
            if (bits) {
                v = w * 32 + __ffs(bits) - 1;
                bits &= bits - 1;
                // A big vertex leaves a hole (UNREACHED) in the queue.
                u64 arcs = off[v + 1] - off[v];
                bool is_big = arcs >= piece;
                if (is_big && !delegate) pieces = (u32)((arcs + piece - 1) / piece);
                queue[at++] = is_big ? UNREACHED : v;
            }
            put_pieces(v, pieces, warp_slots(pieces, blen), big, 0xffffffffu);
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

// A short level's pair (t, u) into `list`, after the list's count, from the lanes with
// `take` set (one atomic add per warp; every lane of the warp calls it); pairs past `cap`
// are counted, not kept (mbfs_absorb flags them).
__device__ __forceinline__ void put_pair(u32 take, u32 t, u32 u, u32* list, u32 cap) {
    u32 at = warp_slots(take, list);
    if (take && at < cap) {
        list[1 + 2 * at] = t;
        list[2 + 2 * at] = u;
    }
}

// A short level's arcs u -> tgt[a] for a in [first, end), by a warp (every lane alike):
// each into an unvisited vertex t goes into `list` as the pair (t, u) (put_pair). One
// atomic add per warp and 32 arcs. Nothing else is written: no bit, parent or candidate
// to clear.
__device__ __forceinline__ void td_pairs(u32 u, const u32* tgt, u64 first, u64 end,
                                         const u32* visited, u32* list, u32 cap) {
    u32 lane = threadIdx.x & 31;
    for (u64 a = first; a < end; a += 32) {
        u32 t = a + lane < end ? tgt[a + lane] : UNREACHED;
        u32 take = t != UNREACHED && !((visited[t / 32] >> (t % 32)) & 1);
        put_pair(take, t, u, list, cap);
    }
}

// Top-down: a warp per queued vertex, its lanes over the out-arcs, in the rows off/tgt
// (entry v: vertex qlo + v); then a warp per piece of a big vertex, in the rows boff/btgt
// (entry v: vertex blo + v). The rows are this rank's own (qlo = blo = lo) or, in a team,
// every vertex's arcs into this range (the delegates' rows, from vertex 0): for the big
// pieces of frontier hubs, or for the whole frontier when every rank expands all of it.
// With `list` (a short level, the rows this rank's own): the arcs go into the list as
// pairs (a lane per queued vertex, a warp per piece: td_pairs), and the first `words`
// words of `front` are cleared but for [keep, keep + kept), which mbfs_queue cleared
// (every word at the first short level of a run, for mbfs_front; none after). With
// `gate` (a short level queued ahead, see mbfs_absorb) nothing is done unless *gate is
// set.
extern "C" __global__ void mbfs_top_down(const u64* off, const u32* tgt, u32 qlo,
                                         const u32* queue, const u32* qlen, const u64* big,
                                         const u32* blen, u32 piece, u32 lo, u32 nl,
                                         const u32* visited, u32* next, u32* parent, u32* cand,
                                         const u64* boff, const u32* btgt, u32 blo, u32* list,
                                         u32 cap, u32* front, u32 words, u32 keep,
                                         u32 kept, const u64* gate) {
    if (gate && !*gate) return;
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    if (list) {
        u32 stride = gridDim.x * blockDim.x;
        for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
            if (i - keep >= kept) front[i] = 0;
    }
    u32 len = *qlen;
    if (list) {
        // A short level's queued vertices have fewer than `piece` (32) arcs, most of them
        // one or two: a lane each (a warp each would leave most of its lanes idle), the
        // pairs of a warp's step in one warp_slots. Every lane of a warp
        // runs the same rounds and steps.
        u32 stride = gridDim.x * blockDim.x;
        for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < len;
             base += stride) {
            u32 v = base + lane < len ? queue[base + lane] : UNREACHED;
            u64 a = 0, end = 0;
            if (v != UNREACHED) {  // (else a big vertex, below)
                a = off[v];
                end = off[v + 1];
            }
            while (__any_sync(FULL, a < end)) {
                u32 take = 0, t = 0;
                if (a < end) {
                    t = tgt[a++];
                    take = !((visited[t / 32] >> (t % 32)) & 1);
                }
                put_pair(take, t, qlo + v, list, cap);
            }
        }
    } else {
        for (u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < len; i += warps) {
            u32 v = queue[i];
            if (v == UNREACHED) continue;  // a big vertex, below
            u64 end = off[v + 1];
            for (u64 a = off[v] + lane; a < end; a += 32)
                td_arc(qlo + v, tgt[a], lo, nl, visited, next, parent, cand);
        }
    }
    u32 pieces = *blen;
    for (u32 i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < pieces; i += warps) {
        u64 big_piece = big[i];
        u32 v = big_piece >> 32;
        u64 first = boff[v] + (u64)(u32)big_piece * piece;
        u64 end = min(boff[v + 1], first + piece);
        if (list) {
            td_pairs(blo + v, btgt, first, end, visited, list, cap);
            continue;
        }
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

// Every rank's list (mbfs_top_down's, `world` of them `stride_words` apart, at most `cap`
// pairs each) into the next frontier, alike on every rank: `visited` gets each vertex's
// bit (`front` is left alone: see mbfs_front); this rank's vertices their depth and least
// parent; the counts every new vertex once (its out-degree from `deg`).
//
// This rank's new vertices also go to `listed` (two lists of `listed_cap` entries, the
// next level's by its parity: the one the next level expands when it is short too) as
// pieces of `piece` arcs, (local vertex << 32 | piece) each, a vertex without arcs none;
// their lengths are listed_len[0..2] (by parity). A warp writes the pieces of its lanes'
// vertices together, and lists none once the arcs of every rank's new vertices so far
// (listed_len[2..4], by parity) pass `short_arcs`, the most a short level's frontier has:
// the next level is not short, and its queue comes from the bitmap.
//
// The last block to finish (`ticket` counts them, zero before and after) posts the counts
// to the host's mailbox and clears them; the other counters are cleared for the next level
// at the start.
//
// The host queues the level after a short one before it has the counts, inside a run of
// short levels (multi.rs), so the last block also decides whether that level is short,
// by the host's own rule, into ahead[(level + 1) & 1] (and posts it): the level's
// frontier is not empty, no pair was lost, its arcs are at most `next_cap` (the lists'
// bound the queued level was given) and, with `alpha` (not 0: the direction switch),
// at most the arcs still unexplored over alpha: `unexplored` (before this level's
// frontier) less this level's frontier's arcs (`frontier_arcs`, or where that is ~0, as
// the last mbfs_absorb left them in ahead[2]), unless it holds fewer vertices than this
// level's frontier (`frontier_vertices`, or ahead[3]: the switch is taken only from a
// frontier that is not shrinking); and it can find a vertex (`spent` in
// rank/mod.rs, `undirected` as the graph). Such a queued level's kernels (`gated`)
// do nothing unless its flag is set; the host, which finds the same from the counts,
// queues the right level after one that did nothing.
//
// A short next level has at most LIST_CAP frontier arcs (multi.rs), so its pieces here
// number at most LIST_CAP / piece + LIST_CAP (a piece per vertex with arcs, a vertex at
// least one arc): multi.rs's LISTED_CAP. A longer one's frontier is queued from the
// bitmap instead, and the pieces past the cap are counted and not written.
extern "C" __global__ void mbfs_absorb(const u32* lists, u32 stride_words, u32 cap,
                                       u32 lo, u32 nl, u32* visited, u32* depth,
                                       u32* parent, u32 level, const u32* deg, COUNTERS,
                                       u32* ticket, u64* box, u64 seq, u64* listed,
                                       u32 listed_cap, u32 piece, u32 short_arcs, u64* ahead,
                                       u32 gated, u64 unexplored, u64 frontier_vertices,
                                       u64 frontier_arcs, u64 alpha, u64 next_cap,
                                       u32 undirected) {
    if (gated && !ahead[level & 1]) return;
    clear(COUNTER_ARGS, false);
    // A list longer than its cap lost pairs: flagged for the host (stats[2]), which
    // fails the search. It cannot happen (a pair per frontier arc at most).
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (u32 q = 0; q < world; q++)
            if (lists[(u64)q * stride_words] > cap) stats[2] = 1;
        // This level's pieces were expanded (or not needed): the list is free for the
        // level after the next.
        listed_len[level & 1] = 0;
        listed_len[2 + (level & 1)] = 0;
    }
    u32 parity = (level + 1) & 1;
    u64* out = listed + (u64)parity * listed_cap;
    u32 *out_len = listed_len + parity, *out_arcs = listed_len + 2 + parity;
    u32 lane = threadIdx.x & 31;
    u32 stride = gridDim.x * blockDim.x;
    u64 found = 0, arcs = 0;
    for (u32 q = 0; q < world; q++) {
        const u32* l = lists + (u64)q * stride_words;
        u32 count = min(l[0], cap);
        const u32* pairs = l + 1;
        // Every lane of a warp runs the same rounds (warp_slots needs them all).
        for (u32 base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < count;
             base += stride) {
            u32 i = base + lane, v = 0, pieces = 0, new_arcs = 0;
            if (i < count) {
                u32 t = pairs[2 * i], u = pairs[2 * i + 1];
                u32 bit = 1u << (t % 32);
                bool mine = t - lo < nl;
                if (mine) atomicMin(parent + (t - lo), u);
                // A pair's vertex was unvisited at the expansion: the first to set its bit
                // has it first.
                if (!(atomicOr(visited + t / 32, bit) & bit)) {
                    found++;
                    arcs += deg[t];
                    new_arcs = min(deg[t], short_arcs + 1);
                    if (mine) {
                        v = t - lo;
                        depth[v] = level + 1;
                        pieces = (new_arcs + piece - 1) / piece;
                    }
                }
            }
            // The warp's new arcs (at most 32 * (short_arcs + 1)) join the level's unless
            // they have passed short_arcs; past it, nothing is listed.
            for (int o = 16; o > 0; o >>= 1) new_arcs += __shfl_xor_sync(FULL, new_arcs, o);
            u32 before = 0;
            if (lane == 0) {
                before = ld(out_arcs);
                if (before <= short_arcs && new_arcs) before = atomicAdd(out_arcs, new_arcs);
            }
            before = __shfl_sync(FULL, before, 0);
            if (before + new_arcs > short_arcs) pieces = 0;
            put_pieces(v, pieces, warp_slots(pieces, out_len), out, listed_cap);
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
        u64 counts[STATS];
        for (u32 k = 0; k < STATS; k++) {
            counts[k] = atomicExch((unsigned long long*)stats + k, 0ull);
            post_value(box, k, counts[k]);
        }
        u64 before = frontier_arcs == ~0ull ? ahead[2] : frontier_arcs;
        u64 left = unexplored > before ? unexplored - before : 0;
        u64 now = frontier_vertices == ~0ull ? ahead[3] : frontier_vertices;
        // Not short either if it can find nothing (`spent` in rank/mod.rs: the host ends the
        // search there).
        bool next = counts[0] > 0 && counts[1] > (undirected ? counts[0] : 0) &&
                    counts[2] == 0 && counts[1] <= next_cap &&
                    (alpha == 0 || counts[1] <= left / alpha || counts[0] < now);
        ahead[(level + 1) & 1] = next;
        ahead[2] = counts[1];
        ahead[3] = counts[0];
        post_value(box, STATS, next);
        *ticket = 0;
        post(box, seq);
    }
}

// Words of each of the three sets of counters of mbfs_short_run: the next frontier's
// vertices and arcs, a flag for lost pairs, and its pieces (a u32 counter).
#define RUN_SET 4

// A team of one's run of short levels, or a solo rank's (multi.rs): one cooperative
// launch, from `level`, which is short, its frontier listed in pieces (in
// listed[level & 1], their number listed_len[level & 1]: the last mbfs_absorb's; their
// arcs `arcs0`), on to the last level whose next frontier is not short by the host's rule
// or has more than `run_arcs` arcs (or `last`). Every vertex's rows, depth and parent are
// the rank's (lo 0), but only those of its range [lo, lo + nl) are kept: solo, the depths
// outside it are as a level split by owner or the last search left them.
//
// A level in one pass, a lane per arc u -> t: a warp's lanes over the arcs of one piece
// or of several (as many as make a round about full on the level's mean piece: a grid's
// are a vertex's 4 arcs, a hub's 32). The arc whose atomic compare-and-swap moves t's
// depth from UNREACHED to level + 1 claims t; every arc into a vertex of that depth lowers
// its parent to u (atomic min), so the parent is the least in-neighbour one level up, as
// mbfs_absorb makes it from every pair. Outside the range (solo) the arc that sets t's
// visited bit claims it, and its depth and parent are left alone (no rank reads them; a
// solo rank would otherwise have to mend every depth there before each run).
// The claimer sets t's visited bit, counts t and its
// arcs, lists its pieces for the next level (into listed[(level + 1) & 1]; a next level
// with more than short_arcs arcs, which is not short, may fill it) and writes (t, u) to
// the level's list (list_a at the run's even levels, list_b at the odd ones: at most
// short_arcs pairs, a pair per frontier arc at most), for mbfs_front should the level be
// the run's last. Then a barrier, after which every block reads the counts (one thread
// for the block, into shared memory) and decides alike: the next level is short if its
// frontier is not empty, no pair was lost, its arcs are at most short_arcs and, with
// `alpha` (not 0: the direction switch), at most `unexplored` (the arcs not yet
// expanded, this level's frontier's included) over alpha or fewer vertices than this
// level's (`nf0` at the first); and it can find a vertex
// (`spent` in rank/mod.rs: some arc, and with `undirected` more arcs than vertices). The counters
// rotate over three sets (`run`), one zeroed a level ahead, so one barrier a level
// suffices (as in bfs.cu's listed_levels). A level is a chain of about seven round trips
// to memory (piece, row offsets, target, claim, slots, the barrier's release and acquire;
// the next level's first pieces are loaded with the counts), so no two wait on each other
// where they need not.
//
// At the end block 0 posts the last level's counts (STATS values), whether the next
// level is short, the levels run, the arcs still unexplored and the last level's
// frontier's vertices, and leaves listed_len
// as mbfs_absorb would have (for a next level that is short, but too long for a run: the
// host's own, at the whole grid).
extern "C" __global__ void __launch_bounds__(256)
mbfs_short_run(const u64* off, const u32* tgt, u32* visited, u32* depth, u32* parent,
               u32 lo, u32 nl, const u32* deg, u64* listed, u32 listed_cap, u32 piece, u32 short_arcs,
               u32* listed_len, u32* list_a, u32* list_b, u64* run, u32* bar,
               u32 level, u32 last, u64 unexplored, u64 alpha, u32 undirected, u64 nf0,
               u64 arcs0, u64 run_arcs,
               u64* box, u64 seq) {
    u32 lane = threadIdx.x & 31;
    u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u32 warps = gridDim.x * blockDim.x / 32;
    bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    // The block's counts of a level (found, arcs, lost), and the level's, as read after
    // its barrier.
    __shared__ unsigned long long block_counts[3], counts[RUN_SET];
    if (threadIdx.x < 3) block_counts[threadIdx.x] = 0;
    if (lead)
        for (u32 k = 0; k < 3 * RUN_SET; k++) run[k] = 0;
    // The level's pieces and their arcs.
    u32 len = ld(listed_len + (level & 1));
    u64 level_nf = nf0, level_arcs = arcs0;
    // The pieces a warp takes a round (see above).
    auto fan = [&]() {
        u32 g = 32;
        while (g > 1 && g * level_arcs > 32ull * len) g >>= 1;
        return g;
    };
    // Each lane's piece of the warp's first round of the next level, loaded right after
    // the barrier, while the counts are read (one round trip fewer a level). It assumes
    // the next level takes as many pieces a warp (pre_g) as this one; where it does not
    // (g != pre_g), the piece is loaded again.
    u32 pre_g = fan();
    auto prefetch = [&](const u64* pieces) {
        u32 p = warp * pre_g + lane;
        return lane < pre_g && p < listed_cap ? __ldcg(pieces + p) : 0;
    };
    grid_sync_flat(bar);
    u64 pre = prefetch(listed + (u64)(level & 1) * listed_cap);
    for (u32 i = 0;; i++, level++) {
        u64* set = run + i % 3 * RUN_SET;
        u32* list = i & 1 ? list_b : list_a;
        if (lead) {
            // The set of the level before the last: last read just after its barrier.
            u64* later = run + (i + 1) % 3 * RUN_SET;
            for (u32 k = 0; k < RUN_SET; k++) later[k] = 0;
            // The last level's list: not read in the run.
            (i & 1 ? list_a : list_b)[0] = 0;
        }
        const u64* pieces = listed + (u64)(level & 1) * listed_cap;
        u64* out = listed + (u64)((level + 1) & 1) * listed_cap;
        u32* out_len = (u32*)(set + 3);
        u32 g = fan();
        u64 found = 0, arcs = 0;
        bool lost = false;
        // Every lane of a warp runs the same rounds (the shuffles, put_pieces and
        // warp_slots2 need them all).
        for (u32 p0 = warp * g; p0 < len; p0 += warps * g) {
            u32 p = p0 + lane, u = 0, count = 0;
            u64 first = 0;
            if (lane < g && p < len) {
                u64 pc = p0 == warp * g && g == pre_g ? pre : __ldcg(pieces + p);
                u = pc >> 32;
                first = off[u] + (u64)(u32)pc * piece;
                count = (u32)(min(off[u + 1], first + piece) - first);
            }
            u32 incl = warp_inclusive(count);
            u32 excl = incl - count, total = __shfl_sync(FULL, incl, 31);
            for (u32 base = 0; base < total; base += 32) {
                // Arc k of the warp's: in the piece of the first lane j whose inclusive
                // count passes k.
                u32 k = base + lane, j = 0;
                for (u32 step = 16; step > 0; step >>= 1)
                    if (__shfl_sync(FULL, incl, j + step - 1) <= k) j += step;
                u32 from = __shfl_sync(FULL, u, j), at_j = __shfl_sync(FULL, excl, j);
                u64 first_j = __shfl_sync(FULL, first, j);
                u32 t = k < total ? tgt[first_j + (k - at_j)] : UNREACHED;
                u32 dt = 0, np = 0;
                bool claim = false, mine = t - lo < nl;
                if (t != UNREACHED) {
                    dt = deg[t];
                    if (mine) {
                        u32 d = atomicCAS(depth + t, UNREACHED, level + 1);
                        claim = d == UNREACHED;
                        if (claim || d == level + 1) atomicMin(parent + t, from);
                    } else {
                        u32 bit = 1u << (t % 32);
                        claim = !(atomicOr(visited + t / 32, bit) & bit);
                    }
                }
                if (claim) {
                    if (mine) atomicOr(visited + t / 32, 1u << (t % 32));
                    found++;
                    arcs += dt;
                    np = (min(dt, short_arcs + 1) + piece - 1) / piece;
                }
                u32 at, slot;
                warp_slots2(np, out_len, claim, list, at, slot);
                put_pieces(t, np, at, out, listed_cap);
                if (claim) {
                    if (slot < short_arcs) {
                        list[1 + 2 * slot] = t;
                        list[2 + 2 * slot] = from;
                    } else {
                        lost = true;
                    }
                }
            }
        }
        // The block's counts, one atomic add each (none for nothing): the warps' sums
        // into shared memory first (an add per warp held hundreds on two words).
        found = __reduce_add_sync(FULL, (u32)found);
        for (int o = 16; o > 0; o >>= 1) arcs += __shfl_xor_sync(FULL, arcs, o);
        if (lane == 0 && found) {
            atomicAdd(&block_counts[0], found);
            atomicAdd(&block_counts[1], arcs);
        }
        if (lost) block_counts[2] = 1;
        __syncthreads();
        if (threadIdx.x == 0) {
            if (block_counts[0]) {
                atomicAdd(set, block_counts[0]);
                atomicAdd(set + 1, block_counts[1]);
            }
            if (block_counts[2]) set[2] = 1;
            for (u32 k = 0; k < 3; k++) block_counts[k] = 0;
        }
        grid_sync_flat(bar);
        // The next level's first pieces in flight while one thread reads the counts for
        // the block (every thread's load of the same words queued at one L2 slice).
        pre_g = g;
        pre = prefetch(out);
        if (threadIdx.x == 0)
            for (u32 k = 0; k < RUN_SET; k++) counts[k] = __ldcg(set + k);
        __syncthreads();
        u64 nf = counts[0], mf = counts[1], lost_any = counts[2];
        len = (u32)counts[3];
        level_arcs = mf;
        bool next = nf > 0 && mf > (undirected ? nf : 0) && lost_any == 0 &&
                    mf <= short_arcs && (alpha == 0 || mf <= unexplored / alpha || nf < level_nf);
        if (next && mf <= run_arcs && level + 1 <= last) {
            unexplored -= mf;
            level_nf = nf;
            continue;
        }
        if (lead) {
            u32 now = level & 1, then = now ^ 1;
            listed_len[now] = 0;
            listed_len[2 + now] = 0;
            listed_len[then] = len;
            listed_len[2 + then] = 0;
            post_value(box, 0, nf);
            post_value(box, 1, mf);
            post_value(box, 2, lost_any);
            post_value(box, 3, 0);
            post_value(box, STATS, next);
            post_value(box, STATS + 1, i + 1);
            post_value(box, STATS + 2, unexplored);
            post_value(box, STATS + 3, level_nf);
            post(box, seq);
        }
        return;
    }
}

// The frontier as a bitmap after a run of short levels, for a level that is not short:
// the vertices of every rank's list of the last one (as mbfs_absorb takes them) set in
// `front`, whose words the run's first level cleared.
extern "C" __global__ void mbfs_front(const u32* lists, u32 stride_words, u32 cap, u32 world,
                                      u32* front) {
    u32 stride = gridDim.x * blockDim.x;
    for (u32 q = 0; q < world; q++) {
        const u32* l = lists + (u64)q * stride_words;
        u32 count = min(l[0], cap);
        for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
            u32 t = l[1 + 2 * i], bit = 1u << (t % 32);
            if (!(ld(front + t / 32) & bit)) atomicOr(front + t / 32, bit);
        }
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
    // once. (A warp per word and round would wait for memory twice a word.)
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
// load. With `fold` the level before's mbfs_visit is this step's: `visited` lacks the
// frontier yet, a vertex in either is passed over, and visited |= front over all `words`
// (a word read here before or after its own store is the same in visited | front).
extern "C" __global__ void mbfs_bottom_up(const u64* roff, const u32* rtgt, u32 nl, u32 lo_word,
                                          u32 seg, const u32* front, u32* visited, u32* own,
                                          u32* depth, u32* parent, u32 level, const u64* off,
                                          u32 same, u64* stats, u32 fold, u32 words) {
    u32 lane = threadIdx.x & 31;
    u32 warps = gridDim.x * blockDim.x / 32;
    if (fold) {
        u32 stride = gridDim.x * blockDim.x;
        for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
            visited[i] |= front[i];
    }
    u64 found_all = 0, arcs_all = 0, left = 0;
    for (u32 w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < seg; w += warps) {
        u32 v = w * 32 + lane;
        u32 seen = visited[lo_word + w] | (fold ? front[lo_word + w] : 0);
        bool open = v < nl && !(seen & (1u << lane));
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

// A rank's own counts of a level split by owner (STATS values) to its host's mailbox,
// before the exchange: where every rank lives in one process, the hosts sum them and
// decide on the next level while the bitmap crosses (rank/search.rs); then the counters are
// cleared for the next level (mbfs_visit, which may come only with it, finds them so).
// One thread.
extern "C" __global__ void mbfs_post(u64* box, u64 seq, COUNTERS) {
    for (u32 k = 0; k < STATS; k++) post_value(box, k, __ldcg(stats + k));
    post(box, seq);
    clear(COUNTER_ARGS, true);
}

// visited |= front, over every word; the counters cleared for the next level. First, with
// `sums`, the sums of every rank's counts (`stats_all`, all-gathered just before) go to
// the host's mailbox.
extern "C" __global__ void mbfs_visit(const u32* front, u32* visited, u32 words, COUNTERS,
                                      const u64* stats_all, u64* box, u64 seq, u32 sums) {
    if (sums && blockIdx.x == 0 && threadIdx.x == 0) {
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
