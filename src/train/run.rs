//! The `train` command: self-play workers and the trainer in one process, sharing a run
//! directory.
//!
//! Self-play runs on its own threads the whole time (a rayon pool of workers, each playing
//! many games, their leaves batched by one evaluator thread); the trainer runs on the
//! calling thread, taking finished games as they come, and trains whenever the replay ratio
//! allows (samples trained per sample produced). Every `steps_per_iteration` steps it writes
//! a checkpoint and hands the new weights to self-play. Both cores stay busy: one mostly
//! with inference and search, one with training.
//!
//! ```text
//! RUN/config.toml       the config as run
//! RUN/checkpoints/      see [`super::checkpoint`]
//! RUN/games/NNNNNNNN.jsonl  finished games (see [`crate::selfplay::record`]), never rewritten
//! RUN/metrics.jsonl     see [`super::metrics`]
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use tch::Device;

use super::checkpoint::{checkpoint_name, read_state};
use super::checkpoint::{latest_checkpoint, remove_partial_checkpoints};
use super::config::RunConfig;
use super::error::io_error;
pub use super::error::TrainError;
use super::evaluation::{EvaluationContext, EvaluationJob, EvaluationOutcome, OpponentResult};
use super::learner::Learner;
use super::metrics::MetricsLog;
use super::trainer::StepStats;
use crate::game::Side;
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::selfplay::pool::RollingPool;
use crate::selfplay::record::{read_records, write_records, GameRecord};
use crate::selfplay::worker::SearchCounts;
use crate::util::write_atomic;
use crate::with_game;

/// What the `train` command was asked to do.
#[derive(Clone, Debug, Default)]
pub struct TrainOptions {
    /// The config file (needed to start a run; optional with `resume`).
    pub config: Option<PathBuf>,
    /// The run directory (default: `runs/<config name>-<unix time>`).
    pub run_dir: Option<PathBuf>,
    /// Continue the run in `run_dir` from its newest checkpoint.
    pub resume: bool,
    /// Stop once this many iterations are done in total (overrides `train.iterations`).
    pub iterations: Option<u64>,
    /// Stop after this many minutes of this invocation (overrides `train.max_minutes`).
    pub minutes: Option<f64>,
    /// Draw progress bars (off in tests and when output is not a terminal).
    pub progress: bool,
}

/// What a `train` invocation did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// The run directory.
    pub run_dir: PathBuf,
    /// The step the invocation started from.
    pub start_step: u64,
    /// The step it stopped at (a checkpoint exists for it).
    pub final_step: u64,
    /// The newest checkpoint.
    pub checkpoint: Option<PathBuf>,
    /// Games finished by this invocation.
    pub games: u64,
    /// Training samples (fully searched positions) produced by this invocation.
    pub samples: u64,
}

/// Runs (or resumes) a training run.
pub fn train(options: &TrainOptions) -> Result<TrainSummary, TrainError> {
    let (run_dir, config) = prepare_run_dir(options)?;
    with_game!(config.kind(), S => Run::<S>::start(options, run_dir, config)?.run())
}

/// Finds or creates the run directory and reads the config it runs with.
fn prepare_run_dir(options: &TrainOptions) -> Result<(PathBuf, RunConfig), TrainError> {
    if options.resume {
        let run_dir = options
            .run_dir
            .clone()
            .ok_or_else(|| TrainError::RunDir("--resume needs --run-dir".into()))?;
        let path = run_dir.join("config.toml");
        if !path.is_file() {
            return Err(TrainError::RunDir(format!(
                "{} holds no run to resume (no config.toml)",
                run_dir.display()
            )));
        }
        let config = RunConfig::load(&path)?;
        if let Some(given) = &options.config {
            if RunConfig::load(given)? != config {
                return Err(TrainError::RunDir(format!(
                    "{} differs from the config the run started with; --resume uses {} (drop --config)",
                    given.display(),
                    path.display()
                )));
            }
        }
        return Ok((run_dir, config));
    }
    let config_path = options
        .config
        .clone()
        .ok_or_else(|| TrainError::RunDir("--config is needed to start a run".into()))?;
    let config = RunConfig::load(&config_path)?;
    let run_dir = options.run_dir.clone().unwrap_or_else(|| {
        let stem = config_path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "run".into());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        PathBuf::from("runs").join(format!("{stem}-{now}"))
    });
    let recorded = run_dir.join("config.toml");
    if recorded.exists() {
        return Err(TrainError::RunDir(format!(
            "{} already holds a run: pass --resume to continue it, or choose another --run-dir",
            run_dir.display()
        )));
    }
    std::fs::create_dir_all(&run_dir).map_err(io_error(&run_dir))?;
    write_atomic(&recorded, config.to_toml().as_bytes()).map_err(io_error(&recorded))?;
    Ok((run_dir, config))
}

/// Game-record shards of a run: `games/NNNNNNNN.jsonl`, numbered in order of writing.
struct Shards {
    dir: PathBuf,
    next: u64,
}

impl Shards {
    /// The shards already in `dir`, in order, and a writer for the next ones.
    fn open(dir: &Path) -> Result<(Shards, Vec<PathBuf>), TrainError> {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        let mut found: Vec<(u64, PathBuf)> = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io_error(dir))?.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if let Some(n) = name.strip_suffix(".jsonl").and_then(|s| s.parse().ok()) {
                found.push((n, entry.path()));
            }
        }
        found.sort();
        let next = found.last().map_or(0, |(n, _)| n + 1);
        let shards = Shards {
            dir: dir.to_path_buf(),
            next,
        };
        Ok((shards, found.into_iter().map(|(_, p)| p).collect()))
    }

    fn write(&mut self, games: &[GameRecord]) -> Result<(), TrainError> {
        let path = self.dir.join(format!("{:08}.jsonl", self.next));
        write_records(&path, games)?;
        self.next += 1;
        Ok(())
    }
}

/// Counts of one iteration's self-play, for the summary and metrics.
#[derive(Debug, Default)]
struct SelfPlayTally {
    games: u64,
    samples: u64,
    steps: u64,
    wins: [u64; 2],
    draws: u64,
    resigned: u64,
    played_through: u64,
    would_resign: u64,
    false_resign: u64,
}

impl SelfPlayTally {
    fn add(&mut self, record: &GameRecord, samples: usize) {
        self.games += 1;
        self.samples += samples as u64;
        self.steps += record.steps.len() as u64;
        match record.winner {
            Some(w) => self.wins[(w as usize).min(1)] += 1,
            None => self.draws += 1,
        }
        self.resigned += record.resigned as u64;
        if record.played_through {
            self.played_through += 1;
            for side in 0..2u8 {
                if record.would_resign[side as usize].is_some() {
                    self.would_resign += 1;
                    if record.score(Side(side)) > 0.0 {
                        self.false_resign += 1;
                    }
                }
            }
        }
    }
}

/// A running training run for game `S`.
struct Run<S: Encode> {
    options: TrainOptions,
    config: RunConfig,
    run_dir: PathBuf,
    learner: Learner<S>,
    start_step: u64,
    shards: Shards,
    metrics: MetricsLog,
}

impl<S: Encode> Run<S> {
    /// Loads the newest checkpoint (resume) or a fresh net, and the games on disk.
    fn start(
        options: &TrainOptions,
        run_dir: PathBuf,
        config: RunConfig,
    ) -> Result<Self, TrainError> {
        let checkpoints = run_dir.join("checkpoints");
        let latest = if options.resume {
            remove_partial_checkpoints(&checkpoints)?;
            latest_checkpoint(&checkpoints)?
        } else {
            None
        };
        let resumed = latest.is_some();
        let learner = Learner::<S>::new(config.clone(), latest.as_deref())?;
        let (shards, existing) = Shards::open(&run_dir.join("games"))?;
        let mut run = Run {
            options: options.clone(),
            metrics: MetricsLog::open(
                &run_dir.join("metrics.jsonl"),
                resumed.then_some(learner.state.step),
            )
            .map_err(io_error(&run_dir.join("metrics.jsonl")))?,
            config,
            run_dir,
            start_step: learner.state.step,
            learner,
            shards,
        };
        let mut next_game = run.learner.state.next_game;
        for path in existing {
            for record in read_records(&path)? {
                next_game = next_game.max(record.index + 1);
                run.learner.ingest(&record)?;
            }
        }
        run.learner.state.next_game = next_game;
        Ok(run)
    }

    fn elapsed(&self, started: Instant, base: f64) -> f64 {
        base + started.elapsed().as_secs_f64()
    }

    /// Self-play and training until the iteration target or the time limit.
    fn run(mut self) -> Result<TrainSummary, TrainError> {
        let config = self.config.clone();
        let t = &config.train;
        let kind = config.kind();
        let steps_per_iteration = t.steps_per_iteration;
        let target_iterations = self.options.iterations.unwrap_or(t.iterations);
        let minutes = self.options.minutes.unwrap_or(t.max_minutes);
        let started = Instant::now();
        let elapsed_base = self.learner.state.elapsed_s;
        let deadline = (minutes > 0.0).then(|| started + Duration::from_secs_f64(minutes * 60.0));
        let past_deadline = || deadline.is_some_and(|d| Instant::now() >= d);
        let reached_target =
            |step: u64| target_iterations > 0 && step >= target_iterations * steps_per_iteration;

        // Evaluation: a baseline checkpoint to compare the first one with, and (gating) the
        // checkpoint self-play starts from.
        let evaluation = config.evaluation.clone();
        let gating = evaluation.gating;
        let checkpoints = self.run_dir.join("checkpoints");
        if evaluation.every > 0 && latest_checkpoint(&checkpoints)?.is_none() {
            if gating {
                self.learner.state.promoted_step = Some(self.learner.state.step);
            }
            self.save_checkpoint()?;
        }
        let selfplay_model = match self.learner.state.promoted_step {
            Some(p) if gating && p != self.learner.state.step => Model::load(
                &checkpoints
                    .join(checkpoint_name(p))
                    .join("model.safetensors"),
                &self.learner.model.meta().shape,
                Device::Cpu,
            )?,
            _ => self.learner.model.try_clone()?,
        };
        let context = EvaluationContext {
            kind,
            rules: config.rules(),
            seed: config.seed,
            run_dir: self.run_dir.clone(),
            search: config.search.clone(),
        };
        let mut previous_checkpoint = match latest_checkpoint(&checkpoints)? {
            Some(dir) => Some((read_state(&dir)?.step, dir)),
            None => None,
        };
        let mut pending: Option<EvaluationJob> = None;

        // Self-play: the evaluator thread and a pool of workers.
        let mut selfplay = RollingPool::start::<S>(
            config.worker_settings(),
            config.selfplay.workers,
            selfplay_model,
            config.evaluator_config(),
            config.evaluator.instances,
            self.learner.state.next_game,
            self.learner
                .state
                .promoted_step
                .filter(|_| gating)
                .unwrap_or(self.learner.state.step),
        )?;

        // Progress.
        let multi = MultiProgress::with_draw_target(if self.options.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let selfplay_bar = multi.add(ProgressBar::new_spinner());
        selfplay_bar.set_style(
            ProgressStyle::with_template("{spinner} self-play {pos} games  {msg}")
                .expect("valid template"),
        );
        let train_bar = multi.add(ProgressBar::new(steps_per_iteration));
        train_bar.set_style(
            ProgressStyle::with_template(
                "  training [{bar:30}] {pos}/{len} steps  {per_sec}  ETA {eta}  {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        let show_bars = self.options.progress;
        let say = |line: String| {
            if show_bars {
                let _ = multi.println(&line);
            } else {
                eprintln!("{line}");
            }
        };

        let mut tally = SelfPlayTally::default();
        let mut losses = StepStats::default();
        let mut steps_in_iteration = self.learner.state.step % steps_per_iteration;
        let mut iteration_started = Instant::now();
        let mut train_time = Duration::ZERO;
        let mut eval_mark = (0u64, 0u64, 0u64); // positions, batches, busy nanos
        let mut steps_mark = 0u64;
        let mut search_mark = SearchCounts::default();
        let mut last_checkpoint = self.learner.state.step;
        let mut checkpoint = latest_checkpoint(&self.run_dir.join("checkpoints"))?;
        let (mut games_run, mut samples_run) = (0u64, 0u64);
        let mut failure = None;
        train_bar.set_position(steps_in_iteration);

        'training: while !reached_target(self.learner.state.step) && !past_deadline() {
            // Wait for self-play until the replay ratio allows a step.
            loop {
                let (g, s) = self.collect(selfplay.finished_games()?, &mut tally)?;
                games_run += g;
                samples_run += s;
                selfplay_bar.set_position(self.learner.games_total);
                selfplay_bar.set_message(format!(
                    "{} samples, window {}",
                    self.learner.samples_total,
                    self.learner.window.len()
                ));
                if let Some(done) = pending
                    .as_mut()
                    .and_then(|job| job.poll().map(|r| (job.step, r)))
                {
                    pending = None;
                    say(self.evaluated(done.0, done.1, &mut selfplay)?);
                }
                if self.learner.ready() {
                    break;
                }
                if past_deadline() {
                    break 'training;
                }
                if !selfplay.alive() {
                    failure = Some(TrainError::SelfPlayStopped);
                    break 'training;
                }
                selfplay_bar.tick();
                std::thread::sleep(Duration::from_millis(10));
            }
            let step_started = Instant::now();
            let stats = self.learner.step();
            train_time += step_started.elapsed();
            losses.add(&stats);
            steps_in_iteration += 1;
            train_bar.set_position(steps_in_iteration);
            train_bar.set_message(format!("loss {:.3}", stats.total_loss));
            if steps_in_iteration == steps_per_iteration {
                self.learner.state.elapsed_s = self.elapsed(started, elapsed_base);
                self.learner.state.next_game = selfplay.next_game();
                let dir = self.save_checkpoint()?;
                let iteration = self.learner.state.step / steps_per_iteration;
                if evaluation.every > 0
                    && iteration.is_multiple_of(evaluation.every)
                    && pending.is_none()
                {
                    let incumbent = if gating {
                        self.learner
                            .state
                            .promoted_step
                            .map(|p| (p, checkpoints.join(checkpoint_name(p))))
                    } else {
                        previous_checkpoint.clone()
                    };
                    pending = Some(EvaluationJob::start(
                        &evaluation,
                        &context,
                        self.learner.state.step,
                        &dir,
                        incumbent.as_ref().map(|(s, p)| (*s, p.as_path())),
                    ));
                }
                if !gating {
                    selfplay.switch(self.learner.model.try_clone()?, self.learner.state.step)?;
                }
                previous_checkpoint = Some((self.learner.state.step, dir.clone()));
                checkpoint = Some(dir);
                last_checkpoint = self.learner.state.step;
                let evals = selfplay.evaluator_totals();
                let now_eval = (
                    evals.positions,
                    evals.batches,
                    evals.busy_nanos / evals.instances.max(1) as u64,
                );
                let now_steps = selfplay.steps_played();
                let now_searches = selfplay.search_counts();
                let seconds = iteration_started.elapsed().as_secs_f64().max(1e-9);
                let line = self.report(
                    &tally,
                    &losses.scaled(steps_in_iteration as f64),
                    steps_in_iteration,
                    seconds,
                    train_time.as_secs_f64(),
                    (
                        now_eval.0 - eval_mark.0,
                        now_eval.1 - eval_mark.1,
                        now_eval.2 - eval_mark.2,
                    ),
                    now_steps - steps_mark,
                    now_searches.since(&search_mark),
                )?;
                say(line);
                eval_mark = now_eval;
                steps_mark = now_steps;
                search_mark = now_searches;
                tally = SelfPlayTally::default();
                losses = StepStats::default();
                steps_in_iteration = 0;
                train_time = Duration::ZERO;
                iteration_started = Instant::now();
                train_bar.reset();
            }
        }

        // Finish a running evaluation (its result may promote a checkpoint).
        let promoted_before = self.learner.state.promoted_step;
        if let Some(mut job) = pending.take() {
            let result = job.wait();
            say(self.evaluated(job.step, result, &mut selfplay)?);
        }
        // Stop self-play; keep every game that finished.
        let next_game = selfplay.next_game();
        let (g, s) = self.collect(selfplay.stop(), &mut tally)?;
        games_run += g;
        samples_run += s;
        if let Some(error) = failure {
            return Err(error);
        }
        if self.learner.state.step > last_checkpoint
            || self.learner.state.promoted_step != promoted_before
        {
            self.learner.state.elapsed_s = self.elapsed(started, elapsed_base);
            self.learner.state.next_game = next_game;
            checkpoint = Some(self.save_checkpoint()?);
        }
        selfplay_bar.finish_and_clear();
        train_bar.finish_and_clear();
        Ok(TrainSummary {
            run_dir: self.run_dir.clone(),
            start_step: self.start_step,
            final_step: self.learner.state.step,
            checkpoint,
            games: games_run,
            samples: samples_run,
        })
    }

    /// Takes the games finished so far: writes them as one shard and adds their samples.
    fn collect(
        &mut self,
        finished: Vec<GameRecord>,
        tally: &mut SelfPlayTally,
    ) -> Result<(u64, u64), TrainError> {
        if finished.is_empty() {
            return Ok((0, 0));
        }
        self.shards.write(&finished)?;
        let mut samples = 0;
        for record in &finished {
            let count = self.learner.ingest(record)?;
            tally.add(record, count);
            samples += count as u64;
        }
        Ok((finished.len() as u64, samples))
    }

    fn save_checkpoint(&self) -> Result<PathBuf, TrainError> {
        self.learner
            .save_checkpoint(&self.run_dir.join("checkpoints"))
    }

    /// Logs a finished evaluation of the checkpoint at `step`; with gating, promotes it to
    /// self-play if it scored enough against the incumbent. Returns a summary line.
    fn evaluated(
        &mut self,
        step: u64,
        result: Result<Vec<OpponentResult>, String>,
        selfplay: &mut RollingPool,
    ) -> Result<String, TrainError> {
        let path = self.run_dir.join("metrics.jsonl");
        let outcome = EvaluationOutcome::of(&self.config.evaluation, step, result);
        for line in &outcome.metrics {
            self.metrics.append(line).map_err(io_error(&path))?;
        }
        if outcome.promote {
            let dir = self.run_dir.join("checkpoints").join(checkpoint_name(step));
            let model = Model::load(
                &dir.join("model.safetensors"),
                &self.learner.model.meta().shape,
                Device::Cpu,
            )?;
            selfplay.switch(model, step)?;
            self.learner.state.promoted_step = Some(step);
        }
        Ok(outcome.summary)
    }

    /// Writes the iteration's metrics and returns its one-line summary.
    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        tally: &SelfPlayTally,
        losses: &StepStats,
        steps: u64,
        seconds: f64,
        train_seconds: f64,
        evals: (u64, u64, u64),
        steps_played: u64,
        searches: SearchCounts,
    ) -> Result<String, TrainError> {
        let step = self.learner.state.step;
        let elapsed = self.learner.state.elapsed_s;
        let iteration = step / self.config.train.steps_per_iteration;
        let samples_per_s =
            (steps * self.config.train.batch_size as u64) as f64 / train_seconds.max(1e-9);
        let (net_positions, batches, busy) = evals;
        let mean_batch = net_positions as f64 / batches.max(1) as f64;
        let net_rate = net_positions as f64 / seconds;
        let net_busy = busy as f64 / 1e9 / seconds;
        let positions_per_s = steps_played as f64 / seconds;
        let mean_length = tally.steps as f64 / tally.games.max(1) as f64;
        let false_resign_rate = if tally.would_resign > 0 {
            Some(tally.false_resign as f64 / tally.would_resign as f64)
        } else {
            None
        };
        let path = self.run_dir.join("metrics.jsonl");
        self.metrics
            .append(&self.learner.train_metrics(losses, samples_per_s))
            .map_err(io_error(&path))?;
        self.metrics
            .append(&json!({
                "type": "selfplay", "step": step, "iteration": iteration, "elapsed_s": elapsed,
                "games": tally.games, "games_total": self.learner.games_total,
                "samples": tally.samples, "samples_total": self.learner.samples_total,
                "mean_game_steps": mean_length,
                "wins_side0": tally.wins[0], "wins_side1": tally.wins[1], "draws": tally.draws,
                "resigned": tally.resigned, "played_through": tally.played_through,
                "false_resign_rate": false_resign_rate,
                "positions_per_s": positions_per_s,
                "net_positions_per_s": net_rate, "net_mean_batch": mean_batch,
                "net_busy": net_busy,
                "net_calls_per_searched_step": searches.net_calls_per_searched_step(),
                "forced_leaf_share": searches.forced_leaf_share(),
            }))
            .map_err(io_error(&path))?;
        Ok(format!(
            "iter {iteration:>4} step {step:>6} | loss {:.3} (policy {:.3} value {:.3}) entropy {:.2} | \
             games {} (side0 {} side1 {} draw {}, resigned {}) mean {:.0} steps | \
             self-play {:.0} pos/s, net {:.0} pos/s batch {:.0} busy {:.0}% | train {:.0} samples/s | window {} | {:.0}s",
            losses.total_loss,
            losses.policy_loss,
            losses.value_loss,
            losses.policy_entropy,
            tally.games,
            tally.wins[0],
            tally.wins[1],
            tally.draws,
            tally.resigned,
            mean_length,
            positions_per_s,
            net_rate,
            mean_batch,
            100.0 * net_busy,
            samples_per_s,
            self.learner.window.len(),
            elapsed,
        ))
    }
}
