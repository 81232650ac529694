//! Search: PUCT Monte-Carlo tree search over steps, batched across many trees, with a
//! Gumbel root as the other way to spend the root's budget (`docs/search.md`). Imports run
//! one way: `rollout <- tree <- root <- {puct, gumbel} <- config <- run <- {think, agents}`; `sample` is a
//! leaf.

pub mod agents;
pub mod config;
pub mod gumbel;
pub mod puct;
pub mod rollout;
pub mod root;
pub mod run;
pub mod sample;
pub mod solve;
pub mod think;
pub mod tree;
