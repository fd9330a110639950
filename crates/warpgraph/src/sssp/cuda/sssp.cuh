// Device code shared by the GPU shortest-path kernels (sssp/cuda/*.cu). sssp/cuda/mod.rs
// compiles one module per weight type: cuda/common.cuh (types, the grid barrier, block
// scans, warp appends), then this header, then every method's file.
//
// Distances are i64 (integer and unit weights, infinity = INT64_MAX) or f64 (float
// weights, infinity = +inf), lowered with atomic minimum. A sum that does not fit the
// distance type sets flags[FLAG_OVERFLOW] and is dropped: the host reports an overflow
// error, never a wrong distance.
//
// Packed words: where every distance fits 31 bits and every weight is positive (the host
// decides), near-far keeps in dist[v] the 64-bit word (distance << 32 | parent), INT64_MAX
// for unreached, and lowers it with one atomic minimum: the word keeps the least
// distance and, among the arcs that reach it, the smallest tail, which is the CPU's
// parent rule, so no parents pass is needed. Otherwise search.cu's parents pass chooses
// the parents from the final distances by the same rule.
//
// Each module holds the kernels of one weight / distance pair, (i32, i64), (i64, i64),
// (f32, f64) or (f64, f64), named with the suffix _i32, _i64, _f32 or _f64
// (SSSP_INSTANTIATE, at the end).

typedef long long i64;

// Flags the host reads after a search.
#define FLAG_OVERFLOW 0
#define FLAG_NEGATIVE_CYCLE 1
#define FLAG_PARENTS 2

// Arcs a thread handles at once (all their loads issued before any is used).
#define UNROLL 4

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

// 32-bit distances, infinity all ones: owned_shared's (every one below 2^31 - 1) and the
// batched searches' where the host has checked that every path sum fits.
template <> struct Dist<u32> {
    static __device__ __forceinline__ u32 inf() { return 0xffffffffu; }
    static __device__ __forceinline__ u32 zero() { return 0; }
    static __device__ __forceinline__ bool add(u32 d, u32 w, u32& out) {
        u64 s = (u64)d + w;
        if (s >= inf()) return false;
        out = (u32)s;
        return true;
    }
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

// The module's weight type, which sssp/cuda/mod.rs names by defining SSSP_ONLY_<suffix>
// before everything: SSSP_INSTANTIATE(M) expands M(SUFFIX, W, D), a method file's macro of
// extern "C" kernels, for that weight type W and its distance type D.
#if defined(SSSP_ONLY_i32)
#define SSSP_INSTANTIATE(M) M(i32, int, i64)
#elif defined(SSSP_ONLY_i64)
#define SSSP_INSTANTIATE(M) M(i64, i64, i64)
#elif defined(SSSP_ONLY_f32)
#define SSSP_INSTANTIATE(M) M(f32, float, double)
#elif defined(SSSP_ONLY_f64)
#define SSSP_INSTANTIATE(M) M(f64, double, double)
#else
#define SSSP_INSTANTIATE(M)
#endif
