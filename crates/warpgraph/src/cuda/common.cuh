// Device code shared by every kernel file: compiled in front of each one (cuda/compile.rs).

typedef unsigned int u32;
typedef unsigned long long u64;
#define WARPS_MAX 32

// Reads data that other blocks write during a launch (from L2, bypassing the SM's L1
// cache, which could hold a copy from before another block's write).
__device__ __forceinline__ u32 ld(const u32* p) { return __ldcg(p); }

// The GPU's global nanosecond timer.
__device__ __forceinline__ u64 global_timer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Sub-counters of the grid barrier: arrivals spread over them instead of queueing on
// one address (a two-level tree).
#define BARRIER_FANIN 16

// Grid-wide barrier; every block is resident (cooperative launch). Block b arrives at
// bar[8 + b % BARRIER_FANIN]; the last arrival there arrives at bar[0]; the last arrival
// at bar[0] bumps the generation bar[1], which the waiting blocks watch.
__device__ void grid_sync(u32* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile u32* gen = bar + 1;
        u32 g = *gen;
        u32 groups = min((u32)BARRIER_FANIN, gridDim.x);
        u32 k = blockIdx.x % groups;
        u32 members = gridDim.x / groups + (k < gridDim.x % groups ? 1 : 0);
        __threadfence();
        bool released = false;
        if (atomicAdd(bar + 8 + k, 1) == members - 1) {
            atomicExch(bar + 8 + k, 0);
            if (atomicAdd(bar, 1) == groups - 1) {
                atomicExch(bar, 0);
                __threadfence();
                atomicAdd(bar + 1, 1);
                released = true;
            }
        }
        if (!released)
            while (*gen == g) __nanosleep(20);
        __threadfence();
    }
    __syncthreads();
}

// Barrier of blocks 0 .. members - 1 on one word (each resident): each adds 1, block 0
// adds 2^31 - (members - 1), so the word's top bit flips when the last one arrives, which
// every member watches for. Needs no reset. The add has release semantics and the watch
// acquire semantics (cheaper than two full fences), so what a block wrote before the
// barrier is visible to every member after it.
__device__ void sync_first(u32* word, u32 members) {
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 add = blockIdx.x == 0 ? 0x80000000u - (members - 1) : 1u;
        u32 old, now;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;"
                     : "=r"(old) : "l"(word), "r"(add) : "memory");
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
        } while (((old ^ now) & 0x80000000u) == 0);
    }
    __syncthreads();
}

// Grid-wide barrier on one word (every block resident; see sync_first).
__device__ void grid_sync_flat(u32* word) { sync_first(word, gridDim.x); }

// A mailbox (cuda/mailbox.rs: a few words of host memory mapped for the GPU), which
// one thread fills: each value i into word 1 + i (post_value), then `post` fences them
// system-wide and writes the sequence number into word 0, which the host spins on.
__device__ __forceinline__ void post_value(u64* box, u32 i, u64 v) {
    ((volatile u64*)box)[1 + i] = v;
}

__device__ __forceinline__ void post(u64* box, u64 seq) {
    __threadfence_system();
    ((volatile u64*)box)[0] = seq;
}

// Exclusive prefix sum over the block of one 64-bit value per thread, in thread order;
// *total gets the block's sum.
__device__ u64 block_exclusive_scan64(u64 x, u64* scratch, u64* total) {
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u64 y = x;
    for (int o = 1; o < 32; o <<= 1) {
        u64 t = __shfl_up_sync(0xffffffffu, y, o);
        if (lane >= o) y += t;
    }
    __syncthreads();
    if (lane == 31) scratch[warp] = y;
    __syncthreads();
    u64 before = 0, all = 0;
    for (u32 w = 0; w < blockDim.x / 32; w++) {
        if (w < warp) before += scratch[w];
        all += scratch[w];
    }
    *total = all;
    return before + y - x;
}

// Adds count to *ctr once for the warp's `active` lanes, by lane `leader` (one of them);
// every one of them gets the value before the add.
__device__ __forceinline__ u32 warp_add(unsigned active, int leader, u32* ctr, u32 count) {
    u32 base = 0;
    if ((threadIdx.x & 31) == (u32)leader) base = atomicAdd(ctr, count);
    return __shfl_sync(active, base, leader);
}

// Reserves one slot of a list for every calling lane whose `want` is set, one atomic add
// on *ctr per warp; returns the lane's slot (meaningless where `want` is false). Every
// active lane of the warp calls it.
__device__ __forceinline__ u32 warp_reserve(bool want, u32* ctr) {
    unsigned active = __activemask();
    unsigned takers = __ballot_sync(active, want);
    if (!takers) return 0;
    u32 base = warp_add(active, __ffs(takers) - 1, ctr, __popc(takers));
    return base + __popc(takers & ((1u << (threadIdx.x & 31)) - 1));
}

// Appends v to list[] for every calling lane whose `want` is set (see warp_reserve).
__device__ __forceinline__ void warp_append(bool want, u32 v, u32* list, u32* ctr) {
    u32 slot = warp_reserve(want, ctr);
    if (want) list[slot] = v;
}

// Appends v[k] to list[] for every k and calling lane whose want[k] is set, one atomic add
// on *ctr per warp for all K (see warp_reserve): lane by lane within each k, k by k.
template <int K>
__device__ __forceinline__ void warp_append_all(const bool* want, const u32* v, u32* list,
                                                u32* ctr) {
    unsigned active = __activemask();
    unsigned takers[K];
    u32 total = 0;
#pragma unroll
    for (int k = 0; k < K; k++) {
        takers[k] = __ballot_sync(active, want[k]);
        total += __popc(takers[k]);
    }
    if (!total) return;
    u32 base = warp_add(active, __ffs(active) - 1, ctr, total);
    unsigned below = (1u << (threadIdx.x & 31)) - 1;
#pragma unroll
    for (int k = 0; k < K; k++) {
        if (want[k]) list[base + __popc(takers[k] & below)] = v[k];
        base += __popc(takers[k]);
    }
}

// Degree prefix sums over a list of vertices, a contiguous run [lo, hi) per thread:
// run_arcs gives the arcs of the run's vertices (for a block or grid scan), write_offsets
// then writes out[i] = base + the arcs of list[lo..i) for each i of the run.
__device__ __forceinline__ u64 run_arcs(const u64* off, const u32* list, u32 lo, u32 hi) {
    u64 arcs = 0;
    for (u32 i = lo; i < hi; i++) {
        u32 v = ld(list + i);
        arcs += off[v + 1] - off[v];
    }
    return arcs;
}

__device__ __forceinline__ void write_offsets(const u64* off, const u32* list, u32 lo, u32 hi,
                                              u64 base, u64* out) {
    for (u32 i = lo; i < hi; i++) {
        u32 v = ld(list + i);
        out[i] = base;
        base += off[v + 1] - off[v];
    }
}

// Bottom-up BFS on bitmaps (bfs.cu's tuned search, multi.cu's teams): a warp takes the 32
// vertices of one bitmap word, a lane each.

// In-arcs a lane scans itself; a vertex with more and no parent among them has the rest
// scanned by its whole warp, 32 arcs a step.
#define BU_NARROW 32
// Loads a lane has in flight in its own scan.
#define BU_UNROLL 4

// Bit u of a bitmap; with L2, read through L2 (a bitmap written during the same launch,
// which this SM's L1 may hold an old copy of).
template <bool L2>
__device__ __forceinline__ bool bit_of(const u32* bits, u32 u) {
    u32 w = L2 ? __ldcg(bits + u / 32) : bits[u / 32];
    return (w >> (u % 32)) & 1;
}

// The parent search of one word's vertices; every lane of the warp calls it. A lane with
// `open` (an unvisited vertex) scans its vertex's in-arcs rtgt[start, end) in order and
// returns the first in-neighbour it finds in the frontier bitmap `front`, or 0xffffffff
// when there is none: BU_NARROW arcs on its own (BU_UNROLL loads in flight), the rest of
// a wider vertex with the whole warp, 32 arcs a step, one vertex after another.
template <bool L2>
__device__ __forceinline__ u32 bottom_up_lanes(const u32* rtgt, u64 start, u64 end, bool open,
                                               const u32* front) {
    const u32 none = 0xffffffffu, all = 0xffffffffu;
    u32 lane = threadIdx.x & 31;
    u32 p = none;
    u64 rest = end;  // the arcs left for the warp: rest..end
    if (open) {
        u64 a = start, mine = min(end, start + BU_NARROW);
        for (; a < mine && p == none; a += BU_UNROLL) {
            u32 u[BU_UNROLL];
#pragma unroll
            for (int k = 0; k < BU_UNROLL; k++) u[k] = a + k < mine ? rtgt[a + k] : none;
            bool hit[BU_UNROLL];
#pragma unroll
            for (int k = 0; k < BU_UNROLL; k++) hit[k] = u[k] != none && bit_of<L2>(front, u[k]);
#pragma unroll
            for (int k = BU_UNROLL - 1; k >= 0; k--)
                if (hit[k]) p = u[k];
        }
        if (p == none) rest = mine;
    }
    u32 todo = __ballot_sync(all, rest < end);
    while (todo) {
        u32 l = __ffs(todo) - 1;
        todo &= todo - 1;
        u64 wend = __shfl_sync(all, end, l);
        u32 got = none;
        for (u64 a = __shfl_sync(all, rest, l); a < wend && got == none; a += 32) {
            u32 u = a + lane < wend ? rtgt[a + lane] : none;
            u32 hits = __ballot_sync(all, u != none && bit_of<L2>(front, u));
            if (hits) got = __shfl_sync(all, u, __ffs(hits) - 1);
        }
        if (lane == l) p = got;
    }
    return p;
}
