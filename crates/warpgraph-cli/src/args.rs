//! Options shared by several commands.

use std::path::Path;

use clap::{Args, ValueEnum};
use warpgraph::io::{Format, IdMode, ReadOptions};
use warpgraph::{Duplicates, SelfLoops, WeightType};

/// What to do with self loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LoopsArg {
    /// Keep them.
    Keep,
    /// Remove them.
    Drop,
}

impl From<LoopsArg> for SelfLoops {
    fn from(a: LoopsArg) -> Self {
        match a {
            LoopsArg::Keep => SelfLoops::Keep,
            LoopsArg::Drop => SelfLoops::Drop,
        }
    }
}

/// What to do with parallel edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DupsArg {
    /// Keep every copy.
    Keep,
    /// Keep the first in input order.
    Drop,
    /// Keep the lightest.
    Min,
}

impl From<DupsArg> for Duplicates {
    fn from(a: DupsArg) -> Self {
        match a {
            DupsArg::Keep => Duplicates::Keep,
            DupsArg::Drop => Duplicates::Drop,
            DupsArg::Min => Duplicates::KeepLightest,
        }
    }
}

/// Weight types for `--weight-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightTypeArg {
    /// Drop the weights.
    None,
    /// 32-bit integers.
    I32,
    /// 64-bit integers.
    I64,
    /// 32-bit floats.
    F32,
    /// 64-bit floats.
    F64,
}

impl From<WeightTypeArg> for WeightType {
    fn from(a: WeightTypeArg) -> Self {
        match a {
            WeightTypeArg::None => WeightType::None,
            WeightTypeArg::I32 => WeightType::I32,
            WeightTypeArg::I64 => WeightType::I64,
            WeightTypeArg::F32 => WeightType::F32,
            WeightTypeArg::F64 => WeightType::F64,
        }
    }
}

/// File formats for `--format` / `--to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// DIMACS shortest-path .gr
    Gr,
    /// Matrix Market .mtx
    Mtx,
    /// Edge list .el (u v)
    El,
    /// Weighted edge list .wel (u v w)
    Wel,
    /// SNAP edge list .txt
    Snap,
    /// METIS .graph
    Metis,
    /// warpgraph binary .wg
    Wg,
}

impl From<FormatArg> for Format {
    fn from(a: FormatArg) -> Self {
        match a {
            FormatArg::Gr => Format::Dimacs,
            FormatArg::Mtx => Format::Mtx,
            FormatArg::El => Format::El,
            FormatArg::Wel => Format::Wel,
            FormatArg::Snap => Format::Snap,
            FormatArg::Metis => Format::Metis,
            FormatArg::Wg => Format::Wg,
        }
    }
}

/// Edge-list id handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdsArg {
    /// Use ids as they are when they fill a range, else renumber and keep the mapping.
    Auto,
    /// Ids are vertex numbers 0..=max; missing ids are isolated vertices.
    Dense,
}

/// How to read an input graph.
#[derive(Debug, Clone, Args)]
pub struct ReadArgs {
    /// Input format, when the extension does not say or is wrong.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,
    /// Treat the input as undirected (store each edge in both directions).
    #[arg(long)]
    pub undirected: bool,
    /// Convert weights to this type (lossy values are an error).
    #[arg(long, value_enum, value_name = "TYPE")]
    pub weight_type: Option<WeightTypeArg>,
    /// Self loops in the input.
    #[arg(long, value_enum, default_value = "keep", value_name = "POLICY")]
    pub self_loops: LoopsArg,
    /// Parallel edges in the input: keep all, drop repeats, or keep the lightest (min).
    #[arg(long, value_enum, default_value = "keep", value_name = "POLICY")]
    pub duplicates: DupsArg,
    /// Edge-list vertex ids: auto (renumber sparse ids, keep the mapping) or dense.
    #[arg(long, value_enum, default_value = "auto")]
    pub ids: IdsArg,
}

impl ReadArgs {
    /// The library's read options.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format.map(Into::into),
            weight_type: self.weight_type.map(Into::into),
            undirected: self.undirected,
            self_loops: self.self_loops.into(),
            duplicates: self.duplicates.into(),
            ids: match self.ids {
                IdsArg::Auto => IdMode::Auto,
                IdsArg::Dense => IdMode::Dense,
            },
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
