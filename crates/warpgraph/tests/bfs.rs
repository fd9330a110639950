//! Breadth-first search against a serial oracle, and the verifier against broken trees.
//!
//! Every direction ([`Direction::Optimizing`] with several switching parameters, pure
//! top-down, pure bottom-up) runs on random directed and undirected graphs with self loops,
//! parallel arcs, isolated and unreachable vertices, n = 0 and 1, sparse and dense; the
//! depths must equal those of a plain queue BFS written here over the raw edge list, and the
//! tree must pass [`verify`]. The verifier must reject every kind of broken tree.

use std::collections::VecDeque;
use std::path::Path;

mod common;

use proptest::prelude::*;
use warpgraph::bfs::{bfs, bfs_into, verify, BfsOptions, BfsTree, Direction, UNREACHED};
use warpgraph::generate::{generate, GenerateOptions, Generator};
use warpgraph::io::{self, ReadOptions};
use warpgraph::{Error, Graph, NoProgress, Weights, NO_VERTEX};

/// The option sets every test runs: the default, switching as eagerly and as lazily as
/// possible, and both forced directions.
fn all_options() -> Vec<BfsOptions> {
    let o = |direction, alpha, beta| BfsOptions {
        direction,
        alpha,
        beta,
    };
    vec![
        BfsOptions::default(),
        o(Direction::Optimizing, 1, 1),
        o(Direction::Optimizing, 1, 1000),
        o(Direction::Optimizing, 1000, 2),
        o(Direction::TopDown, 15, 18),
        o(Direction::BottomUp, 15, 18),
    ]
}

/// The oracle: hop counts from `source` by a plain FIFO queue over adjacency lists built
/// from the edge list itself (not from the library's CSR).
fn oracle_depths(n: usize, edges: &[(u32, u32)], directed: bool, source: u32) -> Vec<u32> {
    let mut adj = vec![Vec::new(); n];
    for &(u, v) in edges {
        adj[u as usize].push(v);
        if !directed {
            adj[v as usize].push(u);
        }
    }
    let mut depth = vec![UNREACHED; n];
    depth[source as usize] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u as usize] {
            if depth[v as usize] == UNREACHED {
                depth[v as usize] = depth[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    depth
}

fn build(n: usize, edges: &[(u32, u32)], directed: bool) -> Graph {
    common::graph(n as u64, edges, Weights::None, directed)
}

/// Runs every option set from `source` and checks depths, parents and the verifier, and
/// that `bfs_into` gives the same depths and a valid tree (parents may differ: threads
/// race for them) into one reused tree, which starts as garbage: its depths of the right
/// length (written over), its parents not (replaced).
fn check_all(g: &Graph, expected: &[u32], source: u32) {
    let n = g.num_vertices();
    let mut reused = BfsTree {
        source: source ^ 1,
        depth: vec![3; n],
        parent: vec![5; n + 1],
    };
    for opts in all_options() {
        let tree = bfs(g, source, &opts).unwrap();
        bfs_into(g, source, &opts, &mut reused).unwrap();
        assert_eq!(reused.source, source);
        assert_eq!(reused.depth, expected, "reused tree, {opts:?}");
        verify(g, &reused).unwrap_or_else(|e| panic!("reused tree, {opts:?}: {e}"));
        assert_eq!(tree.source, source);
        assert_eq!(tree.depth, expected, "{opts:?}");
        assert_eq!(tree.parent[source as usize], source);
        for (v, (&d, &p)) in tree.depth.iter().zip(&tree.parent).enumerate() {
            assert_eq!(d == UNREACHED, p == NO_VERTEX, "vertex {v}, {opts:?}");
        }
        let reached = expected.iter().filter(|&&d| d != UNREACHED).count() as u64;
        assert_eq!(tree.reached(), reached);
        let deepest = expected.iter().filter(|&&d| d != UNREACHED).max().copied();
        assert_eq!(tree.max_depth(), deepest.unwrap_or(0));
        verify(g, &tree).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
    }
}

fn arb_graph() -> impl Strategy<Value = (usize, Vec<(u32, u32)>, bool)> {
    (0usize..48, any::<bool>(), 0usize..5).prop_flat_map(|(n, directed, density)| {
        let edges = if n == 0 {
            Just(Vec::new()).boxed()
        } else {
            // From empty to dense: up to about n * 2^density / 2 arcs.
            let max = (n << density) / 2 + 1;
            prop::collection::vec((0..n as u32, 0..n as u32), 0..max).boxed()
        };
        (Just(n), edges, Just(directed))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_direction_matches_the_oracle((n, edges, directed) in arb_graph(), pick in any::<u32>()) {
        let g = build(n, &edges, directed);
        if n == 0 {
            prop_assert!(matches!(bfs(&g, 0, &BfsOptions::default()), Err(Error::InvalidArgument(_))));
            return Ok(());
        }
        let source = pick % n as u32;
        check_all(&g, &oracle_depths(n, &edges, directed, source), source);
    }

    #[test]
    fn the_verifier_catches_broken_trees(
        (n, edges, directed) in arb_graph(),
        pick in any::<u32>(),
        victim in any::<u32>(),
        how in 0u32..6,
    ) {
        prop_assume!(n > 0);
        let g = build(n, &edges, directed);
        let source = pick % n as u32;
        let tree = bfs(&g, source, &BfsOptions::default()).unwrap();
        let reached: Vec<u32> =
            (0..n as u32).filter(|&v| v != source && tree.depth[v as usize] != UNREACHED).collect();
        let mut bad = tree.clone();
        if reached.is_empty() {
            // Only the source: break the source itself.
            match how % 3 {
                0 => bad.parent[source as usize] = NO_VERTEX,
                1 => bad.depth[source as usize] = 1,
                _ => bad.source = n as u32,
            }
        } else {
            let v = reached[victim as usize % reached.len()] as usize;
            match how {
                // Reached but parentless.
                0 => bad.parent[v] = NO_VERTEX,
                // A level off, either way.
                1 => bad.depth[v] += 1,
                2 => bad.depth[v] -= 1,
                // Declared unreached although its parent's arc reaches it.
                3 => {
                    bad.depth[v] = UNREACHED;
                    bad.parent[v] = NO_VERTEX;
                }
                // A parent that is not a vertex.
                4 => bad.parent[v] = n as u32 + 3,
                // A parent that is not one level up or not joined by an arc.
                _ => {
                    let p = (tree.parent[v] as usize + 1 + victim as usize % n) % n;
                    let p = p as u32;
                    let fine = g.neighbors(p).contains(&(v as u32))
                        && tree.depth[p as usize] != UNREACHED
                        && tree.depth[p as usize] + 1 == tree.depth[v];
                    prop_assume!(!fine);
                    bad.parent[v] = p;
                }
            }
        }
        prop_assert!(matches!(verify(&g, &bad), Err(Error::VerificationFailed(_))), "{bad:?}");
    }
}

#[test]
fn golden_directed_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bfs_small.gr");
    let g = io::read(&path, &ReadOptions::default(), &NoProgress).unwrap();
    assert!(g.is_directed());
    for opts in all_options() {
        let tree = bfs(&g, 0, &opts).unwrap();
        assert_eq!(tree.depth, vec![0, 1, 1, 2, 3, 3, UNREACHED], "{opts:?}");
        // Every reached vertex has a single possible parent here.
        assert_eq!(tree.parent, vec![0, 0, 0, 2, 3, 3, NO_VERTEX], "{opts:?}");
        verify(&g, &tree).unwrap();
    }
    // From vertex 5 (internal 4): 4 -> 3 leads back, 3 -> 5 is a shortcut.
    let tree = bfs(&g, 4, &BfsOptions::default()).unwrap();
    assert_eq!(
        tree.depth,
        vec![UNREACHED, UNREACHED, UNREACHED, 1, 0, 1, UNREACHED]
    );
    assert_eq!(
        tree.parent,
        vec![NO_VERTEX, NO_VERTEX, NO_VERTEX, 4, 4, 4, NO_VERTEX]
    );
}

#[test]
fn tiny_graphs() {
    // One vertex, with and without a self loop.
    for edges in [vec![], vec![(0, 0)]] {
        for directed in [false, true] {
            let g = build(1, &edges, directed);
            check_all(&g, &[0], 0);
        }
    }
    // A star: the hub reaches everything in one hop, a leaf in two.
    let star: Vec<(u32, u32)> = (1..6).map(|v| (0, v)).collect();
    let g = build(6, &star, false);
    check_all(&g, &[0, 1, 1, 1, 1, 1], 0);
    check_all(&g, &[1, 2, 2, 0, 2, 2], 3);
    // Directed, the leaves reach nothing.
    let g = build(6, &star, true);
    check_all(
        &g,
        &[UNREACHED, UNREACHED, 0, UNREACHED, UNREACHED, UNREACHED],
        2,
    );
}

#[test]
fn arguments_are_checked() {
    let g = build(3, &[(0, 1)], false);
    for source in [3, u32::MAX] {
        let e = bfs(&g, source, &BfsOptions::default()).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("3 vertices"), "{e}");
    }
    for (alpha, beta) in [(0, 18), (15, 0)] {
        let opts = BfsOptions {
            alpha,
            beta,
            ..Default::default()
        };
        assert!(matches!(bfs(&g, 0, &opts), Err(Error::InvalidArgument(_))));
    }
    let empty = build(0, &[], true);
    assert!(matches!(
        bfs(&empty, 0, &BfsOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn verifier_messages_name_the_problem() {
    // 0 -- 1 -- 2, and 3 alone.
    let g = build(4, &[(0, 1), (1, 2)], false);
    let good = bfs(&g, 0, &BfsOptions::default()).unwrap();
    let msg = |t: &BfsTree| verify(&g, t).unwrap_err().to_string();

    let mut t = good.clone();
    t.parent[2] = 0;
    assert!(
        msg(&t).contains("0 -> 2 joins depth 0 to depth 2"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.depth[2] = 1;
    assert!(
        msg(&t).contains("1 -> 2 joins depth 1 to depth 1"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.depth[2] = 3;
    assert!(
        msg(&t).contains("the arc 1 -> 2 skips a level"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.depth[2] = UNREACHED;
    t.parent[2] = NO_VERTEX;
    assert!(
        msg(&t).contains("the arc 1 -> 2 leaves the tree"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.depth[3] = 1;
    assert!(
        msg(&t).contains("vertex 3 has depth 1 but no parent"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.parent[3] = 0;
    assert!(
        msg(&t).contains("vertex 3 is unreached but has parent 0"),
        "{}",
        msg(&t)
    );
    let mut t = good.clone();
    t.depth.pop();
    assert!(
        msg(&t).contains("3 depths and 4 parents for 4 vertices"),
        "{}",
        msg(&t)
    );
    // An arc that skips a level: add the edge 0 -- 2 to the graph, keep the old tree.
    let g2 = build(4, &[(0, 1), (1, 2), (0, 2)], false);
    let e = verify(&g2, &good).unwrap_err().to_string();
    assert!(e.contains("the arc 0 -> 2 skips a level"), "{e}");
    // A non-arc tree edge with consistent depths: 0 -- 1, 0 -- 2 in a tree over 1 -- 2.
    let g3 = build(3, &[(0, 1), (1, 2)], true);
    let t = BfsTree {
        source: 0,
        depth: vec![0, 1, 2],
        parent: vec![0, 0, 0],
    };
    let e = verify(&g3, &t).unwrap_err().to_string();
    assert!(e.contains("0 -> 2 joins depth 0 to depth 2"), "{e}");
    let t = BfsTree {
        source: 1,
        depth: vec![1, 0, 1],
        parent: vec![1, 1, 1],
    };
    let e = verify(&g3, &t).unwrap_err().to_string();
    assert!(e.contains("the tree edge 1 -> 0 is not an arc"), "{e}");
}

/// Generated graphs large enough for many levels in each direction and real parallelism.
#[test]
fn generated_graphs_match_the_oracle() {
    let gens = [
        (
            Generator::Kronecker {
                scale: 11,
                edge_factor: 8,
            },
            true,
        ),
        (
            Generator::Kronecker {
                scale: 11,
                edge_factor: 8,
            },
            false,
        ),
        (
            Generator::Uniform {
                vertices: 3000,
                edges: 6000,
            },
            true,
        ),
        (
            Generator::Grid {
                rows: 40,
                cols: 60,
                remove: 0.3,
                shortcuts: 5,
            },
            false,
        ),
    ];
    for (gen, undirected) in gens {
        let opts = GenerateOptions {
            undirected,
            ..Default::default()
        };
        let g = generate(&gen, &opts).unwrap();
        let n = g.num_vertices();
        let out = g.out();
        let edges: Vec<(u32, u32)> = (0..n as u32)
            .flat_map(|u| out.neighbors(u).iter().map(move |&v| (u, v)))
            .collect();
        // The CSR already holds both directions of an undirected graph.
        for source in [0, n as u32 / 3, n as u32 - 1] {
            let expected = oracle_depths(n, &edges, true, source);
            check_all(&g, &expected, source);
        }
    }
}
