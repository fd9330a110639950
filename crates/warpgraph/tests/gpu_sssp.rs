//! GPU shortest paths against the oracle of the CPU tests (textbook Bellman-Ford on the
//! edge list) and against the CPU backend on generated graphs: every GPU variant, integer
//! and float weights, negative weights and cycles, and the errors.
//!
//! Every test skips where no GPU can be used and fails instead when
//! `WARPGRAPH_REQUIRE_GPU=1` (see `common::gpu`).

mod common;

use common::sssp::*;
use proptest::prelude::*;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::sssp::cuda::extract_min::GpuExtractMin;
use warpgraph::sssp::cuda::{GpuSssp, EXTRACT_MIN_THREADS, EXTRACT_MIN_THREADS_DEFAULT};
use warpgraph::sssp::extract_min::{loop_min, study, StudyOptions};
use warpgraph::sssp::{self, verify, Algorithm, Delta, Potentials, SsspResult};
use warpgraph::{EdgeList, Error, Weights};

/// Every variant on one upload of the case's graph, each checked against the oracle;
/// dijkstra at every ExtractMin block size.
fn check_gpu(c: &Case) -> Result<(), TestCaseError> {
    let Some(gpu) = common::gpu() else {
        return Ok(());
    };
    let g = c.graph();
    let mut search = GpuSssp::new(&gpu, &g).unwrap();
    for a in variants() {
        let sizes: &[u32] = match a {
            Algorithm::Dijkstra => &EXTRACT_MIN_THREADS,
            _ => &[EXTRACT_MIN_THREADS_DEFAULT],
        };
        for &threads in sizes {
            search.set_extract_min_threads(threads).unwrap();
            check_case_with(c, &a, true, |g, s, a| search.run(g, s, a).map(|r| r.0))?;
        }
    }
    // auto's two designs for non-negative weights, each forced (a graph this small is
    // never road-like by itself), owner-local with its distances in shared memory (where
    // the weights allow; its lists' first 1,024 entries there too, or only the first)
    // and in global memory.
    for (owner_local, shared, head) in [
        (true, true, 1024),
        (true, true, 1),
        (true, false, 1024),
        (false, true, 1024),
    ] {
        search.set_owner_local(Some(owner_local));
        search.set_shared_strips(shared);
        search.set_shared_head(head);
        check_case_with(c, &Algorithm::Auto, true, |g, s, a| {
            search.run(g, s, a).map(|r| r.0)
        })?;
    }
    Ok(())
}

/// [`GpuSssp::potentials`] against the oracle from a virtual source.
fn check_potentials(c: &Case) -> Result<(), TestCaseError> {
    let Some(gpu) = common::gpu() else {
        return Ok(());
    };
    let g = c.graph();
    let mut arcs = c.arcs();
    arcs.extend((0..c.n).map(|v| (c.n, v, 0)));
    let got = GpuSssp::new(&gpu, &g).unwrap().potentials(&g).map(|r| r.0);
    match (oracle(c.n + 1, &arcs, c.n), got) {
        (Truth::NegativeCycle, Err(Error::NegativeCycle { cycle, .. })) => {
            // The cycle the CPU names from the same virtual source.
            let cpu = match g.out().weights() {
                Weights::F32(w) => sssp::cpu::bellman_ford_potentials(g.out(), &w[..]).err(),
                Weights::F64(w) => sssp::cpu::bellman_ford_potentials(g.out(), &w[..]).err(),
                Weights::I32(w) => sssp::cpu::bellman_ford_potentials(g.out(), &w[..]).err(),
                Weights::I64(w) => sssp::cpu::bellman_ford_potentials(g.out(), &w[..]).err(),
                Weights::None => None,
            };
            let same =
                matches!(cpu, Some(Error::NegativeCycle { cycle: ref c2, .. }) if *c2 == cycle);
            prop_assert!(same, "the CPU names another cycle: {:?}", cpu);
        }
        (Truth::Dist(want), Ok(h)) => {
            let got: Vec<Option<i128>> = match h {
                Potentials::Int(h) => h.iter().map(|&x| Some(i128::from(x))).collect(),
                Potentials::Float(h) => h.iter().map(|&x| Some((x * c.unit()) as i128)).collect(),
            };
            prop_assert_eq!(got, want[..c.n].to_vec());
        }
        (want, got) => prop_assert!(false, "oracle {want:?}, GPU {got:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Non-negative weights (zero common), self loops, parallel arcs, unreachable vertices.
    #[test]
    fn nonnegative_weights_every_gpu_variant(c in arb_case(0, 6)) {
        check_gpu(&c)?;
    }

    /// Positive weights (near-far keeps distance and parent in one word where they fit).
    #[test]
    fn positive_weights_every_gpu_variant(c in arb_case(1, 9)) {
        check_gpu(&c)?;
    }

    /// Weights of both signs: Bellman-Ford variants give the distances or the negative
    /// cycle; the others refuse.
    #[test]
    fn mixed_weights_every_gpu_variant(c in arb_case(-3, 8)) {
        check_gpu(&c)?;
    }

    /// Johnson's potentials on the GPU: the textbook Bellman-Ford from an added vertex
    /// with an arc of weight 0 to every vertex, or the negative cycle (anywhere) that the
    /// CPU's Bellman-Ford names too.
    #[test]
    fn potentials_match_a_virtual_source(c in arb_case(-4, 8)) {
        check_potentials(&c)?;
    }
}

/// Generated graphs big enough for the grid-wide paths (vertices of 1,024 arcs and more,
/// many buckets, thousands of passes): the GPU's distances equal the CPU's, and its tree
/// verifies.
#[test]
fn generated_graphs_match_the_cpu() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let weights = WeightSpec::Int { lo: 1, hi: 255 };
    let graphs = [
        (
            Generator::Kronecker {
                scale: 14,
                edge_factor: 16,
            },
            true,
        ),
        (
            Generator::Grid {
                rows: 64,
                cols: 128,
                remove: 0.0,
                shortcuts: 0,
            },
            true,
        ),
        (
            Generator::Kronecker {
                scale: 12,
                edge_factor: 8,
            },
            false,
        ),
        (
            Generator::Grid {
                rows: 512,
                cols: 512,
                remove: 0.0,
                shortcuts: 0,
            },
            true,
        ),
        (
            Generator::Grid {
                rows: 256,
                cols: 384,
                remove: 0.1,
                shortcuts: 16,
            },
            false,
        ),
    ];
    for (gen, undirected) in graphs {
        let opts = GenerateOptions {
            weights,
            undirected,
            ..Default::default()
        };
        let g = generate(&gen, &opts).unwrap();
        let mut search = GpuSssp::new(&gpu, &g).unwrap();
        let source = (0..g.num_vertices() as u32)
            .find(|&v| g.out().degree(v) > 0)
            .unwrap();
        let cpu = sssp::sssp(&g, source, &Algorithm::Dijkstra).unwrap();
        for a in variants() {
            let Some((r, times)) = run_or_ell_refused(&mut search, &g, source, &a) else {
                continue;
            };
            assert_eq!(dist_of(&r), dist_of(&cpu), "{a} on {gen:?}");
            verify(&g, &r).unwrap_or_else(|e| panic!("{a} on {gen:?}: {e}"));
            assert!(times.kernel_seconds > 0.0 && times.total_seconds > 0.0);
        }
        // auto's owner-local near-far, forced where the graph is not road-like, with its
        // distances in shared memory and in global memory.
        // (The shared variant also with only each list's first 4 entries in shared
        // memory.)
        search.set_owner_local(Some(true));
        for (shared, head) in [(true, 1024), (true, 4), (false, 1024)] {
            search.set_shared_strips(shared);
            search.set_shared_head(head);
            let (r, _) = search.run(&g, source, &Algorithm::Auto).unwrap();
            // Weights 1..255 on graphs this small: the shared variant runs when asked.
            assert_eq!(search.ran_shared_strips(), shared, "{gen:?}");
            let what = format!("owner-local ({shared}, {head}) on {gen:?}");
            assert_eq!(dist_of(&r), dist_of(&cpu), "{what}");
            verify(&g, &r).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}

/// Which graphs `auto` treats as road-like: grids numbered row by row, not Kronecker or
/// uniform random graphs.
#[test]
fn road_like_graphs() {
    let weights = WeightSpec::Int { lo: 1, hi: 255 };
    let opts = GenerateOptions {
        weights,
        undirected: true,
        ..Default::default()
    };
    let grid = Generator::Grid {
        rows: 256,
        cols: 256,
        remove: 0.0,
        shortcuts: 0,
    };
    let kron = Generator::Kronecker {
        scale: 14,
        edge_factor: 4,
    };
    assert!(sssp::cuda::road_like(generate(&grid, &opts).unwrap().out()));
    assert!(!sssp::cuda::road_like(
        generate(&kron, &opts).unwrap().out()
    ));
}

/// The search's result, or None where spmv-ell refuses a skewed graph (saying why).
fn run_or_ell_refused(
    search: &mut GpuSssp,
    g: &warpgraph::Graph,
    source: u32,
    a: &Algorithm,
) -> Option<(SsspResult, warpgraph::cuda::GpuTimes)> {
    match search.run(g, source, a) {
        Err(Error::InvalidArgument(m)) if *a == Algorithm::SpmvEll => {
            assert!(m.contains("pad every row"), "{m}");
            None
        }
        r => Some(r.unwrap_or_else(|e| panic!("{a}: {e}"))),
    }
}

fn dist_of(r: &SsspResult) -> Vec<f64> {
    (0..r.num_vertices() as u32)
        .map(|v| r.dist_f64(v))
        .collect()
}

/// Float weights (uniform in [0, 1), zero possible): equal to the CPU's within a relative
/// 1e-9 (sums in another order may round differently).
#[test]
fn float_weights_within_tolerance() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let weights = WeightSpec::Float;
    let g = generate(
        &Generator::Kronecker {
            scale: 12,
            edge_factor: 16,
        },
        &GenerateOptions {
            weights,
            undirected: true,
            ..Default::default()
        },
    )
    .unwrap();
    let source = (0..g.num_vertices() as u32)
        .find(|&v| g.out().degree(v) > 0)
        .unwrap();
    let cpu = dist_of(&sssp::sssp(&g, source, &Algorithm::Dijkstra).unwrap());
    let mut search = GpuSssp::new(&gpu, &g).unwrap();
    for a in variants() {
        let Some((r, _)) = run_or_ell_refused(&mut search, &g, source, &a) else {
            continue;
        };
        for (x, y) in dist_of(&r).iter().zip(&cpu) {
            assert!(x == y || (x - y).abs() <= 1e-9 * y.abs(), "{a}: {x} vs {y}");
        }
        verify(&g, &r).unwrap();
    }
}

/// Errors: a negative cycle carries a real cycle; a distance that does not fit is an
/// overflow; dijkstra refuses negative weights, and block sizes it does not have; a bad
/// source is refused.
#[test]
fn errors_are_clear() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    // 0 -> 1 -> 2 -> 1 with 1 -> 2 -> 1 weighing -1.
    let g = EdgeList::new(
        3,
        vec![0, 1, 2],
        vec![1, 2, 1],
        Weights::from(vec![1i64, 2, -3]),
    )
    .unwrap()
    .build(&Default::default())
    .unwrap();
    let mut search = GpuSssp::new(&gpu, &g).unwrap();
    for a in [
        Algorithm::Auto,
        Algorithm::BellmanFord,
        Algorithm::BellmanFordQueue,
    ] {
        match search.run(&g, 0, &a) {
            Err(Error::NegativeCycle { cycle, .. }) => {
                let mut c = cycle.clone();
                c.sort();
                assert_eq!(c, vec![1, 2], "{a}");
            }
            other => panic!("{a}: expected a negative cycle, got {other:?}"),
        }
    }
    assert!(matches!(
        search.run(&g, 0, &Algorithm::DeltaStepping(Delta::Auto)),
        Err(Error::NegativeWeight { .. })
    ));
    assert!(matches!(
        search.run(&g, 0, &Algorithm::Dijkstra),
        Err(Error::NegativeWeight { .. })
    ));
    for bad in [0, 64, 500, 2048] {
        assert!(matches!(
            search.set_extract_min_threads(bad),
            Err(Error::InvalidArgument(_))
        ));
    }
    assert!(matches!(
        search.run(&g, 9, &Algorithm::Auto),
        Err(Error::InvalidArgument(_))
    ));
    // Two arcs of 2^62: the second sum does not fit an i64.
    let big = 1i64 << 62;
    let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::from(vec![big, big]))
        .unwrap()
        .build(&Default::default())
        .unwrap();
    let mut search = GpuSssp::new(&gpu, &g).unwrap();
    for a in variants() {
        match (search.run(&g, 0, &a), a) {
            (Err(Error::Overflow(_)), _) => {}
            // The CUDA SSSP thesis's delta-stepping numbers its buckets in 32 bits: a narrow width
            // over such weights is refused before it runs.
            (Err(Error::InvalidArgument(m)), Algorithm::DeltaStepping(_)) => {
                assert!(m.contains("buckets"), "{a}: {m}")
            }
            (other, _) => panic!("{a}: expected an overflow, got {other:?}"),
        }
    }
}

/// The ExtractMin reduction alone: the least key and its first position, against the
/// serial loop, at every block size, for sizes around the passes' boundaries, with ties
/// and with keys equal to i64::MAX (the kernels' infinity).
#[test]
fn extract_min_matches_the_loop() {
    let Some(gpu) = common::gpu() else {
        return;
    };
    let mut sizes = vec![
        1, 2, 3, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 2048, 2049,
    ];
    sizes.extend([65_535, 65_536, 262_145, 1_000_003, 3_000_000]);
    for (k, &n) in sizes.iter().enumerate() {
        // Few distinct keys (ties everywhere), the least placed late.
        let mut keys: Vec<i64> = (0..n as i64)
            .map(|i| 1000 + (i * 7_919 + k as i64) % 97)
            .collect();
        if n > 3 {
            keys[n - 2] = 5;
            keys[n / 3] = 5;
        }
        let mut g = GpuExtractMin::new(&gpu, &keys).unwrap();
        for threads in EXTRACT_MIN_THREADS {
            let (got, seconds) = g.time(threads, 2).unwrap();
            assert_eq!(Some(got), loop_min(&keys), "{n} keys, {threads} threads");
            assert!(seconds > 0.0);
        }
        let maxed = vec![i64::MAX; n];
        let mut g = GpuExtractMin::new(&gpu, &maxed).unwrap();
        assert_eq!(
            g.time(256, 1).unwrap().0,
            (i64::MAX, 0),
            "{n} keys of i64::MAX"
        );
    }
    assert!(matches!(
        GpuExtractMin::new(&gpu, &[]),
        Err(Error::InvalidArgument(_))
    ));
    // The study with its GPU columns: one row per size, one figure per block size.
    let opts = StudyOptions {
        sizes: vec![1, 1000, 100_000],
        trials: 2,
        ..StudyOptions::default()
    };
    let rows = study(&opts, Some(&gpu), |_| {}).unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        let threads: Vec<u32> = r.gpu.iter().map(|g| g.0).collect();
        assert_eq!(threads, EXTRACT_MIN_THREADS.to_vec());
        assert!(r.gpu.iter().all(|g| g.1 > 0.0));
        assert!(r.cpu_loop > 0.0 && r.cpu_parallel > 0.0 && r.cpu_heap > 0.0);
    }
}

/// One [`GpuGraph`](warpgraph::resident::GpuGraph) serving BFS, SSSP and MST queries in
/// turn, from many sources, each answer against the CPU backend's: integer weights with
/// zeros, self loops, parallel arcs and isolated vertices; a directed and an undirected
/// graph. The runners appear on first use and stay (the bytes held only grow).
#[test]
fn resident_graph_serves_mixed_queries() {
    use warpgraph::bfs::{self, BfsOptions, BfsTree};
    use warpgraph::mst;
    use warpgraph::resident::{GpuGraph, Held};
    let Some(gpu) = common::gpu() else {
        return;
    };
    for undirected in [false, true] {
        let g = generate(
            &Generator::Kronecker {
                scale: 11,
                edge_factor: 8,
            },
            &GenerateOptions {
                weights: WeightSpec::Int { lo: 0, hi: 20 },
                undirected,
                self_loops: warpgraph::SelfLoops::Keep,
                duplicates: warpgraph::Duplicates::Keep,
                ..Default::default()
            },
        )
        .unwrap();
        let n = g.num_vertices() as u32;
        assert!((0..n).any(|v| g.out().degree(v) == 0), "isolated vertices");
        let mut on_gpu = GpuGraph::new(&gpu, &g);
        assert_eq!((on_gpu.held(), on_gpu.device_bytes()), (Held::default(), 0));
        let forest = mst::mst(&g, mst::Algorithm::Boruvka).unwrap();
        let mut tree = BfsTree::default();
        let mut held = 0;
        for (i, s) in (0..n).step_by(97).enumerate() {
            let want = bfs::bfs(&g, s, &BfsOptions::default()).unwrap();
            let (lent, _) = on_gpu.bfs(s).unwrap();
            assert_eq!(lent.depth, want.depth, "bfs from {s}");
            bfs::verify(&g, lent).unwrap();
            on_gpu.bfs_into(s, &mut tree).unwrap();
            assert_eq!(tree.depth, want.depth, "bfs_into from {s}");
            bfs::verify(&g, &tree).unwrap();
            for a in [Algorithm::Auto, Algorithm::DijkstraParallel] {
                let (r, _) = on_gpu.sssp(s, &a).unwrap();
                let cpu = sssp::sssp(&g, s, &Algorithm::Dijkstra).unwrap();
                assert_eq!(dist_of(&r), dist_of(&cpu), "{a} from {s}");
                verify(&g, &r).unwrap();
            }
            if i % 3 == 0 {
                let (f, _) = on_gpu.mst().unwrap();
                assert_eq!(f, forest);
            }
            let bytes = on_gpu.device_bytes();
            assert!(bytes >= held, "{bytes} < {held}");
            held = bytes;
        }
        let all = Held {
            bfs: true,
            sssp: true,
            mst: true,
        };
        assert_eq!(on_gpu.held(), all);
        assert!(held > 0);
        // Freed, then created again by the next query.
        on_gpu.release();
        assert_eq!(on_gpu.held(), Held::default());
        let (again, _) = on_gpu.bfs(0).unwrap();
        assert_eq!(
            again.depth,
            bfs::bfs(&g, 0, &BfsOptions::default()).unwrap().depth
        );
        assert!(
            on_gpu.sssp(n, &Algorithm::Auto).is_err(),
            "source out of range"
        );
    }
    // An empty graph: no source to search from; its forest is empty.
    let empty = warpgraph::Graph::empty(0, false);
    let mut on_gpu = GpuGraph::new(&gpu, &empty);
    assert!(on_gpu.bfs(0).is_err() && on_gpu.sssp(0, &Algorithm::Auto).is_err());
    let (f, _) = on_gpu.mst().unwrap();
    assert_eq!(f, mst::mst(&empty, mst::Algorithm::Boruvka).unwrap());
    assert_eq!(on_gpu.held(), Held::default(), "nothing uploaded");
}

/// The GPU methods that take negative weights.
fn negative_methods() -> [Algorithm; 5] {
    [
        Algorithm::Auto,
        Algorithm::BellmanFord,
        Algorithm::BellmanFordQueue,
        Algorithm::SpmvCsr,
        Algorithm::SpmvEll,
    ]
}

/// Every method that takes negative weights gives the CPU backend's tree (its Bellman-Ford,
/// whose parents come from the same rules: the tight search where a tight arc weighs 0 or
/// less) and distances, on one upload of `g`, from `source`; the verifier accepts each.
fn check_same_tree(g: &warpgraph::Graph, source: u32, what: &str) -> Result<(), TestCaseError> {
    let Some(gpu) = common::gpu() else {
        return Ok(());
    };
    let cpu = sssp::sssp(g, source, &Algorithm::BellmanFord).unwrap();
    let mut search = GpuSssp::new(&gpu, g).unwrap();
    for a in negative_methods() {
        let Some((r, _)) = run_or_ell_refused(&mut search, g, source, &a) else {
            continue;
        };
        prop_assert_eq!(dist_of(&r), dist_of(&cpu), "{} on {}", a, what);
        prop_assert_eq!(r.parent(), cpu.parent(), "{} on {}", a, what);
        if let Err(e) = verify(g, &r) {
            prop_assert!(false, "{a} on {what}: verifier: {e}");
        }
    }
    Ok(())
}

/// Random cases without negative cycles but with many tight arcs of weight <= 0: weights
/// 0..4 (a quarter of them 0: zero-weight cycles), on directed graphs shifted by random
/// potentials, w(u, v) + p(u) - p(v) (negative arcs, every cycle's weight kept); self
/// loops, parallel arcs, unreachable vertices; every weight type.
fn arb_shifted() -> impl Strategy<Value = Case> {
    (1usize..40, any::<bool>(), arb_wt(), 0usize..4, 0i64..6).prop_flat_map(
        |(n, directed, wt, density, most)| {
            let max_edges = [n / 2, n, 3 * n, n * n][density] + 1;
            (
                prop::collection::vec((0..n as u32, 0..n as u32, 0i64..4), 0..max_edges),
                prop::collection::vec(0..=most, n),
                0..n as u32,
            )
                .prop_map(move |(edges, p, source)| {
                    let shift = |u: u32, v: u32| match directed {
                        true => p[u as usize] - p[v as usize],
                        false => 0,
                    };
                    Case {
                        n,
                        directed,
                        edges: edges
                            .into_iter()
                            .map(|(u, v, w)| (u, v, w + shift(u, v)))
                            .collect(),
                        wt,
                        source,
                    }
                })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Tight arcs of weight <= 0: the GPU's tree (its search over tight arcs) is the CPU's.
    #[test]
    fn nonpositive_tight_arcs_give_the_cpu_tree(c in arb_shifted()) {
        check_same_tree(&c.graph(), c.source, &format!("{c:?}"))?;
    }
}

/// `g` (directed) with every arc's weight w(u, v) shifted by p(u) - p(v) for random
/// potentials p in 0..most, as `wt` (floats: quarters of the shifted integers).
fn shifted(g: &warpgraph::Graph, most: i64, wt: Wt, seed: u64) -> warpgraph::Graph {
    let n = g.num_vertices();
    let mut x = seed;
    let p: Vec<i64> = (0..n)
        .map(|_| (common::xorshift(&mut x) % most as u64) as i64)
        .collect();
    let csr = g.out();
    let Weights::I32(w) = csr.weights() else {
        panic!("int weights")
    };
    let mut edges = Vec::new();
    for u in 0..n as u32 {
        for a in csr.row(u) {
            let v = csr.targets()[a];
            edges.push((u, v, i64::from(w[a]) + p[u as usize] - p[v as usize]));
        }
    }
    Case {
        n,
        directed: true,
        edges,
        wt,
        source: 0,
    }
    .graph()
}

/// Generated graphs with many levels of tight arcs and vertices of 32 arcs and more (the
/// per-level kernel's warp path): Kronecker and grid digraphs of weights 0..7 shifted by
/// potentials, every weight type, and undirected ones with weights 0..2 (zero-weight
/// cycles): every method that takes negative weights gives the CPU backend's tree.
#[test]
fn generated_nonpositive_tight_arcs_give_the_cpu_tree() {
    if common::gpu().is_none() {
        return;
    }
    let graphs = [
        Generator::Kronecker {
            scale: 12,
            edge_factor: 16,
        },
        Generator::Grid {
            rows: 64,
            cols: 96,
            remove: 0.1,
            shortcuts: 8,
        },
    ];
    for (i, gen) in graphs.iter().enumerate() {
        for (undirected, hi) in [(false, 7), (true, 2)] {
            let opts = GenerateOptions {
                weights: WeightSpec::Int { lo: 0, hi },
                undirected,
                seed: 7 + i as u64,
                ..Default::default()
            };
            let g = generate(gen, &opts).unwrap();
            let source = (0..g.num_vertices() as u32)
                .find(|&v| g.out().degree(v) > 0)
                .unwrap();
            let what = format!("{gen:?}, undirected {undirected}");
            match undirected {
                true => check_same_tree(&g, source, &what).unwrap(),
                false => {
                    for wt in [Wt::I32, Wt::I64, Wt::F32, Wt::F64] {
                        let h = shifted(&g, 64, wt, 11 + i as u64);
                        check_same_tree(&h, source, &format!("{what}, {wt:?}")).unwrap();
                    }
                }
            }
        }
    }
}
