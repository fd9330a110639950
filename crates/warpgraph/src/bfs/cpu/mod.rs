//! BFS on the CPU: every core through rayon.
//!
//! One variant, [`direction_optimizing`]; its [`Direction`](super::Direction) option forces
//! pure top-down or pure bottom-up steps. [`multi_source_bfs`] takes up to 64 sources in one
//! pass (distance tables of unweighted graphs). The GPU backends are in [`super::cuda`].

mod direction_optimizing;
mod multi_source;

pub use direction_optimizing::{direction_optimizing, direction_optimizing_into};
pub use multi_source::{multi_source_bfs, multi_source_bfs_until, WIDTH as MULTI_SOURCE_WIDTH};
