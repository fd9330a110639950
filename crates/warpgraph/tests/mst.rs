//! Minimum spanning forests against a serial oracle, and the verifier against broken ones.
//!
//! Kruskal and Borůvka run on random directed and undirected graphs with every weight type
//! (negative and zero weights, `-0.0` and `+0.0`, wide `i64` and `f64` ranges that take
//! Borůvka's sorted-key path, unweighted), self loops, parallel edges, isolated vertices,
//! n = 0 and 1; both must return exactly the forest of a textbook Kruskal written here over
//! the raw edge list, and pass [`verify`]. The verifier must reject every kind of broken
//! forest.

use std::path::Path;

use proptest::prelude::*;
use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::graph::stats::Number;
use warpgraph::io::{self, ReadOptions};
use warpgraph::mst::{mst, treats_as_undirected, verify, Algorithm, SpanningForest};
use warpgraph::{BuildOptions, EdgeList, Error, Graph, NoProgress, Weights};

mod common;

use common::mst::{arb_case, assert_same, case};

const ALGORITHMS: [Algorithm; 2] = [Algorithm::Kruskal, Algorithm::Boruvka];

/// A broken copy of a valid forest (`how` picks the damage), or `None` where that damage
/// is impossible (no edges, or no other edge to swap in). Totals and counts are kept
/// consistent with the damaged edges where that makes the damage harder to see.
fn damage(g: &Graph, good: &SpanningForest, how: u32, pick: usize) -> Option<SpanningForest> {
    let mut bad = good.clone();
    let k = good.edges.len();
    let i = pick % k.max(1);
    let mut list = weight_list(&good.weights);
    let weighted = !list.is_empty();
    match how {
        // Drop an edge.
        0 if k > 0 => {
            bad.edges.remove(i);
            if weighted {
                list.remove(i);
            }
            bad.components += 1;
        }
        // A wrong total.
        1 => {
            bad.total_weight = match good.total_weight {
                Number::Int(x) => Number::Int(x.wrapping_add(1)),
                Number::Float(x) => Number::Float(x + 0.25),
            };
            return Some(bad);
        }
        // A wrong component count.
        2 => bad.components += 1,
        // Two edges out of order.
        3 if k > 1 => {
            bad.edges.swap(0, 1);
            if weighted {
                list.swap(0, 1);
            }
        }
        // An edge written (v, u).
        4 if k > 0 => {
            let (u, v) = bad.edges[i];
            bad.edges[i] = (v, u);
        }
        // An edge listed twice: a cycle.
        5 if k > 0 => {
            bad.edges.insert(i, good.edges[i]);
            if weighted {
                list.insert(i, list[i]);
            }
            bad.components = bad.components.saturating_sub(1);
        }
        // Another edge of the graph across the same cut: a spanning forest still, but not
        // the minimum one, or not the one the tie order picks.
        6 if k > 0 => {
            let (u, v) = good.edges[i];
            let n = g.num_vertices();
            let mut root: Vec<usize> = (0..n).collect();
            fn find(r: &[usize], mut x: usize) -> usize {
                while r[x] != x {
                    x = r[x];
                }
                x
            }
            for (j, &(a, b)) in good.edges.iter().enumerate() {
                if j != i {
                    let (ra, rb) = (find(&root, a as usize), find(&root, b as usize));
                    root[ra] = rb;
                }
            }
            let side: Vec<usize> = (0..n).map(|x| find(&root, x)).collect();
            let (su, sv) = (side[u as usize], side[v as usize]);
            let out = g.out();
            let (x, y, arc) = (0..n as u32).find_map(|a| {
                out.neighbors(a)
                    .iter()
                    .zip(out.row(a))
                    .find_map(|(&b, arc)| {
                        let (x, y) = (a.min(b), a.max(b));
                        let (sx, sy) = (side[x as usize], side[y as usize]);
                        let crosses = (sx, sy) == (su, sv) || (sx, sy) == (sv, su);
                        (crosses && (x, y) != (u, v)).then_some((x, y, arc))
                    })
            })?;
            bad.edges[i] = (x, y);
            if weighted {
                list[i] = out.weights().get_f64(arc).unwrap_or(1.0);
            }
            // Re-sort by (weight, u, v) so that only minimality can fail.
            let mut order: Vec<usize> = (0..k).collect();
            order.sort_by(|&p, &q| {
                let (wp, wq) = (list.get(p).unwrap_or(&0.0), list.get(q).unwrap_or(&0.0));
                wp.total_cmp(wq).then(bad.edges[p].cmp(&bad.edges[q]))
            });
            bad.edges = order.iter().map(|&p| bad.edges[p]).collect();
            if weighted {
                list = order.iter().map(|&p| list[p]).collect();
            }
        }
        // A changed weight: heavier, or lighter (2x + 1 < x for x < -1) than the lightest
        // edge between its ends, which the forest holds, so never another edge's weight.
        7 if k > 0 && weighted => {
            list[i] = if list[i] == -1.0 {
                5.0
            } else {
                list[i] * 2.0 + 1.0
            };
        }
        _ => return None,
    }
    bad.weights = from_list(&good.weights, &list);
    bad.total_weight = sum(&bad.weights, bad.edges.len());
    Some(bad)
}

/// The weights as f64 (exact for the values these tests use); empty when unweighted.
fn weight_list(w: &Weights) -> Vec<f64> {
    (0..w.len()).filter_map(|i| w.get_f64(i)).collect()
}

/// `list` in the weight type of `like`.
fn from_list(like: &Weights, list: &[f64]) -> Weights {
    match like {
        Weights::None => Weights::None,
        Weights::I32(_) => Weights::I32(list.iter().map(|&x| x as i32).collect::<Vec<_>>().into()),
        Weights::I64(_) => Weights::I64(list.iter().map(|&x| x as i64).collect::<Vec<_>>().into()),
        Weights::F32(_) => Weights::F32(list.iter().map(|&x| x as f32).collect::<Vec<_>>().into()),
        Weights::F64(_) => Weights::F64(list.to_vec().into()),
    }
}

/// The total a forest with these weights would claim.
fn sum(w: &Weights, edges: usize) -> Number {
    match w {
        Weights::None => Number::Int(edges as i64),
        Weights::I32(x) => Number::Int(x.iter().map(|&v| v as i64).sum()),
        Weights::I64(x) => Number::Int(x.iter().fold(0i64, |a, &v| a.wrapping_add(v))),
        Weights::F32(x) => Number::Float(x.iter().map(|&v| v as f64).sum()),
        Weights::F64(x) => Number::Float(x.iter().sum()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn both_algorithms_match_the_oracle((n, raw, directed, kind) in arb_case()) {
        let (g, want) = case(n, &raw, directed, kind);
        prop_assert_eq!(treats_as_undirected(&g), directed);
        for alg in ALGORITHMS {
            let got = mst(&g, alg).unwrap();
            assert_same(&got, &want);
            verify(&g, &got).unwrap_or_else(|e| panic!("{alg}: {e}"));
        }
    }

    #[test]
    fn the_verifier_catches_broken_forests(
        (n, raw, directed, kind) in arb_case(),
        how in 0u32..8,
        pick in any::<usize>(),
    ) {
        let (g, good) = case(n, &raw, directed, kind);
        verify(&g, &good).unwrap();
        let bad = damage(&g, &good, how, pick);
        prop_assume!(bad.is_some());
        let bad = bad.unwrap_or(good);
        let result = verify(&g, &bad);
        prop_assert!(matches!(result, Err(Error::VerificationFailed(_))), "{:?} {:?}", bad, result);
    }
}

#[test]
fn golden_file_undirected_and_directed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mst_small.gr");
    for undirected in [true, false] {
        let opts = ReadOptions {
            undirected,
            ..Default::default()
        };
        let g = io::read(&path, &opts, &NoProgress).unwrap();
        assert_eq!(treats_as_undirected(&g), !undirected);
        for alg in ALGORITHMS {
            let f = mst(&g, alg).unwrap();
            assert_eq!(
                f.edges,
                vec![(3, 4), (3, 5), (0, 2), (0, 1), (2, 3)],
                "{alg}"
            );
            assert_eq!(f.weights, Weights::I32(vec![-2, 0, 1, 4, 7].into()));
            assert_eq!(f.total_weight, Number::Int(10));
            assert_eq!(f.components, 2);
            verify(&g, &f).unwrap();
        }
    }
}

#[test]
fn ties_are_broken_by_endpoints() {
    // A 4-cycle of equal weights: the forest is the first three edges in (u, v) order.
    let g = EdgeList::new(
        4,
        vec![2, 1, 0, 3],
        vec![3, 2, 1, 0],
        Weights::F64(vec![1.0; 4].into()),
    )
    .unwrap()
    .build(&BuildOptions {
        directed: false,
        ..Default::default()
    })
    .unwrap();
    for alg in ALGORITHMS {
        assert_eq!(mst(&g, alg).unwrap().edges, vec![(0, 1), (0, 3), (1, 2)]);
    }
    // -0.0 comes before +0.0: of the parallel edges 0 -- 1, the negative zero is kept.
    let g = EdgeList::new(
        2,
        vec![0, 1],
        vec![1, 0],
        Weights::F32(vec![0.0, -0.0].into()),
    )
    .unwrap()
    .build(&BuildOptions::default())
    .unwrap();
    for alg in ALGORITHMS {
        let f = mst(&g, alg).unwrap();
        let w = f.weights.as_slice::<f32>().unwrap();
        assert!(w[0] == 0.0 && w[0].is_sign_negative(), "{alg}: {w:?}");
    }
}

#[test]
fn empty_and_single_vertex_graphs() {
    for n in [0u32, 1] {
        for directed in [false, true] {
            let g = Graph::empty(n, directed);
            for alg in ALGORITHMS {
                let f = mst(&g, alg).unwrap();
                assert!(f.edges.is_empty());
                assert_eq!(f.weights, Weights::None);
                assert_eq!(f.total_weight, Number::Int(0));
                assert_eq!(f.components, u64::from(n));
                verify(&g, &f).unwrap();
            }
        }
    }
}

#[test]
fn totals_that_do_not_fit_are_errors() {
    let path3 = |w: Weights| {
        EdgeList::new(3, vec![0, 1], vec![1, 2], w)
            .unwrap()
            .build(&BuildOptions {
                directed: false,
                ..Default::default()
            })
            .unwrap()
    };
    let big_int = path3(Weights::I64(vec![i64::MAX, 1].into()));
    let big_float = path3(Weights::F64(vec![f64::MAX, f64::MAX].into()));
    for alg in ALGORITHMS {
        assert!(
            matches!(mst(&big_int, alg), Err(Error::Overflow(_))),
            "{alg}"
        );
        assert!(
            matches!(mst(&big_float, alg), Err(Error::Overflow(_))),
            "{alg}"
        );
    }
    // Large weights whose sum fits are fine, even when a partial sum would not.
    let g = path3(Weights::I64(vec![i64::MAX, i64::MIN].into()));
    for alg in ALGORITHMS {
        assert_eq!(mst(&g, alg).unwrap().total_weight, Number::Int(-1));
    }
}

#[test]
fn verifier_messages_name_the_problem() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mst_small.gr");
    let opts = ReadOptions {
        undirected: true,
        ..Default::default()
    };
    let g = io::read(&path, &opts, &NoProgress).unwrap();
    let good = mst(&g, Algorithm::Boruvka).unwrap();
    let msg = |f: &SpanningForest| verify(&g, f).unwrap_err().to_string();

    let mut f = good.clone();
    f.weights = Weights::I64(vec![-2, 0, 1, 4, 7].into());
    assert!(
        msg(&f).contains("of type i64 but the graph's are i32"),
        "{}",
        msg(&f)
    );
    let mut f = good.clone();
    f.edges[0] = (4, 3);
    assert!(msg(&f).contains("edge 0 is (4, 3)"), "{}", msg(&f));
    let mut f = good.clone();
    f.edges[4] = (2, 6);
    assert!(
        msg(&f).contains("is not an edge of the graph with that weight"),
        "{}",
        msg(&f)
    );
    let mut f = good.clone();
    f.edges.swap(2, 3);
    f.weights = Weights::I32(vec![-2, 0, 4, 1, 7].into());
    assert!(
        msg(&f).contains("not in increasing (weight, u, v) order"),
        "{}",
        msg(&f)
    );
    // The heavier parallel edge 4 -- 5 (weight 3) instead of 3 -- 4 (weight 7): still a
    // spanning tree of 5 edges? No: 4 -- 5 twice closes a cycle.
    let mut f = good.clone();
    f.edges = vec![(3, 4), (3, 5), (0, 2), (3, 4), (0, 1)];
    f.weights = Weights::I32(vec![-2, 0, 1, 3, 4].into());
    assert!(msg(&f).contains("closes a cycle"), "{}", msg(&f));
    let mut f = good.clone();
    f.components = 3;
    assert!(
        msg(&f).contains("the graph has 2 connected components"),
        "{}",
        msg(&f)
    );
    let mut f = good.clone();
    f.total_weight = Number::Int(11);
    assert!(
        msg(&f).contains("given as 11 but the edges sum to 10"),
        "{}",
        msg(&f)
    );
    // 2 -- 3 (weight 7) swapped for 1 -- 2 (weight 4) is lighter?  No: 1 -- 2 closes the
    // triangle 0-1-2.  Swap 0 -- 1 (4) for 1 -- 2 (4): same weight, other tie choice.
    let mut f = good.clone();
    f.edges = vec![(3, 4), (3, 5), (0, 2), (1, 2), (2, 3)];
    assert!(
        msg(&f).contains("not the one the (weight, u, v) order selects"),
        "{}",
        msg(&f)
    );
}

/// Generated graphs of every kind, both algorithms, against each other and the verifier.
#[test]
fn generated_graphs_agree() {
    let gens = [
        (
            Generator::Kronecker {
                scale: 11,
                edge_factor: 8,
            },
            true,
            WeightSpec::Int { lo: 1, hi: 255 },
        ),
        (
            Generator::Kronecker {
                scale: 10,
                edge_factor: 8,
            },
            false,
            WeightSpec::Int { lo: -5, hi: 5 },
        ),
        (
            Generator::Uniform {
                vertices: 3000,
                edges: 9000,
            },
            true,
            WeightSpec::Float,
        ),
        (
            Generator::Uniform {
                vertices: 2000,
                edges: 4000,
            },
            false,
            WeightSpec::None,
        ),
        (
            Generator::Grid {
                rows: 50,
                cols: 40,
                remove: 0.2,
                shortcuts: 10,
            },
            true,
            WeightSpec::Int { lo: 1, hi: 9 },
        ),
        (
            Generator::Ssca2 {
                scale: 10,
                max_clique: 8,
                inter_prob: 0.2,
            },
            true,
            WeightSpec::Int {
                lo: i64::MIN / 4,
                hi: i64::MAX / 4,
            },
        ),
    ];
    for (gen, undirected, weights) in gens {
        let opts = GenerateOptions {
            undirected,
            weights,
            ..Default::default()
        };
        let g = generate(&gen, &opts).unwrap();
        let k = mst(&g, Algorithm::Kruskal);
        let b = mst(&g, Algorithm::Boruvka);
        match (k, b) {
            (Ok(k), Ok(b)) => {
                assert_same(&b, &k);
                verify(&g, &b).unwrap_or_else(|e| panic!("{gen:?}: {e}"));
                assert_eq!(b.edges.len() as u64 + b.components, g.num_vertices() as u64);
            }
            // Wide i64 weights may overflow the total; then both must say so.
            (Err(Error::Overflow(_)), Err(Error::Overflow(_))) => {}
            (k, b) => panic!("{gen:?}: {k:?} vs {b:?}"),
        }
    }
}
