//! Search: PUCT Monte-Carlo tree search over steps, batched across many trees.

pub mod mcts;
