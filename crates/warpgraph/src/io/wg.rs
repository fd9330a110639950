//! Placeholder: being implemented.

use std::io::Write;
use std::sync::Arc;

use super::{ReadContext, WriteContext};
use crate::error::{Error, Result};
use crate::graph::Graph;

/// The first bytes of every `.wg` file.
pub const MAGIC: &[u8; 8] = b"WARPGRPH";

/// Loads a `.wg` file from a memory map.
pub fn read_map(_map: Arc<memmap2::Mmap>, _cx: &ReadContext<'_>) -> Result<Graph> {
    Err(Error::Unsupported(
        "wg reading is not implemented yet".into(),
    ))
}

/// Loads a `.wg` image from bytes (copied).
pub fn read_bytes(_data: &[u8], _cx: &ReadContext<'_>) -> Result<Graph> {
    Err(Error::Unsupported(
        "wg reading is not implemented yet".into(),
    ))
}

/// Writes a `.wg` file.
pub fn write(_g: &Graph, _out: &mut dyn Write, _cx: &WriteContext<'_>) -> Result<()> {
    Err(Error::Unsupported(
        "wg writing is not implemented yet".into(),
    ))
}
