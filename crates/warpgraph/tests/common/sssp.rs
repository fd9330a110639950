//! The shortest-path oracle of the SSSP tests (CPU in `sssp.rs`, GPU in `gpu_sssp.rs`):
//! random cases, textbook Bellman-Ford on the edge list itself, and the check of one
//! variant's answer against it.

use proptest::prelude::*;
use warpgraph::sssp::{sssp, verify, Algorithm, Delta, SsspResult};
use warpgraph::{Error, Graph, Weights};

// ---------------------------------------------------------------------------------------
// Graphs and the oracle

/// The weight type a test graph gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wt {
    None,
    I32,
    I64,
    F32,
    F64,
}

/// A test graph as drawn: weights are quarter units (`w / 4` for floats, `w` for ints).
#[derive(Debug, Clone)]
pub struct Case {
    pub n: usize,
    pub directed: bool,
    pub edges: Vec<(u32, u32, i64)>,
    pub wt: Wt,
    pub source: u32,
}

impl Case {
    pub fn graph(&self) -> Graph {
        let w = &self.edges;
        let weights = match self.wt {
            Wt::None => Weights::None,
            Wt::I32 => Weights::from(w.iter().map(|e| e.2 as i32).collect::<Vec<_>>()),
            Wt::I64 => Weights::from(w.iter().map(|e| e.2).collect::<Vec<_>>()),
            Wt::F32 => Weights::from(w.iter().map(|e| e.2 as f32 / 4.0).collect::<Vec<_>>()),
            Wt::F64 => Weights::from(w.iter().map(|e| e.2 as f64 / 4.0).collect::<Vec<_>>()),
        };
        let pairs: Vec<(u32, u32)> = w.iter().map(|e| (e.0, e.1)).collect();
        super::graph(self.n as u64, &pairs, weights, self.directed)
    }

    /// Arcs with weights in quarter units for floats, units for ints (1 when unweighted).
    pub fn arcs(&self) -> Vec<(usize, usize, i128)> {
        let mut a = Vec::new();
        for &(u, v, w) in &self.edges {
            let w = if self.wt == Wt::None { 1 } else { w as i128 };
            a.push((u as usize, v as usize, w));
            if !self.directed {
                a.push((v as usize, u as usize, w));
            }
        }
        a
    }

    pub fn is_float(&self) -> bool {
        matches!(self.wt, Wt::F32 | Wt::F64)
    }

    /// The weight of one arc as the oracle counts it, for display in f64 units.
    pub fn unit(&self) -> f64 {
        if self.is_float() {
            4.0
        } else {
            1.0
        }
    }
}

/// What the oracle says.
#[derive(Debug, PartialEq)]
pub enum Truth {
    /// Distances (None: unreachable), in oracle units.
    Dist(Vec<Option<i128>>),
    /// A negative cycle is reachable.
    NegativeCycle,
}

/// Textbook Bellman-Ford: n - 1 rounds, then one more to look for a change.
pub fn oracle(n: usize, arcs: &[(usize, usize, i128)], s: usize) -> Truth {
    let mut d: Vec<Option<i128>> = vec![None; n];
    d[s] = Some(0);
    for _ in 0..n.saturating_sub(1) {
        let mut changed = false;
        for &(u, v, w) in arcs {
            if let Some(du) = d[u] {
                if d[v].is_none_or(|dv| du + w < dv) {
                    d[v] = Some(du + w);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    for &(u, v, w) in arcs {
        if let Some(du) = d[u] {
            if d[v].is_none_or(|dv| du + w < dv) {
                return Truth::NegativeCycle;
            }
        }
    }
    Truth::Dist(d)
}

/// Whether an arc of negative weight leaves a vertex reachable from `s`.
pub fn negative_arc_reachable(n: usize, arcs: &[(usize, usize, i128)], s: usize) -> bool {
    let mut seen = vec![false; n];
    seen[s] = true;
    let mut stack = vec![s];
    while let Some(u) = stack.pop() {
        for &(a, b, _) in arcs {
            if a == u && !seen[b] {
                seen[b] = true;
                stack.push(b);
            }
        }
    }
    arcs.iter().any(|&(u, _, w)| seen[u] && w < 0)
}

/// The result's distances in oracle units.
pub fn dists(r: &SsspResult, unit: f64) -> Vec<Option<i128>> {
    (0..r.num_vertices() as u32)
        .map(|v| {
            let d = r.dist_f64(v);
            d.is_finite().then_some((d * unit) as i128)
        })
        .collect()
}

/// Every variant the tests run.
pub fn variants() -> Vec<Algorithm> {
    vec![
        Algorithm::Dijkstra,
        Algorithm::BellmanFord,
        Algorithm::BellmanFordQueue,
        Algorithm::DeltaStepping(Delta::Auto),
        Algorithm::DeltaStepping(Delta::Fixed(0.25)),
        Algorithm::DeltaStepping(Delta::Fixed(1.0)),
        Algorithm::DeltaStepping(Delta::Fixed(3.0)),
        Algorithm::DeltaStepping(Delta::Fixed(1000.0)),
        Algorithm::DeltaStepping(Delta::Median),
        Algorithm::DeltaStepping(Delta::Mean),
        Algorithm::DeltaStepping(Delta::MaxOverDegree),
        Algorithm::DijkstraParallel,
        Algorithm::SpmvCsr,
        Algorithm::SpmvEll,
        Algorithm::Auto,
    ]
}

/// The smallest weight of an arc `a -> b` in the case, in oracle units.
pub fn lightest(arcs: &[(usize, usize, i128)], a: usize, b: usize) -> Option<i128> {
    arcs.iter()
        .filter(|&&(u, v, _)| u == a && v == b)
        .map(|a| a.2)
        .min()
}

/// Checks one variant's answer on a case against the oracle.
pub fn check_case(c: &Case, algo: &Algorithm) -> Result<(), TestCaseError> {
    check_case_with(c, algo, false, sssp)
}

/// Checks `run`'s answer for one variant on a case against the oracle. With `strict`, a
/// variant that refuses negative weights refuses any negative arc, reachable or not (the
/// GPU's rule: it checks the graph once, before any search).
pub fn check_case_with(
    c: &Case,
    algo: &Algorithm,
    strict: bool,
    mut run: impl FnMut(&Graph, u32, &Algorithm) -> warpgraph::Result<SsspResult>,
) -> Result<(), TestCaseError> {
    let g = c.graph();
    let arcs = c.arcs();
    let s = c.source as usize;
    let got = run(&g, c.source, algo);
    let truth = oracle(c.n, &arcs, s);
    let refuses_negative = !algo.allows_negative_weights();
    let negative = match strict {
        true => arcs.iter().any(|a| a.2 < 0),
        false => negative_arc_reachable(c.n, &arcs, s),
    };
    if refuses_negative && negative {
        match got {
            Err(Error::NegativeWeight {
                from, to, weight, ..
            }) => {
                let w: f64 = weight.parse().unwrap();
                prop_assert!(w < 0.0);
                let w = (w * c.unit()) as i128;
                prop_assert!(
                    arcs.contains(&(from as usize, to as usize, w)),
                    "{algo}: named arc {from}->{to} ({weight}) is not an arc"
                );
            }
            other => prop_assert!(false, "{algo}: expected NegativeWeight, got {other:?}"),
        }
        return Ok(());
    }
    match truth {
        Truth::NegativeCycle => match got {
            Err(Error::NegativeCycle { cycle, weight }) => {
                prop_assert!(!cycle.is_empty());
                let mut total = 0i128;
                for i in 0..cycle.len() {
                    let (a, b) = (cycle[i] as usize, cycle[(i + 1) % cycle.len()] as usize);
                    let w = lightest(&arcs, a, b);
                    prop_assert!(w.is_some(), "{algo}: cycle step {a}->{b} is not an arc");
                    total += w.unwrap();
                }
                prop_assert!(total < 0, "{algo}: cycle {cycle:?} weighs {total}");
                let reported: f64 = weight.parse().unwrap();
                prop_assert_eq!((reported * c.unit()) as i128, total);
            }
            other => prop_assert!(false, "{algo}: expected NegativeCycle, got {other:?}"),
        },
        Truth::Dist(d) => {
            let r = match got {
                Ok(r) => r,
                Err(e) => return Err(TestCaseError::fail(format!("{algo}: {e}"))),
            };
            prop_assert_eq!(r.source(), c.source);
            prop_assert_eq!(&dists(&r, c.unit()), &d, "{}", algo);
            prop_assert_eq!(r.is_float(), c.is_float());
            if let Err(e) = verify(&g, &r) {
                prop_assert!(false, "{algo}: verifier: {e}");
            }
            let reached = d.iter().filter(|x| x.is_some()).count() as u64;
            prop_assert_eq!(r.reached(), reached);
        }
    }
    Ok(())
}

pub trait IsFloat {
    fn is_float(&self) -> bool;
}
impl IsFloat for SsspResult {
    fn is_float(&self) -> bool {
        matches!(self, SsspResult::Float(_))
    }
}

pub fn arb_wt() -> impl Strategy<Value = Wt> {
    prop_oneof![
        Just(Wt::None),
        Just(Wt::I32),
        Just(Wt::I64),
        Just(Wt::F32),
        Just(Wt::F64)
    ]
}

/// Random cases: weights in `lo..=hi`, sizes from empty-ish to dense.
pub fn arb_case(lo: i64, hi: i64) -> impl Strategy<Value = Case> {
    (1usize..24, any::<bool>(), arb_wt(), 0usize..4).prop_flat_map(
        move |(n, directed, wt, density)| {
            let max_edges = [n / 2, n, 3 * n, n * n][density] + 1;
            (
                Just(n),
                Just(directed),
                Just(wt),
                prop::collection::vec((0..n as u32, 0..n as u32, lo..=hi), 0..max_edges),
                0..n as u32,
            )
                .prop_map(|(n, directed, wt, edges, source)| Case {
                    n,
                    directed,
                    edges,
                    wt,
                    source,
                })
        },
    )
}
