//! Minimum spanning forests on the CPU.
//!
//! - [`kruskal`]: the serial baseline (a parallel sort, then one union-find pass);
//! - [`boruvka`]: parallel rounds of "every tree takes its lightest outgoing edge".
//!
//! Both return the identical forest (see the [order](super) the family documents), as
//! does the GPU backend, [`crate::mst::cuda`].

mod boruvka;
mod kruskal;

pub use boruvka::boruvka;
pub use kruskal::kruskal;
