//! One source's shortest paths with their counts: the first stage of Brandes' algorithm.
//!
//! # What it computes
//! From a source `s`: the distance `d(v)` of every vertex, the fewest arcs `h(v)` on a
//! shortest path to it, the order in which vertices are settled (by `(d, h)`), and
//! `sigma(v)`, the number of shortest paths from `s` to `v` as an `f64`. The arcs that
//! lie on shortest paths (the "DAG arcs") are the arcs `u -> v` with
//! `d(u) + w = d(v)` and `(d(u), h(u)) < (d(v), h(v))`: the second condition only matters
//! for arcs of weight zero (see the [module docs](super)).
//!
//! # Method
//! U. Brandes, "A faster algorithm for betweenness centrality" (2001): breadth-first
//! search for unit weights (`h = d`), Dijkstra's algorithm on the pairs `(d, h)` in
//! lexicographic order otherwise (a binary heap with lazy deletion). The counts are then
//! summed in settling order over the DAG arcs, whose tails all settle before their
//! heads. The state is kept between sources and reset only where the last one reached.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, VertexId};
use crate::sssp::cpu::{ArcWeights, DistKey};

/// Unreached, in `hops`.
const NO_HOPS: u32 = u32::MAX;

/// One worker's single-source state, reused from source to source.
pub(crate) struct Search<D> {
    /// Distance of every vertex (`D::INFINITY`: unreached).
    pub dist: Vec<D>,
    /// Fewest arcs on a shortest path (weighted searches only).
    hops: Vec<u32>,
    /// Shortest-path counts (when asked).
    pub sigma: Vec<f64>,
    /// Vertices in settling order, the source first.
    pub order: Vec<VertexId>,
    /// Dijkstra's heap of `(distance key, hops, vertex)` packed into one `u128` (so one
    /// integer comparison orders entries).
    heap: BinaryHeap<Reverse<u128>>,
    /// Whether every arc weighs 1 (breadth-first search).
    unit: bool,
}

impl<D: Distance> Search<D> {
    /// State for a graph of `n` vertices; `unit` when every arc weighs 1.
    pub fn new(n: usize, unit: bool) -> Self {
        Search {
            dist: vec![D::INFINITY; n],
            hops: if unit { Vec::new() } else { vec![NO_HOPS; n] },
            sigma: vec![0.0; n],
            order: Vec::with_capacity(n),
            heap: BinaryHeap::new(),
            unit,
        }
    }

    /// Bytes of the state for `n` vertices and `m` arcs (the heap at its worst).
    pub fn bytes(n: usize, m: u64, unit: bool) -> u64 {
        let per_vertex = std::mem::size_of::<D>() as u64 + 8 + 4 + if unit { 0 } else { 4 };
        let heap = if unit { 0 } else { 16 * (m + 1) };
        per_vertex * n as u64 + heap
    }

    /// Forgets the last source.
    fn reset(&mut self) {
        for &v in &self.order {
            let v = v as usize;
            self.dist[v] = D::INFINITY;
            self.sigma[v] = 0.0;
            if !self.unit {
                self.hops[v] = NO_HOPS;
            }
        }
        self.order.clear();
    }

    /// Searches from `s` over `csr` with weights `w`; with `counts`, also counts paths.
    ///
    /// # Errors
    /// [`Error::Overflow`] when a distance does not fit in `D`.
    pub fn run<A>(&mut self, csr: &Csr, w: &A, s: VertexId, counts: bool) -> Result<()>
    where
        A: ArcWeights<D = D> + ?Sized,
    {
        self.reset();
        if self.unit {
            self.bfs(csr, s, counts);
            return Ok(());
        }
        self.dijkstra(csr, w, s)?;
        if counts {
            self.count(csr, w);
        }
        Ok(())
    }

    /// Breadth-first search from `s`, counting paths as it goes.
    fn bfs(&mut self, csr: &Csr, s: VertexId, counts: bool) {
        self.dist[s as usize] = D::ZERO;
        self.sigma[s as usize] = 1.0;
        self.order.push(s);
        let one = unit::<D>();
        let mut head = 0;
        while head < self.order.len() {
            let v = self.order[head];
            head += 1;
            let next = add(self.dist[v as usize], one).unwrap_or(D::INFINITY);
            let sv = self.sigma[v as usize];
            for &x in csr.neighbors(v) {
                let x = x as usize;
                if self.dist[x] == D::INFINITY {
                    self.dist[x] = next;
                    self.order.push(x as VertexId);
                }
                if counts && self.dist[x] == next {
                    self.sigma[x] += sv;
                }
            }
        }
    }

    /// Dijkstra's algorithm on `(distance, hops)` from `s`.
    fn dijkstra<A>(&mut self, csr: &Csr, w: &A, s: VertexId) -> Result<()>
    where
        A: ArcWeights<D = D> + ?Sized,
    {
        self.dist[s as usize] = D::ZERO;
        self.hops[s as usize] = 0;
        self.heap.push(Reverse(entry(D::ZERO.to_key(), 0, s)));
        let t = csr.targets();
        while let Some(Reverse(e)) = self.heap.pop() {
            let (key, h, v) = ((e >> 64) as u64, (e >> 32) as u32, e as u32);
            let vi = v as usize;
            if key != self.dist[vi].to_key() || h != self.hops[vi] {
                continue; // stale: v was improved after this entry
            }
            self.order.push(v);
            let r = csr.row(v);
            for (&x, c) in t[r.clone()].iter().zip(w.row(r)) {
                let nd = add(self.dist[vi], c).ok_or_else(|| overflow(v, x))?;
                let xi = x as usize;
                let better = nd < self.dist[xi] || (nd == self.dist[xi] && h + 1 < self.hops[xi]);
                if better {
                    self.dist[xi] = nd;
                    self.hops[xi] = h + 1;
                    self.heap.push(Reverse(entry(nd.to_key(), h + 1, x)));
                }
            }
        }
        Ok(())
    }

    /// Path counts over the DAG arcs, in settling order.
    fn count<A>(&mut self, csr: &Csr, w: &A)
    where
        A: ArcWeights<D = D> + ?Sized,
    {
        let t = csr.targets();
        self.sigma[self.order[0] as usize] = 1.0;
        for i in 0..self.order.len() {
            let v = self.order[i];
            let sv = self.sigma[v as usize];
            let r = csr.row(v);
            for (&x, c) in t[r.clone()].iter().zip(w.row(r)) {
                if self.on_dag(v, x, c) {
                    self.sigma[x as usize] += sv;
                }
            }
        }
    }

    /// Whether the arc `v -> x` of weight `c`, `v` reached, lies on shortest paths.
    #[inline]
    pub fn on_dag(&self, v: VertexId, x: VertexId, c: D) -> bool {
        let (v, x) = (v as usize, x as usize);
        let dv = self.dist[v];
        match add(dv, c) {
            Some(d) if d == self.dist[x] => self.unit || dv < d || self.hops[v] < self.hops[x],
            _ => false,
        }
    }
}

/// A heap entry: the distance key, then the hops, then the vertex.
#[inline]
fn entry(key: u64, hops: u32, v: VertexId) -> u128 {
    (key as u128) << 64 | (hops as u128) << 32 | v as u128
}

/// `a + b`, `None` on overflow.
#[inline]
fn add<D: Distance>(a: D, b: D) -> Option<D> {
    a.checked_add(b)
}

/// The distance 1.
fn unit<D: Distance>() -> D {
    D::from_i64(1)
}

fn overflow(v: VertexId, x: VertexId) -> Error {
    Error::Overflow(format!(
        "a shortest path through the arc {v} -> {x} is longer than the distance type holds"
    ))
}
