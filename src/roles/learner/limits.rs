//! When the learner stops: a step target and a time budget, and how far through them it is
//! (the learning rate's decay and the progress line's ETA read it). The budget counts wall
//! minutes, or the process's CPU minutes (all its threads: a local run's self-play and
//! learner), which a shared machine's load does not stretch.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::train::TrainConfig;
use crate::util::process_cpu_seconds;

/// What a time budget counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// Wall-clock minutes.
    #[default]
    Wall,
    /// The process's CPU minutes, all threads together.
    Cpu,
}

impl Clock {
    /// Its name, as the command line takes it.
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        }
    }

    /// What its minutes are, in words: "wall minutes" or "CPU minutes".
    pub fn minutes_word(self) -> &'static str {
        match self {
            Clock::Wall => "wall minutes",
            Clock::Cpu => "CPU minutes",
        }
    }
}

/// When the learner stops: a step target and a time budget, either optional.
#[derive(Clone, Copy, Debug)]
pub struct StepLimits {
    /// Stop at this step.
    pub target: Option<u64>,
    clock: Clock,
    /// Reads the process's CPU seconds (a stand-in in tests).
    read_cpu: fn() -> Option<f64>,
    started: Instant,
    cpu_started: f64,
    budget: Option<Duration>,
    /// Time of the same budget spent before this invocation (a resumed benchmark): the
    /// budget's share counts it, so the learning rate's decay carries on where it was.
    spent: Duration,
}

impl StepLimits {
    /// `max_steps` (default: `train.iterations` × `steps_per_iteration`, none when 0) and
    /// `max_minutes` of wall time from now (default `train.max_minutes`; 0: none).
    pub fn new(train: &TrainConfig, max_steps: Option<u64>, max_minutes: Option<f64>) -> Self {
        let target = max_steps
            .or((train.iterations > 0).then(|| train.iterations * train.steps_per_iteration));
        let minutes = max_minutes.unwrap_or(train.max_minutes);
        StepLimits {
            target,
            clock: Clock::Wall,
            read_cpu: process_cpu_seconds,
            started: Instant::now(),
            cpu_started: process_cpu_seconds().unwrap_or(0.0),
            budget: (minutes > 0.0).then(|| Duration::from_secs_f64(minutes * 60.0)),
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

    /// The same limits, their time budget (and what was spent of it) counted on `clock`.
    pub fn on_clock(self, clock: Clock) -> Self {
        StepLimits { clock, ..self }
    }

    /// The same limits, reading CPU seconds from `read_cpu` (from now).
    #[cfg(test)]
    fn reading_cpu(self, read_cpu: fn() -> Option<f64>) -> Self {
        let cpu_started = read_cpu().unwrap_or(0.0);
        StepLimits {
            read_cpu,
            cpu_started,
            ..self
        }
    }

    /// The budget's time used by this invocation so far, on its clock.
    fn used(&self) -> Duration {
        match self.clock {
            Clock::Wall => self.started.elapsed(),
            Clock::Cpu => {
                let now = (self.read_cpu)().unwrap_or(self.cpu_started);
                Duration::from_secs_f64((now - self.cpu_started).max(0.0))
            }
        }
    }

    /// How far through its budget the run is at `step` (0..=1): the larger of the step
    /// target's share and the time budget's; `None` without a limit.
    pub fn budget_spent(&self, step: u64) -> Option<f64> {
        let by_steps = self.target.map(|t| step as f64 / t.max(1) as f64);
        let by_time = self.budget.map(|budget| {
            let spent = self.spent.as_secs_f64();
            (spent + self.used().as_secs_f64()) / (spent + budget.as_secs_f64()).max(1e-9)
        });
        let spent_share = match (by_steps, by_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        spent_share.map(|p| p.clamp(0.0, 1.0))
    }

    /// The wall time left at `step`, training `steps_per_s`: the sooner of the time
    /// budget's end (a CPU budget at the CPU rate so far) and the step target at that rate;
    /// `None` without a limit (or a rate for the target).
    pub fn time_left(&self, step: u64, steps_per_s: f64) -> Option<Duration> {
        let by_time = self.budget.map(|budget| {
            let used = self.used();
            let left = budget.saturating_sub(used);
            match self.clock {
                Clock::Wall => left,
                Clock::Cpu => {
                    let wall = self.started.elapsed().as_secs_f64();
                    let rate = used.as_secs_f64() / wall.max(1e-9);
                    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                    let rate = if rate > 0.05 { rate } else { cores as f64 };
                    Duration::from_secs_f64(left.as_secs_f64() / rate)
                }
            }
        });
        let by_steps = self
            .target
            .filter(|_| steps_per_s > 0.0)
            .map(|t| Duration::from_secs_f64(t.saturating_sub(step) as f64 / steps_per_s));
        match (by_time, by_steps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True once `step` reaches the target or the time budget is spent.
    pub fn reached(&self, step: u64) -> bool {
        self.target.is_some_and(|t| step >= t) || self.budget.is_some_and(|b| self.used() >= b)
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

    /// The CPU seconds the stand-in clock reads, in milliseconds.
    static CPU_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(10_000);

    fn stand_in_cpu() -> Option<f64> {
        Some(CPU_MS.load(std::sync::atomic::Ordering::SeqCst) as f64 / 1000.0)
    }

    #[test]
    fn a_cpu_budget_counts_cpu_time_not_the_wall_clock() {
        use std::sync::atomic::Ordering::SeqCst;
        let train = TrainConfig::default();
        // 90 CPU seconds left of a budget of 120, 30 spent before.
        let limits = StepLimits::new(&train, None, Some(1.5))
            .with_spent(0.5)
            .on_clock(Clock::Cpu)
            .reading_cpu(stand_in_cpu);
        // Wall time passes, no CPU time: nothing spent.
        std::thread::sleep(Duration::from_millis(300));
        assert!(!limits.reached(0));
        assert_eq!(limits.budget_spent(0), Some(0.25));
        // 45 CPU seconds: halfway through what is left, at 150 CPU seconds a wall second.
        CPU_MS.fetch_add(45_000, SeqCst);
        assert_eq!(limits.budget_spent(0), Some(0.625));
        let left = limits.time_left(0, 0.0).unwrap().as_secs_f64();
        assert!(left < 1.0, "45 CPU s at >= 45 CPU s a wall second: {left}");
        CPU_MS.fetch_add(45_000, SeqCst);
        assert!(limits.reached(0));
        assert_eq!(limits.budget_spent(0), Some(1.0));
        // On the wall clock the same limits are not spent.
        let wall = StepLimits::new(&train, None, Some(1.5)).reading_cpu(stand_in_cpu);
        assert!(!wall.reached(0));
    }
}
