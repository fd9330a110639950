// Kernels of the GPU single-source shortest paths; sssp/cuda/mod.rs drives them.
// cuda/common.cuh (types, the grid barrier, block scans, warp appends) comes first.
//
// Distances are i64 (integer and unit weights, infinity = INT64_MAX) or f64 (float
// weights, infinity = +inf), lowered with atomic minimum; parents are derived on the host
// from the final distances (sssp/cpu/parents.rs, shared with the CPU backend). A sum that
// does not fit the distance type sets flags[FLAG_OVERFLOW] and is dropped: the host reports an
// overflow error, never a wrong distance.
//
// Packed words: where every distance fits 31 bits and every weight is positive (the host
// decides), near_far keeps in dist[v] the 64-bit word (distance << 32 | parent), INT64_MAX
// for unreached, and lowers it with one atomic minimum: the word keeps the least
// distance and, among the arcs that reach it, the smallest tail, which is the CPU's
// parent rule, so no parents pass is needed.
//
// Every kernel is instantiated for the weight / distance pairs (i32, i64), (i64, i64),
// (f32, f64), (f64, f64), named with the suffix _i32, _i64, _f32, _f64.

typedef long long i64;

// Flags the host reads after a search.
#define FLAG_OVERFLOW 0
#define FLAG_NEGATIVE_CYCLE 1
#define FLAG_PARENTS 2

// Arcs a thread handles at once (all their loads issued before any is used).
#define UNROLL 4
// Vertices of at least this many arcs are expanded by the whole grid (see expand_big).
#define BIG 1024
// Entries of the shared-memory table of expand_big.
#define TABLE 4096

template <typename D> struct Dist;

template <> struct Dist<i64> {
    static __device__ __forceinline__ i64 inf() { return 0x7fffffffffffffffLL; }
    static __device__ __forceinline__ i64 zero() { return 0; }
    // d + w into out; false when it does not fit (INT64_MAX is infinity).
    static __device__ __forceinline__ bool add(i64 d, i64 w, i64& out) {
        if (w > 0 ? d >= inf() - w : d < (-inf() - 1) - w) return false;
        out = d + w;
        return true;
    }
    static __device__ __forceinline__ i64 load(const i64* p) { return __ldcg(p); }
    static __device__ __forceinline__ i64 atomic_min(i64* p, i64 v) {
        return atomicMin((long long*)p, (long long)v);
    }
    // The next bucket boundary above m for buckets of width delta from lo.
    static __device__ __forceinline__ i64 boundary(i64 lo, i64 m, i64 delta) {
        i64 k = (m - lo) / delta + 1;
        i64 out;
        return add(lo, k * delta, out) ? out : inf();
    }
};

template <> struct Dist<double> {
    static __device__ __forceinline__ double inf() { return __longlong_as_double(0x7ff0000000000000LL); }
    static __device__ __forceinline__ double zero() { return 0.0; }
    static __device__ __forceinline__ bool add(double d, double w, double& out) {
        out = d + w;
        return isfinite(out);
    }
    static __device__ __forceinline__ double load(const double* p) { return __ldcg(p); }
    static __device__ __forceinline__ double atomic_min(double* p, double v) {
        unsigned long long* a = (unsigned long long*)p;
        unsigned long long old = __ldcg(a);
        while (v < __longlong_as_double(old)) {
            unsigned long long seen = atomicCAS(a, old, __double_as_longlong(v));
            if (seen == old) break;
            old = seen;
        }
        return __longlong_as_double(old);
    }
    static __device__ __forceinline__ double boundary(double lo, double m, double delta) {
        double out = lo + (floor((m - lo) / delta) + 1.0) * delta;
        // A width too small to move m (or one the division overflows) still makes a
        // bucket: [m, the next double).
        return out > m ? out : nextafter(m, inf());
    }
};

// owned_shared's distances (every one below 2^31 - 1, infinity all ones): what
// fold_block_min needs.
template <> struct Dist<u32> {
    static __device__ __forceinline__ u32 inf() { return 0xffffffffu; }
    static __device__ __forceinline__ u32 load(const u32* p) { return __ldcg(p); }
    static __device__ __forceinline__ u32 atomic_min(u32* p, u32 v) { return atomicMin(p, v); }
    static __device__ __forceinline__ u32 boundary(u32 lo, u32 m, u32 delta) {
        u64 h = (u64)lo + ((u64)(m - lo) / delta + 1) * delta;
        return h >= inf() ? inf() : (u32)h;
    }
};

// Packed words (above) for i64 distances; never used with doubles.
template <typename D> struct Packing;
template <> struct Packing<i64> {
    static __device__ __forceinline__ i64 pack(i64 d, u32 parent) { return (d << 32) | parent; }
    static __device__ __forceinline__ i64 dist(i64 word) {
        return word == Dist<i64>::inf() ? word : word >> 32;
    }
};
template <> struct Packing<double> {
    static __device__ __forceinline__ double pack(double d, u32) { return d; }
    static __device__ __forceinline__ double dist(double word) { return word; }
};

// The distance stored at p: the word itself, or its distance when packed.
template <typename D>
__device__ __forceinline__ D dist_at(const D* p, bool packed) {
    D x = Dist<D>::load(p);
    return packed ? Packing<D>::dist(x) : x;
}

// source == EVERYWHERE: a virtual source joined to every vertex by an arc of weight 0
// (Johnson's potentials), already relaxed.
#define EVERYWHERE 0xffffffffu

// Every distance infinite except the source's (packed: with itself as parent); the first
// list holds the source; the list counters (bar[3..8)) and flags zero; stamps zero; both
// gmin infinite, the two sums after them (doubles) zero. With source EVERYWHERE (never packed): every distance 0 and the first
// list holds every vertex.
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

// What a relaxation needs.
template <typename W, typename D> struct Relax {
    const u64* off;
    const u32* tgt;
    const W* wt;
    D* dist;
    u32* stamp;
    u32* flags;
    D hi;        // an improved vertex joins the next list only below this
    u32* next;   // the next list and its counter
    u32* ctr;
    u32 mark;    // the next list's stamp (a vertex joins a list once)
    bool packed; // dist holds packed words
    __device__ __forceinline__ D get(u32 v) const { return dist_at(dist + v, packed); }
};

// No vertex.
#define NONE 0xffffffffu

// The distances at the targets v[0..UNROLL) (0 where NONE), all loads in flight at once.
template <typename W, typename D>
__device__ __forceinline__ void load_targets(const Relax<W, D>& r, u64 e, u64 end, u32 stride,
                                             u32* v, D* w, D* dv) {
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        u64 f = e + (u64)k * stride;
        bool in = f < end;
        v[k] = in ? r.tgt[f] : NONE;
        w[k] = in ? (D)r.wt[f] : Dist<D>::zero();
    }
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
        dv[k] = v[k] != NONE ? Dist<D>::load(r.dist + v[k]) : Dist<D>::zero();
}

// Lowers v (whose distance was dv) to du + w by the arc from u: whether its distance went
// down to a value below r.hi (packed, a word lowered only in its parent does not count).
template <typename W, typename D>
__device__ __forceinline__ bool lower(const Relax<W, D>& r, u32 u, D du, u32 v, D w, D dv) {
    if (v == NONE) return false;
    D nd;
    if (!Dist<D>::add(du, w, nd)) {
        r.flags[FLAG_OVERFLOW] = 1;
        return false;
    }
    bool lowered;
    if (r.packed) {
        D word = Packing<D>::pack(nd, u);
        lowered = word < dv && nd < Packing<D>::dist(Dist<D>::atomic_min(r.dist + v, word));
    } else {
        lowered = nd < dv && nd < Dist<D>::atomic_min(r.dist + v, nd);
    }
    return lowered && nd < r.hi;
}

// Of the targets v[k] whose want[k] is set, those not yet stamped with r.mark (stamped
// now): join[k]. All UNROLL exchanges in flight at once.
template <typename W, typename D>
__device__ __forceinline__ void first_marks(const Relax<W, D>& r, const u32* v,
                                            const bool* want, bool* join) {
    u32 was[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
        was[k] = want[k] ? atomicExch(r.stamp + v[k], r.mark) : r.mark;
#pragma unroll
    for (int k = 0; k < UNROLL; k++) join[k] = was[k] != r.mark;
}

// Relaxes the arcs first, first + stride, ... (below end) of u, at distance du. Every
// target improved below r.hi joins the next list (once). All active lanes call it. The
// UNROLL arcs' atomic operations go out together, step by step (the minima, the stamps,
// then one atomic add per warp for the list's slots), not arc after arc.
template <typename W, typename D>
__device__ __forceinline__ void relax_arcs(const Relax<W, D>& r, u32 u, D du, u64 first,
                                           u64 end, u32 stride) {
    for (u64 e = first; e < end; e += (u64)UNROLL * stride) {
        u32 v[UNROLL];
        D w[UNROLL], dv[UNROLL];
        load_targets(r, e, end, stride, v, w, dv);
        bool lowered[UNROLL], join[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) lowered[k] = lower(r, u, du, v[k], w[k], dv[k]);
        first_marks(r, v, lowered, join);
        warp_append_all<UNROLL>(join, v, r.next, r.ctr);
    }
}

// Expands the list: a thread per vertex of fewer than 32 arcs, a warp per vertex of
// 32..BIG-1 arcs (the warp takes its lanes' such vertices in turn), and vertices of BIG
// arcs or more go to big[] (counter big_ctr) for expand_big after a barrier. With `defer`,
// a vertex whose distance exceeds `lim` is not expanded but goes to the next list (LLL).
template <typename W, typename D>
__device__ void expand_list(const Relax<W, D>& r, const u32* list, u32 len, u32* big,
                            u32* big_ctr, bool defer, double lim) {
    u32 lane = threadIdx.x & 31;
    u32 threads = gridDim.x * blockDim.x;
    for (u32 base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < len; base += threads) {
        u32 i = base + lane;
        bool has = i < len;
        u32 u = has ? ld(list + i) : 0;
        D du = has ? r.get(u) : Dist<D>::zero();
        if (defer) {
            bool later = has && (double)du > lim;
            warp_append(later && atomicExch(r.stamp + u, r.mark) != r.mark, u, r.next, r.ctr);
            has = has && !later;
        }
        u64 b = has ? r.off[u] : 0, e = has ? r.off[u + 1] : 0;
        u64 deg = e - b;
        warp_append(has && deg >= BIG, u, big, big_ctr);
        if (has && deg < 32) relax_arcs(r, u, du, b, e, 1);
        unsigned medium = __ballot_sync(0xffffffffu, has && deg >= 32 && deg < BIG);
        while (medium) {
            int src = __ffs(medium) - 1;
            medium &= medium - 1;
            D d = __shfl_sync(0xffffffffu, du, src);
            u32 uu = __shfl_sync(0xffffffffu, u, src);
            u64 bb = __shfl_sync(0xffffffffu, b, src), ee = __shfl_sync(0xffffffffu, e, src);
            relax_arcs(r, uu, d, bb + lane, ee, 32);
        }
    }
}

// Expands the count vertices of big[] as one flat range of arcs shared by the whole grid
// (as the BFS does): each block sums their degrees into sum[] (shared), and each thread
// takes arcs j, j + threads, ... finding each one's vertex by binary search. More than
// TABLE of them: a block per vertex.
template <typename W, typename D>
__device__ void expand_big(const Relax<W, D>& r, const u32* big, u32 count, u64* sum,
                           u64* scratch) {
    if (count > TABLE) {
        for (u32 i = blockIdx.x; i < count; i += gridDim.x) {
            u32 u = ld(big + i);
            relax_arcs(r, u, r.get(u), r.off[u] + threadIdx.x, r.off[u + 1], blockDim.x);
        }
        return;
    }
    u32 per = (count + blockDim.x - 1) / blockDim.x;
    u32 lo = min(count, threadIdx.x * per), hi = min(count, lo + per);
    u64 total;
    u64 run = block_exclusive_scan64(run_arcs(r.off, big, lo, hi), scratch, &total);
    write_offsets(r.off, big, lo, hi, run, sum);
    __syncthreads();
    u64 threads = (u64)gridDim.x * blockDim.x;
    for (u64 j = blockIdx.x * blockDim.x + threadIdx.x; j < total; j += threads) {
        u32 l = 0, h = count - 1;  // the last i with sum[i] <= j
        while (l < h) {
            u32 m = (l + h + 1) / 2;
            if (sum[m] <= j) l = m;
            else h = m - 1;
        }
        u32 u = ld(big + l);
        u64 f = r.off[u] + (j - sum[l]);
        relax_arcs(r, u, r.get(u), f, f + 1, 1);
    }
    __syncthreads();  // sum[] is reused
}

// Folds the block's least `best` (every thread's) into *gmin, one atomic minimum per
// block; block barriers before and after.
template <typename D>
__device__ void fold_block_min(D best, D* gmin, u64* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        D x = __shfl_down_sync(0xffffffffu, best, o);
        if (x < best) best = x;
    }
    D* s = (D*)scratch;
    __syncthreads();
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (u32 w = 1; w < blockDim.x / 32; w++)
            if (s[w] < best) best = s[w];
        if (best < Dist<D>::inf()) Dist<D>::atomic_min(gmin, best);
    }
    __syncthreads();
}

// Scans the vertices first, first + stride, ... below end: every one with lo <= dist < hi
// is appended to list (counter ctr), and the smallest distance at least hi over the block
// is folded into *gmin (fold_block_min).
template <typename D>
__device__ void scan_range(const D* dist, bool packed, u32 first, u32 end, u32 stride, D lo,
                           D hi, D* gmin, u32* list, u32* ctr, u64* scratch) {
    D best = Dist<D>::inf();
    for (u32 base = first + (threadIdx.x & ~31u); base < end; base += stride) {
        u32 v = base + (threadIdx.x & 31);
        D d = v < end ? dist_at(dist + v, packed) : Dist<D>::inf();
        bool take = v < end && d >= lo && d < hi;
        if (d >= hi && d < best) best = d;
        warp_append(take, v, list, ctr);
    }
    fold_block_min(best, gmin, scratch);
}

// scan_range over all n vertices, shared by the grid.
template <typename D>
__device__ void scan_bucket(const D* dist, bool packed, u32 n, D lo, D hi, D* gmin, u32* list,
                            u32* ctr, u64* scratch) {
    scan_range(dist, packed, blockIdx.x * blockDim.x, n, gridDim.x * blockDim.x, lo, hi, gmin,
               list, ctr, scratch);
}

// Near-far buckets (delta-stepping's order, Davidson et al.'s near/far split, as one
// cooperative launch). Vertices below hi are settled bucket by bucket: the current
// bucket's list is expanded (improvements below hi join the next list, the others wait
// in their distances), over and over until it is empty; then a scan of all distances
// collects the next bucket, [hi, hi + delta), jumping over empty ones. With hi infinite
// (delta 0) it is a Bellman-Ford work-list: every improvement joins the next list, and a
// list still non-empty after n passes proves a negative cycle (flags). A work-list
// orders itself in the spirit of SLF/LLL for its first min(n, 2^16) passes: each pass first finds the list's mean and least distance,
// expands the vertices at most max(mean, least) and carries the others to the next list
// unexpanded; a list always holds every vertex lowered and not yet expanded since, so a
// list still non-empty n passes after the last such pass proves a negative cycle.
//
// qa, qb, big: lists of n entries, qa's first len0 the first list (reset wrote them: the
// source, or every vertex); bar: the barrier (8 + BARRIER_FANIN words, counters at 3..8
// zero); gmin: two distances, infinite, then two sums (doubles, zero). packed: dist holds
// packed words (reset made them).
// stats: [0] the passes run, [1] the buckets, [2] the vertex expansions (block 0's
// thread 0 counts and writes them).
template <typename W, typename D>
__device__ void near_far(const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp,
                         u32 n, D delta, u32 packed, u32 len0, u32* qa, u32* qb,
                         u32* big, u32* bar, D* gmin, u32* flags, u32* stats, u64* timeline,
                         u32 timeline_cap) {
    __shared__ u64 table[TABLE];
    __shared__ u64 scratch[WARPS_MAX];
    bool worklist = delta == Dist<D>::zero();
    Relax<W, D> r = {off, tgt, wt, dist, stamp, flags, worklist ? Dist<D>::inf() : delta,
                     qb, 0, 0, packed != 0};
    // The timeline (measuring, when given): [0], [1] the global timer at the start and the
    // end; then per pass block 0's clock and the list's length (the top bit: a scan).
    bool clock_keeper = timeline && blockIdx.x == 0 && threadIdx.x == 0;
    auto stamp_pass = [&](u32 p, u64 what) {
        if (clock_keeper && p < timeline_cap) {
            timeline[2 + 2 * p] = clock64();
            timeline[3 + 2 * p] = what;
        }
    };
    if (clock_keeper) timeline[0] = global_timer();
    auto sync = [&]() { grid_sync_flat(bar + 2); };
    u32* cur = qa;
    u32 len = len0, pass = 0, advances = 0, expanded = 0;
    // The passes that order the work-list (LLL), and its sums (two, alternating).
    u32 ordered = worklist ? min(n, 1u << 16) : 0;
    double* sums = (double*)(gmin + 2);
    // Every pass (an expansion, or a scan for the next bucket) appends to counter
    // bar[3 + (pass + 1) % 3], which every block reads after the pass's barrier, and
    // clears bar[3 + (pass + 2) % 3], whose last reads came before the previous pass's
    // barrier; likewise big[]'s counters bar[6 + pass % 2].
    auto begin_pass = [&]() -> u32* {
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            bar[3 + (pass + 2) % 3] = 0;
            bar[6 + (pass + 1) % 2] = 0;
        }
        return bar + 3 + (pass + 1) % 3;
    };
    for (;;) {
        if (len == 0) {
            if (worklist) break;
            // The next bucket: [hi, hi + delta) if it holds anything, else the one of the
            // smallest distance beyond (gmin alternates between advances; the other one
            // is reset for the next).
            D lo = r.hi, hi;
            if (!Dist<D>::add(lo, delta, hi)) hi = Dist<D>::inf();
            if (!(hi > lo)) hi = Dist<D>::boundary(lo, lo, delta);
            D* g = gmin + (advances & 1);
            if (blockIdx.x == 0 && threadIdx.x == 0) gmin[(advances + 1) & 1] = Dist<D>::inf();
            advances++;
            u32* ctr = begin_pass();
            stamp_pass(pass, 1ull << 63);
            scan_bucket(dist, packed, n, lo, hi, g, cur, ctr, scratch);
            sync();
            pass++;
            len = ld(ctr);
            if (len == 0) {
                D m = Dist<D>::load(g);
                if (!(m < Dist<D>::inf())) break;
                hi = Dist<D>::boundary(lo, m, delta);
                ctr = begin_pass();
                stamp_pass(pass, 1ull << 63);
                scan_bucket(dist, packed, n, lo, hi, g, cur, ctr, scratch);
                sync();
                pass++;
                len = ld(ctr);
            }
            r.hi = hi;
            continue;
        }
        if (worklist && (u64)pass >= (u64)n + ordered) {
            if (blockIdx.x == 0 && threadIdx.x == 0) flags[FLAG_NEGATIVE_CYCLE] = 1;
            break;
        }
        // LLL: the list's mean and least distance (this pass's slots; the other pair,
        // last read before the previous pass's barrier, reset for the next).
        bool defer = pass < ordered;
        double lim = 0.0;
        if (defer) {
            if (blockIdx.x == 0 && threadIdx.x == 0) {
                gmin[(pass + 1) & 1] = Dist<D>::inf();
                sums[(pass + 1) & 1] = 0.0;
            }
            D best = Dist<D>::inf();
            double sum = 0.0;
            for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < len;
                 i += gridDim.x * blockDim.x) {
                D d = r.get(ld(cur + i));
                sum += (double)d;
                if (d < best) best = d;
            }
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
            if ((threadIdx.x & 31) == 0 && sum != 0.0) atomicAdd(sums + (pass & 1), sum);
            fold_block_min(best, gmin + (pass & 1), scratch);
            sync();
            double least = (double)Dist<D>::load(gmin + (pass & 1));
            double mean = __ldcg(sums + (pass & 1)) / len;
            lim = mean > least ? mean : least;
        }
        u32* nxt = cur == qa ? qb : qa;
        r.next = nxt;
        r.ctr = begin_pass();
        r.mark = pass + 1;
        u32* big_ctr = bar + 6 + pass % 2;
        stamp_pass(pass, len);
        expand_list(r, cur, len, big, big_ctr, defer, lim);
        sync();
        u32 nbig = ld(big_ctr);
        if (nbig > 0) {
            expand_big(r, big, nbig, table, scratch);
            sync();
        }
        if (blockIdx.x == 0 && threadIdx.x == 0) expanded += len;
        len = ld(r.ctr);
        cur = nxt;
        pass++;
    }
    stamp_pass(pass, 0);
    if (clock_keeper) timeline[1] = global_timer();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        stats[0] = pass;
        stats[1] = advances;
        stats[2] = expanded;
    }
}

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

// Seed 000's delta-stepping (its Algorithm 3), one cooperative launch. Bucket i holds the
// vertices v with bindex[v] == i, the bucket of their tentative distance (floor(d /
// delta)): inserting, moving and removing a vertex is one write (an atomic minimum when
// lowered, since a lower distance never has a higher bucket). For the least non-empty
// bucket: light phases, while it refills: its vertices are taken out (list F, and once
// each into R), a prefix sum over their degrees lays out the request list (reqidx, like a
// CSR row pointer) and one thread per request relaxes it if the arc is light (weight <=
// delta; decided on the fly); then one heavy phase relaxes the heavy arcs of R. Every
// step ends at a grid barrier. F's counter and the least bucket alternate between two
// words each (by phase and by bucket), the one not in use cleared for the next: its last
// reads came barriers before.
//
// bindex: n entries; F, R: lists of n; reqidx: n + 1; bsum: gridDim.x; words: 8.
// *phases_out: light and heavy phases run.
#define NO_BUCKET 0xffffffffu

template <typename D>
__device__ __forceinline__ u32 bucket_of(D d, D delta) {
    return (u32)(d / delta);
}
template <>
__device__ __forceinline__ u32 bucket_of<double>(double d, double delta) {
    return (u32)floor(d / delta);
}

// Lays out the requests of list[0..len): reqidx[k] = the degrees of list[0..k) summed,
// reqidx[len] = the total, which it returns. Two steps (grid barriers).
template <typename W, typename D>
__device__ u64 lay_out_requests(const u64* off, const u32* list, u32 len, u64* reqidx,
                                u64* bsum, u64* scratch, u32* bar) {
    u32 threads = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 per = (len + threads - 1) / threads;
    u32 lo = min(len, t * per), hi = min(len, lo + per);
    u64 block_total;
    u64 run = block_exclusive_scan64(run_arcs(off, list, lo, hi), scratch, &block_total);
    if (threadIdx.x == 0) bsum[blockIdx.x] = block_total;
    grid_sync(bar);
    // This block's offset (the blocks before it) and the total.
    u64 before = 0, all = 0;
    for (u32 b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        u64 x = __ldcg(bsum + b);
        all += x;
        if (b < blockIdx.x) before += x;
    }
    u64 sum_before, total;
    block_exclusive_scan64(before, scratch, &sum_before);
    block_exclusive_scan64(all, scratch, &total);
    write_offsets(off, list, lo, hi, run + sum_before, reqidx);
    if (t == 0) reqidx[len] = total;
    grid_sync(bar);
    return total;
}

// One thread per request j < total of list[0..len) (laid out in reqidx): the arc
// j - reqidx[k] of v = list[k] (k found by binary search) is relaxed when it is light
// (heavy false) or heavy (heavy true); a lowered target moves to its new bucket.
template <typename W, typename D>
__device__ void relax_requests(const u64* off, const u32* tgt, const W* wt, D* dist,
                               u32* bindex, D delta, const u32* list, u32 len,
                               const u64* reqidx, u64 total, bool heavy, u32* flags) {
    u64 threads = (u64)gridDim.x * blockDim.x;
    for (u64 j = blockIdx.x * blockDim.x + threadIdx.x; j < total; j += threads) {
        u32 l = 0, h = len - 1;  // the last k with reqidx[k] <= j
        while (l < h) {
            u32 m = (l + h + 1) / 2;
            if (__ldcg(reqidx + m) <= j) l = m;
            else h = m - 1;
        }
        u32 v = ld(list + l);
        u64 a = off[v] + (j - __ldcg(reqidx + l));
        D c = (D)wt[a];
        if ((c > delta) != heavy) continue;
        D nd;
        if (!Dist<D>::add(Dist<D>::load(dist + v), c, nd)) {
            flags[FLAG_OVERFLOW] = 1;
            continue;
        }
        u32 w = tgt[a];
        if (nd < Dist<D>::load(dist + w) && nd < Dist<D>::atomic_min(dist + w, nd))
            atomicMin(bindex + w, bucket_of(nd, delta));
    }
}

template <typename W, typename D>
__device__ void buckets(const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp,
                        u32* bindex, u32 n, D delta, u32* F, u32* R, u64* reqidx, u64* bsum,
                        u32* bar, u32* words, u32* flags, u32* phases_out) {
    __shared__ u64 scratch[WARPS_MAX];
    u32 threads = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 lane = threadIdx.x & 31;
    // words[0..2): F's counter, by phase; words[2..4): the least bucket, by bucket;
    // words[4]: R's length.
    u32 phase = 0, round = 0;
    if (t == 0) {
        words[0] = words[1] = words[4] = 0;
        words[2] = words[3] = NO_BUCKET;
    }
    for (u32 v = t; v < n; v += threads) {
        D d = Dist<D>::load(dist + v);
        bindex[v] = d < Dist<D>::inf() ? bucket_of(d, delta) : NO_BUCKET;
    }
    grid_sync(bar);
    for (;; round++) {
        // The least non-empty bucket.
        u32* mslot = words + 2 + round % 2;
        u32 least = NO_BUCKET;
        for (u32 v = t; v < n; v += threads) least = min(least, ld(bindex + v));
        for (int o = 16; o > 0; o >>= 1) least = min(least, __shfl_down_sync(0xffffffffu, least, o));
        if (lane == 0 && least != NO_BUCKET) atomicMin(mslot, least);
        if (t == 0) {
            words[2 + (round + 1) % 2] = NO_BUCKET;
            words[4] = 0;  // R's last reads came before the last barrier
        }
        grid_sync(bar);
        u32 cur = ld(mslot);
        if (cur == NO_BUCKET) break;
        for (;; phase++) {
            // Light phase: take the bucket's vertices out (F; R once each).
            u32* fslot = words + phase % 2;
            if (t == 0) words[(phase + 1) % 2] = 0;
            for (u32 base = t & ~31u; base < n; base += threads) {
                u32 v = base + lane;
                bool in = v < n && ld(bindex + v) == cur;
                if (in) bindex[v] = NO_BUCKET;
                warp_append(in, v, F, fslot);
                bool first = in && stamp[v] != cur + 1;
                if (first) stamp[v] = cur + 1;
                warp_append(first, v, R, words + 4);
            }
            grid_sync(bar);
            u32 len = ld(fslot);
            if (len == 0) break;
            u64 total = lay_out_requests<W, D>(off, F, len, reqidx, bsum, scratch, bar);
            relax_requests(off, tgt, wt, dist, bindex, delta, F, len, reqidx, total, false,
                           flags);
            grid_sync(bar);
        }
        // Heavy phase: the heavy arcs of every vertex the bucket settled.
        u32 rlen = ld(words + 4);
        if (rlen > 0) {
            u64 total = lay_out_requests<W, D>(off, R, rlen, reqidx, bsum, scratch, bar);
            relax_requests(off, tgt, wt, dist, bindex, delta, R, rlen, reqidx, total, true,
                           flags);
            grid_sync(bar);
            phase++;
        }
    }
    if (t == 0) *phases_out = phase;
}

// Bellman-Ford in rounds over the vertices: each round, every vertex that changed in the
// previous one (active[v] == round) relaxes its arcs, marking what it lowers for the next
// round; rounds end when one changes nothing, or after n rounds that still change
// something (a negative cycle: flags).
template <typename W, typename D>
__device__ void rounds(const u64* off, const u32* tgt, const W* wt, D* dist, u32* active,
                       u32 n, u32 source, u32* bar, u32* flags, u32* rounds_out) {
    u32 threads = gridDim.x * blockDim.x;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 v = t; v < n; v += threads) active[v] = v == source ? 1 : 0;
    grid_sync(bar);
    u32 round = 1;
    for (;; round++) {
        // bar[3 + round % 3] counts this round's blocks with changes, read by every block
        // after the round's barrier; the next round's is cleared now (its last reads came
        // before the barrier that ended round - 1).
        if (blockIdx.x == 0 && threadIdx.x == 0) bar[3 + (round + 1) % 3] = 0;
        bool changed = false;
        for (u32 u = t; u < n; u += threads) {
            if (ld(active + u) != round) continue;
            D du = Dist<D>::load(dist + u);
            for (u64 e = off[u]; e < off[u + 1]; e++) {
                u32 v = tgt[e];
                D nd;
                if (!Dist<D>::add(du, (D)wt[e], nd)) {
                    flags[FLAG_OVERFLOW] = 1;
                } else if (nd < Dist<D>::load(dist + v) && nd < Dist<D>::atomic_min(dist + v, nd)) {
                    active[v] = round + 1;
                    changed = true;
                }
            }
        }
        if (__syncthreads_or(changed) && threadIdx.x == 0) atomicAdd(bar + 3 + round % 3, 1);
        grid_sync(bar);
        if (ld(bar + 3 + round % 3) == 0) break;
        if (round >= n) {
            if (blockIdx.x == 0 && threadIdx.x == 0) flags[FLAG_NEGATIVE_CYCLE] = 1;
            break;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *rounds_out = round;
}

// One (min, +) product, seed 000's SpMV Bellman-Ford: every row v pulls from the previous
// vector, dout[v] = min(din[v], min over its entries u of din[u] + w); a row that lowers
// its value sets *changed. CSR: the rows of the incoming arcs (off, tgt, wt), a thread a
// row. ELL: width entries a row, column-major (entry k of row v at k * n + v), padding
// NO_VERTEX, so that a warp's loads of one column are contiguous.
template <typename W, typename D>
__device__ __forceinline__ void pull(u32 u, W w, const D* din, D& best, u32* flags) {
    D du = din[u], s;
    if (!(du < Dist<D>::inf())) return;
    if (!Dist<D>::add(du, (D)w, s)) flags[FLAG_OVERFLOW] = 1;
    else if (s < best) best = s;
}

template <typename W, typename D>
__device__ void spmv_csr(const u64* off, const u32* tgt, const W* wt, const D* din, D* dout,
                         u32 n, u32* changed, u32* flags) {
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        D best = din[v];
        for (u64 e = off[v]; e < off[v + 1]; e++) pull(tgt[e], wt[e], din, best, flags);
        dout[v] = best;
        if (best < din[v]) *changed = 1;
    }
}

template <typename W, typename D>
__device__ void spmv_ell(const u32* idx, const W* ew, u32 width, const D* din, D* dout, u32 n,
                         u32* changed, u32* flags) {
    for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        D best = din[v];
        for (u32 k = 0; k < width; k++) {
            u64 at = (u64)k * n + v;
            u32 u = idx[at];
            if (u == 0xffffffffu) break;
            pull(u, ew[at], din, best, flags);
        }
        dout[v] = best;
        if (best < din[v]) *changed = 1;
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
// atomic minimum (parent[] must hold NO_VERTEX, the source's itself). A chosen arc of
// weight <= 0 sets flags[FLAG_PARENTS]: the parents might then form a cycle, and the host
// derives them by a breadth-first search over tight arcs instead.
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
        } else if (atomicMin(parent + y, x) > x && !positive) {
            flags[FLAG_PARENTS] = 1;
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

// (key, index) pairs: the smaller key, the smaller index on ties.
template <typename D>
__device__ __forceinline__ void keep_min(D& key, u32& idx, D k, u32 i) {
    if (k < key || (k == key && i < idx)) {
        key = k;
        idx = i;
    }
}

// The least (key, index) pair of the block, returned to every thread: a reduction by warp
// shuffles, then over the warps' results in shared memory. Every thread of the block
// calls it.
template <typename D>
__device__ void block_argmin(D& key, u32& idx) {
    __shared__ D skey[WARPS_MAX];
    __shared__ u32 sidx[WARPS_MAX];
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1)
        keep_min(key, idx, __shfl_down_sync(0xffffffffu, key, o),
                 __shfl_down_sync(0xffffffffu, idx, o));
    __syncthreads();  // the previous call's readers are done with skey
    if (lane == 0) {
        skey[warp] = key;
        sidx[warp] = idx;
    }
    __syncthreads();
    if (warp == 0) {
        u32 warps = (blockDim.x + 31) / 32;
        key = lane < warps ? skey[lane] : Dist<D>::inf();
        idx = lane < warps ? sidx[lane] : 0xffffffffu;
        for (int o = 16; o > 0; o >>= 1)
            keep_min(key, idx, __shfl_down_sync(0xffffffffu, key, o),
                     __shfl_down_sync(0xffffffffu, idx, o));
        if (lane == 0) {
            skey[0] = key;
            sidx[0] = idx;
        }
    }
    __syncthreads();
    key = skey[0];
    idx = sidx[0];
}

// Seed 000's Dijkstra (its Algorithm 1), one cooperative launch. Each iteration:
// ExtractMin, the unsettled vertex of least distance (the smaller number on ties), by a
// parallel reduction: every thread scans a grid-stride share of the vertices, each block
// reduces its threads' minima to bkey/bidx[block], and after a barrier every block
// reduces those; then Relax: the grid's threads share the arcs of that vertex, lowering
// distances by atomic minimum. It ends when the least distance is infinite. Each
// iteration reads all n vertices: O(n^2 / threads) in all, the seed's bound.
// settled: n zeroes; bkey, bidx: gridDim.x entries. *iterations_out: vertices settled.
template <typename W, typename D>
__device__ void dijkstra(const u64* off, const u32* tgt, const W* wt, D* dist, u32* settled,
                         u32 n, D* bkey, u32* bidx, u32* bar, u32* flags,
                         u32* iterations_out) {
    u32 threads = gridDim.x * blockDim.x;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 it = 0;
    for (;; it++) {
        D key = Dist<D>::inf();
        u32 u = 0xffffffffu;
        for (u32 v = t; v < n; v += threads) {
            if (ld(settled + v)) continue;
            D d = Dist<D>::load(dist + v);
            if (d < key) {  // v grows: the first of equal keys is the smallest
                key = d;
                u = v;
            }
        }
        block_argmin(key, u);
        if (threadIdx.x == 0) {
            bkey[blockIdx.x] = key;
            bidx[blockIdx.x] = u;
        }
        grid_sync(bar);
        key = Dist<D>::inf();
        u = 0xffffffffu;
        for (u32 b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            keep_min(key, u, Dist<D>::load(bkey + b), ld(bidx + b));
        block_argmin(key, u);
        if (!(key < Dist<D>::inf())) break;
        if (t == 0) settled[u] = 1;
        for (u64 a = off[u] + t; a < off[u + 1]; a += threads) {
            u32 v = tgt[a];
            D nd;
            if (!Dist<D>::add(key, (D)wt[a], nd)) flags[FLAG_OVERFLOW] = 1;
            else if (nd < Dist<D>::load(dist + v)) Dist<D>::atomic_min(dist + v, nd);
        }
        grid_sync(bar);  // bkey and bidx are rewritten, settled and dist read
    }
    if (t == 0) *iterations_out = it;
}

// One pass of the ExtractMin study (seed 000's Table 1; sssp/cuda/extract_min.rs): block
// b reduces entries [2 b blockDim.x, 2 (b + 1) blockDim.x) of keys (their indices in idx,
// or their positions when first) to out_key/out_idx[b], each thread taking two entries
// before the block's reduction. The host repeats passes until one entry is left.
extern "C" __global__ void __launch_bounds__(1024)
    extract_min_pass(const i64* keys, const u32* idx, u32 n, u32 first, i64* out_key,
                     u32* out_idx) {
    u64 i = (u64)blockIdx.x * 2 * blockDim.x + threadIdx.x, j = i + blockDim.x;
    i64 key = Dist<i64>::inf();
    u32 at = 0xffffffffu;
    if (i < n) keep_min(key, at, keys[i], first ? (u32)i : idx[i]);
    if (j < n) keep_min(key, at, keys[j], first ? (u32)j : idx[j]);
    block_argmin(key, at);
    if (threadIdx.x == 0) {
        out_key[blockIdx.x] = key;
        out_idx[blockIdx.x] = at;
    }
}

// Many sources at once, for Johnson's all-pairs searches (apsp/cuda): block b searches
// from source first + b over non-negative weights, label-correcting: its frontier's
// vertices (a warp each, lanes over the arcs) lower distances by atomic minimum, and every
// vertex lowered joins the next frontier once (a stamp per round), until a frontier is
// empty. Block b's distances are row b of dist_all (n each), its two lists and stamps its
// own slices of lists (2n) and stamps (n).
template <typename W, typename D>
__device__ void batch(const u64* off, const u32* tgt, const W* wt, u32 n, u32 first,
                      D* dist_all, u32* lists, u32* stamps, u32* flags) {
    __shared__ u32 next_len;
    u32 s = first + blockIdx.x;
    D* dist = dist_all + (u64)blockIdx.x * n;
    u32* cur = lists + (u64)blockIdx.x * 2 * n;
    u32* nxt = cur + n;
    u32* stamp = stamps + (u64)blockIdx.x * n;
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) {
        dist[v] = v == s ? Dist<D>::zero() : Dist<D>::inf();
        stamp[v] = 0;
    }
    if (threadIdx.x == 0) cur[0] = s;
    u32 len = 1;
    for (u32 round = 1; len > 0; round++) {
        if (threadIdx.x == 0) next_len = 0;
        __syncthreads();
        for (u32 i = warp; i < len; i += warps) {
            u32 u = cur[i];
            D du = Dist<D>::load(dist + u);
            for (u64 e = off[u] + lane; e < off[u + 1]; e += 32) {
                u32 v = tgt[e];
                D nd;
                if (!Dist<D>::add(du, (D)wt[e], nd)) flags[FLAG_OVERFLOW] = 1;
                else if (nd < Dist<D>::load(dist + v) && nd < Dist<D>::atomic_min(dist + v, nd) &&
                         atomicExch(stamp + v, round) != round)
                    nxt[atomicAdd(&next_len, 1)] = v;
            }
        }
        __syncthreads();
        len = next_len;
        u32* t = cur;
        cur = nxt;
        nxt = t;
        __syncthreads();  // next_len is read before it is cleared
    }
}

// Johnson's searches when a whole row fits in shared memory: block b searches from source
// first + b over non-negative 32-bit weights whose every path sum stays below 2^32 - 1
// (the host checks), label-correcting as `batch` does, but with its n distances and two
// frontier bitmaps in shared memory (4n + 8 ceil(n / 32) bytes, dynamic), where the
// atomic minima are cheap. Each round a thread takes frontier words and relaxes the arcs of
// their vertices; a lowered vertex's bit is set in the next frontier. The final row goes
// to row b of out (0xffffffff: unreachable).
extern "C" __global__ void sssp_batch_shared_u32(const u64* off, const u32* tgt, const u32* wt,
                                                 u32 n, u32 first, u32* out) {
    extern __shared__ u32 smem[];
    __shared__ u32 more[2];
    u32 words = (n + 31) / 32;
    u32* dist = smem;
    u32* cur = smem + n;
    u32* nxt = cur + words;
    u32 s = first + blockIdx.x;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) dist[v] = v == s ? 0 : 0xffffffffu;
    for (u32 w = threadIdx.x; w < words; w += blockDim.x) {
        cur[w] = w == s / 32 ? 1u << (s % 32) : 0;
        nxt[w] = 0;
    }
    if (threadIdx.x == 0) more[0] = 0;
    __syncthreads();
    for (u32 r = 0;; r++) {
        // Invariant: cur holds the frontier, nxt is clear, more[r & 1] is 0.
        if (threadIdx.x == 0) more[(r + 1) & 1] = 0;
        for (u32 w = threadIdx.x; w < words; w += blockDim.x) {
            u32 bits = cur[w];
            while (bits) {
                u32 u = w * 32 + __ffs(bits) - 1;
                bits &= bits - 1;
                u32 du = dist[u];
                for (u64 e = off[u]; e < off[u + 1]; e++) {
                    u32 v = tgt[e], nd = du + wt[e];
                    if (nd < dist[v] && nd < atomicMin(dist + v, nd)) {
                        atomicOr(nxt + v / 32, 1u << (v % 32));
                        more[r & 1] = 1;
                    }
                }
            }
        }
        __syncthreads();
        bool again = more[r & 1] != 0;
        for (u32 w = threadIdx.x; w < words; w += blockDim.x) cur[w] = 0;
        u32* t = cur;
        cur = nxt;
        nxt = t;
        __syncthreads();
        if (!again) break;
    }
    u32* row = out + (u64)blockIdx.x * n;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) row[v] = dist[v];
}

#define INSTANTIATE(SUFFIX, W, D)                                                              \
    extern "C" __global__ void sssp_reset_##SUFFIX(D* dist, u32* stamp, u32 n, u32 source,     \
                                                   u32 packed, u32* first, u32* bar,           \
                                                   u32* flags, D* gmin) {                      \
        reset<D>(dist, stamp, n, source, packed, first, bar, flags, gmin);                     \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(256) sssp_near_far_##SUFFIX(                  \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp, u32 n, D delta,      \
        u32 packed, u32 len0, u32* qa, u32* qb, u32* big, u32* bar, D* gmin, u32* flags,       \
        u32* stats, u64* timeline, u32 timeline_cap) {                                         \
        near_far<W, D>(off, tgt, wt, dist, stamp, n, delta, packed, len0, qa, qb, big,         \
                       bar, gmin, flags, stats, timeline, timeline_cap);                       \
    }                                                                                          \
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
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(256) sssp_buckets_##SUFFIX(                   \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp, u32* bindex, u32 n,  \
        D delta, u32* F, u32* R, u64* reqidx, u64* bsum, u32* bar, u32* words, u32* flags,     \
        u32* phases_out) {                                                                     \
        buckets<W, D>(off, tgt, wt, dist, stamp, bindex, n, delta, F, R, reqidx, bsum, bar,    \
                      words, flags, phases_out);                                               \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(256) sssp_rounds_##SUFFIX(                    \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* active, u32 n, u32 source,  \
        u32* bar, u32* flags, u32* rounds_out) {                                               \
        rounds<W, D>(off, tgt, wt, dist, active, n, source, bar, flags, rounds_out);           \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(1024) sssp_dijkstra_##SUFFIX(                \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* settled, u32 n, D* bkey,    \
        u32* bidx, u32* bar, u32* flags, u32* iterations_out) {                                \
        dijkstra<W, D>(off, tgt, wt, dist, settled, n, bkey, bidx, bar, flags,                 \
                       iterations_out);                                                        \
    }                                                                                          \
    extern "C" __global__ void sssp_batch_##SUFFIX(const u64* off, const u32* tgt,             \
                                                   const W* wt, u32 n, u32 first, D* dist_all,  \
                                                   u32* lists, u32* stamps, u32* flags) {       \
        batch<W, D>(off, tgt, wt, n, first, dist_all, lists, stamps, flags);                   \
    }                                                                                          \
    extern "C" __global__ void sssp_parents_##SUFFIX(const u64* off, const u32* tgt,           \
                                                     const W* wt, const D* dist, u32* parent,  \
                                                     u32 n, u32 source, u32 symmetric,         \
                                                     u32* flags) {                             \
        parents<W, D>(off, tgt, wt, dist, parent, n, source, symmetric, flags);                \
    }                                                                                          \
    extern "C" __global__ void sssp_spmv_csr_##SUFFIX(const u64* off, const u32* tgt,          \
                                                      const W* wt, const D* din, D* dout,      \
                                                      u32 n, u32* changed, u32* flags) {       \
        spmv_csr<W, D>(off, tgt, wt, din, dout, n, changed, flags);                            \
    }                                                                                          \
    extern "C" __global__ void sssp_spmv_ell_##SUFFIX(const u32* idx, const W* ew, u32 width,  \
                                                      const D* din, D* dout, u32 n,            \
                                                      u32* changed, u32* flags) {              \
        spmv_ell<W, D>(idx, ew, width, din, dout, n, changed, flags);                          \
    }

// One weight type per module (sssp/cuda/mod.rs's KERNELS_*), named by SSSP_ONLY_<suffix>.
#ifdef SSSP_ONLY_i32
INSTANTIATE(i32, int, i64)
#endif
#ifdef SSSP_ONLY_i64
INSTANTIATE(i64, i64, i64)
#endif
#ifdef SSSP_ONLY_f32
INSTANTIATE(f32, float, double)
#endif
#ifdef SSSP_ONLY_f64
INSTANTIATE(f64, double, double)
#endif
