//! When the learner stops: a step target and a deadline, and how far through them it is
//! (the learning rate's decay and the progress line's ETA read it).

use std::time::{Duration, Instant};

use crate::config::train::TrainConfig;

/// When the learner stops: a step target and a deadline, either optional.
#[derive(Clone, Copy, Debug)]
pub struct StepLimits {
    /// Stop at this step.
    pub target: Option<u64>,
    started: Instant,
    deadline: Option<Instant>,
    /// Time of the same budget spent before this invocation (a resumed benchmark): the
    /// deadline's share counts it, so the learning rate's decay carries on where it was.
    spent: Duration,
}

impl StepLimits {
    /// `max_steps` (default: `train.iterations` × `steps_per_iteration`, none when 0) and
    /// `max_minutes` from now (default `train.max_minutes`; 0: none).
    pub fn new(train: &TrainConfig, max_steps: Option<u64>, max_minutes: Option<f64>) -> Self {
        let target = max_steps
            .or((train.iterations > 0).then(|| train.iterations * train.steps_per_iteration));
        let minutes = max_minutes.unwrap_or(train.max_minutes);
        let started = Instant::now();
        StepLimits {
            target,
            started,
            deadline: (minutes > 0.0).then(|| started + Duration::from_secs_f64(minutes * 60.0)),
            spent: Duration::ZERO,
        }
    }

    /// The same limits, `spent_minutes` of whose time budget went by in earlier invocations.
    pub fn with_spent(self, spent_minutes: f64) -> Self {
        StepLimits {
            spent: Duration::from_secs_f64(spent_minutes.max(0.0) * 60.0),
            ..self
        }
    }

    /// How far through its budget the run is at `step` (0..=1): the larger of the step
    /// target's share and the deadline's; `None` without a limit.
    pub fn budget_spent(&self, step: u64) -> Option<f64> {
        let by_steps = self.target.map(|t| step as f64 / t.max(1) as f64);
        let by_time = self.deadline.map(|d| {
            let spent = self.spent.as_secs_f64();
            let whole = spent + d.duration_since(self.started).as_secs_f64();
            (spent + self.started.elapsed().as_secs_f64()) / whole.max(1e-9)
        });
        let spent_share = match (by_steps, by_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        spent_share.map(|p| p.clamp(0.0, 1.0))
    }

    /// The time left at `step`, training `steps_per_s`: the sooner of the deadline and the
    /// step target at that rate; `None` without a limit (or a rate for the target).
    pub fn time_left(&self, step: u64, steps_per_s: f64) -> Option<Duration> {
        let by_time = self
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        let by_steps = self
            .target
            .filter(|_| steps_per_s > 0.0)
            .map(|t| Duration::from_secs_f64(t.saturating_sub(step) as f64 / steps_per_s));
        match (by_time, by_steps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True once `step` reaches the target or the deadline has passed.
    pub fn reached(&self, step: u64) -> bool {
        self.target.is_some_and(|t| step >= t) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_is_the_sooner_of_the_deadline_and_the_step_target() {
        let train = TrainConfig {
            iterations: 10,
            steps_per_iteration: 100,
            ..TrainConfig::default()
        };
        let limits = StepLimits::new(&train, None, Some(60.0));
        assert_eq!(limits.target, Some(1000));
        // 500 steps left at 10 steps/s: 50 s, well before the hour is out.
        let left = limits.time_left(500, 10.0).unwrap().as_secs_f64();
        assert!((49.0..=50.0).contains(&left), "{left}");
        // No rate yet: the deadline.
        let left = limits.time_left(0, 0.0).unwrap().as_secs_f64();
        assert!((3590.0..=3600.0).contains(&left), "{left}");
        let unlimited = StepLimits::new(&TrainConfig::default(), None, Some(0.0));
        assert_eq!(unlimited.time_left(5, 1.0), None);
        assert_eq!(unlimited.budget_spent(5), None);
        assert!(!unlimited.reached(u64::MAX));
    }

    /// How far a run with a step budget is through it; none without one.
    #[test]
    fn the_budget_spent_is_the_share_of_the_step_limit() {
        let train = TrainConfig::default();
        let limits = StepLimits::new(&train, Some(1_000), None);
        assert_eq!(limits.budget_spent(250), Some(0.25));
        assert_eq!(limits.budget_spent(5_000), Some(1.0));
        assert_eq!(StepLimits::new(&train, None, None).budget_spent(10), None);
    }

    #[test]
    fn a_resumed_budget_counts_the_time_spent_before() {
        let train = TrainConfig::default();
        // 15 of 60 minutes left after 45 spent: three quarters of the way.
        let resumed = StepLimits::new(&train, None, Some(15.0)).with_spent(45.0);
        let p = resumed.budget_spent(0).unwrap();
        assert!((0.749..0.751).contains(&p), "{p}");
        // The decay (the last 35% of the budget, down to a tenth) is under way: 1 - 0.9 *
        // (0.10 / 0.35) of the rate...
        let rate = train.learning_rate_at(0, Some(p)) / train.learning_rate;
        assert!((rate - (1.0 - 0.9 * 0.10 / 0.35)).abs() < 0.01, "{rate}");
        // ...where a fresh 15-minute budget starts at the full rate.
        let fresh = StepLimits::new(&train, None, Some(15.0))
            .budget_spent(0)
            .unwrap();
        assert_eq!(train.learning_rate_at(0, Some(fresh)), train.learning_rate);
    }
}
