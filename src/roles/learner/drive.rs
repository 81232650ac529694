//! The one loop that drives a learner, for `learn` (the learner alone) and `train` (with
//! self-play and the evaluation role beside it in the same process): take in, train, publish each
//! iteration's checkpoint and metrics, show progress, until a limit or a stop.

use std::time::{Duration, Instant};

use super::limits::StepLimits;
use super::metrics::SelfPlayRates;
use super::progress::Progress;
use super::LearnerRole;
use crate::metrics::MetricsLine;
use crate::net::encode::Encode;
use crate::roles::{RoleError, StopFlag};

/// What runs beside the learner in its process, as the loop sees it: nothing for `learn`
/// ([`Alone`]), self-play for `train`.
pub trait Beside {
    /// True once it ended by itself (only on an error, which its owner reports).
    fn ended(&self) -> bool;
    /// A metrics line for the learner's log, once (self-play's precision choice).
    fn take_metrics_line(&mut self) -> Option<MetricsLine>;
    /// Its rates since the previous call, `seconds` ago.
    fn rates(&mut self, seconds: f64) -> Option<SelfPlayRates>;
    /// Positions played and games finished so far, if it plays.
    fn played(&self) -> Option<(u64, u64)>;
}

/// The learner alone (`learn`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Beside for Alone {
    fn ended(&self) -> bool {
        false
    }
    fn take_metrics_line(&mut self) -> Option<MetricsLine> {
        None
    }
    fn rates(&mut self, _seconds: f64) -> Option<SelfPlayRates> {
        None
    }
    fn played(&self) -> Option<(u64, u64)> {
        None
    }
}

/// Drives `role` until `limits`, a `stop`, `beside` ending, or (with `idle_exit`) that many
/// seconds without a new shard while the window allows no step. The caller then finishes
/// the role ([`LearnerRole::finish`]).
pub fn drive<S: Encode>(
    role: &mut LearnerRole<S>,
    limits: &StepLimits,
    stop: &StopFlag,
    beside: &mut impl Beside,
    progress: &mut Progress,
    idle_exit: Option<f64>,
) -> Result<(), RoleError> {
    let mut last_new = Instant::now();
    while !stop.raised() && !limits.reached(role.step()) && !beside.ended() {
        if let Some(line) = beside.take_metrics_line() {
            role.log_line(line)?;
        }
        role.follow(limits);
        let tick = role.tick()?;
        if tick.shards > 0 {
            last_new = Instant::now();
        }
        if let Some(iteration) = &tick.iteration {
            let rates = beside.rates(iteration.seconds());
            role.report(iteration, rates.as_ref())?;
            progress.iteration(&role.snapshot(beside.played()));
        }
        if !tick.trained {
            if idle_exit.is_some_and(|s| last_new.elapsed().as_secs_f64() >= s) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        progress.update(&role.snapshot(beside.played()));
    }
    Ok(())
}
