//! `warpgraph bfs`: breadth-first search from one source.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use warpgraph::bfs::{self, BfsOptions, Direction, UNREACHED};

use crate::args::{choice, commas};
use crate::cmd::common::{ext, source, write_atomic, RunArgs};
use crate::source::GraphArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  warpgraph bfs road.gr --source 1 --verify
  warpgraph bfs --generate kron:20 --verify --json
  warpgraph bfs web.txt --source 10 -o depths.tsv     # vertex, depth, parent (file ids)")]
pub struct BfsArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Source vertex as the file numbers it (default: a random vertex with an arc, fixed seed).
    #[arg(long, value_name = "V")]
    source: Option<u64>,
    /// Step kinds: direction-optimizing (Beamer), or only top-down / bottom-up.
    #[arg(long, default_value = "optimizing", value_parser = choice::<Direction>(Direction::ALL.iter().map(|d| d.name())))]
    direction: Direction,
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(args: BfsArgs, quiet: bool) -> Result<()> {
    let (g, graph_name) = args.graph.load(quiet)?;
    let device = args.run.device(quiet);
    let s = source(&g, args.source)?;
    let opts = BfsOptions {
        direction: args.direction,
        ..BfsOptions::default()
    };
    let t = Instant::now();
    let tree = bfs::bfs(&g, s, &opts)?;
    let secs = t.elapsed().as_secs_f64();
    let verified = if args.run.verify {
        bfs::verify(&g, &tree)?;
        Some(true)
    } else {
        None
    };
    let edges = warpgraph::bench::edges_reached(&g, |v| tree.depth[v as usize] != UNREACHED);
    if let Some(path) = &args.run.output {
        write_atomic(path, |w| {
            writeln!(w, "vertex\tdepth\tparent")?;
            for v in 0..g.num_vertices() as u32 {
                let d = tree.depth[v as usize];
                if d == UNREACHED {
                    writeln!(w, "{}\tinf\t-1", ext(&g, v))?;
                } else {
                    writeln!(
                        w,
                        "{}\t{d}\t{}",
                        ext(&g, v),
                        ext(&g, tree.parent[v as usize])
                    )?;
                }
            }
            Ok(())
        })?;
    }
    if args.run.json {
        let j = serde_json::json!({
            "problem": "bfs", "algorithm": format!("bfs-{}", args.direction), "device": device.describe(),
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "source": g.ids().external(s), "seconds": secs, "reached": tree.reached(),
            "max_depth": tree.max_depth(), "teps": edges as f64 / secs.max(1e-12),
            "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "bfs ({}) from {} on {}: reached {} of {} vertices, {} levels, {secs:.4} s, {:.3e} TEPS",
            args.direction,
            g.ids().external(s),
            device.describe(),
            commas(tree.reached()),
            commas(g.num_vertices() as u64),
            tree.max_depth() + 1,
            edges as f64 / secs.max(1e-12)
        );
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(())
}
