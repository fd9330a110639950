//! Options shared by several commands.

use std::path::Path;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use warpgraph::io::{Format, IdMode, ReadOptions};
use warpgraph::{Duplicates, SelfLoops, WeightType};

/// A clap parser for one of the library's named values: the possible values are listed in
/// `--help` and checked by clap, the value comes from the library's `FromStr`.
pub fn choice<T>(names: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    PossibleValuesParser::new(names).try_map(|s| s.parse::<T>())
}

/// Parser for `--device`: auto, cpu, cuda or cuda:N.
pub fn parse_device(s: &str) -> Result<warpgraph::device::Device, String> {
    s.parse().map_err(|e: warpgraph::Error| e.to_string())
}

/// How many GPUs of this machine work as one team (`--gpus N|all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gpus {
    /// Every GPU the driver reports.
    All,
    /// The first N.
    Count(usize),
}

impl Gpus {
    /// The number of GPUs, checked against the machine's.
    pub fn resolve(self) -> anyhow::Result<usize> {
        let have = warpgraph::cuda::probe()?.gpus.len();
        match self {
            Gpus::All => Ok(have),
            // Ranks sharing GPU 0 (the settings' `team_on_one_gpu`): as many as asked.
            Gpus::Count(n) if n <= have || warpgraph::settings::get().team_on_one_gpu => Ok(n),
            Gpus::Count(n) => anyhow::bail!(
                "--gpus {n}: this machine has {have} GPU{}",
                if have == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::fmt::Display for Gpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gpus::All => f.write_str("all"),
            Gpus::Count(n) => write!(f, "{n}"),
        }
    }
}

/// Parser for `--gpus`: a number of at least 1, or `all`.
pub fn parse_gpus(s: &str) -> Result<Gpus, String> {
    match s {
        "all" => Ok(Gpus::All),
        _ => match s.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Gpus::Count(n)),
            _ => Err(format!("'{s}' is not a number of GPUs (1, 2, ... or all)")),
        },
    }
}

/// The error for `--gpus` on a run that is on the CPU: no GPU could be used (and why), or
/// `--device cpu` was asked for.
pub fn gpus_without_a_gpu() -> anyhow::Error {
    match warpgraph::cuda::unavailable_reason() {
        Some(why) => anyhow::anyhow!("--gpus needs GPUs, and none can be used here: {why}"),
        None => anyhow::anyhow!("--gpus runs on GPUs: leave --device at auto or cuda"),
    }
}

/// Parser for `--format` / `--to`.
pub fn format_choice() -> impl TypedValueParser<Value = Format> {
    choice(Format::ALL.iter().map(|f| f.name()))
}

/// How to read an input graph.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Input format, when the extension does not say or is wrong.
    #[arg(long, value_name = "FORMAT", value_parser = format_choice())]
    pub format: Option<Format>,
    /// Treat the input as undirected (store each edge in both directions).
    #[arg(long)]
    pub undirected: bool,
    /// Convert weights to this type (lossy values are an error).
    #[arg(long, value_name = "TYPE", value_parser = choice::<WeightType>(WeightType::ALL.iter().map(|t| t.name())))]
    pub weight_type: Option<WeightType>,
    /// Self loops in the input.
    #[arg(long, default_value = "keep", value_name = "POLICY", value_parser = choice::<SelfLoops>(SelfLoops::ALL.iter().map(|p| p.name())))]
    pub self_loops: SelfLoops,
    /// Parallel edges in the input: keep all, drop repeats, or keep the lightest (min).
    #[arg(long, default_value = "keep", value_name = "POLICY", value_parser = choice::<Duplicates>(Duplicates::ALL.iter().map(|p| p.name())))]
    pub duplicates: Duplicates,
    /// Edge-list vertex ids: auto (renumber sparse ids, keep the mapping) or dense.
    #[arg(long, default_value = "auto", value_parser = choice::<IdMode>(IdMode::ALL.iter().map(|m| m.name())))]
    pub ids: IdMode,
}

impl ReadArgs {
    /// The library's read options.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format,
            weight_type: self.weight_type,
            undirected: self.undirected,
            self_loops: self.self_loops,
            duplicates: self.duplicates,
            ids: self.ids,
        }
    }
}

/// File size in bytes, 0 when unknown.
pub fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// `1234567` as `1,234,567`.
pub fn commas(x: u64) -> String {
    let s = x.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
