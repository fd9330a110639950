// The spanning forest's last steps on the GPU, after Borůvka's rounds (boruvka.cu): its
// edges' keys sorted into the family's order, then named as the result holds them.
// Host side: mst/cuda/forest.rs.
//
// Sort: a least-significant-digit radix sort of the keys (unique 64-bit words), 8 bits a
// pass over the bits the keys use. A pass splits the keys into tiles of SORT_TILE, in
// order; mst_sort_count counts each tile's digits, mst_sort_scan turns the counts (digit
// by digit, tile by tile) into where each tile's run of each digit starts, and
// mst_sort_scatter moves every key there, in the tile's order: the pass is stable, so
// after the last pass the keys are in order.
//
// Naming: mst_name turns each key's arc (its low `shift` bits, a canonical arc u -> v,
// u < v) into its ends (u by binary search over the row offsets) and weight, and sums
// integer weights exactly.

#define SORT_BITS 8
#define SORT_BUCKETS 256
// Threads of the sort's blocks: one per bucket (thread d keeps bucket d's tables).
#define SORT_THREADS 256
#define SORT_WARPS (SORT_THREADS / 32)
// Keys a thread takes per tile.
#define SORT_ITEMS 16
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)
// The digit of a lane without a key: matches no real digit.
#define NO_DIGIT SORT_BUCKETS

__device__ __forceinline__ u32 digit_of(u64 key, u32 shift) {
    return (u32)(key >> shift) & (SORT_BUCKETS - 1);
}

// counts[d * tiles + t] = the keys of tile t (block t) whose digit is d.
extern "C" __global__ void mst_sort_count(const u64* keys, u32 count, u32 shift, u32* counts) {
    __shared__ u32 hist[SORT_BUCKETS];
    u32 lane = threadIdx.x & 31;
    hist[threadIdx.x] = 0;
    __syncthreads();
    u64 tile = (u64)blockIdx.x * SORT_TILE;
    // Every lane runs every step (the match needs the whole warp).
    for (u32 j = threadIdx.x; j < SORT_TILE; j += SORT_THREADS) {
        u64 i = tile + j;
        u32 d = i < count ? digit_of(keys[i], shift) : NO_DIGIT;
        u32 peers = __match_any_sync(0xffffffffu, d);
        if (d != NO_DIGIT && lane == __ffs(peers) - 1) atomicAdd(hist + d, __popc(peers));
    }
    __syncthreads();
    counts[(u64)threadIdx.x * gridDim.x + blockIdx.x] = hist[threadIdx.x];
}

// Exclusive prefix sums of a[0 .. len) in place, by one block: each thread sums a
// contiguous run, the block scans the runs' sums, each thread writes its run's prefixes.
// The total must fit in 32 bits (it is the number of keys).
extern "C" __global__ void mst_sort_scan(u32* a, u32 len) {
    __shared__ u64 scratch[WARPS_MAX];
    u32 per = (len + blockDim.x - 1) / blockDim.x;
    u32 lo = min(len, threadIdx.x * per), hi = min(len, lo + per);
    u64 sum = 0;
    for (u32 i = lo; i < hi; i++) sum += a[i];
    u64 total;
    u64 base = block_exclusive_scan64(sum, scratch, &total);
    for (u32 i = lo; i < hi; i++) {
        u32 x = a[i];
        a[i] = (u32)base;
        base += x;
    }
}

// Moves every key of tile t (block t) to its place: starts[d * tiles + t] (scanned
// counts) plus the keys of digit d before it in the tile. The tile goes SORT_THREADS keys
// a step, thread order within a step; a key's rank among its digit's keys of the step is
// its rank in its warp (a match) plus that digit's keys in the warps before.
extern "C" __global__ void mst_sort_scatter(const u64* in, u32 count, u32 shift,
                                            const u32* starts, u64* out) {
    __shared__ u32 next[SORT_BUCKETS];
    __shared__ u32 in_warp[SORT_WARPS][SORT_BUCKETS];
    u32 t = threadIdx.x, lane = t & 31, warp = t >> 5;
    next[t] = starts[(u64)t * gridDim.x + blockIdx.x];
    for (u32 w = 0; w < SORT_WARPS; w++) in_warp[w][t] = 0;
    __syncthreads();
    u64 tile = (u64)blockIdx.x * SORT_TILE;
    for (u32 step = 0; step < SORT_ITEMS; step++) {
        u64 i = tile + (u64)step * SORT_THREADS + t;
        bool has = i < count;
        u64 key = has ? in[i] : 0;
        u32 d = has ? digit_of(key, shift) : NO_DIGIT;
        u32 peers = __match_any_sync(0xffffffffu, d);
        u32 rank = __popc(peers & ((1u << lane) - 1));
        if (has && rank == 0) in_warp[warp][d] = __popc(peers);
        __syncthreads();
        if (has) {
            u32 at = next[d] + rank;
            for (u32 w = 0; w < warp; w++) at += in_warp[w][d];
            out[at] = key;
        }
        __syncthreads();
        // Thread t moves bucket t past this step's keys and clears its counts.
        u32 step_keys = 0;
        for (u32 w = 0; w < SORT_WARPS; w++) {
            step_keys += in_warp[w][t];
            in_warp[w][t] = 0;
        }
        next[t] += step_keys;
        __syncthreads();
    }
}

// The weight types (WEIGHT_* of forest.rs).
#define WEIGHT_NONE 0
#define WEIGHT_I32 1
#define WEIGHT_I64 2
#define WEIGHT_F32 3
#define WEIGHT_F64 4

// The forest as the result holds it, from its sorted keys, into out (2 count words): the
// ends first, ends[2i], ends[2i + 1] = the ends u < v of edge i (words 0 .. count), then
// the weights, weights[i] = edge i's (the graph's own, 4 or 8 bytes; from word count).
// For integer weights also sums[0] += the high halves (signed, w >> 32) and sums[1] += the
// low halves (unsigned, w & 0xffffffff) of the weights as 64-bit integers: the exact
// total is sums[0] * 2^32 + sums[1].
extern "C" __global__ void mst_name(const u64* keys, u32 count, u32 shift, const u64* off,
                                    u32 n, const u32* tgt, const void* w, u32 kind, u64* out,
                                    u64* sums) {
    __shared__ u64 part[2][WARPS_MAX];
    u32* ends = (u32*)out;
    void* weights = out + count;
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    long long x = 0;
    if (i < count) {
        u64 arc = keys[i] & ((1ULL << shift) - 1);
        // The row of `arc`: off[lo] <= arc < off[hi] throughout.
        u32 lo = 0, hi = n;
        while (hi - lo > 1) {
            u32 mid = lo + (hi - lo) / 2;
            if (off[mid] <= arc) lo = mid; else hi = mid;
        }
        ends[2 * (u64)i] = lo;
        ends[2 * (u64)i + 1] = tgt[arc];
        if (kind == WEIGHT_I32 || kind == WEIGHT_F32) {
            u32 b = ((const u32*)w)[arc];
            ((u32*)weights)[i] = b;
            if (kind == WEIGHT_I32) x = (int)b;
        } else if (kind == WEIGHT_I64 || kind == WEIGHT_F64) {
            u64 b = ((const u64*)w)[arc];
            ((u64*)weights)[i] = b;
            if (kind == WEIGHT_I64) x = (long long)b;
        }
    }
    if (kind != WEIGHT_I32 && kind != WEIGHT_I64) return;
    // Both halves summed over the block, then added once.
    u64 high = (u64)(x >> 32), low = (u64)x & 0xffffffffULL;
    for (int o = 16; o > 0; o >>= 1) {
        high += __shfl_xor_sync(0xffffffffu, high, o);
        low += __shfl_xor_sync(0xffffffffu, low, o);
    }
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        part[0][warp] = high;
        part[1][warp] = low;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (u32 k = 1; k < blockDim.x / 32; k++) {
            high += part[0][k];
            low += part[1][k];
        }
        atomicAdd(sums, high);
        atomicAdd(sums + 1, low);
    }
}
