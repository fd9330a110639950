//! BFS on the CPU: every core through rayon.
//!
//! One variant, [`direction_optimizing`]; its [`Direction`](super::Direction) option forces
//! pure top-down or pure bottom-up steps. The GPU backends are in [`super::cuda`].

mod direction_optimizing;

pub use direction_optimizing::{direction_optimizing, direction_optimizing_into};
