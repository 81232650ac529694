//! Nets, searches, matches, exports and self-play's diversity.
//! One test binary (one link of libtorch), a module per part.

#[path = "../common/mod.rs"]
mod common;

mod agents_strength;
mod diversity;
mod eval_match;
mod export;
mod net;
mod search;
