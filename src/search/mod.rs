//! Search: PUCT Monte-Carlo tree search over steps, batched across many trees, with a
//! Gumbel root as the other way to spend the root's budget (`docs/search.md`).

pub mod agents;
pub mod config;
pub mod gumbel;
pub mod mcts;
pub mod root;
pub mod solve;
