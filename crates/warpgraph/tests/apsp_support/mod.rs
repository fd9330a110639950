//! Helpers shared by the all-pairs shortest-path tests (`apsp`, `apsp_output`): random
//! test graphs without negative cycles, a serial oracle (Bellman-Ford from every source, in
//! exact arithmetic) and checks of a result's paths. Each test file includes this module
//! with `mod apsp_support;`.

// Every test file compiles its own copy and none uses all of it.
#![allow(dead_code)]

use std::collections::HashMap;

use proptest::prelude::*;
use warpgraph::apsp::{apsp_matrix, Algorithm, ApspOptions, DistMatrix};
use warpgraph::{BuildOptions, Duplicates, EdgeList, Graph, SelfLoops, Weights};

pub const INF: i64 = i64::MAX;

// ---------------------------------------------------------------------------------------
// The oracle: plain serial Bellman-Ford per source over the edge list, in i128 / f64.

/// Weights of a test graph as exact numbers (floats here are small integers or dyadic
/// fractions, so every sum is exact in f64).
#[derive(Debug, Clone)]
pub enum TestWeights {
    None,
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl TestWeights {
    pub fn get(&self, i: usize) -> f64 {
        match self {
            TestWeights::None => 1.0,
            TestWeights::I32(w) => w[i] as f64,
            TestWeights::I64(w) => w[i] as f64,
            TestWeights::F32(w) => w[i] as f64,
            TestWeights::F64(w) => w[i],
        }
    }
    pub fn get_int(&self, i: usize) -> i128 {
        match self {
            TestWeights::None => 1,
            TestWeights::I32(w) => w[i] as i128,
            TestWeights::I64(w) => w[i] as i128,
            _ => unreachable!("integer weights only"),
        }
    }
    pub fn is_float(&self) -> bool {
        matches!(self, TestWeights::F32(_) | TestWeights::F64(_))
    }
    pub fn to_weights(&self) -> Weights {
        match self {
            TestWeights::None => Weights::None,
            TestWeights::I32(w) => Weights::from(w.clone()),
            TestWeights::I64(w) => Weights::from(w.clone()),
            TestWeights::F32(w) => Weights::from(w.clone()),
            TestWeights::F64(w) => Weights::from(w.clone()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct TestGraph {
    pub n: usize,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub w: TestWeights,
    pub directed: bool,
}

impl TestGraph {
    pub fn build(&self) -> Graph {
        EdgeList::new(
            self.n as u64,
            self.src.clone(),
            self.dst.clone(),
            self.w.to_weights(),
        )
        .unwrap()
        .build(&BuildOptions {
            directed: self.directed,
            self_loops: SelfLoops::Keep,
            duplicates: Duplicates::Keep,
        })
        .unwrap()
    }

    /// Arcs (u, v, edge index), both ways for undirected graphs.
    pub fn arcs(&self) -> Vec<(usize, usize, usize)> {
        let mut a = Vec::new();
        for i in 0..self.src.len() {
            let (u, v) = (self.src[i] as usize, self.dst[i] as usize);
            a.push((u, v, i));
            if !self.directed && u != v {
                a.push((v, u, i));
            }
        }
        a
    }

    /// The oracle's matrix (Bellman-Ford from every source, weights by `weight`):
    /// `None` for unreachable.
    pub fn oracle<T>(&self, zero: T, weight: impl Fn(usize) -> T) -> Vec<Vec<Option<T>>>
    where
        T: Copy + PartialOrd + std::ops::Add<Output = T>,
    {
        let arcs = self.arcs();
        (0..self.n)
            .map(|s| {
                let mut d = vec![None; self.n];
                d[s] = Some(zero);
                for _ in 0..self.n {
                    let mut changed = false;
                    for &(u, v, i) in &arcs {
                        if let Some(du) = d[u] {
                            let x = du + weight(i);
                            if d[v].is_none_or(|dv| x < dv) {
                                d[v] = Some(x);
                                changed = true;
                            }
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                d
            })
            .collect()
    }

    /// Asserts that `m` equals the oracle exactly (test floats are exact).
    pub fn assert_matches(&self, m: &DistMatrix, what: &str) {
        assert_eq!(m.num_vertices(), self.n, "{what}");
        if self.w.is_float() {
            let o = self.oracle(0.0f64, |i| self.w.get(i));
            let d = m.as_f64().unwrap_or_else(|| panic!("{what}: expected f64"));
            for s in 0..self.n {
                for t in 0..self.n {
                    let want = o[s][t].unwrap_or(f64::INFINITY);
                    assert_eq!(d[s * self.n + t], want, "{what}: d({s},{t}) in {self:?}");
                }
            }
        } else {
            let o = self.oracle(0i128, |i| self.w.get_int(i));
            let d = m.as_i64().unwrap_or_else(|| panic!("{what}: expected i64"));
            for s in 0..self.n {
                for t in 0..self.n {
                    let want = o[s][t].map_or(INF, |x| i64::try_from(x).unwrap());
                    assert_eq!(d[s * self.n + t], want, "{what}: d({s},{t}) in {self:?}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random graphs without negative cycles: w = base + h(u) - h(v), base >= 0.

#[derive(Debug, Clone, Copy)]
enum Kind {
    None,
    I32,
    I64,
    F32,
    F64,
}

pub fn graph_strategy(max_n: usize) -> impl Strategy<Value = TestGraph> {
    (
        0..=max_n,
        0usize..4,
        any::<bool>(),
        prop_oneof![
            Just(Kind::None),
            Just(Kind::I32),
            Just(Kind::I64),
            Just(Kind::F32),
            Just(Kind::F64)
        ],
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(n, density, directed, kind, negative, seed)| {
            let mut rng = warpgraph::generate::rng::Rng::new(seed);
            // Sparse to dense: about n/2, 2n, n^2/8, n^2/2 edges.
            let m = match density {
                0 => n / 2,
                1 => 2 * n,
                2 => n * n / 8,
                _ => n * n / 2,
            };
            let directed = directed || matches!(kind, Kind::None);
            let negative = negative && directed && !matches!(kind, Kind::None);
            let h: Vec<i64> = (0..n)
                .map(|_| if negative { -(rng.below(50) as i64) } else { 0 })
                .collect();
            let (mut src, mut dst, mut base) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..m {
                let u = rng.below(n as u64) as u32;
                // Some self loops and parallel arcs on purpose.
                let v = match rng.below(10) {
                    0 => u,
                    1 if !src.is_empty() => {
                        let j = rng.below(src.len() as u64) as usize;
                        src.push(src[j]);
                        dst.push(dst[j]);
                        base.push(rng.below(20) as i64);
                        continue;
                    }
                    _ => rng.below(n as u64) as u32,
                };
                src.push(u);
                dst.push(v);
                // Zero weights are common.
                base.push(if rng.below(4) == 0 {
                    0
                } else {
                    rng.below(20) as i64
                });
            }
            let raw: Vec<i64> = (0..src.len())
                .map(|i| base[i] + h[src[i] as usize] - h[dst[i] as usize])
                .collect();
            let w = match kind {
                Kind::None => TestWeights::None,
                Kind::I32 => TestWeights::I32(raw.iter().map(|&x| x as i32).collect()),
                Kind::I64 => TestWeights::I64(raw),
                Kind::F32 => TestWeights::F32(raw.iter().map(|&x| x as f32).collect()),
                // Dyadic fractions: exact in f64 whatever the order of summation.
                Kind::F64 => TestWeights::F64(raw.iter().map(|&x| x as f64 / 8.0).collect()),
            };
            TestGraph {
                n,
                src,
                dst,
                w,
                directed,
            }
        })
}

pub fn run(g: &Graph, a: Algorithm, predecessors: bool) -> DistMatrix {
    apsp_matrix(g, a, &ApspOptions { predecessors })
        .unwrap_or_else(|e| panic!("{a} (predecessors {predecessors}): {e}"))
}

/// Every predecessor path is a real path of the matrix's length.
pub fn check_paths(tg: &TestGraph, m: &DistMatrix) {
    let mut best: HashMap<(usize, usize), f64> = HashMap::new();
    for (u, v, i) in tg.arcs() {
        let w = tg.w.get(i);
        let e = best.entry((u, v)).or_insert(w);
        *e = e.min(w);
    }
    for s in 0..tg.n {
        for t in 0..tg.n {
            let d = m.get_f64(s as u32, t as u32).unwrap();
            match m.path(s as u32, t as u32) {
                None => assert!(d.is_infinite(), "no path {s}->{t} but d = {d}"),
                Some(p) => {
                    assert_eq!((p[0], *p.last().unwrap()), (s as u32, t as u32));
                    let len: f64 = p
                        .windows(2)
                        .map(|e| best[&(e[0] as usize, e[1] as usize)])
                        .sum();
                    assert_eq!(len, d, "path {p:?}");
                }
            }
        }
    }
}

/// A graph of `n` vertices with `edges` and weights `w`, self loops and parallel edges kept.
pub fn graph(n: u64, edges: &[(u32, u32)], w: Weights, directed: bool) -> Graph {
    EdgeList::new(
        n,
        edges.iter().map(|e| e.0).collect(),
        edges.iter().map(|e| e.1).collect(),
        w,
    )
    .unwrap()
    .build(&BuildOptions {
        directed,
        self_loops: SelfLoops::Keep,
        duplicates: Duplicates::Keep,
    })
    .unwrap()
}
