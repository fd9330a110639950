//! `warpgraph bfs`: breadth-first search from one source.

use anyhow::Result;
use clap::Args;
use warpgraph::bfs::{self, cuda::Variant, Direction, UNREACHED};
use warpgraph::cuda::team::TeamSpec;
use warpgraph::io::space;

use crate::args::{choice, commas, parse_gpus, Gpus};
use crate::cmd::bfs_common::{cpu_options, runner, team_ways, SwitchArgs};
use crate::cmd::common::{
    check_output, ext, in_kernels, source, write_atomic, RunArgs, TABLE_HINT,
};
use crate::source::GraphArgs;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  warpgraph bfs road.gr --source 1 --verify
  warpgraph bfs --generate kron:20 --verify --json
  warpgraph bfs --generate kron:22 --device cuda --verify      # on GPU 0
  warpgraph bfs g.wg --device cuda --gpu-variant baseline      # one step of the ablation
  warpgraph bfs web.txt --source 10 -o depths.tsv     # vertex, depth, parent (file ids)
  warpgraph bfs --generate kron:25 --gpus all --verify # every GPU, one team over NCCL

Several GPUs (--gpus): the vertices are split into equal ranges, one per GPU, and the
GPUs exchange the frontier as bitmaps through NCCL each level (libnccl.so.2 needed; a
team of one, --gpus 1, copies instead and needs none). The
depths are those of one GPU; the parents are the first in-neighbour one level up, the same
for any number of GPUs. To span hosts, run one process per host with
WARPGRAPH_NCCL_WORLD (ranks in all), WARPGRAPH_NCCL_FIRST_RANK (this host's first) and
WARPGRAPH_NCCL_ID_FILE (a fresh path on a shared file system) set; rank 0's host prints
the result (README: Several GPUs). No GPU waits for the others forever: a rank that
fails stops the others of its process, and any wait for the team (joining it, the id
file, an exchange) ends in an error after WARPGRAPH_NCCL_TIMEOUT seconds (default 300).")]
pub struct BfsArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Source vertex as the file numbers it (default: a random vertex with an arc, fixed seed).
    #[arg(long, value_name = "V")]
    source: Option<u64>,
    /// Step kinds: direction-optimizing (Beamer's switch on the CPU, Enterprise's on the
    /// GPU), or only top-down / bottom-up [default: optimizing; on the GPU, what the
    /// variant uses]
    #[arg(long, value_parser = choice::<Direction>(Direction::ALL.iter().map(|d| d.name())))]
    direction: Option<Direction>,
    /// GPU techniques, cumulative as in Enterprise's ablation: baseline (one thread per
    /// vertex), scheduling (+ frontier queues by prefix sum), balancing (+ four queues by
    /// degree), direction (+ direction optimisation), enterprise (+ hub cache: the paper),
    /// tuned (+ sparse frontiers and flat expansion of big vertices, beyond the paper: the
    /// fastest).
    #[arg(long, default_value = "tuned", value_name = "VARIANT", value_parser = choice::<Variant>(Variant::ALL.iter().map(|v| v.name())))]
    gpu_variant: Variant,
    /// Run on this many GPUs (or all) as one team over NCCL, by 1-D partition; the
    /// direction switch is Beamer's (--alpha, --beta) on the whole graph's counts, back to
    /// top-down only once the frontier has at most 131,072 out-arcs.
    #[arg(long, value_name = "N|all", value_parser = parse_gpus)]
    gpus: Option<Gpus>,
    #[command(flatten)]
    run: RunArgs,
    // Last: its help heading holds for the arguments after it.
    #[command(flatten)]
    switch: SwitchArgs,
}

/// The `-o` file's first line.
const HEADER: &str = "vertex\tdepth\tparent\n";

pub fn run(args: BfsArgs, quiet: bool) -> Result<()> {
    // A team opens its GPUs itself, and is refused before loading where there is none.
    let team_device = match args.gpus {
        Some(_) => Some(args.run.team_device("BFS", quiet, true)?),
        None => {
            args.run.open_early(&args.graph);
            None
        }
    };
    let (g, graph_name) = args.graph.load(quiet)?;
    let device = match team_device {
        Some(d) => d,
        None => {
            args.run
                .device_for("BFS", warpgraph::bfs::CPU_ARCS_PER_THREAD_SECOND, &g, quiet)?
        }
    };
    let s = source(&g, args.source)?;
    let out_size = args.run.output.as_ref().map(|p| {
        let depth = space::digits(g.num_vertices().saturating_sub(1) as u64);
        (p, space::vertex_table_bound(&g, HEADER.len() as u64, depth))
    });
    if let Some((p, size)) = out_size {
        check_output(p, "the result", size, TABLE_HINT)?;
    }
    let (tree, times, algorithm, where_) = match args.gpus {
        None => {
            let mut runner = runner(device, &g, args.direction, args.gpu_variant, args.switch)?;
            let (tree, times) = runner.run(&g, s)?;
            (tree, times, runner.algorithm(), device.describe())
        }
        Some(gpus) => {
            let spec = TeamSpec::from_env(gpus.resolve()?)?;
            let opts = cpu_options(args.direction, args.switch);
            let mut tree = bfs::BfsTree::default();
            let mut ran = (warpgraph::device::RunTimes::default(), 0, String::new());
            bfs::cuda::multi::bfs_team_visit(
                &spec,
                &g,
                &[(s, opts)],
                &Default::default(),
                &mut tree,
                |s| {
                    ran = (s.times, s.levels, team_ways(s));
                    Ok(())
                },
            )?;
            if !spec.has_root() {
                eprintln!("{}: done (the process of rank 0 reports)", spec.describe());
                return Ok(());
            }
            let name = format!("bfs-team ({} levels expanded{})", ran.1, ran.2);
            (tree, ran.0, name, spec.describe())
        }
    };
    let secs = times.seconds;
    let verified = if args.run.verify {
        bfs::verify(&g, &tree)?;
        Some(true)
    } else {
        None
    };
    let edges = warpgraph::bench::edges_reached(&g, |v| tree.depth[v as usize] != UNREACHED);
    if let Some((path, size)) = out_size {
        write_atomic(path, Some(size), |w| {
            w.write_all(HEADER.as_bytes())?;
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
            "problem": "bfs", "algorithm": algorithm, "device": where_,
            "graph": graph_name, "vertices": g.num_vertices(), "edges": g.num_edges(),
            "source": g.ids().external(s), "seconds": secs,
            "kernel_seconds": times.kernel_seconds, "reached": tree.reached(),
            "max_depth": tree.max_depth(), "teps": edges as f64 / secs.max(1e-12),
            "verified": verified,
        });
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        println!(
            "{} from {} on {}: reached {} of {} vertices, {} levels, {secs:.4} s{}, {:.3e} TEPS",
            algorithm,
            g.ids().external(s),
            where_,
            commas(tree.reached()),
            commas(g.num_vertices() as u64),
            tree.max_depth() + 1,
            in_kernels(times.kernel_seconds),
            edges as f64 / secs.max(1e-12)
        );
        if verified.is_some() {
            println!("verification: PASS");
        }
    }
    Ok(())
}
