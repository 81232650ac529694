//! The `selfplay` role: any number of them, on any machines. Plays games with the newest
//! checkpoint (or, with gating, the promoted one), taking up a new one between games (new
//! games start with it while the games in flight finish with theirs: [`RollingPool`]), and
//! publishes finished games as immutable shards under a session of its own. Stateless: it
//! can be killed at any moment (the games of an unpublished shard are lost, nothing partial
//! is left) and started again, as a new session.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;
use tch::Device;

use super::{
    fetch_checkpoint, prune_cache, read_pointer, shard_key, unix_millis, wait_for, wait_for_config,
    DistError, StopFlag, WorkDir, LATEST_KEY, MODEL_FILES, PROMOTED_KEY,
};
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::selfplay::pool::RollingPool;
use crate::selfplay::record::{records_to_jsonl, GameRecord};
use crate::store::RunStore;
use crate::train::config::RunConfig;
use crate::train::error::TrainError;
use crate::util::game_seed;
use crate::with_game;

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

/// Runs a self-play worker until its game or time limit or a stop signal.
pub fn selfplay(options: &SelfPlayOptions) -> Result<SelfPlaySummary, DistError> {
    if options.games_per_shard == 0 {
        return Err(DistError::Run(
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
    let config = wait_for_config(&store, wait, &stop)?;
    let session = format!(
        "{worker_id}-{}-{:08x}",
        unix_millis(),
        rand::thread_rng().gen::<u32>()
    );
    with_game!(config.kind(), S => run::<S>(options, &store, &config, session, &stop))
}

/// Worker ids become object names: letters, digits, `.`, `_` and `-`, 1–64 of them.
fn check_worker_id(id: &str) -> Result<(), DistError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(DistError::Run(format!(
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

/// The games of the next shard, and the shards published so far.
struct ShardWriter<'a> {
    store: &'a RunStore,
    session: String,
    buffer: Vec<GameRecord>,
    first_at: Option<Instant>,
    shards: u64,
    games: u64,
}

impl ShardWriter<'_> {
    fn add(&mut self, games: Vec<GameRecord>) {
        if !games.is_empty() && self.first_at.is_none() {
            self.first_at = Some(Instant::now());
        }
        self.buffer.extend(games);
    }

    /// Publishes the buffered games as the next shard (one put: whole or nothing).
    fn publish(&mut self) -> Result<(), DistError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let key = shard_key(&self.session, self.shards);
        self.store
            .put(&key, records_to_jsonl(&self.buffer).into_bytes())?;
        self.shards += 1;
        self.games += self.buffer.len() as u64;
        self.buffer.clear();
        self.first_at = None;
        Ok(())
    }
}

fn run<S: Encode>(
    options: &SelfPlayOptions,
    store: &RunStore,
    config: &RunConfig,
    session: String,
    stop: &StopFlag,
) -> Result<SelfPlaySummary, DistError> {
    let work = WorkDir::new(options.work_dir.as_deref(), "selfplay")?;
    let pointer = if config.evaluation.gating {
        PROMOTED_KEY
    } else {
        LATEST_KEY
    };
    let wait = Duration::from_secs_f64(options.wait_minutes.max(0.0) * 60.0);
    let mut model_step = wait_for(store, wait, stop, "checkpoint", |s| {
        read_pointer(s, pointer)
    })?;
    let shape = S::net_shape(config.kind());
    let load = |step: u64| -> Result<Model, DistError> {
        let dir = fetch_checkpoint(store, step, &MODEL_FILES, work.path())?;
        Ok(Model::load(
            &dir.join("model.safetensors"),
            &shape,
            Device::Cpu,
        )?)
    };
    // Game numbers (which seed the games) start at a point of the session's own.
    let first_game = game_seed(config.seed, fnv1a(&session)) << 24 >> 8;
    let mut pool = RollingPool::start::<S>(
        config.worker_settings(),
        config.selfplay.workers,
        load(model_step)?,
        config.evaluator_config(),
        config.evaluator.instances,
        first_game,
        model_step,
    )?;
    let mut shards = ShardWriter {
        store,
        session: session.clone(),
        buffer: Vec::new(),
        first_at: None,
        shards: 0,
        games: 0,
    };
    let bar = super::progress_bar(options.progress, "self-play games", options.max_games);
    let started = Instant::now();
    let deadline = options
        .max_minutes
        .filter(|m| *m > 0.0)
        .map(|m| started + Duration::from_secs_f64(m * 60.0));
    let poll = Duration::from_secs_f64(options.poll_seconds.max(0.05));
    let shard_age = Duration::from_secs_f64(options.shard_seconds.max(0.0));
    let mut last_poll = Instant::now();
    let status_key = format!("workers/{session}.json");
    let status = |shards: &ShardWriter, pool: &RollingPool, model_step: u64, done: bool| {
        let seconds = started.elapsed().as_secs_f64().max(1e-9);
        let evals = pool.evaluator_totals();
        let value = json!({
            "session": session, "games": shards.games + shards.buffer.len() as u64,
            "published_games": shards.games, "shards": shards.shards,
            "positions": pool.steps_played(), "samples": pool.samples_made(),
            "seconds": seconds, "positions_per_s": pool.steps_played() as f64 / seconds,
            "net_positions_per_s": evals.positions as f64 / seconds,
            "net_mean_batch": evals.positions as f64 / evals.batches.max(1) as f64,
            "net_calls_per_searched_step": pool.search_counts().net_calls_per_searched_step(),
            "forced_leaf_share": pool.search_counts().forced_leaf_share(),
            "model_step": pool.model_step(), "newest_seen": model_step,
            "draining_pools": pool.draining(), "done": done, "updated_unix_ms": unix_millis() as u64,
        });
        store.put(
            &status_key,
            serde_json::to_vec_pretty(&value).expect("status serialises"),
        )
    };
    let mut failure = None;
    let mut draining_since: Option<Instant> = None;
    loop {
        shards.add(pool.finished_games()?);
        match draining_since {
            None => {
                let enough = options
                    .max_games
                    .is_some_and(|m| shards.games + shards.buffer.len() as u64 >= m);
                if enough || stop.raised() || deadline.is_some_and(|d| Instant::now() >= d) {
                    // Finish the games in flight rather than throw their work away.
                    pool.drain();
                    draining_since = Some(Instant::now());
                    continue;
                }
                if !pool.alive() {
                    failure = Some(DistError::Train(TrainError::SelfPlayStopped));
                    break;
                }
            }
            Some(since) => {
                if !pool.playing() || since.elapsed().as_secs_f64() >= options.drain_seconds {
                    break;
                }
            }
        }
        if shards.buffer.len() >= options.games_per_shard
            || shards.first_at.is_some_and(|t| t.elapsed() >= shard_age)
        {
            shards.publish()?;
            status(&shards, &pool, model_step, false)?;
        }
        if last_poll.elapsed() >= poll && draining_since.is_none() {
            last_poll = Instant::now();
            if let Some(step) = read_pointer(store, pointer)?.filter(|s| *s != model_step) {
                pool.switch(load(step)?, step)?;
                prune_cache(work.path(), &[model_step, step]);
                model_step = step;
            }
        }
        bar.set_position(shards.games + shards.buffer.len() as u64);
        bar.set_message(format!(
            "{} games in {} shards | {:.0} positions/s | checkpoint {model_step}",
            shards.games + shards.buffer.len() as u64,
            shards.shards,
            pool.steps_played() as f64 / started.elapsed().as_secs_f64().max(1e-9)
        ));
        bar.tick();
        std::thread::sleep(Duration::from_millis(50));
    }
    let positions = pool.steps_played();
    let seconds = started.elapsed().as_secs_f64();
    shards.add(pool.finished_games()?);
    status(&shards, &pool, model_step, true)?;
    shards.add(pool.stop());
    shards.publish()?;
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
}
