//! Single-source shortest paths: every variant against a serial oracle, the verifier
//! against broken results, golden answers on drawn graphs, and the error cases.
//!
//! The oracle is written here from scratch: textbook Bellman-Ford (n rounds over an arc
//! list, in `i128` for integer weights so it cannot overflow, in `f64` for floats) on the
//! edge list itself, not on the CSR the library builds. Float weights in the random
//! graphs are multiples of 1/4, so every sum is exact and answers compare exactly.

use proptest::prelude::*;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::sssp::{cpu, sssp, verify, Algorithm, Delta, ShortestPaths, SsspResult};
use warpgraph::{BuildOptions, EdgeList, Error, Graph, Weights, NO_VERTEX};

mod common;

use common::sssp::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Non-negative weights (zero common): every variant matches the oracle and verifies.
    #[test]
    fn nonnegative_weights_all_variants(c in arb_case(0, 6)) {
        for a in variants() {
            check_case(&c, &a)?;
        }
    }

    /// Weights of both signs: Bellman-Ford variants give distances or the negative cycle;
    /// Dijkstra and delta-stepping refuse exactly when a negative arc is reachable.
    #[test]
    fn mixed_weights_all_variants(c in arb_case(-3, 8)) {
        for a in variants() {
            check_case(&c, &a)?;
        }
    }

    /// Johnson's potentials: `h <= 0`, reduced weights non-negative, `h` equal to the oracle
    /// run from a virtual source; or the negative cycle.
    #[test]
    fn potentials_match_virtual_source(c in arb_case(-3, 8)) {
        let mut c = c;
        c.directed = true;
        c.wt = Wt::I64;
        let g = c.graph();
        let mut arcs = c.arcs();
        for v in 0..c.n {
            arcs.push((c.n, v, 0));
        }
        let truth = oracle(c.n + 1, &arcs, c.n);
        let w = g.out().weights().as_slice::<i64>().unwrap();
        match (cpu::bellman_ford_potentials(g.out(), w), truth) {
            (Ok(h), Truth::Dist(d)) => {
                let want: Vec<i64> = d[..c.n].iter().map(|x| x.unwrap() as i64).collect();
                prop_assert_eq!(&h, &want);
                for &(u, v, x) in &c.arcs() {
                    prop_assert!(x as i64 + h[u] - h[v] >= 0);
                }
            }
            (Err(Error::NegativeCycle { cycle, weight }), Truth::NegativeCycle) => {
                let mut total = 0i128;
                for i in 0..cycle.len() {
                    let (a, b) = (cycle[i] as usize, cycle[(i + 1) % cycle.len()] as usize);
                    total += lightest(&arcs, a, b).unwrap();
                }
                prop_assert!(total < 0);
                prop_assert_eq!(weight, total.to_string());
            }
            (got, truth) => prop_assert!(false, "got {got:?}, oracle {truth:?}"),
        }
    }

    /// The verifier catches broken results: a distance one too long or too short, a
    /// reachable vertex marked unreachable, a wrong parent, a source not at 0.
    #[test]
    fn verifier_catches_mutations(c in arb_case(0, 6), pick in any::<prop::sample::Index>()) {
        let g = c.graph();
        let r = sssp(&g, c.source, &Algorithm::Dijkstra).unwrap();
        prop_assert!(verify(&g, &r).is_ok());
        let SsspResult::Int(p) = &r else {
            // Floats: mutate through the same code path via an integer copy of the case.
            return Ok(());
        };
        let reached: Vec<usize> = (0..c.n).filter(|&v| p.parent[v] != NO_VERTEX).collect();
        let v = reached[pick.index(reached.len())];
        let broken = |f: &dyn Fn(&mut ShortestPaths<i64>)| {
            let mut q = p.clone();
            f(&mut q);
            verify(&g, &SsspResult::Int(q))
        };
        prop_assert!(broken(&|q| q.dist[v] += 1).is_err());
        prop_assert!(broken(&|q| q.dist[v] -= 1).is_err());
        if v != c.source as usize {
            prop_assert!(broken(&|q| q.dist[v] = i64::MAX).is_err());
            prop_assert!(broken(&|q| q.parent[v] = NO_VERTEX).is_err());
            prop_assert!(broken(&|q| q.parent[v] = v as u32).is_err());
        }
        // An unreachable vertex given a distance.
        if let Some(u) = (0..c.n).find(|&u| p.parent[u] == NO_VERTEX) {
            let bad = broken(&|q| {
                q.dist[u] = 0;
                q.parent[u] = c.source;
            });
            prop_assert!(bad.is_err());
        }
        // Wrong length, wrong type.
        let bad = broken(&|q| {
            q.dist.pop();
        });
        prop_assert!(bad.is_err());
        let float = SsspResult::Float(ShortestPaths {
            source: p.source,
            dist: p.dist.iter().map(|&d| d as f64).collect(),
            parent: p.parent.clone(),
        });
        prop_assert!(verify(&g, &float).is_err() || c.is_float());
    }
}

// ---------------------------------------------------------------------------------------
// Golden answers on drawn graphs

/// The directed graph of `edges` (tail, head, weight) over `n` vertices.
fn directed<T: Copy>(n: u64, edges: &[(u32, u32, T)]) -> Graph
where
    Weights: From<Vec<T>>,
{
    EdgeList::new(
        n,
        edges.iter().map(|e| e.0).collect(),
        edges.iter().map(|e| e.1).collect(),
        Weights::from(edges.iter().map(|e| e.2).collect::<Vec<_>>()),
    )
    .unwrap()
    .build(&BuildOptions::default())
    .unwrap()
}

fn int(r: SsspResult) -> ShortestPaths<i64> {
    match r {
        SsspResult::Int(p) => p,
        SsspResult::Float(_) => panic!("expected integer distances"),
    }
}

const INF: i64 = i64::MAX;

#[test]
fn golden_diamond_every_variant() {
    //        1         1
    //   0 -------> 1 -------> 3 ---2---> 4        5 (isolated)
    //   |                     ^
    //   +----4---> 2 ---0-----+
    let g = directed(6, &[(0, 1, 1), (0, 2, 4), (1, 3, 1), (2, 3, 0), (3, 4, 2)]);
    for a in variants() {
        let p = int(sssp(&g, 0, &a).unwrap());
        assert_eq!(p.dist, vec![0, 1, 4, 2, 4, INF], "{a}");
        assert_eq!(p.parent, vec![0, 0, 0, 1, 3, NO_VERTEX], "{a}");
        assert_eq!(p.reached(), 5);
    }
}

#[test]
fn golden_ties_pick_the_smallest_parent() {
    // Two shortest paths to 3 (via 1 and via 2); parallel arcs 0 -> 1 of weight 5 and 2.
    //   0 -2-> 1 -1-> 3
    //   0 -1-> 2 -2-> 3
    let g = directed(4, &[(0, 1, 5), (0, 1, 2), (1, 3, 1), (0, 2, 1), (2, 3, 2)]);
    for a in [
        Algorithm::BellmanFord,
        Algorithm::DeltaStepping(Delta::Auto),
    ] {
        let p = int(sssp(&g, 0, &a).unwrap());
        assert_eq!(p.dist, vec![0, 2, 1, 3], "{a}");
        assert_eq!(p.parent, vec![0, 0, 0, 1], "{a}");
    }
}

#[test]
fn golden_zero_weight_cycle_gives_a_tree() {
    // 3 -5-> 1 <-0-> 2 <-5- 3: vertices 1 and 2 sit at one distance joined both ways by 0;
    // the smallest tight in-neighbour of 1 is 2 and of 2 is 1, which would be a cycle.
    let g = directed(4, &[(3, 1, 5), (3, 2, 5), (1, 2, 0), (2, 1, 0)]);
    for a in variants() {
        let r = sssp(&g, 3, &a).unwrap();
        verify(&g, &r).unwrap();
        let p = int(r);
        assert_eq!(p.dist, vec![INF, 5, 5, 0], "{a}");
        assert_eq!(p.parent[3], 3);
        assert!(p.parent[1] == 3 || p.parent[2] == 3, "{a}: {:?}", p.parent);
    }
    // The parallel variants' breadth-first choice is deterministic: both hang off 3.
    for a in [
        Algorithm::BellmanFord,
        Algorithm::DeltaStepping(Delta::Auto),
    ] {
        assert_eq!(
            int(sssp(&g, 3, &a).unwrap()).parent,
            vec![NO_VERTEX, 3, 3, 3]
        );
    }
}

#[test]
fn golden_negative_weights_bellman_ford() {
    //   0 --4--> 1 --(-2)--> 2 --(-1)--> 3
    //   0 -----------1-----------------> 3,   2 --5--> 0
    let g = directed(
        4,
        &[(0, 1, 4), (1, 2, -2), (2, 3, -1), (0, 3, 1), (2, 0, 5)],
    );
    for a in [Algorithm::BellmanFord, Algorithm::BellmanFordQueue] {
        let p = int(sssp(&g, 0, &a).unwrap());
        assert_eq!(p.dist, vec![0, 4, 2, 1], "{a}");
        // 3 is reached at 1 both directly and via 2: the parallel variant picks 0.
        assert!(
            p.parent == vec![0, 0, 1, 0] || p.parent == vec![0, 0, 1, 2],
            "{a}"
        );
    }
    assert_eq!(
        int(sssp(&g, 0, &Algorithm::BellmanFord).unwrap()).parent,
        vec![0, 0, 1, 0]
    );
    for a in [Algorithm::Dijkstra, Algorithm::DeltaStepping(Delta::Auto)] {
        match sssp(&g, 0, &a) {
            Err(Error::NegativeWeight {
                from, to, weight, ..
            }) => {
                assert_eq!((from, to, weight.as_str()), (1, 2, "-2"), "{a}");
            }
            other => panic!("{a}: {other:?}"),
        }
    }
    // From 3 nothing negative is reachable: Dijkstra answers.
    let p = int(sssp(&g, 3, &Algorithm::Dijkstra).unwrap());
    assert_eq!(p.dist, vec![INF, INF, INF, 0]);
}

#[test]
fn golden_negative_cycle_reported_in_order() {
    //   0 --1--> 1 --1--> 2 --(-3)--> 3 --1--> 1      (cycle 1 -> 2 -> 3 -> 1 weighs -1)
    //   4 --(-9)--> 4  (a negative self loop, unreachable from 0)
    let g = directed(
        5,
        &[(0, 1, 1), (1, 2, 1), (2, 3, -3), (3, 1, 1), (4, 4, -9)],
    );
    for a in [Algorithm::BellmanFord, Algorithm::BellmanFordQueue] {
        match sssp(&g, 0, &a) {
            Err(Error::NegativeCycle { cycle, weight }) => {
                assert_eq!(cycle, vec![1, 2, 3], "{a}");
                assert_eq!(weight, "-1");
            }
            other => panic!("{a}: {other:?}"),
        }
        match sssp(&g, 4, &a) {
            Err(Error::NegativeCycle { cycle, weight }) => {
                assert_eq!((cycle, weight.as_str()), (vec![4], "-9"), "{a}");
            }
            other => panic!("{a}: {other:?}"),
        }
    }
    let w = g.out().weights().as_slice::<i32>().unwrap();
    match cpu::bellman_ford_potentials(g.out(), w) {
        Err(Error::NegativeCycle { cycle, .. }) => {
            assert!(cycle == vec![1, 2, 3] || cycle == vec![4], "{cycle:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn golden_undirected_float_weights() {
    //   0 --0.5-- 1 --0.25-- 2
    //    \______1.0_________/
    let g = EdgeList::new(
        3,
        vec![0, 1, 0],
        vec![1, 2, 2],
        Weights::from(vec![0.5f32, 0.25, 1.0]),
    )
    .unwrap()
    .build(&BuildOptions {
        directed: false,
        ..Default::default()
    })
    .unwrap();
    for a in variants() {
        let r = sssp(&g, 0, &a).unwrap();
        let SsspResult::Float(p) = &r else {
            panic!("f32 weights give f64 distances")
        };
        assert_eq!(p.dist, vec![0.0, 0.5, 0.75], "{a}");
        assert_eq!(p.parent, vec![0, 0, 1], "{a}");
        verify(&g, &r).unwrap();
    }
}

#[test]
fn golden_unweighted_is_hop_count() {
    // 0 - 1 - 2 - 3 and 0 - 3 undirected, unweighted; 4 isolated.
    let g = EdgeList::new(5, vec![0, 1, 2, 0], vec![1, 2, 3, 3], Weights::None)
        .unwrap()
        .build(&BuildOptions {
            directed: false,
            ..Default::default()
        })
        .unwrap();
    for a in variants() {
        let p = int(sssp(&g, 0, &a).unwrap());
        assert_eq!(p.dist, vec![0, 1, 2, 1, INF], "{a}");
        assert_eq!(p.parent, vec![0, 0, 1, 0, NO_VERTEX], "{a}");
    }
}

// ---------------------------------------------------------------------------------------
// Edge cases and errors

#[test]
fn empty_and_single_vertex_graphs() {
    let empty = Graph::empty(0, true);
    for a in variants() {
        assert!(
            matches!(sssp(&empty, 0, &a), Err(Error::InvalidArgument(_))),
            "{a}"
        );
    }
    let one = directed(1, &[(0, 0, 3)]);
    for a in variants() {
        let p = int(sssp(&one, 0, &a).unwrap());
        assert_eq!((p.dist, p.parent), (vec![0], vec![0]), "{a}");
        assert!(
            matches!(sssp(&one, 1, &a), Err(Error::InvalidArgument(_))),
            "{a}"
        );
    }
    let w = one.out().weights().as_slice::<i32>().unwrap();
    assert_eq!(cpu::bellman_ford_potentials(one.out(), w).unwrap(), vec![0]);
    assert_eq!(
        cpu::bellman_ford_potentials(empty.out(), &[] as &[i32]).unwrap(),
        Vec::<i64>::new()
    );
}

#[test]
fn typed_entry_points_check_their_arguments() {
    let g = directed(3, &[(0, 1, 1), (1, 2, 1)]);
    let short = [1i32];
    assert!(matches!(
        cpu::dijkstra(g.out(), &short, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        cpu::bellman_ford_potentials(g.out(), &short),
        Err(Error::InvalidArgument(_))
    ));
    let w = [1i32, 1];
    assert!(matches!(
        cpu::dijkstra(g.out(), &w, 3),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        cpu::delta_stepping(g.out(), &w, 0, Delta::Fixed(0.0)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        cpu::delta_stepping(g.out(), &w, 0, Delta::Fixed(f64::NAN)),
        Err(Error::InvalidArgument(_))
    ));
    let p = cpu::dijkstra(g.out(), &[2.5f64, 0.5], 0).unwrap();
    assert_eq!(p.dist, vec![0.0, 2.5, 3.0]);
    let p = cpu::bellman_ford(g.out(), &[7i64, -8], 0).unwrap();
    assert_eq!(p.dist, vec![0, 7, -1]);
    let p = cpu::bellman_ford_queue(g.out(), &[7i64, -8], 1).unwrap();
    assert_eq!(p.dist, vec![INF, 0, -8]);
    assert_eq!(p.parent, vec![NO_VERTEX, 1, 1]);
}

#[test]
fn overflow_is_an_error_only_when_a_distance_does_not_fit() {
    let big = i64::MAX / 2 + 1; // two of them exceed i64
                                // 0 -big-> 1 -big-> 2: the distance to 2 does not fit.
    let g = directed(3, &[(0, 1, big), (1, 2, big)]);
    for a in variants() {
        assert!(matches!(sssp(&g, 0, &a), Err(Error::Overflow(_))), "{a}");
    }
    // Add 0 -5-> 2: the overflowing path is not needed.
    let g = directed(3, &[(0, 1, big), (1, 2, big), (0, 2, 5)]);
    for a in variants() {
        let p = int(sssp(&g, 0, &a).unwrap());
        assert_eq!(p.dist, vec![0, big, 5], "{a}");
    }
    // Negative sums below i64::MIN.
    let g = directed(3, &[(0, 1, i64::MIN / 2 - 1), (1, 2, i64::MIN / 2 - 1)]);
    for a in [Algorithm::BellmanFord, Algorithm::BellmanFordQueue] {
        assert!(matches!(sssp(&g, 0, &a), Err(Error::Overflow(_))), "{a}");
    }
}

#[test]
fn names_parse() {
    for (s, a) in [
        ("dijkstra", Algorithm::Dijkstra),
        ("bellman-ford", Algorithm::BellmanFord),
        ("bellman-ford-queue", Algorithm::BellmanFordQueue),
        ("delta-stepping", Algorithm::DeltaStepping(Delta::Auto)),
    ] {
        assert_eq!(s.parse::<Algorithm>().unwrap(), a);
        assert_eq!(a.to_string(), s);
    }
    for (s, d) in [
        ("auto", Delta::Auto),
        ("median", Delta::Median),
        ("mean", Delta::Mean),
        ("max-over-degree", Delta::MaxOverDegree),
        ("2.5", Delta::Fixed(2.5)),
    ] {
        assert_eq!(s.parse::<Delta>().unwrap(), d);
        assert_eq!(d.to_string(), s);
    }
    let e = "dijkstar".parse::<Algorithm>().unwrap_err().to_string();
    assert!(
        e.contains("dijkstar") && e.contains("bellman-ford-queue"),
        "{e}"
    );
    for bad in ["-1", "0", "inf", "NaN", "fast"] {
        assert!(bad.parse::<Delta>().is_err(), "{bad}");
    }
}

#[test]
fn extreme_deltas_still_answer() {
    // Float weights up to 1e300 and a width of 1e-300: quotients beyond u64 share the last
    // bucket; a width of 1e300 puts everything in bucket 0.
    let w = [1e300f64, 2.0, 1e300, 3.5, 0.0, 7.25];
    let g = EdgeList::new(
        5,
        vec![0, 0, 1, 2, 3, 3],
        vec![1, 2, 3, 3, 4, 0],
        Weights::from(w.to_vec()),
    )
    .unwrap()
    .build(&BuildOptions::default())
    .unwrap();
    let base = sssp(&g, 0, &Algorithm::Dijkstra).unwrap();
    let SsspResult::Float(p) = &base else {
        panic!("float weights")
    };
    assert_eq!(p.dist, vec![0.0, 1e300, 2.0, 5.5, 5.5]);
    for d in [1e-300, 1e-320, 1.0, 1e300, f64::MAX] {
        let r = sssp(&g, 0, &Algorithm::DeltaStepping(Delta::Fixed(d))).unwrap();
        assert_eq!(r, base, "delta {d}");
        verify(&g, &r).unwrap();
    }
}

#[test]
fn delta_rules_on_a_known_graph() {
    // Weights 1, 2, 3, 10 on a star out of 0 (max degree 4): median 3 (upper middle),
    // mean 4, max / max degree = 10 / 4 -> 2 for integers. Every rule must still answer.
    let g = directed(5, &[(0, 1, 1), (0, 2, 2), (0, 3, 3), (0, 4, 10)]);
    for d in [
        Delta::Median,
        Delta::Mean,
        Delta::MaxOverDegree,
        Delta::Auto,
        Delta::Fixed(0.1),
    ] {
        let p = int(sssp(&g, 0, &Algorithm::DeltaStepping(d)).unwrap());
        assert_eq!(p.dist, vec![0, 1, 2, 3, 10], "{d}");
    }
}

// ---------------------------------------------------------------------------------------
// Generated graphs: every variant agrees and verifies

fn agree_on(g: &Graph, sources: &[u32]) {
    for &s in sources {
        let base = sssp(g, s, &Algorithm::Dijkstra).unwrap();
        verify(g, &base).unwrap();
        for a in variants() {
            let r = match sssp(g, s, &a) {
                // ELL refuses skewed degrees, saying why.
                Err(Error::InvalidArgument(m)) if a == Algorithm::SpmvEll => {
                    assert!(m.contains("pad every row"), "{m}");
                    continue;
                }
                r => r.unwrap(),
            };
            verify(g, &r).unwrap_or_else(|e| panic!("{a} from {s}: {e}"));
            for v in 0..g.num_vertices() as u32 {
                let (x, y) = (base.dist_f64(v), r.dist_f64(v));
                assert!(
                    x == y || (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                    "{a} from {s}: vertex {v}: {x} vs {y}"
                );
            }
        }
    }
}

#[test]
fn generated_graphs_all_variants_agree() {
    let kron = |weights, undirected| {
        generate(
            // 2^11 vertices, about 60k arcs: enough for delta-stepping to use 2 threads.
            &Generator::Kronecker {
                scale: 11,
                edge_factor: 16,
            },
            &GenerateOptions {
                weights,
                undirected,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let grid = |weights| {
        generate(
            &Generator::Grid {
                rows: 40,
                cols: 50,
                remove: 0.1,
                shortcuts: 20,
            },
            &GenerateOptions {
                weights,
                undirected: true,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let ints = WeightSpec::Int { lo: 1, hi: 255 };
    agree_on(&kron(ints, true), &[0, 1, 77]);
    // Zero weights (parents from the tight-arc search), and distances beyond 2^32 (the
    // packed cells give way to wide ones), on graphs big enough for several threads.
    agree_on(&kron(WeightSpec::Int { lo: 0, hi: 2 }, true), &[4]);
    agree_on(
        &kron(
            WeightSpec::Int {
                lo: 1 << 33,
                hi: 1 << 34,
            },
            false,
        ),
        &[6],
    );
    agree_on(&kron(ints, false), &[0, 5]);
    agree_on(&kron(WeightSpec::Float, true), &[3]);
    agree_on(&kron(WeightSpec::None, false), &[9]);
    agree_on(&grid(ints), &[0, 999]);
    agree_on(&grid(WeightSpec::Int { lo: 0, hi: 3 }), &[17]);
    agree_on(&grid(WeightSpec::Float), &[5]);
}
