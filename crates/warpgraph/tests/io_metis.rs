//! METIS reading and writing: golden files, round trips, malformed inputs and a
//! multi-chunk input.

mod common;

use std::time::Instant;

use common::{duplicates, graph, i32s, one_based, read_data, weight_type};
use warpgraph::io::{Format, ReadOptions};
use warpgraph::{Duplicates, Error, Graph, VertexIds, WeightType, Weights};

/// The name parse errors give.
const PATH: &str = "bad.graph";

fn read_with(text: &str, opts: &ReadOptions) -> warpgraph::Result<Graph> {
    common::read_text(text.as_bytes(), Format::Metis, PATH, opts)
}

fn read_str(text: &str) -> warpgraph::Result<Graph> {
    read_with(text, &ReadOptions::default())
}

/// Asserts a parse error of `bad.graph` on `line` whose message contains all of `parts`.
#[track_caller]
fn assert_parse_error(r: warpgraph::Result<Graph>, line: u64, parts: &[&str]) {
    common::assert_parse_error(r, PATH, line, parts);
}

// ---------------------------------------------------------------- golden files

#[test]
fn golden_edge_weights() {
    let g = read_data("metis_weighted.graph");
    assert!(!g.is_directed());
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.out().offsets(), &[0, 3, 5, 8, 10]);
    assert_eq!(g.out().targets(), &[1, 2, 3, 0, 2, 0, 1, 3, 0, 2]);
    assert_eq!(i32s(&g), vec![4, 1, 2, 4, 7, 1, 7, 5, 2, 5]);
    assert_eq!(g.num_edges(), 5);
}

#[test]
fn golden_vertex_weights_are_ignored() {
    let g = read_data("metis_vertex_weights.graph");
    assert!(!g.is_directed());
    assert_eq!(g.out().offsets(), &[0, 1, 3, 4]);
    assert_eq!(g.out().targets(), &[1, 0, 2, 1]);
    assert_eq!(i32s(&g), vec![9, 9, 4, 4]);
}

#[test]
fn golden_isolated_vertex_and_comments() {
    let g = read_data("metis_isolated.graph");
    assert!(!g.is_directed());
    assert_eq!(g.weight_type(), WeightType::None);
    assert_eq!(g.out().offsets(), &[0, 2, 4, 5, 5, 6]);
    assert_eq!(g.out().targets(), &[1, 2, 0, 4, 0, 1]);
}

#[test]
fn vertex_sizes_and_single_vertex_weights() {
    // FMT 111: size, one vertex weight, then neighbour/weight pairs.
    let g = read_str("3 2 111\n7 1 2 -6\n7 1 1 -6 3 8\n7 1 2 8\n").unwrap();
    assert_eq!(g.out().offsets(), &[0, 1, 3, 4]);
    assert_eq!(g.out().targets(), &[1, 0, 2, 1]);
    assert_eq!(i32s(&g), vec![-6, -6, 8, 8]);
    // FMT 10: one vertex weight each (NCON defaults to 1), no edge weights.
    let g = read_str("3 1 10\n1 2\n1 1\n1\n").unwrap();
    assert_eq!(g.weight_type(), WeightType::None);
    assert_eq!(g.out().offsets(), &[0, 1, 2, 2]);
    assert_eq!(g.out().targets(), &[1, 0]);
    // FMT 100: a size each.
    let g = read_str("2 1 100\n5 2\n5 1\n").unwrap();
    assert_eq!(g.out().targets(), &[1, 0]);
    // FMT 0 and 000 mean plain adjacency lists.
    for fmt in ["0", "000", "00"] {
        let g = read_str(&format!("2 1 {fmt}\n2\n1\n")).unwrap();
        assert_eq!(g.out().targets(), &[1, 0]);
    }
}

#[test]
fn weights_narrow_widen_and_obey_forced_types() {
    let g = read_str("2 1 1\n2 3000000000\n1 3000000000\n").unwrap();
    assert_eq!(
        g.out().weights(),
        &Weights::I64(vec![3000000000, 3000000000].into())
    );
    let as_f64 = weight_type(Some(WeightType::F64));
    let g = read_with("2 1 1\n2 3\n1 3\n", &as_f64).unwrap();
    assert_eq!(g.out().weights(), &Weights::F64(vec![3.0, 3.0].into()));
    let as_i32 = weight_type(Some(WeightType::I32));
    assert_parse_error(
        read_with("2 1 1\n2 3000000000\n1 3000000000\n", &as_i32),
        2,
        &["does not fit in i32"],
    );
}

#[test]
fn trailing_blank_lines_and_crlf_are_accepted() {
    let g = read_str("3 1\r\n2\r\n1\r\n\r\n\r\n\n").unwrap();
    assert_eq!(g.out().offsets(), &[0, 1, 2, 2]);
    assert_eq!(g.out().targets(), &[1, 0]);
}

#[test]
fn multi_edges_follow_the_duplicate_policy() {
    let text = "2 3 1\n2 5 2 1 2 5\n1 5 1 1 1 5\n";
    let g = read_str(text).unwrap();
    assert_eq!(g.out().offsets(), &[0, 3, 6]);
    assert_eq!(i32s(&g), vec![5, 1, 5, 5, 1, 5]);
    assert_eq!(g.num_edges(), 3);
    let lightest = duplicates(Duplicates::KeepLightest);
    let g = read_with(text, &lightest).unwrap();
    assert_eq!(g.out().offsets(), &[0, 1, 2]);
    assert_eq!(i32s(&g), vec![1, 1]);
    let drop = duplicates(Duplicates::Drop);
    let g = read_with(text, &drop).unwrap();
    assert_eq!(i32s(&g), vec![5, 5]);
}

#[test]
fn undirected_option_changes_nothing() {
    let opts = common::undirected();
    let g = read_with("3 2\n2\n1 3\n2\n", &opts).unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.out().targets(), &[1, 0, 2, 1]);
}

// ---------------------------------------------------------------- round trips

/// The undirected graph of `e` with weights `w`, ids `1..=n`, as METIS files read back.
fn undirected(n: u64, e: &[(u32, u32)], w: Weights) -> Graph {
    one_based(graph(n, e, w, false))
}

/// Writes `g` as `.graph` in a temporary folder and reads it back with `opts`.
fn round_trip_with(g: &Graph, opts: &ReadOptions) -> (Graph, String) {
    common::round_trip(g, "graph", opts)
}

fn round_trip(g: &Graph) -> (Graph, String) {
    round_trip_with(g, &ReadOptions::default())
}

/// A multi-edge 1-2 with two weights, vertices 5 and 6 isolated.
const MIXED: &[(u32, u32)] = &[(0, 1), (2, 0), (1, 0), (1, 2), (3, 0), (2, 3)];

#[test]
fn round_trip_every_integer_weight_type() {
    let weights = [
        Weights::None,
        Weights::I32(vec![5, -1, 7, 2, i32::MIN, i32::MAX].into()),
        Weights::I64(vec![5, -1, 7, 1 << 40, i64::MIN, i64::MAX].into()),
    ];
    for w in weights {
        let g = undirected(6, MIXED, w.clone());
        let (back, text) = round_trip(&g);
        assert_eq!(back, g, "weights {:?}\n{text}", w.weight_type());
    }
}

#[test]
fn round_trip_a_vertex_of_huge_degree() {
    // Vertex 1's line is longer than a formatting block, so it is cut across blocks.
    let leaves = 150_000u32;
    let e: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let w: Vec<i32> = (1..=leaves as i32).map(|x| x * 3 - 7).collect();
    let g = undirected(leaves as u64 + 1, &e, Weights::I32(w.into()));
    let (back, text) = round_trip(&g);
    assert_eq!(back, g);
    let line1 = text.lines().nth(2).unwrap();
    let expect: Vec<String> = (1..=leaves as i64)
        .map(|v| format!("{} {}", v + 1, v * 3 - 7))
        .collect();
    assert_eq!(line1, expect.join(" "));
    assert_eq!(text.lines().count(), 2 + leaves as usize + 1);
}

#[test]
fn written_text_is_exact() {
    let g = undirected(4, &[(0, 1), (2, 0)], Weights::I32(vec![4, 9].into()));
    let (_, text) = round_trip(&g);
    assert_eq!(text, "% written by warpgraph\n4 2 1\n2 4 3 9\n1 4\n1 9\n\n");
    let g = undirected(3, &[(0, 1)], Weights::None);
    let (_, text) = round_trip(&g);
    assert_eq!(text, "% written by warpgraph\n3 1\n2\n1\n\n");
}

#[test]
fn round_trip_small_i64_reads_back_as_i32_unless_forced() {
    let g = undirected(3, &[(0, 1), (1, 2)], Weights::I64(vec![4, -5].into()));
    let (back, _) = round_trip(&g);
    assert_eq!(i32s(&back), vec![4, 4, -5, -5]);
    let as_i64 = weight_type(Some(WeightType::I64));
    assert_eq!(round_trip_with(&g, &as_i64).0, g);
}

#[test]
fn round_trip_empty_graphs() {
    let g = one_based(Graph::empty(0, false));
    let (back, text) = round_trip(&g);
    assert_eq!(back, g);
    assert!(text.ends_with("\n0 0\n"), "{text}");
    let g = one_based(Graph::empty(4, false));
    let (back, text) = round_trip(&g);
    assert_eq!(back, g);
    assert!(text.ends_with("\n4 0\n\n\n\n\n"), "{text:?}");
}

#[test]
fn renumbered_ids_are_noted_and_read_back_as_1_to_n() {
    let g = graph(3, &[(0, 2)], Weights::None, false)
        .with_ids(VertexIds::Map(vec![7, 8, 100].into()))
        .unwrap();
    common::assert_renumbering_noted(&g, "graph", "% vertex ids were renumbered 1..n");
}

#[test]
fn graphs_metis_cannot_hold_are_refused() {
    let directed = graph(3, &[(0, 1)], Weights::None, true);
    let loops = undirected(3, &[(0, 1), (2, 2)], Weights::None);
    let floats = undirected(3, &[(0, 1)], Weights::F64(vec![0.5].into()));
    let cases = [
        (directed, "--undirected"),
        (loops, "self loops"),
        (floats, "integers"),
    ];
    for (g, msg) in cases {
        let (dir, path, r) = common::write_temp(&g, "graph");
        match r {
            Err(Error::Unsupported(m)) => assert!(m.contains(msg), "{m}"),
            other => panic!("expected Unsupported, got {other:?}"),
        }
        // The destination is untouched and no temporary is left behind.
        assert!(!path.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// A DIMACS graph (directed, ids `1..=n`) read from `text`.
fn dimacs(text: &str) -> Graph {
    common::read_text(
        text.as_bytes(),
        Format::Dimacs,
        "g.gr",
        &ReadOptions::default(),
    )
    .unwrap()
}

#[test]
fn symmetric_directed_graphs_are_written_as_undirected() {
    // Both directions of every arc with equal weights, and an isolated vertex 5.
    let g = dimacs(
        "p sp 5 8\na 1 2 4\na 2 1 4\na 3 1 -7\na 1 3 -7\na 2 3 1\na 3 2 1\na 4 3 9\na 3 4 9\n",
    );
    assert!(g.is_directed());
    let (back, text) = round_trip(&g);
    let want = undirected(
        5,
        &[(0, 1), (0, 2), (1, 2), (2, 3)],
        Weights::I32(vec![4, -7, 1, 9].into()),
    );
    assert_eq!(back, want, "{text}");
    assert!(text.contains("\n5 4 1\n"), "{text}");
    // Unweighted, with sparse ids of its own: they are renumbered 1..n.
    let g = graph(3, &[(0, 2), (2, 0), (1, 2), (2, 1)], Weights::None, true)
        .with_ids(VertexIds::Map(vec![10, 20, 30].into()))
        .unwrap();
    let (back, _) = round_trip(&g);
    assert_eq!(back, undirected(3, &[(0, 2), (1, 2)], Weights::None));
    // An empty directed graph is symmetric too.
    let (back, _) = round_trip(&one_based(Graph::empty(3, true)));
    assert_eq!(back, one_based(Graph::empty(3, false)));
}

/// The refusal of writing `g` as METIS.
fn metis_refusal(g: &Graph) -> String {
    let (dir, path, r) = common::write_temp(g, "graph");
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    match r {
        Err(Error::Unsupported(m)) => m,
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn asymmetric_directed_graphs_are_refused_naming_the_arc() {
    // The first arc without a reverse, in the input's own ids.
    let g = graph(3, &[(0, 1), (1, 0), (1, 2)], Weights::None, true)
        .with_ids(VertexIds::Map(vec![10, 20, 30].into()))
        .unwrap();
    let m = metis_refusal(&g);
    assert!(
        m.contains("the arc 20 -> 30 has no reverse arc 30 -> 20"),
        "{m}"
    );
    assert!(m.contains("--undirected"), "{m}");
    // Unequal weights.
    let g = dimacs("p sp 3 4\na 2 3 5\na 3 2 5\na 1 2 4\na 2 1 6\n");
    let m = metis_refusal(&g);
    assert!(
        m.contains("the arc 1 -> 2 has weight 4 but its reverse 2 -> 1 has weight 6"),
        "{m}"
    );
    // A multi-arc mirrored once.
    let g = dimacs("p sp 3 3\na 2 3 5\na 3 2 5\na 2 3 5\n");
    let m = metis_refusal(&g);
    assert!(
        m.contains("the arc 2 -> 3 appears 2 times but its reverse 3 -> 2 1 times"),
        "{m}"
    );
    // One reverse arc in a big symmetric graph: the fingerprint notices.
    let n = 3000u32;
    let mut e: Vec<(u32, u32)> = (1..n).flat_map(|v| [(v - 1, v), (v, v - 1)]).collect();
    e.push((7, 2000));
    let m = metis_refusal(&one_based(graph(n as u64, &e, Weights::None, true)));
    assert!(
        m.contains("the arc 8 -> 2001 has no reverse arc 2001 -> 8"),
        "{m}"
    );
}

// ---------------------------------------------------------------- malformed inputs

#[test]
fn bad_headers() {
    assert_parse_error(read_str(""), 1, &["no header line"]);
    assert_parse_error(read_str("% only a comment\n\n"), 2, &["no header line"]);
    assert_parse_error(
        read_str("% c\n3 x\n"),
        2,
        &["M a non-negative integer", "'x'"],
    );
    assert_parse_error(
        read_str("3\n"),
        1,
        &["expected the header 'N M [FMT [NCON]]'"],
    );
    assert_parse_error(read_str("2 1 12\n2\n1\n"), 1, &["FMT", "'12'"]);
    assert_parse_error(read_str("2 1 1011\n2\n1\n"), 1, &["FMT", "'1011'"]);
    assert_parse_error(
        read_str("2 1 1 2\n2 1\n1 1\n"),
        1,
        &["NCON is 2", "no weights"],
    );
    assert_parse_error(
        read_str("2 1 10 0\n2\n1\n"),
        1,
        &["NCON must be a positive"],
    );
    assert_parse_error(read_str("2 1 10 1 9\n1 2\n1 1\n"), 1, &["unexpected '9'"]);
    assert_parse_error(
        read_str("5000000000 0\n"),
        1,
        &["5000000000 vertices", "4294967295"],
    );
}

#[test]
fn absurd_sizes_fail_fast() {
    let t = Instant::now();
    assert_parse_error(
        read_str("4000000000 0\n\n\n"),
        1,
        &["declares 4000000000 vertices", "at most 2 vertex lines"],
    );
    assert_parse_error(
        read_str("3 1000000000000000\n2\n1\n\n"),
        1,
        &["declares 1000000000000000 edges", "cannot hold"],
    );
    assert_parse_error(
        read_str("3 18446744073709551615 1\n2 1\n1 1\n\n"),
        1,
        &["declares 18446744073709551615 edges"],
    );
    assert!(t.elapsed().as_secs_f64() < 1.0);
}

#[test]
fn bad_vertex_lines_name_their_line() {
    let cases: [(&str, u64, &[&str]); 13] = [
        (
            "3 1\n2\nx\n\n",
            3,
            &["vertex 2", "expected a vertex number", "'x'"],
        ),
        (
            "3 1\n2\n4\n\n",
            3,
            &["vertex 2", "neighbour 4 is out of range", "1 to 3"],
        ),
        ("3 1\n2\n0\n\n", 3, &["neighbour 0 is out of range"]),
        (
            "3 1\n% c\n2\n2\n\n",
            4,
            &["vertex 2 lists itself", "self loops"],
        ),
        (
            "3 1 1\n2 5\n1\n\n",
            3,
            &["vertex 2: neighbour 1 has no edge weight", "even number"],
        ),
        (
            "3 1 1\n2 5\n1 2.5\n\n",
            3,
            &["integer edge weight", "'2.5'", "METIS weights are integers"],
        ),
        (
            "3 1 10\n1 2\nx 1\n0\n",
            3,
            &["vertex 2", "vertex weight 1 of 1", "'x'"],
        ),
        (
            "3 1 11 2\n1 1 2 3\n1\n0 0\n",
            3,
            &["vertex 2", "vertex weight 2 of 2", "line ends"],
        ),
        ("3 1 100\n1 2\n1.5 1\n0\n", 3, &["its vertex size", "'1.5'"]),
        (
            "3 1\n2\n1\n\n3\n",
            5,
            &["more than 3 vertex lines", "header on line 1"],
        ),
        ("3 1\n2\n1\n\n\n% c\n1\n", 7, &["more than 3 vertex lines"]),
        (
            "2 1 10 18446744073709551615\n1 2\n1 1\n",
            2,
            &[
                "vertex 1",
                "vertex weight 3 of 18446744073709551615",
                "line ends",
            ],
        ),
        (
            "3 1 1\n2 5\n1 5\n% c\n",
            1,
            &["declares 3 vertices", "only 2 vertex lines"],
        ),
    ];
    for (text, line, msg) in cases {
        assert_parse_error(read_str(text), line, msg);
    }
}

#[test]
fn neighbour_count_must_be_twice_the_edges() {
    assert_parse_error(
        read_str("% c\n3 2\n2\n1 3\n2 1\n"),
        2,
        &["declares 2 edges", "2 * 2 = 4", "list 5"],
    );
    assert_parse_error(
        read_str("3 1\n2 3\n1\n1\n"),
        1,
        &["declares 1 edges", "list 4"],
    );
}

#[test]
fn asymmetric_lists_are_errors_naming_both_vertices() {
    // 3 lists 1, but 1 does not list 3 (the counts still add up).
    assert_parse_error(
        read_str("3 2\n2\n1\n% c\n1 2\n"),
        5,
        &["vertex 3 lists neighbour 1", "vertex 1 does not list 3"],
    );
    assert_parse_error(
        read_str("3 2\n2 2\n1 3\n\n"),
        2,
        &[
            "vertex 1 lists neighbour 2 2 times",
            "vertex 2 lists 1 1 times",
        ],
    );
    assert_parse_error(
        read_str("2 1 1\n2 5\n1 6\n"),
        2,
        &["edge 1-2 has weight 5 in the line of vertex 1 but 6 in the line of vertex 2"],
    );
    // Parallel edges must list their weights in the same order from both ends.
    assert_parse_error(
        read_str("2 2 1\n2 5 2 6\n1 6 1 5\n"),
        2,
        &["edge 1-2 has weight 5"],
    );
}

// ---------------------------------------------------------------- a multi-chunk input

const N: u64 = 200_000;
const STRIDES: [u64; 2] = [1, 7];

fn weight(a: u64, b: u64) -> u64 {
    (a.min(b) * 3 + a.max(b)) % 1000
}

/// Neighbours (1-based) of vertex `v` in the ring with chords: v +- 1, v +- 7 (mod N).
fn neighbours(v: u64) -> Vec<u64> {
    let mut out = Vec::new();
    for s in STRIDES {
        out.push((v - 1 + s) % N + 1);
        out.push((v - 1 + N - s) % N + 1);
    }
    out
}

/// About 7 MB of vertex lines with edge weights and a comment every 997 vertices.
/// Returns the lines; `line_of[v]` is the 1-based line number of vertex `v`'s line.
fn big_lines() -> (Vec<String>, Vec<usize>) {
    let mut lines = vec![
        "% ring with chords".to_string(),
        format!("{N} {} 1", N * STRIDES.len() as u64),
    ];
    let mut line_of = vec![0; N as usize + 1];
    for v in 1..=N {
        if v % 997 == 0 {
            lines.push("% comment".into());
        }
        let mut l = String::new();
        for u in neighbours(v) {
            l.push_str(&format!("{u} {} ", weight(u, v)));
        }
        lines.push(l);
        line_of[v as usize] = lines.len();
    }
    (lines, line_of)
}

fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

#[test]
fn multi_chunk_input_parses_exactly() {
    let (lines, _) = big_lines();
    let text = join(&lines);
    assert!(text.len() > 4 << 20);
    let g = read_str(&text).unwrap();
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    let mut weights = Vec::new();
    for v in 1..=N {
        let mut nb = neighbours(v);
        nb.sort();
        for u in nb {
            targets.push((u - 1) as u32);
            weights.push(weight(u, v) as i32);
        }
        offsets.push(targets.len() as u64);
    }
    assert_eq!(g.out().offsets(), &offsets[..]);
    assert_eq!(g.out().targets(), &targets[..]);
    assert_eq!(i32s(&g), weights);
    assert_eq!(g.num_edges(), N * 2);
}

#[test]
fn multi_chunk_input_reports_late_lines() {
    let (lines, line_of) = big_lines();
    // A bad token late in the file.
    let v = 187_654;
    let mut bad = lines.clone();
    bad[line_of[v] - 1] = "1 1 x 1".into();
    assert_parse_error(
        read_str(&join(&bad)),
        line_of[v] as u64,
        &[&format!("vertex {v}:"), "'x'"],
    );
    // An asymmetric edge deep in the file: v lists v + 3 instead of v + 1.
    let v = 150_001u64;
    let mut bad = lines.clone();
    let replaced: Vec<String> = neighbours(v)
        .into_iter()
        .map(|u| {
            let u = if u == v + 1 { v + 3 } else { u };
            format!("{u} {}", weight(u, v))
        })
        .collect();
    bad[line_of[v as usize] - 1] = replaced.join(" ");
    assert_parse_error(
        read_str(&join(&bad)),
        line_of[v as usize] as u64,
        &[&format!(
            "vertex {v} lists neighbour {}, but vertex {} does not list {v}",
            v + 3,
            v + 3
        )],
    );
    // A missing vertex line is reported on the header (line 2).
    let mut bad = lines.clone();
    bad.truncate(bad.len() - 1);
    assert_parse_error(
        read_str(&join(&bad)),
        2,
        &["declares 200000 vertices", "only 199999 vertex lines"],
    );
}

// ---------------------------------------------------------------- robustness

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Any mix of plausible and hostile tokens gives a graph or an error, never a panic;
    /// a graph read is always a valid undirected graph.
    #[test]
    fn arbitrary_input_never_panics(
        header in proptest::sample::select(vec![
            "3 2", "3 2 1", "3 2 011 2", "3 2 111", "0 0", "2 1 10", "3 0", "4 3 1",
        ]),
        lines in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "1", "2", "3", "4", "0", "-1", "x", "%", "1.5", "99999999999999999999",
                    "", " ", "\t", "\r", "5",
                ]),
                0..6,
            ),
            0..6,
        ),
    ) {
        let text = common::token_text(header, &lines);
        if let Ok(g) = read_str(&text) {
            proptest::prop_assert!(!g.is_directed());
            proptest::prop_assert!(common::is_valid(g));
        }
    }
}
