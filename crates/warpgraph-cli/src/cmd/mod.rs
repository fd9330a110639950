//! One module per command.

pub mod convert;
pub mod demo;
pub mod generate;
pub mod info;
