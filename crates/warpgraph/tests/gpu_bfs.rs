//! GPU breadth-first search (Enterprise and each step of its ablation) against the CPU
//! BFS: identical depths, and every tree passes the Graph500 verifier.
//!
//! Every test skips where no GPU can be used and fails instead when
//! `WARPGRAPH_REQUIRE_GPU=1` (see `common::gpu`).

mod common;

use std::sync::Arc;

use proptest::prelude::*;
use warpgraph::bfs::cuda::{GpuBfs, GpuBfsOptions, Variant};
use warpgraph::bfs::{self, verify, BfsOptions, Direction};
use warpgraph::cuda::{self, Gpu};
use warpgraph::generate::{generate, GenerateOptions, Generator};
use warpgraph::{Error, Graph, Weights};

/// Every technique combination the search supports: the five ablation steps, each
/// forced direction where it applies, and the switch at its extremes.
fn all_options() -> Vec<GpuBfsOptions> {
    let mut all = Vec::new();
    for v in Variant::ALL {
        let o = v.options();
        all.push(o);
        all.push(GpuBfsOptions {
            direction: Direction::BottomUp,
            ..o
        });
        if o.direction == Direction::Optimizing {
            all.push(GpuBfsOptions {
                direction: Direction::TopDown,
                ..o
            });
            for (gamma, beta) in [(0.0, 1), (0.0, 1000), (0.99, 2)] {
                all.push(GpuBfsOptions { gamma, beta, ..o });
            }
        }
    }
    all
}

/// Searches `g` from `source` with every option set on one upload, checking each tree
/// against the CPU's depths and the verifier.
fn check_all(gpu: &Arc<Gpu>, g: &Graph, source: u32) {
    let expected = bfs::bfs(g, source, &BfsOptions::default()).unwrap().depth;
    let mut search = GpuBfs::new(gpu, g).unwrap();
    for opts in all_options() {
        let (tree, times) = search.run(source, &opts).unwrap();
        assert_eq!(tree.source, source);
        if let Some(v) = (0..expected.len()).find(|&v| tree.depth[v] != expected[v]) {
            panic!(
                "depths differ from the CPU's with {opts:?}: {} vertices, source {source}, \
                 vertex {v} at depth {} (the CPU's: {})",
                expected.len(),
                tree.depth[v],
                expected[v]
            );
        }
        verify(g, &tree).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
        // Two clocks (CUDA events, the host's): both positive, neither compared.
        assert!(
            times.kernel_seconds > 0.0 && times.total_seconds > 0.0,
            "{times:?}"
        );
    }
}

fn arb_graph() -> impl Strategy<Value = (u64, Vec<(u32, u32)>, bool)> {
    (1u64..200, any::<bool>(), 0usize..6).prop_flat_map(|(n, directed, density)| {
        let max = ((n as usize) << density) / 2 + 1;
        (
            Just(n),
            prop::collection::vec((0..n as u32, 0..n as u32), 0..max),
            Just(directed),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random graphs with self loops, parallel arcs, isolated and unreachable vertices,
    /// sparse to dense, directed and undirected.
    #[test]
    fn every_technique_matches_the_cpu((n, edges, directed) in arb_graph(), pick in any::<u32>()) {
        let Some(gpu) = common::gpu() else { return Ok(()) };
        let g = common::graph(n, &edges, Weights::None, directed);
        check_all(&gpu, &g, pick % n as u32);
    }
}

fn generated(gen: Generator, directed: bool) -> Graph {
    let opts = GenerateOptions {
        undirected: !directed,
        ..Default::default()
    };
    generate(&gen, &opts).unwrap()
}

#[test]
fn every_kernel_file_compiles() {
    let Some(gpu) = common::gpu() else { return };
    let families = [
        warpgraph::bfs::cuda::KERNEL_SOURCES,
        warpgraph::sssp::cuda::KERNEL_SOURCES,
        warpgraph::apsp::cuda::KERNEL_SOURCES,
        warpgraph::mst::cuda::KERNEL_SOURCES,
        warpgraph::centrality::cuda::KERNEL_SOURCES,
    ];
    for k in families.concat() {
        cuda::compile(k, gpu.info().compute_capability).unwrap();
        gpu.module(k).unwrap();
    }
    // A broken kernel's error carries NVRTC's log.
    let broken = cuda::KernelSource {
        name: "broken",
        source: "extern \"C\" __global__ void k() { undeclared_thing = 1; }",
    };
    let e = cuda::compile(&broken, gpu.info().compute_capability).unwrap_err();
    assert!(e.to_string().contains("undeclared_thing"), "{e}");
}

/// Power-law, uniform and mesh graphs large enough for many queue-generation blocks and
/// every degree class; several sources on one upload. The uniform graph (out-degrees
/// below 32) and the grids take `tuned`'s solo levels, the uniform one in and out of them
/// as its frontier grows past their limit and shrinks again.
#[test]
fn generated_graphs_match_the_cpu() {
    let Some(gpu) = common::gpu() else { return };
    let graphs = [
        generated(
            Generator::Kronecker {
                scale: 16,
                edge_factor: 16,
            },
            false,
        ),
        generated(
            Generator::Kronecker {
                scale: 14,
                edge_factor: 16,
            },
            true,
        ),
        generated(
            Generator::Uniform {
                vertices: 1 << 20,
                edges: 1 << 21,
            },
            false,
        ),
        generated(
            Generator::Grid {
                rows: 300,
                cols: 200,
                remove: 0.0,
                shortcuts: 0,
            },
            false,
        ),
        // Road-like: holes and a few long arcs; frontiers small enough to go solo.
        generated(
            Generator::Grid {
                rows: 700,
                cols: 600,
                remove: 0.2,
                shortcuts: 40,
            },
            false,
        ),
    ];
    for g in &graphs {
        for s in warpgraph::bench::pick_sources(g, 3, 5) {
            check_all(&gpu, g, s);
        }
    }
}

/// A vertex with more than 65,536 arcs (the whole-grid class), an isolated source, a
/// single vertex, and a long path.
#[test]
fn edge_cases() {
    let Some(gpu) = common::gpu() else { return };
    let leaves = 70_000u32;
    let star: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let g = common::graph(u64::from(leaves) + 2, &star, Weights::None, false);
    check_all(&gpu, &g, 0);
    check_all(&gpu, &g, 5);
    check_all(&gpu, &g, leaves + 1); // isolated
    check_all(&gpu, &common::graph(1, &[], Weights::None, true), 0);
    let path: Vec<(u32, u32)> = (0..4999).map(|v| (v, v + 1)).collect();
    check_all(&gpu, &common::graph(5000, &path, Weights::None, true), 0);
    check_all(
        &gpu,
        &common::graph(5000, &path, Weights::None, false),
        2500,
    );
}

/// Searches into one reused tree give the fresh searches' depths and valid trees (the
/// parents may differ: claims race): from roots whose depths differ (so a result not
/// copied in would show), the tree's vectors kept once they have the right length, and
/// replaced when not (a tree of another graph, garbage).
#[test]
fn searches_into_a_reused_tree() {
    let Some(gpu) = common::gpu() else { return };
    let g = generated(
        Generator::Kronecker {
            scale: 14,
            edge_factor: 16,
        },
        true,
    );
    let n = g.num_vertices();
    let mut search = GpuBfs::new(&gpu, &g).unwrap();
    let opts = GpuBfsOptions::default();
    let mut tree = bfs::BfsTree {
        source: 0,
        depth: vec![7; n + 3],
        parent: vec![7; 2],
    };
    let roots = warpgraph::bench::pick_sources(&g, 3, 11);
    let mut last: Option<Vec<u32>> = None;
    for &s in roots.iter().chain(roots.iter().rev().skip(1)) {
        let fresh = search.run(s, &opts).unwrap().0.depth;
        assert_ne!(
            last.as_ref(),
            Some(&fresh),
            "two roots in a row, the same depths"
        );
        let kept = (
            tree.depth.as_ptr(),
            tree.parent.as_ptr(),
            tree.depth.len() == n,
        );
        search.run_into(s, &opts, &mut tree).unwrap();
        assert_eq!(tree.source, s);
        assert!(
            tree.depth == fresh,
            "root {s}: depths differ from a fresh search's"
        );
        verify(&g, &tree).unwrap_or_else(|e| panic!("root {s}: {e}"));
        if kept.2 {
            let now = (tree.depth.as_ptr(), tree.parent.as_ptr());
            assert_eq!(
                now,
                (kept.0, kept.1),
                "root {s}: the vectors were not reused"
            );
        }
        last = Some(fresh);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let Some(gpu) = common::gpu() else { return };
    let g = common::graph(3, &[(0, 1)], Weights::None, false);
    let mut search = GpuBfs::new(&gpu, &g).unwrap();
    let e = search.run(3, &GpuBfsOptions::default()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let no_queues = GpuBfsOptions {
        scheduling: false,
        ..GpuBfsOptions::default()
    };
    let e = search.run(0, &no_queues).unwrap_err();
    assert!(e.to_string().contains("scheduling"), "{e}");
}
