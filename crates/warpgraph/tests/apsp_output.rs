//! What all-pairs shortest paths hand out: the verifier against broken results and
//! streamed rows, the `.npy` and TSV sinks read back, and the row contract every sink
//! enforces.

mod apsp_support;

use std::collections::HashMap;

use apsp_support::{graph, graph_strategy, run, INF};
use proptest::strategy::{Strategy, ValueTree};
use warpgraph::apsp::sink::NpyDtype;
use warpgraph::apsp::{
    apsp, npy_file_size, tsv_size_bound, verify_matrix, verify_row, Algorithm, ApspOptions,
    DistMatrix, DistType, Dists, MatrixSink, NpySink, RowBlock, RowSink, TsvSink, VerifyingSink,
};
use warpgraph::{Error, VertexIds, Weights};

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
    assert!(!path.exists(), "the file appears only on commit");
    sink.commit().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len() as u64, npy_file_size(2, 2));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file left");
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
// Output sizes, known before the run.

#[test]
fn npy_size_is_exact() {
    for n in [0usize, 1, 2, 3, 7, 40] {
        for (w, dtype) in [
            (
                Weights::from(vec![3i64; n.saturating_sub(1)]),
                NpyDtype::Native,
            ),
            (
                Weights::from(vec![0.5f64; n.saturating_sub(1)]),
                NpyDtype::F64,
            ),
        ] {
            let arcs: Vec<(u32, u32)> = (1..n as u32).map(|v| (v - 1, v)).collect();
            let g = graph(n as u64, &arcs, w, true);
            let mut sink = NpySink::new(Vec::new(), "<memory>").with_dtype(dtype);
            apsp(&g, Algorithm::Johnson, &ApspOptions::default(), &mut sink).unwrap();
            assert_eq!(
                sink.into_inner().len() as u64,
                npy_file_size(n, n),
                "n = {n}"
            );
        }
    }
    // 2^18 vertices: 512 GiB and a 128-byte header.
    assert_eq!(npy_file_size(1 << 18, 1 << 18), (1u64 << 39) + 128);
    assert_eq!(npy_file_size(usize::MAX, usize::MAX), u64::MAX);
}

fn tsv_bytes(g: &warpgraph::Graph, pred: bool) -> u64 {
    let mut sink = TsvSink::new(Vec::new(), "<memory>", g.ids());
    let opts = ApspOptions { predecessors: pred };
    apsp(g, Algorithm::Johnson, &opts, &mut sink).unwrap();
    sink.into_inner().len() as u64
}

#[test]
fn tsv_bound_is_reached_and_never_passed() {
    // Every pair reachable and every distance as long as the longest possible: the bound
    // is the size. Ids 8..=11 cross from one digit to two.
    let arcs = [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 0),
        (1, 0),
        (2, 1),
        (3, 2),
        (0, 3),
    ];
    let g = graph(4, &arcs, Weights::from(vec![3i32; 8]), true)
        .with_ids(VertexIds::Base(8))
        .unwrap();
    // Distances 0..=6: one digit, the bound's (n - 1) * 3 = 9.
    for pred in [false, true] {
        let bytes = tsv_bytes(&g, pred);
        let bound = tsv_size_bound(&g, pred);
        assert!(bytes <= bound, "{bytes} > {bound}");
        // Predecessor ids are bounded by the longest (2 digits); with them the file has
        // some one-digit ones.
        if !pred {
            assert_eq!(bytes, bound);
        }
    }
    // Random graphs, negative and float weights, sparse ids: never passed.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for round in 0..40 {
        let tg = graph_strategy(50).new_tree(&mut runner).unwrap().current();
        let mut g = tg.build();
        if round % 2 == 1 {
            let ids: Vec<u64> = (0..tg.n as u64).map(|i| 7 * i * i + 3).collect();
            g = g.with_ids(VertexIds::Map(ids.into())).unwrap();
        }
        let pred = round % 3 == 0;
        let opts = ApspOptions { predecessors: pred };
        if apsp(&g, Algorithm::Johnson, &opts, &mut warpgraph::apsp::Discard).is_err() {
            continue; // a negative cycle: no output
        }
        let (bytes, bound) = (tsv_bytes(&g, pred), tsv_size_bound(&g, pred));
        assert!(bytes <= bound, "round {round}: {bytes} > {bound}");
    }
}

// ---------------------------------------------------------------------------------------
// The sink contract.

#[test]
fn sinks_enforce_the_row_contract() {
    let info = warpgraph::apsp::RowsInfo::square(2, DistType::I64, false);
    let mut sink = MatrixSink::new();
    sink.begin(&info).unwrap();
    let row1 = RowBlock {
        first: 1,
        row_len: 2,
        dist: Dists::I64(&[5, 0]),
        pred: None,
    };
    assert!(sink.rows(&row1).is_err(), "row 1 before row 0");
    let f = RowBlock {
        first: 0,
        row_len: 2,
        dist: Dists::F64(&[0.0, 1.0]),
        pred: None,
    };
    assert!(sink.rows(&f).is_err(), "wrong type");
    let row0 = RowBlock {
        first: 0,
        row_len: 2,
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

/// A matrix sink prepared before its rows (as a GPU run prepares it while its kernels
/// run) holds the same matrix as one that was not, predecessors included; preparing an
/// unbegun sink does nothing.
#[test]
fn a_prepared_matrix_sink_holds_the_same_rows() {
    let arcs = [(0, 1), (1, 2), (2, 0), (3, 4), (5, 5)];
    let g = graph(7, &arcs, Weights::from(vec![3i32, -1, 2, 5, 0]), true);
    for pred in [false, true] {
        let opts = ApspOptions { predecessors: pred };
        let plain = warpgraph::apsp::apsp_matrix(&g, Algorithm::FloydWarshall, &opts).unwrap();
        let mut sink = MatrixSink::new();
        sink.prepare().unwrap();
        let mut prepared = Prepared(&mut sink);
        apsp(&g, Algorithm::FloydWarshall, &opts, &mut prepared).unwrap();
        assert_eq!(sink.into_matrix().unwrap(), plain, "pred={pred}");
    }
}

/// Calls `prepare` on the sink it wraps right after `begin`.
struct Prepared<'a>(&'a mut MatrixSink);

impl RowSink for Prepared<'_> {
    fn begin(&mut self, info: &warpgraph::apsp::RowsInfo) -> warpgraph::Result<()> {
        self.0.begin(info)?;
        self.0.prepare()
    }
    fn rows(&mut self, b: &RowBlock<'_>) -> warpgraph::Result<()> {
        self.0.rows(b)
    }
    fn finish(&mut self) -> warpgraph::Result<()> {
        self.0.finish()
    }
}
