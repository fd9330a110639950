//! The parallel CSR builder: from an edge list to a [`Graph`].
//!
//! Method: count arcs per vertex with atomic increments, place rows by a prefix sum,
//! scatter `(target, edge index)` pairs with atomic cursors, then sort each row by
//! `(target, edge index)` in parallel. The sort makes the result independent of thread
//! scheduling and keeps parallel arcs in input order, which is what the duplicate rules
//! below rely on. Finally duplicates are collapsed per row and the arrays gathered.
//!
//! Memory: about `arcs * (16 + 4 + weight size) + n * 24` bytes at the peak, checked
//! before anything is allocated.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{Buf, Csr, Graph, VertexIds, Weight, WeightType, Weights, MAX_VERTICES};
use crate::error::{Error, Result};
use crate::par::{exclusive_scan, SharedMut};
use crate::with_weights;

/// What to do with self loops (arcs `v -> v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelfLoops {
    /// Keep them (an undirected self loop is stored once).
    #[default]
    Keep,
    /// Remove them.
    Drop,
}

/// What to do with parallel edges (several edges between the same ordered pair; for an
/// undirected graph `{u, v}` and `{v, u}` are the same pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Keep every one, in input order.
    #[default]
    Keep,
    /// Keep the first in input order, drop the rest.
    Drop,
    /// Keep the lightest (on equal weights, the first in input order). For an unweighted
    /// graph this is the same as [`Duplicates::Drop`].
    KeepLightest,
}

/// Options for [`EdgeList::build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// Directed (arcs as given) or undirected (each edge stored in both directions).
    pub directed: bool,
    /// Self-loop policy.
    pub self_loops: SelfLoops,
    /// Parallel-edge policy.
    pub duplicates: Duplicates,
}

impl Default for BuildOptions {
    /// Directed, keep everything: the graph exactly as the input lists it.
    fn default() -> Self {
        BuildOptions {
            directed: true,
            self_loops: SelfLoops::Keep,
            duplicates: Duplicates::Keep,
        }
    }
}

/// A list of edges `src[i] -> dst[i]` with optional weights, ready to build a [`Graph`].
///
/// # Example
/// ```
/// use warpgraph::{BuildOptions, Duplicates, EdgeList, Weights};
/// let edges = EdgeList::new(3, vec![0, 0, 1, 0], vec![1, 1, 2, 2],
///     Weights::I32(vec![5, 3, 1, 9].into())).unwrap();
/// let opts = BuildOptions { duplicates: Duplicates::KeepLightest, ..Default::default() };
/// let g = edges.build(&opts).unwrap();
/// assert_eq!(g.neighbors(0), &[1, 2]);
/// assert_eq!(g.out().weights().as_slice::<i32>().unwrap(), &[3, 9, 1]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EdgeList {
    /// Number of vertices; every id in `src` and `dst` must be below it.
    pub num_vertices: u64,
    /// Edge sources.
    pub src: Vec<u32>,
    /// Edge targets.
    pub dst: Vec<u32>,
    /// One weight per edge, or [`Weights::None`].
    pub weights: Weights,
    /// The file ids of the vertices (kept on the built graph).
    pub ids: VertexIds,
}

impl EdgeList {
    /// An edge list over `num_vertices` vertices with 0-based ids.
    ///
    /// # Errors
    /// When the arrays differ in length or there are too many vertices.
    pub fn new(num_vertices: u64, src: Vec<u32>, dst: Vec<u32>, weights: Weights) -> Result<Self> {
        let e = EdgeList {
            num_vertices,
            src,
            dst,
            weights,
            ids: VertexIds::default(),
        };
        e.check_shape()?;
        Ok(e)
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    fn check_shape(&self) -> Result<()> {
        if self.num_vertices > MAX_VERTICES {
            return Err(Error::TooLarge {
                what: "the number of vertices".into(),
                value: self.num_vertices,
                limit: MAX_VERTICES,
            });
        }
        let w = self.weights.len();
        if self.src.len() != self.dst.len()
            || (self.weights.weight_type() != WeightType::None && w != self.src.len())
        {
            return Err(Error::InvalidArgument(format!(
                "edge list arrays differ in length: {} sources, {} targets, {w} weights",
                self.src.len(),
                self.dst.len()
            )));
        }
        Ok(())
    }

    /// Checks ids and weights; errors name the first bad edge.
    fn validate(&self) -> Result<()> {
        self.check_shape()?;
        let n = self.num_vertices;
        let bad = self
            .src
            .par_iter()
            .zip(self.dst.par_iter())
            .position_first(|(&s, &d)| s as u64 >= n || d as u64 >= n);
        if let Some(i) = bad {
            let vertex = if self.src[i] as u64 >= n {
                self.src[i]
            } else {
                self.dst[i]
            };
            return Err(Error::VertexOutOfRange {
                edge: i as u64,
                vertex: vertex as u64,
                num_vertices: n,
            });
        }
        let bad = with_weights!(&self.weights,
            w => w.par_iter().position_first(|x| !x.is_finite_weight()).map(|i| (i, w[i].to_string())),
            none => None);
        if let Some((i, value)) = bad {
            return Err(Error::NonFiniteWeight {
                edge: i as u64,
                value,
            });
        }
        Ok(())
    }

    /// Builds the CSR graph. See the [module docs](self) for the method.
    ///
    /// # Errors
    /// A vertex id out of range, a non-finite weight, mismatched array lengths, or not
    /// enough memory (checked before allocating).
    pub fn build(&self, opts: &BuildOptions) -> Result<Graph> {
        self.validate()?;
        let n = self.num_vertices as usize;
        let arcs_upper = if opts.directed {
            self.len() as u64
        } else {
            2 * self.len() as u64
        };
        let wsize = self.weights.weight_type().size() as u64;
        crate::memory::check(
            || format!("building a CSR of {arcs_upper} arcs and {n} vertices"),
            arcs_upper.saturating_mul(16 + 4 + wsize) + (n as u64 + 1) * 24,
        )?;
        let edges = Edges {
            n,
            src: &self.src,
            dst: &self.dst,
            undirected: !opts.directed,
            drop_loops: opts.self_loops == SelfLoops::Drop,
        };
        let out = with_weights!(&self.weights,
            w => assemble(&edges, Some(&w[..]), opts.duplicates),
            none => assemble::<i32>(&edges, None, opts.duplicates));
        Ok(Graph::from_parts_unchecked(
            opts.directed,
            out,
            self.ids.clone(),
        ))
    }
}

/// Where `assemble` reads edges from.
struct Edges<'a> {
    n: usize,
    src: &'a [u32],
    dst: &'a [u32],
    undirected: bool,
    drop_loops: bool,
}

/// The transpose of a CSR: arc `u -> v` becomes `v -> u`, weights kept, rows sorted.
pub(super) fn transpose(csr: &Csr) -> Csr {
    let n = csr.num_vertices();
    let off = csr.offsets();
    let mut rows = vec![0u32; csr.targets().len()];
    let rows_ptr = SharedMut::new(&mut rows);
    (0..n).into_par_iter().with_min_len(256).for_each(|v| {
        let (a, b) = (off[v] as usize, off[v + 1] as usize);
        // SAFETY: rows a..b belong to v alone; `rows` outlives the loop.
        unsafe { rows_ptr.slice(a, b - a) }.fill(v as u32);
    });
    let edges = Edges {
        n,
        src: csr.targets(),
        dst: &rows,
        undirected: false,
        drop_loops: false,
    };
    with_weights!(csr.weights(),
        w => assemble(&edges, Some(&w[..]), Duplicates::Keep),
        none => assemble::<i32>(&edges, None, Duplicates::Keep))
}

/// Counting sort by source, then a per-row sort by `(target, edge index)`, then duplicate
/// collapsing and gathering. Returns the finished CSR.
fn assemble<W: Weight>(e: &Edges<'_>, w: Option<&[W]>, dups: Duplicates) -> Csr
where
    Weights: From<Vec<W>>,
{
    let n = e.n;
    let keep = |i: usize| !(e.drop_loops && e.src[i] == e.dst[i]);
    let mirrored = |i: usize| e.undirected && e.src[i] != e.dst[i];

    // 1. Arcs per vertex.
    let degree: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    (0..e.src.len())
        .into_par_iter()
        .with_min_len(4096)
        .for_each(|i| {
            if keep(i) {
                degree[e.src[i] as usize].fetch_add(1, Ordering::Relaxed);
                if mirrored(i) {
                    degree[e.dst[i] as usize].fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    let degree: Vec<u64> = degree.into_iter().map(AtomicU64::into_inner).collect();
    let offsets = exclusive_scan(&degree);
    drop(degree);
    let arcs = offsets[n] as usize;

    // 2. Scatter (target, edge index) pairs.
    let cursor: Vec<AtomicU64> = offsets[..n].iter().map(|&o| AtomicU64::new(o)).collect();
    let mut pairs: Vec<(u32, u64)> = vec![(0, 0); arcs];
    let pairs_ptr = SharedMut::new(&mut pairs);
    (0..e.src.len())
        .into_par_iter()
        .with_min_len(4096)
        .for_each(|i| {
            if !keep(i) {
                return;
            }
            let (s, d) = (e.src[i], e.dst[i]);
            let p = cursor[s as usize].fetch_add(1, Ordering::Relaxed) as usize;
            // SAFETY: fetch_add hands each slot out once; slots lie below `arcs`.
            unsafe { pairs_ptr.write(p, (d, i as u64)) };
            if mirrored(i) {
                let p = cursor[d as usize].fetch_add(1, Ordering::Relaxed) as usize;
                // SAFETY: as above.
                unsafe { pairs_ptr.write(p, (s, i as u64)) };
            }
        });
    drop(cursor);

    // 3. Sort each row and collapse duplicates in place; record the kept length.
    let kept: Vec<u64> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|v| {
            let (a, b) = (offsets[v] as usize, offsets[v + 1] as usize);
            // SAFETY: row v's slots a..b are touched by this iteration only.
            let row = unsafe { pairs_ptr.slice(a, b - a) };
            if row.windows(2).any(|p| p[0] > p[1]) {
                row.sort_unstable();
            }
            collapse(row, w, dups) as u64
        })
        .collect();
    let final_offsets = if dups == Duplicates::Keep {
        offsets.clone()
    } else {
        exclusive_scan(&kept)
    };
    let final_arcs = final_offsets[n] as usize;

    // 4. Gather targets and weights into their final places.
    let mut targets = vec![0u32; final_arcs];
    let mut weights: Vec<W> = Vec::new();
    let t_ptr = SharedMut::new(&mut targets);
    if let Some(w) = w {
        weights = vec![w.first().copied().unwrap_or_else(|| unreachable_weight()); final_arcs];
    }
    let w_ptr = SharedMut::new(&mut weights);
    (0..n).into_par_iter().with_min_len(256).for_each(|v| {
        let from = offsets[v] as usize;
        let to = final_offsets[v] as usize;
        let len = final_offsets[v + 1] as usize - to;
        for k in 0..len {
            let (t, i) = pairs[from + k];
            // SAFETY: final rows are disjoint; to + k < final_arcs.
            unsafe {
                t_ptr.write(to + k, t);
                if let Some(w) = w {
                    w_ptr.write(to + k, w[i as usize]);
                }
            }
        }
    });
    let weights = if w.is_some() {
        Weights::from(weights)
    } else {
        Weights::None
    };
    Csr::from_raw(final_offsets.into(), targets.into(), weights)
}

/// Only reached when weights exist but there are no edges, where no value is ever read.
fn unreachable_weight<W: Weight>() -> W {
    // SAFETY: W is Pod (plain numbers): the all-zero pattern is a valid value.
    unsafe { std::mem::zeroed() }
}

/// Collapses runs of equal targets in a sorted row per `dups`; returns the kept length.
fn collapse<W: Weight>(row: &mut [(u32, u64)], w: Option<&[W]>, dups: Duplicates) -> usize {
    if dups == Duplicates::Keep || row.len() < 2 {
        return row.len();
    }
    let lightest = dups == Duplicates::KeepLightest && w.is_some();
    let mut out = 0;
    let mut i = 0;
    while i < row.len() {
        let mut best = row[i];
        let mut j = i + 1;
        while j < row.len() && row[j].0 == best.0 {
            if let (true, Some(w)) = (lightest, w) {
                // Strictly lighter wins; on ties the earlier edge (smaller index) stays.
                if w[row[j].1 as usize] < w[best.1 as usize] {
                    best = row[j];
                }
            }
            j += 1;
        }
        row[out] = best;
        out += 1;
        i = j;
    }
    out
}

macro_rules! weights_from_vec {
    ($($t:ty => $v:ident),*) => {$(
        impl From<Vec<$t>> for Weights {
            fn from(v: Vec<$t>) -> Self { Weights::$v(Buf::from(v)) }
        }
    )*};
}
weights_from_vec!(i32 => I32, i64 => I64, f32 => F32, f64 => F64);

#[cfg(test)]
mod tests {
    use super::*;

    fn el(n: u64, e: &[(u32, u32)], w: Option<Vec<i32>>) -> EdgeList {
        EdgeList::new(
            n,
            e.iter().map(|x| x.0).collect(),
            e.iter().map(|x| x.1).collect(),
            w.map_or(Weights::None, |w| Weights::I32(w.into())),
        )
        .unwrap()
    }

    #[test]
    fn directed_rows_sorted() {
        let g = el(4, &[(0, 3), (0, 1), (2, 0), (0, 2)], None)
            .build(&BuildOptions::default())
            .unwrap();
        assert_eq!(g.out().offsets(), &[0, 3, 3, 4, 4]);
        assert_eq!(g.neighbors(0), &[1, 2, 3]);
        assert_eq!(g.incoming().neighbors(0), &[2]);
        assert_eq!(g.incoming().neighbors(3), &[0]);
    }

    #[test]
    fn undirected_loops_stored_once() {
        let opts = BuildOptions {
            directed: false,
            ..Default::default()
        };
        let g = el(3, &[(0, 1), (2, 2)], None).build(&opts).unwrap();
        assert_eq!(g.num_arcs(), 3);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.neighbors(2), &[2]);
        let opts = BuildOptions {
            self_loops: SelfLoops::Drop,
            ..opts
        };
        let g = el(3, &[(0, 1), (2, 2)], None).build(&opts).unwrap();
        assert_eq!(g.num_edges(), 1);
    }

    #[test]
    fn duplicate_policies() {
        let e = el(2, &[(0, 1), (0, 1), (0, 1)], Some(vec![7, 3, 3]));
        let w = |d| {
            let g = e
                .build(&BuildOptions {
                    duplicates: d,
                    ..Default::default()
                })
                .unwrap();
            g.out().weights().as_slice::<i32>().unwrap().to_vec()
        };
        assert_eq!(w(Duplicates::Keep), vec![7, 3, 3]);
        assert_eq!(w(Duplicates::Drop), vec![7]);
        assert_eq!(w(Duplicates::KeepLightest), vec![3]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let e = el(2, &[(0, 1), (0, 2)], None);
        assert!(matches!(
            e.build(&BuildOptions::default()),
            Err(Error::VertexOutOfRange {
                edge: 1,
                vertex: 2,
                ..
            })
        ));
        let e = EdgeList::new(2, vec![0], vec![1], Weights::F64(vec![f64::NAN].into())).unwrap();
        assert!(matches!(
            e.build(&BuildOptions::default()),
            Err(Error::NonFiniteWeight { edge: 0, .. })
        ));
        assert!(EdgeList::new(2, vec![0], vec![], Weights::None).is_err());
    }
}
