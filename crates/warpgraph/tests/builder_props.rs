//! Property tests for the CSR builder against a simple serial oracle.
//!
//! Random edge lists with self loops, parallel edges, negative and zero weights, isolated
//! vertices and empty graphs are built with every option; the result is compared with a
//! `BTreeMap`-based model built edge by edge.

mod common;

use proptest::prelude::*;
use warpgraph::{BuildOptions, Duplicates, EdgeList, GraphStats, SelfLoops, Weights};

/// The oracle: for each vertex, its arcs as (target, weight, edge index) in the order the
/// builder promises (by target, then input order), after the loop and duplicate policies.
fn model(n: usize, edges: &[(u32, u32, i32)], opts: &BuildOptions) -> Vec<Vec<(u32, i32)>> {
    let mut rows: Vec<Vec<(u32, usize, i32)>> = vec![Vec::new(); n];
    for (i, &(u, v, w)) in edges.iter().enumerate() {
        if u == v && opts.self_loops == SelfLoops::Drop {
            continue;
        }
        rows[u as usize].push((v, i, w));
        if !opts.directed && u != v {
            rows[v as usize].push((u, i, w));
        }
    }
    rows.into_iter()
        .map(|mut r| {
            r.sort_by_key(|&(t, i, _)| (t, i));
            let mut out: Vec<(u32, usize, i32)> = Vec::new();
            for a in r {
                match out.last_mut() {
                    Some(last) if last.0 == a.0 && opts.duplicates != Duplicates::Keep => {
                        if opts.duplicates == Duplicates::KeepLightest && a.2 < last.2 {
                            *last = a;
                        }
                    }
                    _ => out.push(a),
                }
            }
            out.into_iter().map(|(t, _, w)| (t, w)).collect()
        })
        .collect()
}

/// The edge list of weighted `edges` over `n` vertices.
fn edge_list(n: usize, edges: &[(u32, u32, i32)]) -> EdgeList {
    EdgeList::new(
        n as u64,
        edges.iter().map(|e| e.0).collect(),
        edges.iter().map(|e| e.1).collect(),
        Weights::I32(edges.iter().map(|e| e.2).collect::<Vec<_>>().into()),
    )
    .unwrap()
}

fn arb_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, i32)>)> {
    (0usize..40).prop_flat_map(|n| {
        let edge = if n == 0 {
            Just(Vec::new()).boxed()
        } else {
            // A small weight range makes ties and zero weights common.
            prop::collection::vec((0..n as u32, 0..n as u32, -3i32..4), 0..120).boxed()
        };
        (Just(n), edge)
    })
}

fn arb_opts() -> impl Strategy<Value = BuildOptions> {
    (
        any::<bool>(),
        prop_oneof![Just(SelfLoops::Keep), Just(SelfLoops::Drop)],
        prop_oneof![
            Just(Duplicates::Keep),
            Just(Duplicates::Drop),
            Just(Duplicates::KeepLightest)
        ],
    )
        .prop_map(|(directed, self_loops, duplicates)| BuildOptions {
            directed,
            self_loops,
            duplicates,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn builder_matches_model((n, edges) in arb_graph(), opts in arb_opts()) {
        let el = edge_list(n, &edges);
        let g = el.build(&opts).unwrap();
        let want = model(n, &edges, &opts);
        let w = g.out().weights().as_slice::<i32>().unwrap();
        prop_assert_eq!(g.num_vertices(), n);
        for v in 0..n as u32 {
            let got: Vec<(u32, i32)> = g.out().row(v).map(|i| (g.out().targets()[i], w[i])).collect();
            prop_assert_eq!(&got, &want[v as usize], "row {}", v);
        }
        // Degrees sum to the arc count.
        let degree_sum: u64 = (0..n as u32).map(|v| g.out().degree(v)).sum();
        prop_assert_eq!(degree_sum, g.num_arcs());
        // The largest degree is the rows' longest.
        let widest = want.iter().map(|r| r.len() as u64).max().unwrap_or(0);
        prop_assert_eq!(g.out().max_degree(), widest);
        // Every input edge is present (unless its policy removed it).
        for &(u, v, _) in &edges {
            let present = g.neighbors(u).contains(&v);
            let dropped = u == v && opts.self_loops == SelfLoops::Drop;
            prop_assert_eq!(present, !dropped);
            if !opts.directed && !dropped {
                prop_assert!(g.neighbors(v).contains(&u));
            }
        }
        // Undirected graphs are symmetric, and their edge count matches the model's.
        if !opts.directed {
            prop_assert!(g.out().find_asymmetric().is_none());
        }
        let stats = GraphStats::of(&g);
        if opts.duplicates != Duplicates::Keep {
            prop_assert_eq!(stats.duplicate_edges, 0);
        }
        if opts.self_loops == SelfLoops::Drop {
            prop_assert_eq!(stats.self_loops, 0);
        }
        // The transpose holds the same arcs reversed.
        let inc = g.incoming();
        let mut fwd: Vec<(u32, u32)> = (0..n as u32).flat_map(|u| g.neighbors(u).iter().map(move |&v| (u, v))).collect();
        let mut rev: Vec<(u32, u32)> = (0..n as u32).flat_map(|v| inc.neighbors(v).iter().map(move |&u| (u, v))).collect();
        fwd.sort_unstable();
        rev.sort_unstable();
        prop_assert_eq!(fwd, rev);
    }

    #[test]
    fn building_is_deterministic_across_thread_counts((n, edges) in arb_graph(), opts in arb_opts()) {
        let el = edge_list(n, &edges);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let four = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let a = one.install(|| el.build(&opts).unwrap());
        let b = four.install(|| el.build(&opts).unwrap());
        prop_assert_eq!(a, b);
    }
}

#[test]
fn large_build_is_deterministic_and_complete() {
    // Enough edges that many threads race on the same hub rows.
    let n = 1 << 12;
    let m = 200_000usize;
    let mut x = 12345u64;
    let mut next = || common::xorshift(&mut x);
    let (mut s, mut d, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..m {
        let r = next();
        // Skew: half the edges leave vertex 0.
        s.push(if r & 1 == 0 { 0 } else { (r >> 1) as u32 % n });
        d.push((r >> 33) as u32 % n);
        w.push((r >> 20) as i64 % 1000 - 500);
    }
    let el = EdgeList::new(n as u64, s, d, Weights::I64(w.into())).unwrap();
    for directed in [true, false] {
        let opts = BuildOptions {
            directed,
            ..Default::default()
        };
        let a = el.build(&opts).unwrap();
        let b = el.build(&opts).unwrap();
        assert_eq!(a, b);
        let self_loops = el.src.iter().zip(&el.dst).filter(|(a, b)| a == b).count() as u64;
        let expect = if directed {
            m as u64
        } else {
            2 * m as u64 - self_loops
        };
        assert_eq!(a.num_arcs(), expect);
    }
}

#[test]
fn many_buckets_and_chunks_match_model() {
    // The builder partitions sources into buckets of 2^16 vertices and the input into chunks
    // of at least 2^18 edges: cross both boundaries several times, with hubs, loops and
    // parallel edges, and compare every row with the oracle.
    let n = 200_003usize;
    let m = 900_000usize;
    let mut x = 0x9e3779b97f4a7c15u64;
    let mut next = || common::xorshift(&mut x);
    let edges: Vec<(u32, u32, i32)> = (0..m)
        .map(|_| {
            let r = next();
            let u = match r % 8 {
                0 => 7,              // a hub in the first bucket
                1 => (n - 1) as u32, // a hub in the last bucket
                _ => (r >> 8) as u32 % n as u32,
            };
            let v = if r % 13 == 0 {
                u
            } else {
                (r >> 40) as u32 % n as u32
            };
            (u, v, (r >> 20) as i32 % 7 - 2)
        })
        .collect();
    let el = edge_list(n, &edges);
    for directed in [true, false] {
        for duplicates in [Duplicates::Keep, Duplicates::Drop, Duplicates::KeepLightest] {
            let opts = BuildOptions {
                directed,
                self_loops: SelfLoops::Keep,
                duplicates,
            };
            let g = el.build(&opts).unwrap();
            let want = model(n, &edges, &opts);
            let w = g.out().weights().as_slice::<i32>().unwrap();
            for v in 0..n as u32 {
                let got: Vec<(u32, i32)> = g
                    .out()
                    .row(v)
                    .map(|i| (g.out().targets()[i], w[i]))
                    .collect();
                assert_eq!(got, want[v as usize], "row {v} ({opts:?})");
            }
        }
    }
}
