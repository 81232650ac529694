//! Self-play: workers that play many games at once through MCTS and the batched evaluator,
//! and the game records they write.

pub mod diversity;
pub mod opening;
pub mod pool;
pub mod proven;
pub mod reanalyse;
pub mod record;
pub mod resign;
pub mod samples;
pub mod show;
pub mod worker;
