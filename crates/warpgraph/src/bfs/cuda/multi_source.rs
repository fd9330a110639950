//! Multi-source BFS on the GPU: hop distances from up to 1,024 sources in one pass.
//!
//! **Computes** what [`crate::bfs::cpu::multi_source_bfs`] hands out, as rows: for each
//! source, the number of arcs on a shortest path to each of a list of targets
//! (`u32::MAX`: not reached).
//!
//! **Method**: M. Then et al., "The More the Merrier: Efficient Multi-Source Graph
//! Traversal", PVLDB 8(4) (2014), on the GPU (`multi_source.cu`): a pass takes `64 x
//! words` sources (words a power of two, 1 to 16), a bit each in a vertex's words of
//! sources seen, reached on the last level, and reaching it on this one. Level by level,
//! a warp expands each light frontier vertex (its lanes over words and arcs) and the whole
//! grid each heavy one (4,096 arcs or more), ORing its frontier words into its
//! neighbours' next words; the neighbours then settle, writing the level into the rows of
//! their new sources where they are targets. On a small-world graph the searches of a
//! pass cross the same vertices within a few levels of one another, so a pass costs a few
//! sweeps over the arcs instead of one per source. The host reads the next lists' lengths
//! and the number of (source, target) levels written after each level, and stops at an
//! empty level or once every source of the pass has reached every target.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use crate::cuda::{gpu_err, grid_for, launch_config, sources_at_once, Gpu, KernelSource};
use crate::error::Result;
use crate::graph::{Csr, VertexId};
use crate::progress::Progress;

/// The kernels.
pub const KERNELS: KernelSource = KernelSource {
    name: "bfs_multi_source",
    source: include_str!("multi_source.cu"),
};

/// Threads a block.
const THREADS: u32 = 256;
/// The most 64-bit words of sources a vertex in one pass (1,024 sources).
const MAX_WORDS: usize = 16;
/// Blocks that share a heavy vertex's arcs.
const HEAVY_BLOCKS: u32 = 1024;

/// The targets of the rows: each vertex's index among them (`u32::MAX` for a vertex that
/// is not one), and their number (a row's length).
pub(crate) type Targets<'a> = (&'a [u32], u32);

/// The hop distances on `gpu` over `csr`'s arcs from each of `sources` to the targets
/// `(index, want)`, handed to `each(first, rows)` a pass at a time: `rows` holds a row of
/// `want` levels for each source from `sources[first]` on; passes as wide as the device
/// memory and `host_bytes` of rows allow. Returns the seconds the kernels took.
///
/// # Errors
/// [`crate::Error::OutOfMemory`] when the graph and a pass of 64 sources do not fit on
/// the GPU; [`crate::Error::Gpu`] for a driver error; what `each` returns.
pub(crate) fn hops(
    gpu: &Arc<Gpu>,
    csr: &Csr,
    sources: &[VertexId],
    (index, want): Targets<'_>,
    host_bytes: u64,
    progress: &dyn Progress,
    mut each: impl FnMut(usize, &[u32]) -> Result<()>,
) -> Result<f64> {
    let n = csr.num_vertices();
    let k = sources.len();
    let plan = Plan::new(
        (n, csr.num_arcs()),
        (k, want as usize),
        host_bytes,
        gpu.free_bytes()?,
    );
    gpu.check_memory(
        || format!("multi-source BFS on {n} vertices (the graph and a pass of 64 sources)"),
        plan.least(),
    )?;
    if n == 0 || k == 0 || want == 0 {
        return Ok(0.0);
    }
    let mut pass = Pass::new(gpu, csr, sources, index, plan.words, want)?;
    let width = 64 * plan.words;
    let mut rows = vec![0u32; width * want as usize];
    let mut seconds = 0.0;
    progress.begin("multi-source BFS (GPU)", k as u64);
    for first in (0..k).step_by(width) {
        let now = width.min(k - first);
        let timer = gpu.timer()?;
        pass.run(gpu, first, now)?;
        let out = &mut rows[..now * want as usize];
        gpu.download_into(&pass.out, out)?;
        seconds += timer.finish(&gpu.mark()?)?.kernel_seconds;
        each(first, out)?;
        progress.advance(now as u64);
    }
    progress.finish();
    Ok(seconds)
}

/// Device bytes [`hops`] allocates for `n` vertices, `m` arcs, `k` sources, `want`
/// targets and `host` bytes of rows with `free` device bytes, by the plan it follows.
pub(crate) fn hops_bytes(
    (n, m): (usize, u64),
    (k, want): (usize, usize),
    host: u64,
    free: u64,
) -> u64 {
    let p = Plan::new((n, m), (k, want), host, free);
    p.fixed + p.words as u64 * p.per_word
}

/// How a run uses the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// Bytes every pass shares: the graph (offsets, targets), the sources, the targets'
    /// index, the stamps and four lists (4 a vertex each).
    fixed: u64,
    /// Bytes a word of sources takes: three words a vertex (24n) and the rows of its 64
    /// sources (4 a target each).
    per_word: u64,
    /// Words of sources a vertex in a pass.
    words: usize,
}

impl Plan {
    /// The plan for `n` vertices and `m` arcs, `k` sources and `want` targets, `host` bytes
    /// of rows, `free` device bytes.
    fn new((n, m): (usize, u64), (k, want): (usize, usize), host: u64, free: u64) -> Plan {
        let n64 = n as u64;
        let fixed = 8 * (n64 + 1) + 4 * m + 4 * k as u64 + 24 * n64;
        let row_bytes = 64 * 4 * want as u64;
        let per_word = 24 * n64 + row_bytes;
        let most = MAX_WORDS.min(k.div_ceil(64).max(1));
        let fit = sources_at_once(free.saturating_sub(fixed), per_word, most)
            .min((host / row_bytes.max(1)).max(1) as usize);
        // A power of two at most `fit` (the lanes of a warp split evenly over words).
        let words = 1 << fit.ilog2();
        Plan {
            fixed,
            per_word,
            words,
        }
    }

    /// The least that must fit: the graph and a pass of one word.
    fn least(&self) -> u64 {
        self.fixed + self.per_word
    }
}

/// The device state of the passes.
struct Pass {
    f: [CudaFunction; 6],
    off: CudaSlice<u64>,
    tgt: CudaSlice<u32>,
    sources: CudaSlice<u32>,
    index: CudaSlice<u32>,
    seen: CudaSlice<u64>,
    front: CudaSlice<u64>,
    next: CudaSlice<u64>,
    stamp: CudaSlice<u32>,
    /// The frontier's lists and the next level's (light, then heavy: n entries each).
    lists: [CudaSlice<u32>; 2],
    lens: CudaSlice<u32>,
    out: CudaSlice<u32>,
    /// The levels written into `out` in this pass.
    reached: CudaSlice<u64>,
    /// (vertices, words a vertex, targets)
    shape: (u32, u32, u32),
}

/// The kernels of `multi_source.cu`, in the order of [`Pass::f`].
pub(super) const NAMES: [&str; 6] = [
    "msbfs_init",
    "msbfs_sources",
    "msbfs_expand",
    "msbfs_expand_heavy",
    "msbfs_clear",
    "msbfs_settle",
];

impl Pass {
    fn new(
        gpu: &Gpu,
        csr: &Csr,
        sources: &[VertexId],
        index: &[u32],
        words: usize,
        want: u32,
    ) -> Result<Pass> {
        let n = csr.num_vertices();
        let f = NAMES.map(|name| gpu.function(&KERNELS, name));
        let [a, b, c, d, e, g] = f;
        Ok(Pass {
            f: [a?, b?, c?, d?, e?, g?],
            off: gpu.upload(csr.offsets())?,
            tgt: gpu.upload(csr.targets())?,
            sources: gpu.upload(sources)?,
            index: gpu.upload(index)?,
            seen: gpu.zeros(n * words)?,
            front: gpu.zeros(n * words)?,
            next: gpu.zeros(n * words)?,
            stamp: gpu.zeros(n)?,
            lists: [gpu.zeros(2 * n)?, gpu.zeros(2 * n)?],
            lens: gpu.zeros(2)?,
            out: gpu.zeros(64 * words * want as usize)?,
            reached: gpu.zeros(1)?,
            shape: (n as u32, words as u32, want),
        })
    }

    /// The pass of the `now` sources from `sources[first]` on, its rows left in `out`.
    fn run(&mut self, gpu: &Gpu, first: usize, now: usize) -> Result<()> {
        let (n, words, want) = self.shape;
        let (first, k) = (first as u32, now as u32);
        let out_len = u64::from(k) * u64::from(want);
        let (blocks, _) = grid_for((u64::from(n) * u64::from(words)).max(out_len), THREADS);
        let mut b = gpu.stream().launch_builder(&self.f[0]);
        b.arg(&n)
            .arg(&words)
            .arg(&mut self.seen)
            .arg(&mut self.front)
            .arg(&mut self.next)
            .arg(&mut self.stamp)
            .arg(&mut self.out)
            .arg(&out_len);
        // SAFETY: matches msbfs_init(n, words, seen, front, next, stamp, out, out_len):
        // n * words words each, n stamps, out_len <= 64 * words * want levels.
        unsafe { b.launch(launch_config(blocks.min(1 << 16), THREADS)) }.map_err(gpu_err)?;
        gpu.stream().memset_zeros(&mut self.lens).map_err(gpu_err)?;
        gpu.stream()
            .memset_zeros(&mut self.reached)
            .map_err(gpu_err)?;
        let mut b = gpu.stream().launch_builder(&self.f[1]);
        b.arg(&self.off)
            .arg(&n)
            .arg(&self.sources)
            .arg(&first)
            .arg(&k)
            .arg(&words)
            .arg(&mut self.seen)
            .arg(&mut self.front)
            .arg(&mut self.stamp)
            .arg(&mut self.lists[1])
            .arg(&mut self.lens)
            .arg(&self.index)
            .arg(&want)
            .arg(&mut self.out)
            .arg(&mut self.reached);
        // SAFETY: matches msbfs_sources(off, n, sources, first, k, words, seen, front,
        // stamp, lists, lens, tindex, want, out, reached): a thread per source i < k of
        // sources[first..first + k] (uploaded, vertices), bit i of its vertex's words,
        // lists of 2n entries, out of k * want levels, one counter.
        unsafe { b.launch(launch_config(k.div_ceil(THREADS), THREADS)) }.map_err(gpu_err)?;
        let mut len = self.lengths(gpu)?;
        let mut level = 0u32;
        let every = u64::from(k) * u64::from(want);
        while len != [0, 0] && self.written(gpu)? < every {
            level += 1;
            self.lists.swap(0, 1);
            gpu.stream().memset_zeros(&mut self.lens).map_err(gpu_err)?;
            self.expand(gpu, len, level)?;
            for (part, &l) in len.iter().enumerate() {
                self.clear(gpu, part as u32, l)?;
            }
            len = self.lengths(gpu)?;
            for (part, &l) in len.iter().enumerate() {
                self.settle(gpu, (part as u32, l), level, k)?;
            }
        }
        Ok(())
    }

    /// The next lists' lengths (light, heavy), once the work queued has run.
    fn lengths(&self, gpu: &Gpu) -> Result<[u32; 2]> {
        let mut len = [0u32; 2];
        gpu.download_into(&self.lens, &mut len)?;
        Ok(len)
    }

    /// The levels written into `out` in this pass, once the work queued has run.
    fn written(&self, gpu: &Gpu) -> Result<u64> {
        let mut written = [0u64];
        gpu.download_into(&self.reached, &mut written)?;
        Ok(written[0])
    }

    /// Expands the frontier (`len` light and heavy vertices in `lists[0]`) on `level`
    /// into `lists[1]`.
    fn expand(&mut self, gpu: &Gpu, len: [u32; 2], level: u32) -> Result<()> {
        let (n, words, _) = self.shape;
        for (heavy, &l) in len.iter().enumerate() {
            if l == 0 {
                continue;
            }
            let blocks = match heavy {
                0 => (l.div_ceil(THREADS / 32)).min(1 << 16),
                _ => HEAVY_BLOCKS,
            };
            let [cur, next_lists] = &mut self.lists;
            let mut b = gpu.stream().launch_builder(&self.f[2 + heavy]);
            b.arg(&self.off)
                .arg(&self.tgt)
                .arg(&n)
                .arg(&words)
                .arg(&*cur)
                .arg(&l)
                .arg(&self.front)
                .arg(&self.seen)
                .arg(&mut self.next)
                .arg(&level)
                .arg(&mut self.stamp)
                .arg(next_lists)
                .arg(&mut self.lens);
            // SAFETY: matches msbfs_expand[_heavy](off, tgt, n, words, cur, len, front,
            // seen, next, level, stamp, lists, lens): cur holds l light (or heavy, in its
            // second half) frontier vertices; the next lists 2n entries, each vertex
            // joining once a level; words a power of two at most 16.
            unsafe { b.launch(launch_config(blocks, THREADS)) }.map_err(gpu_err)?;
        }
        Ok(())
    }

    /// Clears the front words of the frontier's `len` vertices of half `part`.
    fn clear(&mut self, gpu: &Gpu, part: u32, len: u32) -> Result<()> {
        let (n, words, _) = self.shape;
        if len == 0 {
            return Ok(());
        }
        let (blocks, _) = grid_for(u64::from(len) * u64::from(words), THREADS);
        let mut b = gpu.stream().launch_builder(&self.f[4]);
        b.arg(&self.lists[0])
            .arg(&n)
            .arg(&part)
            .arg(&len)
            .arg(&words)
            .arg(&mut self.front);
        // SAFETY: matches msbfs_clear(cur, n, part, len, words, front): len vertices of
        // half `part` of the frontier's lists, n * words front words.
        unsafe { b.launch(launch_config(blocks.min(1 << 16), THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// Settles the next level's `len` vertices of half `part` on `level`, the rows of
    /// the pass's `k` sources.
    fn settle(&mut self, gpu: &Gpu, (part, len): (u32, u32), level: u32, k: u32) -> Result<()> {
        let (n, words, want) = self.shape;
        if len == 0 {
            return Ok(());
        }
        let (blocks, _) = grid_for(u64::from(len) * u64::from(words), THREADS);
        let mut b = gpu.stream().launch_builder(&self.f[5]);
        b.arg(&self.lists[1])
            .arg(&n)
            .arg(&part)
            .arg(&len)
            .arg(&words)
            .arg(&mut self.seen)
            .arg(&mut self.front)
            .arg(&mut self.next)
            .arg(&level)
            .arg(&self.index)
            .arg(&want)
            .arg(&k)
            .arg(&mut self.out)
            .arg(&mut self.reached);
        // SAFETY: matches msbfs_settle(cur, n, part, len, words, seen, front, next, level,
        // tindex, want, k, out, reached): len vertices of half `part` of the next lists,
        // n * words words, n target indices below want, k * want levels of out, one
        // counter.
        unsafe { b.launch(launch_config(blocks.min(1 << 16), THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_by_hand() {
        // A million vertices, 32 million arcs, 1,000 sources, 1,000 targets, 100 GB free:
        // 16 words (1,024 sources) a pass.
        let p = Plan::new((1 << 20, 32 << 20), (1000, 1000), 512 << 20, 100 << 30);
        assert_eq!(p.words, 16);
        assert_eq!(p.per_word, (24 << 20) + 256_000);
        // 100 sources: 2 words; 1 source: 1.
        assert_eq!(Plan::new((100, 400), (100, 10), 1 << 20, 1 << 30).words, 2);
        assert_eq!(Plan::new((100, 400), (1, 10), 1 << 20, 1 << 30).words, 1);
        // Rows of every one of a million vertices: 512 MiB hold 2 words' rows (128
        // sources of 4 MB each); a third word would not fit.
        let p = Plan::new((1 << 20, 32 << 20), (1000, 1 << 20), 512 << 20, 100 << 30);
        assert_eq!(p.words, 2);
        // Nothing free: one word.
        let p = Plan::new((1 << 20, 0), (1000, 1), 512 << 20, 0);
        assert_eq!(p.words, 1);
        assert_eq!(p.least(), p.fixed + p.per_word);
    }
}
