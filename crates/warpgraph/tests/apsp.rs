//! All-pairs shortest paths: Floyd-Warshall and Johnson against a serial oracle (every
//! compilation of the CPU's tile kernels too), negative cycles, hand-written golden
//! results, wide weights and overflow, and the choice of algorithm. The GPU's
//! Floyd-Warshall variants, alone and in teams, run beside the CPU's where a GPU can be
//! used (and must with `WARPGRAPH_REQUIRE_GPU=1`; see `common::gpu`). The verifier and the
//! sinks are tested in `apsp_output`.

mod apsp_support;
mod common;

use std::str::FromStr;

use apsp_support::{check_paths, graph, graph_strategy, run, TestGraph, TestWeights, INF};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::{
    apsp, apsp_matrix, cpu, verify_matrix, verify_negative_cycle, Algorithm, ApspOptions,
    DistMatrix, DistType, MatrixSink,
};
use warpgraph::generate::rng::Rng;
use warpgraph::{BuildOptions, EdgeList, Error, Graph, NoProgress, Weights};

/// The GPU's Floyd-Warshall variants and (without predecessors, which it refuses) its
/// Johnson on `g`, each result as a matrix (none where no GPU can be used).
fn gpu_fw(g: &Graph, predecessors: bool) -> Vec<(String, warpgraph::Result<DistMatrix>)> {
    let Some(gpu) = common::gpu() else {
        return Vec::new();
    };
    let opts = ApspOptions { predecessors };
    let mut out: Vec<(String, warpgraph::Result<DistMatrix>)> =
        [FwVariant::Naive, FwVariant::Blocked, FwVariant::Tuned]
            .into_iter()
            .map(|v| {
                let mut sink = MatrixSink::new();
                let r = warpgraph::apsp::cuda::floyd_warshall(
                    &gpu,
                    g,
                    &opts,
                    v,
                    &mut sink,
                    &NoProgress,
                )
                .and_then(|_| sink.into_matrix());
                (v.to_string(), r)
            })
            .collect();
    let mut sink = MatrixSink::new();
    let r = warpgraph::apsp::cuda::johnson(&gpu, g, &opts, &mut sink, &NoProgress);
    match (predecessors, r) {
        (true, Err(Error::Unsupported(_))) => {}
        (true, r) => panic!("GPU johnson with predecessors: expected Unsupported, got {r:?}"),
        (false, r) => out.push(("johnson".into(), r.and_then(|_| sink.into_matrix()))),
    }
    out
}
proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Every algorithm, with and without predecessors, equals the oracle and passes the
    /// verifier; the predecessors spell out shortest paths.
    #[test]
    fn algorithms_agree_with_the_oracle(tg in graph_strategy(150)) {
        let g = tg.build();
        for a in [Algorithm::FloydWarshall, Algorithm::Johnson, Algorithm::Auto] {
            for pred in [false, true] {
                let m = run(&g, a, pred);
                tg.assert_matches(&m, &format!("{a} pred={pred}"));
                if let Err(e) = verify_matrix(&g, &m) {
                    panic!("{a} pred={pred}: {e}");
                }
                if pred {
                    check_paths(&tg, &m);
                }
            }
        }
        for pred in [false, true] {
            for (v, m) in gpu_fw(&g, pred) {
                let m = m.unwrap_or_else(|e| panic!("GPU {v} pred={pred}: {e}"));
                tg.assert_matches(&m, &format!("GPU {v} pred={pred}"));
                if let Err(e) = verify_matrix(&g, &m) {
                    panic!("GPU {v} pred={pred}: {e}");
                }
                if pred {
                    check_paths(&tg, &m);
                }
            }
        }
    }

    /// A planted negative cycle is reported by both algorithms, and the cycle is real.
    #[test]
    fn negative_cycles_are_found(tg in graph_strategy(90), len in 1usize..6, seed: u64) {
        prop_assume!(tg.n >= 1 && !matches!(tg.w, TestWeights::None));
        let mut tg = tg;
        tg.directed = true;
        let mut rng = warpgraph::generate::rng::Rng::new(seed);
        let len = len.min(tg.n);
        let mut cyc: Vec<u32> = Vec::new();
        while cyc.len() < len {
            let v = rng.below(tg.n as u64) as u32;
            if !cyc.contains(&v) {
                cyc.push(v);
            }
        }
        // Weights 3 each except one, so the cycle weighs -1.
        let ws: Vec<i64> = (0..len).map(|i| if i == 0 { -(3 * len as i64 - 2) } else { 3 }).collect();
        for i in 0..len {
            tg.src.push(cyc[i]);
            tg.dst.push(cyc[(i + 1) % len]);
            let w = ws[i];
            match &mut tg.w {
                TestWeights::I32(v) => v.push(w as i32),
                TestWeights::I64(v) => v.push(w),
                TestWeights::F32(v) => v.push(w as f32),
                TestWeights::F64(v) => v.push(w as f64),
                TestWeights::None => unreachable!(),
            }
        }
        let g = tg.build();
        for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
            for pred in [false, true] {
                match apsp_matrix(&g, a, &ApspOptions { predecessors: pred }) {
                    Err(Error::NegativeCycle { cycle, weight }) => {
                        let total = verify_negative_cycle(&g, &cycle).unwrap();
                        prop_assert!(total < 0.0);
                        prop_assert_eq!(weight.parse::<f64>().unwrap(), total);
                    }
                    other => panic!("{a}: expected a negative cycle, got {other:?}"),
                }
            }
        }
        for pred in [false, true] {
            for (v, r) in gpu_fw(&g, pred) {
                match r {
                    Err(Error::NegativeCycle { cycle, .. }) => {
                        prop_assert!(verify_negative_cycle(&g, &cycle).unwrap() < 0.0);
                    }
                    other => panic!("GPU {v}: expected a negative cycle, got {other:?}"),
                }
            }
        }
    }
}

/// Floyd-Warshall on teams of GPUs (`fw-blocked` and `fw-tuned`, matrix split by rows,
/// pivot rows broadcast through NCCL) on each team size the machine allows: the
/// oracle's distances, valid predecessor paths, the single GPU's matrix cell for cell, and
/// negative cycles found.
fn team_fw(g: &Graph, runs: &[(FwVariant, bool)]) -> Vec<(String, warpgraph::Result<DistMatrix>)> {
    let mut out = Vec::new();
    // Teams of two ranks and more (on GPUs of their own, or sharing GPU 0), and a team of
    // one over NCCL: setting a team up costs a second or so.
    for spec in common::teams()
        .into_iter()
        .filter(|t| t.world > 1 || t.over_nccl)
    {
        let size = spec.describe();
        for &(v, predecessors) in runs {
            let mut sink = MatrixSink::new();
            let r = warpgraph::apsp::cuda::floyd_warshall_team(
                &spec,
                g,
                &ApspOptions { predecessors },
                v,
                &mut sink,
                &NoProgress,
            )
            .and_then(|_| sink.into_matrix());
            out.push((format!("{v} pred={predecessors} on {size}"), r));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn teams_agree_with_the_oracle(tg in graph_strategy(300)) {
        let g = tg.build();
        if common::gpu().is_none() {
            return Ok(());
        }
        let mut one = MatrixSink::new();
        let gpu = common::gpu().unwrap();
        warpgraph::apsp::cuda::floyd_warshall(
            &gpu, &g, &ApspOptions::default(), FwVariant::Blocked, &mut one, &NoProgress,
        ).unwrap();
        let one = one.into_matrix().unwrap();
        let runs = [(FwVariant::Tuned, false), (FwVariant::Blocked, false), (FwVariant::Blocked, true)];
        for (v, m) in team_fw(&g, &runs) {
            let m = m.unwrap_or_else(|e| panic!("{v}: {e}"));
            tg.assert_matches(&m, &v);
            if m.predecessors().is_some() {
                check_paths(&tg, &m);
            } else {
                prop_assert_eq!(&m, &one, "{} against one GPU", v);
            }
        }
    }

    #[test]
    fn teams_find_negative_cycles(n in 2usize..200, seed: u64) {
        if common::gpu().is_none() {
            return Ok(());
        }
        let mut rng = warpgraph::generate::rng::Rng::new(seed);
        let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..3 * n {
            src.push(rng.below(n as u64) as u32);
            dst.push(rng.below(n as u64) as u32);
            w.push(rng.below(20) as i64);
        }
        // A cycle through the last rows (on the last GPU) weighing -1.
        let (a, b) = (n as u32 - 1, rng.below(n as u64 - 1) as u32);
        src.extend([a, b]);
        dst.extend([b, a]);
        w.extend([2, -3]);
        let g = EdgeList::new(n as u64, src, dst, Weights::from(w))
            .unwrap()
            .build(&BuildOptions::default())
            .unwrap();
        for (v, r) in team_fw(&g, &[(FwVariant::Tuned, false), (FwVariant::Blocked, true)]) {
            match r {
                Err(Error::NegativeCycle { cycle, .. }) => {
                    prop_assert!(verify_negative_cycle(&g, &cycle).unwrap() < 0.0);
                }
                other => panic!("{v}: expected a negative cycle, got {other:?}"),
            }
        }
    }
}

#[test]
fn teams_refuse_what_they_cannot_do() {
    let Some(spec) = common::teams().pop() else {
        return;
    };
    let g = graph(3, &[(0, 1)], Weights::None, true);
    let mut sink = MatrixSink::new();
    let e = warpgraph::apsp::cuda::floyd_warshall_team(
        &spec,
        &g,
        &ApspOptions::default(),
        FwVariant::Naive,
        &mut sink,
        &NoProgress,
    )
    .unwrap_err();
    assert!(e.to_string().contains("fw-naive runs on one GPU"), "{e}");
}

/// A team spread over two "processes" (two threads, each driving one GPU as its own part
/// of the team, joined through an id file): rank 0's part gets the single GPU's matrix,
/// predecessors included, and a negative cycle reaches both parts; the other part's sink
/// gets nothing.
#[test]
fn a_team_spanning_processes_gathers_the_rows() {
    if !common::team_sizes().contains(&2) {
        eprintln!("skipped: needs two GPUs");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run_parts = |g: &Graph, job: &str, variant: FwVariant, predecessors: bool| {
        let id_file = dir.path().join(job);
        let part = |rank: usize| warpgraph::cuda::team::TeamSpec {
            world: 2,
            first_rank: rank,
            gpus: vec![rank],
            id_file: Some(id_file.clone()),
            ..warpgraph::cuda::team::TeamSpec::local(1)
        };
        let opts = ApspOptions { predecessors };
        std::thread::scope(|s| {
            let go = |rank: usize| {
                let opts = &opts;
                let part = part(rank);
                move || {
                    let mut sink = MatrixSink::new();
                    let r = warpgraph::apsp::cuda::floyd_warshall_team(
                        &part,
                        g,
                        opts,
                        variant,
                        &mut sink,
                        &NoProgress,
                    );
                    (r, sink)
                }
            };
            let a = s.spawn(go(0));
            let b = s.spawn(go(1));
            (a.join().unwrap(), b.join().unwrap())
        })
    };
    // 300 vertices: five tile rows of 64, three on rank 0 and two on rank 1.
    let mut rng = Rng::new(7);
    let n = 300u64;
    let edges: Vec<(u32, u32)> = (0..4 * n)
        .map(|_| (rng.below(n) as u32, rng.below(n) as u32))
        .collect();
    let weights: Vec<i64> = (0..edges.len()).map(|_| rng.below(50) as i64).collect();
    let g = graph(n, &edges, Weights::from(weights), true);
    let gpu = common::gpu().unwrap();
    for (variant, predecessors) in [(FwVariant::Tuned, false), (FwVariant::Blocked, true)] {
        let mut one = MatrixSink::new();
        warpgraph::apsp::cuda::floyd_warshall(
            &gpu,
            &g,
            &ApspOptions { predecessors },
            variant,
            &mut one,
            &NoProgress,
        )
        .unwrap();
        let one = one.into_matrix().unwrap();
        let job = format!("{variant}-{predecessors}.id");
        let ((ra, sa), (rb, sb)) = run_parts(&g, &job, variant, predecessors);
        ra.unwrap();
        rb.unwrap();
        assert_eq!(
            sa.into_matrix().unwrap(),
            one,
            "{variant} pred={predecessors}"
        );
        assert!(sb.into_matrix().is_err(), "rank 1's sink must get no rows");
    }
    // A negative cycle on rank 1's rows (vertices 299 and 5): both parts report it.
    let mut src: Vec<u32> = edges.iter().map(|e| e.0).collect();
    let mut dst: Vec<u32> = edges.iter().map(|e| e.1).collect();
    let mut w: Vec<i64> = (0..edges.len()).map(|_| 1).collect();
    src.extend([299, 5]);
    dst.extend([5, 299]);
    w.extend([2, -3]);
    let g = EdgeList::new(n, src, dst, Weights::from(w))
        .unwrap()
        .build(&BuildOptions::default())
        .unwrap();
    let ((ra, _), (rb, _)) = run_parts(&g, "cycle.id", FwVariant::Tuned, false);
    for r in [ra, rb] {
        match r {
            Err(Error::NegativeCycle { cycle, .. }) => {
                assert!(verify_negative_cycle(&g, &cycle).unwrap() < 0.0)
            }
            other => panic!("expected a negative cycle, got {other:?}"),
        }
    }
}

/// `3n` random arcs on `n` vertices weighing `(0..20 + h(u) - h(v)) * scale` for a random
/// potential `h` in -49..=0: negative weights, no negative cycle. `scale` 0 draws no
/// potential and gives weights 0..20.
fn potential_arcs(rng: &mut Rng, n: usize, scale: i64) -> (Vec<u32>, Vec<u32>, Vec<i64>) {
    let h: Vec<i64> = (0..n)
        .map(|_| match scale {
            0 => 0,
            _ => -(rng.below(50) as i64),
        })
        .collect();
    let scale = scale.max(1);
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 * n {
        let (u, v) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
        src.push(u);
        dst.push(v);
        w.push((rng.below(20) as i64 + h[u as usize] - h[v as usize]) * scale);
    }
    (src, dst, w)
}

/// The GPU's variants (Floyd-Warshall's and Johnson) on graphs bigger than a tile row (n not a multiple of 32 or 64,
/// negative weights by potentials, unreachable pairs): equal to the CPU's Floyd-Warshall;
/// wide integer weights (times 2^20) take i64 cells, and weights that need 128-bit sums
/// are refused.
#[test]
fn gpu_apsp_matches_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let mut rng = Rng::new(7);
    // Scale 0 below: no potentials, so no negative weight (fw-tuned's own third phase).
    for (n, scale) in [
        (1usize, 1i64),
        (333, 1),
        (700, 1),
        (300, 1 << 20),
        (1000, 0),
        (130, 0),
    ] {
        let (src, dst, w) = potential_arcs(&mut rng, n, scale);
        let scale = scale.max(1);
        let g = EdgeList::new(n as u64, src, dst, Weights::from(w))
            .unwrap()
            .build(&BuildOptions::default())
            .unwrap();
        let cpu = run(&g, Algorithm::FloydWarshall, false);
        for (v, m) in gpu_fw(&g, false) {
            assert_eq!(m.unwrap(), cpu, "GPU {v}, n {n}, scale {scale}");
        }
    }
    let huge = EdgeList::new(
        3,
        vec![0, 1],
        vec![1, 2],
        Weights::from(vec![i64::MAX / 2; 2]),
    )
    .unwrap()
    .build(&BuildOptions::default())
    .unwrap();
    for (v, r) in gpu_fw(&huge, false) {
        match v.as_str() {
            // Johnson sums in i64 with checks: 2^63 - 2 fits.
            "johnson" => assert_eq!(r.unwrap(), run(&huge, Algorithm::Johnson, false)),
            _ => assert!(matches!(r, Err(Error::Unsupported(_))), "GPU {v}: {r:?}"),
        }
    }
}
/// Rows that come back from the GPU in several blocks: Floyd-Warshall on 2,500 vertices
/// (i32, i64 and f64 cells, with and without predecessors) and Johnson on 5,000 (two
/// batches, negative weights), against the CPU.
#[test]
fn gpu_rows_come_back_in_several_blocks() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let random = |n: usize, seed: u64, scale: i64| potential_arcs(&mut Rng::new(seed), n, scale);
    let build = |n: usize, (src, dst, w): (Vec<u32>, Vec<u32>, Weights)| {
        EdgeList::new(n as u64, src, dst, w)
            .unwrap()
            .build(&BuildOptions::default())
            .unwrap()
    };
    let (src, dst, w) = random(2500, 11, 1);
    let wide: Vec<i64> = w.iter().map(|&x| x << 20).collect();
    let float: Vec<f64> = w.iter().map(|&x| x as f64 + 0.5).collect();
    for weights in [Weights::from(w), Weights::from(wide), Weights::from(float)] {
        let g = build(2500, (src.clone(), dst.clone(), weights));
        for pred in [false, true] {
            let opts = ApspOptions { predecessors: pred };
            let cpu = apsp_matrix(&g, Algorithm::FloydWarshall, &opts).unwrap();
            for v in [FwVariant::Blocked, FwVariant::Tuned] {
                let mut sink = MatrixSink::new();
                warpgraph::apsp::cuda::floyd_warshall(&gpu, &g, &opts, v, &mut sink, &NoProgress)
                    .unwrap();
                let m = sink.into_matrix().unwrap();
                let what = format!("GPU {v} pred={pred} {:?}", g.weight_type());
                assert_eq!(m.as_i64(), cpu.as_i64(), "{what}");
                assert_eq!(m.as_f64(), cpu.as_f64(), "{what}");
                verify_matrix(&g, &m).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
        }
    }
    let (src, dst, w) = random(5000, 12, 1);
    let g = build(5000, (src, dst, Weights::from(w)));
    let opts = ApspOptions::default();
    let mut sink = MatrixSink::new();
    warpgraph::apsp::cuda::johnson(&gpu, &g, &opts, &mut sink, &NoProgress).unwrap();
    let cpu = apsp_matrix(&g, Algorithm::Johnson, &opts).unwrap();
    assert_eq!(
        sink.into_matrix().unwrap(),
        cpu,
        "GPU johnson, 5,000 vertices"
    );
}

// ---------------------------------------------------------------------------------------
// Hand-written golden results.
#[test]
fn golden_negative_weights_and_unreachable() {
    //  0 --4--> 1 --(-2)--> 2 --1--> 3      4 (isolated)
    //   \______________5____^
    //  plus a zero self loop at 1 and a heavier parallel arc 1 -> 2 (7)
    let g = graph(
        5,
        &[(0, 1), (1, 2), (0, 2), (2, 3), (1, 1), (1, 2)],
        Weights::from(vec![4i32, -2, 5, 1, 0, 7]),
        true,
    );
    #[rustfmt::skip]
    let want = [
        0, 4, 2, 3, INF,
        INF, 0, -2, -1, INF,
        INF, INF, 0, 1, INF,
        INF, INF, INF, 0, INF,
        INF, INF, INF, INF, 0,
    ];
    #[rustfmt::skip]
    let want_pred = [
        0, 0, 1, 2, u32::MAX,
        u32::MAX, 1, 1, 2, u32::MAX,
        u32::MAX, u32::MAX, 2, 2, u32::MAX,
        u32::MAX, u32::MAX, u32::MAX, 3, u32::MAX,
        u32::MAX, u32::MAX, u32::MAX, u32::MAX, 4,
    ];
    for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
        let m = run(&g, a, true);
        assert_eq!(m.as_i64().unwrap(), &want, "{a}");
        assert_eq!(m.predecessors().unwrap(), &want_pred, "{a}");
        assert_eq!(m.reachable_pairs(), 11);
        verify_matrix(&g, &m).unwrap();
    }
}

#[test]
fn golden_float_weights() {
    // Undirected triangle 0-1 (0.5), 1-2 (0.25), 0-2 (1.0).
    let g = graph(
        3,
        &[(0, 1), (1, 2), (0, 2)],
        Weights::from(vec![0.5f32, 0.25, 1.0]),
        false,
    );
    let want = [0.0, 0.5, 0.75, 0.5, 0.0, 0.25, 0.75, 0.25, 0.0];
    for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
        let m = run(&g, a, false);
        assert_eq!(m.dist_type(), DistType::F64);
        assert_eq!(m.as_f64().unwrap(), &want, "{a}");
    }
}

#[test]
fn empty_and_single_vertex_graphs() {
    for a in [
        Algorithm::FloydWarshall,
        Algorithm::Johnson,
        Algorithm::Auto,
    ] {
        let m = run(&Graph::empty(0, true), a, true);
        assert_eq!(m.num_vertices(), 0);
        assert_eq!(m.as_i64().unwrap(), &[] as &[i64]);
        // One vertex with a positive self loop.
        let g = graph(1, &[(0, 0)], Weights::from(vec![3i64]), true);
        let m = run(&g, a, true);
        assert_eq!(m.as_i64().unwrap(), &[0]);
        assert_eq!(m.predecessors().unwrap(), &[0]);
        // A negative self loop is a negative cycle of one vertex.
        let g = graph(1, &[(0, 0)], Weights::from(vec![-3i64]), true);
        match apsp_matrix(&g, a, &ApspOptions::default()) {
            Err(Error::NegativeCycle { cycle, weight }) => {
                assert_eq!((cycle, weight.as_str()), (vec![0], "-3"));
            }
            other => panic!("{a}: {other:?}"),
        }
    }
}

/// Sizes around the tile edge (64) with a directed path, so that distances cross tiles.
#[test]
fn paths_across_tiles() {
    for n in [63u32, 64, 65, 127, 128, 129, 200] {
        // A path n-1 -> ... -> 0 with weight 2 and shortcuts i -> i - 3 of weight 5.
        let mut e = Vec::new();
        let mut w = Vec::new();
        for i in 1..n {
            e.push((i, i - 1));
            w.push(2i32);
            if i >= 3 {
                e.push((i, i - 3));
                w.push(5);
            }
        }
        let g = graph(n as u64, &e, Weights::from(w), true);
        let fw = run(&g, Algorithm::FloydWarshall, true);
        let jo = run(&g, Algorithm::Johnson, true);
        assert_eq!(fw.as_i64(), jo.as_i64(), "n = {n}");
        let d = fw.as_i64().unwrap();
        let n = n as usize;
        for s in 0..n {
            for t in 0..n {
                let want = if t > s {
                    INF
                } else {
                    let k = (s - t) as i64;
                    5 * (k / 3) + 2 * (k % 3)
                };
                assert_eq!(d[s * n + t], want, "d({s},{t})");
            }
        }
        verify_matrix(&g, &fw).unwrap();
    }
}

// ---------------------------------------------------------------------------------------
// Large weights: the wider sentinels of Floyd-Warshall and overflow checks.

#[test]
fn large_integer_weights_pick_wider_cells_and_stay_exact() {
    // i32 weights near the limits on 70 vertices: (n - 1) * 2^31 exceeds i32 sums.
    let n = 70u32;
    let mut e = Vec::new();
    let mut w = Vec::new();
    let mut rng = Rng::new(7);
    for _ in 0..400 {
        e.push((rng.below(n as u64) as u32, rng.below(n as u64) as u32));
        w.push(i32::MAX - rng.below(1000) as i32);
    }
    let tg = TestGraph {
        n: n as usize,
        src: e.iter().map(|x| x.0).collect(),
        dst: e.iter().map(|x| x.1).collect(),
        w: TestWeights::I32(w),
        directed: true,
    };
    let g = tg.build();
    for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
        tg.assert_matches(&run(&g, a, false), &format!("{a} i32 max"));
    }
    // i64 weights around +-2^60 with potentials: the i128 path; sums stay within i64.
    let h: Vec<i64> = (0..n).map(|i| -((i as i64 % 3) << 59)).collect();
    let w: Vec<i64> = e
        .iter()
        .map(|&(u, v)| (1i64 << 58) + h[u as usize] - h[v as usize])
        .collect();
    let tg = TestGraph {
        w: TestWeights::I64(w),
        ..tg
    };
    let g = tg.build();
    for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
        tg.assert_matches(&run(&g, a, true), &format!("{a} i64 2^60"));
    }
}

#[test]
fn distances_beyond_i64_are_an_overflow_error() {
    // 0 -> 1 -> 2 -> 3 with weights 2^62 each: d(0,3) = 3 * 2^62 > i64::MAX.
    let w = 1i64 << 62;
    let g = graph(
        4,
        &[(0, 1), (1, 2), (2, 3)],
        Weights::from(vec![w, w, w]),
        true,
    );
    for a in [Algorithm::FloydWarshall, Algorithm::Johnson] {
        match apsp_matrix(&g, a, &ApspOptions::default()) {
            Err(Error::Overflow(msg)) => assert!(!msg.is_empty()),
            other => panic!("{a}: expected overflow, got {other:?}"),
        }
    }
    // Float weights so large that sums could leave f64: refused up front by
    // Floyd-Warshall, computed by Johnson when no sum overflows.
    let g = graph(3, &[(0, 1)], Weights::from(vec![1e308f64]), true);
    assert!(matches!(
        apsp_matrix(&g, Algorithm::FloydWarshall, &ApspOptions::default()),
        Err(Error::Overflow(_))
    ));
    let m = run(&g, Algorithm::Johnson, false);
    assert_eq!(m.get_f64(0, 1), Some(1e308));
}
// ---------------------------------------------------------------------------------------
// Options, dispatch, entry points and every compilation of the kernels.

#[test]
fn algorithm_names_and_auto() {
    assert_eq!(
        Algorithm::from_str("floyd-warshall").unwrap(),
        Algorithm::FloydWarshall
    );
    assert_eq!(Algorithm::from_str("johnson").unwrap(), Algorithm::Johnson);
    assert_eq!(Algorithm::from_str("auto").unwrap(), Algorithm::Auto);
    let e = Algorithm::from_str("dijkstra").unwrap_err().to_string();
    assert!(e.contains("floyd-warshall, johnson, auto"), "{e}");
    assert_eq!(Algorithm::FloydWarshall.to_string(), "floyd-warshall");

    let opts = ApspOptions::default();
    let sparse = graph(100, &[(0, 1), (1, 2)], Weights::None, true);
    assert_eq!(Algorithm::Auto.resolve(&sparse, &opts), Algorithm::Johnson);
    let edges: Vec<(u32, u32)> = (0..20).flat_map(|u| (0..20).map(move |v| (u, v))).collect();
    let dense = graph(20, &edges, Weights::None, true);
    assert_eq!(
        Algorithm::Auto.resolve(&dense, &opts),
        Algorithm::FloydWarshall
    );
    let mut sink = MatrixSink::new();
    let s = apsp(&dense, Algorithm::Auto, &opts, &mut sink).unwrap();
    assert_eq!(s.algorithm, Algorithm::FloydWarshall);
    assert_eq!((s.reachable_pairs, s.negative_weights), (400, false));
    assert_eq!(s.dist_type, DistType::I64);
}
#[test]
fn cpu_entry_points_and_sizes() {
    let g = graph(3, &[(0, 1), (1, 2)], Weights::from(vec![1i32, 1]), true);
    let mut a = MatrixSink::new();
    cpu::floyd_warshall(&g, &ApspOptions::default(), &mut a).unwrap();
    let mut b = MatrixSink::new();
    cpu::johnson(&g, &ApspOptions::default(), &mut b).unwrap();
    assert_eq!(a.into_matrix().unwrap(), b.into_matrix().unwrap());
    // 3 vertices pad to 64: 64^2 i32 cells + predecessors, plus a 3-row buffer.
    assert_eq!(
        cpu::floyd_warshall_bytes(&g, &ApspOptions { predecessors: true }),
        64 * 64 * 8 + 3 * 3 * 12
    );
}

/// The baseline, AVX2 and AVX-512 compilations of the Floyd-Warshall kernels agree with the
/// oracle (each one the processor has; a higher one runs the best it has).
#[test]
fn every_kernel_compilation_agrees() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let graphs: Vec<TestGraph> = (0..12)
        .map(|_| graph_strategy(140).new_tree(&mut runner).unwrap().current())
        .collect();
    for isa in cpu::Isa::ALL {
        for tg in &graphs {
            let g = tg.build();
            for predecessors in [false, true] {
                let mut sink = MatrixSink::new();
                cpu::floyd_warshall_with_isa(
                    &g,
                    &ApspOptions { predecessors },
                    &mut sink,
                    &NoProgress,
                    isa,
                )
                .unwrap_or_else(|e| panic!("{isa:?} pred={predecessors}: {e}"));
                let m = sink.into_matrix().unwrap();
                tg.assert_matches(&m, &format!("{isa:?} pred={predecessors}"));
                verify_matrix(&g, &m).unwrap();
            }
        }
    }
}
