//! `warpgraph sssp`: single-source shortest paths.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use warpgraph::io::space;
use warpgraph::sssp::{self, Algorithm, Delta, SsspResult, SsspRunner};
use warpgraph::{Error, Graph};

use crate::args::commas;
use crate::cmd::common::{
    check_output, ext, in_kernels, source, write_atomic, RunArgs, TABLE_HINT,
};
use crate::source::GraphArgs;

/// The `-o` file's first line.
const HEADER: &str = "vertex\tdistance\tparent\n";

/// Exit code when a negative cycle makes shortest paths undefined.
pub const EXIT_NEGATIVE_CYCLE: u8 = 3;

#[derive(Debug, Args)]
#[command(after_help = "\
Algorithms (CPU and GPU):
  auto                the fastest for the graph: CPU delta-stepping, GPU near-far
                      buckets (our design); Bellman-Ford when a weight is negative
  dijkstra            CPU: binary heap, serial (the classic baseline). GPU: the CUDA
                      SSSP thesis's one vertex per iteration, ExtractMin by a parallel
                      reduction over all vertices (--threads-per-block); O(n^2), slow
                      on big graphs
  dijkstra-parallel   settle every vertex within the least arc weight of the minimum
                      at once (the GPU Johnson article's; Crauser et al.)
  bellman-ford        parallel rounds, early exit; accepts negative weights
  bellman-ford-queue  worklist (CPU: SLF/LLL ordering; GPU: no duplicates); accepts
                      negative weights
  delta-stepping      buckets (Meyer & Sanders; GPU: the CUDA SSSP thesis's design,
                      a bucket number per vertex, light and heavy phases, request
                      lists laid out by prefix sum); --delta / --delta-heuristic
  spmv-csr            Bellman-Ford as (min,+) matrix-vector products, CSR rows
  spmv-ell            the same over ELL (rows padded to the longest, column-major);
                      refused with the reason where the padding would explode

A negative cycle reachable from the source is printed (file ids, in order) and the exit
code is 3.

Examples:
  warpgraph sssp road.gr --source 1 --verify
  warpgraph sssp --generate kron:20 --algo delta-stepping --delta-heuristic mean
  warpgraph sssp g.wel --algo bellman-ford --source 7 -o dist.tsv   # vertex, distance, parent
  warpgraph sssp --generate kron:22 --device cuda --verify          # GPU 0")]
pub struct SsspArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Source vertex as the file numbers it (default: a random vertex with an arc, fixed seed).
    #[arg(long, value_name = "V")]
    source: Option<u64>,
    /// Algorithm (see below).
    #[arg(long, default_value = "auto", value_parser = Algorithm::NAMES.to_vec())]
    algo: String,
    /// Delta-stepping bucket width.
    #[arg(long, value_name = "X", conflicts_with = "delta_heuristic")]
    delta: Option<f64>,
    /// Delta-stepping width rule: auto, median, mean or max-over-degree (the CUDA SSSP
    /// thesis's rules).
    #[arg(long, value_name = "RULE", value_parser = ["auto", "median", "mean", "max-over-degree"])]
    delta_heuristic: Option<String>,
    #[command(flatten)]
    extract_min: crate::cmd::common::ExtractMinArgs,
    #[command(flatten)]
    run: RunArgs,
}

fn algorithm(args: &SsspArgs, g: &Graph) -> Result<Algorithm> {
    let delta = match (&args.delta, &args.delta_heuristic) {
        (Some(x), _) => Delta::Fixed(*x),
        (None, Some(h)) => h.parse()?,
        (None, None) => Delta::Auto,
    };
    let width_given = args.delta.is_some() || args.delta_heuristic.is_some();
    Ok(match args.algo.as_str() {
        "auto" if width_given && warpgraph::GraphStats::of(g).negative_weights == 0 => {
            Algorithm::DeltaStepping(delta)
        }
        "delta-stepping" => Algorithm::DeltaStepping(delta),
        name => name.parse()?,
    })
}

pub fn run(args: SsspArgs, quiet: bool) -> Result<ExitCode> {
    args.run.open_early(&args.graph);
    let (g, graph_name) = args.graph.load(quiet)?;
    let device = args.run.device_for(
        "SSSP",
        warpgraph::sssp::CPU_ARCS_PER_THREAD_SECOND,
        &g,
        quiet,
    )?;
    let s = source(&g, args.source)?;
    let algo = algorithm(&args, &g)?;
    // Integer distances are bounded by the graph; float ones are counted once known.
    let out_size = args.run.output.as_ref().map(|p| {
        let bound = space::int_distance_len(&g)
            .map(|d| space::vertex_table_bound(&g, HEADER.len() as u64, d));
        (p, bound)
    });
    if let Some((p, Some(size))) = out_size {
        check_output(p, "the result", size, TABLE_HINT)?;
    }
    let mut runner = SsspRunner::new(device, &g)?;
    args.extract_min.apply(&mut runner, &algo)?;
    let (result, times) = match runner.run(&g, s, &algo) {
        Ok(r) => r,
        Err(Error::NegativeCycle { cycle, weight }) => {
            let ids: Vec<String> = cycle.iter().map(|&v| ext(&g, v).to_string()).collect();
            eprintln!(
                "error: a negative cycle is reachable from {}: {} -> {} (total weight {weight})",
                g.ids().external(s),
                ids.join(" -> "),
                ids.first().map_or("", String::as_str)
            );
            return Ok(ExitCode::from(EXIT_NEGATIVE_CYCLE));
        }
        Err(e) => return Err(e.into()),
    };
    let secs = times.seconds;
    let verified = if args.run.verify {
        sssp::verify(&g, &result)?;
        Some(true)
    } else {
        None
    };
    let parent = result.parent();
    let edges = warpgraph::bench::edges_reached(&g, |v| parent[v as usize] != warpgraph::NO_VERTEX);
    if let Some((path, size)) = out_size {
        write_atomic(path, size, |w| write_tsv(w, &g, &result))?;
    }
    if args.run.json {
        let j = serde_json::json!({
            "problem": "sssp", "algorithm": algo.name(), "device": device.describe(),
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "source": g.ids().external(s), "seconds": secs,
            "kernel_seconds": times.kernel_seconds, "reached": result.reached(),
            "teps": edges as f64 / secs.max(1e-12), "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "sssp ({}) from {} on {}: reached {} of {} vertices in {secs:.4} s{}, {:.3e} TEPS",
            algo.name(),
            g.ids().external(s),
            device.describe(),
            commas(result.reached()),
            commas(g.num_vertices() as u64),
            in_kernels(times.kernel_seconds),
            edges as f64 / secs.max(1e-12)
        );
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_tsv(w: &mut dyn Write, g: &Graph, r: &SsspResult) -> std::io::Result<()> {
    w.write_all(HEADER.as_bytes())?;
    let parent = r.parent();
    for v in 0..g.num_vertices() as u32 {
        let p = parent[v as usize];
        match r {
            _ if p == warpgraph::NO_VERTEX => writeln!(w, "{}\tinf\t-1", ext(g, v))?,
            SsspResult::Int(sp) => {
                writeln!(w, "{}\t{}\t{}", ext(g, v), sp.dist[v as usize], ext(g, p))?
            }
            SsspResult::Float(sp) => {
                writeln!(w, "{}\t{}\t{}", ext(g, v), sp.dist[v as usize], ext(g, p))?
            }
        }
    }
    Ok(())
}
