//! The command line, the docs, the import order and the libtorch link.
//! One test binary (one link of libtorch), a module per part.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod cli_match;
mod docs;
mod imports;
mod libtorch_link;
