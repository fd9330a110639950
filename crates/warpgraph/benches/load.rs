//! Loading throughput: how fast each format reads on this machine.
//!
//! Generates a Kronecker graph (scale `--scale`, default 20, weights 1..255 as GAPBS),
//! writes it in every format to a temporary directory, then reads each file `--runs` times
//! (default 5) after one warm-up read, and prints the median seconds and MB/s of text (file
//! bytes / time) for the whole load: parsing and building the CSR. Every graph read back is
//! compared with the original.
//!
//! Run: `cargo bench -p warpgraph --bench load`, or with options after `--`:
//! `cargo bench -p warpgraph --bench load -- --scale 22 --runs 3`.

use std::path::Path;
use std::time::Instant;

use warpgraph::generate::{generate, GenerateOptions, Generator, WeightSpec};
use warpgraph::io::{self, Format, IdMode, ReadOptions, WriteOptions};
use warpgraph::{Graph, NoProgress};

const USAGE: &str = "usage: load [--scale N] [--runs N]";

/// The Kronecker scale and the timed runs per format, from the command line (`cargo bench`
/// adds `--bench`, which is ignored).
fn arguments() -> (u32, u32) {
    let (mut scale, mut runs) = (20, 5);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let slot = match a.as_str() {
            "--scale" => &mut scale,
            "--runs" => &mut runs,
            "--bench" => continue,
            _ => {
                eprintln!("unknown argument {a:?}; {USAGE}");
                std::process::exit(2);
            }
        };
        match args.next().and_then(|v| v.parse().ok()) {
            Some(v) => *slot = v,
            None => {
                eprintln!("{a} needs a number; {USAGE}");
                std::process::exit(2);
            }
        }
    }
    (scale, runs.max(1))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let (scale, runs) = arguments();
    let dir = tempfile::tempdir().expect("temporary directory");
    let t = Instant::now();
    let g = generate(
        &Generator::Kronecker {
            scale,
            edge_factor: 16,
        },
        &GenerateOptions {
            weights: WeightSpec::Int { lo: 1, hi: 255 },
            ..Default::default()
        },
    )
    .expect("generate");
    println!(
        "Kronecker scale {scale}, edge factor 16, directed, i32 weights 1..255: {} vertices, {} arcs \
         (generated in {:.2} s) on {} threads; {runs} runs after a warm-up, medians",
        g.num_vertices(),
        g.num_arcs(),
        t.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    println!(
        "{:<8} {:>10} {:>10} {:>10} {:>10}",
        "format", "MB", "write s", "read s", "read MB/s"
    );
    for (format, ext) in [
        (Format::El, "el"),
        (Format::Wel, "wel"),
        (Format::Dimacs, "gr"),
        (Format::Mtx, "mtx"),
        (Format::Snap, "txt"),
        (Format::Wg, "wg"),
    ] {
        let path = dir.path().join(format!("g.{ext}"));
        let t = Instant::now();
        io::write(&g, &path, &WriteOptions::default(), &NoProgress).expect("write");
        let write_s = t.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(&path).expect("metadata").len() as f64;
        // Edge lists cannot hold isolated vertices: read their ids as vertex numbers
        // (GAPBS's convention) so the arcs compare equal.
        let opts = ReadOptions {
            ids: if matches!(format, Format::El | Format::Wel | Format::Snap) {
                IdMode::Dense
            } else {
                IdMode::Auto
            },
            ..Default::default()
        };
        let read = |p: &Path| io::read(p, &opts, &NoProgress).expect("read");
        let back: Graph = read(&path); // warm-up: page cache, allocator
        assert!(
            back.out().targets() == g.out().targets(),
            "{ext}: arcs read back differ"
        );
        if format != Format::El {
            assert!(
                back.out().weights() == g.out().weights(),
                "{ext}: weights read back differ"
            );
        }
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let h = read(&path);
                let s = t.elapsed().as_secs_f64();
                drop(h);
                s
            })
            .collect();
        let s = median(times);
        println!(
            "{:<8} {:>10.1} {:>10.3} {:>10.3} {:>10.0}",
            format.name(),
            bytes / 1e6,
            write_s,
            s,
            bytes / 1e6 / s
        );
    }
}
