//! The graph core: compressed sparse row (CSR) storage.
//!
//! A [`Graph`] holds its outgoing arcs as a [`Csr`]: `offsets` (n + 1 `u64`s, so graphs with
//! more than 2^32 arcs work), `targets` (one `u32` vertex id per arc) and optional
//! [`Weights`]. Undirected graphs store every edge in both directions (a self loop once).
//! The incoming (reverse) CSR is built on first use and kept.
//!
//! Invariants, checked wherever a graph enters the library ([`Graph::from_parts`]):
//! `offsets[0] == 0`, offsets non-decreasing, `offsets[n] == targets.len()`, every target
//! `< n`, each row sorted by target (ties keep input order), weights finite and one per arc,
//! and an undirected graph's arcs symmetric.
//!
//! Vertices are numbered `0..n` inside the library. [`VertexIds`] maps them to the ids of
//! the file they came from, so that every output and every `--source` speaks the file's
//! own ids.

mod buf;
mod builder;
pub mod stats;
mod weights;

pub use buf::{Buf, Pod};

/// Graphs for the crate's unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::{BuildOptions, EdgeList, Graph, Weights};

    /// The unweighted graph of `n` vertices and the arcs (or edges) `edges`.
    pub(crate) fn graph(n: u64, edges: &[(u32, u32)], directed: bool) -> Graph {
        EdgeList::new(
            n,
            edges.iter().map(|e| e.0).collect(),
            edges.iter().map(|e| e.1).collect(),
            Weights::None,
        )
        .unwrap()
        .build(&BuildOptions {
            directed,
            ..Default::default()
        })
        .unwrap()
    }
}
pub(crate) use builder::named_enum;
pub use builder::{BuildOptions, Duplicates, EdgeList, SelfLoops};
pub use weights::{Distance, Weight, WeightType, Weights};

use std::ops::Range;
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::with_weights;

/// A vertex id inside the library: `0..num_vertices`.
pub type VertexId = u32;

/// Most vertices a graph may have. `u32::MAX` itself is kept free as a "none" sentinel.
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// "No vertex" (an unset parent, say).
pub const NO_VERTEX: VertexId = u32::MAX;

/// One direction of a graph's adjacency in compressed sparse row form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Csr {
    offsets: Buf<u64>,
    targets: Buf<u32>,
    weights: Weights,
}

impl Csr {
    /// Assembles a CSR from its arrays without checking them; see [`Csr::validate`].
    pub fn from_raw(offsets: Buf<u64>, targets: Buf<u32>, weights: Weights) -> Self {
        Csr {
            offsets,
            targets,
            weights,
        }
    }

    /// Number of rows (vertices).
    pub fn num_vertices(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of stored arcs.
    pub fn num_arcs(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Row offsets: the arcs of `v` are `offsets[v]..offsets[v + 1]`.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Arc targets.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Arc weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The index range of `v`'s arcs.
    #[inline]
    pub fn row(&self, v: VertexId) -> Range<usize> {
        let v = v as usize;
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// The targets of `v`'s arcs, sorted.
    #[inline]
    pub fn neighbors(&self, v: VertexId) -> &[u32] {
        &self.targets[self.row(v)]
    }

    /// The number of arcs leaving `v`.
    #[inline]
    pub fn degree(&self, v: VertexId) -> u64 {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The largest number of arcs leaving one vertex (0 without vertices).
    pub fn max_degree(&self) -> u64 {
        self.offsets
            .par_windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// An arc `u -> v` without a matching `v -> u` of equal weight, if any.
    ///
    /// Rows are sorted with parallel arcs in input order, so the k-th copy of target `v` in
    /// row `u` must meet the k-th copy of target `u` in row `v`. Binary searches, no
    /// allocation: O(m log d), in parallel.
    pub fn find_asymmetric(&self) -> Option<(VertexId, VertexId)> {
        let n = self.num_vertices() as u32;
        let w = &self.weights;
        (0..n).into_par_iter().find_map_any(|u| {
            let row = self.row(u);
            let targets = &self.targets[row.clone()];
            let mut k = 0;
            for (i, &v) in targets.iter().enumerate() {
                k = if i > 0 && targets[i - 1] == v {
                    k + 1
                } else {
                    0
                };
                let back = self.row(v);
                let tv = &self.targets[back.clone()];
                let first = tv.partition_point(|&x| x < u);
                let j = first + k;
                let (a, b) = (row.start + i, back.start + j);
                let matched = tv.get(j) == Some(&u)
                    && with_weights!(w, ws => ws.get(a) == ws.get(b), none => true);
                if !matched {
                    return Some((u, v));
                }
            }
            None
        })
    }

    /// The transpose: row `v` holds an arc `v -> u` for every arc `u -> v`, sources
    /// ascending, parallel arcs kept with their weights in row order; in parallel (a
    /// stable counting sort). Rows of `self` need not be sorted, but every target must be
    /// below the number of rows (it panics otherwise).
    pub fn transpose(&self) -> Csr {
        builder::transpose(self)
    }

    /// Checks the CSR invariants (see the module docs), in parallel.
    /// Returns a description of the first violation found.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let off = &self.offsets[..];
        if off.is_empty() {
            return Err("offsets array is empty (it needs n + 1 entries)".into());
        }
        let n = off.len() - 1;
        if n as u64 > MAX_VERTICES {
            return Err(format!("{n} vertices exceed the limit of {MAX_VERTICES}"));
        }
        let m = self.targets.len() as u64;
        if off[0] != 0 || off[n] != m {
            return Err(format!(
                "offsets run from {} to {} but there are {m} arcs",
                off[0], off[n]
            ));
        }
        if let Some(v) = (0..n).into_par_iter().find_any(|&v| off[v] > off[v + 1]) {
            return Err(format!("offsets decrease at vertex {v}"));
        }
        let t = &self.targets[..];
        if let Some(v) = (0..n).into_par_iter().find_any(|&v| {
            let row = &t[off[v] as usize..off[v + 1] as usize];
            row.iter().any(|&x| x as usize >= n) || row.windows(2).any(|p| p[0] > p[1])
        }) {
            return Err(format!(
                "the arcs of vertex {v} are out of range or not sorted by target"
            ));
        }
        let wt = self.weights.weight_type();
        if wt != WeightType::None && self.weights.len() as u64 != m {
            return Err(format!("{} weights for {m} arcs", self.weights.len()));
        }
        let bad = with_weights!(&self.weights,
            w => w.par_iter().position_any(|x| !x.is_finite_weight()), none => None);
        if let Some(i) = bad {
            return Err(format!("arc {i} has a non-finite weight"));
        }
        Ok(())
    }
}

/// How the library's vertex numbers `0..n` relate to a file's own vertex ids.
#[derive(Debug, Clone, PartialEq)]
pub enum VertexIds {
    /// File id = internal id + base (0 for 0-based formats, 1 for DIMACS, METIS, MTX).
    Base(u64),
    /// File id of each internal vertex, strictly increasing (so lookups are binary searches).
    Map(Buf<u64>),
}

impl Default for VertexIds {
    fn default() -> Self {
        VertexIds::Base(0)
    }
}

impl VertexIds {
    /// The file id of internal vertex `v`.
    #[inline]
    pub fn external(&self, v: VertexId) -> u64 {
        match self {
            VertexIds::Base(b) => v as u64 + b,
            VertexIds::Map(m) => m[v as usize],
        }
    }

    /// The internal vertex with file id `id`, if there is one among `n` vertices.
    pub fn internal(&self, id: u64, n: usize) -> Option<VertexId> {
        match self {
            VertexIds::Base(b) => id
                .checked_sub(*b)
                .filter(|&v| v < n as u64)
                .map(|v| v as VertexId),
            VertexIds::Map(m) => m.binary_search(&id).ok().map(|v| v as VertexId),
        }
    }

    /// Whether file ids are just `0..n`.
    pub fn is_identity(&self) -> bool {
        matches!(self, VertexIds::Base(0))
    }
}

/// A directed or undirected graph in CSR form; see the [module docs](self).
#[derive(Debug)]
pub struct Graph {
    directed: bool,
    out: Csr,
    incoming: OnceLock<Csr>,
    ids: VertexIds,
}

impl Clone for Graph {
    fn clone(&self) -> Self {
        Graph {
            directed: self.directed,
            out: self.out.clone(),
            incoming: self.incoming.clone(),
            ids: self.ids.clone(),
        }
    }
}

impl PartialEq for Graph {
    /// Same direction, same arcs in the same order, same weights, same vertex ids.
    fn eq(&self, other: &Self) -> bool {
        self.directed == other.directed && self.out == other.out && self.ids == other.ids
    }
}

impl Graph {
    /// Builds a graph from a CSR, checking every invariant (see the module docs).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first violated invariant.
    pub fn from_parts(directed: bool, out: Csr, ids: VertexIds) -> Result<Graph> {
        out.validate().map_err(Error::InvalidArgument)?;
        if let VertexIds::Map(m) = &ids {
            if m.len() != out.num_vertices() || m.windows(2).any(|p| p[0] >= p[1]) {
                return Err(Error::InvalidArgument(
                    "vertex id map must have one strictly increasing id per vertex".into(),
                ));
            }
        }
        let g = Graph::from_parts_unchecked(directed, out, ids);
        if !directed {
            g.check_symmetric().map_err(Error::InvalidArgument)?;
        }
        Ok(g)
    }

    /// Builds a graph from a CSR known to satisfy the invariants (the builder's output).
    pub(crate) fn from_parts_unchecked(directed: bool, out: Csr, ids: VertexIds) -> Graph {
        Graph {
            directed,
            out,
            incoming: OnceLock::new(),
            ids,
        }
    }

    /// A graph with `n` vertices and no arcs.
    pub fn empty(n: u32, directed: bool) -> Graph {
        let out = Csr::from_raw(
            vec![0; n as usize + 1].into(),
            Buf::default(),
            Weights::None,
        );
        Graph::from_parts_unchecked(directed, out, VertexIds::default())
    }

    /// Whether arcs have a direction.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// Number of stored arcs (an undirected edge counts twice, a self loop once).
    pub fn num_arcs(&self) -> u64 {
        self.out.num_arcs()
    }

    /// Number of edges: arcs for a directed graph; for an undirected one each edge once.
    pub fn num_edges(&self) -> u64 {
        if self.directed {
            self.num_arcs()
        } else {
            (self.num_arcs() + self.count_self_loops()) / 2
        }
    }

    /// Number of stored self-loop arcs.
    pub fn count_self_loops(&self) -> u64 {
        (0..self.num_vertices() as u32)
            .into_par_iter()
            .map(|v| self.out.neighbors(v).iter().filter(|&&x| x == v).count() as u64)
            .sum()
    }

    /// Outgoing arcs.
    pub fn out(&self) -> &Csr {
        &self.out
    }

    /// Incoming arcs (the transpose), built on first call. For an undirected graph this is
    /// the outgoing CSR itself.
    pub fn incoming(&self) -> &Csr {
        if !self.directed {
            return &self.out;
        }
        self.incoming.get_or_init(|| self.out.transpose())
    }

    /// Out-neighbours of `v`, sorted.
    pub fn neighbors(&self, v: VertexId) -> &[u32] {
        self.out.neighbors(v)
    }

    /// The weight type.
    pub fn weight_type(&self) -> WeightType {
        self.out.weights.weight_type()
    }

    /// How internal vertex numbers map to the file's ids.
    pub fn ids(&self) -> &VertexIds {
        &self.ids
    }

    /// Replaces the vertex-id mapping.
    pub fn with_ids(mut self, ids: VertexIds) -> Result<Graph> {
        if let VertexIds::Map(m) = &ids {
            if m.len() != self.num_vertices() {
                return Err(Error::InvalidArgument(format!(
                    "vertex id map has {} entries for {} vertices",
                    m.len(),
                    self.num_vertices()
                )));
            }
        }
        self.ids = ids;
        Ok(self)
    }

    /// The internal vertex for a file id, or a clear error when there is none.
    pub fn vertex(&self, file_id: u64) -> Result<VertexId> {
        self.ids
            .internal(file_id, self.num_vertices())
            .ok_or_else(|| {
                let range = match &self.ids {
                    VertexIds::Base(b) => format!(
                        "ids run from {b} to {}",
                        b.saturating_add(self.num_vertices() as u64)
                            .saturating_sub(1)
                    ),
                    VertexIds::Map(_) => "ids are those named in the input file".into(),
                };
                Error::InvalidArgument(format!(
                    "vertex {file_id} is not in the graph ({} vertices; {range})",
                    self.num_vertices()
                ))
            })
    }

    /// Consumes the graph, returning its outgoing CSR and vertex ids.
    pub fn into_parts(self) -> (bool, Csr, VertexIds) {
        (self.directed, self.out, self.ids)
    }

    /// Checks that every arc u->v of an undirected graph has a matching v->u of equal weight.
    fn check_symmetric(&self) -> std::result::Result<(), String> {
        match self.out.find_asymmetric() {
            None => Ok(()),
            Some((u, v)) => Err(format!(
                "an undirected graph must store each edge in both directions with one weight; \
                 the arc {u} -> {v} has no matching arc {v} -> {u}"
            )),
        }
    }
}
