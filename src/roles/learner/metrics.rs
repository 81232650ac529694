//! The learner's metrics: each iteration's `train`, `intake` and (with self-play in the
//! same process) `selfplay` lines in `learner/metrics.jsonl`, each checkpoint's `resources`
//! line, and lines other parts hand it (self-play's precision choice). The lines' types:
//! [`crate::metrics`].

use super::intake::IntakeTally;
use super::step::Iteration;
use super::LearnerRole;
use crate::metrics::{IntakeLine, MetricsLine, ResourcesLine, SelfPlayLine, TrainLine};
use crate::net::encode::Encode;
use crate::roles::RoleError;
use crate::selfplay::worker::SearchCounts;
use crate::train::trainer::StepStats;
use crate::util::{dir_bytes, process_memory_kib};

/// Self-play's rates over an iteration, when self-play runs in the same process.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayRates {
    /// Positions played per second (searched or not).
    pub positions_per_s: f64,
    /// Positions the nets evaluated per second.
    pub net_positions_per_s: f64,
    /// Positions per forward pass.
    pub net_mean_batch: f64,
    /// Share of their lifetime the batchers spent in forward passes (0 to 1).
    pub net_busy: f64,
    /// What the searches asked of the net over the same time.
    pub searches: SearchCounts,
}

impl<S: Encode> LearnerRole<S> {
    /// Writes one more metrics line (self-play's precision choice, say), at the current step.
    pub fn log_line(&self, line: MetricsLine) -> Result<(), RoleError> {
        self.metrics.append(&line.at_step(self.learner.state.step))
    }

    /// Writes an iteration's metrics: training, intake and, when given, self-play's rates.
    pub fn report(
        &self,
        iteration: &Iteration,
        selfplay: Option<&SelfPlayRates>,
    ) -> Result<(), RoleError> {
        let batch = self.learner.config.train.batch_size as f64;
        let train_seconds = iteration.train_time.as_secs_f64().max(1e-9);
        let samples_per_s = iteration.steps as f64 * batch / train_seconds;
        let losses = iteration.mean_losses();
        let mut lines = vec![
            MetricsLine::Train(self.train_line(&losses, samples_per_s)),
            MetricsLine::Intake(self.intake_line(&iteration.intake, iteration.seconds())),
        ];
        if let Some(rates) = selfplay {
            lines.push(MetricsLine::SelfPlay(self.selfplay_line(rates)));
        }
        for line in &lines {
            self.metrics.append(line)?;
        }
        Ok(())
    }

    /// The `train` line of an iteration (losses averaged over its steps).
    fn train_line(&self, losses: &StepStats, samples_per_s: f64) -> TrainLine {
        let learner = &self.learner;
        let state = &learner.state;
        TrainLine {
            step: state.step,
            iteration: state.step / learner.config.train.steps_per_iteration,
            elapsed_s: state.elapsed_s,
            cpu_s: state.cpu_s,
            policy_loss: losses.policy_loss,
            value_loss: losses.value_loss,
            moves_left_loss: losses.moves_left_loss,
            total_loss: losses.total_loss,
            policy_entropy: losses.policy_entropy,
            learning_rate: learner.optimizer.learning_rate,
            samples_per_s,
            window: learner.window.len(),
            samples_trained: state.samples_trained,
        }
    }

    /// The `resources` line, written at each checkpoint: this process's memory now and at
    /// its peak (KiB), for a run on the local disk the bytes its directory holds, and the
    /// game files retention `deleted` at this checkpoint.
    pub(super) fn resources_line(&self, deleted: u64) -> MetricsLine {
        let state = &self.learner.state;
        let memory = process_memory_kib();
        let disk = self.store.local_dir().and_then(|dir| dir_bytes(dir).ok());
        MetricsLine::Resources(ResourcesLine {
            step: state.step,
            elapsed_s: state.elapsed_s,
            cpu_s: state.cpu_s,
            rss_kib: memory.map(|m| m.0),
            peak_rss_kib: memory.map(|m| m.1),
            run_disk_bytes: disk,
            games_deleted: deleted,
        })
    }

    /// The `selfplay` line of an iteration.
    fn selfplay_line(&self, rates: &SelfPlayRates) -> SelfPlayLine {
        let state = &self.learner.state;
        SelfPlayLine {
            step: state.step,
            elapsed_s: state.elapsed_s,
            positions_per_s: rates.positions_per_s,
            net_positions_per_s: rates.net_positions_per_s,
            net_mean_batch: rates.net_mean_batch,
            net_busy: rates.net_busy,
            net_calls_per_searched_step: rates.searches.net_calls_per_searched_step(),
            forced_leaf_share: rates.searches.forced_leaf_share(),
            reanalysed_searches: rates.searches.reanalysed,
        }
    }

    /// The `intake` line of an iteration: what came in and how the games went.
    fn intake_line(&self, t: &IntakeTally, seconds: f64) -> IntakeLine {
        let (state, learner) = (&self.learner.state, &self.learner);
        let rate = |wrong: u64, would: u64| (would > 0).then(|| wrong as f64 / would as f64);
        let false_resign_rate = rate(
            t.false_resign.iter().sum(),
            t.would_resign.iter().sum::<u64>(),
        );
        IntakeLine {
            step: state.step,
            elapsed_s: state.elapsed_s,
            shards: t.shards,
            games: t.games,
            samples: t.samples,
            reanalysed_games: t.reanalysed,
            reanalysed_samples: t.reanalysed_samples,
            proven_samples: t.proven_samples,
            shards_per_s: t.shards as f64 / seconds,
            games_per_s: t.games as f64 / seconds,
            samples_per_s: t.samples as f64 / seconds,
            games_total: learner.games_total,
            samples_total: learner.samples_total,
            mean_game_steps: t.game_steps as f64 / t.games.max(1) as f64,
            wins_side0: t.wins[0],
            wins_side1: t.wins[1],
            draws: t.draws,
            resigned: t.resigned,
            played_through: t.played_through,
            false_resign_rate,
            resigned_side0: t.resigned_by[0],
            resigned_side1: t.resigned_by[1],
            would_resign_side0: t.would_resign[0],
            would_resign_side1: t.would_resign[1],
            false_resign_rate_side0: rate(t.false_resign[0], t.would_resign[0]),
            false_resign_rate_side1: rate(t.false_resign[1], t.would_resign[1]),
            resign_threshold_side0: t.resign_threshold[0],
            resign_threshold_side1: t.resign_threshold[1],
            sessions: state.consumed.len(),
            rejected_shards: self.intake.total.rejected,
            diversity: self
                .intake
                .diversity
                .report(learner.window.repeated_share()),
        }
    }
}
