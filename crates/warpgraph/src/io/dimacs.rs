//! Placeholder: being implemented.

use std::io::Write;

use super::{ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::Graph;

/// Parses the format.
pub fn read(_data: &[u8], _cx: &ReadContext<'_>) -> Result<Graph> {
    Err(Error::Unsupported(
        "dimacs reading is not implemented yet".into(),
    ))
}

/// Writes the format.
pub fn write(_g: &Graph, _out: &mut dyn Write, _cx: &WriteContext<'_>) -> Result<()> {
    Err(Error::Unsupported(
        "dimacs writing is not implemented yet".into(),
    ))
}

/// Reads a `.ss` source file: the file ids of the sources, in order.
pub fn read_sources(_data: &[u8], _path: &std::path::Path) -> Result<Vec<u64>> {
    Err(Error::Unsupported(
        ".ss reading is not implemented yet".into(),
    ))
}

/// Writes a `.ss` source file for a graph named `graph_name`.
pub fn write_sources(_sources: &[u64], _out: &mut dyn Write, _cx: &WriteContext<'_>) -> Result<()> {
    Err(Error::Unsupported(
        ".ss writing is not implemented yet".into(),
    ))
}
