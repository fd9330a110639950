//! One module per command.

pub mod apsp;
pub mod bench;
pub mod bfs;
pub mod bfs_common;
pub mod centrality;
pub mod common;
pub mod convert;
pub mod demo;
pub mod devices;
pub mod distances;
pub mod generate;
pub mod info;
pub mod mst;
pub mod reproduce;
pub mod sssp;
pub mod team;
pub mod trials;
