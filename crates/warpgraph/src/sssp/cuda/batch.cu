// Many single-source searches at once, a block per source, for Johnson's all-pairs
// shortest paths and distance tables: apsp/cuda/johnson.rs loads these kernels from the
// SSSP modules.

// The least of x over the block's threads (every thread gets it; all must call).
template <typename D>
__device__ D block_min(D x) {
    __shared__ D least[32];
    for (u32 o = 16; o > 0; o >>= 1) {
        D y = __shfl_down_sync(0xffffffffu, x, o);
        x = y < x ? y : x;
    }
    if ((threadIdx.x & 31) == 0) least[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x < 32) {
        x = threadIdx.x < (blockDim.x >> 5) ? least[threadIdx.x] : Dist<D>::inf();
        for (u32 o = 16; o > 0; o >>= 1) {
            D y = __shfl_down_sync(0xffffffffu, x, o);
            x = y < x ? y : x;
        }
        if (threadIdx.x == 0) least[0] = x;
    }
    __syncthreads();
    D out = least[0];
    __syncthreads();
    return out;
}

// Many sources at once, for Johnson's searches (apsp/cuda): block b searches from source
// sources[first + b] over non-negative weights, in buckets of `width` with the near/far
// split of Davidson, Baxter, Garland and Owens (IPDPS 2014), each block on its own. Its
// near list's vertices (a group of `group` lanes each, 1 to 32, a power of two: the host
// sizes it to the mean degree, so that a road-like graph's few arcs do not leave most of
// a warp idle; the group's lanes take the arcs) lower distances by atomic minimum; a
// vertex lowered below the bucket's end joins the next near list once (a stamp per
// round), one lowered beyond it the far list once (a mark, cleared when it leaves). When
// the near list is empty, the bucket moves to the one of the least far distance and the
// far list is split: those now below its end become the near list, the rest stay. Width
// 0 is one bucket: the label-correcting search of a small-world graph, where buckets would
// only add rounds. Block b's distances are row b of dist_all (n each); its near, next,
// far and kept lists its own slice of lists (4n), its stamps and marks of stamps (2n).
//
// Early stop: with want > 0 targets (tindex[v]: v's index among them, or NONE), a target
// is counted once (a bit of the block's ceil(want / 32) words of got_all) when it first
// joins a near list, its distance below the bucket's end: it is then final once the
// bucket is done. (Every vertex lowered below the end joins the round's list once, so
// counting on joining misses none and skips the repeats of a round.)
// When a bucket is done and every target counted, the search stops; distances of other
// vertices may then still be too high, so only the targets' columns are to be read.
#define NONE 0xffffffffu

// Counts target v (if it is one) for the block's early stop.
__device__ __forceinline__ void reach(u32 v, const u32* tindex, u32* got, u32* reached) {
    u32 j = tindex[v];
    if (j != NONE && !(atomicOr(got + j / 32, 1u << (j % 32)) & (1u << (j % 32))))
        atomicAdd(reached, 1);
}

template <typename W, typename D>
__device__ void batch(const u64* off, const u32* tgt, const W* wt, u32 n, const u32* sources,
                      u32 first, u32 group, D width, const u32* tindex, u32 want, D* dist_all,
                      u32* lists, u32* stamps, u32* got_all, u32* flags) {
    __shared__ u32 next_len, far_len, kept_len, reached;
    u32 s = sources[first + blockIdx.x];
    D* dist = dist_all + (u64)blockIdx.x * n;
    u32* cur = lists + (u64)blockIdx.x * 4 * n;
    u32* nxt = cur + n;
    u32* far = nxt + n;
    u32* kept = far + n;
    u32* stamp = stamps + (u64)blockIdx.x * 2 * n;
    u32* in_far = stamp + n;
    u32 words = (want + 31) / 32;
    u32* got = got_all + (u64)blockIdx.x * words;
    u32 lane = threadIdx.x & (group - 1), team = threadIdx.x / group, teams = blockDim.x / group;
    for (u32 v = threadIdx.x; v < n; v += blockDim.x) {
        dist[v] = v == s ? Dist<D>::zero() : Dist<D>::inf();
        stamp[v] = 0;
        in_far[v] = 0;
    }
    for (u32 w = threadIdx.x; w < words; w += blockDim.x) got[w] = 0;
    if (threadIdx.x == 0) {
        cur[0] = s;
        far_len = 0;
        reached = 0;
    }
    __syncthreads();
    if (want > 0 && threadIdx.x == 0) reach(s, tindex, got, &reached);
    D end = width > Dist<D>::zero() ? width : Dist<D>::inf();
    u32 len = 1, round = 1;
    for (;;) {
        for (; len > 0; round++) {
            if (threadIdx.x == 0) next_len = 0;
            __syncthreads();
            for (u32 i = team; i < len; i += teams) {
                u32 u = cur[i];
                D du = Dist<D>::load(dist + u);
                for (u64 e = off[u] + lane; e < off[u + 1]; e += group) {
                    u32 v = tgt[e];
                    D nd;
                    if (!Dist<D>::add(du, (D)wt[e], nd)) flags[FLAG_OVERFLOW] = 1;
                    else if (nd < Dist<D>::load(dist + v) && nd < Dist<D>::atomic_min(dist + v, nd)) {
                        if (nd < end) {
                            if (atomicExch(stamp + v, round) != round) {
                                nxt[atomicAdd(&next_len, 1)] = v;
                                if (want > 0) reach(v, tindex, got, &reached);
                            }
                        } else if (atomicExch(in_far + v, 1) == 0) {
                            far[atomicAdd(&far_len, 1)] = v;
                        }
                    }
                }
            }
            __syncthreads();
            len = next_len;
            u32* t = cur;
            cur = nxt;
            nxt = t;
            __syncthreads();  // next_len is read before it is cleared
        }
        u32 waiting = far_len;
        if (waiting == 0 || (want > 0 && reached == want)) break;
        // The next bucket: the one of the least far distance.
        D least = Dist<D>::inf();
        for (u32 i = threadIdx.x; i < waiting; i += blockDim.x) {
            D d = Dist<D>::load(dist + far[i]);
            least = d < least ? d : least;
        }
        least = block_min(least);
        // (A far entry lowered into the bucket since is simply taken: the bucket stays.)
        if (!(least < end)) end = Dist<D>::boundary(end, least, width);
        if (threadIdx.x == 0) {
            next_len = 0;
            kept_len = 0;
        }
        __syncthreads();
        for (u32 i = threadIdx.x; i < waiting; i += blockDim.x) {
            u32 v = far[i];
            if (Dist<D>::load(dist + v) < end) {
                in_far[v] = 0;
                if (atomicExch(stamp + v, round) != round) {
                    cur[atomicAdd(&next_len, 1)] = v;
                    if (want > 0) reach(v, tindex, got, &reached);
                }
            } else {
                kept[atomicAdd(&kept_len, 1)] = v;
            }
        }
        __syncthreads();
        len = next_len;
        u32* t = far;
        far = kept;
        kept = t;
        round++;
        if (threadIdx.x == 0) far_len = kept_len;
        __syncthreads();
    }
}

// Johnson's searches when a whole row fits in shared memory: block b searches from source
// sources[first + b] over non-negative 32-bit weights whose every path sum stays below 2^32 - 1
// (the host checks), label-correcting as `batch` does, but with its n distances and two
// frontier bitmaps in shared memory (4n + 8 ceil(n / 32) bytes, dynamic), where the
// atomic minima are cheap. Each round a thread takes frontier words and relaxes the arcs of
// their vertices; a lowered vertex's bit is set in the next frontier. The final row goes
// to row b of out (0xffffffff: unreachable).
extern "C" __global__ void sssp_batch_shared_u32(const u64* off, const u32* tgt, const u32* wt,
                                                 u32 n, const u32* sources, u32 first,
                                                 u32* out) {
    extern __shared__ u32 smem[];
    __shared__ u32 more[2];
    u32 words = (n + 31) / 32;
    u32* dist = smem;
    u32* cur = smem + n;
    u32* nxt = cur + words;
    u32 s = sources[first + blockIdx.x];
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

// The columns of a batch's rows: out[b * c + j] = rows[b * n + cols[j]] for the k rows
// b < k and the c columns j < c (a thread per value, grid-stride).
template <typename T>
__device__ void gather(const T* rows, u32 n, const u32* cols, u32 c, u32 k, T* out) {
    u64 total = (u64)k * c;
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
         i += (u64)gridDim.x * blockDim.x)
        out[i] = rows[(i / c) * n + cols[i % c]];
}

extern "C" __global__ void sssp_gather_u32(const u32* rows, u32 n, const u32* cols, u32 c, u32 k,
                                           u32* out) {
    gather<u32>(rows, n, cols, c, k, out);
}

// 32-bit weights and distances (every path sum fits: the host checks) in device memory,
// for rows too long for shared memory: half the distance traffic of 64-bit cells.
extern "C" __global__ void sssp_batch_u32(const u64* off, const u32* tgt, const u32* wt, u32 n,
                                          const u32* sources, u32 first, u32 group, u32 width,
                                          const u32* tindex, u32 want, u32* dist_all,
                                          u32* lists, u32* stamps, u32* got_all, u32* flags) {
    batch<u32, u32>(off, tgt, wt, n, sources, first, group, width, tindex, want, dist_all,
                    lists, stamps, got_all, flags);
}

#define BATCH_KERNELS(SUFFIX, W, D)                                                            \
    extern "C" __global__ void sssp_batch_##SUFFIX(                                            \
        const u64* off, const u32* tgt, const W* wt, u32 n, const u32* sources, u32 first,    \
        u32 group, D width, const u32* tindex, u32 want, D* dist_all, u32* lists,             \
        u32* stamps, u32* got_all, u32* flags) {                                              \
        batch<W, D>(off, tgt, wt, n, sources, first, group, width, tindex, want, dist_all,     \
                    lists, stamps, got_all, flags);                                            \
    }                                                                                          \
    extern "C" __global__ void sssp_gather_##SUFFIX(const D* rows, u32 n, const u32* cols,     \
                                                    u32 c, u32 k, D* out) {                    \
        gather<D>(rows, n, cols, c, k, out);                                                   \
    }
SSSP_INSTANTIATE(BATCH_KERNELS)
