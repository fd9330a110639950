//! The spanning forest's last steps on the GPU, after Borůvka's rounds: from its edges'
//! keys to the [`SpanningForest`] the caller gets.
//!
//! **How** (kernels in `forest.cu`): a least-significant-digit radix sort of the keys, 8
//! bits a pass over the bits they use (the keys are unique and `weight key << shift | arc`,
//! so sorted they are the family's order); then a thread per edge names it: its canonical
//! arc `u -> v` (`u < v`) gives `v` and its weight (the graph's own, uploaded beside the
//! keys), a binary search over the row offsets gives `u`, and integer weights are summed
//! exactly (two 64-bit sums of the weights' halves). One copy brings the ends and the
//! weights into a page-locked buffer kept for the runs (a copy into pageable memory goes
//! at a tenth of the speed); the host's threads move them into the result's vectors, and
//! for float weights sum the total (in the forest's order, as the CPU does) meanwhile.

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;

use super::super::order::{int_total, EdgeWeight};
use super::super::{forest_of, SpanningForest};
use super::DeviceRows;
use crate::cuda::{gpu_err, grid_for, launch_config, Gpu, KernelSource};
use crate::error::Result;
use crate::graph::Weights;

/// The kernels of this module.
pub const KERNELS: KernelSource = KernelSource {
    name: "mst_forest",
    source: include_str!("forest.cu"),
};

/// Bits of a radix pass (`SORT_BITS` of the kernels).
const SORT_BITS: u32 = 8;
/// Buckets of a pass (`SORT_BUCKETS`), and the sort's threads per block (`SORT_THREADS`).
const SORT_BUCKETS: u64 = 256;
/// Keys per tile, a block's share of a pass (`SORT_TILE`).
const SORT_TILE: u64 = 256 * 16;
/// Threads of the one block that scans the counts.
const SCAN_THREADS: u32 = 1024;
/// Threads per block of the naming kernel.
const NAME_THREADS: u32 = 256;

/// The weight types as the kernels name them (`WEIGHT_*`).
const WEIGHT_NONE: u32 = 0;
const WEIGHT_I32: u32 = 1;
const WEIGHT_I64: u32 = 2;
const WEIGHT_F32: u32 = 3;
const WEIGHT_F64: u32 = 4;

// The ends are downloaded into the result's `Vec<(u32, u32)>` as pairs of words.
const _: () = assert!(
    std::mem::size_of::<(u32, u32)>() == 8
        && std::mem::align_of::<(u32, u32)>() == 4
        && std::mem::offset_of!((u32, u32), 0) == 0
        && std::mem::offset_of!((u32, u32), 1) == 4
);

/// The graph's arc weights on the GPU, in their own type (the forest reports them).
enum DeviceWeights {
    None,
    I32(CudaSlice<i32>),
    I64(CudaSlice<i64>),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
}

/// Device memory the forest's steps need beyond Borůvka's for a graph of `n` vertices and
/// `arcs` arcs of `weight_bytes` bytes each (0 unweighted), in bytes: the weights and the
/// sort's counts. (The sort's second key array and the output reuse Borůvka's edge lists.)
pub(super) fn bytes_needed(n: u64, arcs: u64, weight_bytes: u64) -> u64 {
    arcs * weight_bytes + 4 * SORT_BUCKETS * (n.div_ceil(SORT_TILE) + 1) + 16
}

/// The forest's steps for one uploaded graph: kernels, weights and working memory.
pub(super) struct ForestStage {
    count: CudaFunction,
    scan: CudaFunction,
    scatter: CudaFunction,
    name: CudaFunction,
    weights: DeviceWeights,
    /// Bits of the largest key (the radix passes cover them).
    key_bits: u32,
    counts: CudaSlice<u32>,
    sums: CudaSlice<u64>,
    sums_host: PinnedHostSlice<u64>,
    /// The copy of the output (ends, then weights), page-locked: 2 n words.
    staging: PinnedHostSlice<u64>,
}

impl ForestStage {
    /// Compiles the kernels and uploads `weights` for a graph of `n` vertices whose keys
    /// use `key_bits` bits.
    pub(super) fn new(gpu: &Gpu, weights: &Weights, n: usize, key_bits: u32) -> Result<Self> {
        let f = |name| gpu.function(&KERNELS, name);
        let weights = match weights {
            Weights::None => DeviceWeights::None,
            Weights::I32(w) => DeviceWeights::I32(gpu.upload(w)?),
            Weights::I64(w) => DeviceWeights::I64(gpu.upload(w)?),
            Weights::F32(w) => DeviceWeights::F32(gpu.upload(w)?),
            Weights::F64(w) => DeviceWeights::F64(gpu.upload(w)?),
        };
        let tiles = (n as u64).div_ceil(SORT_TILE) + 1;
        Ok(ForestStage {
            count: f("mst_sort_count")?,
            scan: f("mst_sort_scan")?,
            scatter: f("mst_sort_scatter")?,
            name: f("mst_name")?,
            weights,
            key_bits,
            counts: gpu.zeros((SORT_BUCKETS * tiles) as usize)?,
            sums: gpu.zeros(2)?,
            sums_host: gpu.pinned(2)?,
            staging: gpu.pinned(2 * n)?,
        })
    }

    /// Queues the sort of the `count` keys in `keys` (`spare` holds as many) and their
    /// naming into `out` (2 `count` words: the ends, then the weights).
    pub(super) fn queue(
        &mut self,
        gpu: &Gpu,
        rows: &DeviceRows,
        keys: &mut CudaSlice<u64>,
        spare: &mut CudaSlice<u64>,
        out: &mut CudaSlice<u64>,
        count: u32,
    ) -> Result<()> {
        let stream = gpu.stream();
        stream.memset_zeros(&mut self.sums).map_err(gpu_err)?;
        if count == 0 {
            return Ok(());
        }
        assert!(keys.len() >= count as usize && spare.len() >= count as usize);
        assert!(out.len() >= 2 * count as usize);
        let sorted_in_spare = if count > 1 {
            self.sort(gpu, keys, spare, count)?
        } else {
            false
        };
        let sorted: &CudaSlice<u64> = if sorted_in_spare { spare } else { keys };
        let kind = match self.weights {
            DeviceWeights::None => WEIGHT_NONE,
            DeviceWeights::I32(_) => WEIGHT_I32,
            DeviceWeights::I64(_) => WEIGHT_I64,
            DeviceWeights::F32(_) => WEIGHT_F32,
            DeviceWeights::F64(_) => WEIGHT_F64,
        };
        let mut b = stream.launch_builder(&self.name);
        b.arg(sorted)
            .arg(&count)
            .arg(&rows.shift)
            .arg(&rows.off)
            .arg(&rows.n)
            .arg(&rows.tgt);
        match &self.weights {
            // Any pointer: never read.
            DeviceWeights::None => b.arg(&rows.tgt),
            DeviceWeights::I32(w) => b.arg(w),
            DeviceWeights::I64(w) => b.arg(w),
            DeviceWeights::F32(w) => b.arg(w),
            DeviceWeights::F64(w) => b.arg(w),
        };
        b.arg(&kind).arg(out).arg(&mut self.sums);
        let (blocks, threads) = grid_for(u64::from(count), NAME_THREADS);
        // SAFETY: the arguments match mst_name's parameters; `sorted` holds `count` keys of
        // canonical arcs of the graph in `rows` (so below its arc count, whose weights are
        // `w`), and `out` holds 2 `count` words.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// Queues the radix sort of `keys[..count]`, `spare` the other buffer of each pass;
    /// returns whether the sorted keys end in `spare` (an odd number of passes).
    fn sort(
        &mut self,
        gpu: &Gpu,
        keys: &mut CudaSlice<u64>,
        spare: &mut CudaSlice<u64>,
        count: u32,
    ) -> Result<bool> {
        let stream = gpu.stream();
        let tiles = u64::from(count).div_ceil(SORT_TILE);
        let len = (SORT_BUCKETS * tiles) as u32;
        assert!(self.counts.len() >= len as usize);
        let passes = self.key_bits.div_ceil(SORT_BITS);
        for pass in 0..passes {
            let shift = pass * SORT_BITS;
            let (from, to): (&CudaSlice<u64>, &mut CudaSlice<u64>) = if pass % 2 == 0 {
                (keys, spare)
            } else {
                (spare, keys)
            };
            let cfg = launch_config(tiles as u32, SORT_BUCKETS as u32);
            let mut b = stream.launch_builder(&self.count);
            b.arg(from).arg(&count).arg(&shift).arg(&mut self.counts);
            // SAFETY: mst_sort_count's parameters; a block per tile of `from`'s `count`
            // keys, its counts below `len`.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
            let mut b = stream.launch_builder(&self.scan);
            b.arg(&mut self.counts).arg(&len);
            // SAFETY: mst_sort_scan's parameters; `counts` holds `len` words.
            unsafe { b.launch(launch_config(1, SCAN_THREADS)) }.map_err(gpu_err)?;
            let mut b = stream.launch_builder(&self.scatter);
            b.arg(from)
                .arg(&count)
                .arg(&shift)
                .arg(&self.counts)
                .arg(to);
            // SAFETY: mst_sort_scatter's parameters, the grid of the count; every key goes
            // to a distinct place below `count`, which `to` holds.
            unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        }
        Ok(passes % 2 == 1)
    }

    /// Downloads the forest of `count` edges on `n` vertices that [`ForestStage::queue`]
    /// wrote into `out`, once the kernels are done. Returns it with the seconds the copies
    /// took (the rest of the call is the host's share).
    pub(super) fn fetch(
        &mut self,
        gpu: &Gpu,
        out: &CudaSlice<u64>,
        count: usize,
        n: usize,
    ) -> Result<(SpanningForest, f64)> {
        let start = Instant::now();
        let weighted = !matches!(self.weights, DeviceWeights::None);
        let words = count * if weighted { 2 } else { 1 };
        assert!(words <= self.staging.len() && words <= out.len());
        if words > 0 {
            let stream = gpu.stream();
            // Into the staging's first `words` words: a copy takes its length from its
            // destination.
            let dst = &mut self.staging.as_mut_slice().map_err(gpu_err)?[..words];
            stream
                .memcpy_dtoh(&out.slice(..words), dst)
                .map_err(gpu_err)?;
            stream.synchronize().map_err(gpu_err)?;
        }
        let copy = start.elapsed().as_secs_f64();
        let staged = &self.staging.as_slice().map_err(gpu_err)?[..words];
        let int_sum = match self.weights {
            DeviceWeights::I32(_) | DeviceWeights::I64(_) => {
                let s = gpu.read_pinned(&self.sums, 2, &mut self.sums_host)?;
                Some((i128::from(s[0] as i64) << 32) + i128::from(s[1]))
            }
            _ => None,
        };
        let forest = match self.weights {
            DeviceWeights::None => {
                let total = int_total(count as i128)?;
                forest_of(n, ends(staged, count), Weights::None, total)
            }
            DeviceWeights::I32(_) => typed::<i32>(staged, count, n, int_sum),
            DeviceWeights::I64(_) => typed::<i64>(staged, count, n, int_sum),
            DeviceWeights::F32(_) => typed::<f32>(staged, count, n, None),
            DeviceWeights::F64(_) => typed::<f64>(staged, count, n, None),
        }?;
        Ok((forest, copy))
    }
}

/// Pieces of the copies between page-locked and pageable memory, one a thread.
const PIECE: usize = 1 << 16;

/// The forest of `count` edges with weights of type `W` from its staged copy: the total
/// from the GPU's sum of integer weights (`int_sum`), else summed here while the ends
/// are moved.
fn typed<W: EdgeWeight + DeviceRepr + Default>(
    staged: &[u64],
    count: usize,
    n: usize,
    int_sum: Option<i128>,
) -> Result<SpanningForest> {
    // SAFETY: mst_name wrote `count` weights of W (4 or 8 bytes, at most a word each, the
    // graph's own) from word `count`, and the staged copy holds 2 `count` words.
    let src = unsafe { std::slice::from_raw_parts(staged.as_ptr().add(count).cast::<W>(), count) };
    let mut weights = vec![W::default(); count];
    weights
        .par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(to, from)| to.copy_from_slice(from));
    let (edges, total) = match int_sum {
        Some(sum) => (ends(staged, count), int_total(sum)),
        // The float total in order on another thread, while the ends are moved.
        None => std::thread::scope(|s| {
            let total = s.spawn(|| W::total(&weights));
            let edges = ends(staged, count);
            let total = total
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (edges, total)
        }),
    };
    forest_of(n, edges, W::into_weights(weights), total?)
}

/// The `count` ends that mst_name wrote at the start of the output, from its staged copy,
/// in the result's vector.
fn ends(staged: &[u64], count: usize) -> Vec<(u32, u32)> {
    let mut edges = vec![(0u32, 0u32); count];
    // SAFETY: the vector's `count` pairs are 2 `count` words, in order (the assertion at
    // the top of the module), initialised, and borrowed only here.
    let to = unsafe { std::slice::from_raw_parts_mut(edges.as_mut_ptr().cast::<u32>(), 2 * count) };
    // SAFETY: the first `count` staged words are 2 `count` words of ends.
    let from = unsafe { std::slice::from_raw_parts(staged.as_ptr().cast::<u32>(), 2 * count) };
    to.par_chunks_mut(2 * PIECE)
        .zip(from.par_chunks(2 * PIECE))
        .for_each(|(to, from)| to.copy_from_slice(from));
    edges
}
