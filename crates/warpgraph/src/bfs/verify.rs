//! The BFS verifier: Graph500's rules for a BFS tree (specification section 7,
//! "validation"), as GAPBS's `BFSVerifier` checks them; the rules are listed on [`verify`].

use rayon::prelude::*;

use super::{BfsTree, UNREACHED};
use crate::error::{Error, Result};
use crate::graph::{Graph, NO_VERTEX};

/// Checks that `tree` is a BFS tree of `g` from `tree.source`.
///
/// A BFS has one right set of depths but many right parent arrays, so this checks
/// properties, not one fixed answer:
/// 1. the arrays have one entry per vertex, the source is a vertex, its own parent, at
///    depth 0;
/// 2. a vertex is unreached (depth [`UNREACHED`]) exactly when its parent is
///    [`NO_VERTEX`];
/// 3. every tree edge `parent[v] -> v` is an arc of the graph and joins levels that differ
///    by exactly one: `depth[v] == depth[parent[v]] + 1`. Depth then falls by one at every
///    step up the parent chain, which must end at depth 0, and only the source has depth
///    0: so the parents form a tree rooted at the source (no cycle can keep falling);
/// 4. every arc `u -> v` leaving a reached vertex reaches a reached vertex with
///    `depth[v] <= depth[u] + 1` (for an undirected graph, whose arcs come in pairs, the
///    ends of every edge are at most one level apart). With 3, the reached set is exactly
///    the set reachable from the source, and the depths are shortest hop counts.
///
/// The first violation in vertex order is reported.
/// # Arguments
/// - `g`: the graph that was searched.
/// - `tree`: the result to check, from any BFS variant or backend.
///
/// # Returns
/// `Ok(())` when every rule holds.
///
/// # Errors
/// [`Error::VerificationFailed`] naming the first violated rule, with the vertices (internal
/// ids) and depths involved.
///
/// # Complexity
/// O(n + m + n log d) work, in parallel; no allocation.
///
/// # Example
/// ```
/// use warpgraph::bfs::{bfs, verify, BfsOptions};
/// use warpgraph::{EdgeList, BuildOptions, Weights};
/// // 0 -- 1 -- 2
/// let g = EdgeList::new(3, vec![0, 1], vec![1, 2], Weights::None).unwrap()
///     .build(&BuildOptions { directed: false, ..Default::default() }).unwrap();
/// let mut tree = bfs(&g, 0, &BfsOptions::default()).unwrap();
/// verify(&g, &tree).unwrap();
/// tree.parent[2] = 0; // 0 -- 2 is not an edge
/// assert!(verify(&g, &tree).is_err());
/// ```
pub fn verify(g: &Graph, tree: &BfsTree) -> Result<()> {
    let fail = |msg: String| Err(Error::VerificationFailed(format!("BFS: {msg}")));
    let n = g.num_vertices();
    let (depth, parent) = (&tree.depth[..], &tree.parent[..]);
    if depth.len() != n || parent.len() != n {
        return fail(format!(
            "the tree has {} depths and {} parents for {n} vertices",
            depth.len(),
            parent.len()
        ));
    }
    let s = tree.source;
    if s as usize >= n {
        return fail(format!("the source {s} is not a vertex ({n} vertices)"));
    }
    if parent[s as usize] != s || depth[s as usize] != 0 {
        return fail(format!(
            "the source {s} must be its own parent at depth 0, but has parent {} and depth {}",
            show(parent[s as usize]),
            show(depth[s as usize])
        ));
    }

    let out = g.out();
    let problem = (0..n as u32).into_par_iter().find_map_first(|v| {
        let (d, p) = (depth[v as usize], parent[v as usize]);
        if v != s {
            // Rules 2 and 3: the tree edge into v.
            match (d == UNREACHED, p == NO_VERTEX) {
                (true, true) => return None,
                (true, false) => {
                    return Some(format!("vertex {v} is unreached but has parent {p}"))
                }
                (false, true) => return Some(format!("vertex {v} has depth {d} but no parent")),
                (false, false) => {}
            }
            let Some(&dp) = depth.get(p as usize) else {
                return Some(format!("vertex {v} has parent {p}, which is not a vertex"));
            };
            if dp == UNREACHED || u64::from(dp) + 1 != u64::from(d) {
                return Some(format!(
                    "the tree edge {p} -> {v} joins depth {} to depth {d}; it must go down \
                     exactly one level",
                    show(dp)
                ));
            }
            if out.neighbors(p).binary_search(&v).is_err() {
                return Some(format!(
                    "the tree edge {p} -> {v} is not an arc of the graph"
                ));
            }
        }
        // Rule 4: the arcs out of v.
        if d == UNREACHED {
            return None;
        }
        out.neighbors(v).iter().find_map(|&t| {
            let dt = depth[t as usize];
            if dt == UNREACHED {
                Some(format!(
                    "the arc {v} -> {t} leaves the tree: {v} is at depth {d} but {t} is \
                     unreached"
                ))
            } else if u64::from(dt) > u64::from(d) + 1 {
                Some(format!(
                    "the arc {v} -> {t} skips a level: depth {d} to depth {dt}, so {t} is \
                     closer than its depth says"
                ))
            } else {
                None
            }
        })
    });
    match problem {
        Some(msg) => fail(msg),
        None => Ok(()),
    }
}

/// A depth or vertex for messages, with the sentinels named.
fn show(x: u32) -> String {
    if x == u32::MAX {
        "none".into()
    } else {
        x.to_string()
    }
}
