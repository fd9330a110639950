//! All-pairs shortest paths: Floyd-Warshall and Johnson against a serial oracle written
//! here, the verifier against broken results, and the `.npy` / TSV sinks read back. The
//! GPU's Floyd-Warshall variants run beside the CPU's where a GPU can be used (and must
//! with `WARPGRAPH_REQUIRE_GPU=1`; see `common::gpu`).

mod common;

use std::collections::HashMap;
use std::str::FromStr;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use warpgraph::apsp::cuda::FwVariant;
use warpgraph::apsp::sink::NpyDtype;
use warpgraph::apsp::{
    apsp, apsp_matrix, cpu, verify_matrix, verify_negative_cycle, verify_row, Algorithm,
    ApspOptions, DistMatrix, DistType, Dists, MatrixSink, NpySink, RowBlock, RowSink, TsvSink,
    VerifyingSink,
};
use warpgraph::{
    BuildOptions, Duplicates, EdgeList, Error, Graph, NoProgress, SelfLoops, VertexIds, Weights,
};

const INF: i64 = i64::MAX;

// ---------------------------------------------------------------------------------------
// The oracle: plain serial Bellman-Ford per source over the edge list, in i128 / f64.

/// Weights of a test graph as exact numbers (floats here are small integers or dyadic
/// fractions, so every sum is exact in f64).
#[derive(Debug, Clone)]
enum TestWeights {
    None,
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl TestWeights {
    fn get(&self, i: usize) -> f64 {
        match self {
            TestWeights::None => 1.0,
            TestWeights::I32(w) => w[i] as f64,
            TestWeights::I64(w) => w[i] as f64,
            TestWeights::F32(w) => w[i] as f64,
            TestWeights::F64(w) => w[i],
        }
    }
    fn get_int(&self, i: usize) -> i128 {
        match self {
            TestWeights::None => 1,
            TestWeights::I32(w) => w[i] as i128,
            TestWeights::I64(w) => w[i] as i128,
            _ => unreachable!("integer weights only"),
        }
    }
    fn is_float(&self) -> bool {
        matches!(self, TestWeights::F32(_) | TestWeights::F64(_))
    }
    fn to_weights(&self) -> Weights {
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
struct TestGraph {
    n: usize,
    src: Vec<u32>,
    dst: Vec<u32>,
    w: TestWeights,
    directed: bool,
}

impl TestGraph {
    fn build(&self) -> Graph {
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
    fn arcs(&self) -> Vec<(usize, usize, usize)> {
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
    fn oracle<T>(&self, zero: T, weight: impl Fn(usize) -> T) -> Vec<Vec<Option<T>>>
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
    fn assert_matches(&self, m: &DistMatrix, what: &str) {
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

fn graph_strategy(max_n: usize) -> impl Strategy<Value = TestGraph> {
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

/// The GPU's Floyd-Warshall variants and (without predecessors, which it does not give
/// yet) its Johnson on `g`, each result as a matrix (none where no GPU can be used).
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

fn run(g: &Graph, a: Algorithm, predecessors: bool) -> DistMatrix {
    apsp_matrix(g, a, &ApspOptions { predecessors })
        .unwrap_or_else(|e| panic!("{a} (predecessors {predecessors}): {e}"))
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
    let mut rng = warpgraph::generate::rng::Rng::new(7);
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

/// The GPU's variants (Floyd-Warshall's and Johnson) on graphs bigger than a tile row (n not a multiple of 32 or 64,
/// negative weights by potentials, unreachable pairs): equal to the CPU's Floyd-Warshall;
/// wide integer weights (times 2^20) take i64 cells, and weights that need 128-bit sums
/// are refused.
#[test]
fn gpu_apsp_matches_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let mut rng = warpgraph::generate::rng::Rng::new(7);
    // Scale 0 below: no potentials, so no negative weight (fw-tuned's own third phase).
    for (n, scale) in [
        (1usize, 1i64),
        (333, 1),
        (700, 1),
        (300, 1 << 20),
        (1000, 0),
        (130, 0),
    ] {
        let h: Vec<i64> = (0..n)
            .map(|_| {
                if scale == 0 {
                    0
                } else {
                    -(rng.below(50) as i64)
                }
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

/// Every predecessor path is a real path of the matrix's length.
fn check_paths(tg: &TestGraph, m: &DistMatrix) {
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

// ---------------------------------------------------------------------------------------
// Hand-written golden results.

fn graph(n: u64, edges: &[(u32, u32)], w: Weights, directed: bool) -> Graph {
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
    let mut rng = warpgraph::generate::rng::Rng::new(7);
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
// The verifier catches broken results.

#[test]
fn verifier_rejects_mutated_results() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut tried = 0;
    for _ in 0..300 {
        let tg = graph_strategy(60).new_tree(&mut runner).unwrap().current();
        if tg.n < 3 {
            continue;
        }
        let g = tg.build();
        let m = run(&g, Algorithm::Johnson, true);
        let n = tg.n;
        let mut mutants: Vec<DistMatrix> = Vec::new();
        let float = tg.w.is_float();
        let rebuild = |d: Vec<f64>, p: Option<Vec<u32>>| -> DistMatrix {
            let values = if float {
                warpgraph::apsp::DistValues::F64(d)
            } else {
                warpgraph::apsp::DistValues::I64(
                    d.iter()
                        .map(|&x| if x.is_infinite() { INF } else { x as i64 })
                        .collect(),
                )
            };
            DistMatrix::new(n, values, p).unwrap()
        };
        let d: Vec<f64> = (0..n * n)
            .map(|i| m.get_f64((i / n) as u32, (i % n) as u32).unwrap())
            .collect();
        let p = m.predecessors().unwrap().to_vec();
        // Find a reachable off-diagonal pair and an unreachable one.
        let reach = (0..n * n).find(|&i| i / n != i % n && d[i].is_finite());
        let unreach = (0..n * n).find(|&i| d[i].is_infinite());
        if let Some(i) = reach {
            for delta in [-1.0, 1.0] {
                let mut x = d.clone();
                x[i] += delta;
                mutants.push(rebuild(x, None));
            }
            let mut x = d.clone();
            x[i] = f64::INFINITY;
            mutants.push(rebuild(x, None));
            let mut q = p.clone();
            q[i] = u32::MAX;
            mutants.push(rebuild(d.clone(), Some(q)));
            let mut q = p.clone();
            q[i] = (i % n) as u32; // t is its own predecessor: no such tight arc, or a cycle
            mutants.push(rebuild(d.clone(), Some(q)));
        }
        if let Some(i) = unreach {
            let mut x = d.clone();
            x[i] = 0.0;
            mutants.push(rebuild(x, None));
        }
        // A non-zero diagonal.
        let mut x = d.clone();
        x[n + 1] = -1.0;
        mutants.push(rebuild(x, None));
        assert!(verify_matrix(&g, &rebuild(d.clone(), Some(p.clone()))).is_ok());
        for (k, mm) in mutants.iter().enumerate() {
            assert!(
                matches!(verify_matrix(&g, mm), Err(Error::VerificationFailed(_))),
                "mutant {k} passed on {tg:?}"
            );
        }
        tried += 1;
        if tried == 40 {
            break;
        }
    }
    assert_eq!(tried, 40);
}

#[test]
fn verifier_catches_detached_zero_cycles() {
    // s = 0 -> 1 (10); 1 <-> 2 (0). Claiming d(1) = d(2) = 5 satisfies every arc
    // inequality and has tight arcs into 1 and 2, but no tight path from 0.
    let g = graph(
        3,
        &[(0, 1), (1, 2), (2, 1)],
        Weights::from(vec![10i32, 0, 0]),
        true,
    );
    verify_row(&g, 0, Dists::I64(&[0, 10, 10]), None).unwrap();
    assert!(verify_row(&g, 0, Dists::I64(&[0, 5, 5]), None).is_err());
    assert!(verify_row(&g, 0, Dists::I64(&[0, 10, INF]), None).is_err());
    assert!(verify_row(&g, 9, Dists::I64(&[0, 10, 10]), None).is_err());
    assert!(verify_row(&g, 0, Dists::F64(&[0.0, 10.0, 10.0]), None).is_err());
}

#[test]
fn verifying_sink_checks_streamed_rows() {
    let g = warpgraph::generate::generate(
        &warpgraph::generate::Generator::Uniform {
            vertices: 300,
            edges: 3000,
        },
        &warpgraph::generate::GenerateOptions {
            weights: warpgraph::generate::WeightSpec::Int { lo: 0, hi: 50 },
            ..Default::default()
        },
    )
    .unwrap();
    let mut inner = MatrixSink::new();
    let mut sink = VerifyingSink::new(&g, &mut inner);
    apsp(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink).unwrap();
    let checked = sink.rows_checked();
    assert!((40..=66).contains(&checked), "{checked}");
    let m = inner.into_matrix().unwrap();
    // A sink that corrupts row 0 (always sampled) on its way is caught.
    struct Corrupt<'a>(&'a mut dyn RowSink);
    impl RowSink for Corrupt<'_> {
        fn begin(&mut self, info: &warpgraph::apsp::RowsInfo) -> warpgraph::Result<()> {
            self.0.begin(info)
        }
        fn rows(&mut self, b: &RowBlock<'_>) -> warpgraph::Result<()> {
            let Dists::I64(d) = b.dist else { panic!() };
            let mut d = d.to_vec();
            if b.first == 0 {
                let j = d.iter().position(|&x| x > 0 && x != INF).unwrap();
                d[j] += 1;
            }
            self.0.rows(&RowBlock {
                dist: Dists::I64(&d),
                ..*b
            })
        }
        fn finish(&mut self) -> warpgraph::Result<()> {
            self.0.finish()
        }
    }
    let mut inner = MatrixSink::new();
    let mut verifying = VerifyingSink::new(&g, &mut inner);
    let mut corrupt = Corrupt(&mut verifying);
    assert!(matches!(
        apsp(
            &g,
            Algorithm::FloydWarshall,
            &ApspOptions::default(),
            &mut corrupt
        ),
        Err(Error::VerificationFailed(_))
    ));
    verify_matrix(&g, &m).unwrap();
}

// ---------------------------------------------------------------------------------------
// Output files read back.

/// A minimal independent `.npy` reader: (descr, shape, data bytes).
fn read_npy(bytes: &[u8]) -> (String, (usize, usize), &[u8]) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let hlen = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + hlen) % 64, 0, "data is 64-byte aligned");
    let header = std::str::from_utf8(&bytes[10..10 + hlen]).unwrap();
    assert!(header.ends_with('\n'));
    assert!(header.contains("'fortran_order': False"));
    let descr = header.split("'descr': '").nth(1).unwrap()[..3].to_string();
    let shape = header.split("'shape': (").nth(1).unwrap();
    let shape = &shape[..shape.find(')').unwrap()];
    let dims: Vec<usize> = shape
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    (descr, (dims[0], dims[1]), &bytes[10 + hlen..])
}

#[test]
fn npy_output_reads_back() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for _ in 0..20 {
        let tg = graph_strategy(100).new_tree(&mut runner).unwrap().current();
        let g = tg.build();
        let m = run(&g, Algorithm::FloydWarshall, false);
        let n = tg.n;
        for dtype in [NpyDtype::Native, NpyDtype::F64] {
            let mut sink = NpySink::new(Vec::new(), "<memory>").with_dtype(dtype);
            apsp(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink).unwrap();
            let bytes = sink.into_inner();
            let (descr, shape, data) = read_npy(&bytes);
            assert_eq!(shape, (n, n));
            assert_eq!(data.len(), n * n * 8);
            let float = tg.w.is_float() || dtype == NpyDtype::F64;
            assert_eq!(descr, if float { "<f8" } else { "<i8" });
            for (i, c) in data.chunks_exact(8).enumerate() {
                let b: [u8; 8] = c.try_into().unwrap();
                let want = m.get_f64((i / n) as u32, (i % n) as u32).unwrap();
                if float {
                    assert_eq!(f64::from_le_bytes(b), want);
                } else {
                    let x = i64::from_le_bytes(b);
                    assert_eq!(if x == INF { f64::INFINITY } else { x as f64 }, want);
                }
            }
        }
    }
    // A real file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.npy");
    let g = graph(2, &[(0, 1)], Weights::from(vec![-5i32]), true);
    let mut sink = NpySink::create(&path).unwrap();
    apsp(
        &g,
        Algorithm::FloydWarshall,
        &ApspOptions::default(),
        &mut sink,
    )
    .unwrap();
    drop(sink);
    let bytes = std::fs::read(&path).unwrap();
    let (descr, shape, data) = read_npy(&bytes);
    assert_eq!((descr.as_str(), shape), ("<i8", (2, 2)));
    let vals: Vec<i64> = data
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(vals, vec![0, -5, INF, 0]);
}

#[test]
fn tsv_output_reads_back() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for round in 0..20 {
        let tg = graph_strategy(100).new_tree(&mut runner).unwrap().current();
        let n = tg.n;
        // File ids: 1-based, or sparse ids 10, 20, ...
        let ids = if round % 2 == 0 {
            VertexIds::Base(1)
        } else {
            VertexIds::Map(
                (0..n as u64)
                    .map(|i| 10 * (i + 1))
                    .collect::<Vec<_>>()
                    .into(),
            )
        };
        let g = tg.build().with_ids(ids.clone()).unwrap();
        let pred = round % 3 == 0;
        let m = run(&g, Algorithm::FloydWarshall, pred);
        let mut sink = TsvSink::new(Vec::new(), "<memory>", g.ids());
        apsp(
            &g,
            Algorithm::Johnson,
            &ApspOptions { predecessors: pred },
            &mut sink,
        )
        .unwrap();
        let text = String::from_utf8(sink.into_inner()).unwrap();
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        let back: HashMap<u64, u32> = (0..n as u32).map(|v| (ids.external(v), v)).collect();
        if pred {
            assert_eq!(header, "source\ttarget\tdistance\tpredecessor");
        } else {
            assert_eq!(header, "source\ttarget\tdistance");
        }
        let mut count = 0;
        let mut last = None;
        for l in lines {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), if pred { 4 } else { 3 }, "{l}");
            let s = back[&f[0].parse::<u64>().unwrap()];
            let t = back[&f[1].parse::<u64>().unwrap()];
            assert!(last < Some((s, t)), "lines in order");
            last = Some((s, t));
            let d: f64 = f[2].parse().unwrap();
            assert_eq!(Some(d), m.get_f64(s, t), "{l}");
            if tg.w.is_float() {
                assert!(f[2].contains('.') || f[2].contains('e'), "{l}");
            } else {
                assert!(f[2].parse::<i64>().is_ok(), "{l}");
            }
            if pred {
                let p = back[&f[3].parse::<u64>().unwrap()];
                let pm = m.pred_row(s).unwrap()[t as usize];
                // Predecessors may differ between algorithms; both must be tight arcs,
                // which verify_row checks; here check the id mapping on the diagonal.
                if s == t {
                    assert_eq!((p, pm), (s, s));
                }
            }
            count += 1;
        }
        assert_eq!(count as u64, m.reachable_pairs());
    }
}

// ---------------------------------------------------------------------------------------
// Options, dispatch, and the sink contract.

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
fn sinks_enforce_the_row_contract() {
    let info = warpgraph::apsp::RowsInfo {
        num_vertices: 2,
        dist_type: DistType::I64,
        predecessors: false,
    };
    let mut sink = MatrixSink::new();
    sink.begin(&info).unwrap();
    let row1 = RowBlock {
        first: 1,
        num_vertices: 2,
        dist: Dists::I64(&[5, 0]),
        pred: None,
    };
    assert!(sink.rows(&row1).is_err(), "row 1 before row 0");
    let f = RowBlock {
        first: 0,
        num_vertices: 2,
        dist: Dists::F64(&[0.0, 1.0]),
        pred: None,
    };
    assert!(sink.rows(&f).is_err(), "wrong type");
    let row0 = RowBlock {
        first: 0,
        num_vertices: 2,
        dist: Dists::I64(&[0, 1]),
        pred: None,
    };
    sink.rows(&row0).unwrap();
    assert!(sink.finish().is_err(), "a row is missing");
    sink.rows(&row1).unwrap();
    sink.finish().unwrap();
    assert_eq!(sink.into_matrix().unwrap().as_i64().unwrap(), &[0, 1, 5, 0]);
    assert!(MatrixSink::new().into_matrix().is_err());
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
