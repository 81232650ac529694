//! checkers-zero: an AlphaZero-style self-play trainer for ReMATCH, HexDame and Eximo.
//!
//! The data flow runs one way: rules core ([`game`]) → search → self-play → training →
//! checkpoints → evaluation and export. The module map is `docs/architecture.md`.

pub mod bench;
pub mod config;
pub mod eval;
pub mod export;
pub mod game;
pub mod layout;
pub mod learning_bench;
pub mod metrics;
pub mod net;
pub mod roles;
pub mod rules_commands;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod store;
pub mod train;
pub mod util;
