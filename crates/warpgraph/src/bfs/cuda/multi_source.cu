// Multi-source BFS on the GPU (bfs/cuda/multi_source.rs drives it): the hop distances from
// up to 64 * words sources in one level-synchronous pass, source i being bit i % 64 of word
// i / 64 of each vertex's `words` 64-bit words (Then et al., PVLDB 2014, as
// bfs/cpu/multi_source.rs). seen[v] holds the sources that have reached v, front[v] those
// that reached it on the last level, next[v] those reaching it on this one. A level: the
// frontier's vertices OR their front words, masked by each neighbour's seen words, into
// the neighbour's next words (msbfs_expand: a warp a light vertex, its lanes over words
// and arcs; msbfs_expand_heavy: the whole grid over each heavy vertex's arcs, so that a
// hub of a million arcs does not leave one warp working alone); a neighbour whose next
// word is first set this level joins one of the next lists once (a stamp per level: the
// heavy list at HEAVY arcs or more). Then the old front words are cleared (msbfs_clear)
// and each vertex of the next lists settles (msbfs_settle): its new sources join seen and
// become its front, and a target's level is written into the rows of those sources, out
// holding a row of `want` levels for each source of the pass (0xffffffff: not reached).
// `reached` counts the levels written, so that the host stops the pass once every source
// has reached every target.

#define MS_NONE 0xffffffffu
#define HEAVY 4096u

// Appends v to the next light or heavy list, once a level.
__device__ __forceinline__ void ms_join(u32 v, const u64* off, u32 level, u32* stamp,
                                        u32* lists, u32* lens, u32 n) {
    if (atomicExch(stamp + v, level) == level) return;
    u32 heavy = off[v + 1] - off[v] >= HEAVY ? 1 : 0;
    lists[(u64)heavy * n + atomicAdd(lens + heavy, 1)] = v;
}

// Every word 0, every stamp MS_NONE and the out_len levels of out MS_NONE (a thread per
// entry, grid-stride).
extern "C" __global__ void msbfs_init(u32 n, u32 words, u64* seen, u64* front, u64* next,
                                      u32* stamp, u32* out, u64 out_len) {
    u64 total = (u64)n * words;
    total = total > out_len ? total : out_len;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
         i += (u64)gridDim.x * blockDim.x) {
        if (i < (u64)n * words) {
            seen[i] = 0;
            front[i] = 0;
            next[i] = 0;
        }
        if (i < n) stamp[i] = MS_NONE;
        if (i < out_len) out[i] = MS_NONE;
    }
}

// Level 0: source i < k of the pass (sources[first + i]) seen and in the front of its
// vertex, the vertex in the light or heavy list, and a target's level 0 written.
extern "C" __global__ void msbfs_sources(const u64* off, u32 n, const u32* sources, u32 first,
                                         u32 k, u32 words, u64* seen, u64* front, u32* stamp,
                                         u32* lists, u32* lens, const u32* tindex, u32 want,
                                         u32* out, u64* reached) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    u32 s = sources[first + i];
    u64 bit = 1ull << (i % 64);
    atomicOr(seen + (u64)s * words + i / 64, bit);
    atomicOr(front + (u64)s * words + i / 64, bit);
    ms_join(s, off, 0, stamp, lists, lens, n);
    u32 j = tindex[s];
    if (j != MS_NONE) {
        out[(u64)i * want + j] = 0;
        atomicAdd(reached, 1ull);
    }
}

// What lane word w of frontier vertex u's front, f, does over arc e.
__device__ __forceinline__ void ms_arc(u64 e, u32 w, u64 f, const u64* off, const u32* tgt,
                                       u32 words, const u64* seen, u64* next, u32 level,
                                       u32* stamp, u32* lists, u32* lens, u32 n) {
    u32 v = tgt[e];
    u64 x = f & ~__ldcg(seen + (u64)v * words + w);
    if (x != 0 && (__ldcg(next + (u64)v * words + w) & x) != x) {
        atomicOr(next + (u64)v * words + w, x);
        ms_join(v, off, level, stamp, lists, lens, n);
    }
}

// The light frontier (the first len entries of cur): a warp a vertex (grid-stride), lane l
// taking word l % words of its arcs l / words, l / words + 32 / words, ... (words a power
// of two, at most 32). Lists are pairs of n entries: light, then heavy.
extern "C" __global__ void msbfs_expand(const u64* off, const u32* tgt, u32 n, u32 words,
                                        const u32* cur, u32 len, const u64* front,
                                        const u64* seen, u64* next, u32 level, u32* stamp,
                                        u32* lists, u32* lens) {
    const u32* list = cur;
    u32 lane = threadIdx.x & 31, w = lane % words, step = 32 / words;
    u32 warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u32 warps = gridDim.x * blockDim.x / 32;
    for (u32 i = warp; i < len; i += warps) {
        u32 u = list[i];
        u64 f = front[(u64)u * words + w];
        if (f == 0) continue;
        for (u64 e = off[u] + lane / words; e < off[u + 1]; e += step)
            ms_arc(e, w, f, off, tgt, words, seen, next, level, stamp, lists, lens, n);
    }
}

// The heavy frontier (the first len entries of cur's second half): each vertex's arcs
// shared by the whole grid, thread t taking word t % words of arcs t / words, t / words +
// threads / words, ...
extern "C" __global__ void msbfs_expand_heavy(const u64* off, const u32* tgt, u32 n,
                                              u32 words, const u32* cur, u32 len,
                                              const u64* front, const u64* seen, u64* next,
                                              u32 level, u32* stamp, u32* lists, u32* lens) {
    const u32* list = cur + n;
    u32 t = blockIdx.x * blockDim.x + threadIdx.x, w = t % words;
    u32 step = gridDim.x * blockDim.x / words;
    for (u32 i = 0; i < len; i++) {
        u32 u = list[i];
        u64 f = front[(u64)u * words + w];
        if (f == 0) continue;
        for (u64 e = off[u] + t / words; e < off[u + 1]; e += step)
            ms_arc(e, w, f, off, tgt, words, seen, next, level, stamp, lists, lens, n);
    }
}

// The front words of the first len vertices of half `part` of the lists cur cleared (a
// thread per word).
extern "C" __global__ void msbfs_clear(const u32* cur, u32 n, u32 part, u32 len, u32 words,
                                       u64* front) {
    const u32* list = cur + (u64)part * n;
    u64 total = (u64)len * words;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
         i += (u64)gridDim.x * blockDim.x)
        front[(u64)list[i / words] * words + i % words] = 0;
}

// The first len vertices of half `part` of the lists cur settle on `level` (a thread per
// word): their next words join seen and become their front, and a target's level goes
// into the row of each of its new sources below k.
extern "C" __global__ void msbfs_settle(const u32* cur, u32 n, u32 part, u32 len, u32 words,
                                        u64* seen, u64* front, u64* next, u32 level,
                                        const u32* tindex, u32 want, u32 k, u32* out,
                                        u64* reached) {
    const u32* list = cur + (u64)part * n;
    u64 total = (u64)len * words, written = 0;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
         i += (u64)gridDim.x * blockDim.x) {
        u32 v = list[i / words], w = (u32)(i % words);
        u64 at = (u64)v * words + w;
        u64 x = next[at] & ~seen[at];
        next[at] = 0;
        seen[at] |= x;
        front[at] = x;
        u32 j = tindex[v];
        if (j == MS_NONE) continue;
        while (x != 0) {
            u32 src = w * 64 + __ffsll((long long)x) - 1;
            x &= x - 1;
            if (src < k) {
                out[(u64)src * want + j] = level;
                written++;
            }
        }
    }
    if (written != 0) atomicAdd(reached, written);
}
