//! Summary statistics of a graph, as `warpgraph info` prints them.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use super::{Graph, VertexIds, Weight, WeightType};
use crate::with_weights;

/// A weight value, kept exact for integers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Number {
    /// An integer weight.
    Int(i64),
    /// A floating weight.
    Float(f64),
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Int(x) => write!(f, "{x}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

/// One bucket of the degree histogram: vertices with `lo <= degree <= hi`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DegreeBucket {
    /// Smallest degree in the bucket.
    pub lo: u64,
    /// Largest degree in the bucket.
    pub hi: u64,
    /// Number of vertices.
    pub count: u64,
}

/// Facts about a graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphStats {
    /// Number of vertices.
    pub vertices: u64,
    /// Number of edges (each undirected edge once).
    pub edges: u64,
    /// Number of stored arcs.
    pub arcs: u64,
    /// Directed or not.
    pub directed: bool,
    /// Weight type.
    pub weight_type: WeightType,
    /// Smallest weight, if weighted and non-empty.
    pub weight_min: Option<Number>,
    /// Largest weight.
    pub weight_max: Option<Number>,
    /// Number of arcs with a negative weight.
    pub negative_weights: u64,
    /// Smallest out-degree.
    pub degree_min: u64,
    /// Largest out-degree.
    pub degree_max: u64,
    /// Mean out-degree (arcs / vertices).
    pub degree_mean: f64,
    /// Largest in-degree (directed graphs; equal to `degree_max` otherwise).
    pub in_degree_max: u64,
    /// Out-degree histogram in powers of two: 0, 1, 2-3, 4-7, ...
    pub degree_histogram: Vec<DegreeBucket>,
    /// Vertices with no arc in or out.
    pub isolated_vertices: u64,
    /// Self loops (edges `v -- v`).
    pub self_loops: u64,
    /// Edges that repeat an earlier edge between the same vertices (same direction when
    /// directed).
    pub duplicate_edges: u64,
    /// How file ids map to vertices: `"0-based"`, `"1-based"`, `"offset N"` or `"mapped"`.
    pub ids: String,
}

impl GraphStats {
    /// Computes the statistics in parallel; O(n + m).
    pub fn of(g: &Graph) -> GraphStats {
        let out = g.out();
        let n = g.num_vertices();
        let offsets = out.offsets();
        let targets = out.targets();

        // Per-vertex pass: degrees, loops, duplicates.
        #[derive(Default, Clone, Copy)]
        struct Acc {
            dmin: u64,
            dmax: u64,
            loops: u64,
            dups: u64,
        }
        let acc = (0..n as u32)
            .into_par_iter()
            .fold(
                || Acc {
                    dmin: u64::MAX,
                    ..Acc::default()
                },
                |mut a, v| {
                    let row = out.neighbors(v);
                    let d = row.len() as u64;
                    a.dmin = a.dmin.min(d);
                    a.dmax = a.dmax.max(d);
                    for (i, &t) in row.iter().enumerate() {
                        if t == v {
                            a.loops += 1;
                        }
                        // An undirected edge {u, v} is seen from both ends: count it at the
                        // smaller end (a loop only has one end).
                        let counts_here = g.is_directed() || v <= t;
                        if i > 0 && row[i - 1] == t && counts_here {
                            a.dups += 1;
                        }
                    }
                    a
                },
            )
            .reduce(
                || Acc {
                    dmin: u64::MAX,
                    ..Acc::default()
                },
                |a, b| Acc {
                    dmin: a.dmin.min(b.dmin),
                    dmax: a.dmax.max(b.dmax),
                    loops: a.loops + b.loops,
                    dups: a.dups + b.dups,
                },
            );

        // In-degrees: needed for isolated vertices of directed graphs.
        let (in_degree_max, isolated) = if g.is_directed() {
            let indeg: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            targets.par_iter().with_min_len(4096).for_each(|&t| {
                indeg[t as usize].fetch_add(1, Ordering::Relaxed);
            });
            let indeg: Vec<u32> = indeg.into_iter().map(AtomicU32::into_inner).collect();
            let max = indeg.par_iter().copied().max().unwrap_or(0) as u64;
            let iso = (0..n)
                .into_par_iter()
                .filter(|&v| indeg[v] == 0 && offsets[v] == offsets[v + 1])
                .count() as u64;
            (max, iso)
        } else {
            let iso = (0..n)
                .into_par_iter()
                .filter(|&v| offsets[v] == offsets[v + 1])
                .count() as u64;
            (acc.dmax, iso)
        };

        let buckets = if n == 0 {
            0
        } else {
            65 - acc.dmax.leading_zeros() as usize
        };
        let mut histogram = vec![0u64; buckets.max(1)];
        let counts = (0..n)
            .into_par_iter()
            .fold(
                || vec![0u64; histogram.len()],
                |mut h, v| {
                    let d = offsets[v + 1] - offsets[v];
                    h[(64 - d.leading_zeros()) as usize] += 1;
                    h
                },
            )
            .reduce(
                || vec![0u64; histogram.len()],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        histogram.copy_from_slice(&counts);
        let degree_histogram = histogram
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &count)| {
                let (lo, hi) = if i == 0 {
                    (0, 0)
                } else {
                    (1u64 << (i - 1), (1u64 << i) - 1)
                };
                DegreeBucket { lo, hi, count }
            })
            .collect();

        let (weight_min, weight_max, negative_weights) = with_weights!(out.weights(),
            w => weight_range(w), none => (None, None, 0));

        GraphStats {
            vertices: n as u64,
            edges: g.num_edges(),
            arcs: g.num_arcs(),
            directed: g.is_directed(),
            weight_type: g.weight_type(),
            weight_min,
            weight_max,
            negative_weights,
            degree_min: if n == 0 { 0 } else { acc.dmin },
            degree_max: acc.dmax,
            degree_mean: if n == 0 {
                0.0
            } else {
                g.num_arcs() as f64 / n as f64
            },
            in_degree_max,
            degree_histogram,
            isolated_vertices: isolated,
            self_loops: acc.loops,
            duplicate_edges: acc.dups,
            ids: match g.ids() {
                VertexIds::Base(0) => "0-based".into(),
                VertexIds::Base(1) => "1-based".into(),
                VertexIds::Base(b) => format!("offset {b}"),
                VertexIds::Map(_) => "mapped".into(),
            },
        }
    }
}

fn weight_range<W: Weight>(w: &[W]) -> (Option<Number>, Option<Number>, u64) {
    let num = |x: W| x.to_i64().map_or(Number::Float(x.to_f64()), Number::Int);
    let min = w
        .par_iter()
        .copied()
        .reduce_with(|a, b| if b < a { b } else { a });
    let max = w
        .par_iter()
        .copied()
        .reduce_with(|a, b| if b > a { b } else { a });
    let neg = w.par_iter().filter(|&&x| x.to_f64() < 0.0).count() as u64;
    (min.map(num), max.map(num), neg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, EdgeList, Weights};

    #[test]
    fn counts_loops_duplicates_and_isolated() {
        // 0->1 twice, 1->1, 3 isolated, 2->0.
        let e = EdgeList::new(
            4,
            vec![0, 0, 1, 2],
            vec![1, 1, 1, 0],
            Weights::I64(vec![5, -2, 7, i64::MAX].into()),
        )
        .unwrap();
        let s = GraphStats::of(&e.build(&BuildOptions::default()).unwrap());
        assert_eq!((s.vertices, s.edges, s.arcs), (4, 4, 4));
        assert_eq!(
            (s.self_loops, s.duplicate_edges, s.isolated_vertices),
            (1, 1, 1)
        );
        assert_eq!((s.degree_min, s.degree_max, s.in_degree_max), (0, 2, 3));
        assert_eq!(s.weight_min, Some(Number::Int(-2)));
        assert_eq!(s.weight_max, Some(Number::Int(i64::MAX)));
        assert_eq!(s.negative_weights, 1);
        assert_eq!(
            s.degree_histogram,
            vec![
                DegreeBucket {
                    lo: 0,
                    hi: 0,
                    count: 1
                },
                DegreeBucket {
                    lo: 1,
                    hi: 1,
                    count: 2
                },
                DegreeBucket {
                    lo: 2,
                    hi: 3,
                    count: 1
                }
            ]
        );
        let opts = BuildOptions {
            directed: false,
            ..Default::default()
        };
        let s = GraphStats::of(&e.build(&opts).unwrap());
        assert_eq!(
            (s.edges, s.arcs, s.self_loops, s.duplicate_edges),
            (4, 7, 1, 1)
        );
    }

    #[test]
    fn empty_graph() {
        let s = GraphStats::of(&Graph::empty(0, true));
        assert_eq!((s.vertices, s.degree_max, s.weight_min), (0, 0, None));
    }
}
