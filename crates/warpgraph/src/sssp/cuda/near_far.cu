// Near-far buckets (sssp/cuda/near_far.rs), the kernel of `auto`, `dijkstra-parallel`,
// `bellman-ford-queue` and Johnson's potentials: Meyer and Sanders' delta-stepping order
// with the near/far split of Davidson, Baxter, Garland and Owens ("Work-efficient
// parallel GPU methods for single-source shortest paths", IPDPS 2014), as one cooperative
// launch. With buckets as wide as the least arc weight it is Crauser et al.'s parallel
// Dijkstra, as the GPU Johnson article uses it; with one bucket of infinite width, a
// Bellman-Ford work-list.

// Vertices of at least this many arcs are expanded by the whole grid (see expand_big).
#define BIG 1024
// Entries of the shared-memory table of expand_big.
#define TABLE 4096

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

#define NEAR_FAR_KERNELS(SUFFIX, W, D)                                                         \
    extern "C" __global__ void __launch_bounds__(256) sssp_near_far_##SUFFIX(                  \
        const u64* off, const u32* tgt, const W* wt, D* dist, u32* stamp, u32 n, D delta,      \
        u32 packed, u32 len0, u32* qa, u32* qb, u32* big, u32* bar, D* gmin, u32* flags,       \
        u32* stats, u64* timeline, u32 timeline_cap) {                                         \
        near_far<W, D>(off, tgt, wt, dist, stamp, n, delta, packed, len0, qa, qb, big,         \
                       bar, gmin, flags, stats, timeline, timeline_cap);                       \
    }
SSSP_INSTANTIATE(NEAR_FAR_KERNELS)
