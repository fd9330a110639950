//! `warpgraph demo`: the main job on a built-in default graph.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use warpgraph::device::Device;
use warpgraph::generate::{GenerateOptions, Generator, WeightSpec};
use warpgraph::io::{self, ReadOptions, WriteOptions};
use warpgraph::{bfs, mst, sssp, GraphStats};

use crate::args::commas;
use crate::cmd::generate::make;
use crate::progress::Bar;

#[derive(Debug, Args)]
#[command(after_help = "\
Generates a Graph500 Kronecker graph (undirected, weights 1..255 as GAPBS uses), prints its
statistics, times a round trip through warpgraph's binary format, then runs BFS and SSSP
(auto: delta-stepping here) and a minimum spanning forest (Borůvka) on the best device
present, verifying each result with its independent checker.

Examples:
  warpgraph demo
  warpgraph demo --scale 20")]
pub struct DemoArgs {
    /// log2 of the number of vertices.
    #[arg(long, default_value_t = 18)]
    scale: u32,
    /// Random seed.
    #[arg(long, default_value_t = 27491095)]
    seed: u64,
}

pub fn run(args: DemoArgs, quiet: bool) -> Result<()> {
    let gen = Generator::Kronecker {
        scale: args.scale,
        edge_factor: 16,
    };
    let opts = GenerateOptions {
        seed: args.seed,
        weights: WeightSpec::Int { lo: 1, hi: 255 },
        undirected: true,
        ..GenerateOptions::default()
    };
    let (g, gen_secs) = make(&gen, &opts, quiet)?;
    println!(
        "Kronecker scale {} (edge factor 16, seed {}) on {} CPU threads: generated in {gen_secs:.2} s",
        args.scale,
        args.seed,
        rayon::current_num_threads()
    );
    print!("{}", crate::cmd::info::table(&g, &GraphStats::of(&g)));

    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let path = dir.path().join("demo.wg");
    let t = Instant::now();
    io::write(&g, &path, &WriteOptions::default(), &Bar::new(quiet, false))?;
    let write_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let back = io::read(&path, &ReadOptions::default(), &Bar::new(quiet, true))?;
    let read_secs = t.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    anyhow::ensure!(
        back == g,
        "the graph read back from {} differs from the one written",
        path.display()
    );
    println!(
        ".wg round trip  {} written in {write_secs:.3} s, read back (memory-mapped, checksummed, validated) in {read_secs:.3} s: identical",
        warpgraph::error::fmt_bytes(size)
    );
    println!(
        "edges/s       generation {}",
        commas((g.num_edges() as f64 / gen_secs.max(1e-9)) as u64)
    );

    // The algorithms, each verified by its independent checker.
    let device = crate::cmd::common::resolve_device(Device::Auto, "BFS", true, quiet)?;
    let source = warpgraph::bench::pick_sources(&g, 1, args.seed)
        .first()
        .copied()
        .context("the generated graph has no arcs")?;
    let mut runner = bfs::BfsRunner::new(device, &g, Default::default(), Default::default())?;
    runner.run(&g, source)?; // warm-up (on a GPU: compiles nothing new, primes caches)
    let (tree, times) = runner.run(&g, source)?;
    let bfs_secs = times.seconds;
    bfs::verify(&g, &tree)?;
    println!(
        "bfs           from {source}: {} vertices reached, {} levels, {bfs_secs:.4} s on {}, verified",
        commas(tree.reached()),
        tree.max_depth() + 1,
        device.describe()
    );
    let mut runner = sssp::SsspRunner::new(device, &g)?;
    let algo = sssp::Algorithm::Auto;
    runner.run(&g, source, &algo)?; // warm-up
    let (sp, times) = runner.run(&g, source, &algo)?;
    let sssp_secs = times.seconds;
    sssp::verify(&g, &sp)?;
    println!(
        "sssp          {} from {source}: {sssp_secs:.4} s on {}, verified",
        algo.name(),
        device.describe()
    );
    let gpu = device.gpu()?;
    let backend = match &gpu {
        Some(gpu) => mst::Backend::Cuda(gpu),
        None => mst::Backend::Cpu,
    };
    let t = Instant::now();
    let (forest, _) = mst::mst_on(&g, mst::Algorithm::Boruvka, backend)?;
    let mst_secs = t.elapsed().as_secs_f64();
    mst::verify(&g, &forest)?;
    println!(
        "mst           boruvka: {} edges, weight {}, {} components, {mst_secs:.4} s on {}, verified",
        commas(forest.edges.len() as u64),
        forest.total_weight,
        commas(forest.components),
        device.describe()
    );
    Ok(())
}
