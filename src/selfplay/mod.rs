//! Self-play: workers that play many games at once through MCTS and the batcher, and the
//! game records they write. Its modules:
//!
//! - [`worker`]: one thread playing many games at once; [`pool`]: batcher instances and a
//!   pool of workers, fed new weights while they run;
//! - [`opening`]: how a game opens; [`resign`]: resignation and its calibration;
//!   [`reanalyse`]: recent games re-searched with the newest net;
//!   [`proven`]: proven value targets from the solver;
//! - [`record`]: the game records self-play and matches write; [`show`]: `games show`;
//! - [`samples`]: a finished game as the learner takes it (its training samples);
//!   [`diversity`]: how varied the newest games are.

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
