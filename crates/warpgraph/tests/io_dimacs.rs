//! DIMACS `.gr` / `.ss` reading and writing: golden files, round trips, malformed input,
//! weight typing and multi-chunk parsing.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{data_file, graph, one_based, read_data, weight_type, xorshift};
use warpgraph::io::{self, dimacs, Format, ReadOptions, WriteContext};
use warpgraph::{Duplicates, Error, Graph, NoProgress, VertexIds, WeightType, Weights};

/// The name parse errors give.
const PATH: &str = "t.gr";

fn parse_with(text: &[u8], opts: &ReadOptions) -> Result<Graph, Error> {
    common::read_text(text, Format::Dimacs, PATH, opts)
}

fn parse(text: &str) -> Result<Graph, Error> {
    parse_with(text.as_bytes(), &ReadOptions::default())
}

/// The (line, message) of a parse error; fails the test on anything else.
#[track_caller]
fn parse_error(r: Result<Graph, Error>) -> (u64, String) {
    common::parse_error(r, PATH)
}

#[track_caller]
fn assert_parse_error(text: &str, line: u64, needle: &str) {
    common::assert_parse_error(parse(text), PATH, line, &[needle]);
}

/// Writes `g` as `.gr` into a temporary folder and reads it back with `opts`.
fn round_trip(g: &Graph, opts: &ReadOptions) -> (Graph, String) {
    common::round_trip(g, "gr", opts)
}

// ---------------------------------------------------------------- golden files

#[test]
fn golden_tiny_graph() {
    let g = read_data("dimacs_tiny.gr");
    assert!(g.is_directed());
    assert_eq!(g.num_vertices(), 5);
    assert_eq!(g.out().offsets(), &[0, 3, 4, 5, 6, 6]);
    assert_eq!(g.out().targets(), &[1, 1, 2, 2, 0, 3]);
    // Row 0: parallel arcs 1->2 keep input order (7 then 3).
    assert_eq!(
        g.out().weights(),
        &Weights::I32(vec![7, 3, 2, -1, 4, 0].into())
    );
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.vertex(5).unwrap(), 4);
}

#[test]
fn golden_crlf_and_i64_weights() {
    let path = data_file("dimacs_crlf.gr");
    let raw = std::fs::read(&path).unwrap();
    assert!(
        raw.windows(2).any(|w| w == b"\r\n"),
        "the golden file lost its CRLF line endings"
    );
    let g = io::read(&path, &ReadOptions::default(), &NoProgress).unwrap();
    assert_eq!(g.out().offsets(), &[0, 1, 2, 3]);
    assert_eq!(g.out().targets(), &[1, 2, 0]);
    assert_eq!(
        g.out().weights(),
        &Weights::I64(vec![5_000_000_000, 1, -2].into())
    );
    assert_eq!(g.ids(), &VertexIds::Base(1));
}

#[test]
fn golden_sources() {
    let path = data_file("dimacs_sources.ss");
    let data = std::fs::read(&path).unwrap();
    assert_eq!(dimacs::read_sources(&data, &path).unwrap(), vec![1, 4, 2]);
}

// ---------------------------------------------------------------- round trips

#[test]
fn round_trip_directed_i32_with_loops_multi_edges_and_isolated_vertex() {
    let g = one_based(graph(
        6,
        &[(0, 1), (0, 1), (2, 2), (3, 0), (1, 3), (0, 4)],
        Weights::I32(vec![5, -3, 0, 9, i32::MAX, i32::MIN].into()),
        true,
    ));
    let (back, text) = round_trip(&g, &ReadOptions::default());
    assert_eq!(back, g);
    assert!(text.contains("p sp 6 6\n"), "{text}");
    assert!(text.starts_with("c written by warpgraph\n"), "{text}");
    assert!(!text.contains("renumbered"), "{text}");
}

#[test]
fn round_trip_i64_and_f64_and_forced_f32() {
    let big = one_based(graph(
        3,
        &[(0, 1), (1, 2), (2, 0)],
        Weights::I64(vec![1 << 40, -(1 << 35), 7].into()),
        true,
    ));
    assert_eq!(round_trip(&big, &ReadOptions::default()).0, big);

    let floats = one_based(graph(
        3,
        &[(0, 1), (1, 2), (2, 0), (0, 2), (1, 1)],
        Weights::F64(vec![0.1, -2.5, 3.0, 1e-7, 1e20].into()),
        true,
    ));
    assert_eq!(round_trip(&floats, &ReadOptions::default()).0, floats);

    let single = one_based(graph(
        2,
        &[(0, 1), (1, 0)],
        Weights::F32(vec![0.1f32, -1.5e-3].into()),
        true,
    ));
    let forced = weight_type(Some(WeightType::F32));
    assert_eq!(round_trip(&single, &forced).0, single);
    // Unforced, f32 weights come back as the f64 values of their shortest text.
    let back = round_trip(&single, &ReadOptions::default()).0;
    assert_eq!(
        back.out().weights(),
        &Weights::F64(vec![0.1, -1.5e-3].into())
    );
}

#[test]
fn round_trip_unweighted_writes_weight_one() {
    let g = one_based(graph(3, &[(0, 1), (1, 2), (1, 2)], Weights::None, true));
    let (back, text) = round_trip(&g, &ReadOptions::default());
    assert!(text.contains("unweighted"), "{text}");
    assert!(text.contains("a 2 3 1\na 2 3 1\n"), "{text}");
    assert_eq!(back.out().offsets(), g.out().offsets());
    assert_eq!(back.out().targets(), g.out().targets());
    assert_eq!(back.out().weights(), &Weights::I32(vec![1, 1, 1].into()));
    // Asking for no weights gives the original graph back.
    let none = weight_type(Some(WeightType::None));
    assert_eq!(round_trip(&g, &none).0, g);
}

#[test]
fn round_trip_undirected_comes_back_as_symmetric_arcs() {
    let g = one_based(graph(
        4,
        &[(0, 1), (1, 2), (3, 3)],
        Weights::I32(vec![4, 5, 6].into()),
        false,
    ));
    let (back, text) = round_trip(&g, &ReadOptions::default());
    assert!(text.contains("undirected"), "{text}");
    // Two arcs per edge, one for the self loop.
    assert!(text.contains("p sp 4 5\n"), "{text}");
    assert!(back.is_directed());
    assert_eq!(back.out(), g.out());
    // --undirected --duplicates drop restores the undirected graph.
    let opts = ReadOptions {
        undirected: true,
        duplicates: Duplicates::Drop,
        ..Default::default()
    };
    assert_eq!(round_trip(&g, &opts).0, g);
}

#[test]
fn round_trip_renumbers_other_ids() {
    let g = graph(3, &[(0, 1), (2, 0)], Weights::I32(vec![1, 2].into()), true);
    let (back, text) = round_trip(&g, &ReadOptions::default());
    assert!(text.contains("renumbered 1..3"), "{text}");
    assert!(text.contains("a 1 2 1\na 3 1 2\n"), "{text}");
    assert_eq!(back, one_based(g.clone()));

    let mapped = g.with_ids(VertexIds::Map(vec![10, 20, 30].into())).unwrap();
    common::assert_renumbering_noted(&mapped, "gr", "renumbered 1..3 in increasing order");
}

#[test]
fn round_trip_empty_graph() {
    // A DIMACS graph is always weighted: no arcs come back as empty i32 weights.
    let none = weight_type(Some(WeightType::None));
    let g = one_based(Graph::empty(0, true));
    let (back, text) = round_trip(&g, &ReadOptions::default());
    assert!(text.ends_with("p sp 0 0\n"), "{text}");
    assert_eq!(back.num_vertices(), 0);
    assert_eq!(back.out().weights(), &Weights::I32(Vec::new().into()));
    assert_eq!(round_trip(&g, &none).0, g);
    // Isolated vertices only.
    let g = one_based(Graph::empty(4, true));
    let (back, text) = round_trip(&g, &none);
    assert!(text.ends_with("p sp 4 0\n"), "{text}");
    assert_eq!(back, g);
}

#[test]
fn sources_round_trip() {
    let mut out = Vec::new();
    let cx = WriteContext {
        path: Path::new("s.ss"),
        progress: &NoProgress,
    };
    dimacs::write_sources(&[3, 1, 18446744073709551615], &mut out, &cx).unwrap();
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(text.starts_with("c "), "{text}");
    assert!(
        text.ends_with("p aux sp ss 3\ns 3\ns 1\ns 18446744073709551615\n"),
        "{text}"
    );
    assert_eq!(
        dimacs::read_sources(&out, Path::new("s.ss")).unwrap(),
        vec![3, 1, u64::MAX]
    );
    let mut out = Vec::new();
    dimacs::write_sources(&[], &mut out, &cx).unwrap();
    assert_eq!(
        dimacs::read_sources(&out, Path::new("s.ss")).unwrap(),
        Vec::<u64>::new()
    );
}

// ---------------------------------------------------------------- malformed input

#[test]
fn missing_problem_line() {
    assert_parse_error("c only a comment\n", 1, "no problem line");
    assert_parse_error("", 1, "no problem line");
    assert_parse_error("c one\n\nc three", 3, "expected 'p sp");
}

#[test]
fn duplicate_problem_line() {
    assert_parse_error(
        "p sp 2 1\na 1 2 1\np sp 2 1\n",
        3,
        "second problem line (the first is line 1)",
    );
}

#[test]
fn arc_before_problem_line() {
    assert_parse_error(
        "c x\na 1 2 3\np sp 2 1\n",
        2,
        "arc line before the problem line",
    );
}

#[test]
fn wrong_problem() {
    assert_parse_error("c\np max 2 1\n", 2, "expected problem type 'sp'");
    assert_parse_error(
        "p sp 2\n",
        1,
        "expected the problem line 'p sp <vertices> <arcs>'",
    );
    assert_parse_error("p sp 2 1 9\n", 1, "found 'p sp 2 1 9'");
    assert_parse_error("p sp two 1\n", 1, "expected the number of vertices");
    assert_parse_error("p sp 2 -1\n", 1, "expected the number of arcs");
}

#[test]
fn wrong_arc_field_count() {
    assert_parse_error(
        "p sp 2 1\na 1 2\nc padding\n",
        2,
        "expected an arc 'a <tail> <head> <weight>' (4 fields), found 3 fields",
    );
    assert_parse_error("p sp 2 1\na 1 2 3 4\n", 2, "found 5 fields");
}

#[test]
fn vertex_out_of_range() {
    assert_parse_error(
        "p sp 2 2\na 1 2 1\na 1 3 1\n",
        3,
        "head 3 is out of range: vertices are numbered 1 to 2",
    );
    assert_parse_error("p sp 2 1\na 0 1 1\n", 2, "tail 0 is out of range");
    assert_parse_error(
        "p sp 2 1\na -1 1 1\n",
        2,
        "expected a vertex number as tail, found '-1'",
    );
}

#[test]
fn bad_weights() {
    assert_parse_error("p sp 2 1\na 1 2 x\n", 2, "expected a number, found 'x'");
    assert_parse_error("p sp 2 1\n\na 1 2 nan\n", 3, "not finite");
    assert_parse_error("p sp 2 1\na 1 2 inf\n", 2, "not finite");
    assert_parse_error("p sp 2 1\na 1 2 -Infinity\n", 2, "not finite");
}

#[test]
fn unknown_line_type() {
    assert_parse_error("p sp 2 1\nx 1 2 3\n", 2, "unknown line type 'x'");
    assert_parse_error("p sp 2 1\nab 1 2 3\n", 2, "unknown line type 'ab'");
    assert_parse_error("n 1 2\np sp 2 1\n", 1, "unknown line type 'n'");
}

#[test]
fn arc_count_mismatch_names_the_problem_line() {
    assert_parse_error(
        "c\nc\np sp 2 2\na 1 2 1\nc padding: room for two arcs\n",
        3,
        "announces 2 arcs but the file has 1 arc line",
    );
    assert_parse_error(
        "p sp 2 1\na 1 2 1\na 2 1 1\n",
        1,
        "announces 1 arc but the file has 2 arc lines",
    );
}

#[test]
fn absurd_headers_fail_fast() {
    let t = Instant::now();
    assert_parse_error(
        "p sp 1000000000000000 1\na 1 2 1\n",
        1,
        "vertices exceed the limit of 4294967295",
    );
    assert_parse_error(
        "c big\np sp 5 99999999999\na 1 2 1\n",
        2,
        "announces 99999999999 arcs, but the 8 bytes after it can hold at most 1",
    );
    assert_parse_error("p sp 5 18446744073709551615\n", 1, "can hold at most 0");
    assert!(t.elapsed() < Duration::from_secs(1));
}

#[test]
fn malformed_sources() {
    let err = |text: &str, line: u64, needle: &str| match dimacs::read_sources(
        text.as_bytes(),
        Path::new("s.ss"),
    ) {
        Err(Error::Parse { line: l, msg, .. }) => {
            assert_eq!(l, line, "{text:?}: {msg}");
            assert!(msg.contains(needle), "{msg:?} lacks {needle:?}");
        }
        other => panic!("expected a parse error for {text:?}, got {other:?}"),
    };
    err("c\n", 1, "no problem line");
    err(
        "s 1\np aux sp ss 1\n",
        1,
        "source line before the problem line",
    );
    err(
        "p aux sp ss 1\np aux sp ss 1\ns 1\n",
        2,
        "second problem line",
    );
    err(
        "p sp ss 1\n",
        1,
        "expected the problem line 'p aux sp ss <count>'",
    );
    err("p aux sp ss x\n", 1, "expected the number of sources");
    err(
        "p aux sp ss 1\ns\n",
        2,
        "expected a source line 's <vertex>'",
    );
    err("p aux sp ss 1\ns 1 2\n", 2, "expected a source line");
    err("p aux sp ss 1\ns -4\n", 2, "expected a source vertex id");
    err("p aux sp ss 1\nq 3\n", 2, "unknown line type 'q'");
    err(
        "c\np aux sp ss 3\ns 1\ns 2\n",
        2,
        "announces 3 sources but the file has 2 source lines",
    );
    // An absurd count is not an allocation.
    err(
        "p aux sp ss 99999999999999\ns 1\n",
        1,
        "announces 99999999999999",
    );
}

// ---------------------------------------------------------------- weight typing

fn weights_of(text: &str, forced: Option<WeightType>) -> Result<Weights, Error> {
    parse_with(text.as_bytes(), &weight_type(forced)).map(|g| g.out().weights().clone())
}

#[test]
fn weight_types_are_inferred() {
    let small = "p sp 2 2\na 1 2 5\na 2 1 -2147483648\n";
    assert_eq!(
        weights_of(small, None).unwrap(),
        Weights::I32(vec![5, i32::MIN].into())
    );
    let large = "p sp 2 2\na 1 2 5\na 2 1 2147483648\n";
    assert_eq!(
        weights_of(large, None).unwrap(),
        Weights::I64(vec![5, 2147483648].into())
    );
    let frac = "p sp 2 2\na 1 2 5\na 2 1 0.25\n";
    assert_eq!(
        weights_of(frac, None).unwrap(),
        Weights::F64(vec![5.0, 0.25].into())
    );
    let exp = "p sp 2 1\na 1 2 1e3\n";
    assert_eq!(
        weights_of(exp, None).unwrap(),
        Weights::F64(vec![1000.0].into())
    );
}

#[test]
fn weight_types_can_be_forced() {
    let small = "p sp 2 2\na 1 2 5\na 2 1 -7\n";
    assert_eq!(
        weights_of(small, Some(WeightType::I64)).unwrap(),
        Weights::I64(vec![5, -7].into())
    );
    assert_eq!(
        weights_of(small, Some(WeightType::F32)).unwrap(),
        Weights::F32(vec![5.0, -7.0].into())
    );
    assert_eq!(
        weights_of(small, Some(WeightType::F64)).unwrap(),
        Weights::F64(vec![5.0, -7.0].into())
    );
    let (line, msg) = parse_error(parse_with(
        b"p sp 2 2\na 1 2 5\na 2 1 1.5\n",
        &weight_type(Some(WeightType::I32)),
    ));
    assert_eq!(line, 3);
    assert!(
        msg.contains("not an integer, but the weight type is i32"),
        "{msg}"
    );
    let (line, msg) = parse_error(parse_with(
        b"p sp 2 2\na 1 2 3000000000\na 2 1 1\n",
        &weight_type(Some(WeightType::I32)),
    ));
    assert_eq!(line, 2);
    assert!(msg.contains("does not fit in i32"), "{msg}");
    let (line, msg) = parse_error(parse_with(
        b"p sp 2 1\na 1 2 1e300\n",
        &weight_type(Some(WeightType::F32)),
    ));
    assert_eq!(line, 2);
    assert!(msg.contains("overflows f32"), "{msg}");
}

// ---------------------------------------------------------------- large input

/// ~3.5 MB: several parse chunks.
fn big_file(arcs: u64, n: u64) -> String {
    let mut s = format!("c generated\np sp {n} {arcs}\n");
    for i in 0..arcs {
        let u = i % n + 1;
        let v = (i * 7919) % n + 1;
        s.push_str(&format!("a {u} {v} {}\n", i % 1000));
        if i % 5000 == 0 {
            s.push_str("c a comment line\n");
        }
    }
    s
}

#[test]
fn multi_chunk_file() {
    let (arcs, n) = (200_000u64, 50_000u64);
    let text = big_file(arcs, n);
    assert!(text.len() > 3 << 20, "{}", text.len());
    let g = parse(&text).unwrap();
    assert_eq!(g.num_vertices(), n as usize);
    assert_eq!(g.num_arcs(), arcs);
    // Row of vertex 1 (internal 0): arcs i = 0, n, 2n, ... with targets (i * 7919) % n.
    let expect: Vec<u32> = {
        let mut t: Vec<u32> = (0..arcs)
            .filter(|i| i % n == 0)
            .map(|i| ((i * 7919) % n) as u32)
            .collect();
        t.sort_unstable();
        t
    };
    assert_eq!(g.neighbors(0), &expect[..]);
    let w = g.out().weights().as_slice::<i32>().unwrap();
    assert_eq!(w.iter().map(|&x| x as i64).sum::<i64>(), {
        (0..arcs).map(|i| (i % 1000) as i64).sum::<i64>()
    });

    // An error near the end is reported with its line number.
    let mut bad = text.clone();
    let lines_before = bad.lines().count() as u64;
    bad.push_str("a 1 2 oops\n");
    let bad = bad.replacen(
        &format!("p sp {n} {arcs}"),
        &format!("p sp {n} {}", arcs + 1),
        1,
    );
    let (line, msg) = parse_error(parse(&bad));
    assert_eq!(line, lines_before + 1);
    assert!(msg.contains("expected a number, found 'oops'"), "{msg}");
}

/// Parsing and writing throughput on ~230 MB. Run with
/// `cargo test --release -p warpgraph --test io_dimacs -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let (arcs, n) = (10_000_000u64, 1_000_000u64);
    let mut text = format!("c generated\np sp {n} {arcs}\n").into_bytes();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    let mut state = 88172645463325252u64;
    let mut b = itoa::Buffer::new();
    for _ in 0..arcs {
        let x = xorshift(&mut state);
        let (u, v, w) = (x % n + 1, (x >> 20) % n + 1, (x >> 40) % 1_000_000);
        src.push(u as u32 - 1);
        dst.push(v as u32 - 1);
        text.extend_from_slice(b"a ");
        text.extend_from_slice(b.format(u).as_bytes());
        text.push(b' ');
        text.extend_from_slice(b.format(v).as_bytes());
        text.push(b' ');
        text.extend_from_slice(b.format(w).as_bytes());
        text.push(b'\n');
    }
    common::print_throughput("dimacs", Format::Dimacs, &text, src, dst, arcs);
}

proptest::proptest! {
    /// Hostile input never panics: every outcome is a graph that passes validation or an
    /// error naming a line of the input.
    #[test]
    fn arbitrary_input_never_panics(
        head in "(c[ a-z]{0,5}\n){0,2}p sp [0-9]{1,2} [0-9]{1,2}\n",
        body in proptest::collection::vec("(a|c|p| a|x|)[ \t]{1,2}[-+0-9]{0,3}( [-0-9.e]{0,4}){0,3}(\r)?", 0..12),
    ) {
        let text = format!("{head}{}", body.join("\n"));
        match parse(&text) {
            Ok(g) => {
                proptest::prop_assert!(g.out().validate().is_ok());
                proptest::prop_assert_eq!(g.ids(), &VertexIds::Base(1));
            }
            Err(Error::Parse { line, .. }) => {
                proptest::prop_assert!(line >= 1 && line <= text.lines().count().max(1) as u64);
            }
            Err(e) => proptest::prop_assert!(false, "unexpected error kind: {e:?}"),
        }
    }
}
