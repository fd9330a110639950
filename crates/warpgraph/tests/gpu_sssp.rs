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
use warpgraph::sssp::cuda::GpuSssp;
use warpgraph::sssp::{self, verify, Algorithm, Delta, SsspResult};
use warpgraph::{EdgeList, Error, Weights};

/// Every variant with GPU code (all but dijkstra), and the width rules of delta-stepping.
fn gpu_variants() -> Vec<Algorithm> {
    let mut v = variants();
    v.retain(|a| *a != Algorithm::Dijkstra);
    v
}

/// Every GPU variant on one upload of the case's graph, each checked against the oracle.
fn check_gpu(c: &Case) -> Result<(), TestCaseError> {
    let Some(gpu) = common::gpu() else {
        return Ok(());
    };
    let g = c.graph();
    let mut search = GpuSssp::new(&gpu, &g).unwrap();
    for a in gpu_variants() {
        check_case_with(c, &a, true, |g, s, a| search.run(g, s, a).map(|r| r.0))?;
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

    /// Weights of both signs: Bellman-Ford variants give the distances or the negative
    /// cycle; the others refuse.
    #[test]
    fn mixed_weights_every_gpu_variant(c in arb_case(-3, 8)) {
        check_gpu(&c)?;
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
        for a in gpu_variants() {
            let Some((r, times)) = run_or_ell_refused(&mut search, &g, source, &a) else {
                continue;
            };
            assert_eq!(dist_of(&r), dist_of(&cpu), "{a} on {gen:?}");
            verify(&g, &r).unwrap_or_else(|e| panic!("{a} on {gen:?}: {e}"));
            assert!(times.kernel_seconds > 0.0 && times.total_seconds > 0.0);
        }
    }
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
    for a in gpu_variants() {
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
/// overflow; dijkstra has no GPU code; a bad source is refused.
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
    let e = search.run(&g, 0, &Algorithm::Dijkstra).unwrap_err();
    assert!(e.to_string().contains("no GPU code"), "{e}");
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
    for a in gpu_variants() {
        assert!(
            matches!(search.run(&g, 0, &a), Err(Error::Overflow(_))),
            "{a}"
        );
    }
}
