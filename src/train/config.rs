//! The run configuration (`configs/*.toml`): every key, its meaning and its default. Unknown
//! keys and bad values are errors that name the key.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::evaluation::EvaluationConfig;
use super::retention::RetentionConfig;
use super::trainer::LossWeights;
use crate::game::{GameKind, RulesConfig};
use crate::net::args::{announce, prepare, NetArgs, NetSettings};
use crate::net::batcher::BatcherConfig;
use crate::net::device::DeviceChoice;
use crate::net::model::{Model, NetConfig};
use crate::net::precision::{Precision, Resolved};
use crate::net::threads::{auto_layout, cores, Count, Layout};
use crate::net::NetError;
pub use crate::search::config::{SearchConfig, SearchKind};
use crate::selfplay::config::MOVED_TO_SEARCH;
pub use crate::selfplay::config::{GumbelPlay, NewWeights, SelfPlayConfig};
use crate::selfplay::worker::WorkerSettings;

/// Errors reading a config.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// TOML syntax, an unknown key or a value of the wrong type.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What TOML/serde said (it names the key).
        message: String,
    },
    /// A value outside its allowed range.
    #[error("{path}: key `{key}`: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The full key, e.g. `selfplay.full_visits`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// A whole run's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Game: `rematch`, `rematch3`, `hexdame` or `eximo`.
    pub game: String,
    /// Seed of everything random in the run (net initialisation, games, sampling).
    #[serde(default = "defaults::seed")]
    pub seed: u64,
    /// Net size; defaults to the game's standard size.
    #[serde(default)]
    pub net: Option<NetConfig>,
    /// Search settings: self-play's searches, evaluation's and an export's.
    #[serde(default)]
    pub search: SearchConfig,
    /// Self-play settings.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Batched inference settings for self-play.
    #[serde(default)]
    pub evaluator: BatchingSettings,
    /// Training settings.
    #[serde(default)]
    pub train: TrainConfig,
    /// Periodic evaluation of new checkpoints (and optional gating).
    #[serde(default)]
    pub evaluation: EvaluationConfig,
    /// Which checkpoints are kept, and of what.
    #[serde(default)]
    pub checkpoints: RetentionConfig,
}

/// Batched-inference settings for self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BatchingSettings {
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Longest wait (ms) for a batch to fill.
    pub max_wait_ms: f64,
    /// `auto` (fp32 or bf16, whichever the probe measures faster on this machine), `fp32`
    /// or `bf16`.
    pub precision: Precision,
    /// Older spelling of `precision` (true: bf16, false: fp32); kept so that configs of
    /// older runs still load. Not written back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bf16: Option<bool>,
    /// Where self-play's net runs: `auto`, `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// libtorch threads of each evaluator (0: libtorch's default; `auto`: see
    /// [`crate::net::threads`]).
    pub torch_threads: Count,
    /// Batcher instances, each with its own copy of the net; worker `w` uses instance
    /// `w % instances` (`auto`: see [`crate::net::threads`]).
    pub instances: Count,
}

/// Training settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per training step.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// Step schedule of the learning rate: `[[step, factor], ...]` with rising steps; from
    /// each step on, the rate is `learning_rate * factor` (empty: constant).
    pub learning_rate_drops: Vec<(u64, f64)>,
    /// Share of the run's budget (its step target, else its minutes) at the end over which
    /// the learning rate falls linearly to `learning_rate_final` of itself (0: no decay).
    pub learning_rate_decay_share: f64,
    /// The learning rate's factor at the end of the decay.
    pub learning_rate_final: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Augment with the symmetries that exchange colours as well as the board's (ReMATCH:
    /// White and Orange swapped, 24 maps instead of 12; no effect in the other games).
    pub colour_symmetry: bool,
    /// Weight of the W/D/L loss next to the policy loss.
    pub value_loss_weight: f64,
    /// Weight of the moves-left loss (a net with `net.moves_left` only).
    pub moves_left_loss_weight: f64,
    /// Share of the value target taken from the search's value of the position instead of
    /// the game's result (0: the result alone).
    pub value_q_mix: f64,
    /// Share of the batch draw weight given by policy surprise: samples are drawn with
    /// frequency `(1 - w) + w * surprise / mean surprise` (0: uniform; KataGo uses 0.5).
    pub policy_surprise_weight: f64,
    /// Training steps per iteration; a checkpoint ends every iteration.
    pub steps_per_iteration: u64,
    /// Stop after this many iterations in total (0: no limit).
    pub iterations: u64,
    /// Stop after this many minutes of this invocation (0: no limit).
    pub max_minutes: f64,
    /// Positions sampled for training per new self-play sample (pacing of the trainer).
    pub replay_ratio: f64,
    /// Training starts once the window holds this many positions.
    pub min_window: usize,
    /// The window's size at the start (KataGo's c): it grows as the run produces positions.
    pub window_base: usize,
    /// Growth exponent of the window (KataGo's alpha).
    pub window_exponent: f64,
    /// Growth scale of the window (KataGo's beta).
    pub window_scale: f64,
    /// The largest window.
    pub window_max: usize,
    /// libtorch threads of the trainer (0: libtorch's default).
    pub torch_threads: i32,
    /// Where training runs: `auto`, `cpu`, `cuda` or `cuda:N` (may differ from
    /// `evaluator.device`: a learner on the GPU, self-play on the CPU).
    pub device: DeviceChoice,
}

mod defaults {
    pub fn seed() -> u64 {
        1
    }
}

impl Default for BatchingSettings {
    fn default() -> Self {
        BatchingSettings {
            max_batch: 128,
            max_wait_ms: 2.0,
            precision: Precision::Auto,
            bf16: None,
            device: DeviceChoice::Auto,
            torch_threads: Count::Auto,
            instances: Count::Auto,
        }
    }
}

impl BatchingSettings {
    /// The first key out of range and what is wrong with it.
    pub fn check(&self) -> Option<(&'static str, &'static str)> {
        let checks = [
            (
                "evaluator.max_batch",
                (1..=4096).contains(&self.max_batch),
                "must be 1..=4096",
            ),
            (
                "evaluator.max_wait_ms",
                (0.0..=1000.0).contains(&self.max_wait_ms),
                "must be in [0, 1000]",
            ),
            (
                "evaluator.torch_threads",
                self.torch_threads.within(0..=256),
                "must be 0..=256 or \"auto\"",
            ),
            (
                "evaluator.instances",
                self.instances.within(1..=64),
                "must be 1..=64 or \"auto\"",
            ),
            (
                "evaluator.bf16",
                self.bf16.is_none() || self.precision == Precision::Auto,
                "give either `precision` or the older `bf16`, not both",
            ),
        ];
        checks
            .into_iter()
            .find(|(_, ok, _)| !ok)
            .map(|(key, _, message)| (key, message))
    }
}

impl TrainConfig {
    /// The weights of the value and auxiliary losses.
    pub fn loss_weights(&self) -> LossWeights {
        LossWeights {
            value: self.value_loss_weight,
            moves_left: self.moves_left_loss_weight,
        }
    }

    /// The learning rate of training step `step` (counting from 0), `progress` (0..=1) of
    /// the way through the run's budget when it has one.
    pub fn learning_rate_at(&self, step: u64, progress: Option<f64>) -> f64 {
        let factor = self
            .learning_rate_drops
            .iter()
            .take_while(|(from, _)| *from <= step)
            .last()
            .map_or(1.0, |(_, factor)| *factor);
        let share = self.learning_rate_decay_share;
        let decay = match progress {
            Some(p) if share > 0.0 && p > 1.0 - share => {
                let into = ((p - (1.0 - share)) / share).min(1.0);
                1.0 - (1.0 - self.learning_rate_final) * into
            }
            _ => 1.0,
        };
        self.learning_rate * factor * decay
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            learning_rate: 1e-3,
            learning_rate_drops: Vec::new(),
            learning_rate_decay_share: 0.35,
            learning_rate_final: 0.1,
            colour_symmetry: false,
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
            moves_left_loss_weight: 0.5,
            value_q_mix: 0.0,
            policy_surprise_weight: 0.0,
            steps_per_iteration: 100,
            iterations: 0,
            max_minutes: 0.0,
            replay_ratio: 4.0,
            min_window: 2_000,
            window_base: 20_000,
            window_exponent: 0.75,
            window_scale: 0.4,
            window_max: 500_000,
            torch_threads: 1,
            device: DeviceChoice::Auto,
        }
    }
}

impl RunConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::load_with(path, &[])
    }

    /// Reads a config file with `KEY=VALUE` overrides (see [`RunConfig::parse_with`]).
    pub fn load_with(path: &Path, overrides: &[String]) -> Result<RunConfig, ConfigError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: name.clone(),
            source,
        })?;
        RunConfig::parse_with(&text, &name, overrides)
    }

    /// Parses and checks config text; `name` labels errors.
    pub fn parse(text: &str, name: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::parse_with(text, name, &[])
    }

    /// Parses config text with `KEY=VALUE` overrides put over it (dotted keys such as
    /// `train.weight_decay=0.01`; a value that does not read as TOML is a string), and
    /// checks the result.
    pub fn parse_with(
        text: &str,
        name: &str,
        overrides: &[String],
    ) -> Result<RunConfig, ConfigError> {
        let parse_error = |e: toml::de::Error| ConfigError::Parse {
            path: name.to_string(),
            message: e.to_string().trim().replace('\n', " "),
        };
        let mut table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        for item in overrides {
            set_key(&mut table, item).map_err(|(key, message)| ConfigError::Invalid {
                path: name.to_string(),
                key,
                message,
            })?;
        }
        moved_keys(&table).map_err(|(key, message)| ConfigError::Invalid {
            path: name.to_string(),
            key,
            message,
        })?;
        let config: RunConfig = table.try_into().map_err(parse_error)?;
        config.validate(name)?;
        Ok(config)
    }

    /// The config as TOML (what a run directory records).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("configs serialise")
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        self.game.parse().expect("validated")
    }

    /// The net size: the configured one or the game's standard size.
    pub fn net_config(&self) -> NetConfig {
        self.net
            .clone()
            .unwrap_or_else(|| NetConfig::default_for(self.kind()))
    }

    /// The rules self-play games are played under.
    pub fn rules(&self) -> RulesConfig {
        RulesConfig {
            ply_cap: if self.selfplay.ply_cap == 0 {
                RulesConfig::default().ply_cap
            } else {
                self.selfplay.ply_cap
            },
            ..RulesConfig::default()
        }
    }

    /// The self-play workers' settings.
    pub fn worker_settings(&self) -> WorkerSettings {
        WorkerSettings::new(
            self.kind(),
            self.rules(),
            self.selfplay.clone(),
            self.search.clone(),
            self.seed,
        )
    }

    /// Puts `--precision` and `--device` over the config (`--device` sets both the
    /// evaluator's and the trainer's device).
    pub fn override_net(&mut self, args: &NetArgs) {
        if let Some(precision) = args.precision {
            self.evaluator.precision = precision;
            self.evaluator.bf16 = None;
        }
        if let Some(device) = args.device {
            self.evaluator.device = device;
            self.train.device = device;
        }
    }

    /// Self-play's precision and device (the older `bf16` key, when given, sets the
    /// precision).
    pub fn net_settings(&self) -> NetSettings {
        let e = &self.evaluator;
        NetSettings {
            precision: match e.bf16 {
                Some(true) => Precision::Bf16,
                Some(false) => Precision::Fp32,
                None => e.precision,
            },
            device: e.device,
        }
    }

    /// Self-play workers, evaluator instances and their threads, `auto` settled for this
    /// machine's cores and the evaluator's device.
    pub fn layout(&self) -> Result<Layout, NetError> {
        let auto = auto_layout(cores(), self.evaluator.device.resolve()?);
        let e = &self.evaluator;
        Ok(Layout {
            workers: self.selfplay.workers.or(auto.workers),
            instances: e.instances.or(auto.instances),
            torch_threads: e.torch_threads.or(auto.torch_threads),
        })
    }

    /// The settings of each self-play evaluator instance, before its precision is settled
    /// ([`crate::net::args::prepare`]).
    pub fn evaluator_config(&self, layout: &Layout) -> BatcherConfig {
        let e = &self.evaluator;
        BatcherConfig {
            max_batch: e.max_batch,
            max_wait: std::time::Duration::from_secs_f64(e.max_wait_ms / 1000.0),
            torch_threads: layout.torch_threads as i32,
            ..BatcherConfig::default()
        }
    }

    /// Self-play's layout and the evaluator config that runs `model` on this machine: `auto`
    /// counts, device and precision settled (the precision is printed once).
    pub fn selfplay_evaluator(
        &self,
        model: &Model,
    ) -> Result<(Layout, BatcherConfig, Resolved), NetError> {
        let layout = self.layout()?;
        let (config, precision) =
            prepare(model, self.net_settings(), self.evaluator_config(&layout))?;
        announce(&precision);
        Ok((layout, config, precision))
    }

    /// Checks every value's range, naming the first bad key.
    pub fn validate(&self, name: &str) -> Result<(), ConfigError> {
        self.check_game_and_net()
            .and_then(|_| check_selfplay(&self.selfplay))
            .and_then(|_| self.search.check("search.").map_err(|e| (e.key, e.message)))
            .and_then(|_| check_evaluator(&self.evaluator))
            .and_then(|_| check_train(&self.train))
            .and_then(|_| self.evaluation.check().map_or(Ok(()), Err))
            .and_then(|_| match self.checkpoints.check() {
                Some((key, message)) => Err((key.into(), message.into())),
                None => Ok(()),
            })
            .map_err(|(key, message)| ConfigError::Invalid {
                path: name.to_string(),
                key,
                message,
            })
    }

    fn check_game_and_net(&self) -> Check {
        if self.game.parse::<GameKind>().is_err() {
            let message = format!("unknown game `{}` ({})", self.game, GameKind::names(", "));
            return Err(("game".into(), message));
        }
        let Some(net) = &self.net else {
            return Ok(());
        };
        first_failure(&[
            (
                "net.blocks",
                (1..=64).contains(&net.blocks),
                "must be 1..=64",
            ),
            (
                "net.channels",
                (1..=1024).contains(&net.channels),
                "must be 1..=1024",
            ),
            (
                "net.policy_channels",
                (1..=1024).contains(&net.policy_channels),
                "must be 1..=1024",
            ),
            (
                "net.value_hidden",
                (1..=1024).contains(&net.value_hidden),
                "must be 1..=1024",
            ),
        ])
    }

    /// The replay window's size after `positions` self-play positions (KataGo's rule): it
    /// starts at `window_base` and grows sub-linearly, capped at `window_max`.
    pub fn window_size(&self, positions: u64) -> usize {
        let t = &self.train;
        let c = t.window_base as f64;
        let n = positions as f64;
        let size = if n <= c {
            c
        } else {
            c * (1.0 + t.window_scale * ((n / c).powf(t.window_exponent) - 1.0) / t.window_exponent)
        };
        (size as usize).min(t.window_max)
    }
}

/// The first bad key and what is wrong with it, if any.
type Check = Result<(), (String, String)>;

/// The first `(key, ok, message)` that is not ok.
fn first_failure(checks: &[(&str, bool, &str)]) -> Check {
    match checks.iter().find(|(_, ok, _)| !ok) {
        Some((key, _, message)) => Err((key.to_string(), message.to_string())),
        None => Ok(()),
    }
}

/// A search key still in `[selfplay]` (where older configs had it) is an error that says
/// where it went.
fn moved_keys(table: &toml::Table) -> Check {
    let Some(selfplay) = table.get("selfplay").and_then(toml::Value::as_table) else {
        return Ok(());
    };
    match MOVED_TO_SEARCH
        .iter()
        .find(|(old, _)| selfplay.contains_key(*old))
    {
        Some((old, new)) => Err((
            format!("selfplay.{old}"),
            format!("moved to [search] as `{new}`"),
        )),
        None => Ok(()),
    }
}

/// Puts one `KEY=VALUE` override into `table`.
fn set_key(table: &mut toml::Table, item: &str) -> Check {
    let Some((key, value)) = item.split_once('=') else {
        return Err((item.into(), "an override is KEY=VALUE".into()));
    };
    let key = key.trim();
    let value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().filter(|k| !k.is_empty());
    let Some(last) = last else {
        return Err((key.into(), "an override needs a key".into()));
    };
    let mut at = table;
    for part in parts {
        let entry = at
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        at = match entry {
            toml::Value::Table(t) => t,
            _ => return Err((key.into(), format!("`{part}` is not a section"))),
        };
    }
    at.insert(last.to_string(), value);
    Ok(())
}

fn check_selfplay(s: &SelfPlayConfig) -> Check {
    first_failure(&[
        (
            "selfplay.workers",
            s.workers.within(1..=64),
            "must be 1..=64 or \"auto\"",
        ),
        (
            "selfplay.games_in_flight",
            (1..=4096).contains(&s.games_in_flight),
            "must be 1..=4096",
        ),
        (
            "selfplay.games_in_flight_start",
            s.games_in_flight_start <= 4096,
            "must be 0..=4096",
        ),
        (
            "selfplay.fast_visits",
            s.fast_visits >= 1,
            "must be at least 1",
        ),
        (
            "selfplay.full_search_share",
            s.full_search_share > 0.0 && s.full_search_share <= 1.0,
            "must be in (0, 1]",
        ),
        (
            "selfplay.reanalyse_share",
            (0.0..=0.9).contains(&s.reanalyse_share),
            "must be in [0, 0.9] (some slots must play new games)",
        ),
        (
            "selfplay.reanalyse_games",
            (1..=1_000_000).contains(&s.reanalyse_games),
            "must be 1..=1000000",
        ),
        (
            "selfplay.temperature_start",
            s.temperature_start >= 0.0,
            "must be >= 0",
        ),
        (
            "selfplay.temperature_end",
            s.temperature_end >= 0.0,
            "must be >= 0",
        ),
        (
            "selfplay.temperature_halflife",
            s.temperature_halflife > 0.0,
            "must be positive",
        ),
        (
            "selfplay.opening_random_turns",
            s.opening_random_turns <= 1000,
            "must be 0..=1000",
        ),
        (
            "selfplay.groups",
            (1..=64).contains(&s.groups) && s.groups <= s.games_in_flight.max(1),
            "must be 1..=64 and at most games_in_flight",
        ),
        (
            "selfplay.proven_nodes",
            s.proven_nodes <= 10_000_000,
            "must be 0..=10000000",
        ),
        (
            "selfplay.opponent_share",
            (0.0..=0.9).contains(&s.opponent_share),
            "must be in [0, 0.9] (most games must train the current net)",
        ),
        (
            "selfplay.opponent_lag",
            (1..=1000).contains(&s.opponent_lag),
            "must be 1..=1000",
        ),
    ])
    .and_then(|_| check_resign(s))
}

/// The resignation keys of `[selfplay]`.
fn check_resign(s: &SelfPlayConfig) -> Check {
    let unit = |v: f32| (0.0..=1.0).contains(&v);
    first_failure(&[
        (
            "selfplay.resign_threshold",
            (-1.0..=1.0).contains(&s.resign_threshold),
            "must be in [-1, 1]",
        ),
        (
            "selfplay.resign_playthrough",
            unit(s.resign_playthrough),
            "must be in [0, 1]",
        ),
        (
            "selfplay.resign_false_rate",
            unit(s.resign_false_rate),
            "must be in [0, 1]",
        ),
        (
            "selfplay.resign_min_samples",
            s.resign_min_samples >= 1,
            "must be at least 1",
        ),
        (
            "selfplay.resign_history",
            s.resign_history >= s.resign_min_samples,
            "must be at least selfplay.resign_min_samples",
        ),
    ])
}

fn check_evaluator(e: &BatchingSettings) -> Check {
    e.check()
        .map_or(Ok(()), |(key, message)| Err((key.into(), message.into())))
}

fn check_train(t: &TrainConfig) -> Check {
    first_failure(&[
        (
            "train.batch_size",
            (1..=65536).contains(&t.batch_size),
            "must be 1..=65536",
        ),
        (
            "train.learning_rate",
            t.learning_rate > 0.0 && t.learning_rate < 10.0,
            "must be in (0, 10)",
        ),
        (
            "train.learning_rate_drops",
            t.learning_rate_drops.windows(2).all(|w| w[0].0 < w[1].0)
                && t.learning_rate_drops
                    .iter()
                    .all(|(_, f)| *f > 0.0 && *f <= 10.0),
            "must be [[step, factor], ...] with rising steps and factors in (0, 10]",
        ),
        (
            "train.learning_rate_decay_share",
            (0.0..=1.0).contains(&t.learning_rate_decay_share),
            "must be in [0, 1]",
        ),
        (
            "train.learning_rate_final",
            t.learning_rate_final > 0.0 && t.learning_rate_final <= 1.0,
            "must be in (0, 1]",
        ),
        ("train.weight_decay", t.weight_decay >= 0.0, "must be >= 0"),
        (
            "train.value_loss_weight",
            t.value_loss_weight >= 0.0,
            "must be >= 0",
        ),
        (
            "train.moves_left_loss_weight",
            t.moves_left_loss_weight >= 0.0,
            "must be >= 0",
        ),
        (
            "train.value_q_mix",
            (0.0..=1.0).contains(&t.value_q_mix),
            "must be in [0, 1]",
        ),
        (
            "train.policy_surprise_weight",
            (0.0..=1.0).contains(&t.policy_surprise_weight),
            "must be in [0, 1]",
        ),
    ])?;
    check_pacing(t)
}

/// The iteration, pacing and window keys of `[train]`.
fn check_pacing(t: &TrainConfig) -> Check {
    first_failure(&[
        (
            "train.steps_per_iteration",
            t.steps_per_iteration >= 1,
            "must be at least 1",
        ),
        ("train.max_minutes", t.max_minutes >= 0.0, "must be >= 0"),
        (
            "train.replay_ratio",
            t.replay_ratio > 0.0,
            "must be positive",
        ),
        ("train.min_window", t.min_window >= 1, "must be at least 1"),
        (
            "train.window_base",
            t.window_base >= 1,
            "must be at least 1",
        ),
        (
            "train.window_exponent",
            t.window_exponent > 0.0 && t.window_exponent <= 1.0,
            "must be in (0, 1]",
        ),
        ("train.window_scale", t.window_scale >= 0.0, "must be >= 0"),
        (
            "train.torch_threads",
            (0..=256).contains(&t.torch_threads),
            "must be 0..=256",
        ),
        (
            "train.window_max",
            t.window_max >= t.window_base,
            "must be at least train.window_base",
        ),
        (
            "train.min_window",
            t.min_window <= t.window_max,
            "must be at most train.window_max",
        ),
    ])
}
