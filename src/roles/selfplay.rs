//! The `selfplay` role: any number of them, on any machines. Plays games with the newest
//! checkpoint (or, with gating, the promoted one), taking up a new one between games (new
//! games start with it while the games in flight finish with theirs: [`RollingPool`]), and
//! publishes finished games as immutable shards under a session of its own. Stateless: it
//! can be killed at any moment (the games of an unpublished shard are lost, nothing partial
//! is left) and started again, as a new session.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use rand::Rng;
use tch::Device;

use super::backoff::{retry, transient, Backoff, PATIENCE};
use super::{
    fetch_checkpoint, prune_cache, put_created, read_pointer, unix_millis, wait_for,
    wait_for_config, RoleError, StopFlag, WorkDir,
};
use crate::config::RunConfig;
use crate::layout::state::{StateFile, WorkerStatus};
use crate::layout::{shard_key, worker_key, LATEST, MODEL_FILES, PROMOTED, WEIGHTS_FILE};
use crate::metrics::{MetricsLine, PrecisionLine};
use crate::net::args::{settle_selfplay, NetArgs};
use crate::net::encode::Encode;
use crate::net::model::{Model, NetShape};
use crate::selfplay::pool::{BatcherTotals, RollingPool};
use crate::selfplay::record::{records_to_gzip, GameRecord};
use crate::selfplay::worker::{SearchCounts, WorkerSettings};
use crate::store::RunStore;
use crate::util::game_seed;
use crate::with_game;

/// A self-play session's counters as it writes them (`workers/<session>.json`), with its
/// batcher's precision line.
pub type SelfPlayStatus = WorkerStatus<PrecisionLine>;

/// What `selfplay` was asked to do.
#[derive(Clone, Debug)]
pub struct SelfPlayOptions {
    /// The run location.
    pub store: String,
    /// This worker's name (default: the host name); sessions are named after it.
    pub worker_id: Option<String>,
    /// Games per shard.
    pub games_per_shard: usize,
    /// Publish a shard with fewer games once its first game is this old (seconds).
    pub shard_seconds: f64,
    /// Stop after publishing at least this many games.
    pub max_games: Option<u64>,
    /// Stop after this many minutes.
    pub max_minutes: Option<f64>,
    /// On stopping (limit reached, SIGTERM, SIGINT), let the games in flight finish for up
    /// to this many seconds, and publish them.
    pub drain_seconds: f64,
    /// How long to wait for the run's config and first checkpoint (minutes).
    pub wait_minutes: f64,
    /// Seconds between looks for a newer checkpoint.
    pub poll_seconds: f64,
    /// Local scratch directory (default: a temporary one, removed at exit).
    pub work_dir: Option<PathBuf>,
    /// Draw a progress bar.
    pub progress: bool,
    /// `--precision` and `--device` over the run's `[batching]` settings.
    pub net: NetArgs,
}

/// What a `selfplay` invocation did.
#[derive(Clone, Debug, Default)]
pub struct SelfPlaySummary {
    /// The session's name (its shards are under `games/<session>/`).
    pub session: String,
    /// Games published.
    pub games: u64,
    /// Shards published.
    pub shards: u64,
    /// Positions played (searched or forced).
    pub positions: u64,
    /// Wall time of play (seconds).
    pub seconds: f64,
    /// The step of the checkpoint in use at the end.
    pub model_step: u64,
}

/// How long a stopping worker keeps trying to publish its last games while the store does
/// not answer.
const FINAL_PATIENCE: Duration = Duration::from_secs(60);

/// Runs a self-play worker until its game or time limit or a stop signal.
pub fn selfplay(options: &SelfPlayOptions) -> Result<SelfPlaySummary, RoleError> {
    if options.games_per_shard == 0 {
        return Err(RoleError::Run(
            "--games-per-shard must be at least 1".into(),
        ));
    }
    let worker_id = match &options.worker_id {
        Some(id) => id.clone(),
        None => host_name(),
    };
    check_worker_id(&worker_id)?;
    let store = RunStore::open(&options.store)?;
    let stop = StopFlag::on_signals();
    let wait = Duration::from_secs_f64(options.wait_minutes.max(0.0) * 60.0);
    let mut config = wait_for_config(&store, wait, &stop)?;
    options.net.apply_to(&mut config);
    let session = new_session(&worker_id);
    let monitor = SelfPlayMonitor::default();
    with_game!(config.kind(), S => play::<S>(options, &store, &config, session, &stop, &monitor))
}

/// A new session name of worker `worker_id`: unique, and ordered by start time.
pub fn new_session(worker_id: &str) -> String {
    format!(
        "{worker_id}-{}-{:08x}",
        unix_millis(),
        rand::thread_rng().gen::<u32>()
    )
}

/// Worker ids become object names: letters, digits, `.`, `_` and `-`, 1–64 of them.
fn check_worker_id(id: &str) -> Result<(), RoleError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(RoleError::Run(format!(
            "worker id {id:?}: use 1-64 letters, digits, '.', '_' or '-'"
        )))
    }
}

fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| check_worker_id(h).is_ok())
        .unwrap_or_else(|| "worker".into())
}

/// Self-play's counters so far, readable from another thread while it plays (`train`
/// reports them with each iteration), and its batcher's precision choice (`train` writes
/// it into the learner's metrics).
#[derive(Clone, Debug, Default)]
pub struct SelfPlayMonitor(Arc<Mutex<PlayCounters>>, Arc<Mutex<Option<MetricsLine>>>);

/// What self-play has done so far in this session.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlayCounters {
    /// Games finished (published or about to be).
    pub games: u64,
    /// Positions played (searched or forced).
    pub positions: u64,
    /// The nets' work.
    pub batcher: BatcherTotals,
    /// The checkpoint new games use.
    pub model_step: u64,
    /// What the searches asked of the net.
    pub searches: SearchCounts,
}

impl SelfPlayMonitor {
    /// The newest counters.
    pub fn read(&self) -> PlayCounters {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, counters: PlayCounters) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = counters;
    }

    /// The precision choice's metrics line, once, after self-play has made it.
    pub fn take_precision(&self) -> Option<MetricsLine> {
        self.1.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn set_precision(&self, line: MetricsLine) {
        *self.1.lock().unwrap_or_else(|e| e.into_inner()) = Some(line);
    }
}

/// The games of the next shard, and the shards published so far.
#[derive(Default)]
struct ShardWriter {
    buffer: Vec<GameRecord>,
    first_at: Option<Instant>,
    shards: u64,
    games: u64,
    /// The shard being put: once tried, its name and bytes stay fixed until the put
    /// succeeds, so that a retry of a put whose answer was lost finds the same bytes there.
    attempt: Option<Attempt>,
}

/// A shard's put, tried and to be tried again: its key, bytes and how many of the buffered
/// games it holds.
struct Attempt {
    key: String,
    bytes: Vec<u8>,
    games: usize,
}

impl ShardWriter {
    fn add(&mut self, games: Vec<GameRecord>) {
        if !games.is_empty() && self.first_at.is_none() {
            self.first_at = Some(Instant::now());
        }
        self.buffer.extend(games);
    }

    /// Games finished, published or not.
    fn played(&self) -> u64 {
        self.games + self.buffer.len() as u64
    }

    /// Publishes the buffered games as the session's next shard: one put, whole or nothing,
    /// and only under a new name (a shard that exists is never replaced). A put that failed
    /// is tried again with the same games, whatever was played since.
    fn publish(&mut self, store: &RunStore, session: &str) -> Result<(), RoleError> {
        if self.attempt.is_none() && !self.buffer.is_empty() {
            self.attempt = Some(Attempt {
                key: shard_key(session, self.shards),
                bytes: records_to_gzip(&self.buffer),
                games: self.buffer.len(),
            });
        }
        let Some(attempt) = &self.attempt else {
            return Ok(());
        };
        // A retry of a put whose answer was lost finds this shard there: written.
        put_created(store, &attempt.key, attempt.bytes.clone())?;
        let games = attempt.games;
        self.attempt = None;
        self.shards += 1;
        self.games += games as u64;
        self.buffer.drain(..games);
        self.first_at = (!self.buffer.is_empty()).then(Instant::now);
        Ok(())
    }

    /// True while games wait to be published.
    fn unsent(&self) -> bool {
        !self.buffer.is_empty()
    }
}

/// Plays one session: games with the checkpoint the run's pointer names, published as
/// shards, until a limit or `stop`; `monitor` follows its counters.
pub fn play<S: Encode>(
    options: &SelfPlayOptions,
    store: &RunStore,
    config: &RunConfig,
    session: String,
    stop: &StopFlag,
    monitor: &SelfPlayMonitor,
) -> Result<SelfPlaySummary, RoleError> {
    let mut role = SelfPlayRole::start::<S>(options, store, config, session, stop, monitor)?;
    let failure = role.play(stop, monitor)?;
    role.finish(failure)
}

/// A running self-play session.
struct SelfPlayRole<'a> {
    options: &'a SelfPlayOptions,
    store: &'a RunStore,
    session: String,
    work: WorkDir,
    /// `latest`, or with gating `promoted`.
    pointer: &'static str,
    shape: NetShape,
    model_step: u64,
    pool: RollingPool,
    shards: ShardWriter,
    bar: ProgressBar,
    started: Instant,
    last_poll: Instant,
    /// The batcher's precision choice (its metrics line), for the status.
    precision: PrecisionLine,
    /// Retries of store requests that failed: play goes on, finished games wait.
    outage: Backoff,
}

impl<'a> SelfPlayRole<'a> {
    /// Waits for the checkpoint to play with and starts the workers.
    fn start<S: Encode>(
        options: &'a SelfPlayOptions,
        store: &'a RunStore,
        config: &RunConfig,
        session: String,
        stop: &StopFlag,
        monitor: &SelfPlayMonitor,
    ) -> Result<Self, RoleError> {
        let work = WorkDir::new(options.work_dir.as_deref(), "selfplay")?;
        let pointer = if config.evaluation.gating {
            PROMOTED
        } else {
            LATEST
        };
        let wait = Duration::from_secs_f64(options.wait_minutes.max(0.0) * 60.0);
        let model_step = wait_for(store, wait, stop, "checkpoint", |s| {
            read_pointer(s, pointer)
        })?;
        let shape = S::net_shape(config.kind());
        let model = retry("fetching the checkpoint", PATIENCE, || {
            load_model(store, &work, &shape, model_step)
        })?;
        // Game numbers (which seed the games) start at a point of the session's own.
        let first_game = game_seed(config.seed, fnv1a(&session)) << 24 >> 8;
        let (layout, batching, precision) = settle_selfplay(config, &model)?;
        let precision = PrecisionLine::of(&precision);
        monitor.set_precision(MetricsLine::Precision(precision.clone()));
        let pool = RollingPool::start::<S>(
            WorkerSettings::of(config),
            layout.workers,
            model,
            batching,
            layout.instances,
            first_game,
            model_step,
        )?;
        Ok(SelfPlayRole {
            bar: super::progress_bar(options.progress, "self-play games", options.max_games),
            options,
            store,
            session,
            work,
            pointer,
            shape,
            model_step,
            pool,
            shards: ShardWriter::default(),
            started: Instant::now(),
            outage: Backoff::default(),
            last_poll: Instant::now(),
            precision,
        })
    }

    /// Plays until a limit or `stop`, then lets the games in flight finish (up to
    /// `drain_seconds`). Returns why self-play failed, if it did.
    fn play(
        &mut self,
        stop: &StopFlag,
        monitor: &SelfPlayMonitor,
    ) -> Result<Option<RoleError>, RoleError> {
        let deadline = self
            .options
            .max_minutes
            .filter(|m| *m > 0.0)
            .map(|m| self.started + Duration::from_secs_f64(m * 60.0));
        let mut draining_since: Option<Instant> = None;
        loop {
            self.shards.add(self.pool.finished_games()?);
            match draining_since {
                None => {
                    let enough = self
                        .options
                        .max_games
                        .is_some_and(|m| self.shards.played() >= m);
                    if enough || stop.raised() || deadline.is_some_and(|d| Instant::now() >= d) {
                        // Finish the games in flight rather than throw their work away.
                        self.pool.drain();
                        draining_since = Some(Instant::now());
                        continue;
                    }
                    if !self.pool.alive() {
                        return Ok(Some(RoleError::SelfPlayStopped));
                    }
                    self.follow_pointer()?;
                }
                Some(since) => {
                    let drained = since.elapsed().as_secs_f64() >= self.options.drain_seconds;
                    if !self.pool.playing() || drained {
                        return Ok(None);
                    }
                }
            }
            self.publish_when_due()?;
            self.show(monitor);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Publishes the buffered games once there are enough of them or the first is old.
    /// While the store does not answer, the games stay buffered and play goes on; the
    /// next try comes on the backoff schedule.
    fn publish_when_due(&mut self) -> Result<(), RoleError> {
        let shard_age = Duration::from_secs_f64(self.options.shard_seconds.max(0.0));
        let due = self.shards.buffer.len() >= self.options.games_per_shard
            || self
                .shards
                .first_at
                .is_some_and(|t| t.elapsed() >= shard_age);
        if !due || !self.outage.ready() {
            return Ok(());
        }
        let published = self
            .shards
            .publish(self.store, &self.session)
            .and_then(|()| self.put_status(false));
        self.ride_out(published)
    }

    /// A store request's result: a transient failure is counted and waited out on the
    /// backoff schedule (said on stderr), anything else is returned.
    fn ride_out(&mut self, result: Result<(), RoleError>) -> Result<(), RoleError> {
        match result {
            Ok(()) => {
                self.outage.succeeded();
                Ok(())
            }
            Err(error) if transient(&error) => {
                let wait = self.outage.failed();
                self.bar.suspend(|| {
                    eprintln!(
                        "warning: the store did not answer ({error}); {} games kept, next try in {:.1} s",
                        self.shards.buffer.len(),
                        wait.as_secs_f64()
                    )
                });
                Ok(())
            }
            Err(error) => Err(error),
        }
    }

    /// Every `poll_seconds`: takes up the checkpoint the pointer names, if it is new.
    fn follow_pointer(&mut self) -> Result<(), RoleError> {
        let poll = Duration::from_secs_f64(self.options.poll_seconds.max(0.05));
        if self.last_poll.elapsed() < poll || !self.outage.ready() {
            return Ok(());
        }
        self.last_poll = Instant::now();
        let pointer = read_pointer(self.store, self.pointer);
        let Some(read) = pointer
            .map(Some)
            .or_else(|e| self.ride_out(Err(e)).map(|()| None))?
        else {
            return Ok(());
        };
        if let Some(step) = read.filter(|s| *s != self.model_step) {
            let model = match load_model(self.store, &self.work, &self.shape, step) {
                Ok(model) => model,
                Err(error) => {
                    // Thinned away by checkpoint retention before it was read (a newer one
                    // is named by now): look again at the next poll.
                    eprintln!("warning: checkpoint {step} not taken up: {error}");
                    return Ok(());
                }
            };
            self.pool.switch(model, step)?;
            prune_cache(self.work.path(), &[self.model_step, step]);
            self.model_step = step;
        }
        Ok(())
    }

    /// Updates the progress bar and the monitor.
    fn show(&self, monitor: &SelfPlayMonitor) {
        let played = self.shards.played();
        monitor.set(PlayCounters {
            games: played,
            positions: self.pool.steps_played(),
            batcher: self.pool.batcher_totals(),
            model_step: self.pool.model_step(),
            searches: self.pool.search_counts(),
        });
        self.bar.set_position(played);
        let outage = match self.outage.failing() {
            0 => String::new(),
            n => format!(" | store not answering: {n} tries failed, games kept"),
        };
        self.bar.set_message(format!(
            "{played} games in {} shards | {:.0} positions/s | checkpoint {}{outage}",
            self.shards.shards,
            self.pool.steps_played() as f64 / self.seconds(),
            self.model_step
        ));
        self.bar.tick();
    }

    fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64().max(1e-9)
    }

    /// Writes the session's counters to `workers/<session>.json`.
    fn put_status(&self, done: bool) -> Result<(), RoleError> {
        let seconds = self.seconds();
        let (pool, shards) = (&self.pool, &self.shards);
        let evals = pool.batcher_totals();
        let status = SelfPlayStatus {
            session: self.session.clone(),
            games: shards.played(),
            published_games: shards.games,
            shards: shards.shards,
            positions: pool.steps_played(),
            samples: pool.samples_made(),
            seconds,
            positions_per_s: pool.steps_played() as f64 / seconds,
            net_positions_per_s: evals.positions as f64 / seconds,
            net_mean_batch: evals.positions as f64 / evals.batches.max(1) as f64,
            net_calls_per_searched_step: pool.search_counts().net_calls_per_searched_step(),
            forced_leaf_share: pool.search_counts().forced_leaf_share(),
            model_step: pool.model_step(),
            newest_seen: self.model_step,
            draining_pools: pool.draining(),
            done,
            updated_unix_ms: unix_millis() as u64,
            precision: Some(self.precision.clone()),
            store_retries: self.outage.total_failures,
        };
        let key = worker_key(&self.session);
        let bytes = status.to_json().into_bytes();
        Ok(self.store.put(&key, bytes)?)
    }

    /// Stops the workers and publishes every finished game.
    fn finish(mut self, failure: Option<RoleError>) -> Result<SelfPlaySummary, RoleError> {
        let positions = self.pool.steps_played();
        let seconds = self.started.elapsed().as_secs_f64();
        self.shards.add(self.pool.finished_games()?);
        retry("writing the session's counters", FINAL_PATIENCE, || {
            self.put_status(true)
        })?;
        let SelfPlayRole {
            store,
            session,
            pool,
            mut shards,
            bar,
            model_step,
            ..
        } = self;
        shards.add(pool.stop());
        while shards.unsent() {
            retry("publishing the last games", FINAL_PATIENCE, || {
                shards.publish(store, &session)
            })?;
        }
        bar.finish_and_clear();
        if let Some(error) = failure {
            return Err(error);
        }
        Ok(SelfPlaySummary {
            session,
            games: shards.games,
            shards: shards.shards,
            positions,
            seconds,
            model_step,
        })
    }
}

/// Loads the model of the checkpoint at `step` (fetched into `work`).
fn load_model(
    store: &RunStore,
    work: &WorkDir,
    shape: &NetShape,
    step: u64,
) -> Result<Model, RoleError> {
    let dir = fetch_checkpoint(store, step, &MODEL_FILES, work.path())?;
    Ok(Model::load(&dir.join(WEIGHTS_FILE), shape, Device::Cpu)?)
}

/// FNV-1a hash of a string (stable across builds, unlike `DefaultHasher`).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_ids_are_checked() {
        for good in ["worker-1", "pod.abc_9", "x"] {
            assert!(check_worker_id(good).is_ok(), "{good}");
        }
        for bad in ["", "a/b", "a b", "ü", &"x".repeat(65)] {
            assert!(check_worker_id(bad).is_err(), "{bad}");
        }
    }

    fn games(seeds: std::ops::Range<u64>) -> Vec<GameRecord> {
        use crate::game::rematch::Rematch;
        use crate::game::{GameKind, GameState, RulesConfig};
        let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
        seeds
            .map(|seed| GameRecord::new(&start, RulesConfig::default(), seed, 0))
            .collect()
    }

    fn seeds_in(store: &RunStore, key: &str) -> Vec<u64> {
        let bytes = store.get(key).unwrap().expect("the shard");
        let records =
            crate::selfplay::record::parse_record_bytes(&bytes, std::path::Path::new(key));
        records.unwrap().iter().map(|r| r.seed).collect()
    }

    #[test]
    fn a_shard_put_again_after_a_failure_holds_the_games_first_tried_and_no_more() {
        let dir = std::env::temp_dir().join(format!("cz-shard-retry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        let mut writer = ShardWriter::default();
        writer.add(games(0..2));
        // The store fails the put: a file where the shards' folder must go.
        std::fs::write(dir.join("games"), b"in the way").unwrap();
        assert!(writer.publish(&store, "w1-s").is_err());
        writer.add(games(2..3));
        std::fs::remove_file(dir.join("games")).unwrap();
        // The first put landed after all and only its answer was lost: the retry finds the
        // same bytes there.
        let tried = writer.attempt.as_ref().expect("the put is kept");
        store.put(&tried.key, tried.bytes.clone()).unwrap();
        writer.publish(&store, "w1-s").unwrap();
        assert_eq!(seeds_in(&store, &shard_key("w1-s", 0)), vec![0, 1]);
        assert!(
            writer.unsent(),
            "the game played since waits for the next shard"
        );
        writer.publish(&store, "w1-s").unwrap();
        assert_eq!(seeds_in(&store, &shard_key("w1-s", 1)), vec![2]);
        assert_eq!(
            (writer.shards, writer.games, writer.unsent()),
            (2, 3, false)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
