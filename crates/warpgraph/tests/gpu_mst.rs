//! GPU Borůvka against the textbook Kruskal oracle and the CPU backend: the identical edge
//! set (not only the same total) on random graphs with every weight type, ties
//! everywhere, many components, isolated vertices, self loops and multi-edges, a star with
//! a vertex of degree above 65,536, long paths (chains of hooks as deep as the graph), and
//! the generators' families; every forest passes the verifier. The forest's sort and
//! naming on the GPU: forests of many sort tiles in the documented order, edge for edge
//! and bit for bit, exact integer totals near the ends of `i64` and their overflow, and
//! forests of no edge or one.
//!
//! Every test skips where no GPU can be used and fails instead when
//! `WARPGRAPH_REQUIRE_GPU=1` (see `common::gpu`).

mod common;

use std::sync::Arc;

use common::mst::{arb_case, assert_same, case, Kind};
use proptest::prelude::*;
use warpgraph::cuda::Gpu;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::graph::stats::Number;
use warpgraph::mst::{self, cuda, verify, Algorithm, Backend};
use warpgraph::{BuildOptions, EdgeList, Error, Graph, Weights};

/// The GPU's forest of `g`, checked against the CPU's Borůvka and the verifier.
fn check(gpu: &Arc<Gpu>, g: &Graph, what: &str) -> cuda::MstStats {
    let (got, stats) = cuda::boruvka(gpu, g).unwrap_or_else(|e| panic!("{what}: {e}"));
    let want = mst::cpu::boruvka(g).unwrap();
    assert_same(&got, &want);
    verify(g, &got).unwrap_or_else(|e| panic!("{what}: {e}"));
    stats
}

fn undirected(n: u64, src: Vec<u32>, dst: Vec<u32>, w: Weights) -> Graph {
    EdgeList::new(n, src, dst, w)
        .unwrap()
        .build(&BuildOptions {
            directed: false,
            ..Default::default()
        })
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_graphs_match_the_oracle((n, raw, directed, kind) in arb_case()) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let (g, want) = case(n, &raw, directed, kind);
        let (got, _) = cuda::boruvka(&gpu, &g).unwrap();
        assert_same(&got, &want);
        verify(&g, &got).unwrap();
    }
}

#[test]
fn generated_families_with_every_weight_type() {
    let Some(gpu) = common::gpu() else { return };
    let families = [
        Generator::Kronecker {
            scale: 14,
            edge_factor: 16,
        },
        Generator::Uniform {
            vertices: 20_000,
            edges: 80_000,
        },
        Generator::Grid {
            rows: 150,
            cols: 120,
            remove: 0.1,
            shortcuts: 50,
        },
        Generator::Ssca2 {
            scale: 13,
            max_clique: 40,
            inter_prob: 0.2,
        },
    ];
    let weights = [
        WeightSpec::Int { lo: 1, hi: 255 },
        WeightSpec::Int { lo: -3, hi: 3 },
        WeightSpec::Int {
            lo: -(1 << 40),
            hi: 1 << 40,
        },
        WeightSpec::Float,
        WeightSpec::None,
    ];
    for family in &families {
        for &w in &weights {
            for undirected in [true, false] {
                let g = generate(
                    family,
                    &GenerateOptions {
                        weights: w,
                        undirected,
                        ..Default::default()
                    },
                )
                .unwrap();
                check(
                    &gpu,
                    &g,
                    &format!("{family:?} {w:?} undirected={undirected}"),
                );
            }
        }
    }
}

#[test]
fn equal_weights_everywhere_are_broken_by_endpoints() {
    let Some(gpu) = common::gpu() else { return };
    for w in [WeightSpec::Int { lo: 7, hi: 7 }, WeightSpec::None] {
        let g = generate(
            &Generator::Kronecker {
                scale: 15,
                edge_factor: 8,
            },
            &GenerateOptions {
                weights: w,
                undirected: true,
                ..Default::default()
            },
        )
        .unwrap();
        check(&gpu, &g, "equal weights");
    }
}

#[test]
fn many_components_isolated_vertices_loops_and_multi_edges() {
    let Some(gpu) = common::gpu() else { return };
    // 200,000 vertices, 60,000 random edges (most vertices isolated or in small trees),
    // every 10th edge a self loop, every edge also present twice with another weight.
    let n = 200_000u32;
    let mut x = 12345u64;
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..60_000u32 {
        let u = (common::xorshift(&mut x) % u64::from(n)) as u32;
        let v = if i % 10 == 0 {
            u
        } else {
            (common::xorshift(&mut x) % u64::from(n)) as u32
        };
        for k in 0..2 {
            src.push(u);
            dst.push(v);
            w.push((common::xorshift(&mut x) % 5) as i32 - k);
        }
    }
    let g = undirected(u64::from(n), src, dst, Weights::I32(w.into()));
    let stats = check(&gpu, &g, "many components");
    assert!(stats.rounds >= 1);
}

#[test]
fn a_star_with_a_vertex_of_huge_degree() {
    let Some(gpu) = common::gpu() else { return };
    // Vertex 0 joined to 100,000 leaves (a row scanned by a whole block), plus a ring of
    // leaves (rows of a few arcs) and 300 hubs of 1,000 arcs (rows scanned by warps).
    let n = 100_001u32;
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for v in 1..n {
        src.push(0);
        dst.push(v);
        src.push(v);
        dst.push(if v + 1 < n { v + 1 } else { 1 });
    }
    for h in 0..300 {
        for j in 0..1000 {
            src.push(1 + h * 300);
            dst.push(1 + (h * 7919 + j * 31) % (n - 1));
        }
    }
    let mut x = 99u64;
    let w: Vec<f32> = (0..src.len())
        .map(|_| (common::xorshift(&mut x) % 1000) as f32 / 8.0)
        .collect();
    let g = undirected(
        u64::from(n),
        src.clone(),
        dst.clone(),
        Weights::F32(w.into()),
    );
    assert!(g.out().degree(0) > 65_536);
    check(&gpu, &g, "star, f32");
    let g = undirected(u64::from(n), src, dst, Weights::None);
    check(&gpu, &g, "star, unweighted");
}

#[test]
fn long_paths_hook_into_deep_chains() {
    let Some(gpu) = common::gpu() else { return };
    // A path of a million vertices with increasing weights hooks every vertex onto its
    // predecessor in round 1 (one chain as deep as the graph); decreasing weights hook the
    // other way; equal weights pair neighbours off.
    let n = 1_000_000u32;
    let src: Vec<u32> = (0..n - 1).collect();
    let dst: Vec<u32> = (1..n).collect();
    for (name, w) in [
        ("increasing", (0..n as i64 - 1).collect::<Vec<i64>>()),
        ("decreasing", (0..n as i64 - 1).rev().collect()),
        ("equal", vec![5; n as usize - 1]),
    ] {
        let g = undirected(
            u64::from(n),
            src.clone(),
            dst.clone(),
            Weights::I64(w.into()),
        );
        let stats = check(&gpu, &g, name);
        eprintln!(
            "path, {name}: {} rounds, {} jump launches",
            stats.rounds, stats.jumps
        );
    }
}

#[test]
fn empty_graphs_and_kruskal_on_the_gpu() {
    let Some(gpu) = common::gpu() else { return };
    for n in [0u32, 1, 5] {
        for directed in [false, true] {
            let g = Graph::empty(n, directed);
            let (f, _) = cuda::boruvka(&gpu, &g).unwrap();
            assert!(f.edges.is_empty());
            assert_eq!(f.components, u64::from(n));
        }
    }
    let g = Graph::empty(3, false);
    let (f, stats) = mst::mst_on(&g, Algorithm::Boruvka, Backend::Cuda(&gpu)).unwrap();
    assert_eq!(f.components, 3);
    assert!(stats.is_some());
    assert!(matches!(
        mst::mst_on(&g, Algorithm::Kruskal, Backend::Cuda(&gpu)),
        Err(Error::Unsupported(_))
    ));
}

#[test]
fn one_upload_many_runs() {
    let Some(gpu) = common::gpu() else { return };
    let g = generate(
        &Generator::Grid {
            rows: 300,
            cols: 300,
            remove: 0.0,
            shortcuts: 0,
        },
        &GenerateOptions {
            weights: WeightSpec::Int { lo: 1, hi: 255 },
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    let want = mst::cpu::kruskal(&g).unwrap();
    let mut prepared = cuda::GpuMst::new(&gpu, &g).unwrap();
    for _ in 0..3 {
        let (got, stats) = prepared.run().unwrap();
        assert_same(&got, &want);
        assert!(stats.times.kernel_seconds > 0.0);
    }
}

/// The GPU's forest of `g`, checked against `want` (the oracle's), the CPU's Borůvka and
/// the verifier.
fn check_against(
    gpu: &Arc<Gpu>,
    g: &Graph,
    want: &mst::SpanningForest,
    what: &str,
) -> mst::SpanningForest {
    let (got, _) = cuda::boruvka(gpu, g).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same(&got, want);
    assert_same(&got, &mst::cpu::boruvka(g).unwrap());
    verify(g, &got).unwrap_or_else(|e| panic!("{what}: {e}"));
    got
}

/// Whether `f` lists its edges as documented: `u < v`, strictly increasing by
/// `(weight, u, v)` (floats by the IEEE total order).
fn assert_in_order(f: &mst::SpanningForest, what: &str) {
    use std::cmp::Ordering;
    let by_weight = |i: usize, j: usize| -> Ordering {
        match &f.weights {
            Weights::None => Ordering::Equal,
            Weights::I32(w) => w[i].cmp(&w[j]),
            Weights::I64(w) => w[i].cmp(&w[j]),
            Weights::F32(w) => w[i].total_cmp(&w[j]),
            Weights::F64(w) => w[i].total_cmp(&w[j]),
        }
    };
    for (i, &(u, v)) in f.edges.iter().enumerate() {
        assert!(u < v, "{what}: edge {i} is ({u}, {v})");
        if i > 0 {
            let order = by_weight(i - 1, i).then(f.edges[i - 1].cmp(&f.edges[i]));
            assert_eq!(order, Ordering::Less, "{what}: edges {} and {i}", i - 1);
        }
    }
}

/// Random raw edges on `n` vertices with weight seeds 0..8 (ties everywhere): the last
/// quarter of the vertices isolated, every 20th edge a self loop, every 8th a copy of an
/// earlier edge (the same ends, either direction, a new seed).
fn raw_edges(n: u32, m: usize, seed: u64) -> Vec<(u32, u32, i64)> {
    let mut x = seed;
    let used = u64::from(n - n / 4).max(1);
    let mut raw: Vec<(u32, u32, i64)> = Vec::with_capacity(m);
    for i in 0..m {
        let w = (common::xorshift(&mut x) % 8) as i64;
        let e = if i % 8 == 7 {
            let (u, v, _) = raw[(common::xorshift(&mut x) % raw.len() as u64) as usize];
            if i % 16 == 7 {
                (v, u, w)
            } else {
                (u, v, w)
            }
        } else {
            let u = (common::xorshift(&mut x) % used) as u32;
            let v = if i % 20 == 0 {
                u
            } else {
                (common::xorshift(&mut x) % used) as u32
            };
            (u, v, w)
        };
        raw.push(e);
    }
    raw
}

/// The case of `raw` with i64 weights `(seed - 3) * 2^33`: as wide apart as Borůvka ranks
/// them (more than 2^32), with totals that fit. Its forest is the narrow one's (seeds - 3),
/// weights and total scaled.
fn wide_case(n: u32, raw: &[(u32, u32, i64)], directed: bool) -> (Graph, mst::SpanningForest) {
    let (_, narrow) = case(n as usize, raw, directed, Kind::I64Narrow);
    let scale = |w: i64| w << 33;
    let w: Vec<i64> = raw.iter().map(|e| scale(e.2 - 3)).collect();
    let g = EdgeList::new(
        u64::from(n),
        raw.iter().map(|e| e.0).collect(),
        raw.iter().map(|e| e.1).collect(),
        Weights::I64(w.into()),
    )
    .unwrap()
    .build(&BuildOptions {
        directed,
        ..Default::default()
    })
    .unwrap();
    let Weights::I64(fw) = &narrow.weights else {
        unreachable!("i64 weights")
    };
    let Number::Int(total) = narrow.total_weight else {
        unreachable!("an integer total")
    };
    let want = mst::SpanningForest {
        weights: Weights::I64(fw.iter().map(|&x| scale(x)).collect::<Vec<_>>().into()),
        total_weight: Number::Int(scale(total)),
        ..narrow
    };
    (g, want)
}

/// Forests of tens of thousands of edges (the sort's tiles are 4,096 keys), every weight
/// type (i64 narrow, and wide apart: ranked; floats with both zeros), directed and
/// undirected: the same edges, weights and total as the oracle and the CPU, in the
/// documented order.
#[test]
fn large_forests_come_back_sorted_edge_for_edge() {
    let Some(gpu) = common::gpu() else { return };
    // (I64Wide's weights, 2^55 apart, overflow the totals of forests this large: the
    // wide weights are wide_case's.)
    let kinds = [Kind::None, Kind::I32, Kind::I64Narrow, Kind::F32, Kind::F64];
    for (k, kind) in kinds.into_iter().enumerate() {
        for (n, m) in [(3_000u32, 2_500usize), (90_000, 100_000), (60_000, 400_000)] {
            for directed in [false, true] {
                let what = format!("{kind:?} n={n} m={m} directed={directed}");
                let raw = raw_edges(n, m, 77 + k as u64 + u64::from(n));
                let (g, want) = case(n as usize, &raw, directed, kind);
                let got = check_against(&gpu, &g, &want, &what);
                assert_in_order(&got, &what);
                assert!(got.edges.len() > 1_000, "{what}: a forest of many tiles");
                if matches!(kind, Kind::I64Narrow) {
                    let (g, want) = wide_case(n, &raw, directed);
                    let got = check_against(&gpu, &g, &want, &format!("wide, {what}"));
                    assert_in_order(&got, &what);
                }
            }
        }
    }
}

/// Integer totals summed on the GPU: exact where the sum fits in i64 though the weights
/// are near its ends (and their halves' sums carry), and the CPU's overflow error where it
/// does not.
#[test]
fn integer_totals_are_exact_and_overflow_as_on_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let path = |w: Vec<i64>| {
        let n = w.len() as u32 + 1;
        let g = undirected(
            u64::from(n),
            (0..n - 1).collect(),
            (1..n).collect(),
            Weights::I64(w.into()),
        );
        let got = cuda::boruvka(&gpu, &g).map(|(f, _)| f);
        (got, mst::cpu::boruvka(&g))
    };
    let fits = vec![
        i64::MAX,
        i64::MIN + 1,
        -1,
        i64::MAX - 7,
        i64::MIN / 2,
        i64::MIN / 2,
        3,
        -(1 << 32),
        (1 << 32) - 1,
    ];
    let exact: i128 = fits.iter().map(|&x| i128::from(x)).sum();
    let (got, want) = path(fits);
    let (got, want) = (got.unwrap(), want.unwrap());
    assert_same(&got, &want);
    assert_eq!(got.total_weight, Number::Int(exact as i64));
    assert_eq!(exact, -7);
    for w in [
        vec![i64::MAX, 1],
        vec![i64::MIN, -1],
        vec![i64::MAX / 2 + 1; 2],
    ] {
        let (got, want) = path(w.clone());
        assert!(matches!(got, Err(Error::Overflow(_))), "{w:?}: {got:?}");
        assert!(matches!(want, Err(Error::Overflow(_))), "{w:?}");
    }
    // i32 weights: the total of many i32::MIN and i32::MAX is exact.
    let n = 50_001u32;
    let w: Vec<i32> = (0..n - 1)
        .map(|i| if i % 3 == 0 { i32::MAX } else { i32::MIN })
        .collect();
    let g = undirected(
        u64::from(n),
        (0..n - 1).collect(),
        (1..n).collect(),
        Weights::I32(w.into()),
    );
    check(&gpu, &g, "i32 extremes");
}

/// Forests of no edge (vertices only, or self loops only) and of one edge, every weight
/// type: nothing or one key to sort.
#[test]
fn forests_of_no_edge_or_one() {
    let Some(gpu) = common::gpu() else { return };
    let kinds = [
        Kind::None,
        Kind::I32,
        Kind::I64Narrow,
        Kind::I64Wide,
        Kind::F32,
        Kind::F64,
    ];
    for kind in kinds {
        for (n, raw) in [
            (4usize, vec![]),
            (3, vec![(1u32, 1u32, 2i64), (2, 2, 5)]),
            (2, vec![(0, 1, 1)]),
            (5, vec![(4, 2, 3), (2, 4, 6), (3, 3, 0)]),
        ] {
            for directed in [false, true] {
                let what = format!("{kind:?} n={n} {raw:?} directed={directed}");
                let (g, want) = case(n, &raw, directed, kind);
                check_against(&gpu, &g, &want, &what);
            }
        }
    }
}
