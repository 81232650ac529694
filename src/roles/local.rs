//! The `train` command: the roles of a distributed run in one process, over the run
//! directory as a local store. Self-play ([`super::selfplay`]) plays on its own threads and
//! publishes shards; the learner ([`LearnerRole`], driven by the one loop of `learn`,
//! [`drive()`](crate::roles::learner::drive::drive)) takes them in on the calling thread and publishes checkpoints, which self-play
//! reads where they were written; with `evaluation.every > 0` the evaluation role
//! ([`EvaluationRole`]) plays each due checkpoint on a third thread. So a `train` run has the
//! layout of a distributed one (see [`super`]) and resumes the same way; `learn`,
//! `selfplay` and `evaluate` can take it over, and the other way round.
//!
//! A stop (the iteration target, the time limit, SIGINT or SIGTERM) stops self-play first
//! (its finished games are published), then the learner takes them in and publishes a
//! final checkpoint, then the evaluation role finishes: it evaluates the final checkpoint too if
//! it is due.

use std::path::PathBuf;
use std::time::Duration;

use super::evaluation::EvaluationRole;
use super::fork::{fork_run, ForkPoint};
use super::keeper::{lease_settings, LeaseKeeper};
use super::learner::{
    drive, run_config, Beside, Clock, LearnerRole, Printer, Progress, SelfPlayRates, StepLimits,
};
use super::lease::SingletonRole;
use super::selfplay::{new_session, play, PlayCounters, SelfPlayMonitor, SelfPlayOptions};
use super::{RoleError, StopFlag};
use crate::config::timings::RoleTimings;
use crate::config::RunConfig;
use crate::game::GameKind;
use crate::layout::{checkpoint_dir_key, CONFIG};
use crate::metrics::MetricsLine;
use crate::net::encode::Encode;
use crate::store::RunStore;
use crate::with_game;

/// What the `train` command was asked to do.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// The config file (needed to start a run; optional with `resume`).
    pub config: Option<PathBuf>,
    /// The run directory (default: `runs/<config name>-<unix time>`).
    pub run_dir: Option<PathBuf>,
    /// Continue the run in `run_dir` from its newest checkpoint that loads.
    pub resume: bool,
    /// Start the new run as a fork of a base run's checkpoint (see [`super::fork`]); its
    /// config is `config` if given, else the base's, with `set` over it.
    pub fork: Option<ForkPoint>,
    /// `KEY=VALUE` config overrides over `config` (or the fork's base config; or, on a
    /// resume, the run's own config from its newest checkpoint on).
    pub set: Vec<String>,
    /// Stop once this many iterations are done in total (overrides `train.iterations`).
    pub iterations: Option<u64>,
    /// Stop after this many minutes of this invocation (overrides `train.max_minutes`).
    pub minutes: Option<f64>,
    /// Minutes of the same time budget spent by earlier invocations (a resumed benchmark):
    /// the learning rate's decay counts them, so it goes on where it stopped.
    pub spent_minutes: f64,
    /// What `minutes` and `spent_minutes` count: wall minutes, or the process's CPU
    /// minutes (self-play's and the learner's threads together).
    pub clock: Clock,
    /// Rewrite the progress line in place (a terminal); else print it every `log_every`
    /// iterations (off in tests and when output is not a terminal).
    pub progress: bool,
    /// Iterations between progress lines in a log (0 counts as 1).
    pub log_every: u64,
    /// `--precision` and `--device` (over the config's, for this invocation only).
    pub net: crate::net::args::NetArgs,
}

/// What a `train` invocation did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// The run directory.
    pub run_dir: PathBuf,
    /// The game it trains.
    pub game: GameKind,
    /// The step the invocation started from.
    pub start_step: u64,
    /// The step it stopped at (a checkpoint exists for it).
    pub final_step: u64,
    /// The newest checkpoint.
    pub checkpoint: PathBuf,
    /// Games taken in by this invocation.
    pub games: u64,
    /// Training samples (fully searched positions) in them.
    pub samples: u64,
}

/// How the roles work together in one process.
const LOCAL: RoleTimings = RoleTimings::LOCAL;

/// The worker id of the self-play sessions.
const WORKER_ID: &str = "local";

/// Runs (or resumes) a training run.
pub fn train(options: &TrainOptions) -> Result<TrainSummary, RoleError> {
    let (run_dir, store, config, lease) = open_run(options)?;
    let location = store.location().to_string();
    let summary =
        with_game!(config.kind(), S => run::<S>(options, (store, lease), &location, &config))?;
    Ok(TrainSummary {
        game: config.kind(),
        checkpoint: run_dir.join(checkpoint_dir_key(summary.final_step)),
        run_dir,
        start_step: summary.start_step,
        final_step: summary.final_step,
        games: summary.games,
        samples: summary.samples,
    })
}

/// Opens the run directory as a store and reads the config it runs with: a new run
/// records the given config (a fork first copies its base's checkpoint), a resumed one must
/// have one (and a given config must match). Takes the learner's lease first: a second
/// process on the same run is refused before it writes anything.
fn open_run(
    options: &TrainOptions,
) -> Result<(PathBuf, RunStore, RunConfig, LeaseKeeper), RoleError> {
    let run_dir = match (&options.run_dir, options.resume) {
        (Some(dir), _) => dir.clone(),
        (None, true) => return Err(RoleError::Run("--resume needs --run-dir".into())),
        (None, false) => default_run_dir(options)?,
    };
    let recorded = run_dir.join(CONFIG).is_file();
    if options.resume && !recorded {
        return Err(RoleError::Run(format!(
            "{} holds no run to resume (no {CONFIG})",
            run_dir.display()
        )));
    }
    if !options.resume && recorded {
        return Err(RoleError::Run(format!(
            "{} already holds a run: pass --resume to continue it, or choose another --run-dir",
            run_dir.display()
        )));
    }
    // A shipped model's folder names the checkpoint it came from: resolved once, here.
    let fork = match &options.fork {
        Some(point) => Some(point.resolve().map_err(RoleError::Run)?),
        None => None,
    };
    // Read the config before the directory is made, so a bad one leaves nothing behind.
    let given = given_config(options, fork.as_ref())?;
    if !options.resume && given.is_none() {
        return Err(RoleError::Run("--config is needed to start a run".into()));
    }
    let location = run_dir
        .to_str()
        .ok_or_else(|| RoleError::Run(format!("{}: not a UTF-8 path", run_dir.display())))?;
    let store = RunStore::open(location)?;
    let (settings, _) = lease_settings(location, given.as_ref())?;
    let lease = LeaseKeeper::acquire(location, SingletonRole::Learner, &settings)?;
    let given = match (&fork, given) {
        (Some(point), Some(config)) if !recorded => {
            let record = fork_run(point, &store, &config)?;
            eprintln!(
                "forked {} at step {} ({} shards taken in by then)",
                record.base, record.step, record.shards
            );
            None
        }
        (_, given) => given,
    };
    if options.resume && !options.set.is_empty() {
        eprintln!(
            "{}",
            super::settings::change_settings(&store, &options.set)?
        );
    }
    // Read after the fork, which stores the forked run's config, and after a change.
    let mut config = run_config(&store, store.get_text(CONFIG)?, given, &options.net)?;
    options.net.apply_to(&mut config);
    Ok((run_dir, store, config, lease))
}

/// The config given to start a run: `--config`, else the config of the (resolved) `fork`'s
/// base, with `--set` over it; `None` when neither is given (a resume, whose `--set`
/// [`super::settings::change_settings`] puts over the run's own config).
fn given_config(
    options: &TrainOptions,
    fork: Option<&ForkPoint>,
) -> Result<Option<RunConfig>, RoleError> {
    let base = fork
        .filter(|_| options.config.is_none())
        .map(|point| point.base.join(CONFIG));
    if let Some(path) = base.as_ref().filter(|p| !p.is_file()) {
        return Err(RoleError::Run(format!(
            "{} holds no run to fork (no {CONFIG})",
            path.parent().unwrap_or(path).display()
        )));
    }
    match options.config.clone().or(base) {
        Some(path) => Ok(Some(RunConfig::load_with(&path, &options.set)?)),
        None if options.set.is_empty() || options.resume => Ok(None),
        None => Err(RoleError::Run(
            "--set changes a config: give --config, --fork or --resume with it".into(),
        )),
    }
}

/// `runs/<config name>-<unix time>`.
fn default_run_dir(options: &TrainOptions) -> Result<PathBuf, RoleError> {
    let named = match (&options.config, &options.fork) {
        (Some(config), _) => config.file_stem(),
        (None, Some(point)) => point.base.file_name(),
        (None, None) => return Err(RoleError::Run("--config is needed to start a run".into())),
    };
    let stem = named
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "run".into());
    let now = super::unix_millis() / 1000;
    Ok(PathBuf::from("runs").join(format!("{stem}-{now}")))
}

/// The three roles of game `S`, until a limit or a signal.
fn run<S: Encode>(
    options: &TrainOptions,
    (store, lease): (RunStore, LeaseKeeper),
    location: &str,
    config: &RunConfig,
) -> Result<super::learner::LearnSummary, RoleError> {
    let signals = StopFlag::on_signals();
    let every = config.train.steps_per_iteration;
    let target = options.iterations.filter(|i| *i > 0).map(|i| i * every);
    let limits = StepLimits::new(&config.train, target, options.minutes)
        .with_spent(options.spent_minutes)
        .on_clock(options.clock);
    let poll = Duration::from_secs_f64(LOCAL.learner_poll_seconds);
    let mut learner = LearnerRole::<S>::start(store, config.clone(), None, poll, lease)?;
    let mut progress = Progress::new(options.progress, options.log_every, limits, learner.step());
    let printer = progress.printer();
    let selfplay_options = selfplay_options();
    let (stop_selfplay, stop_evaluation) = (StopFlag::new(), StopFlag::new());
    let monitor = SelfPlayMonitor::default();
    std::thread::scope(|scope| {
        let selfplay = scope.spawn(|| {
            let store = RunStore::open(location)?;
            let session = new_session(WORKER_ID);
            play::<S>(
                &selfplay_options,
                &store,
                config,
                session,
                &stop_selfplay,
                &monitor,
            )
        });
        let evaluation = (config.evaluation.every > 0)
            .then(|| scope.spawn(|| run_evaluation(location, config, &stop_evaluation, &printer)));
        let mut beside = LocalSelfPlay {
            monitor: &monitor,
            mark: monitor.read(),
            ended: || selfplay.is_finished(),
        };
        let trained = drive(
            &mut learner,
            &limits,
            &signals,
            &mut beside,
            &mut progress,
            None,
        );
        stop_selfplay.raise();
        let played = joined(selfplay.join(), "self-play");
        // Take in the games self-play published as it stopped, and checkpoint them.
        let finished = trained.and(played).and_then(|_| learner.finish());
        stop_evaluation.raise();
        let evaluated = evaluation.map_or(Ok(()), |e| joined(e.join(), "evaluation"));
        let read = monitor.read();
        progress.finish(&learner.snapshot(Some((read.positions, read.games))));
        finished.and(evaluated)
    })?;
    Ok(learner.summary())
}

/// Self-play in this process, as the learner's loop sees it.
struct LocalSelfPlay<'a, F: Fn() -> bool> {
    monitor: &'a SelfPlayMonitor,
    /// Its counters when the last rates were taken.
    mark: PlayCounters,
    ended: F,
}

impl<F: Fn() -> bool> Beside for LocalSelfPlay<'_, F> {
    fn ended(&self) -> bool {
        (self.ended)()
    }

    fn take_metrics_line(&mut self) -> Option<MetricsLine> {
        self.monitor.take_precision()
    }

    fn rates(&mut self, seconds: f64) -> Option<SelfPlayRates> {
        let now = self.monitor.read();
        let rates = rates_between(&self.mark, &now, seconds);
        self.mark = now;
        Some(rates)
    }

    fn played(&self) -> Option<(u64, u64)> {
        let now = self.monitor.read();
        Some((now.positions, now.games))
    }
}

/// The settings of the self-play role inside `train`.
fn selfplay_options() -> SelfPlayOptions {
    SelfPlayOptions {
        store: String::new(),
        worker_id: Some(WORKER_ID.into()),
        games_per_shard: LOCAL.games_per_shard,
        shard_seconds: LOCAL.shard_seconds,
        max_games: None,
        max_minutes: None,
        drain_seconds: LOCAL.drain_seconds,
        wait_minutes: LOCAL.selfplay_wait_minutes,
        poll_seconds: LOCAL.selfplay_poll_seconds,
        work_dir: None,
        progress: false,
        // The config `train` passes has its `--precision` and `--device` already.
        net: Default::default(),
    }
}

/// A role thread's result (a panic becomes an error naming the role).
fn joined<T>(
    result: std::thread::Result<Result<T, RoleError>>,
    role: &str,
) -> Result<(), RoleError> {
    match result {
        Ok(outcome) => outcome.map(|_| ()),
        Err(_) => Err(RoleError::Run(format!("{role} panicked"))),
    }
}

/// Self-play's rates between two readings of its counters `seconds` apart.
fn rates_between(before: &PlayCounters, after: &PlayCounters, seconds: f64) -> SelfPlayRates {
    let (b, a) = (&before.batcher, &after.batcher);
    let positions = a.positions.saturating_sub(b.positions);
    let busy = a.busy_nanos.saturating_sub(b.busy_nanos) as f64;
    let alive = a.instance_nanos.saturating_sub(b.instance_nanos).max(1) as f64;
    SelfPlayRates {
        positions_per_s: after.positions.saturating_sub(before.positions) as f64 / seconds,
        net_positions_per_s: positions as f64 / seconds,
        net_mean_batch: positions as f64 / a.batches.saturating_sub(b.batches).max(1) as f64,
        net_busy: busy / alive,
        searches: after.searches.since(&before.searches),
    }
}

/// The evaluation role until `stop`; then it evaluates the final checkpoint if it is due.
fn run_evaluation(
    location: &str,
    config: &RunConfig,
    stop: &StopFlag,
    printer: &Printer,
) -> Result<(), RoleError> {
    let store = RunStore::open(location)?;
    let lease = LeaseKeeper::acquire(location, SingletonRole::Evaluation, &config.lease)?;
    let mut role = EvaluationRole::start(&store, config, None, lease)?;
    loop {
        let stopping = stop.raised();
        match role.due()? {
            Some(candidate) => printer.say(&role.evaluate(candidate)?),
            None if stopping => return Ok(()),
            None => std::thread::sleep(Duration::from_secs_f64(LOCAL.evaluation_poll_seconds)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::pool::BatcherTotals;

    fn counters(busy_s: f64, alive_s: f64, positions: u64) -> PlayCounters {
        PlayCounters {
            positions,
            batcher: BatcherTotals {
                instance_nanos: (alive_s * 1e9) as u64,
                positions,
                batches: positions / 50,
                busy_nanos: (busy_s * 1e9) as u64,
            },
            ..PlayCounters::default()
        }
    }

    #[test]
    fn net_busy_is_a_share_of_the_batchers_lifetime_when_pools_overlap() {
        // Over 10 s a draining pool's batcher ran beside the current one's: 20
        // instance-seconds, 16 of them in forward passes.
        let rates = rates_between(&counters(5.0, 10.0, 0), &counters(21.0, 30.0, 5_000), 10.0);
        assert!((rates.net_busy - 0.8).abs() < 1e-9, "{}", rates.net_busy);
        assert!((rates.net_mean_batch - 50.0).abs() < 1e-9);
        assert!((rates.positions_per_s - 500.0).abs() < 1e-9);
    }
}
