// Kernels of the GPU breadth-first search, part 3 (after bfs_steps.cu): the split
// search's control words and phases, the listed levels, and the launched kernels
// bfs_bu_bits and bfs_enterprise.


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
