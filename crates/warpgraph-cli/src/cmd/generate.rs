//! `warpgraph generate`: make a graph with one of the built-in generators and write it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use warpgraph::generate::{self, GenerateOptions, Generator, WeightSpec};
use warpgraph::Graph;

use warpgraph::io::Format;
use warpgraph::{Duplicates, SelfLoops};

use crate::args::{choice, commas, format_choice};
use crate::progress::Bar;

#[derive(Debug, Args)]
#[command(after_help = "\
The graph is generated, then its file checked for room (an upper bound on its size against
the free space there: refused with both sizes when it cannot fit) and written under a
temporary name (.NAME.tmp-PID) renamed when complete; a failure or Ctrl-C leaves neither.

Examples:
  warpgraph generate kron --scale 20 -o kron20.wg
  warpgraph generate kron --scale 16 --weights int:1:255 --undirected -o k16.gr
  warpgraph generate rmat --scale 18 -a 0.45 -b 0.15 -c 0.15 -o rmat18.el
  warpgraph generate urand --scale 20 --degree 16 --seed 7 -o u20.wg
  warpgraph generate grid --rows 1024 --cols 1024 --weights int:1:100 -o road.gr
  warpgraph generate ssca2 --scale 16 -o ssca.mtx")]
pub struct GenerateArgs {
    #[command(subcommand)]
    kind: Kind,
    #[command(flatten)]
    common: Common,
}

#[derive(Debug, Args)]
struct Common {
    /// Output file; the extension picks the format (.wg .gr .mtx .el .wel .txt .graph).
    #[arg(short, long, global = true, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format, overriding the extension.
    #[arg(long, global = true, value_name = "FORMAT", value_parser = format_choice())]
    to: Option<Format>,
    /// Random seed: the same seed gives the same graph on any machine and thread count.
    #[arg(long, global = true, default_value_t = 27491095)]
    seed: u64,
    /// Edge weights: none, int:LO:HI (uniform integers, GAPBS uses int:1:255) or float
    /// (uniform in [0,1), as Graph500).
    #[arg(long, global = true, default_value = "none", value_parser = parse_weights)]
    weights: WeightSpec,
    /// Store each edge in both directions.
    #[arg(long, global = true)]
    undirected: bool,
    /// Shift every weight w(u, v) by p(u) - p(v), with random potentials p in 0..MAX
    /// (integer weights, directed graphs): some arcs turn negative, yet every cycle keeps
    /// its weight, so no negative cycle appears (Johnson's reweighting run backwards). For
    /// Bellman-Ford and Johnson on negative weights.
    #[arg(long, global = true, value_name = "MAX", conflicts_with = "undirected")]
    potentials: Option<u32>,
    /// Self loops produced by the generator (GAPBS drops them).
    #[arg(long, global = true, default_value = "drop", value_name = "POLICY",
          value_parser = choice::<SelfLoops>(SelfLoops::ALL.iter().map(|p| p.name())))]
    self_loops: SelfLoops,
    /// Repeated edges produced by the generator (GAPBS keeps the lightest: min).
    #[arg(long, global = true, default_value = "min", value_name = "POLICY",
          value_parser = choice::<Duplicates>(Duplicates::ALL.iter().map(|p| p.name())))]
    duplicates: Duplicates,
}

#[derive(Debug, Subcommand)]
enum Kind {
    /// Graph500 Kronecker graph (initiator 0.57/0.19/0.19, scrambled ids): skewed degrees.
    Kron {
        /// log2 of the number of vertices.
        #[arg(long)]
        scale: u32,
        /// Edges per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u32,
    },
    /// R-MAT graph with quadrant probabilities a, b, c (d = 1 - a - b - c).
    Rmat {
        /// log2 of the number of vertices.
        #[arg(long)]
        scale: u32,
        /// Edges per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u32,
        /// Probability of the top-left quadrant.
        #[arg(short, default_value_t = 0.45)]
        a: f64,
        /// Probability of the top-right quadrant.
        #[arg(short, default_value_t = 0.15)]
        b: f64,
        /// Probability of the bottom-left quadrant.
        #[arg(short, default_value_t = 0.15)]
        c: f64,
    },
    /// Uniform random graph G(n, m).
    Urand {
        /// log2 of the number of vertices (or give --vertices).
        #[arg(long, conflicts_with = "vertices")]
        scale: Option<u32>,
        /// Number of vertices.
        #[arg(long)]
        vertices: Option<u64>,
        /// Average out-degree (or give --edges).
        #[arg(long, default_value_t = 16, conflicts_with = "edges")]
        degree: u64,
        /// Number of edges.
        #[arg(long)]
        edges: Option<u64>,
    },
    /// 2-D grid, road-like: high diameter, degree <= 4.
    Grid {
        /// Rows (or give --scale for a square-ish grid of 2^scale vertices).
        #[arg(long, requires = "cols", conflicts_with = "scale")]
        rows: Option<u32>,
        /// Columns.
        #[arg(long, requires = "rows")]
        cols: Option<u32>,
        /// log2 of the number of vertices.
        #[arg(long)]
        scale: Option<u32>,
        /// Fraction of lattice edges removed at random, in [0, 1).
        #[arg(long, default_value_t = 0.0)]
        remove: f64,
        /// Random long-range shortcut edges to add.
        #[arg(long, default_value_t = 0)]
        shortcuts: u64,
    },
    /// SSCA#2: random cliques joined by inter-clique edges.
    Ssca2 {
        /// log2 of the number of vertices.
        #[arg(long)]
        scale: u32,
        /// Largest clique (default 2^(scale/3)).
        #[arg(long)]
        max_clique: Option<u32>,
        /// Probability of an inter-clique edge at each power-of-two distance.
        #[arg(long, default_value_t = 0.5)]
        inter_prob: f64,
    },
}

pub fn parse_weights(s: &str) -> Result<WeightSpec, String> {
    match s {
        "none" => Ok(WeightSpec::None),
        "float" => Ok(WeightSpec::Float),
        _ => {
            let parts: Vec<&str> = s.split(':').collect();
            match parts.as_slice() {
                ["int", lo, hi] => {
                    let lo: i64 = lo
                        .parse()
                        .map_err(|_| format!("'{lo}' is not an integer"))?;
                    let hi: i64 = hi
                        .parse()
                        .map_err(|_| format!("'{hi}' is not an integer"))?;
                    if lo > hi {
                        return Err(format!("int:{lo}:{hi} is empty: LO must not exceed HI"));
                    }
                    Ok(WeightSpec::Int { lo, hi })
                }
                _ => Err(format!("'{s}' is not none, int:LO:HI or float")),
            }
        }
    }
}

impl Kind {
    fn generator(&self) -> Result<Generator> {
        Ok(match *self {
            Kind::Kron { scale, edge_factor } => Generator::Kronecker { scale, edge_factor },
            Kind::Rmat {
                scale,
                edge_factor,
                a,
                b,
                c,
            } => Generator::Rmat {
                scale,
                edge_factor,
                a,
                b,
                c,
            },
            Kind::Urand {
                scale,
                vertices,
                degree,
                edges,
            } => {
                let vertices = match (scale, vertices) {
                    (Some(s), None) if s < 64 => 1u64 << s,
                    (Some(s), None) => bail!("--scale {s} is too large"),
                    (None, Some(v)) => v,
                    _ => bail!("give --scale or --vertices"),
                };
                let edges = edges.unwrap_or(vertices.saturating_mul(degree));
                Generator::Uniform { vertices, edges }
            }
            Kind::Grid {
                rows,
                cols,
                scale,
                remove,
                shortcuts,
            } => {
                let (rows, cols) = match (rows, cols, scale) {
                    (Some(r), Some(c), None) => (r, c),
                    (None, None, Some(s)) if s <= 32 => (1u32 << (s / 2), 1u32 << (s - s / 2)),
                    (None, None, Some(s)) => bail!("--scale {s} is too large for a grid"),
                    _ => bail!("give --rows and --cols, or --scale"),
                };
                Generator::Grid {
                    rows,
                    cols,
                    remove,
                    shortcuts,
                }
            }
            Kind::Ssca2 {
                scale,
                max_clique,
                inter_prob,
            } => Generator::Ssca2 {
                scale,
                max_clique: max_clique.unwrap_or_else(|| generate::default_max_clique(scale)),
                inter_prob,
            },
        })
    }
}

/// Generates a graph with a progress bar; returns it and the seconds taken.
pub fn make(gen: &Generator, opts: &GenerateOptions, quiet: bool) -> Result<(Graph, f64)> {
    let bar = Bar::new(quiet, false);
    let t = Instant::now();
    let g = generate::generate_with(gen, opts, &bar).context("generating the graph")?;
    Ok((g, t.elapsed().as_secs_f64()))
}

pub fn run(args: GenerateArgs, quiet: bool) -> Result<()> {
    let Some(output) = &args.common.output else {
        bail!("give an output file with -o FILE (for example -o graph.wg)");
    };
    let c = &args.common;
    let opts = GenerateOptions {
        seed: c.seed,
        weights: c.weights,
        undirected: c.undirected,
        self_loops: c.self_loops,
        duplicates: c.duplicates,
    };
    let gen = args.kind.generator()?;
    let (mut g, secs) = make(&gen, &opts, quiet)?;
    if let Some(max) = c.potentials {
        let p = potentials(g.num_vertices(), max, c.seed ^ 0x9e37_79b9_7f4a_7c15);
        g = with_potentials(g, &p).context("--potentials")?;
    }
    eprintln!(
        "generated {} vertices, {} {} in {secs:.2} s",
        commas(g.num_vertices() as u64),
        commas(g.num_edges()),
        if g.is_directed() {
            "arcs"
        } else {
            "undirected edges"
        },
    );
    crate::cmd::convert::save(&g, output, c.to, quiet)
}

/// Random potentials in 0..max for `n` vertices, from `seed`.
pub fn potentials(n: usize, max: u32, seed: u64) -> Vec<i32> {
    let mut rng = warpgraph::generate::rng::Rng::new(seed);
    (0..n)
        .map(|_| rng.below(u64::from(max.max(1))) as i32)
        .collect()
}

/// `g` (`i32` weights) with every weight `w(u, v)` replaced by `w(u, v) + p(u) - p(v)`:
/// arcs become negative, but every cycle keeps its weight, so no negative cycle appears
/// and the shortest paths stay the same paths, `p(u) - p(v)` longer (Johnson's
/// reweighting run backwards).
pub fn with_potentials(g: Graph, p: &[i32]) -> Result<Graph> {
    use warpgraph::Weights;
    let (directed, out, ids) = g.into_parts();
    let Weights::I32(w) = out.weights() else {
        bail!("potentials need int weights (--weights int:LO:HI)");
    };
    if p.len() != out.num_vertices() {
        bail!("{} potentials for {} vertices", p.len(), out.num_vertices());
    }
    let mut shifted = Vec::with_capacity(w.len());
    for u in 0..out.num_vertices() {
        for a in out.row(u as u32) {
            let t = out.targets()[a] as usize;
            let Some(x) = w[a].checked_add(p[u]).and_then(|x| x.checked_sub(p[t])) else {
                bail!("the weight {} of arc {u} -> {t} shifted by the potentials does not fit 32 bits", w[a]);
            };
            shifted.push(x);
        }
    }
    let csr = warpgraph::Csr::from_raw(
        out.offsets().to_vec().into(),
        out.targets().to_vec().into(),
        Weights::I32(shifted.into()),
    );
    Ok(Graph::from_parts(directed, csr, ids)?)
}
