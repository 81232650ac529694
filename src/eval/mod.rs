//! Evaluation: measuring strength. Its modules:
//!
//! - [`arena`]: matches between agents; [`spec`]: agent specs as written on the command
//!   line; [`openings`]: opening suites;
//! - [`elo`]: Elo estimates; [`pairs`]: paired games; [`sprt`]: the sequential probability
//!   ratio test;
//! - [`ratings`]: a run's checkpoints rated; [`losses`]: the training losses' plot;
//!   [`plot`]: PNG line charts;
//! - [`periodic`]: the periodic evaluation of new checkpoints during training;
//! - [`probe`]: probe sets with proven labels;
//! - [`command`]: `match`, `openings` and `ratings`.

pub mod arena;
pub mod command;
pub mod elo;
pub mod losses;
pub mod openings;
pub mod pairs;
pub mod periodic;
pub mod plot;
pub mod probe;
pub mod ratings;
pub mod spec;
pub mod sprt;

use std::path::PathBuf;

use crate::net::NetError;

/// Everything that can go wrong setting up or recording a match.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// An agent spec that does not parse.
    #[error(transparent)]
    Spec(#[from] spec::SpecError),
    /// A model that cannot be found or loaded for this game.
    #[error("agent {spec}: {cause}")]
    Model {
        /// The agent's spec.
        spec: String,
        /// The cause (in the message, not chained, so it is printed once).
        cause: NetError,
    },
    /// A path that names no model.
    #[error("agent {spec}: {reason}")]
    NoModel {
        /// The agent's spec.
        spec: String,
        /// What was looked for.
        reason: String,
    },
    /// An agent failed during a game (its net did): the match stops.
    #[error("agent {spec} failed in game {game}: {cause}")]
    Play {
        /// The agent's spec.
        spec: String,
        /// The game's index.
        game: u64,
        /// What failed.
        cause: NetError,
    },
    /// Settings that cannot make a match.
    #[error("bad match settings: {0}")]
    Settings(String),
    /// A run's config that cannot be read.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A run's record (a checkpoint's state) that cannot be read.
    #[error(transparent)]
    State(#[from] crate::layout::state::StateError),
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}
