//! The minimum-spanning-forest oracle of the MST tests (CPU in `mst.rs`, GPU in
//! `gpu_mst.rs`): random cases with every weight type and a textbook Kruskal over the raw
//! edge list.

use std::cmp::Ordering;

use proptest::prelude::*;
use warpgraph::graph::stats::Number;
use warpgraph::mst::SpanningForest;
use warpgraph::{BuildOptions, EdgeList, Graph, Weights};

/// The weight types the random tests draw.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    None,
    I32,
    /// Small values: Borůvka packs weight and arc into one key.
    I64Narrow,
    /// Values 2^55 apart: Borůvka must sort the edges instead.
    I64Wide,
    F32,
    F64,
}

/// A weight "seed" in 0..8 as a float: negatives, both zeros, fractions.
pub fn float_of(seed: i64) -> f64 {
    [-1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.25, 1e-3][seed.rem_euclid(8) as usize]
}

/// The oracle: Kruskal by the book over the raw edge list. Every non-loop edge is
/// `(min, max, w)`; edges sort by `cmp` on the weight, then by endpoints; a union-find
/// keeps those that join two trees.
pub fn oracle<W: Copy>(
    n: usize,
    edges: &[(u32, u32, W)],
    cmp: impl Fn(&W, &W) -> Ordering,
) -> (Vec<(u32, u32)>, Vec<W>) {
    let mut all: Vec<(u32, u32, W)> = edges
        .iter()
        .filter(|e| e.0 != e.1)
        .map(|&(u, v, w)| (u.min(v), u.max(v), w))
        .collect();
    all.sort_by(|a, b| cmp(&a.2, &b.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    let (mut forest, mut ws) = (Vec::new(), Vec::new());
    for (u, v, w) in all {
        let (a, b) = (find(&mut root, u as usize), find(&mut root, v as usize));
        if a != b {
            root[a] = b;
            forest.push((u, v));
            ws.push(w);
        }
    }
    (forest, ws)
}

/// The graph and its expected forest for raw edges with weight seeds.
pub fn case(
    n: usize,
    raw: &[(u32, u32, i64)],
    directed: bool,
    kind: Kind,
) -> (Graph, SpanningForest) {
    let src = raw.iter().map(|e| e.0).collect();
    let dst = raw.iter().map(|e| e.1).collect();
    let seeds = raw.iter().map(|e| e.2);
    let n64 = n as u64;
    let int_total = |ws: &[i64]| Number::Int(ws.iter().sum());
    let (weights, expected) = match kind {
        Kind::None => {
            let e: Vec<_> = raw.iter().map(|&(u, v, _)| (u, v, ())).collect();
            let (f, _) = oracle(n, &e, |_, _| Ordering::Equal);
            let total = Number::Int(f.len() as i64);
            (Weights::None, (f, Weights::None, total))
        }
        Kind::I32 => {
            let w: Vec<i32> = seeds.map(|s| s as i32 - 3).collect();
            let e: Vec<_> = raw
                .iter()
                .zip(&w)
                .map(|(&(u, v, _), &w)| (u, v, w))
                .collect();
            let (f, fw) = oracle(n, &e, |a, b| a.cmp(b));
            let total = int_total(&fw.iter().map(|&x| x as i64).collect::<Vec<_>>());
            (Weights::I32(w.into()), (f, Weights::I32(fw.into()), total))
        }
        Kind::I64Narrow | Kind::I64Wide => {
            let scale = if matches!(kind, Kind::I64Wide) {
                1 << 55
            } else {
                1
            };
            let w: Vec<i64> = seeds.map(|s| (s - 3) * scale).collect();
            let e: Vec<_> = raw
                .iter()
                .zip(&w)
                .map(|(&(u, v, _), &w)| (u, v, w))
                .collect();
            let (f, fw) = oracle(n, &e, |a, b| a.cmp(b));
            let total = int_total(&fw);
            (Weights::I64(w.into()), (f, Weights::I64(fw.into()), total))
        }
        Kind::F32 => {
            let w: Vec<f32> = seeds.map(|s| float_of(s) as f32).collect();
            let e: Vec<_> = raw
                .iter()
                .zip(&w)
                .map(|(&(u, v, _), &w)| (u, v, w))
                .collect();
            let (f, fw) = oracle(n, &e, |a, b| a.total_cmp(b));
            let total = Number::Float(fw.iter().map(|&x| x as f64).sum());
            (Weights::F32(w.into()), (f, Weights::F32(fw.into()), total))
        }
        Kind::F64 => {
            let w: Vec<f64> = seeds.map(float_of).collect();
            let e: Vec<_> = raw
                .iter()
                .zip(&w)
                .map(|(&(u, v, _), &w)| (u, v, w))
                .collect();
            let (f, fw) = oracle(n, &e, |a, b| a.total_cmp(b));
            let total = Number::Float(fw.iter().sum());
            (Weights::F64(w.into()), (f, Weights::F64(fw.into()), total))
        }
    };
    let g = EdgeList::new(n64, src, dst, weights)
        .unwrap()
        .build(&BuildOptions {
            directed,
            ..Default::default()
        })
        .unwrap();
    let (edges, weights, total_weight) = expected;
    let components = n64 - edges.len() as u64;
    (
        g,
        SpanningForest {
            edges,
            weights,
            total_weight,
            components,
        },
    )
}

/// Equality that also tells `-0.0` from `+0.0`.
pub fn assert_same(got: &SpanningForest, want: &SpanningForest) {
    assert_eq!(got, want);
    let bits = |w: &Weights| -> Vec<u64> {
        match w {
            Weights::F32(x) => x.iter().map(|v| u64::from(v.to_bits())).collect(),
            Weights::F64(x) => x.iter().map(|v| v.to_bits()).collect(),
            _ => Vec::new(),
        }
    };
    assert_eq!(bits(&got.weights), bits(&want.weights));
}

pub fn arb_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::None),
        Just(Kind::I32),
        Just(Kind::I64Narrow),
        Just(Kind::I64Wide),
        Just(Kind::F32),
        Just(Kind::F64),
    ]
}

pub fn arb_case() -> impl Strategy<Value = (usize, Vec<(u32, u32, i64)>, bool, Kind)> {
    (0usize..40, any::<bool>(), 0usize..5, arb_kind()).prop_flat_map(
        |(n, directed, density, kind)| {
            let edges = if n == 0 {
                Just(Vec::new()).boxed()
            } else {
                let max = (n << density) / 2 + 1;
                prop::collection::vec((0..n as u32, 0..n as u32, 0i64..8), 0..max).boxed()
            };
            (Just(n), edges, Just(directed), Just(kind))
        },
    )
}
