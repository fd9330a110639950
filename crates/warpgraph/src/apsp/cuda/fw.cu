// Kernels of the GPU Floyd-Warshall (after the GPU Floyd-Warshall article); apsp/cuda/mod.rs
// drives them.
// cuda/common.cuh (types) comes first.
//
// The matrix is the CPU's working matrix (apsp/cpu/floyd_warshall.rs): big x big cells,
// row-major, big a multiple of 64, a value >= thr meaning unreachable; a row whose
// D[i][k] is unreachable is skipped, so two sentinels are never added, and integer sums
// wrap (the CPU's bounds keep real sums in range). Predecessors (when pred is set) follow
// the pivots: P[i][j] = P[k][j] when D[i][k] + D[k][j] improves D[i][j]. A diagonal value
// that turns negative records its vertex in *cycle (atomic minimum): a negative cycle.
//
// Instantiated for the cells i32, i64 and f64, with the suffixes _i32, _i64, _f64.
//
// The blocked kernels also serve a team of GPUs (apsp/cuda/mod.rs), each holding a block
// of whole rows: `d` is then the GPU's rows, t0 the global tile row of its first, and
// `piv` (with `ppiv`) the round's pivot rows (TILE x big) broadcast from their owner. On
// one GPU t0 is 0 and piv null: the pivot rows are read from d itself.

typedef long long i64;

// Tile edge of the blocked version (a block of TILE x TILE threads).
#define TILE 32

template <typename C> struct Cell;
template <> struct Cell<int> {
    static __device__ __forceinline__ int add(int a, int b) {
        return (int)((unsigned)a + (unsigned)b);
    }
    static __device__ __forceinline__ void lower(int* at, int v) { atomicMin(at, v); }
};
template <> struct Cell<i64> {
    static __device__ __forceinline__ i64 add(i64 a, i64 b) {
        return (i64)((u64)a + (u64)b);
    }
    static __device__ __forceinline__ void lower(i64* at, i64 v) { atomicMin(at, v); }
};
template <> struct Cell<double> {
    static __device__ __forceinline__ double add(double a, double b) { return a + b; }
    static __device__ __forceinline__ void lower(double* at, double v) {
        unsigned long long* bits = (unsigned long long*)at;
        unsigned long long old = *bits;
        while (v < __longlong_as_double((long long)old)) {
            unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
            if (seen == old) break;
            old = seen;
        }
    }
};

// The initial matrix from the graph (CSR off/tgt, arc weights w as cells), a block per
// row u < big: every cell inf and predecessor none, the diagonal 0 (its predecessor u for
// a real vertex), then the lightest arc u -> v of each pair (predecessor u). Self loops are
// left out (the host refuses a negative one first).
template <typename C>
__device__ void init(const u64* off, const u32* tgt, const C* w, u32 n, u32 big, C inf,
                     C* d, u32* p, u32 pred) {
    u32 u = blockIdx.x;
    C* row = d + (u64)u * big;
    u32* prow = p + (u64)u * big;
    for (u32 j = threadIdx.x; j < big; j += blockDim.x) {
        row[j] = j == u ? (C)0 : inf;
        if (pred) prow[j] = j == u && u < n ? u : 0xffffffffu;
    }
    __syncthreads();
    if (u >= n) return;
    for (u64 e = off[u] + threadIdx.x; e < off[u + 1]; e += blockDim.x) {
        u32 v = tgt[e];
        if (v == u) continue;
        Cell<C>::lower(row + v, w[e]);
        if (pred) prow[v] = u;
    }
}

// fw-naive, pivot k: every element (i, j), one thread each; grid-stride in both
// dimensions, so a matrix larger than the grid is swept tile by tile.
template <typename C>
__device__ void naive(C* d, u32* p, u32 pred, u32 big, u32 k, C thr, u32* cycle) {
    for (u32 i = blockIdx.y * blockDim.y + threadIdx.y; i < big; i += gridDim.y * blockDim.y) {
        C a = d[(u64)i * big + k];
        if (a >= thr) continue;
        for (u32 j = blockIdx.x * blockDim.x + threadIdx.x; j < big;
             j += gridDim.x * blockDim.x) {
            C s = Cell<C>::add(a, d[(u64)k * big + j]);
            u64 at = (u64)i * big + j;
            if (s < d[at]) {
                d[at] = s;
                if (pred) p[at] = p[(u64)k * big + j];
                if (i == j && s < (C)0) atomicMin(cycle, i);
            }
        }
    }
}

// Loads tile (ti, tj) of d (and of p) into shared memory, a cell per thread.
template <typename C>
__device__ __forceinline__ void load_tile(C (*s)[TILE], u32 (*sp)[TILE], const C* d,
                                          const u32* p, u32 pred, u32 big, u32 ti, u32 tj) {
    u64 at = (u64)(ti * TILE + threadIdx.y) * big + tj * TILE + threadIdx.x;
    s[threadIdx.y][threadIdx.x] = d[at];
    if (pred) sp[threadIdx.y][threadIdx.x] = p[at];
}

template <typename C>
__device__ __forceinline__ void store_tile(C (*s)[TILE], u32 (*sp)[TILE], C* d, u32* p,
                                           u32 pred, u32 big, u32 ti, u32 tj) {
    u64 at = (u64)(ti * TILE + threadIdx.y) * big + tj * TILE + threadIdx.x;
    d[at] = s[threadIdx.y][threadIdx.x];
    if (pred) p[at] = sp[threadIdx.y][threadIdx.x];
}

// One pivot kk within shared tiles: own[y][x] = min(own[y][x], a[y][kk] + b[kk][x]), the
// predecessor from pb[kk][x]; every value read before any is written (own may be a or b).
template <typename C>
__device__ __forceinline__ void pivot_in_place(C (*own)[TILE], u32 (*pown)[TILE], C (*a)[TILE],
                                               C (*b)[TILE], u32 (*pb)[TILE], u32 pred,
                                               u32 kk, C thr) {
    u32 y = threadIdx.y, x = threadIdx.x;
    C av = a[y][kk], bv = b[kk][x];
    u32 pv = pred ? pb[kk][x] : 0;
    __syncthreads();
    if (av < thr) {
        C s = Cell<C>::add(av, bv);
        if (s < own[y][x]) {
            own[y][x] = s;
            if (pred) pown[y][x] = pv;
        }
    }
    __syncthreads();
}

// fw-blocked (Venkataraman et al., as the GPU Floyd-Warshall article ports it), round kb.
// Phase 1: the diagonal tile alone.
template <typename C>
__device__ void phase1(C* d, u32* p, u32 pred, u32 big, u32 kb, C thr, u32* cycle, u32 t0) {
    __shared__ C s[TILE][TILE];
    __shared__ u32 sp[TILE][TILE];
    load_tile(s, sp, d, p, pred, big, kb - t0, kb);
    __syncthreads();
    // The diagonal is checked after every pivot, while values are still within the CPU's
    // bounds (past a negative cycle they may grow and wrap).
    for (u32 kk = 0; kk < TILE; kk++) {
        pivot_in_place(s, sp, s, s, sp, pred, kk, thr);
        if (threadIdx.x == threadIdx.y && s[threadIdx.y][threadIdx.x] < (C)0)
            atomicMin(cycle, kb * TILE + threadIdx.y);
    }
    store_tile(s, sp, d, p, pred, big, kb - t0, kb);
}

// The round's pivot rows: piv when given, else rows kb * TILE.. of d.
template <typename T>
__device__ __forceinline__ T* pivot_rows(T* piv, T* d, u32 big, u32 kb, u32 t0) {
    return piv ? piv : d + (u64)(kb - t0) * TILE * big;
}

// Phase 2: the tiles of row kb (part 0) and column kb (part 1), tile blockIdx.x of them,
// from the diagonal tile; part = blockIdx.y + ybase. Column tiles are d's own (local)
// rows, the diagonal tile read from the pivot rows.
template <typename C>
__device__ void phase2(C* d, u32* p, u32 pred, u32 big, u32 kb, C thr, u32 t0, u32 ybase,
                       C* piv, u32* ppiv) {
    bool row = blockIdx.y + ybase == 0;
    if (row ? blockIdx.x == kb : t0 + blockIdx.x == kb) return;
    __shared__ C diag[TILE][TILE], own[TILE][TILE];
    __shared__ u32 pdiag[TILE][TILE], pown[TILE][TILE];
    u32 ti = row ? kb - t0 : blockIdx.x, tj = row ? blockIdx.x : kb;
    if (row) load_tile(diag, pdiag, d, p, pred, big, kb - t0, kb);
    else load_tile(diag, pdiag, pivot_rows(piv, d, big, kb, t0),
                   pivot_rows(ppiv, p, big, kb, t0), pred, big, 0, kb);
    load_tile(own, pown, d, p, pred, big, ti, tj);
    __syncthreads();
    for (u32 kk = 0; kk < TILE; kk++) {
        if (row) pivot_in_place(own, pown, diag, own, pown, pred, kk, thr);
        else pivot_in_place(own, pown, own, diag, pdiag, pred, kk, thr);
    }
    store_tile(own, pown, d, p, pred, big, ti, tj);
}

// Phase 3: every other tile (blockIdx.y, blockIdx.x), a min-plus product of its column-kb
// and row-kb tiles, which this round no longer changes: the cell stays in a register.
template <typename C>
__device__ void phase3(C* d, u32* p, u32 pred, u32 big, u32 kb, C thr, u32 t0, C* piv,
                       u32* ppiv) {
    u32 ti = blockIdx.y, tj = blockIdx.x;
    if (t0 + ti == kb || tj == kb) return;
    __shared__ C col[TILE][TILE], row[TILE][TILE];
    __shared__ u32 prow[TILE][TILE];
    load_tile(col, prow, d, p, 0, big, ti, kb);
    load_tile(row, prow, pivot_rows(piv, d, big, kb, t0), pivot_rows(ppiv, p, big, kb, t0), pred,
              big, 0, tj);
    u64 at = (u64)(ti * TILE + threadIdx.y) * big + tj * TILE + threadIdx.x;
    C c = d[at];
    u32 pc = pred ? p[at] : 0;
    __syncthreads();
    bool changed = false;
#pragma unroll 8
    for (u32 kk = 0; kk < TILE; kk++) {
        C a = col[threadIdx.y][kk];
        if (a >= thr) continue;
        C s = Cell<C>::add(a, row[kk][threadIdx.x]);
        if (s < c) {
            c = s;
            changed = true;
            if (pred) pc = prow[kk][threadIdx.x];
        }
    }
    if (changed) {
        d[at] = c;
        if (pred) p[at] = pc;
    }
}

// fw-tuned, phase 3, for non-negative 32-bit cells (the CPU's plan with no negative
// weight: values below 2^31, so sums of two stay below 2^32 and unsigned arithmetic
// never wraps; a sentinel plus anything still reads as unreachable, so nothing is
// skipped). A block of 256 threads takes a 64 x 64 block of the matrix, each thread 4 x 4
// cells in registers (rows 4 ty .. 4 ty + 3, columns 4 tx .. 4 tx + 3: two 16-byte
// shared loads feed 16 instructions), over the 32 pivots of
// round kb: the 64 x 32 strip of column tile kb (transposed in shared memory) and the 32 x
// 64 strip of row tile kb, min(c, a + b) one DPX instruction each (__viaddmin_u32: native
// on sm_90 and newer, emulated before). Cells of row and column tile kb are included:
// phases 1 and 2 closed them over these pivots, so they do not change.
#define TT 64
extern "C" __global__ void __launch_bounds__(256)
    fw_tuned_phase3_u32(unsigned* d, u32 big, u32 kb, u32 t0, unsigned* piv) {
    const unsigned* pr = pivot_rows(piv, d, big, kb, t0);
    // at[kk][r] = D[row0 + r][k0 + kk]; rows padded by 4 (16-byte aligned, and the
    // transposing stores spread over 8 banks).
    __shared__ __align__(16) unsigned at[TILE][TT + 4];
    __shared__ __align__(16) unsigned bs[TILE][TT];    // bs[kk][c] = D[k0 + kk][col0 + c]
    u32 tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    u64 row0 = (u64)blockIdx.y * TT, col0 = (u64)blockIdx.x * TT, k0 = (u64)kb * TILE;
    for (u32 e = tid; e < TT * TILE; e += 256) {
        at[e % TILE][e / TILE] = d[(row0 + e / TILE) * big + k0 + e % TILE];
        bs[e / TT][e % TT] = pr[(u64)(e / TT) * big + col0 + e % TT];
    }
    uint4 acc[4], orig[4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
        orig[r] = *(const uint4*)(d + (row0 + 4 * ty + r) * big + col0 + 4 * tx);
        acc[r] = orig[r];
    }
    __syncthreads();
#pragma unroll 8
    for (u32 kk = 0; kk < TILE; kk++) {
        uint4 b = *(const uint4*)&bs[kk][4 * tx];
        uint4 a4 = *(const uint4*)&at[kk][4 * ty];
        unsigned as[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
        for (int r = 0; r < 4; r++) {
            unsigned a = as[r];
            acc[r].x = __viaddmin_u32(a, b.x, acc[r].x);
            acc[r].y = __viaddmin_u32(a, b.y, acc[r].y);
            acc[r].z = __viaddmin_u32(a, b.z, acc[r].z);
            acc[r].w = __viaddmin_u32(a, b.w, acc[r].w);
        }
    }
#pragma unroll
    for (int r = 0; r < 4; r++) {
        if (acc[r].x != orig[r].x || acc[r].y != orig[r].y || acc[r].z != orig[r].z ||
            acc[r].w != orig[r].w)
            *(uint4*)(d + (row0 + 4 * ty + r) * big + col0 + 4 * tx) = acc[r];
    }
}

#define INSTANTIATE(SUFFIX, C)                                                                 \
    extern "C" __global__ void fw_init_##SUFFIX(const u64* off, const u32* tgt, const C* w,    \
                                                u32 n, u32 big, C inf, C* d, u32* p,           \
                                                u32 pred) {                                    \
        init<C>(off, tgt, w, n, big, inf, d, p, pred);                                         \
    }                                                                                          \
    extern "C" __global__ void fw_naive_##SUFFIX(C* d, u32* p, u32 pred, u32 big, u32 k,       \
                                                 C thr, u32* cycle) {                          \
        naive<C>(d, p, pred, big, k, thr, cycle);                                              \
    }                                                                                          \
    extern "C" __global__ void fw_phase1_##SUFFIX(C* d, u32* p, u32 pred, u32 big, u32 kb,     \
                                                  C thr, u32* cycle, u32 t0) {                 \
        phase1<C>(d, p, pred, big, kb, thr, cycle, t0);                                        \
    }                                                                                          \
    extern "C" __global__ void fw_phase2_##SUFFIX(C* d, u32* p, u32 pred, u32 big, u32 kb,     \
                                                  C thr, u32 t0, u32 ybase, C* piv,            \
                                                  u32* ppiv) {                                 \
        phase2<C>(d, p, pred, big, kb, thr, t0, ybase, piv, ppiv);                             \
    }                                                                                          \
    extern "C" __global__ void fw_phase3_##SUFFIX(C* d, u32* p, u32 pred, u32 big, u32 kb,     \
                                                  C thr, u32 t0, C* piv, u32* ppiv) {          \
        phase3<C>(d, p, pred, big, kb, thr, t0, piv, ppiv);                                    \
    }

INSTANTIATE(i32, int)
INSTANTIATE(i64, i64)
INSTANTIATE(f64, double)
