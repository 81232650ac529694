//! One training step of the learner's loop, and the iteration it counts towards (a
//! checkpoint ends every iteration).

use std::time::{Duration, Instant};

use super::intake::IntakeTally;
use crate::net::encode::Encode;
use crate::train::learner::Learner;
use crate::train::trainer::StepStats;

/// One iteration of training: its steps, losses and intake.
#[derive(Debug)]
pub struct Iteration {
    started: Instant,
    /// What was taken in during it.
    pub intake: IntakeTally,
    /// Training steps.
    pub steps: u64,
    /// Time spent in training steps.
    pub(super) train_time: Duration,
    /// Losses summed over its steps.
    pub(super) losses: StepStats,
}

impl Iteration {
    /// An iteration starting now.
    pub(super) fn new() -> Iteration {
        Iteration {
            started: Instant::now(),
            intake: IntakeTally::default(),
            steps: 0,
            train_time: Duration::ZERO,
            losses: StepStats::default(),
        }
    }

    /// Wall time since it began (seconds).
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64().max(1e-9)
    }

    /// Its losses averaged over its steps.
    pub fn mean_losses(&self) -> StepStats {
        self.losses.scaled(self.steps as f64)
    }
}

/// What one turn of the learner's loop did.
#[derive(Debug, Default)]
pub struct Tick {
    /// Shards taken in.
    pub shards: u64,
    /// True if it trained a step.
    pub trained: bool,
    /// The loss of that step.
    pub loss: f64,
    /// The iteration that step completed (a checkpoint was published).
    pub iteration: Option<Iteration>,
}

/// Trains one step of `learner` if the replay ratio allows, counting it in `iteration`;
/// returns its loss.
pub(super) fn step_if_allowed<S: Encode>(
    learner: &mut Learner<S>,
    iteration: &mut Iteration,
) -> Option<f64> {
    if !learner.ready() {
        return None;
    }
    let started = Instant::now();
    let stats = learner.step();
    iteration.train_time += started.elapsed();
    iteration.losses.add(&stats);
    iteration.steps += 1;
    Some(stats.total_loss)
}

/// True when the learner's step ends an iteration: a checkpoint is due.
pub(super) fn ends_iteration<S: Encode>(learner: &Learner<S>) -> bool {
    learner
        .state
        .step
        .is_multiple_of(learner.config.train.steps_per_iteration)
}
