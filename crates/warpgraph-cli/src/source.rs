//! Where an algorithm command's graph comes from: a file, or a built-in generator.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use warpgraph::generate::{GenerateOptions, Generator, WeightSpec};
use warpgraph::Graph;

use crate::args::ReadArgs;

/// The graph an algorithm runs on.
#[derive(Debug, Clone, Args)]
pub struct GraphArgs {
    /// Graph file (any format warpgraph reads), or give --generate.
    // Not required by clap: `load` says so, and `bench extract-min` takes no graph.
    #[arg(value_name = "FILE", conflicts_with = "generate")]
    pub input: Option<PathBuf>,
    /// Run on a generated graph instead of a file: kron:SCALE, rmat:SCALE, urand:SCALE,
    /// grid:ROWSxCOLS or ssca2:SCALE (undirected, weights 1..255 as GAPBS uses, unless
    /// --gen-weights says otherwise).
    #[arg(long, value_name = "SPEC")]
    pub generate: Option<String>,
    /// Weights of a generated graph: none, int:LO:HI or float.
    #[arg(long, value_name = "SPEC", default_value = "int:1:255", value_parser = crate::cmd::generate::parse_weights)]
    pub gen_weights: WeightSpec,
    /// Generate a directed graph (default: undirected).
    #[arg(long)]
    pub gen_directed: bool,
    /// Seed of the generated graph.
    #[arg(long, default_value_t = 27491095)]
    pub gen_seed: u64,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Parses a generator spec such as `kron:20` or `grid:1024x1024`.
pub fn parse_spec(spec: &str) -> Result<Generator> {
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    let num = |s: &str, what: &str| -> Result<u32> {
        s.parse()
            .with_context(|| format!("'{s}' in --generate {spec} is not a valid {what}"))
    };
    let scale = || num(arg, "scale");
    Ok(match kind {
        "kron" => Generator::Kronecker { scale: scale()?, edge_factor: 16 },
        "rmat" => Generator::Rmat { scale: scale()?, edge_factor: 16, a: 0.45, b: 0.15, c: 0.15 },
        "urand" => {
            let s = scale()?;
            if s >= 40 {
                bail!("--generate {spec}: scale {s} is too large");
            }
            Generator::Uniform { vertices: 1 << s, edges: 16 << s }
        }
        "grid" => {
            let Some((r, c)) = arg.split_once('x') else {
                bail!("--generate {spec}: give the grid as grid:ROWSxCOLS, e.g. grid:1024x1024");
            };
            Generator::Grid { rows: num(r, "row count")?, cols: num(c, "column count")?, remove: 0.0, shortcuts: 0 }
        }
        "ssca2" => {
            let s = scale()?;
            Generator::Ssca2 { scale: s, max_clique: warpgraph::generate::default_max_clique(s), inter_prob: 0.5 }
        }
        _ => bail!("unknown generator '{kind}' in --generate {spec} (expected kron, rmat, urand, grid or ssca2)"),
    })
}

impl GraphArgs {
    /// Whether the graph may be large enough for `--device auto` to take a GPU (a generated
    /// graph of at least [`AUTO_GPU_MIN_ARCS`] edges, a file of at least 8 bytes per such
    /// arc): only then does a command start the GPU while it loads the graph.
    pub fn may_be_large(&self) -> bool {
        let min = warpgraph::device::AUTO_GPU_MIN_ARCS;
        match (&self.generate, &self.input) {
            (Some(spec), _) => match parse_spec(spec) {
                Ok(
                    Generator::Kronecker { scale, edge_factor }
                    | Generator::Rmat {
                        scale, edge_factor, ..
                    },
                ) => (u64::from(edge_factor) << scale.min(40)) >= min / 2,
                Ok(Generator::Uniform { edges, .. }) => edges >= min / 2,
                Ok(Generator::Grid { rows, cols, .. }) => {
                    2 * u64::from(rows) * u64::from(cols) >= min / 2
                }
                Ok(Generator::Ssca2 { .. }) | Err(_) => true,
            },
            (None, Some(path)) => std::fs::metadata(path).is_ok_and(|m| m.len() >= 8 * min),
            (None, None) => false,
        }
    }

    /// Loads or generates the graph; returns it with a description for reports.
    pub fn load(&self, quiet: bool) -> Result<(Graph, String)> {
        if let Some(spec) = &self.generate {
            let gen = parse_spec(spec)?;
            let opts = GenerateOptions {
                seed: self.gen_seed,
                weights: self.gen_weights,
                undirected: !self.gen_directed,
                ..GenerateOptions::default()
            };
            let (g, secs) = crate::cmd::generate::make(&gen, &opts, quiet)?;
            if !quiet {
                eprintln!("generated {spec} in {secs:.2} s");
            }
            return Ok((g, format!("generated {spec} (seed {})", self.gen_seed)));
        }
        let Some(path) = &self.input else {
            bail!("give a graph file or --generate SPEC");
        };
        let (g, secs) = crate::cmd::convert::load(path, &self.read, quiet)?;
        if !quiet {
            eprintln!("loaded {} in {secs:.2} s", path.display());
        }
        Ok((g, path.display().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            parse_spec("kron:20").unwrap(),
            Generator::Kronecker {
                scale: 20,
                edge_factor: 16
            }
        );
        assert_eq!(
            parse_spec("grid:3x4").unwrap(),
            Generator::Grid {
                rows: 3,
                cols: 4,
                remove: 0.0,
                shortcuts: 0
            }
        );
        assert!(parse_spec("grid:3").is_err());
        assert!(parse_spec("kron:x")
            .unwrap_err()
            .to_string()
            .contains("not a valid scale"));
        assert!(parse_spec("tree:3").is_err());
    }
}
