//! `warpgraph`: the command-line face of the warpgraph library.

mod args;
mod cmd;
mod plot;
mod progress;
mod source;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Graph analytics on GPUs and all CPU cores: shortest paths, BFS, spanning trees.
#[derive(Debug, Parser)]
#[command(
    name = "warpgraph",
    version,
    about,
    propagate_version = true,
    after_help = "\
Start here:
  warpgraph demo                                   # the main job on a generated graph
  warpgraph generate kron --scale 20 -o g.wg       # make a graph
  warpgraph convert g.wg g.gr                      # change its format
  warpgraph info g.gr                              # what is in it

Formats (chosen by extension, checked against the content; --format / --to force one):
  .gr DIMACS shortest path   .mtx Matrix Market   .el/.wel/.txt edge lists (SNAP)
  .graph METIS               .wg warpgraph binary (memory-mapped, checksummed)

Environment (docs/SETTINGS.md says more; a value that cannot be read is an error):
  WARPGRAPH_KERNEL_CACHE      folder of compiled GPU kernels, or off [default:
                              warpgraph/kernels in $XDG_CACHE_HOME or ~/.cache]
  WARPGRAPH_MEMORY_LIMIT      host memory warpgraph may use, in bytes
  WARPGRAPH_GPU_MEMORY_LIMIT  GPU memory warpgraph may use, in bytes
  WARPGRAPH_TRACE             1: each search's levels or passes on stderr; 2: also
                              each step's GPU time
  WARPGRAPH_NCCL_WORLD, WARPGRAPH_NCCL_FIRST_RANK, WARPGRAPH_NCCL_ID_FILE
                              a GPU team over several processes or hosts (bfs --help)
  WARPGRAPH_NCCL_TIMEOUT      seconds a team waits for a rank [default: 300]
  WARPGRAPH_TEAM_ON_ONE_GPU   1: a team's ranks share GPU 0
  WARPGRAPH_REQUIRE_GPU, WARPGRAPH_REQUIRE_NVRTC
                              1: the test suite fails instead of skipping without them

Run `warpgraph <command> --help` for each command's options and examples."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars (they are also hidden when stderr is not a terminal).
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the main job on a built-in default graph.
    Demo(cmd::demo::DemoArgs),
    /// Generate a graph (Kronecker, R-MAT, uniform, grid, SSCA#2) and write it.
    Generate(cmd::generate::GenerateArgs),
    /// Convert a graph file to another format.
    Convert(cmd::convert::ConvertArgs),
    /// Print what is in a graph file: sizes, weights, degrees, loops, duplicates.
    Info(cmd::info::InfoArgs),
    /// List the GPUs (name, memory, compute capability, driver), or say why there are none.
    Devices(cmd::devices::DevicesArgs),
    /// Breadth-first search from a source (direction-optimizing; Enterprise on a GPU).
    Bfs(cmd::bfs::BfsArgs),
    /// Single-source shortest paths (dijkstra, bellman-ford, delta-stepping, ...).
    Sssp(cmd::sssp::SsspArgs),
    /// All-pairs shortest paths (floyd-warshall, johnson), streamed to .npy or .tsv.
    Apsp(cmd::apsp::ApspArgs),
    /// Shortest-path distances from chosen sources to chosen targets, as a table.
    Distances(cmd::distances::DistancesArgs),
    /// Minimum spanning forest (boruvka, kruskal).
    Mst(cmd::mst::MstArgs),
    /// Betweenness (also on a GPU), edge betweenness, closeness or harmonic centrality.
    Centrality(cmd::centrality::CentralityArgs),
    /// Time an algorithm over many verified trials (Graph500-style roots).
    Bench(cmd::bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C (or SIGTERM) while a result is being written removes its unfinished file.
    warpgraph::io::output::remove_on_signals();
    // Every WARPGRAPH_* variable is read once, by the library; a value it cannot parse
    // stops the run here, named, rather than being ignored.
    if let Err(e) = warpgraph::settings::get().check() {
        let e = anyhow::Error::from(e).context("the environment");
        eprintln!("error: {}", report(&e));
        return ExitCode::FAILURE;
    }
    if let Some(n) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            eprintln!("error: cannot start {n} threads: {e}");
            return ExitCode::FAILURE;
        }
    }
    let quiet = cli.quiet;
    let ok = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
    let result = match cli.command {
        Command::Demo(a) => ok(cmd::demo::run(a, quiet)),
        Command::Generate(a) => ok(cmd::generate::run(a, quiet)),
        Command::Convert(a) => ok(cmd::convert::run(a, quiet)),
        Command::Info(a) => ok(cmd::info::run(a, quiet)),
        Command::Devices(a) => ok(cmd::devices::run(a)),
        Command::Bfs(a) => ok(cmd::bfs::run(a, quiet)),
        Command::Sssp(a) => cmd::sssp::run(a, quiet),
        Command::Apsp(a) => cmd::apsp::run(a, quiet),
        Command::Distances(a) => cmd::distances::run(a, quiet),
        Command::Mst(a) => ok(cmd::mst::run(a, quiet)),
        Command::Centrality(a) => ok(cmd::centrality::run(a, quiet)),
        Command::Bench(a) => ok(cmd::bench::run(a, quiet)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", report(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, as `{:#}` gives them, but a cause that the text
/// before it already ends with said once (the library's file errors name their cause
/// in their own text: "g.wg: No such file or directory (os error 2)").
pub fn report(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.ends_with(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
