//! Helpers shared by the integration tests, mostly the text-format ones (`io_dimacs`,
//! `io_edgelist`, `io_mtx`, `io_metis`): building small graphs, reading golden files and
//! strings, round trips through a temporary folder, checks of parse errors, and a
//! pseudo-random stream for large inputs. Each test file includes this module with
//! `mod common;` and uses the part it needs.

// Every test file compiles its own copy and none uses all of it.
#![allow(dead_code)]

pub mod mst;
pub mod sssp;

use std::path::{Path, PathBuf};
use std::time::Instant;

use warpgraph::io::{self, Format, ReadOptions, WriteContext, WriteOptions};
use warpgraph::{
    BuildOptions, Duplicates, EdgeList, Error, Graph, NoProgress, Result, VertexIds, WeightType,
    Weights,
};

/// The path of golden file `name` (under `tests/data`).
pub fn data_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads golden file `name` with the default options.
pub fn read_data(name: &str) -> Graph {
    io::read(&data_file(name), &ReadOptions::default(), &NoProgress).unwrap()
}

/// Reads `text` as `format` with `opts`, naming it `path` in errors.
pub fn read_text(text: &[u8], format: Format, path: &str, opts: &ReadOptions) -> Result<Graph> {
    io::read_bytes(text, format, Path::new(path), opts, &NoProgress)
}

/// The (line, message) of `r`, which must be a parse error naming `path`; fails the test on
/// anything else.
#[track_caller]
pub fn parse_error(r: Result<Graph>, path: &str) -> (u64, String) {
    match r {
        Err(Error::Parse {
            path: got,
            line,
            msg,
        }) => {
            assert_eq!(got, Path::new(path));
            (line, msg)
        }
        Err(e) => panic!("expected a parse error, got {e:?}"),
        Ok(_) => panic!("expected a parse error, got a graph"),
    }
}

/// Asserts that `r` is a parse error of `path` on `line` whose message contains every one
/// of `parts`.
#[track_caller]
pub fn assert_parse_error(r: Result<Graph>, path: &str, line: u64, parts: &[&str]) {
    let (got, msg) = parse_error(r, path);
    assert_eq!(got, line, "wrong line for: {msg}");
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
    }
}

/// The graph of `edges` (0-based vertex pairs) with `weights` over `n` vertices, built
/// directed or undirected with the default policies (keep loops and duplicates).
pub fn graph(n: u64, edges: &[(u32, u32)], weights: Weights, directed: bool) -> Graph {
    let e = EdgeList::new(
        n,
        edges.iter().map(|e| e.0).collect(),
        edges.iter().map(|e| e.1).collect(),
        weights,
    )
    .unwrap();
    e.build(&BuildOptions {
        directed,
        ..Default::default()
    })
    .unwrap()
}

/// `g` with vertex ids `1..=n`, as the 1-based formats read graphs back.
pub fn one_based(g: Graph) -> Graph {
    g.with_ids(VertexIds::Base(1)).unwrap()
}

/// Read options forcing the weight type `t` (`None`: infer it).
pub fn weight_type(t: Option<WeightType>) -> ReadOptions {
    ReadOptions {
        weight_type: t,
        ..Default::default()
    }
}

/// Read options that make the graph undirected.
pub fn undirected() -> ReadOptions {
    ReadOptions {
        undirected: true,
        ..Default::default()
    }
}

/// Read options with the duplicate policy `d`.
pub fn duplicates(d: Duplicates) -> ReadOptions {
    ReadOptions {
        duplicates: d,
        ..Default::default()
    }
}

/// Writes `g` with `io::write` to `g.<ext>` in a new temporary folder; returns the folder
/// (deleted when dropped), the file's path and what `io::write` returned.
pub fn write_temp(g: &Graph, ext: &str) -> (tempfile::TempDir, PathBuf, Result<Format>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("g.{ext}"));
    let r = io::write(g, &path, &WriteOptions::default(), &NoProgress);
    (dir, path, r)
}

/// Writes `g` to `g.<ext>` in a temporary folder (checking that the extension's format was
/// used) and reads it back with `io::read` and `opts`; returns the graph read and the
/// file's text.
pub fn round_trip(g: &Graph, ext: &str, opts: &ReadOptions) -> (Graph, String) {
    let (_dir, path, r) = write_temp(g, ext);
    assert_eq!(Some(r.unwrap()), Format::from_extension(&path));
    let text = std::fs::read_to_string(&path).unwrap();
    (io::read(&path, opts, &NoProgress).unwrap(), text)
}

/// Round-trips `g`, whose vertex ids are not `1..=n`, through `g.<ext>`: the file must
/// contain `note`, and the graph must come back with ids `1..=n` and the same arcs.
#[track_caller]
pub fn assert_renumbering_noted(g: &Graph, ext: &str, note: &str) {
    let (back, text) = round_trip(g, ext, &ReadOptions::default());
    assert!(text.contains(note), "{text}");
    assert_eq!(back.ids(), &VertexIds::Base(1));
    assert_eq!(back.out(), g.out());
}

/// The text of line `head`, then one line for each list of `lines`, its tokens joined by
/// spaces (for building hostile inputs from token lists).
pub fn token_text(head: &str, lines: &[Vec<&str>]) -> String {
    let mut text = format!("{head}\n");
    for l in lines {
        text.push_str(&l.join(" "));
        text.push('\n');
    }
    text
}

/// Whether `g` passes every check [`Graph::from_parts`] makes.
pub fn is_valid(g: Graph) -> bool {
    let (directed, csr, ids) = g.into_parts();
    Graph::from_parts(directed, csr, ids).is_ok()
}

/// The weights of `g`, which must be `i32`.
pub fn i32s(g: &Graph) -> Vec<i32> {
    g.out().weights().as_slice::<i32>().unwrap().to_vec()
}

/// The weights of `g`, which must be `f64`.
pub fn f64s(g: &Graph) -> Vec<f64> {
    g.out().weights().as_slice::<f64>().unwrap().to_vec()
}

/// The next number of a xorshift64 stream (for generating large test inputs).
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Times reading `text` as `format` with the default options and writing the graph back in
/// `format`, and prints the rates under `label`. The CSR build alone is timed apart, from
/// the same edges `src -> dst` in file order (checking that it builds the same CSR), to
/// tell parsing from building. Checks that the graph read has `arcs` arcs.
pub fn print_throughput(
    label: &str,
    format: Format,
    text: &[u8],
    src: Vec<u32>,
    dst: Vec<u32>,
    arcs: u64,
) {
    let mb = text.len() as f64 / 1e6;
    let t = Instant::now();
    let g = read_text(text, format, "t", &ReadOptions::default()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(g.num_arcs(), arcs);
    let build = build_time(&g, src, dst);
    println!(
        "{label} read: {mb:.0} MB in {secs:.3} s = {:.0} MB/s ({} threads); \
         the CSR build alone takes {build:.3} s, the rest runs at {:.0} MB/s",
        mb / secs,
        rayon::current_num_threads(),
        mb / (secs - build)
    );
    let mut out = Vec::with_capacity(text.len() + 1000);
    let cx = WriteContext {
        path: Path::new("t"),
        progress: &NoProgress,
    };
    let t = Instant::now();
    io::write_to(&g, format, &mut out, &cx).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{label} write: {:.0} MB in {secs:.3} s = {:.0} MB/s",
        out.len() as f64 / 1e6,
        out.len() as f64 / 1e6 / secs
    );
}

/// The time the CSR builder alone takes for the edges `src -> dst` with `g`'s weights;
/// checks that it builds the same CSR as `g`.
fn build_time(g: &Graph, src: Vec<u32>, dst: Vec<u32>) -> f64 {
    let e = EdgeList::new(g.num_vertices() as u64, src, dst, g.out().weights().clone()).unwrap();
    let t = Instant::now();
    let h = e.build(&BuildOptions::default()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(h.out().targets(), g.out().targets());
    secs
}

/// GPU 0 for a GPU test, or `None` (the test skips) where there is none; with
/// `WARPGRAPH_REQUIRE_GPU=1` a missing GPU fails the test instead (see
/// `warpgraph::cuda::test_gpu`).
pub fn gpu() -> Option<std::sync::Arc<warpgraph::cuda::Gpu>> {
    warpgraph::cuda::test_gpu()
}

/// The team sizes a multi-GPU test runs (1, 2 and all GPUs, where there are that many),
/// or none (the test skips) where no GPU can be used. Failing instead: no GPU with
/// `WARPGRAPH_REQUIRE_GPU=1`.
pub fn team_sizes() -> Vec<usize> {
    if gpu().is_none() {
        return Vec::new();
    }
    let count = warpgraph::cuda::probe()
        .expect("probing the GPUs")
        .gpus
        .len();
    let mut sizes = vec![1];
    if count >= 2 {
        sizes.push(2);
    }
    if count > 2 {
        sizes.push(count);
    }
    sizes
}

/// The teams a multi-GPU test runs: those of `team_sizes` (one rank per GPU); on a machine
/// of one GPU, a team of one over NCCL (unless NCCL is missing, which
/// `WARPGRAPH_REQUIRE_GPU=1` makes a failure); then teams of 2 and 4 ranks sharing GPU 0
/// where the machine has fewer GPUs than that. A shared
/// team runs all of a team's logic (its partition, its exchanges, the direction switch
/// across ranks) with copies in place of NCCL, so a machine of one GPU tests teams too.
/// None (the test skips) where no GPU can be used.
pub fn teams() -> Vec<warpgraph::cuda::team::TeamSpec> {
    use warpgraph::cuda::team::TeamSpec;
    let sizes = team_sizes();
    let most = sizes.iter().copied().max().unwrap_or(0);
    let mut teams: Vec<TeamSpec> = sizes.into_iter().map(TeamSpec::local).collect();
    if most == 1 && warpgraph::cuda::team::test_nccl() {
        // NCCL's path, where one GPU is all there is: a team of one over NCCL.
        teams.push(TeamSpec {
            over_nccl: true,
            ..TeamSpec::local(1)
        });
    }
    if most > 0 {
        teams.extend(
            [2, 4]
                .into_iter()
                .filter(|&r| r > most)
                .map(|r| TeamSpec::on_one_gpu(0, r)),
        );
    }
    teams
}
