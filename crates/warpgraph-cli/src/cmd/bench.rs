//! `warpgraph bench`: time an algorithm over many verified trials.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use warpgraph::bench::{edges_reached, pick_sources, Report, Trial};
use warpgraph::device::Device;
use warpgraph::{apsp, bfs, mst, sssp, Graph, NoProgress};

use crate::args::choice;
use crate::source::GraphArgs;

/// The problem to benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Problem {
    /// Breadth-first search from random roots.
    Bfs,
    /// Single-source shortest paths from random roots.
    Sssp,
    /// Minimum spanning forest.
    Mst,
    /// All-pairs shortest paths (kept in memory, discarded).
    Apsp,
}

#[derive(Debug, Args)]
#[command(after_help = "\
Each trial is verified before its time counts; times are the algorithm alone (no loading),
after one warm-up run. BFS and SSSP use Graph500-style roots: random vertices with an arc,
from a fixed seed, so every run and device times the same sources.

Examples:
  warpgraph bench bfs --generate kron:20                  # 64 roots
  warpgraph bench sssp --generate kron:20 --algo delta-stepping --trials 16
  warpgraph bench mst road.gr --algo kruskal --trials 5 --json-out mst.json")]
pub struct BenchArgs {
    /// What to run.
    #[arg(value_enum)]
    problem: Problem,
    #[command(flatten)]
    graph: GraphArgs,
    /// Algorithm variant (as in the problem's own command; default: its default).
    #[arg(long)]
    algo: Option<String>,
    /// Trials: roots for bfs/sssp (default 64 and 16), repetitions for mst/apsp (default 5).
    #[arg(long)]
    trials: Option<usize>,
    /// Seed for picking roots.
    #[arg(long, default_value_t = 27491095)]
    root_seed: u64,
    /// Device: auto or cpu.
    #[arg(long, default_value = "auto", value_parser = choice::<Device>(["auto", "cpu", "cuda"]))]
    device: Device,
    /// Also write the full report (every trial) as JSON here.
    #[arg(long, value_name = "FILE")]
    json_out: Option<PathBuf>,
}

/// Runs `f` once to warm up, then once per item, verifying each result.
fn trials<T>(items: &[T], mut f: impl FnMut(&T) -> Result<Trial>) -> Result<Vec<Trial>> {
    if let Some(first) = items.first() {
        f(first).context("warm-up run")?;
    }
    items.iter().map(&mut f).collect()
}

pub fn run(args: BenchArgs, quiet: bool) -> Result<()> {
    let (g, graph_name) = args.graph.load(quiet)?;
    let (device, note) = args.device.resolve();
    if let (Some(note), false) = (note, quiet) {
        eprintln!("{note}");
    }
    let (algorithm, trials) = match args.problem {
        Problem::Bfs => bench_bfs(&g, &args)?,
        Problem::Sssp => bench_sssp(&g, &args)?,
        Problem::Mst => bench_mst(&g, &args)?,
        Problem::Apsp => bench_apsp(&g, &args)?,
    };
    let mut report = Report {
        problem: format!("{:?}", args.problem).to_lowercase(),
        algorithm,
        device: device.describe(),
        graph: graph_name,
        vertices: g.num_vertices() as u64,
        edges: g.num_edges(),
        trials,
        summary: None,
        median_teps: None,
    };
    report.finish();
    if let Some(path) = &args.json_out {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let Some(s) = &report.summary else {
        bail!("no trials ran (the graph has no arcs to start from)");
    };
    println!(
        "{} {} on {} | {} | {} vertices, {} edges",
        report.problem,
        report.algorithm,
        report.device,
        report.graph,
        report.vertices,
        report.edges
    );
    println!(
        "{} trials, all verified: median {:.6} s (min {:.6}, max {:.6}, mean {:.6}){}",
        s.trials,
        s.median,
        s.min,
        s.max,
        s.mean,
        report
            .median_teps
            .map_or(String::new(), |t| format!(", median {t:.3e} TEPS"))
    );
    Ok(())
}

fn bench_bfs(g: &Graph, args: &BenchArgs) -> Result<(String, Vec<Trial>)> {
    let direction: bfs::Direction = args.algo.as_deref().unwrap_or("optimizing").parse()?;
    let opts = bfs::BfsOptions {
        direction,
        ..Default::default()
    };
    let roots = pick_sources(g, args.trials.unwrap_or(64), args.root_seed);
    let t = trials(&roots, |&s| {
        let start = Instant::now();
        let tree = bfs::bfs(g, s, &opts)?;
        let seconds = start.elapsed().as_secs_f64();
        bfs::verify(g, &tree)?;
        Ok(Trial {
            source: Some(g.ids().external(s)),
            seconds,
            reached: tree.reached(),
            edges: edges_reached(g, |v| tree.depth[v as usize] != bfs::UNREACHED),
            verified: true,
        })
    })?;
    Ok((format!("bfs-{direction}"), t))
}

fn bench_sssp(g: &Graph, args: &BenchArgs) -> Result<(String, Vec<Trial>)> {
    let algo: sssp::Algorithm = args.algo.as_deref().unwrap_or("delta-stepping").parse()?;
    let roots = pick_sources(g, args.trials.unwrap_or(16), args.root_seed);
    let t = trials(&roots, |&s| {
        let start = Instant::now();
        let r = sssp::sssp(g, s, &algo)?;
        let seconds = start.elapsed().as_secs_f64();
        sssp::verify(g, &r)?;
        let parent = r.parent();
        Ok(Trial {
            source: Some(g.ids().external(s)),
            seconds,
            reached: r.reached(),
            edges: edges_reached(g, |v| parent[v as usize] != warpgraph::NO_VERTEX),
            verified: true,
        })
    })?;
    Ok((algo.name().to_string(), t))
}

fn bench_mst(g: &Graph, args: &BenchArgs) -> Result<(String, Vec<Trial>)> {
    let algo: mst::Algorithm = args.algo.as_deref().unwrap_or("boruvka").parse()?;
    let reps: Vec<usize> = (0..args.trials.unwrap_or(5)).collect();
    let t = trials(&reps, |_| {
        let start = Instant::now();
        let f = mst::mst(g, algo)?;
        let seconds = start.elapsed().as_secs_f64();
        mst::verify(g, &f)?;
        Ok(Trial {
            source: None,
            seconds,
            reached: f.edges.len() as u64,
            edges: 0,
            verified: true,
        })
    })?;
    Ok((algo.name().to_string(), t))
}

fn bench_apsp(g: &Graph, args: &BenchArgs) -> Result<(String, Vec<Trial>)> {
    let algo: apsp::Algorithm = args.algo.as_deref().unwrap_or("auto").parse()?;
    let reps: Vec<usize> = (0..args.trials.unwrap_or(5)).collect();
    let resolved = algo.resolve(g, &apsp::ApspOptions::default());
    let t = trials(&reps, |_| {
        let mut sink = apsp::MatrixSink::new();
        let start = Instant::now();
        let s = apsp::apsp_with(
            g,
            algo,
            &apsp::ApspOptions::default(),
            &mut sink,
            &NoProgress,
        )?;
        let seconds = start.elapsed().as_secs_f64();
        apsp::verify_matrix(g, &sink.into_matrix()?)?;
        Ok(Trial {
            source: None,
            seconds,
            reached: s.reachable_pairs,
            edges: 0,
            verified: true,
        })
    })?;
    Ok((resolved.name().to_string(), t))
}
