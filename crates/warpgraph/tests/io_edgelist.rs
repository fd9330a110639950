//! Edge lists (`.el`, `.wel`, SNAP `.txt`): golden files, id mapping, direction, round
//! trips, malformed input, weight typing and multi-chunk parsing.

mod common;

use common::{duplicates, graph, read_data, round_trip, undirected, weight_type, xorshift};
use warpgraph::io::{Format, IdMode, ReadOptions};
use warpgraph::{Duplicates, Error, Graph, VertexIds, WeightType, Weights};

/// The name parse errors give.
const PATH: &str = "t.el";

fn parse_with(text: &[u8], opts: &ReadOptions) -> Result<Graph, Error> {
    common::read_text(text, Format::El, PATH, opts)
}

fn parse(text: &str) -> Result<Graph, Error> {
    parse_with(text.as_bytes(), &ReadOptions::default())
}

fn dense() -> ReadOptions {
    ReadOptions {
        ids: IdMode::Dense,
        ..Default::default()
    }
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

fn map_ids(g: Graph, ids: &[u64]) -> Graph {
    g.with_ids(VertexIds::Map(ids.to_vec().into())).unwrap()
}

// ---------------------------------------------------------------- golden files

#[test]
fn golden_sparse_ids_are_renumbered_and_kept() {
    let g = read_data("el_sparse.el");
    assert!(g.is_directed());
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(g.out().offsets(), &[0, 2, 3, 4]);
    assert_eq!(g.out().targets(), &[0, 1, 2, 0]);
    assert_eq!(g.out().weights(), &Weights::None);
    assert_eq!(
        g.ids(),
        &VertexIds::Map(vec![10, 20, 1_000_000_000_000].into())
    );
    assert_eq!(g.vertex(1_000_000_000_000).unwrap(), 2);
}

#[test]
fn golden_snap_undirected_header() {
    let g = read_data("el_snap.txt");
    assert!(!g.is_directed());
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.num_edges(), 4);
    assert_eq!(g.out().offsets(), &[0, 2, 4, 7, 8]);
    assert_eq!(g.out().targets(), &[1, 2, 0, 2, 0, 1, 3, 2]);
    assert_eq!(g.ids(), &VertexIds::Base(0));
}

#[test]
fn golden_weighted_floats_and_negatives() {
    let g = read_data("el_weights.wel");
    assert!(g.is_directed());
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.out().offsets(), &[0, 2, 3, 4]);
    assert_eq!(g.out().targets(), &[1, 2, 2, 0]);
    assert_eq!(
        g.out().weights(),
        &Weights::F64(vec![0.5, -7.0, -1.25, 2.0].into())
    );
}

// ---------------------------------------------------------------- ids and direction

#[test]
fn contiguous_ids_keep_their_base() {
    let g = parse("5 6\n6 7\n7 5\n").unwrap();
    assert_eq!(g.ids(), &VertexIds::Base(5));
    assert_eq!(g.out().offsets(), &[0, 1, 2, 3]);
    assert_eq!(g.out().targets(), &[1, 2, 0]);
    // 0-based.
    let g = parse("0 1\n1 2\n").unwrap();
    assert_eq!(g.ids(), &VertexIds::Base(0));
    // The largest ids there are.
    let g = parse("18446744073709551615 18446744073709551614\n").unwrap();
    assert_eq!(g.ids(), &VertexIds::Base(u64::MAX - 1));
    assert_eq!(g.out().targets(), &[0]);
    assert_eq!(g.out().offsets(), &[0, 0, 1]);
}

#[test]
fn small_gaps_use_a_bitmap_map() {
    // Range 3..=200: a gap, but small: ranked through the bitmap.
    let g = parse("200 3\n3 17\n17 200\n17 3\n").unwrap();
    assert_eq!(g.ids(), &VertexIds::Map(vec![3, 17, 200].into()));
    assert_eq!(g.out().offsets(), &[0, 1, 3, 4]);
    assert_eq!(g.out().targets(), &[1, 0, 2, 0]);
    // Ids across several 64-bit words and bitmap blocks.
    let ids: Vec<u64> = (0..3000u64).map(|i| 1000 + i * 97).collect();
    let text: String = ids
        .windows(2)
        .map(|w| format!("{} {}\n", w[1], w[0]))
        .collect();
    let g = parse(&text).unwrap();
    assert_eq!(g.ids(), &VertexIds::Map(ids.clone().into()));
    for v in 1..ids.len() as u32 {
        assert_eq!(g.neighbors(v), &[v - 1]);
    }
}

#[test]
fn dense_ids() {
    let g = parse_with(b"2 5\n5 2\n", &dense()).unwrap();
    assert_eq!(g.num_vertices(), 6);
    assert_eq!(g.ids(), &VertexIds::Base(0));
    assert_eq!(g.out().offsets(), &[0, 0, 0, 1, 1, 1, 2]);
    assert_eq!(g.out().targets(), &[5, 2]);
    let (line, msg) = parse_error(parse_with(b"0 1\n\n1 4294967295\n2 3\n", &dense()));
    assert_eq!(line, 3);
    assert!(msg.contains("vertex id 4294967295 is too large"), "{msg}");
    // The largest allowed id: parsed and checked, without building 2^32 vertices here.
    let (line, _) = parse_error(parse_with(b"1 18446744073709551615\n", &dense()));
    assert_eq!(line, 1);
}

#[test]
fn empty_inputs_have_no_vertices() {
    for text in ["", "\n\n", "# only comments\n% and more\n"] {
        let g = parse(text).unwrap();
        assert_eq!(g.num_vertices(), 0);
        assert_eq!(g.num_arcs(), 0);
        assert!(g.is_directed());
        let g = parse_with(text.as_bytes(), &dense()).unwrap();
        assert_eq!(g.num_vertices(), 0);
    }
    let g = parse("# Undirected graph, no edges\n").unwrap();
    assert!(!g.is_directed());
}

#[test]
fn direction_from_header_and_options() {
    let text = "# Undirected graph: x\n0 1\n1 2\n";
    let g = parse(text).unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.num_arcs(), 4);
    let g = parse("# UNDIRECTED GRAPH\n0 1\n").unwrap();
    assert!(!g.is_directed());
    // Only the leading comment block counts.
    let g = parse("0 1\n# Undirected graph\n1 2\n").unwrap();
    assert!(g.is_directed());
    let g = parse("# Directed graph (each unordered pair of nodes is saved once)\n0 1\n").unwrap();
    assert!(g.is_directed());
    // --undirected.
    let g = parse_with(b"0 1\n1 2\n", &undirected()).unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.out().targets(), &[1, 0, 2, 1]);
}

#[test]
fn undirected_header_with_both_directions_listed() {
    // Each edge listed in both directions (as SNAP's road networks do): one edge each.
    let g = parse("# Undirected graph\n0 1\n1 0\n1 2\n2 1\n2 2\n").unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.num_edges(), 3);
    assert_eq!(g.out().offsets(), &[0, 1, 3, 5]);
    assert_eq!(g.out().targets(), &[1, 0, 2, 1, 2]);
    // Not symmetric: every line is an edge stored both ways.
    let g = parse("# Undirected graph\n0 1\n1 0\n1 2\n0 2\n").unwrap();
    assert!(!g.is_directed());
    assert_eq!(g.num_edges(), 4);
    assert_eq!(g.neighbors(0), &[1, 1, 2]);
    // Symmetric but with different weights each way: two parallel edges.
    let g = parse("# Undirected graph\n0 1 5\n1 0 6\n").unwrap();
    assert_eq!(g.num_edges(), 2);
    assert_eq!(g.out().weights(), &Weights::I32(vec![5, 6, 5, 6].into()));
    // With --undirected (no header) every listed edge is stored both ways.
    let g = parse_with(b"0 1\n1 0\n", &undirected()).unwrap();
    assert_eq!(g.num_edges(), 2);
}

#[test]
fn separators_and_comments() {
    let g = parse("% c\n  # indented comment\n1,2\n2\t3\n\n3  , 1\r\n").unwrap();
    assert_eq!(g.ids(), &VertexIds::Base(1));
    assert_eq!(g.out().targets(), &[1, 2, 0]);
}

// ---------------------------------------------------------------- round trips

#[test]
fn round_trip_el_directed_with_map_ids_loops_and_multi_edges() {
    let g = map_ids(
        graph(
            4,
            &[(0, 1), (0, 1), (2, 2), (3, 0), (1, 3)],
            Weights::None,
            true,
        ),
        &[7, 8, 1 << 40, u64::MAX],
    );
    let (back, text) = round_trip(&g, "el", &ReadOptions::default());
    assert_eq!(back, g);
    assert!(!text.contains('#'), "{text}");
    assert!(text.starts_with("7 8\n7 8\n"), "{text}");
}

#[test]
fn round_trip_el_undirected_needs_the_option() {
    let g = graph(3, &[(0, 1), (1, 2), (2, 2), (2, 1)], Weights::None, false);
    let (back, text) = round_trip(&g, "el", &undirected());
    assert_eq!(back, g);
    // Each edge once, u <= v, the self loop once.
    assert_eq!(text, "0 1\n1 2\n1 2\n2 2\n");
    // Without it the file is a directed graph of those lines.
    let (back, _) = round_trip(&g, "el", &ReadOptions::default());
    assert!(back.is_directed());
    assert_eq!(back.num_arcs(), 4);
}

#[test]
fn round_trip_el_drops_weights() {
    let g = graph(2, &[(0, 1)], Weights::I32(vec![9].into()), true);
    let (back, text) = round_trip(&g, "el", &ReadOptions::default());
    assert_eq!(text, "0 1\n");
    assert_eq!(back.out().weights(), &Weights::None);
}

#[test]
fn round_trip_wel_weight_types() {
    let edges = [(0, 1), (1, 2), (2, 0), (0, 0), (0, 1)];
    for w in [
        Weights::I32(vec![1, -2, i32::MAX, 0, i32::MIN].into()),
        Weights::I64(vec![1 << 40, -2, 3, 4, i64::MIN].into()),
        Weights::F64(vec![0.1, -2.5, 1e-300, 3.0, 1e300].into()),
    ] {
        let g = graph(3, &edges, w.clone(), true);
        let (back, _) = round_trip(&g, "wel", &ReadOptions::default());
        assert_eq!(back, g, "{w:?}");
        let u = graph(3, &edges, w.clone(), false);
        assert_eq!(round_trip(&u, "wel", &undirected()).0, u, "{w:?}");
        // SNAP keeps the direction in its header.
        assert_eq!(round_trip(&g, "txt", &ReadOptions::default()).0, g, "{w:?}");
        assert_eq!(round_trip(&u, "txt", &ReadOptions::default()).0, u, "{w:?}");
    }
    // f32 comes back as f32 when asked for.
    let g = graph(
        2,
        &[(0, 1), (1, 0)],
        Weights::F32(vec![0.1, 7.5e-9].into()),
        true,
    );
    let opts = weight_type(Some(WeightType::F32));
    assert_eq!(round_trip(&g, "wel", &opts).0, g);
}

#[test]
fn wel_needs_weights() {
    let g = graph(2, &[(0, 1)], Weights::None, true);
    let (_dir, path, r) = common::write_temp(&g, "wel");
    let e = r.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert!(e.to_string().contains("unweighted"), "{e}");
    assert!(!path.exists());
}

#[test]
fn snap_header_and_tabs() {
    let g = map_ids(
        graph(3, &[(0, 1), (1, 2), (2, 2)], Weights::None, false),
        &[3, 9, 12],
    );
    let (back, text) = round_trip(&g, "txt", &ReadOptions::default());
    assert_eq!(back, g);
    assert_eq!(
        text,
        "# Undirected graph (written by warpgraph)\n# Nodes: 3 Edges: 3\n\
         # FromNodeId\tToNodeId\n3\t9\n9\t12\n12\t12\n"
    );
    let g = graph(2, &[(1, 0)], Weights::I64(vec![1 << 33].into()), true);
    let (back, text) = round_trip(&g, "txt", &ReadOptions::default());
    assert_eq!(back, g);
    assert_eq!(
        text,
        "# Directed graph (written by warpgraph)\n# Nodes: 2 Edges: 1\n\
         # FromNodeId\tToNodeId\tWeight\n1\t0\t8589934592\n"
    );
}

#[test]
fn round_trip_empty_graph() {
    for ext in ["el", "txt"] {
        for directed in [true, false] {
            let g = Graph::empty(0, directed);
            let (back, _) = round_trip(&g, ext, &ReadOptions::default());
            assert_eq!(back.num_vertices(), 0);
            if ext == "txt" || directed {
                assert_eq!(back, g, "{ext} directed={directed}");
            }
        }
    }
}

#[test]
fn isolated_vertices_are_lost() {
    // Vertex 3 (id 3) has no edges: an edge list cannot say it exists.
    let g = graph(5, &[(0, 1), (1, 2), (4, 0)], Weights::None, true);
    let (back, text) = round_trip(&g, "el", &ReadOptions::default());
    assert_eq!(text, "0 1\n1 2\n4 0\n");
    assert_eq!(back.num_vertices(), 4);
    assert_eq!(back.ids(), &VertexIds::Map(vec![0, 1, 2, 4].into()));
    // Dense ids keep the gap, but not trailing isolated vertices.
    let (back, _) = round_trip(&g, "el", &dense());
    assert_eq!(back, g);
    let g = graph(6, &[(0, 1)], Weights::None, true);
    assert_eq!(round_trip(&g, "el", &dense()).0.num_vertices(), 2);
}

// ---------------------------------------------------------------- malformed input

#[test]
fn wrong_field_counts() {
    assert_parse_error("# c\n1\n", 2, "2 or 3 fields), found 1 field: '1'");
    assert_parse_error("1 2 3 4\n", 1, "found 4 fields");
    assert_parse_error(
        "# c\n1 2\n2 3\n\n3 4 5\n",
        5,
        "expected 2 fields 'u v' like the first data line (line 2), found 3",
    );
    assert_parse_error(
        "1 2 1\n2 3\n",
        2,
        "expected 3 fields 'u v w' like the first data line (line 1), found 2",
    );
    assert_parse_error("1 2 1\n2\n", 2, "found 1");
    assert_parse_error("1 2\n2 3 # trailing\n", 2, "found 4");
}

#[test]
fn bad_ids() {
    assert_parse_error(
        "1 2\n-1 2\n",
        2,
        "expected a vertex id (an integer from 0 to 18446744073709551615), found '-1'",
    );
    assert_parse_error(
        "1 2\n1 18446744073709551616\n",
        2,
        "found '18446744073709551616'",
    );
    assert_parse_error("1 2\n1 2.5\n", 2, "found '2.5'");
    assert_parse_error("a b\n", 1, "found 'a'");
}

#[test]
fn bad_weights() {
    assert_parse_error("1 2 1\n2 3 x\n", 2, "expected a number, found 'x'");
    assert_parse_error("1 2 1\n2 3 NaN\n", 2, "not finite");
    assert_parse_error("1 2 inf\n", 1, "not finite");
}

#[test]
fn weight_typing() {
    let w = |text: &str, forced: Option<WeightType>| {
        parse_with(text.as_bytes(), &weight_type(forced)).map(|g| g.out().weights().clone())
    };
    assert_eq!(
        w("0 1 3\n1 0 -4\n", None).unwrap(),
        Weights::I32(vec![3, -4].into())
    );
    assert_eq!(
        w("0 1 3\n1 0 -4000000000\n", None).unwrap(),
        Weights::I64(vec![3, -4_000_000_000].into())
    );
    assert_eq!(
        w("0 1 3\n1 0 0.5\n", None).unwrap(),
        Weights::F64(vec![3.0, 0.5].into())
    );
    assert_eq!(
        w("0 1 3\n1 0 4\n", Some(WeightType::I64)).unwrap(),
        Weights::I64(vec![3, 4].into())
    );
    assert_eq!(
        w("0 1 3\n1 0 4\n", Some(WeightType::F64)).unwrap(),
        Weights::F64(vec![3.0, 4.0].into())
    );
    let opts = weight_type(Some(WeightType::I32));
    let (line, msg) = parse_error(parse_with(b"0 1 3\n\n1 0 0.5\n", &opts));
    assert_eq!(line, 3);
    assert!(msg.contains("not an integer"), "{msg}");
    let (line, msg) = parse_error(parse_with(b"0 1 3\n1 0 4000000000\n", &opts));
    assert_eq!(line, 2);
    assert!(msg.contains("does not fit in i32"), "{msg}");
}

// ---------------------------------------------------------------- large input

#[test]
fn multi_chunk_file() {
    // ~3.5 MB of weighted edges over sparse ids: several chunks, the bitmap map.
    let m = 240_000u64;
    let mut text = String::from("# generated\n");
    for i in 0..m {
        text.push_str(&format!(
            "{}\t{}\t{}\n",
            3 * (i % 70_000),
            3 * ((i * 31) % 70_000),
            i % 97
        ));
    }
    assert!(text.len() > 3 << 20, "{}", text.len());
    let g = parse(&text).unwrap();
    assert_eq!(g.num_arcs(), m);
    assert_eq!(g.num_vertices(), 70_000);
    match g.ids() {
        VertexIds::Map(ids) => assert!(ids.iter().enumerate().all(|(k, &id)| id == 3 * k as u64)),
        other => panic!("expected a map, got {other:?}"),
    }
    // Vertex 1 (id 3): edges i = 1, 70001, ... to ids 3 * (31 i % 70000).
    let mut expect: Vec<u32> = (0..m)
        .filter(|i| i % 70_000 == 1)
        .map(|i| ((i * 31) % 70_000) as u32)
        .collect();
    assert_eq!(expect.len(), 4);
    expect.sort_unstable();
    assert_eq!(g.neighbors(1), &expect[..]);

    let lines = text.lines().count() as u64;
    let mut bad = text.clone();
    bad.push_str("5 6 7 8\n");
    let (line, msg) = parse_error(parse(&bad));
    assert_eq!(line, lines + 1);
    assert!(
        msg.contains("like the first data line (line 2), found 4"),
        "{msg}"
    );

    // A huge sparse range goes through the sort.
    let text: String = (0..150_000u64)
        .map(|i| format!("{} {}\n", i * 1_000_000_007, (i + 1) * 1_000_000_007))
        .collect();
    let g = parse(&text).unwrap();
    assert_eq!(g.num_vertices(), 150_001);
    assert_eq!(g.vertex(150_000 * 1_000_000_007).unwrap(), 150_000);
    assert_eq!(g.neighbors(149_999), &[150_000]);
}

#[test]
fn duplicates_option_applies() {
    let opts = duplicates(Duplicates::KeepLightest);
    let g = parse_with(b"0 1 5\n0 1 2\n0 1 9\n", &opts).unwrap();
    assert_eq!(g.out().weights(), &Weights::I32(vec![2].into()));
}

/// Parsing and writing throughput on ~160 and ~450 MB edge lists (contiguous and sparse
/// ids). Run with
/// `cargo test --release -p warpgraph --test io_edgelist -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let m = 12_000_000u64;
    for (label, n, scale) in [
        ("contiguous ids", 1_000_000u64, 1u64),
        ("sparse ids", 1_000_000, 1 << 40),
    ] {
        let mut text = Vec::with_capacity(m as usize * 30);
        let (mut src, mut dst) = (Vec::new(), Vec::new());
        let mut state = 88172645463325252u64;
        let mut b = itoa::Buffer::new();
        for _ in 0..m {
            let x = xorshift(&mut state);
            let (u, v) = ((x % n) * scale, ((x >> 20) % n) * scale);
            // Every id of 0..n appears (12 draws per id on average), so vertex = id / scale.
            src.push((x % n) as u32);
            dst.push(((x >> 20) % n) as u32);
            text.extend_from_slice(b.format(u).as_bytes());
            text.push(b'\t');
            text.extend_from_slice(b.format(v).as_bytes());
            text.push(b'\n');
        }
        common::print_throughput(
            &format!("edge list ({label})"),
            Format::El,
            &text,
            src,
            dst,
            m,
        );
    }
}

proptest::proptest! {
    /// Hostile input never panics: every outcome is a graph that passes validation (with
    /// one vertex per distinct id) or an error naming a line of the input.
    #[test]
    fn arbitrary_input_never_panics(
        lines in proptest::collection::vec("[#% ]?[-+0-9]{0,21}[ ,\t]{1,2}[-+0-9.e]{0,21}([ \t][-0-9.eE]{0,5})?", 0..10),
    ) {
        let text = lines.join("\n");
        // Dense ids allocate max id + 1 vertices: only try them with small ids.
        let small = !text.split(|c: char| !c.is_ascii_digit()).any(|t| t.len() > 6);
        let modes = if small { vec![ReadOptions::default(), dense()] } else { vec![ReadOptions::default()] };
        for opts in modes {
            match parse_with(text.as_bytes(), &opts) {
                Ok(g) => {
                    proptest::prop_assert!(g.out().validate().is_ok());
                    if let VertexIds::Map(ids) = g.ids() {
                        proptest::prop_assert_eq!(ids.len(), g.num_vertices());
                    }
                }
                Err(Error::Parse { line, .. }) => {
                    proptest::prop_assert!(line >= 1 && line <= lines.len().max(1) as u64);
                }
                Err(Error::TooLarge { .. }) => {}
                Err(e) => proptest::prop_assert!(false, "unexpected error kind: {e:?}"),
            }
        }
    }
}
