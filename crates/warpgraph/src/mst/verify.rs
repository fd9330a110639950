//! The MST verifier: checks that a [`SpanningForest`] is *the* minimum spanning forest;
//! the rules are listed on [`verify`].

use rayon::prelude::*;

use super::order::{with_arc_weights, ArcWeights, EdgeWeight};
use super::SpanningForest;
use crate::error::{Error, Result};
use crate::graph::stats::Number;
use crate::graph::{Graph, VertexId, Weights};
use crate::memory;

/// Checks that `forest` is the minimum spanning forest of `g`.
///
/// Rules, checked in this order (the first violation is reported):
/// 1. **Shape**: the weight array has the graph's weight type and one weight per edge
///    ([`Weights::None`] for an unweighted graph); every edge is `(u, v)` with
///    `u < v < n`.
/// 2. **Edges exist**: each forest edge is an arc `u -> v` (or, for a directed graph,
///    `v -> u`) of the graph with exactly that weight.
/// 3. **Order**: the edges are strictly increasing in `(weight, u, v)` (floats by the IEEE
///    total order).
/// 4. **Acyclic**: adding the edges one by one to a union-find structure never joins a set
///    to itself.
/// 5. **Spanning**: `components` equals the graph's number of connected components
///    (isolated vertices included) and there are `n - components` edges; with 4, every
///    forest tree is exactly one component of the graph.
/// 6. **Total**: `total_weight` equals the sum of the listed weights (in list order).
/// 7. **Minimum, and the right one**: the total equals that of a reference Kruskal forest
///    computed here, independently of the algorithms under test (a sort of all edges, then
///    a plain serial union-find pass); and, since the documented total order makes the
///    minimum spanning forest unique, the edge lists are identical.
///
/// # Arguments
/// - `g`: the graph (directed graphs are read as undirected, as [`mst`](super::mst) does).
/// - `forest`: the result to check, from any algorithm or backend.
///
/// # Returns
/// `Ok(())` when every rule holds.
///
/// # Errors
/// [`Error::VerificationFailed`] naming the first violated rule and the edges involved
/// (internal ids); [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the reference
/// edge list does not fit.
///
/// # Complexity
/// O(m log m) for the reference sort (parallel), then O(m α(n)) serial union-find work;
/// 16 bytes per edge.
///
/// # Example
/// ```
/// use warpgraph::mst::{mst, verify, Algorithm};
/// use warpgraph::graph::stats::Number;
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // A triangle with weights 1, 2, 3.
/// let g = EdgeList::new(3, vec![0, 1, 0], vec![1, 2, 2], Weights::I32(vec![1, 2, 3].into()))
///     .unwrap().build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let mut forest = mst(&g, Algorithm::Boruvka).unwrap();
/// verify(&g, &forest).unwrap();
/// // Swap the edge of weight 2 for the heavier edge {0, 2}: still a spanning tree, not minimum.
/// forest.edges = vec![(0, 1), (0, 2)];
/// forest.weights = Weights::I32(vec![1, 3].into());
/// forest.total_weight = Number::Int(4);
/// assert!(verify(&g, &forest).is_err());
/// ```
pub fn verify(g: &Graph, forest: &SpanningForest) -> Result<()> {
    with_arc_weights!(g.out().weights(), w => check(g, w, forest))
}

fn fail<T>(msg: String) -> Result<T> {
    Err(Error::VerificationFailed(format!("MST: {msg}")))
}

fn check<A: ArcWeights>(g: &Graph, w: A, forest: &SpanningForest) -> Result<()> {
    let n = g.num_vertices();
    let edges = &forest.edges;

    // 1. Shape.
    if forest.weights.weight_type() != g.weight_type() {
        return fail(format!(
            "the forest's weights are of type {} but the graph's are {}",
            forest.weights.weight_type(),
            g.weight_type()
        ));
    }
    if !matches!(forest.weights, Weights::None) && forest.weights.len() != edges.len() {
        return fail(format!(
            "{} weights for {} edges",
            forest.weights.len(),
            edges.len()
        ));
    }
    let mut ws = Vec::with_capacity(edges.len());
    for (i, &(u, v)) in edges.iter().enumerate() {
        if u >= v || v as usize >= n {
            return fail(format!(
                "edge {i} is ({u}, {v}); edges must be (u, v) with u < v < {n}"
            ));
        }
        match A::W::nth(&forest.weights, i) {
            Some(x) => ws.push(x),
            None => return fail(format!("edge {i} has no weight")),
        }
    }

    // 2. Every edge is an arc of the graph with its weight.
    let out = g.out();
    let has_arc = |from: VertexId, to: VertexId, key: u64| {
        let row = out.row(from);
        let first = out.neighbors(from).partition_point(|&t| t < to);
        (row.start + first..row.end)
            .take_while(|&arc| out.targets()[arc] == to)
            .any(|arc| w.at(arc).key() == key)
    };
    let missing = edges.par_iter().zip(&ws).position_first(|(&(u, v), x)| {
        let key = x.key();
        !(has_arc(u, v, key) || (g.is_directed() && has_arc(v, u, key)))
    });
    if let Some(i) = missing {
        let (u, v) = edges[i];
        return fail(format!(
            "edge {i}, ({u}, {v}) of weight {:?}, is not an edge of the graph with that weight",
            ws[i]
        ));
    }

    // 3. The documented order.
    let order = |i: usize| (ws[i].key(), edges[i].0, edges[i].1);
    if let Some(i) = (1..edges.len()).find(|&i| order(i - 1) >= order(i)) {
        return fail(format!(
            "edges {} and {i}, {:?} and {:?}, are not in increasing (weight, u, v) order",
            i - 1,
            edges[i - 1],
            edges[i]
        ));
    }

    // 4. Acyclic.
    let mut sets = Sets::new(n);
    for (i, &(u, v)) in edges.iter().enumerate() {
        if !sets.union(u, v) {
            return fail(format!(
                "edge {i}, ({u}, {v}), closes a cycle with the edges before it"
            ));
        }
    }

    // The reference: Kruskal over every edge of the graph.
    let (ref_edges, ref_ws) = reference_kruskal(g, w)?;

    // 5. Spanning.
    let components = (n - ref_edges.len()) as u64;
    if forest.components != components || edges.len() != ref_edges.len() {
        return fail(format!(
            "the graph has {components} connected components, so a spanning forest has {} \
             edges; the forest has {} edges and claims {} components",
            ref_edges.len(),
            edges.len(),
            forest.components
        ));
    }

    // 6. The total matches the weights.
    let total = A::W::total(&ws)?;
    if total != forest.total_weight {
        return fail(format!(
            "the total weight is given as {} but the edges sum to {total}",
            forest.total_weight
        ));
    }

    // 7. Minimum, and the unique one under the order.
    let ref_total = A::W::total(&ref_ws)?;
    if !same(total, ref_total) {
        return fail(format!(
            "the forest weighs {total} but the minimum spanning forest weighs {ref_total}"
        ));
    }
    if let Some(i) = (0..edges.len()).find(|&i| edges[i] != ref_edges[i] || ws[i] != ref_ws[i]) {
        return fail(format!(
            "a forest of minimum weight, but not the one the (weight, u, v) order selects: \
             edge {i} is {:?} of weight {:?} where {:?} of weight {:?} was expected",
            edges[i], ws[i], ref_edges[i], ref_ws[i]
        ));
    }
    Ok(())
}

/// Totals compare exactly; two float totals of the same edges in the same order are equal.
fn same(a: Number, b: Number) -> bool {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => x == y,
        (Number::Float(x), Number::Float(y)) => x == y,
        _ => false,
    }
}

/// Kruskal's forest by the book: every edge as `(weight key, min, max)`, sorted, then one
/// serial union-find pass over all of them.
type Reference<W> = (Vec<(VertexId, VertexId)>, Vec<W>);

fn reference_kruskal<A: ArcWeights>(g: &Graph, w: A) -> Result<Reference<A::W>> {
    let out = g.out();
    let n = g.num_vertices();
    memory::check(
        || "the verifier's reference edge list".into(),
        memory::bytes_for(out.num_arcs(), 32),
    )?;
    // An undirected graph stores each edge both ways: take the arc with u < v.
    let directed = g.is_directed();
    let mut all: Vec<(u64, VertexId, VertexId)> = (0..n as u32)
        .into_par_iter()
        .flat_map_iter(|u| {
            out.row(u).filter_map(move |arc| {
                let v = out.targets()[arc];
                (v != u && (directed || u < v)).then(|| (w.at(arc).key(), u.min(v), u.max(v)))
            })
        })
        .collect();
    all.par_sort_unstable();
    let mut sets = Sets::new(n);
    let mut edges = Vec::new();
    let mut ws = Vec::new();
    for (key, u, v) in all {
        if sets.union(u, v) {
            edges.push((u, v));
            ws.push(A::W::from_key(key));
        }
    }
    Ok((edges, ws))
}

/// Plain disjoint sets: union by size, full path compression.
struct Sets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Sets {
    fn new(n: usize) -> Self {
        Sets {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    fn find(&mut self, x: u32) -> u32 {
        let mut root = x;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        let mut x = x;
        while x != root {
            let next = self.parent[x as usize];
            self.parent[x as usize] = root;
            x = next;
        }
        root
    }

    fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] = self.size[a as usize].saturating_add(self.size[b as usize]);
        true
    }
}
