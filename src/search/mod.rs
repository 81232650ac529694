//! Search: PUCT Monte-Carlo tree search over steps, batched across many trees.

pub mod agents;
pub mod gumbel;
pub mod mcts;
