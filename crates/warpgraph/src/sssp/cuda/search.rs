//! What every GPU search shares: the upload, the choice of method, the reset before a
//! search (`search.cu`'s `reset`), the parents pass after it (`search.cu`'s `parents`,
//! and where it finds a tight arc of weight <= 0 `parents.rs`' search over tight arcs),
//! and the reading of the result, with Johnson's potentials by the near-far work-list.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::PushKernelArg;
use rayon::prelude::*;

use super::device::{DeviceWeights, GpuDistance};
use super::dijkstra::{check_extract_min_threads, EXTRACT_MIN_THREADS_DEFAULT};
use super::owned::{road_like, OWNED_WIDTH, SHARED_HEAD};
use super::{bytes_needed, GpuSssp, Kernels, BARRIER_WORDS, BLOCKS_PER_SM, THREADS};
use crate::cuda::{gpu_err, grid_for, launch_config, Gpu, GpuTimes};
use crate::error::{Error, Result};
use crate::graph::{Csr, Graph, VertexId, Weights};
use crate::par::premapped;
use crate::sssp::cpu::{self, ArcWeights, Unit};
use crate::sssp::{parallel_width, Algorithm, Delta, Potentials, ShortestPaths, SsspResult};

/// How a search runs.
#[derive(Clone, Copy)]
enum Method {
    /// Near-far buckets of this width (0: the work-list).
    NearFar(f64),
    /// Bellman-Ford rounds.
    Rounds,
    /// (min, +) products, over ELL when true.
    Spmv(bool),
    /// The CUDA SSSP thesis's Dijkstra.
    Dijkstra,
    /// The CUDA SSSP thesis's delta-stepping, buckets of this width.
    Buckets(f64),
    /// Owner-local near-far buckets of this width (road-like graphs).
    Owned(f64),
}

/// The automatic GPU bucket width is `AUTO_WIDTH * mean weight / mean degree^2`: the
/// shape of the CPU's rule (`20 w / d^2`) with a factor for the GPU's parallelism, measured on
/// power-law (Kronecker) graphs and grids with weights 1..255: a Kronecker graph of
/// degree 31 wants a width near 8, a grid of degree 4 one in the thousands, and this
/// factor gives both.
const AUTO_WIDTH: f64 = 256.0;

/// The error for a negative cycle the GPU proved: the one `cpu` (the CPU's Bellman-Ford on
/// the same graph) names, as the CPU backend reports it.
fn cycle_named_by<T>(cpu: Result<T>) -> Error {
    match cpu {
        Err(e) => e,
        Ok(_) => Error::Gpu(
            "the GPU found a negative cycle that the CPU's Bellman-Ford does not: please \
             report this"
                .into(),
        ),
    }
}

/// The source of a reset that starts from every vertex at distance 0 (`EVERYWHERE` of
/// `sssp.cuh`): Johnson's virtual source.
const EVERYWHERE: u32 = u32::MAX;

/// Distances of packed words stay below this (2^31 - 1: the distance of INT64_MAX, the
/// kernels' infinity, as a word).
const PACKED_LIMIT: f64 = 2_147_483_647.0;

impl GpuSssp {
    /// Uploads `g` to `gpu` and allocates the search state, after checking that it fits.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (needed vs free device memory) when it does not fit;
    /// [`Error::Gpu`] for a driver or compile error.
    pub fn new(gpu: &Arc<Gpu>, g: &Graph) -> Result<GpuSssp> {
        let n = g.num_vertices();
        let csr = g.out();
        gpu.check_memory(
            || {
                format!(
                    "shortest paths on a graph of {n} vertices and {} arcs",
                    csr.num_arcs()
                )
            },
            bytes_needed(g),
        )?;
        let start = Instant::now();
        let (w, suffix) = DeviceWeights::upload(gpu, csr.weights(), csr.targets().len(), None)?;
        let range = csr.weights().range_f64();
        let min_weight = range.map(|r| r.0);
        // The longest simple path weighs at most (n - 1) times the largest weight.
        let packable = match (csr.weights(), range) {
            (Weights::F32(_) | Weights::F64(_), _) => false,
            (_, Some((lo, hi))) => lo >= 1.0 && (n.max(1) - 1) as f64 * hi < PACKED_LIMIT,
            (_, None) => ((n.max(1) - 1) as f64) < PACKED_LIMIT,
        };
        let k = Kernels::load(gpu, suffix)?;
        let per_sm = [&k.near_far, &k.rounds, &k.buckets]
            .iter()
            .map(|f| f.occupancy_max_active_blocks_per_multiprocessor(THREADS, 0, None))
            .try_fold(BLOCKS_PER_SM, |a, r| r.map(|b| a.min(b)))
            .map_err(gpu_err)?;
        if per_sm == 0 {
            return Err(Error::Gpu(
                "the SSSP kernels cannot run on this GPU: no block fits a multiprocessor".into(),
            ));
        }
        let s = GpuSssp {
            k,
            n: n as u32,
            off: gpu.upload(csr.offsets())?,
            tgt: gpu.upload(csr.targets())?,
            w,
            dist: gpu.zeros(n)?,
            stamp: gpu.zeros(n)?,
            qa: gpu.zeros(n)?,
            qb: gpu.zeros(n)?,
            big: gpu.zeros(n)?,
            parent: gpu.zeros(n)?,
            barrier: gpu.zeros(BARRIER_WORDS)?,
            gmin: gpu.zeros(4)?,
            flags: gpu.zeros(3)?,
            passes: gpu.zeros(3)?,
            blocks: per_sm * gpu.info().multiprocessors,
            block_key: gpu.zeros((BLOCKS_PER_SM * gpu.info().multiprocessors) as usize)?,
            block_vertex: gpu.zeros((BLOCKS_PER_SM * gpu.info().multiprocessors) as usize)?,
            extract_min_threads: EXTRACT_MIN_THREADS_DEFAULT,
            reqidx: None,
            words: gpu.zeros(8)?,
            max_weight: range.map_or(1.0, |r| r.1),
            negative: min_weight.is_some_and(|x| x < 0.0),
            min_weight,
            packable,
            dist2: gpu.zeros(n)?,
            changed: gpu.zeros(1)?,
            changed_host: gpu.pinned(1)?,
            incoming: None,
            ell: None,
            owned: None,
            shared_strips: true,
            shared_head: SHARED_HEAD,
            ran_shared: false,
            owner_local: None,
            road_like: None,
            dist_host: gpu.pinned(n.max(1))?,
            parent_host: gpu.pinned(n.max(1))?,
            flags_host: gpu.pinned(3)?,
            upload_seconds: 0.0,
            gpu: gpu.clone(),
        };
        gpu.stream().synchronize().map_err(gpu_err)?;
        Ok(GpuSssp {
            upload_seconds: start.elapsed().as_secs_f64(),
            ..s
        })
    }

    /// Seconds the upload and allocation took.
    pub fn upload_seconds(&self) -> f64 {
        self.upload_seconds
    }

    /// Sets the threads per block of `dijkstra`'s ExtractMin reduction: one of
    /// [`EXTRACT_MIN_THREADS`](super::dijkstra::EXTRACT_MIN_THREADS) (default 512, the CUDA SSSP thesis's best).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another number.
    pub fn set_extract_min_threads(&mut self, threads: u32) -> Result<()> {
        check_extract_min_threads(threads)?;
        self.extract_min_threads = threads;
        Ok(())
    }

    /// For tests: whether `auto` (non-negative weights) runs owner-local near-far. `None`
    /// (the default, and what every search outside the tests gets) runs it where the graph
    /// is [`road_like`]; `Some` forces it on or off, so that graphs too small to be
    /// road-like cover its kernels.
    #[doc(hidden)]
    pub fn set_owner_local(&mut self, owner_local: Option<bool>) {
        self.owner_local = owner_local;
    }

    /// For tests: whether owner-local near-far may keep each block's distances in its
    /// shared memory. By default (`true`) it does wherever they fit (about 50,000 vertices
    /// a block, so graphs of up to 6 to 7 million vertices on a GPU of 228 KiB of shared memory a multiprocessor) and every
    /// distance fits 31 bits with positive integer weights, and keeps them in global memory
    /// elsewhere; `false` makes a small graph cover the global-memory kernel. The result is
    /// the same either way.
    #[doc(hidden)]
    pub fn set_shared_strips(&mut self, on: bool) {
        self.shared_strips = on;
    }

    /// How many of each list's entries owner-local near-far's shared variant keeps in
    /// shared memory (at least 1, at most the default of 1,024; the others are in global
    /// memory). For tests: fewer make them cover both places.
    #[doc(hidden)]
    pub fn set_shared_head(&mut self, entries: u32) {
        self.shared_head = entries.clamp(1, SHARED_HEAD);
    }

    /// Whether the last search ran owner-local near-far with its distances in shared
    /// memory (for tests).
    #[doc(hidden)]
    pub fn ran_shared_strips(&self) -> bool {
        self.ran_shared
    }

    /// Shortest paths from `source` (an internal id) of `g` (the graph given to
    /// [`GpuSssp::new`]) by `algorithm`.
    ///
    /// # Errors
    /// As [`crate::sssp::sssp`]; and [`Error::InvalidArgument`] for a method without GPU
    /// code (`dijkstra`), [`Error::Gpu`] for a driver error.
    pub fn run(
        &mut self,
        g: &Graph,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(SsspResult, GpuTimes)> {
        cpu::check_inputs(g.out(), None, Some(source))?;
        let csr = g.out();
        macro_rules! typed {
            ($w:expr, $wrap:path) => {
                self.typed(g, $w, source, algorithm)
                    .map(|(p, t)| ($wrap(p), t))
            };
        }
        match csr.weights() {
            Weights::None => typed!(&Unit, SsspResult::Int),
            Weights::I32(w) => typed!(&w[..], SsspResult::Int),
            Weights::I64(w) => typed!(&w[..], SsspResult::Int),
            Weights::F32(w) => typed!(&w[..], SsspResult::Float),
            Weights::F64(w) => typed!(&w[..], SsspResult::Float),
        }
    }

    /// Johnson's potentials of `g` (the graph given to [`GpuSssp::new`]): the work-list
    /// Bellman-Ford (`bellman-ford-queue`'s kernel) from a virtual source joined to every
    /// vertex by an arc of weight 0, so it starts with every distance 0 and every vertex
    /// in the list. The same values as [`cpu::bellman_ford_potentials`] (shortest
    /// distances are unique).
    ///
    /// # Errors
    /// [`Error::NegativeCycle`] when the GPU proves one (the CPU's Bellman-Ford then names
    /// it, as the CPU backend would); [`Error::Overflow`] when a potential does not fit;
    /// [`Error::Gpu`] for a driver error.
    pub fn potentials(&mut self, g: &Graph) -> Result<(Potentials, GpuTimes)> {
        cpu::check_inputs(g.out(), None, None)?;
        macro_rules! typed {
            ($w:expr, $wrap:path) => {
                self.potentials_typed(g, $w).map(|(h, t)| ($wrap(h), t))
            };
        }
        match g.out().weights() {
            Weights::None => typed!(&Unit, Potentials::Int),
            Weights::I32(w) => typed!(&w[..], Potentials::Int),
            Weights::I64(w) => typed!(&w[..], Potentials::Int),
            Weights::F32(w) => typed!(&w[..], Potentials::Float),
            Weights::F64(w) => typed!(&w[..], Potentials::Float),
        }
    }

    fn potentials_typed<A: ArcWeights + ?Sized>(
        &mut self,
        g: &Graph,
        w: &A,
    ) -> Result<(Vec<A::D>, GpuTimes)>
    where
        A::D: GpuDistance,
    {
        let csr = g.out();
        let n = self.n as usize;
        if n == 0 {
            return Ok((Vec::new(), GpuTimes::default()));
        }
        let start = Instant::now();
        let timer = self.gpu.timer()?;
        self.launch_reset(EVERYWHERE, false)?;
        self.launch_near_far(A::D::device_delta(0.0), false, self.n)?;
        let done = timer.kernels_done(&self.gpu)?;
        let flags = self.gpu.read_pinned(&self.flags, 3, &mut self.flags_host)?;
        if flags[1] != 0 {
            // The GPU proved a cycle; the CPU's Bellman-Ford names it.
            return Err(cycle_named_by(cpu::potentials_with(csr, w)));
        }
        let bits = self.gpu.read_pinned(&self.dist, n, &mut self.dist_host)?;
        let h: Vec<A::D> = bits.par_iter().map(|&b| A::D::from_bits(b)).collect();
        if flags[0] != 0 {
            cpu::check_unrepresentable(csr, &h)?;
        }
        let mut times = timer.finish(&done)?;
        times.total_seconds = start.elapsed().as_secs_f64();
        Ok((h, times))
    }

    /// How `algorithm` runs on this graph (`w`: its weights): refused where it needs
    /// non-negative weights and some arc is negative; `auto` prepares owner-local near-far
    /// where it picks it.
    fn method<A: ArcWeights + ?Sized>(
        &mut self,
        csr: &Csr,
        w: &A,
        algorithm: &Algorithm,
    ) -> Result<Method> {
        let refuse_negative = |name: &str| -> Result<()> {
            match self.negative {
                true => Err(cpu::first_negative(csr, w, name).unwrap_or_else(|| {
                    Error::InvalidArgument(format!("{name} needs non-negative weights"))
                })),
                false => Ok(()),
            }
        };
        Ok(match algorithm {
            Algorithm::Dijkstra => {
                refuse_negative("dijkstra")?;
                Method::Dijkstra
            }
            Algorithm::DeltaStepping(delta) => {
                refuse_negative("delta-stepping")?;
                Method::Buckets(self.width(csr, w, *delta, AUTO_WIDTH)?)
            }
            Algorithm::DijkstraParallel => {
                refuse_negative("dijkstra-parallel")?;
                let width = parallel_width(self.min_weight);
                Method::NearFar(self.width(csr, w, Delta::Fixed(width), AUTO_WIDTH)?)
            }
            Algorithm::Auto if !self.negative => {
                let owned = match self.owner_local {
                    Some(x) => x,
                    None => *self.road_like.get_or_insert_with(|| road_like(csr)),
                };
                match owned {
                    true => {
                        // Prepared here (the only place that picks it), for its own width
                        // where the distances will be in shared memory.
                        self.prepare_owned(csr)?;
                        let factor = match self.shared_strip_bytes() {
                            Some(_) => OWNED_WIDTH,
                            None => AUTO_WIDTH,
                        };
                        Method::Owned(self.width(csr, w, Delta::Auto, factor)?)
                    }
                    false => Method::NearFar(self.width(csr, w, Delta::Auto, AUTO_WIDTH)?),
                }
            }
            Algorithm::Auto | Algorithm::BellmanFordQueue => Method::NearFar(0.0),
            Algorithm::BellmanFord => Method::Rounds,
            Algorithm::SpmvCsr => Method::Spmv(false),
            Algorithm::SpmvEll => Method::Spmv(true),
        })
    }

    /// Shortest paths from `source` by `algorithm`, the graph's weights `w` typed.
    fn typed<A: ArcWeights + ?Sized>(
        &mut self,
        g: &Graph,
        w: &A,
        source: VertexId,
        algorithm: &Algorithm,
    ) -> Result<(ShortestPaths<A::D>, GpuTimes)>
    where
        A::D: GpuDistance,
    {
        let method = self.method(g.out(), w, algorithm)?;
        if let Method::Spmv(ell) = method {
            self.prepare_spmv(g, ell)?;
        }
        if let Method::Buckets(width) = method {
            self.prepare_buckets(width)?;
        }
        let shared = match method {
            Method::Owned(_) => self.shared_strip_bytes(),
            _ => None,
        };
        self.ran_shared = shared.is_some();
        let packed = self.packable && matches!(method, Method::NearFar(_) | Method::Owned(_));
        let start = Instant::now();
        let timer = self.gpu.timer()?;
        self.launch_reset(source, packed)?;
        let spmv_cycle = match method {
            Method::NearFar(width) => self
                .launch_near_far(A::D::device_delta(width), packed, 1)
                .map(|_| false)?,
            Method::Rounds => self.launch_rounds(source).map(|_| false)?,
            Method::Spmv(ell) => self.run_spmv(ell)?,
            Method::Dijkstra => self.launch_dijkstra().map(|_| false)?,
            Method::Buckets(width) => self
                .launch_buckets(A::D::device_delta(width))
                .map(|_| false)?,
            Method::Owned(width) => self
                .launch_owned(
                    A::D::device_delta(width),
                    packed,
                    source,
                    shared,
                    !g.is_directed(),
                )
                .map(|_| false)?,
        };
        // Parents on the GPU (meaningless, and ignored, when the search failed), unless
        // the words hold them.
        if !packed {
            self.launch_parents(source, !g.is_directed())?;
        }
        let done = timer.kernels_done(&self.gpu)?;
        let (dist, parent) = self.read_result(g, w, source, packed, spmv_cycle, start)?;
        let mut times = timer.finish(&done)?;
        times.total_seconds = start.elapsed().as_secs_f64();
        Ok((
            ShortestPaths {
                source,
                dist,
                parent,
            },
            times,
        ))
    }

    /// The distances and parents of the search from `source` that the kernels queued
    /// before (`packed`: in words; `spmv_cycle`: the SpMV products proved a negative
    /// cycle; `start`: when the search began, for the trace), or its error.
    fn read_result<A: ArcWeights + ?Sized>(
        &mut self,
        g: &Graph,
        w: &A,
        source: VertexId,
        packed: bool,
        spmv_cycle: bool,
        start: Instant,
    ) -> Result<(Vec<A::D>, Vec<VertexId>)>
    where
        A::D: GpuDistance,
    {
        let csr = g.out();
        // While the GPU works: the result's memory written once, in parallel, so that its
        // pages are mapped (a fresh allocation faults on first touch, which for 2^22
        // vertices cost the host more than the copy) before the words arrive.
        let n = self.n as usize;
        let mut dist = premapped(n, A::D::from_bits(0));
        let mut parent = premapped(n, 0u32);
        let flags = self.gpu.read_pinned(&self.flags, 3, &mut self.flags_host)?;
        let (overflow, cycle, cyclic_parents) =
            (flags[0] != 0, flags[1] != 0 || spmv_cycle, flags[2] != 0);
        let copied = Instant::now();
        // A tight arc of weight <= 0 could close a cycle of the parents chosen directly:
        // then the breadth-first search over tight arcs chooses them, on the GPU (packed
        // words held the parents, and a negative cycle has none).
        let levels = match !packed && !cycle && cyclic_parents {
            true => self.tight_parents(source)?,
            false => 0,
        };
        let searched = Instant::now();
        let bits = self.gpu.read_pinned(&self.dist, n, &mut self.dist_host)?;
        let unpacked = Instant::now();
        match packed {
            true => dist
                .par_iter_mut()
                .zip(parent.par_iter_mut())
                .zip(bits.par_iter())
                .for_each(|((d, p), &b)| (*d, *p) = A::D::from_word(b)),
            false => dist
                .par_iter_mut()
                .zip(bits.par_iter())
                .for_each(|(d, &b)| *d = A::D::from_bits(b)),
        }
        if crate::settings::get().trace > 0 {
            eprintln!(
                "host: {:.3} ms from the start to the kernels' end (the result's memory \
                 mapped meanwhile), {:.3} ms choosing parents by {levels} levels of tight \
                 arcs, {:.3} ms copying the distances, {:.3} ms taking them apart",
                (copied - start).as_secs_f64() * 1e3,
                (searched - copied).as_secs_f64() * 1e3,
                (unpacked - searched).as_secs_f64() * 1e3,
                unpacked.elapsed().as_secs_f64() * 1e3
            );
        }
        if cycle {
            // The GPU proved a cycle; the CPU's Bellman-Ford names it.
            return Err(cycle_named_by(cpu::bellman_ford_with(
                csr,
                w,
                !g.is_directed(),
                source,
            )));
        }
        if overflow {
            // A sum that did not fit was dropped: harmless unless a distance does not fit.
            cpu::check_unrepresentable(csr, &dist)?;
        }
        if !packed {
            let p = self
                .gpu
                .read_pinned(&self.parent, n, &mut self.parent_host)?;
            crate::par::copy(&mut parent, p);
        }
        Ok((dist, parent))
    }

    /// The bucket width for `delta` on the GPU. The thesis's rules are the CPU's; the
    /// automatic one is the GPU's own: a GPU wants buckets far wider than 16 threads do.
    fn width<A: ArcWeights + ?Sized>(
        &self,
        csr: &crate::graph::Csr,
        w: &A,
        delta: Delta,
        factor: f64,
    ) -> Result<f64> {
        let delta = match delta {
            Delta::Auto => {
                let mean = cpu::resolve_delta(csr, w, Delta::Mean)?;
                let n = csr.num_vertices().max(1) as f64;
                let degree = (csr.targets().len() as f64 / n).max(1.0);
                let x = factor * mean / (degree * degree);
                // As a fixed width: integer distances round it (to at least 1).
                Delta::Fixed(x.max(f64::MIN_POSITIVE))
            }
            d => d,
        };
        cpu::resolve_delta(csr, w, delta)
    }

    fn launch_reset(&mut self, source: u32, packed: bool) -> Result<()> {
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let packed = u32::from(packed);
        let mut b = self.gpu.stream().launch_builder(&self.k.reset);
        b.arg(&mut self.dist)
            .arg(&mut self.stamp)
            .arg(&self.n)
            .arg(&source)
            .arg(&packed)
            .arg(&mut self.qa)
            .arg(&mut self.barrier)
            .arg(&mut self.flags)
            .arg(&mut self.gmin);
        // SAFETY: the arguments match sssp_reset_*'s parameters: dist, stamp and qa hold
        // n (at least one) entries, the barrier BARRIER_WORDS, flags three, gmin four.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }

    fn launch_parents(&mut self, source: u32, symmetric: bool) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let (blocks, threads) = grid_for(u64::from(self.n), THREADS);
        let mut b = stream.launch_builder(&self.k.parents_init);
        b.arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&mut self.flags);
        // SAFETY: matches sssp_parents_init; parent holds n entries, flags three.
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        let symmetric = u32::from(symmetric);
        let mut b = stream.launch_builder(&self.k.parents);
        b.arg(&self.off).arg(&self.tgt);
        self.w.push_to(&mut b);
        b.arg(&self.dist)
            .arg(&mut self.parent)
            .arg(&self.n)
            .arg(&source)
            .arg(&symmetric)
            .arg(&mut self.flags);
        // SAFETY: matches sssp_parents_*; dist and parent hold n entries (dist final).
        unsafe { b.launch(launch_config(blocks, threads)) }.map_err(gpu_err)?;
        Ok(())
    }
}
