//! The SSSP verifier: an O(m) certificate that distances and parents are shortest paths.
//!
//! GAPBS checks its SSSP kernel against a serial Dijkstra; here the answer is checked by
//! properties instead, which also covers negative weights (where Dijkstra is no oracle)
//! and costs one pass over the arcs:
//!
//! 1. `d(source) = 0` and `parent[source] = source`;
//! 2. a vertex is reached (finite distance, a parent) exactly when a plain breadth-first
//!    search from the source reaches it;
//! 3. *feasibility*: for every arc `u -> v` with `u` reached, `d(v) <= d(u) + w(u, v)`;
//! 4. *tightness*: every reached `v` other than the source has a reached parent `p` with an
//!    arc `p -> v` (some parallel copy) such that `d(v) = d(p) + w(p, v)`;
//! 5. the parents form a tree rooted at the source (no parent cycle).
//!
//! 4 and 5 make every `d(v)` the length of a real path (the tree path); 3, summed along any
//! path from the source, makes every path at least that long. So the distances are
//! exactly the shortest-path distances, and no negative cycle is reachable.
//! Float sums are compared exactly as the algorithms compute them (`d(u) + w` in `f64`).

use rayon::prelude::*;

use super::cpu::{add, ArcWeights, Sum, Unit};
use super::{ShortestPaths, SsspResult};
use crate::error::{Error, Result};
use crate::graph::{Csr, Distance, Graph, VertexId, Weights, NO_VERTEX};

/// Checks that `result` holds shortest-path distances and a shortest-path tree of `g`.
///
/// # Arguments
/// - `g`: the graph the result was computed on.
/// - `result`: distances and parents from [`super::sssp`] or any other source.
///
/// # Returns
/// `Ok(())` when all five properties of the module docs hold.
///
/// # Errors
/// [`Error::VerificationFailed`] naming the first property that fails and a vertex or arc
/// where it does (also when the result's arrays do not match the graph's size or its
/// distance type does not match the weights).
///
/// # Complexity
/// O(n + m) time (the reachability search is serial, the arc checks parallel), O(n) memory.
///
/// # Example
/// ```
/// use warpgraph::sssp::{sssp, verify, Algorithm, SsspResult};
/// use warpgraph::{BuildOptions, EdgeList, Weights};
/// // 0 --1--> 1 --1--> 2,  0 --3--> 2
/// let g = EdgeList::new(3, vec![0, 1, 0], vec![1, 2, 2], Weights::from(vec![1i32, 1, 3]))
///     .unwrap()
///     .build(&BuildOptions::default())
///     .unwrap();
/// let mut r = sssp(&g, 0, &Algorithm::Dijkstra).unwrap();
/// verify(&g, &r).unwrap();
/// if let SsspResult::Int(p) = &mut r {
///     p.dist[2] = 3; // too long: the arc 1 -> 2 offers 2
/// }
/// assert!(verify(&g, &r).is_err());
/// ```
pub fn verify(g: &Graph, result: &SsspResult) -> Result<()> {
    let csr = g.out();
    match (result, csr.weights()) {
        (SsspResult::Int(p), Weights::None) => check(csr, &Unit, p),
        (SsspResult::Int(p), Weights::I32(w)) => check(csr, &w[..], p),
        (SsspResult::Int(p), Weights::I64(w)) => check(csr, &w[..], p),
        (SsspResult::Float(p), Weights::F32(w)) => check(csr, &w[..], p),
        (SsspResult::Float(p), Weights::F64(w)) => check(csr, &w[..], p),
        (r, w) => Err(fail(format!(
            "{} distances do not match the graph's {} weights",
            if matches!(r, SsspResult::Int(_)) {
                "integer"
            } else {
                "float"
            },
            w.weight_type()
        ))),
    }
}

fn fail(msg: String) -> Error {
    Error::VerificationFailed(msg)
}

/// The five checks on typed weights.
fn check<A: ArcWeights + ?Sized>(csr: &Csr, w: &A, p: &ShortestPaths<A::D>) -> Result<()> {
    let n = csr.num_vertices();
    let (dist, parent, s) = (&p.dist, &p.parent, p.source);
    if dist.len() != n || parent.len() != n {
        return Err(fail(format!(
            "{} distances and {} parents for {n} vertices",
            dist.len(),
            parent.len()
        )));
    }
    if s as usize >= n {
        return Err(fail(format!(
            "the source {s} is not a vertex ({n} vertices)"
        )));
    }
    let inf = A::D::INFINITY;
    if dist[s as usize] != A::D::ZERO || parent[s as usize] != s {
        return Err(fail(format!(
            "the source {s} has distance {} and parent {} (expected 0 and itself)",
            dist[s as usize], parent[s as usize]
        )));
    }

    // 2. Reachability by a plain serial BFS.
    let t = csr.targets();
    let mut reached = vec![false; n];
    reached[s as usize] = true;
    let mut queue = vec![s];
    let mut head = 0;
    while let Some(&u) = queue.get(head) {
        head += 1;
        for &v in &t[csr.row(u)] {
            if !reached[v as usize] {
                reached[v as usize] = true;
                queue.push(v);
            }
        }
    }
    drop(queue);
    let mismatch = (0..n)
        .into_par_iter()
        .find_first(|&v| reached[v] != (dist[v] != inf) || reached[v] != (parent[v] != NO_VERTEX));
    if let Some(v) = mismatch {
        return Err(fail(format!(
            "vertex {v} is {} from the source but has distance {} and parent {}",
            if reached[v] {
                "reachable"
            } else {
                "unreachable"
            },
            dist[v],
            if parent[v] == NO_VERTEX {
                "none".to_string()
            } else {
                parent[v].to_string()
            }
        )));
    }

    // 3. Feasibility of every arc out of a reached vertex.
    let infeasible = (0..n as VertexId).into_par_iter().find_map_first(|u| {
        let du = dist[u as usize];
        if du == inf {
            return None;
        }
        let r = csr.row(u);
        t[r.clone()]
            .iter()
            .zip(w.row(r))
            .find_map(|(&v, x)| match add(du, x) {
                Sum::Val(sum) if dist[v as usize] > sum => Some((u, v, x, Some(sum))),
                Sum::Under => Some((u, v, x, None)),
                _ => None,
            })
    });
    if let Some((u, v, x, sum)) = infeasible {
        return Err(fail(match sum {
            Some(sum) => format!(
                "arc {u} -> {v} of weight {x} offers distance {sum} to {v}, shorter than its {}",
                dist[v as usize]
            ),
            None => format!("arc {u} -> {v} of weight {x} leads below the distance range"),
        }));
    }

    // 4. Every parent arc is tight.
    let loose = (0..n as VertexId).into_par_iter().find_first(|&v| {
        let pv = parent[v as usize];
        if v == s || pv == NO_VERTEX {
            return false;
        }
        if pv as usize >= n || !reached[pv as usize] {
            return true;
        }
        let r = csr.row(pv);
        let row = &t[r.clone()];
        let first = row.partition_point(|&x| x < v);
        let copies = row[first..].iter().take_while(|&&x| x == v).count();
        let start = r.start + first;
        !w.row(start..start + copies)
            .any(|x| add(dist[pv as usize], x) == Sum::Val(dist[v as usize]))
    });
    if let Some(v) = loose {
        let pv = parent[v as usize];
        return Err(fail(format!(
            "vertex {v} has parent {pv}, but no arc {pv} -> {v} makes distance {} from the \
             parent's {}",
            dist[v as usize],
            dist.get(pv as usize)
                .map_or("(none)".to_string(), |d| d.to_string())
        )));
    }

    // 5. The parents form a tree: walking up from any reached vertex ends at the source.
    // 0: not seen, 1: on the current walk, 2: leads to the source.
    let mut state = vec![0u8; n];
    state[s as usize] = 2;
    let mut walk = Vec::new();
    for v in 0..n {
        if !reached[v] || state[v] != 0 {
            continue;
        }
        walk.clear();
        let mut x = v;
        while state[x] == 0 {
            state[x] = 1;
            walk.push(x);
            x = parent[x] as usize; // a reached vertex: checked in range by step 4
        }
        if state[x] == 1 {
            return Err(fail(format!(
                "the parents of vertex {v} lead into a cycle through vertex {x}"
            )));
        }
        for &y in &walk {
            state[y] = 2;
        }
    }
    Ok(())
}
