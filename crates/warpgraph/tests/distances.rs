//! Distance tables (`apsp::distances_on`): chosen sources to chosen targets against the
//! serial oracle of the all-pairs tests, on the CPU and (where a GPU can be used, and must
//! with `WARPGRAPH_REQUIRE_GPU=1`) on the GPU; the whole table against Johnson's matrix;
//! empty and invalid selections; the verifier on tables, and that it catches a wrong one.

mod apsp_support;
mod common;

use std::sync::Arc;

use apsp_support::{graph_strategy, TestGraph, INF};
use proptest::prelude::*;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{
    apsp_matrix, distances_on, Algorithm, ApspOptions, Axis, Backend, DistTable, DistType, Dists,
    MatrixSink, RowBlock, RowSink, Selection, VerifyingSink,
};
use warpgraph::generate::rng::Rng;
use warpgraph::{BuildOptions, EdgeList, Error, Graph, NoProgress, VertexId, Weights, NO_VERTEX};

/// The table of `sel` on `backend`, verified on the way.
fn table(
    g: &Graph,
    sel: &Selection,
    pred: bool,
    backend: Backend<'_>,
) -> warpgraph::Result<DistTable> {
    let mut out = MatrixSink::new();
    let mut sink = VerifyingSink::new(g, &mut out);
    let opts = ApspOptions { predecessors: pred };
    distances_on(g, sel, &opts, backend, &mut sink, &NoProgress)?;
    out.into_table()
}

/// Asserts that `t` holds the oracle's distances of its pairs, and that each predecessor
/// is the tail of an arc into its target whose weight closes the distance.
fn assert_table(tg: &TestGraph, t: &DistTable, what: &str) {
    let (k, c) = (t.rows.len(), t.cols.len());
    let arcs = tg.arcs();
    let exact = |x: f64| x;
    if tg.w.is_float() {
        let o = tg.oracle(0.0f64, |i| tg.w.get(i));
        let d = t.as_f64().unwrap_or_else(|| panic!("{what}: expected f64"));
        for i in 0..k {
            for j in 0..c {
                let (s, v) = (t.rows.vertex(i) as usize, t.cols.vertex(j) as usize);
                let want = o[s][v].unwrap_or(f64::INFINITY);
                assert_eq!(d[i * c + j], exact(want), "{what}: d({s},{v}) in {tg:?}");
            }
        }
    } else {
        let o = tg.oracle(0i128, |i| tg.w.get_int(i));
        let d = t.as_i64().unwrap_or_else(|| panic!("{what}: expected i64"));
        for i in 0..k {
            for j in 0..c {
                let (s, v) = (t.rows.vertex(i) as usize, t.cols.vertex(j) as usize);
                let want = o[s][v].map_or(INF, |x| i64::try_from(x).unwrap());
                assert_eq!(d[i * c + j], want, "{what}: d({s},{v}) in {tg:?}");
            }
        }
    }
    let Some(p) = t.predecessors() else {
        return;
    };
    let o = tg.oracle(0.0f64, |i| tg.w.get(i));
    for i in 0..k {
        for j in 0..c {
            let (s, v) = (t.rows.vertex(i) as usize, t.cols.vertex(j) as usize);
            let pv = p[i * c + j];
            match (s == v, o[s][v]) {
                (true, _) => assert_eq!(pv, s as VertexId, "{what}: pred of the source"),
                (false, None) => assert_eq!(pv, NO_VERTEX, "{what}: pred of unreachable {v}"),
                (false, Some(dv)) => {
                    let u = pv as usize;
                    let tight = arcs.iter().any(|&(a, b, e)| {
                        a == u && b == v && o[s][u].is_some_and(|du| du + tg.w.get(e) == dv)
                    });
                    assert!(tight, "{what}: pred {pv} of {v} from {s} in {tg:?}");
                }
            }
        }
    }
}

/// `k` vertices of `n` drawn with repeats (a list), or every vertex.
fn axis(rng: &mut Rng, n: usize, k: usize, all: bool) -> Axis {
    if all || n == 0 {
        return Axis::All(n);
    }
    let v: Vec<VertexId> = (0..k).map(|_| rng.below(n as u64) as VertexId).collect();
    Axis::List(Arc::from(v))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Any sources and targets (repeats, every vertex, none), with and without
    /// predecessors: the oracle's distances, verified; the GPU's table (without
    /// predecessors, which it refuses) equal to the CPU's.
    #[test]
    fn tables_agree_with_the_oracle(
        tg in graph_strategy(80), seed: u64, k in 0usize..12, c in 0usize..12, shape in 0u8..4,
    ) {
        let g = tg.build();
        let mut rng = Rng::new(seed);
        let sel = Selection {
            sources: axis(&mut rng, tg.n, k, shape == 1),
            targets: axis(&mut rng, tg.n, c, shape == 2),
        };
        for pred in [false, true] {
            let what = format!("{sel:?} pred={pred}");
            let t = table(&g, &sel, pred, Backend::Cpu)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_table(&tg, &t, &what);
        }
        if let Some(gpu) = common::gpu() {
            let gpu_table = table(&g, &sel, false, Backend::Cuda(&gpu, FwVariant::Tuned))
                .unwrap_or_else(|e| panic!("GPU {sel:?}: {e}"));
            assert_table(&tg, &gpu_table, &format!("GPU {sel:?}"));
            let t = table(&g, &sel, true, Backend::Cuda(&gpu, FwVariant::Tuned));
            prop_assert!(matches!(t, Err(Error::Unsupported(_))), "GPU predecessors: {t:?}");
        }
    }
}

/// The whole table is Johnson's all-pairs matrix, on the CPU and the GPU.
#[test]
fn the_whole_table_is_the_matrix() {
    let (src, dst, w) = arcs(&mut Rng::new(3), 400, 1600, true);
    let g = build(400, src, dst, Weights::from(w), true);
    let m = apsp_matrix(&g, Algorithm::Johnson, &ApspOptions::default()).unwrap();
    let all = Selection::all(400);
    let t = table(&g, &all, false, Backend::Cpu).unwrap();
    assert_eq!(t.as_i64(), m.as_i64());
    if let Some(gpu) = common::gpu() {
        let t = table(&g, &all, false, Backend::Cuda(&gpu, FwVariant::Tuned)).unwrap();
        assert_eq!(t.as_i64(), m.as_i64(), "GPU");
    }
}

/// Many sources in several batches and rows too wide for shared memory on the GPU (the
/// columns gathered from rows in device memory): the CPU's table, cell for cell, with
/// integer and float weights, negative ones by potentials.
#[test]
fn gpu_tables_of_many_sources() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let n = 60_000;
    let (src, dst, w) = arcs(&mut Rng::new(5), n, 4 * n, true);
    let float: Vec<f64> = w.iter().map(|&x| x as f64 / 4.0).collect();
    let mut rng = Rng::new(9);
    let sel = Selection {
        sources: axis(&mut rng, n, 5000, false),
        targets: axis(&mut rng, n, 700, false),
    };
    for weights in [Weights::from(w), Weights::from(float)] {
        let g = build(n, src.clone(), dst.clone(), weights, true);
        let what = format!("{:?}", g.weight_type());
        let cpu = table(&g, &sel, false, Backend::Cpu).unwrap();
        let on_gpu = table(&g, &sel, false, Backend::Cuda(&gpu, FwVariant::Tuned)).unwrap();
        assert_eq!(on_gpu, cpu, "{what}");
    }
}

/// Searches that stop once their targets are settled (targets in one corner of a grid too
/// large for shared memory, sources anywhere; with an isolated target, nothing stops
/// early), with 32-bit cells (small weights) and 64-bit ones (path sums past 2^32): the
/// CPU's table, cell for cell.
#[test]
fn gpu_tables_stop_at_their_targets() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let side = 320usize;
    let n = side * side + 1;
    let mut rng = Rng::new(21);
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for v in 0..side * side {
        let (r, c) = (v / side, v % side);
        for (ok, u) in [(c + 1 < side, v + 1), (r + 1 < side, v + side)] {
            if ok {
                src.push(v as u32);
                dst.push(u as u32);
                w.push(1 + rng.below(100) as i64);
            }
        }
    }
    let corner: Vec<VertexId> = (0..40)
        .map(|i| (i % 8 + (i / 8) * side) as VertexId)
        .collect();
    let sources = axis(&mut rng, side * side, 300, false);
    for scale in [1i64, 100_000_000] {
        let weights = Weights::from(w.iter().map(|&x| x * scale).collect::<Vec<_>>());
        let g = build(n, src.clone(), dst.clone(), weights, false);
        for isolated in [false, true] {
            let mut targets = corner.clone();
            if isolated {
                targets.push((n - 1) as VertexId);
            }
            let sel = Selection {
                sources: sources.clone(),
                targets: Axis::List(Arc::from(targets)),
            };
            let what = format!("scale {scale}, isolated target {isolated}");
            let cpu = table(&g, &sel, false, Backend::Cpu).unwrap();
            let on_gpu = table(&g, &sel, false, Backend::Cuda(&gpu, FwVariant::Tuned)).unwrap();
            assert_eq!(on_gpu, cpu, "{what}");
        }
    }
}

/// No sources or no targets: an empty table; a vertex out of range: an error naming it;
/// a negative cycle anywhere: refused.
#[test]
fn empty_invalid_and_negative_cycles() {
    let g = build(
        3,
        vec![0, 1],
        vec![1, 2],
        Weights::from(vec![2i64, 3]),
        true,
    );
    let none = Axis::List(Arc::from(Vec::<VertexId>::new()));
    for sel in [
        Selection {
            sources: none.clone(),
            targets: Axis::All(3),
        },
        Selection {
            sources: Axis::All(3),
            targets: none,
        },
    ] {
        let t = table(&g, &sel, false, Backend::Cpu).unwrap();
        assert_eq!(t.as_i64(), Some(&[][..]), "{sel:?}");
    }
    let bad = Selection {
        sources: Axis::List(Arc::from(vec![0, 3])),
        targets: Axis::All(3),
    };
    let e = table(&g, &bad, false, Backend::Cpu).unwrap_err();
    assert!(e.to_string().contains("vertex 3"), "{e}");
    let cyc = build(
        4,
        vec![2, 3, 0],
        vec![3, 2, 1],
        Weights::from(vec![1i64, -2, 1]),
        true,
    );
    let sel = Selection {
        sources: Axis::List(Arc::from(vec![0])),
        targets: Axis::List(Arc::from(vec![1])),
    };
    let r = table(&cyc, &sel, false, Backend::Cpu);
    assert!(matches!(r, Err(Error::NegativeCycle { .. })), "{r:?}");
}

/// The verifier passes a right table and fails a wrong distance or predecessor in a
/// sampled row.
#[test]
fn the_verifier_catches_a_wrong_table() {
    // Path 0 -> 1 -> 2 -> 3, weights 1, 2, 3.
    let g = build(
        4,
        vec![0, 1, 2],
        vec![1, 2, 3],
        Weights::from(vec![1i64, 2, 3]),
        true,
    );
    let sel = Selection {
        sources: Axis::List(Arc::from(vec![0, 1])),
        targets: Axis::List(Arc::from(vec![3, 1])),
    };
    let feed = |dist: &[i64], pred: Option<&[VertexId]>| {
        let mut out = MatrixSink::new();
        let mut sink = VerifyingSink::new(&g, &mut out);
        sink.begin(&sel.info(4, DistType::I64, pred.is_some()))?;
        sink.rows(&RowBlock {
            first: 0,
            row_len: 2,
            dist: Dists::I64(dist),
            pred,
        })?;
        sink.finish()
    };
    feed(&[6, 1, 5, 0], None).unwrap();
    feed(&[6, 1, 5, 0], Some(&[2, 0, 2, 1])).unwrap();
    assert!(feed(&[6, 1, 4, 0], None).is_err(), "a wrong distance");
    assert!(
        feed(&[6, 1, 5, 0], Some(&[1, 0, 2, 1])).is_err(),
        "a wrong predecessor"
    );
    assert!(
        feed(&[6, 1, 5, 0], Some(&[2, 0, 2, 0])).is_err(),
        "a source's predecessor"
    );
}

/// Random arcs on `n` vertices with weights `base + h(u) - h(v)` (`negative`: some `h`
/// below 0, so some weights are negative, without a negative cycle).
fn arcs(rng: &mut Rng, n: usize, m: usize, negative: bool) -> (Vec<u32>, Vec<u32>, Vec<i64>) {
    let h: Vec<i64> = (0..n)
        .map(|_| match negative {
            true => -(rng.below(100) as i64),
            false => 0,
        })
        .collect();
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..m {
        let (u, v) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        src.push(u);
        dst.push(v);
        w.push(1 + rng.below(100) as i64 + h[u as usize] - h[v as usize]);
    }
    (src, dst, w)
}

fn build(n: usize, src: Vec<u32>, dst: Vec<u32>, w: Weights, directed: bool) -> Graph {
    EdgeList::new(n as u64, src, dst, w)
        .unwrap()
        .build(&BuildOptions {
            directed,
            ..Default::default()
        })
        .unwrap()
}

/// An unweighted small-world graph's table (multi-source BFS, 64 sources a pass, here 150
/// of them with repeats, to listed and to all targets) equals the table of the same graph
/// with every weight 1 (a Dijkstra per source).
#[test]
fn multi_source_bfs_tables_equal_dijkstra_tables() {
    use warpgraph::generate::{generate, GenerateOptions, Generator};
    let spec = Generator::Kronecker {
        scale: 10,
        edge_factor: 16,
    };
    let unweighted = generate(
        &spec,
        &GenerateOptions {
            weights: warpgraph::generate::WeightSpec::None,
            ..Default::default()
        },
    )
    .unwrap();
    let csr = unweighted.out();
    let ones = EdgeList::new(
        unweighted.num_vertices() as u64,
        (0..unweighted.num_vertices() as u32)
            .flat_map(|u| csr.row(u).map(move |_| u))
            .collect(),
        csr.targets().to_vec(),
        Weights::from(vec![1i32; csr.targets().len()]),
    )
    .unwrap()
    .build(&BuildOptions::default())
    .unwrap();
    let n = unweighted.num_vertices();
    let mut rng = Rng::new(11);
    // The best connected vertex and a neighbour of it: every pass whose sources all
    // reach them stops before its frontier is empty.
    let hub = (0..n as u32).max_by_key(|&u| csr.row(u).len()).unwrap();
    let near = [hub, csr.targets()[csr.row(hub).start]];
    let linked: Vec<VertexId> = (0..n as u32).filter(|&u| !csr.row(u).is_empty()).collect();
    for targets in [
        axis(&mut rng, n, 300, false),
        Axis::All(n),
        Axis::List(Arc::from(near)),
    ] {
        // (Sources with arcs for the near targets, so that passes can stop early.)
        let sources = match targets.len() {
            2 => Axis::List(
                (0..150)
                    .map(|_| linked[rng.below(linked.len() as u64) as usize])
                    .collect(),
            ),
            _ => axis(&mut rng, n, 150, false),
        };
        let sel = Selection { sources, targets };
        let bfs = table(&unweighted, &sel, false, Backend::Cpu).unwrap();
        let dijkstra = table(&ones, &sel, false, Backend::Cpu).unwrap();
        assert_eq!(bfs.as_i64(), dijkstra.as_i64(), "{:?}", sel.targets.len());
        if let Some(gpu) = common::gpu() {
            // (150 sources: two passes of 128 on the GPU, the second partial.)
            let on_gpu = table(
                &unweighted,
                &sel,
                false,
                Backend::Cuda(&gpu, FwVariant::Tuned),
            );
            assert_eq!(on_gpu.unwrap().as_i64(), dijkstra.as_i64(), "GPU");
        }
    }
}

/// The GPU's multi-source BFS with a hub of more arcs than a warp takes (the whole grid
/// shares them), 1,100 sources (a pass of 1,024 and a partial one) with repeats and the
/// hub among them, a vertex no source reaches, and a pass that stops at its targets: the
/// CPU's table, cell for cell.
#[test]
fn gpu_multi_source_bfs_tables() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let n = 6000;
    let mut rng = Rng::new(17);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    // A star on 0 over vertices 1..5,000 and random edges among 0..5,999; vertex 5,999
    // has no edge.
    for v in 1..5000u32 {
        src.push(0);
        dst.push(v);
    }
    while src.len() < 25_000 {
        let (u, v) = (
            rng.below(n as u64 - 1) as u32,
            rng.below(n as u64 - 1) as u32,
        );
        src.push(u);
        dst.push(v);
    }
    let g = build(n, src, dst, Weights::None, false);
    let mut sources = axis(&mut rng, n, 1100, false);
    if let Axis::List(list) = &mut sources {
        let mut v = list.to_vec();
        v[7] = 0;
        v[1050] = (n - 1) as VertexId;
        *list = Arc::from(v);
    }
    // (The hub and a leaf: the first pass stops once every source has reached both,
    // with vertices still on its frontier.)
    let near = Axis::List(Arc::from(vec![0, 3]));
    for targets in [axis(&mut rng, n, 700, false), Axis::All(n), near] {
        let sel = Selection {
            sources: sources.clone(),
            targets,
        };
        let cpu = table(&g, &sel, false, Backend::Cpu).unwrap();
        let on_gpu = table(&g, &sel, false, Backend::Cuda(&gpu, FwVariant::Tuned)).unwrap();
        assert_eq!(on_gpu, cpu, "{:?}", sel.targets.len());
    }
}
