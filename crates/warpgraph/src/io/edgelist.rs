//! Placeholder: being implemented.

use std::io::Write;

use super::{Format, ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::Graph;

/// Parses an edge list.
pub fn read(_data: &[u8], _cx: &ReadContext<'_>) -> Result<Graph> {
    Err(Error::Unsupported(
        "edge list reading is not implemented yet".into(),
    ))
}

/// Writes an edge list.
pub fn write(_g: &Graph, _f: Format, _out: &mut dyn Write, _cx: &WriteContext<'_>) -> Result<()> {
    Err(Error::Unsupported(
        "edge list writing is not implemented yet".into(),
    ))
}
