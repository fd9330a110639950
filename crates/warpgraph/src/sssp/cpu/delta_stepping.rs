//! Delta-stepping: parallel shortest paths in buckets of width delta.
//!
//! # What it computes
//! Shortest-path distances and a shortest-path tree from one source, for non-negative
//! weights.
//!
//! # Method
//! U. Meyer and P. Sanders, "Delta-stepping: a parallelizable shortest path algorithm",
//! J. Algorithms 49 (2003); the CUDA SSSP thesis's Algorithm 3. The loop structure and its
//! optimisations follow GAPBS `sssp.cc` (Beamer, Asanović and Patterson, "The GAP
//! benchmark suite", arXiv:1508.03619), the reference for speed.
//!
//! Bucket `i` holds the vertices whose tentative distance lies in `[i*delta, (i+1)*delta)`;
//! buckets are taken in increasing order. Taking a vertex relaxes its arcs; an improved
//! vertex goes into the bucket of its new distance, which for a *light* arc (`w <= delta`)
//! may be the current bucket again, so light arcs are relaxed repeatedly until the bucket
//! stays empty, while a *heavy* arc (`w > delta`) always lands in a later bucket. A vertex
//! whose entry is stale (it was improved into an earlier bucket since) is skipped. The
//! method is label-correcting: it is exact for any delta, because every vertex relaxes its
//! arcs after its last improvement; delta trades re-relaxations (large delta) against the
//! number of buckets, each a synchronisation (small delta).
//!
//! *Light and heavy arcs.* Meyer and Sanders relax the heavy arcs of a bucket's vertices
//! once, after the bucket has settled. As in GAPBS, this implementation relaxes all arcs
//! of a vertex whenever it is taken, which is the same thing unless a vertex is improved
//! again within its bucket, and it reads every row once rather than twice (light arcs,
//! then heavy ones): on Kronecker graphs at delta 1 or 2 a vertex is almost never taken
//! twice in one bucket, so the second reading would be pure cost.
//!
//! **Threads and bins** (GAPBS's scheme). The run uses `t` threads (rayon's thread count,
//! fewer for graphs under 2^14 arcs per thread): the caller and `t - 1` scoped threads, each
//! with its own bins, so an improved vertex goes into the improving thread's bin with no
//! shared queue. A step: every thread publishes its bin of the current bucket; threads
//! take chunks of 64 vertices of the concatenation from a shared counter (GAPBS's
//! `schedule(dynamic, 64)`); then, *bucket fusion*, each thread keeps emptying its own bin
//! of the current bucket while it holds fewer than 1000 vertices, without a global step;
//! finally an atomic minimum over the threads' bins names the next bucket. Two barriers per
//! step (spinning briefly, then yielding); the published bins are read without locks, the
//! barriers separating the phase that writes them from the phase that reads them
//! (`Share`). Each thread's bins are a ring of buckets `[base, base + K)`, K a power of two
//! covering the largest sampled weight over delta (at most 4096), plus a heap for buckets
//! beyond the ring, so any weights and delta use bounded memory. While walking a frontier,
//! the offsets and cell of the vertex 16 places ahead and the row of the one 8 places ahead
//! are prefetched: rows start at random places, and this hides the three dependent cache
//! misses before a vertex's arcs.
//!
//! **Distance cells.** Integer distances below 2^32 - 1 are kept with their parent in one
//! `AtomicU64`, `distance << 32 | parent`, lowered by compare-and-swap: the lexicographic
//! minimum over all relaxations is the final distance with the smallest tail of a tight
//! arc, the parent rule of [`super::parents`], at no extra cost (a tie only updates the
//! parent). Larger integer distances (detected as they appear; the run is then repeated)
//! and float distances use 64-bit order-preserving keys ([`super::DistKey`]) and derive
//! parents afterwards ([`super::parents`]), as do runs where a 0-weight arc set a parent
//! (tight arcs may then form cycles).
//!
//! **Delta** ([`Delta`]): a fixed width; the CUDA SSSP thesis's three rules (median weight,
//! mean weight, largest weight over largest out-degree); or `Auto`, `20 w / d^2` for the
//! mean weight `w` (of 4096 sampled arcs) and the mean out-degree `d` of the vertices that
//! have arcs (of 4096 sampled vertices), rounded down and at least 1 for integer weights.
//! The rule is fitted to sweeps of fixed widths, weights 1..255, median milliseconds:
//!
//! | graph (`d`, `Auto`'s width) | threads | width: ms |
//! |---|---|---|
//! | Kronecker, scale 22 (54, 1) | 16 | 1: 185, 2: 201, 4: 237, 8: 302 |
//! | | 4 | 1: 633, 2: 708, 4: 751, 8: 878 |
//! | Kronecker, scale 20 (49, 1) | 2 | 1: 209, 2: 222, 4: 246, 8: 279 |
//! | uniform, scale 22 (32, 2) | 16 | 1: 266, 2: 264, 4: 264, 8: 277 |
//! | | 4 | 1: 1046, 2: 925, 4: 938, 8: 996 |
//! | uniform, scale 20 (32, 2) | 2 | 1: 333, 2: 332, 4: 335, 8: 344 |
//! | grid 2048^2 (3.6, 197) | 16 | 16: 113, 32: 93, 64: 89, 128: 89, 256: 87, 512: 85, 1024: 93 |
//! | grid 1024^2 (3.6, 197) | 2 | 32: 64, 64: 68, 128: 66, 256: 68, 512: 66, 1024: 77 |
//!
//! The best widths do not move with the thread count, so neither does the rule. Kronecker
//! graphs want 1 (GAPBS reports its best figures there too) and uniform ones 2, though both
//! have about 31 arcs per vertex overall: a Kronecker graph leaves two fifths of its
//! vertices without arcs, and its degree among the others (54) sets them apart. Road-like
//! grids, with thousands of hops to cross and few arcs per vertex, want far fewer buckets.
//!
//! A negative weight met during the run is refused ([`Error::NegativeWeight`] naming the
//! first negative arc of the graph in CSR order).
//!
//! # Parallelism
//! Scoped threads (SPMD, as GAPBS's OpenMP region) with per-thread bins and barriers as
//! above, rather than a rayon loop per step: a Kronecker graph takes hundreds of steps,
//! and a fork-join and locked bins at every step cost more than barriers between threads
//! that keep running. Distances are lowered by compare-and-swap on `AtomicU64` cells; the output
//! arrays and the parent derivation run in parallel with rayon.

use std::cell::UnsafeCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};

use rayon::prelude::*;

use super::{
    add, check_inputs, check_unrepresentable, first_negative, in_pool, parents, prefetch,
    supported, ArcWeights, DistKey, Sum,
};
use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, VertexId, Weight, NO_VERTEX};
use crate::memory;
use crate::par::Padded;
use crate::sssp::{Delta, ShortestPaths};

/// How far ahead in a frontier the offsets and cell of a vertex are prefetched.
const FAR: usize = 16;
/// How far ahead in a frontier the row of a vertex is prefetched.
const NEAR: usize = 8;
/// Frontier vertices per parallel task (GAPBS: `schedule(dynamic, 64)`).
const CHUNK: usize = 64;
/// A thread keeps working on its own bin of the current bucket while it is smaller than
/// this (GAPBS `kBinSizeThreshold`).
const FUSE: usize = 1000;
/// Arcs per thread below which fewer threads are used (one for small graphs).
const ARCS_PER_THREAD: usize = 1 << 14;
/// Spins at a barrier before yielding the processor.
const SPINS: u32 = 1 << 12;
/// Most ring slots per thread.
const MAX_RING: u64 = 1 << 12;
/// [`Delta::Auto`]'s factor: the width is `AUTO * w / d^2` (see the module docs).
const AUTO: f64 = 20.0;
/// Weights and vertices sampled for [`Delta::Auto`].
const SAMPLE: usize = 4096;
/// Arcs beyond which [`Delta::Median`] uses an evenly spaced sample of this many.
const MEDIAN_SAMPLE: usize = 1 << 22;

/// Delta-stepping from `source` with bucket width chosen by `delta`.
///
/// # Arguments
/// - `csr`: the outgoing arcs, satisfying [`Csr::validate`].
/// - `w`: one weight per arc, parallel to `csr.targets()`; they must be non-negative.
/// - `source`: the source vertex (internal id).
/// - `delta`: the bucket width or the rule that picks it ([`Delta`]).
///
/// # Returns
/// Distances and a shortest-path tree (for each vertex the smallest tail of an arc on a
/// shortest path).
///
/// # Errors
/// - [`Error::InvalidArgument`]: `source` is not a vertex, `w.len()` is not the number of
///   arcs, or a fixed delta is not a positive number.
/// - [`Error::NegativeWeight`]: an arc reachable from `source` has a negative weight (the
///   error names the graph's first negative arc).
/// - [`Error::Overflow`]: a reachable distance does not fit in `W::Dist`.
/// - [`Error::OutOfMemory`]: the working arrays would not fit.
///
/// # Complexity
/// O(n + m + L/delta) work and O(L/delta) steps on graphs with random weights, L the
/// largest distance (Meyer and Sanders); O(n m) in the worst case. O(n) memory.
///
/// # Example
/// ```
/// use warpgraph::sssp::cpu::delta_stepping;
/// use warpgraph::sssp::Delta;
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// //      1       1
/// //  0 ----- 1 ----- 2
/// //   \_____________/
/// //          5
/// let g = EdgeList::new(3, vec![0, 1, 0], vec![1, 2, 2], Weights::from(vec![1i64, 1, 5]))
///     .unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() })
///     .unwrap();
/// let w = g.out().weights().as_slice::<i64>().unwrap();
/// let p = delta_stepping(g.out(), w, 2, Delta::Fixed(2.0)).unwrap();
/// assert_eq!(p.dist, vec![2, 1, 0]);
/// assert_eq!(p.parent, vec![1, 2, 2]);
/// ```
pub fn delta_stepping<W: Weight>(
    csr: &Csr,
    w: &[W],
    source: VertexId,
    delta: Delta,
) -> Result<ShortestPaths<W::Dist>> {
    check_inputs(csr, Some(w.len()), Some(source))?;
    delta_stepping_with(csr, w, false, source, delta)
}

/// [`delta_stepping`] over any [`ArcWeights`]; `symmetric` as for parents
/// ([`super::parents`]).
pub(crate) fn delta_stepping_with<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    symmetric: bool,
    source: VertexId,
    delta: Delta,
) -> Result<ShortestPaths<A::D>> {
    supported::<A::D>()?;
    check_inputs(csr, w.len(), Some(source))?;
    let width = resolve_delta(csr, w, delta)?;
    let n = csr.num_vertices();
    memory::check(
        || format!("delta-stepping's distance arrays and bins for {n} vertices"),
        memory::bytes_for(n as u64, 8 + 8 + 4 + std::mem::size_of::<A::D>()),
    )?;
    let (dist, parent) = in_pool(|| run(csr, w, symmetric, source, width))?;
    Ok(ShortestPaths {
        source,
        dist,
        parent,
    })
}

/// The bucket width for `delta` on this graph: positive, an integer (at least 1) for
/// integer distances.
pub(crate) fn resolve_delta<A: ArcWeights + ?Sized>(csr: &Csr, w: &A, delta: Delta) -> Result<f64> {
    let m = csr.targets().len();
    let n = csr.num_vertices();
    let weight = |i: usize| w.get(i).map_or(1.0, |x| x.as_f64());
    let raw = match delta {
        Delta::Fixed(x) => {
            if !(x.is_finite() && x > 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "delta-stepping's bucket width must be a positive number, not {x}"
                )));
            }
            x
        }
        Delta::Auto => {
            let k = m.min(SAMPLE);
            let mean = if k == 0 {
                1.0
            } else {
                (0..k).map(|j| weight(j * (m / k))).sum::<f64>() / k as f64
            };
            let d = degree_with_arcs(csr);
            AUTO * mean / (d * d)
        }
        Delta::Mean => {
            if m == 0 {
                1.0
            } else {
                (0..m).into_par_iter().map(weight).sum::<f64>() / m as f64
            }
        }
        Delta::Median => {
            let k = m.min(MEDIAN_SAMPLE);
            memory::check(
                || format!("the median of {k} arc weights"),
                memory::bytes_for(k as u64, 8),
            )?;
            let mut v: Vec<f64> = (0..k)
                .into_par_iter()
                .map(|j| weight(j * (m / k.max(1))))
                .collect();
            if v.is_empty() {
                1.0
            } else {
                let mid = v.len() / 2;
                *v.select_nth_unstable_by(mid, f64::total_cmp).1
            }
        }
        Delta::MaxOverDegree => {
            let max_w = (0..m).into_par_iter().map(weight).reduce(|| 0.0, f64::max);
            let max_deg = (0..n as VertexId)
                .into_par_iter()
                .map(|v| csr.degree(v))
                .max()
                .unwrap_or(0)
                .max(1);
            max_w / max_deg as f64
        }
    };
    let int = A::D::from_f64(0.5) == A::D::ZERO; // integer distances round 0.5 down to 0
    let width = if int { raw.floor().max(1.0) } else { raw };
    Ok(if width.is_finite() && width > 0.0 {
        width
    } else {
        1.0
    })
}

/// The mean out-degree of the vertices that have arcs (estimated from [`SAMPLE`] evenly
/// spaced vertices), at least 1. A Kronecker graph leaves two fifths of its vertices
/// without arcs; counting them would make it look as sparse as a uniform graph.
fn degree_with_arcs(csr: &Csr) -> f64 {
    let n = csr.num_vertices();
    let m = csr.targets().len();
    let k = n.min(SAMPLE);
    let step = n / k.max(1);
    let with_arcs = (0..k)
        .filter(|&j| csr.degree((j * step) as VertexId) > 0)
        .count();
    let share = if with_arcs == 0 {
        1.0
    } else {
        with_arcs as f64 / k as f64
    };
    (m as f64 / (n as f64 * share).max(1.0)).max(1.0)
}

/// One thread's bins (see the module docs).
struct Bins {
    /// The bucket of ring slot `base & mask`.
    base: u64,
    /// Ring size minus one (a power of two minus one).
    mask: u64,
    /// Buckets `base..=base + mask`, slot `b & mask`.
    ring: Vec<Vec<VertexId>>,
    /// Vertices in the ring.
    in_ring: usize,
    /// Buckets beyond the ring.
    far: BinaryHeap<Reverse<(u64, VertexId)>>,
}

impl Bins {
    fn new(slots: u64) -> Bins {
        Bins {
            base: 0,
            mask: slots - 1,
            ring: (0..slots).map(|_| Vec::new()).collect(),
            in_ring: 0,
            far: BinaryHeap::new(),
        }
    }

    /// Puts `v` in bucket `b` (a bucket below `base` counts as `base`).
    #[inline]
    fn push(&mut self, b: u64, v: VertexId) {
        let b = b.max(self.base);
        if b - self.base <= self.mask {
            self.ring[(b & self.mask) as usize].push(v);
            self.in_ring += 1;
        } else {
            self.far.push(Reverse((b, v)));
        }
    }

    /// The bin of bucket `b`, which lies in the ring.
    #[inline]
    fn bin(&mut self, b: u64) -> &mut Vec<VertexId> {
        &mut self.ring[(b & self.mask) as usize]
    }

    /// Takes the contents of bucket `b` (in the ring), appending them to `out`.
    fn drain_into(&mut self, b: u64, out: &mut Vec<VertexId>) {
        let slot = (b & self.mask) as usize;
        self.in_ring -= self.ring[slot].len();
        out.append(&mut self.ring[slot]);
    }

    /// The smallest non-empty bucket at or after `from` (>= base), `u64::MAX` if none.
    fn min_bucket(&self, from: u64) -> u64 {
        if self.in_ring > 0 {
            for b in from.max(self.base)..=self.base.saturating_add(self.mask) {
                if !self.ring[(b & self.mask) as usize].is_empty() {
                    return b;
                }
            }
        }
        self.far.peek().map_or(u64::MAX, |r| r.0 .0)
    }

    /// Moves the ring to start at bucket `b` (every bucket below `b` is empty) and pulls
    /// the far buckets that now fit.
    fn advance(&mut self, b: u64) {
        self.base = b;
        while let Some(&Reverse((x, v))) = self.far.peek() {
            if x - self.base > self.mask {
                break;
            }
            self.far.pop();
            self.push(x, v);
        }
    }
}

/// The per-vertex distance cells, lowered by compare-and-swap.
trait Cells<D>: Sync {
    /// The current distance of `v`.
    fn dist(&self, v: VertexId) -> D;
    /// Offers distance `nd` to `v` through an arc from `u` of weight `x`; true when `v`'s
    /// distance fell (it must be binned again).
    fn offer(&self, v: VertexId, nd: D, u: VertexId, x: D) -> bool;
    /// Whether the run must be repeated with wide cells (a distance did not fit).
    fn abandoned(&self) -> bool {
        false
    }
    /// Hints the processor to fetch `v`'s cell (`v` may be out of range: then nothing).
    fn prefetch(&self, v: VertexId);
}

/// Order-preserving 64-bit keys of any distance ([`DistKey`]); parents come afterwards.
struct Wide {
    keys: Vec<AtomicU64>,
}

impl<D: Distance> Cells<D> for Wide {
    #[inline(always)]
    fn dist(&self, v: VertexId) -> D {
        D::from_key(self.keys[v as usize].load(Relaxed))
    }

    #[inline(always)]
    fn offer(&self, v: VertexId, nd: D, _u: VertexId, _x: D) -> bool {
        let nk = nd.to_key();
        let slot = &self.keys[v as usize];
        let mut old = slot.load(Relaxed);
        while nk < old {
            match slot.compare_exchange_weak(old, nk, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(k) => old = k,
            }
        }
        false
    }

    #[inline(always)]
    fn prefetch(&self, v: VertexId) {
        prefetch(self.keys.as_ptr().wrapping_add(v as usize));
    }
}

/// Integer distances below 2^32 - 1 packed with the parent: `d << 32 | parent`. The
/// lexicographic minimum over every relaxation is the final distance with the smallest
/// tail of a tight arc: the parent rule of [`super::parents`], without its pass.
struct Packed {
    cells: Vec<AtomicU64>,
    /// A distance reached 2^32 - 1: redo with [`Wide`].
    too_big: AtomicBool,
    /// A 0-weight arc set a parent: tight arcs may form cycles, parents are redone.
    zero: AtomicBool,
}

/// [`Packed`]'s unreachable distance.
const PACKED_INF: u64 = u32::MAX as u64;

impl<D: Distance> Cells<D> for Packed {
    #[inline(always)]
    fn dist(&self, v: VertexId) -> D {
        let d = self.cells[v as usize].load(Relaxed) >> 32;
        if d == PACKED_INF {
            D::INFINITY
        } else {
            D::from_i64(d as i64)
        }
    }

    #[inline(always)]
    fn offer(&self, v: VertexId, nd: D, u: VertexId, x: D) -> bool {
        let d = match nd.to_i64() {
            Some(d) if (0..PACKED_INF as i64).contains(&d) => d as u64,
            _ => {
                self.too_big.store(true, Relaxed);
                return false;
            }
        };
        let cand = d << 32 | u as u64;
        let slot = &self.cells[v as usize];
        let mut old = slot.load(Relaxed);
        while cand < old {
            match slot.compare_exchange_weak(old, cand, Relaxed, Relaxed) {
                Ok(_) => {
                    if x == D::ZERO {
                        self.zero.store(true, Relaxed);
                    }
                    return old >> 32 > d;
                }
                Err(k) => old = k,
            }
        }
        false
    }

    fn abandoned(&self) -> bool {
        self.too_big.load(Relaxed)
    }

    #[inline(always)]
    fn prefetch(&self, v: VertexId) {
        prefetch(self.cells.as_ptr().wrapping_add(v as usize));
    }
}

/// A barrier for the run's threads: spins briefly, then yields (the machine may be shared).
///
/// A thread that panics poisons it on the way out ([`PoisonOnPanic`]), so that the others
/// stop waiting and the panic reaches the caller instead of a hang.
struct SpinBarrier {
    /// Participants (set before any of them waits, see [`Run::buckets`]).
    threads: AtomicUsize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl SpinBarrier {
    fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads: AtomicUsize::new(threads),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Returns once every thread has called `wait` as often as this one: true, or false
    /// when a thread panicked (then the caller must stop).
    fn wait(&self) -> bool {
        let threads = self.threads.load(Relaxed);
        if threads <= 1 {
            return true;
        }
        let generation = self.generation.load(Acquire);
        if self.arrived.fetch_add(1, AcqRel) + 1 == threads {
            self.arrived.store(0, Relaxed);
            self.generation.fetch_add(1, Release);
            return !self.poisoned.load(Acquire);
        }
        let mut spins = 0u32;
        while self.generation.load(Acquire) == generation {
            if self.poisoned.load(Acquire) {
                return false;
            }
            if spins < SPINS {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        !self.poisoned.load(Acquire)
    }
}

/// Poisons the barrier when the thread holding it unwinds.
struct PoisonOnPanic<'a>(&'a SpinBarrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Release);
        }
    }
}

/// One thread's published share of the current bucket.
///
/// Each step has two phases separated by the run's barrier (whose generation counter is
/// written with `Release` and read with `Acquire`, so everything before a barrier happens
/// before everything after it): in phase A (after the previous step's second barrier,
/// before this step's first) each thread writes its own share and nobody reads; in phase B
/// (between the two barriers) every thread reads every share and nobody writes. A thread
/// that leaves the loop (the end, or a poisoned barrier) touches no share after that.
#[derive(Default)]
struct Share(UnsafeCell<Vec<VertexId>>);

// SAFETY: access follows the phase discipline above: one writer alone, or readers only.
unsafe impl Sync for Share {}

impl Share {
    /// The share, to be rewritten.
    ///
    /// # Safety
    /// Only in phase A, and only by the thread that owns this share.
    #[allow(clippy::mut_from_ref)]
    unsafe fn write(&self) -> &mut Vec<VertexId> {
        &mut *self.0.get()
    }

    /// The share, to be read.
    ///
    /// # Safety
    /// Only in phase B, and the reference must not outlive it.
    unsafe fn read(&self) -> &[VertexId] {
        &*self.0.get()
    }
}

/// Shared state of one run.
struct Run<'a, A: ArcWeights + ?Sized, C> {
    csr: &'a Csr,
    w: &'a A,
    cells: C,
    /// `1 / delta`.
    inv: f64,
    slots: u64,
    /// Each thread's share of the current bucket, published for all to take from.
    published: Vec<Padded<Share>>,
    /// Frontier positions handed out so far (double-buffered by step parity). This and
    /// the other counters the threads write sit on lines of their own: a write to a line
    /// holding the fields read at every relaxation would stall every other thread.
    taken: Padded<[AtomicUsize; 2]>,
    /// The smallest non-empty bucket over all threads (double-buffered by step parity).
    next: Padded<[AtomicU64; 2]>,
    barrier: Padded<SpinBarrier>,
    negative: AtomicBool,
    over: AtomicBool,
}

impl<A: ArcWeights + ?Sized, C: Cells<A::D>> Run<'_, A, C> {
    /// The bucket of distance `d`. Huge quotients (tiny float deltas) share the last
    /// bucket, `u64::MAX - 1`: `u64::MAX` means "no bucket" and must stay free.
    #[inline(always)]
    fn bucket(&self, d: A::D) -> u64 {
        d.bucket(self.inv).min(u64::MAX - 1)
    }

    /// Relaxes every arc of `u` (at distance `du`), binning improved vertices.
    #[inline]
    fn relax(&self, u: VertexId, du: A::D, bins: &mut Bins) {
        let r = self.csr.row(u);
        let t = &self.csr.targets()[r.clone()];
        for (&v, x) in t.iter().zip(self.w.row(r)) {
            if x < A::D::ZERO {
                self.negative.store(true, Relaxed);
                continue;
            }
            match add(du, x) {
                Sum::Val(nd) => {
                    if self.cells.offer(v, nd, u, x) {
                        bins.push(self.bucket(nd), v);
                    }
                }
                _ => self.over.store(true, Relaxed),
            }
        }
    }

    /// Takes `u` from bucket `cur`: skips it when stale, else relaxes its arcs.
    #[inline]
    fn visit(&self, u: VertexId, cur: u64, bins: &mut Bins) {
        let du = self.cells.dist(u);
        if self.bucket(du) == cur {
            self.relax(u, du, bins);
        } // else: improved into an earlier bucket since it was binned here
    }

    /// Visits `list[range]`, prefetching ahead: the offsets and the cell of the vertex
    /// [`FAR`] places on, the first lines of the row of the one [`NEAR`] places on (whose
    /// offset should have arrived by then). Rows start at random places, so without this
    /// every vertex would wait for three cache misses in a row before its arcs.
    #[inline]
    fn visit_all(&self, list: &[VertexId], range: Range<usize>, cur: u64, bins: &mut Bins) {
        let off = self.csr.offsets();
        let targets = self.csr.targets();
        for i in range {
            if let Some(&x) = list.get(i + FAR) {
                prefetch(off.as_ptr().wrapping_add(x as usize));
                self.cells.prefetch(x);
            }
            if let Some(&o) = list.get(i + NEAR).and_then(|&y| off.get(y as usize)) {
                prefetch(targets.as_ptr().wrapping_add(o as usize));
                self.w.prefetch(o as usize);
            }
            if let Some(&u) = list.get(i) {
                self.visit(u, cur, bins);
            }
        }
    }

    /// One thread's part of the bucket loop (thread `me` of the barrier's threads).
    fn worker(&self, me: usize, source: VertexId) {
        let _guard = PoisonOnPanic(&self.barrier);
        let mut bins = Bins::new(self.slots);
        if me == 0 {
            bins.push(0, source);
        }
        let mut cur: u64 = 0;
        let mut step: usize = 0;
        let mut spare: Vec<VertexId> = Vec::new();
        loop {
            let (now, later) = (step & 1, (step + 1) & 1);
            // Publish this thread's bin of bucket `cur`.
            {
                // SAFETY: phase A, and `me`'s own share (see `Share`).
                let mine = unsafe { self.published[me].write() };
                mine.clear();
                bins.drain_into(cur, mine);
            }
            if !self.barrier.wait() {
                return;
            }
            if me == 0 {
                // Everyone has read the previous step's `next[later]` before the barrier.
                self.taken[later].store(0, Relaxed);
                self.next[later].store(u64::MAX, Relaxed);
            }
            // Take chunks of the concatenated bins, GAPBS's `schedule(dynamic, 64)`.
            {
                // SAFETY: phase B (see `Share`).
                let shares: Vec<&[VertexId]> =
                    self.published.iter().map(|p| unsafe { p.read() }).collect();
                let total: usize = shares.iter().map(|s| s.len()).sum();
                loop {
                    let mut at = self.taken[now].fetch_add(CHUNK, Relaxed);
                    if at >= total {
                        break;
                    }
                    let mut left = CHUNK.min(total - at);
                    for share in &shares {
                        if at >= share.len() {
                            at -= share.len();
                            continue;
                        }
                        let end = share.len().min(at + left);
                        self.visit_all(share, at..end, cur, &mut bins);
                        left -= end - at;
                        at = 0;
                        if left == 0 {
                            break;
                        }
                    }
                }
            }
            // Bucket fusion: keep emptying this thread's own small refills of `cur`.
            loop {
                let len = bins.bin(cur).len();
                if len == 0 || len >= FUSE {
                    break;
                }
                bins.drain_into(cur, &mut spare);
                self.visit_all(&spare, 0..spare.len(), cur, &mut bins);
                spare.clear();
            }
            self.next[now].fetch_min(bins.min_bucket(cur), Relaxed);
            if !self.barrier.wait() {
                return;
            }
            // Every thread reads the same values here, so all leave together.
            let next = self.next[now].load(Relaxed);
            if next == u64::MAX || self.negative.load(Relaxed) || self.cells.abandoned() {
                return;
            }
            cur = next;
            bins.advance(cur);
            step += 1;
        }
    }

    /// Runs the workers: this thread and up to `threads - 1` scoped ones. Workers wait
    /// until all are spawned; if the system refuses a thread, the run goes on with those
    /// it got (the barrier is told how many before anyone waits at it).
    fn buckets(&self, source: VertexId) {
        let wanted = self.published.len();
        let started = AtomicBool::new(false);
        let started = &started;
        std::thread::scope(|scope| {
            let mut threads = 1;
            for me in 1..wanted {
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    while !started.load(Acquire) {
                        std::thread::yield_now();
                    }
                    self.worker(me, source);
                });
                if spawned.is_err() {
                    break;
                }
                threads += 1;
            }
            self.barrier.threads.store(threads, Relaxed);
            started.store(true, Release);
            self.worker(0, source);
        });
    }

    /// The error for a negative weight met, or for a distance that does not fit.
    fn finish(&self, dist: &[A::D]) -> Result<()> {
        if self.negative.load(Relaxed) {
            return Err(
                first_negative(self.csr, self.w, "delta-stepping").unwrap_or_else(|| {
                    Error::InvalidArgument("delta-stepping needs non-negative weights".into())
                }),
            );
        }
        if self.over.load(Relaxed) {
            check_unrepresentable(self.csr, dist)?;
        }
        Ok(())
    }
}

/// Runs the buckets; returns distances and parents.
fn run<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    symmetric: bool,
    source: VertexId,
    width: f64,
) -> Result<(Vec<A::D>, Vec<VertexId>)> {
    let n = csr.num_vertices();
    let m = csr.targets().len();
    // The largest of some sampled weights sizes the ring.
    let k = m.min(SAMPLE);
    let max_w = (0..k)
        .filter_map(|j| w.get(j * (m / k.max(1))))
        .fold(A::D::ZERO, |a, x| if x > a { x } else { a });
    let span = (max_w.as_f64() / width).min(MAX_RING as f64) as u64 + 2;
    let slots = span.next_power_of_two().min(MAX_RING);
    // Small graphs are not worth the threads.
    let threads = rayon::current_num_threads()
        .min(1 + m / ARCS_PER_THREAD)
        .max(1);
    macro_rules! new_run {
        ($cells:expr) => {
            Run {
                csr,
                w,
                cells: $cells,
                inv: 1.0 / width,
                slots,
                published: (0..threads).map(|_| Padded::default()).collect(),
                taken: Padded([AtomicUsize::new(0), AtomicUsize::new(0)]),
                next: Padded([AtomicU64::new(u64::MAX), AtomicU64::new(u64::MAX)]),
                barrier: Padded(SpinBarrier::new(threads)),
                negative: AtomicBool::new(false),
                over: AtomicBool::new(false),
            }
        };
    }
    if A::D::ZERO.to_i64().is_some() {
        let cells = (0..n)
            .into_par_iter()
            .map(|_| AtomicU64::new(u64::MAX))
            .collect();
        let run = new_run!(Packed {
            cells,
            too_big: AtomicBool::new(false),
            zero: AtomicBool::new(false),
        });
        run.cells.cells[source as usize].store(source as u64, Relaxed);
        run.buckets(source);
        if !run.cells.too_big.load(Relaxed) {
            let (dist, mut parent): (Vec<A::D>, Vec<VertexId>) = (0..n as VertexId)
                .into_par_iter()
                .map(|v| {
                    let c = run.cells.cells[v as usize].load(Relaxed);
                    let p = if c >> 32 == PACKED_INF {
                        NO_VERTEX
                    } else {
                        c as u32
                    };
                    (Cells::<A::D>::dist(&run.cells, v), p)
                })
                .unzip();
            run.finish(&dist)?;
            parent[source as usize] = source;
            if run.cells.zero.load(Relaxed) {
                parent = parents::derive(csr, w, symmetric, &dist, source)?;
            }
            return Ok((dist, parent));
        }
    }
    let inf = A::D::INFINITY.to_key();
    let keys: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(inf))
        .collect();
    keys[source as usize].store(A::D::ZERO.to_key(), Relaxed);
    let run = new_run!(Wide { keys });
    run.buckets(source);
    let dist: Vec<A::D> = (0..n as VertexId)
        .into_par_iter()
        .map(|v| Cells::<A::D>::dist(&run.cells, v))
        .collect();
    run.finish(&dist)?;
    let parent = parents::derive(csr, w, symmetric, &dist, source)?;
    Ok((dist, parent))
}
