//! Near-far buckets on the GPU: the kernel of `auto` (non-negative weights, most graphs),
//! `dijkstra-parallel`, `bellman-ford-queue` (and `auto` with negative weights) and
//! Johnson's potentials, one cooperative launch of `near_far.cu`'s kernel.
//!
//! Vertices are settled bucket by bucket, in Meyer and Sanders' delta-stepping order with
//! the near/far split of Davidson, Baxter, Garland and Owens ("Work-efficient parallel GPU
//! methods for single-source shortest paths", IPDPS 2014): the bucket's list is expanded,
//! the vertices it lowers below the bucket's end forming the next list (each once, by a
//! per-vertex stamp), until the list is empty; a scan of all distances then collects the
//! next non-empty bucket. A thread relaxes four arcs at once, their atomic operations sent
//! together step by step (the four minima, then the stamps of those lowered, then one
//! atomic add per warp for all their list slots) rather than arc after arc. Lists are
//! built by warp-aggregated appends; a vertex of fewer than 32 arcs is expanded by a
//! thread, up to 1,023 by a warp, and bigger ones as one flat range of arcs shared by the
//! whole grid.
//!
//! `dijkstra-parallel` is the GPU Johnson article's rule, Crauser et al.'s parallel
//! Dijkstra: a bucket as wide as the smallest arc weight settles every vertex within that
//! width of the minimum at once.
//!
//! With one bucket of infinite width (width 0 here) it is a Bellman-Ford work-list of the
//! vertices changed by the last pass, without duplicates, ordered in the spirit of the
//! SLF and LLL heuristics: for its first min(n, 2^16) passes each pass first finds the
//! list's mean and least distance, expands only the vertices at most max(mean, least) and
//! carries the others to the next list unexpanded (small labels first, large ones last).
//! A list always holds every vertex lowered and not expanded since, so a list still
//! non-empty n passes after the last ordered one proves a negative cycle.

use cudarc::driver::{CudaSlice, PushKernelArg};

use super::device::DeviceDelta;
use super::{GpuSssp, THREADS};
use crate::cuda::{gpu_err, launch_config};
use crate::error::Result;

/// Passes a near-far timeline records (`WARPGRAPH_TRACE=2`).
const TIMELINE_CAP: u32 = 1 << 17;

impl GpuSssp {
    /// The near-far kernel from the first `first` vertices of `qa` (as reset left them).
    pub(super) fn launch_near_far(
        &mut self,
        delta: DeviceDelta,
        packed: bool,
        first: u32,
    ) -> Result<()> {
        let packed = u32::from(packed);
        let trace = crate::settings::get().trace;
        let stream = self.gpu.stream().clone();
        if trace > 0 {
            stream.memset_zeros(&mut self.passes).map_err(gpu_err)?;
        }
        // Trace level 2: each pass's clock and list length (see near_far.cu's near_far).
        let timeline: Option<CudaSlice<u64>> = match trace >= 2 {
            true => Some(self.gpu.zeros(2 + 2 * TIMELINE_CAP as usize)?),
            false => None,
        };
        let (null, cap) = (0u64, if timeline.is_some() { TIMELINE_CAP } else { 0 });
        let mut b = stream.launch_builder(&self.k.near_far);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist).arg(&mut self.stamp).arg(&self.n);
        match &delta {
            DeviceDelta::Int(x) => b.arg(x),
            DeviceDelta::Float(x) => b.arg(x),
        };
        b.arg(&packed)
            .arg(&first)
            .arg(&mut self.qa)
            .arg(&mut self.qb)
            .arg(&mut self.big)
            .arg(&mut self.barrier)
            .arg(&mut self.gmin)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        match &timeline {
            Some(t) => b.arg(t),
            None => b.arg(&null),
        };
        b.arg(&cap);
        // SAFETY: the arguments match sssp_near_far_*'s parameters (the weight and delta
        // types are the kernel's suffix); the lists hold n entries, the barrier
        // BARRIER_WORDS zeroed counters (reset zeroes the list counters). The cooperative
        // launch keeps every block resident for the grid barrier, within the occupancy
        // the driver reported.
        unsafe { b.launch_cooperative(launch_config(self.blocks, THREADS)) }.map_err(gpu_err)?;
        if let Some(t) = &timeline {
            print_timeline(&stream.clone_dtoh(t).map_err(gpu_err)?);
        }
        if trace > 0 {
            let s = stream.clone_dtoh(&self.passes).map_err(gpu_err)?;
            eprintln!(
                "near-far: {} passes, {} buckets, {} expansions ({:.2} per vertex)",
                s[0],
                s[1],
                s[2],
                f64::from(s[2]) / f64::from(self.n.max(1)),
            );
        }
        Ok(())
    }
}

/// Prints a near-far timeline (near_far.cu's near_far): the passes by list length, with their
/// count, total and mean time, and the scans.
fn print_timeline(t: &[u64]) {
    let clocks: Vec<(u64, u64)> = t[2..].chunks(2).map(|c| (c[0], c[1])).collect();
    let used = clocks
        .iter()
        .position(|&(c, _)| c == 0)
        .unwrap_or(clocks.len());
    if used < 2 {
        return;
    }
    let span = clocks[used - 1].0.saturating_sub(clocks[0].0).max(1) as f64;
    let ns_per_clock = t[1].saturating_sub(t[0]) as f64 / span;
    let classes = ["scan", "1-15", "16-255", "256-4095", "4096-65535", "65536+"];
    let mut sum = [(0u64, 0f64); 6];
    for w in clocks[..used].windows(2) {
        let (c, what) = w[0];
        let ns = w[1].0.saturating_sub(c) as f64 * ns_per_clock;
        let k = match what {
            x if x >> 63 == 1 => 0,
            0..=15 => 1,
            16..=255 => 2,
            256..=4095 => 3,
            4096..=65535 => 4,
            _ => 5,
        };
        sum[k].0 += 1;
        sum[k].1 += ns;
    }
    eprintln!(
        "near-far timeline: {:.3} ms in all ({} passes recorded)",
        t[1].saturating_sub(t[0]) as f64 * 1e-6,
        used - 1
    );
    for (name, (count, ns)) in classes.iter().zip(sum) {
        if count > 0 {
            eprintln!(
                "  list {name:>10}: {count:>6} passes, {:>8.3} ms, {:>7.2} us each",
                ns * 1e-6,
                ns * 1e-3 / count as f64
            );
        }
    }
}
