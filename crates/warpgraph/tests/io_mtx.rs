//! Matrix Market reading and writing: golden files, round trips, malformed inputs and a
//! multi-chunk input.

mod common;

use std::time::Instant;

use common::{duplicates, f64s, graph, i32s, one_based, read_data, undirected, weight_type};
use warpgraph::io::{Format, ReadOptions};
use warpgraph::{Duplicates, Graph, VertexIds, WeightType, Weights};

/// The name parse errors give.
const PATH: &str = "bad.mtx";

fn read_with(text: &str, opts: &ReadOptions) -> warpgraph::Result<Graph> {
    common::read_text(text.as_bytes(), Format::Mtx, PATH, opts)
}

fn read_str(text: &str) -> warpgraph::Result<Graph> {
    read_with(text, &ReadOptions::default())
}

/// Asserts a parse error of `bad.mtx` on `line` whose message contains every one of `parts`.
#[track_caller]
fn assert_parse_error(r: warpgraph::Result<Graph>, line: u64, parts: &[&str]) {
    common::assert_parse_error(r, PATH, line, parts);
}

// ---------------------------------------------------------------- golden files

#[test]
fn golden_general_real() {
    let g = read_data("mtx_general_real.mtx");
    assert!(g.is_directed());
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.out().offsets(), &[0, 3, 4, 5, 6]);
    assert_eq!(g.out().targets(), &[1, 1, 3, 2, 0, 3]);
    // A real file stays f64 even where the values are integral.
    assert_eq!(f64s(&g), vec![0.5, 7.0, 2.0, 100.0, -1.25, 3.0]);
}

#[test]
fn golden_symmetric_integer() {
    let g = read_data("mtx_symmetric_integer.mtx");
    assert!(!g.is_directed());
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.out().offsets(), &[0, 3, 5, 7, 9, 9]);
    assert_eq!(g.out().targets(), &[1, 2, 3, 0, 3, 0, 2, 0, 1]);
    assert_eq!(i32s(&g), vec![10, -3, 2, 10, 1, -3, 7, 2, 1]);
    assert_eq!(g.num_edges(), 5);
    assert_eq!(g.count_self_loops(), 1);
}

#[test]
fn golden_pattern_crlf() {
    let g = read_data("mtx_pattern.mtx");
    assert!(g.is_directed());
    assert_eq!(g.weight_type(), WeightType::None);
    assert_eq!(g.out().offsets(), &[0, 1, 2, 3]);
    assert_eq!(g.out().targets(), &[1, 2, 0]);
}

#[test]
fn golden_skew_symmetric() {
    let g = read_data("mtx_skew.mtx");
    assert!(g.is_directed());
    assert_eq!(g.out().offsets(), &[0, 1, 3, 4]);
    assert_eq!(g.out().targets(), &[1, 0, 2, 1]);
    assert_eq!(f64s(&g), vec![-1.5, 1.5, 4.0, -4.0]);
}

// ---------------------------------------------------------------- weight types

#[test]
fn integer_field_narrows_to_i32_only_when_everything_fits() {
    let head = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n";
    let g = read_str(&format!("{head}1 2 -2147483648\n2 1 2147483647\n")).unwrap();
    assert_eq!(i32s(&g), vec![-2147483648, 2147483647]);
    let g = read_str(&format!("{head}1 2 3000000000\n2 1 -1\n")).unwrap();
    assert_eq!(
        g.out().weights(),
        &Weights::I64(vec![3000000000, -1].into())
    );
    let forced = weight_type(Some(WeightType::I64));
    let g = read_with(&format!("{head}1 2 5\n2 1 -1\n"), &forced).unwrap();
    assert_eq!(g.out().weights(), &Weights::I64(vec![5, -1].into()));
    let forced = weight_type(Some(WeightType::F64));
    let g = read_with(&format!("{head}1 2 5\n2 1 -1\n"), &forced).unwrap();
    assert_eq!(f64s(&g), vec![5.0, -1.0]);
}

#[test]
fn real_field_honours_forced_types() {
    let text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 2.0\n2 1 -3e0\n";
    let g = read_str(text).unwrap();
    assert_eq!(f64s(&g), vec![2.0, -3.0]);
    let as_i32 = weight_type(Some(WeightType::I32));
    let g = read_with(text, &as_i32).unwrap();
    assert_eq!(i32s(&g), vec![2, -3]);
    let as_f32 = weight_type(Some(WeightType::F32));
    let g = read_with(
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.1\n",
        &as_f32,
    )
    .unwrap();
    assert_eq!(g.out().weights(), &Weights::F32(vec![0.1f32].into()));
    assert_parse_error(
        read_with(
            "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 2\n2 1 2.5\n",
            &as_i32,
        ),
        4,
        &["'2.5'", "not representable as i32"],
    );
    assert_parse_error(
        read_with(
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e39\n",
            &as_f32,
        ),
        3,
        &["overflows f32"],
    );
}

#[test]
fn symmetric_file_listing_both_triangles_gives_a_multi_edge() {
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n1 2\n";
    let g = read_str(text).unwrap();
    assert_eq!(g.out().offsets(), &[0, 2, 4]);
    assert_eq!(g.out().targets(), &[1, 1, 0, 0]);
    assert_eq!(g.num_edges(), 2);
    let drop = duplicates(Duplicates::Drop);
    let g = read_with(text, &drop).unwrap();
    assert_eq!(g.out().targets(), &[1, 0]);
}

#[test]
fn undirected_option_overrides_general() {
    let opts = undirected();
    let g = read_with(
        "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 3 4\n",
        &opts,
    )
    .unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.out().offsets(), &[0, 1, 1, 2]);
    assert_eq!(g.out().targets(), &[2, 0]);
    assert_eq!(i32s(&g), vec![4, 4]);
}

// ---------------------------------------------------------------- round trips

/// Writes `g` as `.mtx` in a temporary folder and reads it back with `opts`.
fn round_trip_with(g: &Graph, opts: &ReadOptions) -> (Graph, String) {
    common::round_trip(g, "mtx", opts)
}

fn round_trip(g: &Graph) -> (Graph, String) {
    round_trip_with(g, &ReadOptions::default())
}

/// Loops, a multi-edge with different weights, an isolated vertex (5).
const MIXED: &[(u32, u32)] = &[(0, 1), (3, 3), (2, 0), (0, 1), (1, 2), (3, 0), (2, 2)];

/// Round-trips the `MIXED` graph, directed or not, with every weight type; the file must
/// have the `symmetry` and list 7 entries.
fn round_trip_every_weight_type(directed: bool, symmetry: &str) {
    let n = 6;
    let weights = [
        Weights::None,
        Weights::I32(vec![5, -1, 7, 2, 0, i32::MIN, i32::MAX].into()),
        Weights::I64(vec![5, -1, 7, 1 << 40, 0, i64::MIN, i64::MAX].into()),
        Weights::F64(vec![0.1, -1e300, 7.0, 1.0 / 3.0, 0.0, 5e-324, 2.5].into()),
    ];
    for w in weights {
        let g = one_based(graph(n, MIXED, w.clone(), directed));
        let (back, text) = round_trip(&g);
        assert_eq!(back, g, "weights {:?}\n{text}", w.weight_type());
        assert!(text.contains(&format!(" {symmetry}\n")), "{text}");
        // Seven arcs, or seven edges each written once.
        assert!(text.contains("\n6 6 7\n"), "{text}");
    }
}

#[test]
fn round_trip_directed_every_weight_type() {
    round_trip_every_weight_type(true, "general");
}

#[test]
fn round_trip_undirected_every_weight_type() {
    round_trip_every_weight_type(false, "symmetric");
}

#[test]
fn round_trip_a_vertex_of_huge_degree() {
    // Rows longer than a formatting block are cut across blocks.
    let leaves = 150_000u32;
    let e: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let w: Vec<f64> = (1..=leaves).map(|x| x as f64 / 8.0).collect();
    for directed in [true, false] {
        let g = one_based(graph(
            leaves as u64 + 1,
            &e,
            Weights::F64(w.clone().into()),
            directed,
        ));
        let (back, text) = round_trip(&g);
        assert_eq!(back, g);
        assert_eq!(text.lines().count(), 3 + leaves as usize);
    }
}

#[test]
fn undirected_edges_are_written_once_in_the_lower_triangle() {
    let g = one_based(graph(
        3,
        &[(0, 1), (2, 1), (2, 2)],
        Weights::I32(vec![4, 5, 6].into()),
        false,
    ));
    let (_, text) = round_trip(&g);
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
    assert_eq!(body, vec!["3 3 3", "2 1 4", "3 2 5", "3 3 6"]);
    assert!(text.starts_with("%%MatrixMarket matrix coordinate integer symmetric\n"));
    assert!(text.contains("% written by warpgraph"));
}

#[test]
fn round_trip_narrows_small_i64_and_widens_f32() {
    let g = one_based(graph(
        3,
        &[(0, 1), (1, 2)],
        Weights::I64(vec![4, -5].into()),
        true,
    ));
    let (back, _) = round_trip(&g);
    assert_eq!(i32s(&back), vec![4, -5]);
    let as_i64 = weight_type(Some(WeightType::I64));
    assert_eq!(round_trip_with(&g, &as_i64).0, g);

    let g = one_based(graph(
        3,
        &[(0, 1), (1, 2)],
        Weights::F32(vec![0.1, -3.25e38].into()),
        true,
    ));
    let (back, text) = round_trip(&g);
    assert!(text.contains("1 2 0.1\n"), "{text}");
    assert_eq!(back.weight_type(), WeightType::F64);
    let as_f32 = weight_type(Some(WeightType::F32));
    assert_eq!(round_trip_with(&g, &as_f32).0, g);
}

#[test]
fn round_trip_empty_graphs() {
    for directed in [true, false] {
        let g = one_based(Graph::empty(0, directed));
        let (back, text) = round_trip(&g);
        assert_eq!(back, g);
        assert!(text.ends_with("\n0 0 0\n"), "{text}");
        let g = one_based(Graph::empty(5, directed));
        let (back, text) = round_trip(&g);
        assert_eq!(back, g);
        assert_eq!(back.num_vertices(), 5);
        assert!(text.ends_with("\n5 5 0\n"), "{text}");
    }
}

#[test]
fn renumbered_ids_are_noted_and_read_back_as_1_to_n() {
    let g = graph(3, &[(0, 2), (1, 0)], Weights::None, true)
        .with_ids(VertexIds::Map(vec![10, 20, 30].into()))
        .unwrap();
    common::assert_renumbering_noted(&g, "mtx", "% vertex ids were renumbered 1..n");
}

// ---------------------------------------------------------------- malformed inputs

const GENERAL: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn empty_file_and_missing_banner() {
    assert_parse_error(read_str(""), 1, &["empty", "%%MatrixMarket"]);
    assert_parse_error(
        read_str("3 3 1\n1 2 1\n"),
        1,
        &["expected the Matrix Market header", "found '3 3 1'"],
    );
    assert_parse_error(
        read_str("%%MatrixMarket matrix coordinate real\n3 3 0\n"),
        1,
        &["ends before the symmetry"],
    );
    assert_parse_error(
        read_str("%%MatrixMarket matrix coordinate real general extra\n3 3 0\n"),
        1,
        &["unexpected 'extra'"],
    );
}

#[test]
fn unsupported_banners() {
    let cases = [
        (
            "%%MatrixMarket matrix coordinate complex general",
            "complex matrices are not graphs",
        ),
        (
            "%%MatrixMarket matrix coordinate real hermitian",
            "hermitian",
        ),
        ("%%MatrixMarket matrix array real general", "'coordinate'"),
        (
            "%%MatrixMarket vector coordinate real general",
            "the object is 'vector'",
        ),
        (
            "%%MatrixMarket matrix coordinate quaternion general",
            "found 'quaternion'",
        ),
        (
            "%%MatrixMarket matrix coordinate real lopsided",
            "found 'lopsided'",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern skew-symmetric",
            "needs values",
        ),
    ];
    for (banner, msg) in cases {
        assert_parse_error(read_str(&format!("{banner}\n2 2 0\n")), 1, &[msg]);
    }
}

#[test]
fn bad_size_lines() {
    assert_parse_error(
        read_str(&format!("{GENERAL}% c\n\n3 4 1\n1 2 1\n")),
        4,
        &["3 x 4", "square"],
    );
    assert_parse_error(
        read_str(&format!("{GENERAL}3 3\n")),
        2,
        &["expected the size line 'ROWS COLS NNZ'", "found '3 3'"],
    );
    assert_parse_error(
        read_str(&format!("{GENERAL}3 3 -1\n")),
        2,
        &["expected the size line"],
    );
    assert_parse_error(
        read_str(&format!("{GENERAL}% only comments\n")),
        2,
        &["ends before the size line"],
    );
    assert_parse_error(
        read_str(&format!("{GENERAL}5000000000 5000000000 0\n")),
        2,
        &["5000000000 rows", "4294967295"],
    );
}

#[test]
fn absurd_sizes_fail_fast() {
    let t = Instant::now();
    assert_parse_error(
        read_str(&format!("{GENERAL}3 3 1000000000000000\n1 2 1\n")),
        2,
        &["declares 1000000000000000 entries", "at most 1"],
    );
    assert_parse_error(
        read_str(&format!(
            "{GENERAL}4294967295 4294967295 18446744073709551615\n"
        )),
        2,
        &["declares 18446744073709551615 entries"],
    );
    assert!(t.elapsed().as_secs_f64() < 1.0);
}

#[test]
fn bad_entries_name_their_line() {
    let head = format!("{GENERAL}3 3 2\n1 2 1\n");
    let cases = [
        ("4 1 1.0", &["row index 4 is out of range", "1 to 3"][..]),
        ("1 0 1.0", &["column index 0 is out of range"]),
        (
            "1 x 1.0",
            &["expected a vertex number as column index", "'x'"],
        ),
        ("1 2", &["expected an entry 'I J V'", "'real'"]),
        ("1", &["expected an entry 'I J V'", "found '1'"]),
        ("1 2 3 4", &["unexpected '4'"]),
        ("1 2 nan", &["not finite"]),
        ("1 2 -inf", &["not finite"]),
        ("1 2 abc", &["expected a number", "'abc'"]),
    ];
    for (entry, msg) in cases {
        assert_parse_error(read_str(&format!("{head}% c\n{entry}\n")), 5, msg);
    }
    let pattern = "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n";
    assert_parse_error(
        read_str(&format!("{pattern}1 2 5\n")),
        3,
        &["unexpected '5'", "'pattern'"],
    );
    let integer = "%%MatrixMarket matrix coordinate integer general\n3 3 1\n";
    assert_parse_error(
        read_str(&format!("{integer}1 2 1.5\n")),
        3,
        &["expected an integer value", "'1.5'"],
    );
    assert_parse_error(
        read_str(&format!("{integer}1 2 99999999999999999999\n")),
        3,
        &["expected an integer value"],
    );
    let as_i32 = weight_type(Some(WeightType::I32));
    assert_parse_error(
        read_with(&format!("{integer}1 2 3000000000\n"), &as_i32),
        3,
        &["does not fit in i32"],
    );
}

#[test]
fn skew_symmetric_rules() {
    let skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n";
    assert_parse_error(
        read_str(&format!("{skew}2 1 4\n2 2 1\n")),
        4,
        &["diagonal", "(2, 2)"],
    );
    assert_parse_error(
        read_str(&format!("{skew}2 1 4\n3 1 -9223372036854775808\n")),
        4,
        &["cannot be negated"],
    );
    let g = read_str(&format!("{skew}2 1 4\n3 1 -9223372036854775807\n")).unwrap();
    assert_eq!(
        g.out().weights(),
        &Weights::I64(vec![-4, 9223372036854775807, 4, -9223372036854775807].into())
    );
}

#[test]
fn entry_count_must_match_the_size_line() {
    assert_parse_error(
        read_str(&format!("{GENERAL}% c\n3 3 3\n1 2 1\n2 3 1\n\n")),
        3,
        &["declares 3 entries", "has 2"],
    );
    assert_parse_error(
        read_str(&format!("{GENERAL}3 3 1\n1 2 1\n2 3 1\n")),
        2,
        &["declares 1 entries", "has 2"],
    );
}

// ---------------------------------------------------------------- a multi-chunk input

/// 200 000 entries (about 3.5 MB, several 1 MiB chunks) with comment lines every 1000
/// entries; returns the text and the entries (0-based) in file order.
fn big_file() -> (String, Vec<(u32, u32, f64)>, usize) {
    let n = 50_000u64;
    let nnz = 200_000u64;
    let mut s = String::from(GENERAL);
    s.push_str("% a big file\n");
    s.push_str(&format!("{n} {n} {nnz}\n"));
    let mut entries = Vec::new();
    for k in 0..nnz {
        if k % 1000 == 500 {
            s.push_str("% a comment line\n");
        }
        let i = (k * 7919) % n;
        let j = (k * 104_729 + 13) % n;
        let v = k as f64 * 0.25 - 1000.0;
        s.push_str(&format!("{} {} {v}\n", i + 1, j + 1));
        entries.push((i as u32, j as u32, v));
    }
    (s, entries, n as usize)
}

#[test]
fn multi_chunk_input_parses_exactly() {
    let (text, entries, n) = big_file();
    assert!(text.len() > 3 << 20);
    let g = read_str(&text).unwrap();
    // Independent expectation: arcs sorted by (source, target, file order).
    let mut sorted: Vec<(u32, u32, usize)> = entries
        .iter()
        .enumerate()
        .map(|(k, &(i, j, _))| (i, j, k))
        .collect();
    sorted.sort();
    let mut offsets = vec![0u64; n + 1];
    for &(i, _, _) in &sorted {
        offsets[i as usize + 1] += 1;
    }
    for v in 0..n {
        offsets[v + 1] += offsets[v];
    }
    let targets: Vec<u32> = sorted.iter().map(|x| x.1).collect();
    let weights: Vec<f64> = sorted.iter().map(|x| entries[x.2].2).collect();
    assert_eq!(g.out().offsets(), &offsets[..]);
    assert_eq!(g.out().targets(), &targets[..]);
    assert_eq!(f64s(&g), weights);
}

#[test]
fn multi_chunk_input_reports_late_lines() {
    let (text, _, _) = big_file();
    let mut lines: Vec<&str> = text.lines().collect();
    // Line numbers are 1-based; pick an entry line near the end, in a late chunk.
    let target = lines.len() - 10;
    assert!(!lines[target - 1].starts_with('%'));
    lines[target - 1] = "1 50001 1.0";
    let bad = lines.join("\n");
    assert_parse_error(
        read_str(&bad),
        target as u64,
        &["column index 50001 is out of range", "1 to 50000"],
    );
    // A missing entry is reported on the size line (line 3).
    let mut lines: Vec<&str> = text.lines().collect();
    let mut middle = lines.len() / 2;
    while lines[middle].starts_with('%') {
        middle += 1;
    }
    lines.remove(middle);
    assert_parse_error(
        read_str(&lines.join("\n")),
        3,
        &["declares 200000 entries", "has 199999"],
    );
}

// ---------------------------------------------------------------- robustness

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Any mix of plausible and hostile tokens gives a graph or an error, never a panic.
    #[test]
    fn arbitrary_input_never_panics(
        banner in proptest::sample::select(vec![
            "%%MatrixMarket matrix coordinate real general",
            "%%MatrixMarket matrix coordinate integer symmetric",
            "%%MatrixMarket matrix coordinate pattern general",
            "%%MatrixMarket matrix coordinate integer skew-symmetric",
            "%%MatrixMarket matrix coordinate real",
            "%%MatrixMarket",
            "",
        ]),
        lines in proptest::collection::vec(
            proptest::collection::vec(
                proptest::sample::select(vec![
                    "1", "2", "3", "0", "-1", "x", "%", "1.5", "nan", "1e400",
                    "-9223372036854775808", "99999999999999999999", "", "\r",
                ]),
                0..5,
            ),
            0..6,
        ),
    ) {
        let text = common::token_text(banner, &lines);
        if let Ok(g) = read_str(&text) {
            proptest::prop_assert!(common::is_valid(g));
        }
    }
}
