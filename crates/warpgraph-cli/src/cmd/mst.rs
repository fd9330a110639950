//! `warpgraph mst`: minimum spanning forest.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use warpgraph::io::space;
use warpgraph::mst::{self, Algorithm};

use crate::args::{choice, commas};
use crate::cmd::common::{check_output, write_atomic, RunArgs, TABLE_HINT};
use crate::source::GraphArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
A directed graph is treated as undirected (for each pair the lighter direction is kept).
Ties are broken by (weight, smaller endpoint, larger endpoint), so every algorithm returns
the same edges. Disconnected graphs get a spanning forest, one tree per component.

Examples:
  warpgraph mst road.gr --verify
  warpgraph mst --generate grid:2048x2048 --device cuda --verify   # Borůvka on the GPU
  warpgraph mst --generate kron:20 --algo kruskal --json
  warpgraph mst g.graph -o forest.tsv       # u, v, weight (file ids)")]
pub struct MstArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Algorithm: boruvka (parallel; on the GPU too) or kruskal (serial baseline, CPU only).
    #[arg(long, default_value = "boruvka", value_parser = choice::<Algorithm>(Algorithm::ALL.iter().map(|a| a.name())))]
    algo: Algorithm,
    #[command(flatten)]
    run: RunArgs,
}

/// The `-o` file's first line.
const HEADER: &str = "u\tv\tweight\n";

pub fn run(args: MstArgs, quiet: bool) -> Result<()> {
    args.run.open_early(&args.graph);
    let (g, graph_name) = args.graph.load(quiet)?;
    let device =
        args.run
            .device_for("MST", warpgraph::mst::CPU_ARCS_PER_THREAD_SECOND, &g, quiet)?;
    if mst::treats_as_undirected(&g) && !quiet && !args.run.json {
        eprintln!("note: the graph is directed; its arcs are taken as undirected edges (lighter direction kept)");
    }
    // Integer weights are bounded by the graph; float ones are counted once known.
    let out_size = args.run.output.as_ref().map(|p| {
        let bound = space::int_weight_len(&g)
            .map(|w| space::forest_table_bound(&g, HEADER.len() as u64, w));
        (p, bound)
    });
    if let Some((p, Some(size))) = out_size {
        check_output(p, "the result", size, TABLE_HINT)?;
    }
    let gpu = device.gpu()?;
    let backend = match &gpu {
        Some(gpu) => mst::Backend::Cuda(gpu),
        None => mst::Backend::Cpu,
    };
    let t = Instant::now();
    let (forest, gpu_stats) = mst::mst_on(&g, args.algo, backend)?;
    let secs = t.elapsed().as_secs_f64();
    let kernel_seconds = gpu_stats.map(|s| s.times.kernel_seconds);
    let verified = if args.run.verify {
        mst::verify(&g, &forest)?;
        Some(true)
    } else {
        None
    };
    if let Some((path, size)) = out_size {
        write_atomic(path, size, |w| {
            w.write_all(HEADER.as_bytes())?;
            for (i, &(u, v)) in forest.edges.iter().enumerate() {
                let wt = weight_text(&forest.weights, i);
                writeln!(w, "{}\t{}\t{wt}", g.ids().external(u), g.ids().external(v))?;
            }
            Ok(())
        })?;
    }
    if args.run.json {
        let j = serde_json::json!({
            "problem": "mst", "algorithm": args.algo.name(), "device": device.describe(),
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "seconds": secs, "kernel_seconds": kernel_seconds, "rounds": gpu_stats.map(|s| s.rounds),
            "forest_edges": forest.edges.len(), "total_weight": forest.total_weight,
            "components": forest.components, "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "mst ({}) on {}: {} edges, total weight {}, {} components, {secs:.4} s",
            args.algo.name(),
            device.describe(),
            commas(forest.edges.len() as u64),
            forest.total_weight,
            commas(forest.components)
        );
        if let Some(s) = gpu_stats {
            println!(
                "GPU: {} Borůvka rounds ({} pointer-jumping launches), kernels {:.4} s \
                 (sorting and naming the forest {:.4} s of them), copying the forest back \
                 {:.4} s, the host's share after that {:.4} s (the total also counts the upload)",
                s.rounds,
                s.jumps,
                s.times.kernel_seconds,
                s.forest_seconds,
                s.copy_seconds,
                s.host_seconds
            );
        }
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(())
}

/// Weight `i` exactly as stored (integers without a decimal point).
fn weight_text(w: &warpgraph::Weights, i: usize) -> String {
    warpgraph::with_weights!(w, x => x[i].to_string(), none => "1".to_string())
}
