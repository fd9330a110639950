// Owner-local near-far (sssp/cuda/owned.rs), `auto`'s kernels on road-like graphs: the
// buckets of near_far.cu, but each block owns a range of vertices and alone expands them,
// asynchronously within a bucket. `owned` sends a vertex of another block to that block's
// inbox; `owned_shared` keeps each block's distances in its shared memory and sends by an
// atomic minimum on the global copy of the distances, which the owner polls.

// owned's bucket scan: scan_range over the block's own vertices [vlo, vhi), counted in
// *count (shared). Returns the count (to every thread).
template <typename D>
__device__ u32 owned_scan(const D* dist, bool packed, u32 vlo, u32 vhi, D lo, D hi, D* gmin,
                          u32* list, u32* count, u64* scratch) {
    if (threadIdx.x == 0) *count = 0;
    __syncthreads();
    scan_range(dist, packed, vlo, vhi, blockDim.x, lo, hi, gmin, list, count, scratch);
    u32 c = *count;
    __syncthreads();
    return c;
}

// owned's inboxes (see owned): a ring of 2 * chunk slots per block, each vertex in one
// at most once. inbox_take waits for the vertex in slot `at` of `ring` (its tail said it
// is coming), frees the slot and clears the vertex's stamp, fenced so that a lowering the
// caller's next read of the distance misses pushes it again.
__device__ __forceinline__ u32 inbox_take(u32* ring, u32 at, u32 chunk, u32* istamp) {
    volatile u32* slot = ring + at % (2 * chunk);
    u32 u;
    while ((u = *slot) == NONE) {
    }
    *slot = NONE;
    __threadfence();  // the slot freed before the vertex can be pushed again
    atomicExch(istamp + u, 0);
    __threadfence();  // the stamp cleared before the distance is read
    return u;
}

// Pushes v, just lowered, to its owner's (block v / chunk) inbox unless it is in it
// already, counted in *pending first.
__device__ __forceinline__ void inbox_push(u32 v, u32 chunk, u32* istamp, u32* inbox,
                                           u32* ictr, u32* pending) {
    __threadfence();  // the lowering before the stamp
    if (atomicExch(istamp + v, 1) == 0) {
        atomicAdd(pending, 1);
        __threadfence();  // counted before it can be taken
        u32 o = v / chunk;
        u32 slot = atomicAdd(ictr + o, 1) % (2 * chunk);
        *(volatile u32*)(inbox + (u64)o * 2 * chunk + slot) = v;
    }
}

// Words owned_shared's pollers (and its scans) read at once.
#define TAKE 4

// The owner's relaxation of u's arcs (see owned): own targets join the next list (r.next,
// counter r.ctr), others their owner's inbox.
template <typename W, typename D>
__device__ __forceinline__ void owned_relax(const Relax<W, D>& r, u32 u, D du, u64 first,
                                            u64 end, u32 vlo, u32 vhi, u32 chunk, u32* istamp,
                                            u32* inbox, u32* ictr, u32* pending) {
    for (u64 e = first; e < end; e += UNROLL) {
        u32 v[UNROLL];
        D w[UNROLL], dv[UNROLL];
        load_targets(r, e, end, 1, v, w, dv);
        bool lowered[UNROLL], own[UNROLL], join[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            lowered[k] = lower(r, u, du, v[k], w[k], dv[k]);
            own[k] = lowered[k] && v[k] >= vlo && v[k] < vhi;
        }
        first_marks(r, v, own, join);
        warp_append_all<UNROLL>(join, v, r.next, r.ctr);
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            if (lowered[k] && !own[k]) inbox_push(v[k], chunk, istamp, inbox, ictr, pending);
    }
}

// The start of owned and owned_shared, every block alike (its own range's state set
// before): words[0..8) zero, then the source in its owner's first list, counted in
// words[0] (pending; owned_shared's 64-bit count has its list lengths there). Returns
// whether this block owns the source.
__device__ __forceinline__ bool owned_start(u32* words, u32* bar, u32* first, u32 source,
                                            u32 vlo, u32 vhi) {
    if (blockIdx.x == 0 && threadIdx.x < 8) words[threadIdx.x] = 0;
    grid_sync_flat(bar + 2);
    bool has_source = source >= vlo && source < vhi;
    if (has_source && threadIdx.x == 0) {
        first[0] = source;
        atomicAdd(words, 1);
    }
    grid_sync_flat(bar + 2);
    return has_source;
}

// owned's step to the next bucket, every block alike once the last is done: `scan`
// collects the block's vertices in [lo, hi) (and folds the least distance beyond into
// *gm); if no block found any, [lo, hi) becomes the bucket of that least distance and is
// scanned again. Returns false when no distance is left beyond (the search is done).
// words[3..6): the blocks that collected, by scan (the one two scans ahead cleared by the
// caller).
template <typename D, typename Scan, typename P>
__device__ __forceinline__ bool owned_advance(const Scan& scan, D lo, D delta, D* gm, D& hi,
                                              P* pending, u32* words, u32* bar, u32& scans,
                                              u32& collected) {
    collected = scan(lo, hi);
    if (threadIdx.x == 0 && collected) {
        atomicAdd(pending, (P)collected);
        atomicAdd(words + 3 + scans % 3, 1);
    }
    grid_sync_flat(bar + 2);
    u32 any = ld(words + 3 + scans % 3);
    scans++;
    if (any == 0) {
        D m = Dist<D>::load(gm);
        if (!(m < Dist<D>::inf())) return false;
        hi = Dist<D>::boundary(lo, m, delta);
        collected = scan(lo, hi);
        if (threadIdx.x == 0 && collected) atomicAdd(pending, (P)collected);
        grid_sync_flat(bar + 2);  // counted before any block can find nothing pending
    }
    return true;
}

// Profile slots a block (owned fills the first 4).
#define PROF_SLOTS 12

// A warp's greatest x folded into *to (shared) by an atomic maximum (every lane calls).
__device__ __forceinline__ void warp_max_to(u32 x, u32* to) {
    for (int d = 16; d > 0; d /= 2) x = max(x, __shfl_xor_sync(0xffffffffu, x, d));
    if (threadIdx.x % 32 == 0) atomicMax(to, x);
}

// owned's profile of this block (measuring, when prof is given): clocks in local passes,
// local passes, clocks idle, clocks in scans and their barriers.
__device__ __forceinline__ void owned_profile(u64* prof, u64 local, u32 passes, u64 idle,
                                              u64 scan) {
    if (!prof || threadIdx.x != 0) return;
    u64* p = prof + PROF_SLOTS * blockIdx.x;
    p[0] = local;
    p[1] = passes;
    p[2] = idle;
    p[3] = scan;
}

// Owner-local near-far (road-like graphs: small degrees, arcs mostly between vertices of
// close numbers), one cooperative launch. Block b owns the vertices [b * chunk, (b + 1) *
// chunk) and alone expands them. Within a bucket the blocks run asynchronously: a block
// repeats local passes over its own list with block barriers only; a target it lowers
// below the bucket's end joins its next list, or, another block's vertex, that block's
// inbox (a ring), which the owner takes in at its next local pass. `pending` counts the
// vertices listed or in an inbox and not yet expanded (a pusher counts before it pushes,
// an owner uncounts after it expanded); when it reaches 0 the bucket is done everywhere,
// and the next one is collected by each block from its own range, as near_far does from
// all. On a grid numbered row by row a block owns a strip of rows: most hops cost a
// block barrier, and a wave crossing into another strip waits for no grid barrier.
//
// An inbox holds a vertex at most once (istamp[v] is 1 from its push until its owner
// takes it; the owner clears it, then reads the distance, so a lowering it cannot have
// seen pushes the vertex again: both sides fence between the two). lstamp: the local
// lists' stamps, by the block's local pass. la, lb: each block's two local lists (chunk
// entries each); inbox: each block's ring of 2 * chunk; ictr: each block's ring tail;
// words: [0] pending, [3..6) collections by scan; gmin: two distances.
// stats: [0] block 0's local passes, [1] buckets, [2] expansions.
template <typename W, typename D>
__device__ void owned(const u64* off, const u32* tgt, const W* wt, D* dist, u32* lstamp,
                      u32* istamp, u32 n, D delta, u32 packed, u32 source, u32* la, u32* lb,
                      u32* inbox, u32* ictr, u32* bar, u32* words, D* gmin, u32* flags,
                      u32* stats, u64* prof) {
    __shared__ u32 s_len, s_tail, s_flag, s_count;
    __shared__ u64 scratch[WARPS_MAX];
    u32 chunk = (n + gridDim.x - 1) / gridDim.x;
    u32 vlo = min(n, blockIdx.x * chunk), vhi = min(n, vlo + chunk);
    u32* lists[2] = {la + (u64)blockIdx.x * chunk, lb + (u64)blockIdx.x * chunk};
    u32* ring = inbox + (u64)blockIdx.x * 2 * chunk;
    u32* pending = words;
    for (u32 v = vlo + threadIdx.x; v < vhi; v += blockDim.x) {
        lstamp[v] = 0;
        istamp[v] = 0;
    }
    // An empty inbox ring and tail.
    for (u32 i = threadIdx.x; i < 2 * chunk; i += blockDim.x) ring[i] = NONE;
    if (threadIdx.x == 0) ictr[blockIdx.x] = 0;
    bool has_source = owned_start(words, bar, lists[0], source, vlo, vhi);
    Relax<W, D> r = {off, tgt, wt, dist, lstamp, flags, delta, nullptr, nullptr, 0,
                     packed != 0};
    u32 cur = 0, cur_len = has_source ? 1 : 0, head = 0;
    u32 lmark = 0, advances = 0, scans = 0;
    u64 expanded = 0;
    // The profile (see owned_profile).
    u64 p_local = 0, p_idle = 0, p_scan = 0;
    for (;;) {
        // The bucket below r.hi, asynchronously.
        for (;;) {
            u64 t0 = prof ? clock64() : 0;
            if (threadIdx.x == 0) {
                s_tail = *(volatile u32*)(ictr + blockIdx.x);
                s_len = 0;
            }
            __syncthreads();
            u32 tail = s_tail;
            u32 nin = tail - head, len = nin + cur_len;
            if (len == 0) {
                // Idle: the bucket is done when nothing is pending anywhere.
                if (threadIdx.x == 0) s_flag = *(volatile u32*)pending == 0;
                __syncthreads();
                bool done = s_flag;
                __syncthreads();
                if (prof) p_idle += clock64() - t0;
                if (done) break;
                if (threadIdx.x == 0) __nanosleep(32);
                continue;
            }
            lmark++;
            r.next = lists[cur ^ 1];
            r.ctr = &s_len;
            r.mark = lmark;
            for (u32 i = threadIdx.x; i < len; i += blockDim.x) {
                u32 u;
                if (i < nin) {
                    u = inbox_take(ring, head + i, chunk, istamp);
                } else {
                    u = ld(lists[cur] + (i - nin));
                }
                u64 e0 = off[u], e1 = off[u + 1];
                owned_relax(r, u, r.get(u), e0, e1, vlo, vhi, chunk, istamp, inbox, ictr,
                            pending);
            }
            __syncthreads();
            head = tail;
            u32 next_len = s_len;
            __syncthreads();  // read by all before thread 0 clears it
            if (threadIdx.x == 0) {
                expanded += len;
                __threadfence();  // this pass's relaxations before it is uncounted
                atomicAdd(pending, next_len - len);
            }
            cur ^= 1;
            cur_len = next_len;
            if (prof) p_local += clock64() - t0;
        }
        u64 t0 = prof ? clock64() : 0;
        // Every block saw the bucket done; none counts anything until all have.
        grid_sync_flat(bar + 2);
        // The next bucket: [hi, hi + delta) if it holds anything, else the one of the
        // smallest distance beyond (as near_far).
        D lo = r.hi, hi;
        if (!Dist<D>::add(lo, delta, hi)) hi = Dist<D>::inf();
        if (!(hi > lo)) hi = Dist<D>::boundary(lo, lo, delta);
        D* gm = gmin + (advances & 1);
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            gmin[(advances + 1) & 1] = Dist<D>::inf();
            words[3 + (scans + 2) % 3] = 0;
        }
        advances++;
        auto scan = [&](D lo, D hi) {
            return owned_scan(dist, r.packed, vlo, vhi, lo, hi, gm, lists[cur], &s_count,
                              scratch);
        };
        u32 collected;
        if (!owned_advance(scan, lo, delta, gm, hi, pending, words, bar, scans, collected))
            break;
        r.hi = hi;
        cur_len = collected;
        if (prof) p_scan += clock64() - t0;
    }
    owned_profile(prof, p_local, lmark, p_idle, p_scan);
    // stats[2] is zeroed by the host when it reads the counts (tracing).
    if (threadIdx.x == 0) atomicAdd(stats + 2, (u32)expanded);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        stats[0] = lmark;
        stats[1] = advances;
    }
}

// owned_shared's pieces. A block's strip: its vertices [vlo, vhi), their distances in sd
// (shared, u32) and in gdist (global, every vertex), where other blocks lower them.

// The strip's start: the source's distance 0, the others infinite, in sd and gdist.
__device__ __forceinline__ void strip_init(u32* sd, u32* gdist, u32 chunk, u32 vlo, u32 vhi,
                                           u32 source) {
    for (u32 i = threadIdx.x; i < chunk; i += blockDim.x) {
        u32 v = vlo + i;
        u32 d = v == source ? 0 : Dist<u32>::inf();
        sd[i] = d;
        if (v < vhi) gdist[v] = d;
    }
}

// What other blocks lowered in the strip: the calling thread reads the exposed vertices
// (those with an arc from another strip) t, t + stride, ... of the `count` in `exposed`,
// TAKE at once, and each whose gdist is below its distance in sd joins (join(v, gdist[v])).
template <typename Join>
__device__ __forceinline__ void poll_exposed(const u32* exposed, u32 count, const u32* gdist,
                                             const u32* sd, u32 vlo, u32 t, u32 stride,
                                             Join join) {
    for (u32 i0 = t; i0 < count; i0 += TAKE * stride) {
        u32 v[TAKE], g[TAKE];
#pragma unroll
        for (int j = 0; j < TAKE; j++) {
            u32 i = i0 + j * stride;
            v[j] = i < count ? __ldg(exposed + i) : NONE;
        }
#pragma unroll
        for (int j = 0; j < TAKE; j++) g[j] = v[j] != NONE ? __ldcg(gdist + v[j]) : 0;
#pragma unroll
        for (int j = 0; j < TAKE; j++)
            if (v[j] != NONE && g[j] < sd[v[j] - vlo]) join(v[j], g[j]);
    }
}

// A bucket's scan of the strip: gdist folded into sd, each vertex in [lo, hi) put at the
// slot *ctr reserves for it (put(at, v)), and also each that the fold lowered below lo
// (another block's lowering that no poll saw: owned_shared's bucket ended without it),
// and the least distance beyond folded into *gm. Returns *ctr after the scan (to every
// thread).
template <typename Put>
__device__ u32 strip_scan(u32* sd, const u32* gdist, u32 chunk, u32 vlo, u32 vhi, u32 lo, u32 hi,
                          u32* gm, u32* ctr, u64* scratch, Put put) {
    const u32 INF = Dist<u32>::inf();
    u32 best = INF;
    // (TAKE of gdist's words read at once by each thread.)
    for (u32 base = threadIdx.x & ~31u; base < chunk; base += TAKE * blockDim.x) {
        u32 g[TAKE];
#pragma unroll
        for (int j = 0; j < TAKE; j++) {
            u32 v = vlo + base + j * blockDim.x + (threadIdx.x & 31);
            g[j] = v < vhi ? __ldcg(gdist + v) : INF;
        }
#pragma unroll
        for (int j = 0; j < TAKE; j++) {
            u32 i = base + j * blockDim.x + (threadIdx.x & 31), v = vlo + i;
            u32 d = INF;
            bool folded = false;
            if (v < vhi) {
                folded = g[j] < sd[i];
                d = min(sd[i], g[j]);
                sd[i] = d;
            }
            bool take = d < hi && (d >= lo || folded);
            if (d >= hi && d < best) best = d;
            u32 at = warp_reserve(take, ctr);
            if (take) put(at, v);
        }
    }
    fold_block_min(best, gm, scratch);
    u32 c = *ctr;
    __syncthreads();
    return c;
}

// The shared-strip variants' end: packed words, as near_far's (distance << 32 | parent),
// the parent the smallest tail of a tight arc (the CPU's rule). With `pull` (a symmetric
// graph) v's in-arcs are its own row, sorted, so the first tight arc names it: the final
// distances go to gdist, then each vertex writes its word once. Otherwise the final
// distances go to gdist and, without a parent yet, to dist; then every tight arc u -> v
// lowers v's word to u's by an atomic minimum, which leaves the smallest such u.
template <typename W>
__device__ void strip_finish(const u64* off, const u32* tgt, const W* wt, i64* dist, u32* gdist,
                             const u32* sd, u32 vlo, u32 vhi, u32 source, u32 pull, u32* bar) {
    const u32 INF = Dist<u32>::inf();
    if (pull) {
        for (u32 i = threadIdx.x; vlo + i < vhi; i += blockDim.x) gdist[vlo + i] = sd[i];
        grid_sync_flat(bar + 2);
        for (u32 v = vlo + threadIdx.x; v < vhi; v += blockDim.x) {
            u32 dv = sd[v - vlo], p = v == source ? v : NONE;
            for (u64 e = off[v], e1 = off[v + 1]; dv != INF && p == NONE && e < e1; e++) {
                u32 u = tgt[e], du = __ldcg(gdist + u);
                if (du != INF && du + (u32)wt[e] == dv) p = u;
            }
            dist[v] = dv == INF ? Dist<i64>::inf() : Packing<i64>::pack(dv, p);
        }
        return;
    }
    for (u32 i = threadIdx.x; vlo + i < vhi; i += blockDim.x) {
        u32 v = vlo + i, d = sd[i];
        gdist[v] = d;
        dist[v] = d == INF ? Dist<i64>::inf() : Packing<i64>::pack(d, v == source ? v : NONE);
    }
    grid_sync_flat(bar + 2);
    for (u32 u = vlo + threadIdx.x; u < vhi; u += blockDim.x) {
        u32 du = sd[u - vlo];
        if (du == INF) continue;
        for (u64 e = off[u], e1 = off[u + 1]; e < e1; e++) {
            u32 v = tgt[e], dv = __ldcg(gdist + v);
            if (dv != INF && du + (u32)wt[e] == dv)
                atomicMin((long long*)dist + v, (long long)Packing<i64>::pack(dv, u));
        }
    }
}

// Owner-local near-far with each block's distances in shared memory (the road-like
// graphs whose strips fit: every distance below 2^31 - 1, positive integer weights).
// As owned, but a block's vertices' distances live in its shared memory (`sd`, u32), so
// that a local pass touches global memory only for the list, the rows and the sends: a
// target of the block is lowered by a shared atomic minimum, and joins the next list once
// (two bitmaps in shared memory: a list's bits are cleared as it is read). Another
// block's target is lowered in `gdist` (every vertex, global) by an atomic minimum whose
// result nobody waits for, and that is the whole send: in each pass the owner polls its
// exposed vertices (those with an arc from another strip, `exposed`, listed by the host;
// the warps that expand nothing do, while the others expand a short list), and each
// whose gdist is below its distance in sd joins the next list. A bucket's scan first
// folds gdist into sd, which catches remote lowerings at or beyond the bucket's end, and
// any that no poll saw. At the end dist gets packed words, their parents from the tight
// arcs (the host makes sure every distance fits).
//
// The bucket's end: `pending` (a u64 at words[0..2)) sums the blocks' list lengths, each
// block's part as it last applied it: a block applies its change (list growth less
// expansions) only when it runs out of work, or when it starts again from what it polled.
// pending is 0 when every block has run out of work. A block that sees it 0 goes to the
// grid barrier that ends the bucket; one that polls work after (a send it saw late) raises
// pending again and does that work before it arrives. What a send lowered after its
// owner's last poll is in gdist before the barrier (a block fences before it arrives), and
// the scan after it folds it in and collects it with the next bucket: nothing is lost.
// Arguments as owned's, but `pull` in packed's place (the words are always packed here;
// pull: the graph is symmetric), and `exposed` (each block's exposed vertices, block b's
// from exposed_off[b] to exposed_off[b + 1]) in the inbox's; lstamp is gdist; flags
// unused, and gmin too: its two slots are words[6..8). (The kernel sssp_owned_shared_*
// takes owned's stamps, list and ring tails included, and passes on what this uses.)
// Dynamic shared memory: chunk distances, two bitmaps of chunk bits, and the rest (2 words
// an entry) the two lists' first entries.
template <typename W>
__device__ void owned_shared(const u64* off, const u32* tgt, const W* wt, i64* dist,
                             u32* gdist, u32 n, u32 delta, u32 pull, u32 source, u32* la,
                             u32* lb, const u32* exposed, const u32* exposed_off, u32* bar,
                             u32* words, u32* stats, u64* prof) {
    extern __shared__ u32 smem[];
    __shared__ u32 s_len2[2], s_flag, s_count, s_pt[3];
    __shared__ u64 scratch[WARPS_MAX];
    const u32 INF = Dist<u32>::inf();
    u32 chunk = (n + gridDim.x - 1) / gridDim.x;
    u32 bwords = (chunk + 31) / 32;
    u32* sd = smem;
    // (Each pair of arrays below is picked by arithmetic, not from an array of pointers,
    // which would live in local memory.)
    u32* bm = smem + chunk;  // bitmap k: bm + k * bwords
    // The two lists' first `cap` entries (list k's at head + k * cap), in the rest of the
    // dynamic shared memory.
    u32 dyn;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
    u32* head = smem + chunk + 2 * bwords;
    u32 cap = (dyn / 4 - chunk - 2 * bwords) / 2;
    u32 vlo = min(n, blockIdx.x * chunk), vhi = min(n, vlo + chunk);
    la += (u64)blockIdx.x * chunk;  // the block's global lists (list k: k ? lb : la)
    lb += (u64)blockIdx.x * chunk;
    u64* pending = (u64*)words;
    u32* gm2 = words + 6;
    strip_init(sd, gdist, chunk, vlo, vhi, source);
    u32 e0 = exposed_off[blockIdx.x], ecount = exposed_off[blockIdx.x + 1] - e0;
    exposed += e0;
    for (u32 i = threadIdx.x; i < 2 * bwords; i += blockDim.x) bm[i] = 0;
    bool has_source = owned_start(words, bar, la, source, vlo, vhi);
    // Entry `at` of list k is v.
    auto put = [&](u32 k, u32 at, u32 v) {
        if (at < cap)
            head[k * cap + at] = v;
        else
            (k ? lb : la)[at] = v;
    };
    if (has_source && threadIdx.x == 0) put(0, 0, source);
    if (blockIdx.x == 0 && threadIdx.x < 2) gm2[threadIdx.x] = INF;  // used after a barrier
    if (threadIdx.x < 3) s_pt[threadIdx.x] = 0;
    u32 hi = delta;
    u32 cur = 0, cur_len = has_source ? 1 : 0;
    u32 lmark = 0, passes = 0, advances = 0, scans = 0;
    u64 expanded = 0;
    u64 p_local = 0, p_idle = 0, p_scan = 0;  // the profile, as owned's
    u64 q[7] = {0, 0, 0, 0, 0, 0, 0};  // more of it: see the end
    for (;;) {
        // The bucket below hi, asynchronously. A pass expands the list and polls what
        // other blocks lowered into the next list; the block's change to `pending` waits
        // in `unapplied` (see above). Two list counters alternate by pass; the barrier at
        // a pass's start orders thread 0's clearing of the counters, and its applying of
        // the change, before the pass's work.
        if (threadIdx.x == 0) {
            s_len2[0] = 0;
            s_len2[1] = 0;
        }
        u64 unapplied = 0;
        for (;;) {
            u64 t0 = prof ? clock64() : 0;
            __syncthreads();
            u32 t32 = (u32)clock();
            u32 len = cur_len;
            lmark++;
            passes += len != 0;
            u32 nxt = cur ^ 1;
            u32* ctr = s_len2 + (lmark & 1);
            // v (this block's) joins the next list once, if nd lowered it below hi in sd.
            auto join = [&](u32 v, u32 nd) {
                u32 l = v - vlo;
                if (nd < sd[l] && nd < atomicMin(sd + l, nd) && nd < hi) {
                    u32 bit = 1u << (l % 32);
                    if (!(atomicOr(bm + nxt * bwords + l / 32, bit) & bit))
                        put(nxt, atomicAdd(ctr, 1), v);
                }
            };
            // Short lists are expanded by their first warps, while the others poll.
            u32 ewarps = (len + 31) / 32, warps = blockDim.x / 32;
            bool split = len && 2 * ewarps <= warps;
            bool sends = false;
            for (u32 i = threadIdx.x; i < len; i += blockDim.x) {
                u32 u = i < cap ? head[cur * cap + i] : ld((cur ? lb : la) + i);
                atomicAnd(bm + cur * bwords + (u - vlo) / 32, ~(1u << ((u - vlo) % 32)));
                u32 du = sd[u - vlo];
                // (The rows through the read-only cache.)
                u64 e1 = __ldg(off + u + 1);
                for (u64 e = __ldg(off + u); e < e1; e += UNROLL) {
                    u32 v[UNROLL];
                    u32 w[UNROLL];
#pragma unroll
                    for (int k = 0; k < UNROLL; k++) {
                        bool in = e + k < e1;
                        v[k] = in ? __ldg(tgt + e + k) : NONE;
                        w[k] = in ? (u32)__ldg(wt + e + k) : 0;
                    }
#pragma unroll
                    for (int k = 0; k < UNROLL; k++) {
                        if (v[k] == NONE) continue;
                        u32 nd = du + w[k];
                        if (v[k] >= vlo && v[k] < vhi) {
                            join(v[k], nd);
                        } else {
                            atomicMin(gdist + v[k], nd);
                            sends = true;
                        }
                    }
                }
            }
            if (prof) {
                warp_max_to((u32)clock() - t32, s_pt);
                if (sends) s_pt[2] = 1;
            }
            // What other blocks lowered (the threads not expanding, where split).
            u32 tt = split ? threadIdx.x - 32 * ewarps : threadIdx.x;
            u32 tstride = split ? blockDim.x - 32 * ewarps : blockDim.x;
            if (!split || tt < tstride)
                poll_exposed(exposed, ecount, gdist, sd, vlo, tt, tstride, join);
            if (prof) warp_max_to((u32)clock() - t32, s_pt + 1);
            __syncthreads();
            if (prof && threadIdx.x == 0) {
                bool sends = s_pt[2] != 0;
                u64 t = (u32)clock() - t32;
                if (len) {
                    q[0] += s_pt[0];
                    q[1] += s_pt[1];
                    q[2] += sends;
                    q[3] += sends ? t : 0;
                    q[6] += sends ? 0 : t;
                } else {
                    q[4]++;
                    q[5] += *ctr != 0;
                }
                s_pt[0] = s_pt[1] = s_pt[2] = 0;
            }
            u32 next_len = *ctr;
            if (threadIdx.x == 0) {
                s_len2[(lmark + 1) & 1] = 0;  // last read before this pass's first barrier
                expanded += len;
                // (Two's complement: the sum wraps to the signed change.)
                unapplied += (u64)next_len - len;
                // Applied when the block runs out of work, or starts again with what it
                // polled (see the pending count above).
                if ((len == 0 || next_len == 0) && unapplied != 0) {
                    __threadfence();  // this block's relaxations before
                    atomicAdd(pending, unapplied);
                    unapplied = 0;
                }
            }
            cur = nxt;
            cur_len = next_len;
            if (next_len == 0) {
                // Out of work: done if nothing is pending anywhere, else another poll.
                if (threadIdx.x == 0) s_flag = *(volatile u64*)pending == 0;
                __syncthreads();
                if (prof) p_idle += clock64() - t0;
                if (s_flag) break;
                if (threadIdx.x == 0) __nanosleep(32);
                continue;
            }
            if (prof) p_local += clock64() - t0;
        }
        u64 t0 = prof ? clock64() : 0;
        // Every block saw the bucket done; none counts anything until all have.
        grid_sync_flat(bar + 2);
        u32 lo = hi;
        hi = lo >= INF - delta ? INF : lo + delta;
        u32* gm = gm2 + (advances & 1);
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            gm2[(advances + 1) & 1] = INF;
            words[3 + (scans + 2) % 3] = 0;
        }
        advances++;
        // The scan (as owned's, strip_scan): the bucket's vertices into list `cur`.
        auto scan = [&](u32 lo, u32 hi) -> u32 {
            if (threadIdx.x == 0) s_count = 0;
            __syncthreads();
            return strip_scan(sd, gdist, chunk, vlo, vhi, lo, hi, gm, &s_count, scratch,
                              [&](u32 at, u32 v) { put(cur, at, v); });
        };
        u32 collected;
        bool more = owned_advance(scan, lo, delta, gm, hi, pending, words, bar, scans, collected);
        if (prof) p_scan += clock64() - t0;
        if (!more) break;
        cur_len = collected;
    }
    owned_profile(prof, p_local, passes, p_idle, p_scan);
    // [4, 11): clocks from a pass's start to its last warp's expansions and polls done,
    // passes with a send and their clocks, idle laps and those that polled something, the
    // clocks of passes without a send.
    for (int k = 0; prof && threadIdx.x == 0 && k < 7; k++)
        prof[PROF_SLOTS * blockIdx.x + 4 + k] = q[k];
    strip_finish(off, tgt, wt, dist, gdist, sd, vlo, vhi, source, pull, bar);
    if (threadIdx.x == 0) atomicAdd(stats + 2, (u32)expanded);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        stats[0] = passes;
        stats[1] = advances;
    }
}

#define OWNED_KERNELS(SUFFIX, W, D)                                                            \
    extern "C" __global__ void __launch_bounds__(1024, 1) sssp_owned_##SUFFIX(                 \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* lstamp, u32* istamp, u32 n, \
        D delta, u32 packed, u32 source, u32* la, u32* lb, u32* inbox, u32* ictr, u32* bar,    \
        u32* words, D* gmin, u32* flags, u32* stats, u64* prof) {                              \
        owned<W, D>(off, tgt, wt, dist, lstamp, istamp, n, delta, packed, source, la, lb,      \
                    inbox, ictr, bar, words, gmin, flags, stats, prof);                        \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(1024, 1) sssp_owned_shared_##SUFFIX(          \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* gdist, u32* istamp, u32 n,  \
        D delta, u32 pull, u32 source, u32* la, u32* lb, const u32* exposed,                   \
        const u32* exposed_off, u32* bar, u32* words, D* gmin, u32* flags, u32* stats,         \
        u64* prof) {                                                                           \
        owned_shared<W>(off, tgt, wt, (i64*)dist, gdist, n, (u32)delta, pull, source, la, lb,  \
                        exposed, exposed_off, bar, words, stats, prof);                        \
    }
SSSP_INSTANTIATE(OWNED_KERNELS)
