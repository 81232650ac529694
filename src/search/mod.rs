//! Search: PUCT Monte-Carlo tree search over steps, batched across many trees, with a
//! Gumbel root as the other way to spend the root's budget (`docs/search.md`). Imports run
//! one way: `rollout <- tree <- root <- {puct, gumbel} <- {run, lines} <- {think, agents}`,
//! with `setup` beside `run`; `sample` and `solve` are leaves.
//!
//! [`tree`]: the tree; [`root`], [`puct`], [`gumbel`], [`lines`] (an analysis's engine
//! lines): what a search does at its root; [`setup`]: their settings from the run's;
//! [`run`]: the one search loop; [`think`]: a whole turn chosen; [`agents`]: anything that
//! picks a step; [`rollout`]: random playouts; [`sample`]: the temperature sampler;
//! [`solve`]: the exact solver.

pub mod agents;
pub mod gumbel;
pub mod lines;
pub mod puct;
pub mod rollout;
pub mod root;
pub mod run;
pub mod sample;
pub mod setup;
pub mod solve;
pub mod think;
pub mod tree;
