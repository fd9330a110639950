//! Owner-local near-far on the GPU: `auto`'s design for non-negative weights on road-like
//! graphs ([`road_like`]: small degrees, arcs mostly between vertices of close numbers,
//! as on a grid numbered row by row), one cooperative launch of a kernel of `owned.cu`.
//!
//! The buckets of near-far (`near_far`), but each block (one per multiprocessor) owns a
//! range of vertices and alone expands them, asynchronously within a bucket: local passes
//! over its own list with block barriers only, a lowered vertex of another block sent to
//! that block's inbox (a ring it takes in at its next local pass), a global count of
//! listed and sent vertices telling every block when the bucket is done. Where the
//! strips' distances fit in shared memory (`owned_shared`), a send is only an atomic
//! minimum on the global copy of the distances, and each block polls its exposed vertices
//! (those with an arc from another strip) in every pass; the bucket's closing scan catches
//! what no poll saw. On a grid a wave crosses into another block's strip without waiting
//! for a grid barrier.

use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{sys, CudaSlice, LaunchConfig, PushKernelArg};
use rayon::prelude::*;

use super::device::DeviceDelta;
use super::GpuSssp;
use crate::cuda::{gpu_err, launch_config};
use crate::error::{Error, Result};
use crate::graph::Csr;

/// Owner-local near-far's state (owned.cu's `owned`), allocated when first needed.
pub(super) struct OwnedState {
    /// Its blocks: one per multiprocessor, OWNED_THREADS threads each.
    blocks: u32,
    istamp: CudaSlice<u32>,
    la: CudaSlice<u32>,
    lb: CudaSlice<u32>,
    inbox: CudaSlice<u32>,
    ictr: CudaSlice<u32>,
    /// The variant with each block's distances in shared memory (owned.cu's
    /// `owned_shared`), where they fit with SHARED_HEAD list entries and the distances
    /// allow it.
    shared: Option<SharedStrips>,
}

/// Owner-local near-far's shared variant's own state.
struct SharedStrips {
    /// Bytes of dynamic shared memory before its lists' first entries.
    bytes: u32,
    /// Its exposed vertices and each block's offset into them (see [`exposed_vertices`]).
    exposed: CudaSlice<u32>,
    exposed_off: CudaSlice<u32>,
}

/// Threads per block of owner-local near-far.
const OWNED_THREADS: u32 = 1024;

/// The most blocks owner-local near-far runs (its lists are sized for them).
const OWNED_BLOCKS_MAX: u32 = 1024;

/// The list entries each block of owner-local near-far's shared variant keeps in shared
/// memory (the kernel takes the number from its shared memory's size).
pub(super) const SHARED_HEAD: u32 = 1024;

/// Shared memory per such entry: a vertex in each of the two lists.
const HEAD_ENTRY_BYTES: u64 = 8;

/// Parts of the locality test of [`road_like`].
const ROAD_PARTS: usize = 128;

/// The same factor for `auto`'s owner-local near-far with its distances in shared memory
/// (road-like graphs), measured on grids: the best of the factors around it there.
pub(super) const OWNED_WIDTH: f64 = 192.0;

/// Profile slots a block of the owner-local kernels (owned.cu's PROF_SLOTS).
const PROF_SLOTS: usize = 12;

/// Device bytes of owner-local near-far's state for `n` vertices: a second stamp per
/// vertex, two local lists (n plus a block's worth each), the inbox rings (twice that)
/// and their tails; and the shared variant's exposed vertices (at most n) and their
/// offsets.
pub(super) fn owned_bytes(n: u64) -> u64 {
    8 * n + 16 * (n + u64::from(OWNED_BLOCKS_MAX)) + 8 * (u64::from(OWNED_BLOCKS_MAX) + 1)
}

/// Each strip's exposed vertices for owner-local near-far's shared variant (owned.cu's
/// `owned_shared`): those with an arc from another strip (strips of `chunk` vertices), strip
/// by strip in order, with the offsets where each strip's start (`strips + 1`).
fn exposed_vertices(csr: &Csr, chunk: usize, strips: usize) -> (Vec<u32>, Vec<u32>) {
    let n = csr.num_vertices();
    let off = csr.offsets();
    let tgt = csr.targets();
    let exposed: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    (0..n).into_par_iter().for_each(|u| {
        for &v in &tgt[off[u] as usize..off[u + 1] as usize] {
            if v as usize / chunk != u / chunk {
                exposed[v as usize].store(true, Ordering::Relaxed);
            }
        }
    });
    let list: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .filter(|&v| exposed[v as usize].load(Ordering::Relaxed))
        .collect();
    // list is sorted: strip s's entries start at the first vertex of s or beyond.
    let offsets = (0..=strips)
        .map(|s| list.partition_point(|&v| (v as usize) < (s * chunk).min(n)) as u32)
        .collect();
    (list, offsets)
}

/// Whether `csr` is road-like, where `auto` runs owner-local near-far: non-negative
/// weights (the caller checks), at most 8 arcs per vertex on average and 64 at most, and
/// at least 3 in 4 arcs inside one of ROAD_PARTS equal ranges of vertex numbers (a grid
/// numbered row by row: 97% in 128 strips; Kronecker and uniform graphs: about 1%).
pub fn road_like(csr: &Csr) -> bool {
    let n = csr.num_vertices();
    let m = csr.num_arcs();
    if n == 0 || m > 8 * n as u64 {
        return false;
    }
    let off = csr.offsets();
    let tgt = csr.targets();
    let chunk = n.div_ceil(ROAD_PARTS);
    let (inside, widest) = (0..n)
        .into_par_iter()
        .map(|u| {
            let arcs = &tgt[off[u] as usize..off[u + 1] as usize];
            let inside = arcs
                .iter()
                .filter(|&&v| v as usize / chunk == u / chunk)
                .count();
            (inside as u64, arcs.len())
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    widest <= 64 && 4 * inside >= 3 * m
}

impl GpuSssp {
    /// The dynamic shared memory of owner-local near-far's shared variant, where it runs
    /// (after prepare_owned: where the strips fit and the words are packed, unless turned
    /// off).
    pub(super) fn shared_strip_bytes(&self) -> Option<u32> {
        let strips = self.owned.as_ref()?.shared.as_ref()?.bytes;
        self.shared_strips
            .then(|| strips + HEAD_ENTRY_BYTES as u32 * self.shared_head)
    }

    pub(super) fn prepare_owned(&mut self, csr: &Csr) -> Result<()> {
        if self.owned.is_some() {
            return Ok(());
        }
        let n = u64::from(self.n);
        self.gpu.check_memory(
            || format!("owner-local near-far's lists for {n} vertices"),
            owned_bytes(n),
        )?;
        let fits = self
            .k
            .owned
            .occupancy_max_active_blocks_per_multiprocessor(OWNED_THREADS, 0, None)
            .map_err(gpu_err)?;
        if fits == 0 {
            return Err(Error::Gpu(
                "owner-local near-far cannot run on this GPU: no block fits a multiprocessor"
                    .into(),
            ));
        }
        let blocks = self.gpu.info().multiprocessors.min(OWNED_BLOCKS_MAX);
        let list = self.n as usize + OWNED_BLOCKS_MAX as usize;
        self.owned = Some(OwnedState {
            blocks,
            istamp: self.gpu.zeros(self.n.max(1) as usize)?,
            la: self.gpu.zeros(list)?,
            lb: self.gpu.zeros(list)?,
            inbox: self.gpu.zeros(2 * list)?,
            ictr: self.gpu.zeros(OWNED_BLOCKS_MAX as usize)?,
            shared: None,
        });
        // The shared-memory variant: a block's distances (u32), two bitmaps of them and
        // its lists' first entries, below the block's limit less what the kernel declares
        // itself.
        let chunk = u64::from(self.n.div_ceil(blocks));
        let strips = 4 * (chunk + 2 * chunk.div_ceil(32));
        let bytes = strips + HEAD_ENTRY_BYTES * u64::from(SHARED_HEAD);
        let room = self.gpu.max_shared_per_block()?.saturating_sub(1024);
        if self.packable && bytes <= room {
            // The function is shared by every search of the process: always the same (most)
            // bytes allowed, so that no other graph's setting can undercut this one's.
            let f = &self.k.owned_shared;
            f.set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                room.min(i32::MAX as u64) as i32,
            )
            .map_err(gpu_err)?;
            let fits = f
                .occupancy_max_active_blocks_per_multiprocessor(OWNED_THREADS, bytes as usize, None)
                .map_err(gpu_err)?;
            if fits > 0 {
                let (list, offsets) = exposed_vertices(csr, chunk as usize, blocks as usize);
                let shared = SharedStrips {
                    bytes: strips as u32,
                    exposed: self.gpu.upload(&list)?,
                    exposed_off: self.gpu.upload(&offsets)?,
                };
                self.owned.as_mut().expect("made above").shared = Some(shared);
            }
        }
        Ok(())
    }

    pub(super) fn launch_owned(
        &mut self,
        delta: DeviceDelta,
        packed: bool,
        source: u32,
        shared: Option<u32>,
        symmetric: bool,
    ) -> Result<()> {
        // (The shared variant always packs; in that place it takes whether the graph is
        // symmetric, to pull the parents.)
        let packed = match shared {
            Some(_) => u32::from(symmetric),
            None => u32::from(packed),
        };
        let level = crate::settings::get().trace;
        let trace = level > 0;
        let stream = self.gpu.stream().clone();
        if trace {
            stream.memset_zeros(&mut self.passes).map_err(gpu_err)?;
        }
        let o = self.owned.as_mut().expect("prepare_owned ran");
        // Trace level 2: each block's profile (see owned.cu's owned).
        let prof: Option<CudaSlice<u64>> = match level >= 2 {
            true => Some(self.gpu.zeros(PROF_SLOTS * o.blocks as usize)?),
            false => None,
        };
        let null = 0u64;
        let mut b = stream.launch_builder(match shared {
            Some(_) => &self.k.owned_shared,
            None => &self.k.owned,
        });
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&mut o.istamp)
            .arg(&self.n);
        // The shared variant's distances are u32: a width beyond them is all one bucket.
        let delta = match (delta, shared) {
            (DeviceDelta::Int(x), Some(_)) => DeviceDelta::Int(x.clamp(1, i64::from(i32::MAX))),
            (d, _) => d,
        };
        match &delta {
            DeviceDelta::Int(x) => b.arg(x),
            DeviceDelta::Float(x) => b.arg(x),
        };
        b.arg(&packed).arg(&source).arg(&mut o.la).arg(&mut o.lb);
        match (&shared, &o.shared) {
            (Some(_), Some(s)) => b.arg(&s.exposed).arg(&s.exposed_off),
            _ => b.arg(&mut o.inbox).arg(&mut o.ictr),
        };
        b.arg(&mut self.barrier)
            .arg(&mut self.words)
            .arg(&mut self.gmin)
            .arg(&mut self.flags)
            .arg(&mut self.passes);
        match &prof {
            Some(p) => b.arg(p),
            None => b.arg(&null),
        };
        let cfg = LaunchConfig {
            shared_mem_bytes: shared.unwrap_or(0),
            ..launch_config(o.blocks, OWNED_THREADS)
        };
        // SAFETY: the arguments match sssp_owned_*'s and sssp_owned_shared_*'s parameters
        // (the weight and delta types are the kernel's suffix): stamps of n entries, lists
        // of n + OWNED_BLOCKS_MAX (at least blocks * ceil(n / blocks)), inbox rings twice
        // that, OWNED_BLOCKS_MAX tails, words 8, gmin 2 (reset made it infinite).
        // Cooperative: one block per multiprocessor, which the occupancy check in
        // prepare_owned allowed. owned_shared: `shared` bytes of dynamic shared memory,
        // which prepare_owned allowed (attribute) and checked (occupancy), its lists' first
        // entries (at least one: set_shared_head) past the strips, the kernel taking their
        // number from that size; its distances fit u32 (only where packable); in the
        // inbox's and tails' places its exposed vertices and blocks + 1 offsets into them
        // (prepare_owned made both for these blocks).
        unsafe { b.launch_cooperative(cfg) }.map_err(gpu_err)?;
        if trace {
            let s = stream.clone_dtoh(&self.passes).map_err(gpu_err)?;
            eprintln!(
                "owner-local near-far: {} local passes in block 0, {} buckets, {} expansions ({:.2} per vertex)",
                s[0],
                s[1],
                s[2],
                f64::from(s[2]) / f64::from(self.n.max(1)),
            );
        }
        if let Some(p) = &prof {
            let p = stream.clone_dtoh(p).map_err(gpu_err)?;
            let rows: Vec<&[u64]> = p.chunks(PROF_SLOTS).collect();
            let mean = |k: usize| rows.iter().map(|r| r[k] as f64).sum::<f64>() / rows.len() as f64;
            let max = |k: usize| rows.iter().map(|r| r[k]).max().unwrap_or(0);
            eprintln!(
                "owner-local profile (clocks, mean/max over blocks): local {:.0}/{} in {:.0}/{} local passes ({:.0} per pass), idle {:.0}/{}, scans {:.0}/{}",
                mean(0), max(0), mean(1), max(1), mean(0) / mean(1).max(1.0), mean(2), max(2), mean(3), max(3)
            );
            if shared.is_some() {
                eprintln!(
                    "owner-local (shared) pass: expansions done at {:.0}, polls at {:.0} clocks (mean of passes); {:.0} of {:.0} passes send ({:.0} clocks each, {:.0} without); idle laps {:.0}/{}, {:.0} of them polled work",
                    mean(4) / mean(1).max(1.0),
                    mean(5) / mean(1).max(1.0),
                    mean(6),
                    mean(1),
                    mean(7) / mean(6).max(1.0),
                    mean(10) / (mean(1) - mean(6)).max(1.0),
                    mean(8),
                    max(8),
                    mean(9)
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::exposed_vertices;
    use crate::graph::testing::graph;

    /// exposed_vertices against a serial scan, strip by strip, on a random directed graph
    /// (self loops and repeated arcs included), for every strip size and with more strips
    /// than vertices.
    #[test]
    fn exposed_vertices_match_a_serial_scan() {
        let n = 50u32;
        let mut x = 12345u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as u32 % n
        };
        let arcs: Vec<(u32, u32)> = (0..200).map(|_| (next(), next())).collect();
        let g = graph(u64::from(n), &arcs, true);
        let csr = g.out();
        let (off, tgt) = (csr.offsets(), csr.targets());
        for chunk in 1..=13usize {
            for strips in [
                (n as usize).div_ceil(chunk),
                (n as usize).div_ceil(chunk) + 2,
            ] {
                let (list, offsets) = exposed_vertices(csr, chunk, strips);
                assert_eq!(offsets.len(), strips + 1);
                for s in 0..strips {
                    let want: Vec<u32> = (0..n)
                        .filter(|&v| v as usize / chunk == s)
                        .filter(|&v| {
                            (0..n as usize).any(|u| {
                                u / chunk != s
                                    && tgt[off[u] as usize..off[u + 1] as usize].contains(&v)
                            })
                        })
                        .collect();
                    let got = &list[offsets[s] as usize..offsets[s + 1] as usize];
                    assert_eq!(got, &want[..], "chunk {chunk}, strip {s}");
                }
            }
        }
    }
}
