//! Minimum spanning forests on the CPU.
//!
//! - [`kruskal`]: the serial baseline (a parallel sort, then one union-find pass);
//! - [`boruvka`]: parallel rounds of "every tree takes its lightest outgoing edge".
//!
//! Both return the identical forest (see the [order](super) the family documents). A GPU
//! backend will add `mst::cuda` beside this module with the same variant names.

mod boruvka;
mod kruskal;

pub use boruvka::boruvka;
pub use kruskal::kruskal;
