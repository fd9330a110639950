//! Placeholder: being implemented.

use std::io::Write;

use super::{ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::Graph;

/// Parses the format.
pub fn read(_data: &[u8], _cx: &ReadContext<'_>) -> Result<Graph> {
    Err(Error::Unsupported(
        "mtx reading is not implemented yet".into(),
    ))
}

/// Writes the format.
pub fn write(_g: &Graph, _out: &mut dyn Write, _cx: &WriteContext<'_>) -> Result<()> {
    Err(Error::Unsupported(
        "mtx writing is not implemented yet".into(),
    ))
}
