//! CPU implementations of single-source shortest paths, one module per variant, and the
//! small pieces they share.
//!
//! | variant | module | weights | parallel |
//! |---|---|---|---|
//! | [`dijkstra`] | `dijkstra` | non-negative | no (the Boost-style baseline) |
//! | [`bellman_ford`] | `bellman_ford` | any | rounds over the frontier (rayon) |
//! | [`bellman_ford_queue`] | `bellman_ford_queue` | any | no (SLF + LLL deque) |
//! | [`delta_stepping`] | `delta_stepping` | non-negative | buckets, per-thread bins (scoped threads) |
//!
//! [`bellman_ford_potentials`] (Johnson's reweighting) lives beside Bellman-Ford.
//!
//! Every variant takes a CSR and a weight slice of one of the four weight types; the
//! dispatcher [`crate::sssp::sssp`] also runs them on unweighted graphs (weight 1 on every
//! arc) through the crate-internal `ArcWeights` abstraction.
//!
//! # Preconditions
//! The CSR must satisfy [`Csr::validate`] (every [`crate::Graph`]'s does). The entry points
//! check the cheap part (array lengths, the source in range) and return
//! [`Error::InvalidArgument`]; a CSR assembled with [`Csr::from_raw`] and never validated
//! may have rows out of bounds, which panics rather than misbehaving.

mod bellman_ford;
mod bellman_ford_queue;
mod delta_stepping;
mod dijkstra;
mod parents;
mod spmv;

pub use bellman_ford::{bellman_ford, bellman_ford_potentials};
pub use bellman_ford_queue::bellman_ford_queue;
pub use delta_stepping::delta_stepping;
pub use dijkstra::dijkstra;

pub(crate) use bellman_ford::{bellman_ford_with, potentials_with};
pub(crate) use bellman_ford_queue::bellman_ford_queue_with;
pub(crate) use delta_stepping::delta_stepping_with;
pub(crate) use delta_stepping::resolve_delta;
pub(crate) use dijkstra::{dijkstra_until, dijkstra_with, Targets};
pub(crate) use spmv::{ell, ell_plan, spmv_with};

use std::any::Any;
use std::ops::Range;

use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, VertexId, Weight};

/// Per-arc weights as path-length increments: a typed slice, or 1 on every arc ([`Unit`]).
///
/// Indexed by arc number (the position in the CSR's target array).
pub(crate) trait ArcWeights: Sync {
    /// The distance type.
    type D: Distance;
    /// The weights of the arcs in `r`, in order. `r` must lie within the arcs.
    fn row(&self, r: Range<usize>) -> impl Iterator<Item = Self::D> + '_;
    /// The weight of arc `i`, `None` when out of range.
    fn get(&self, i: usize) -> Option<Self::D>;
    /// Number of weights (`None` for [`Unit`], which has one for every arc).
    fn len(&self) -> Option<usize>;
    /// Whether every weight is known to be positive without looking (unit weights).
    fn all_positive(&self) -> bool {
        false
    }
    /// Hints the processor to fetch weight `i` (which may be out of range: then nothing).
    #[inline(always)]
    fn prefetch(&self, _i: usize) {}
}

impl<W: Weight> ArcWeights for [W] {
    type D = W::Dist;
    #[inline]
    fn row(&self, r: Range<usize>) -> impl Iterator<Item = W::Dist> + '_ {
        self[r].iter().map(|w| w.to_dist())
    }
    #[inline]
    fn get(&self, i: usize) -> Option<W::Dist> {
        <[W]>::get(self, i).map(|w| w.to_dist())
    }
    fn len(&self) -> Option<usize> {
        Some(<[W]>::len(self))
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        prefetch(self.as_ptr().wrapping_add(i));
    }
}

/// Weight 1 on every arc: how an unweighted graph is measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unit;

impl ArcWeights for Unit {
    type D = i64;
    #[inline]
    fn row(&self, r: Range<usize>) -> impl Iterator<Item = i64> + '_ {
        std::iter::repeat_n(1i64, r.len())
    }
    #[inline]
    fn get(&self, _i: usize) -> Option<i64> {
        Some(1)
    }
    fn len(&self) -> Option<usize> {
        None
    }
    fn all_positive(&self) -> bool {
        true
    }
}

/// Hints the processor to bring the cache line holding `p` closer (x86-64 only; elsewhere
/// nothing). `p` may point anywhere: it is never dereferenced.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads no memory architecturally and never
    // faults, whatever the address; SSE, which it needs, is part of every x86-64 processor.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Runs `f` on a thread of rayon's pool, so that the parallel loops inside it start by
/// work-stealing instead of a cross-thread hand-off from outside the pool each time.
pub(crate) fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}

/// The sign bit of a 64-bit key.
const SIGN: u64 = 1 << 63;

/// Order-preserving 64-bit keys for distances, so that atomic `u64` compare-and-swap and
/// `fetch_min` work on them: `a < b` exactly when `a.to_key() < b.to_key()`.
///
/// `i64`: flip the sign bit. `f64` (never NaN here): flip the sign bit of non-negative
/// values and every bit of negative ones (the classic radix-sort trick). Implemented for
/// every [`Distance`] so that the public, generic-over-[`Weight`] entry points need no extra
/// bounds; the distance types of the four weight types are `i64` and `f64`, and those are
/// the only ones supported ([`supported`] says so up front).
pub(crate) trait DistKey: Distance {
    /// The key.
    fn to_key(self) -> u64;
    /// The distance back from its key.
    fn from_key(k: u64) -> Self;
    /// `x` as a distance: rounded down to an integer (saturating) for `i64`.
    fn from_f64(x: f64) -> Self;
    /// The value when the distance type is `i64`.
    fn to_i64(self) -> Option<i64>;
    /// `x` as a distance (exact for `i64`).
    fn from_i64(x: i64) -> Self;
    /// The delta-stepping bucket of a non-negative distance, given `inv = 1 / delta`:
    /// `floor(self * inv)` for `f64`; for `i64` (and an integer delta)
    /// `floor((self + 0.5) * inv)`, which is `floor(self / delta)` without a division (the
    /// half keeps exact multiples of delta off a rounding edge: exact while the quotient is
    /// far below 2^52 * 0.5 / delta). Monotone either way, which is all correctness needs.
    fn bucket(self, inv: f64) -> u64;
}

impl<D: Distance> DistKey for D {
    #[inline(always)]
    fn to_key(self) -> u64 {
        let a: &dyn Any = &self;
        if let Some(&x) = a.downcast_ref::<i64>() {
            (x as u64) ^ SIGN
        } else if let Some(&x) = a.downcast_ref::<f64>() {
            let b = x.to_bits();
            b ^ ((((b as i64) >> 63) as u64) | SIGN)
        } else {
            0
        }
    }

    #[inline(always)]
    fn from_key(k: u64) -> Self {
        let i = (k ^ SIGN) as i64;
        if let Some(&d) = (&i as &dyn Any).downcast_ref::<D>() {
            return d;
        }
        let f = f64::from_bits(k ^ ((((!k) as i64 >> 63) as u64) | SIGN));
        (&f as &dyn Any)
            .downcast_ref::<D>()
            .copied()
            .unwrap_or(D::INFINITY)
    }

    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        let i = x as i64;
        if let Some(&d) = (&i as &dyn Any).downcast_ref::<D>() {
            return d;
        }
        (&x as &dyn Any)
            .downcast_ref::<D>()
            .copied()
            .unwrap_or(D::INFINITY)
    }

    #[inline(always)]
    fn to_i64(self) -> Option<i64> {
        (&self as &dyn Any).downcast_ref::<i64>().copied()
    }

    #[inline(always)]
    fn from_i64(x: i64) -> Self {
        if let Some(&d) = (&x as &dyn Any).downcast_ref::<D>() {
            return d;
        }
        Self::from_f64(x as f64)
    }

    #[inline(always)]
    fn bucket(self, inv: f64) -> u64 {
        match (&self as &dyn Any).downcast_ref::<i64>() {
            Some(&x) => ((x as f64 + 0.5) * inv) as u64,
            None => (self.as_f64() * inv) as u64,
        }
    }
}

/// Refuses a distance type other than `i64` and `f64` (none exists among the weight types,
/// but [`Distance`] is an open trait).
pub(crate) fn supported<D: Distance>() -> Result<()> {
    let z: &dyn Any = &D::ZERO;
    if z.is::<i64>() || z.is::<f64>() {
        Ok(())
    } else {
        Err(Error::Unsupported(format!(
            "shortest paths over the distance type {}",
            std::any::type_name::<D>()
        )))
    }
}

/// The outcome of `d + w` during a relaxation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sum<D> {
    /// The sum.
    Val(D),
    /// Above the largest finite distance: never an improvement, but a vertex left
    /// unreached only through such sums has an unrepresentable distance
    /// ([`check_unrepresentable`]).
    Over,
    /// Below the smallest distance (negative weights): an error.
    Under,
}

/// `d + w`, classified; `d` is finite.
#[inline(always)]
pub(crate) fn add<D: Distance>(d: D, w: D) -> Sum<D> {
    match d.checked_add(w) {
        Some(x) => Sum::Val(x),
        None if w > D::ZERO => Sum::Over,
        None => Sum::Under,
    }
}

/// The error for a sum below the distance range.
pub(crate) fn underflow<D: Distance>(v: VertexId) -> Error {
    Error::Overflow(format!(
        "a path to vertex {v} is shorter than the smallest {} distance",
        std::any::type_name::<D>()
    ))
}

/// After a run in which some sum overflowed: fails when a vertex is reachable (an arc
/// leads to it from a reached vertex) yet was left unreached, because then its distance
/// exceeds the distance type.
pub(crate) fn check_unrepresentable<D: Distance>(csr: &Csr, dist: &[D]) -> Result<()> {
    use rayon::prelude::*;
    let t = csr.targets();
    let bad = (0..csr.num_vertices() as VertexId)
        .into_par_iter()
        .filter(|&u| dist[u as usize] != D::INFINITY)
        .find_map_first(|u| {
            t[csr.row(u)]
                .iter()
                .find(|&&v| dist[v as usize] == D::INFINITY)
                .copied()
        });
    match bad {
        None => Ok(()),
        Some(v) => Err(Error::Overflow(format!(
            "the distance to vertex {v} exceeds the largest {} distance",
            std::any::type_name::<D>()
        ))),
    }
}

/// The first arc (in CSR order) with a negative weight, as the error `algorithm` reports.
pub(crate) fn first_negative<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    algorithm: &str,
) -> Option<Error> {
    use rayon::prelude::*;
    let t = csr.targets();
    let (u, i) = (0..csr.num_vertices() as VertexId)
        .into_par_iter()
        .find_map_first(|u| {
            let r = csr.row(u);
            w.row(r.clone())
                .position(|x| x < A::D::ZERO)
                .map(|k| (u, r.start + k))
        })?;
    let v = *t.get(i)?;
    let x = w.get(i)?;
    Some(negative_weight(algorithm, u, v, x))
}

/// [`Error::NegativeWeight`] for arc `u -> v` of weight `x`.
pub(crate) fn negative_weight<D: Distance>(
    algorithm: &str,
    u: VertexId,
    v: VertexId,
    x: D,
) -> Error {
    Error::NegativeWeight {
        algorithm: algorithm.into(),
        from: u,
        to: v,
        weight: x.to_string(),
    }
}

/// Checks what can be checked in O(1): `w` has one weight per arc, the offsets array has
/// `n + 1` entries ending at the arc count, and `source` (when given) is a vertex.
pub(crate) fn check_inputs(
    csr: &Csr,
    weights: Option<usize>,
    source: Option<VertexId>,
) -> Result<()> {
    let m = csr.targets().len();
    let off = csr.offsets();
    if off.is_empty() || off.last().copied() != Some(m as u64) {
        return Err(Error::InvalidArgument(format!(
            "the CSR is malformed: its offsets end at {:?} but it has {m} arcs",
            off.last()
        )));
    }
    if let Some(k) = weights {
        if k != m {
            return Err(Error::InvalidArgument(format!(
                "{k} weights were given for {m} arcs"
            )));
        }
    }
    if let Some(s) = source {
        let n = csr.num_vertices();
        if s as usize >= n {
            return Err(Error::InvalidArgument(format!(
                "source vertex {s} is not in the graph ({n} vertices; internal ids run from 0 \
                 to {})",
                n as i64 - 1
            )));
        }
    }
    Ok(())
}

/// The lightest arc `u -> v`, if any (rows are sorted by target, parallel arcs adjacent).
pub(crate) fn lightest_arc<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    u: VertexId,
    v: VertexId,
) -> Option<A::D> {
    let r = csr.row(u);
    let t = &csr.targets()[r.clone()];
    let first = t.partition_point(|&x| x < v);
    let count = t[first..].iter().take_while(|&&x| x == v).count();
    let start = r.start + first;
    w.row(start..start + count)
        .fold(None, |acc: Option<A::D>, x| match acc {
            Some(a) if a <= x => Some(a),
            _ => Some(x),
        })
}

/// Builds [`Error::NegativeCycle`] from a cycle given in parent order (`c[i+1]` is the
/// parent of `c[i]`, and `c[0]`'s parent is the last), or `None` when its weight (lightest
/// arcs) is not negative.
pub(crate) fn negative_cycle<A: ArcWeights + ?Sized>(
    csr: &Csr,
    w: &A,
    mut c: Vec<VertexId>,
) -> Option<Error> {
    c.reverse();
    let k = c.len();
    if k == 0 {
        return None;
    }
    // Start at the smallest vertex, so the answer does not depend on where the walk began.
    let lo = c
        .iter()
        .enumerate()
        .min_by_key(|&(_, &v)| v)
        .map(|(i, _)| i)?;
    c.rotate_left(lo);
    let mut total = A::D::ZERO;
    for i in 0..k {
        let (a, b) = (c[i], c[(i + 1) % k]);
        let x = lightest_arc(csr, w, a, b)?;
        total = total.checked_add(x)?;
    }
    (total < A::D::ZERO).then(|| Error::NegativeCycle {
        cycle: c,
        weight: total.to_string(),
    })
}

/// Looks for a cycle in a parent array (`NO_VERTEX` = no parent) in O(n): returns one in
/// parent order (each entry's parent is the next, the last's is the first).
pub(crate) fn parent_cycle(parent: &[VertexId]) -> Option<Vec<VertexId>> {
    let n = parent.len();
    // 0: not seen; 1: on the current walk; 2: finished.
    let mut state = vec![0u8; n];
    let mut walk = Vec::new();
    for s in 0..n {
        if state[s] != 0 {
            continue;
        }
        walk.clear();
        let mut x = s;
        let found = loop {
            match state.get(x) {
                Some(0) => {
                    state[x] = 1;
                    walk.push(x as VertexId);
                    x = parent[x] as usize;
                }
                Some(1) => break Some(x),
                _ => break None,
            }
        };
        if let Some(x) = found {
            let at = walk.iter().position(|&y| y as usize == x)?;
            return Some(walk[at..].to_vec());
        }
        for &y in &walk {
            state[y as usize] = 2;
        }
    }
    None
}
