//! The run's settings, in one place: every `[section]` of a config file (`configs/*.toml`,
//! `RUN/config.toml`) as a struct with its meaning and default, the one loader of a config
//! file and of a run's recorded config, and one check type that names the file and the key.
//! Unknown keys and bad values are errors; older spellings are read ([`compat`]).
//!
//! One module per section: [`net`], [`search`], [`selfplay`], [`batching`], [`train`],
//! [`evaluation`], [`retention`] (`[checkpoints]`), [`lease`]; [`serve`]: the web server's
//! limits (a file of its own); [`rules`]: the rules' default and the one default cap on
//! whole turns (no section: self-play's cap is `selfplay.ply_cap`); [`timings`]: how often
//! the roles publish and look (not a config key: a preset per way of running); [`decided`]:
//! when a shallow search calls a position decided; [`check`]: the one check type. Here:
//! [`RunConfig`] and [`ConfigError`].
//!
//! This module only holds data: what the settings build (workers, nets, searches, probes) is
//! built by the module that owns it.

pub mod batching;
pub mod check;
mod compat;
pub mod decided;
pub mod evaluation;
pub mod lease;
pub mod net;
pub mod retention;
pub mod rules;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod timings;
pub mod train;

use std::path::Path;

use serde::{Deserialize, Serialize};

use self::batching::BatchingConfig;
use self::check::KeyError;
use self::evaluation::EvaluationConfig;
use self::lease::LeaseConfig;
use self::net::NetConfig;
use self::retention::RetentionConfig;
use self::search::SearchConfig;
use self::selfplay::SelfPlayConfig;
use self::train::TrainConfig;
use crate::game::{GameKind, RulesConfig};
use crate::layout::{run_dir_of_weights, CONFIG};

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
    /// A value outside its allowed range, or an override that does not apply.
    #[error("{path}: {error}")]
    Invalid {
        /// The file.
        path: String,
        /// The key and what is wrong with it.
        error: KeyError,
    },
    /// A run directory without its recorded config.
    #[error("{run} has no {CONFIG}: it is not a run directory, or its config was lost")]
    NoRunConfig {
        /// The run directory.
        run: String,
    },
}

impl ConfigError {
    /// A syntax or key error of the TOML in `path`.
    pub fn parse(path: &str, error: &toml::de::Error) -> ConfigError {
        ConfigError::Parse {
            path: path.to_string(),
            message: error.to_string().trim().replace('\n', " "),
        }
    }

    /// The bad key, when the error names one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { error, .. } => Some(&error.key),
            _ => None,
        }
    }
}

/// A whole run's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Game: `rematch`, `rematch3`, `hexdame` or `eximo`.
    pub game: String,
    /// Seed of everything random in the run (net initialisation, games, sampling).
    #[serde(default = "default_seed")]
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
    /// How self-play's positions are batched through the net (`[evaluator]` in older
    /// configs).
    #[serde(default)]
    pub batching: BatchingConfig,
    /// Training settings.
    #[serde(default)]
    pub train: TrainConfig,
    /// Periodic evaluation of new checkpoints (and optional gating).
    #[serde(default)]
    pub evaluation: EvaluationConfig,
    /// Which checkpoints are kept, and of what.
    #[serde(default)]
    pub checkpoints: RetentionConfig,
    /// The leases of a distributed run's learner and evaluation role.
    #[serde(default)]
    pub lease: LeaseConfig,
}

/// The game `name` names (the `game` key).
fn parse_game(name: &str) -> Result<GameKind, KeyError> {
    name.parse().map_err(|_| {
        let message = format!("unknown game `{name}` ({})", GameKind::names(", "));
        KeyError::new("game", message)
    })
}

/// A run's recorded config file; a run without one is an error.
fn run_config_path(run_dir: &Path) -> Result<std::path::PathBuf, ConfigError> {
    let path = run_dir.join(CONFIG);
    if !path.is_file() {
        return Err(ConfigError::NoRunConfig {
            run: run_dir.display().to_string(),
        });
    }
    Ok(path)
}

/// The text of a config file (a run's or the server's).
fn read_config_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        path: path.display().to_string(),
        source,
    })
}

fn default_seed() -> u64 {
    1
}

impl RunConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::load_with(path, &[])
    }

    /// Reads a config file with `KEY=VALUE` overrides (see [`RunConfig::parse_with`]).
    pub fn load_with(path: &Path, overrides: &[String]) -> Result<RunConfig, ConfigError> {
        let text = read_config_text(path)?;
        RunConfig::parse_with(&text, &path.display().to_string(), overrides)
    }

    /// The config a run recorded (`RUN/config.toml`); a run without one is an error.
    pub fn of_run(run_dir: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::load(&run_config_path(run_dir)?)
    }

    /// The game a run trains (`RUN/config.toml`'s `game`), the rest of its config unread.
    pub fn game_of_run(run_dir: &Path) -> Result<GameKind, ConfigError> {
        let path = run_config_path(run_dir)?;
        let text = read_config_text(&path)?;
        RunConfig::game_in(&text, &path.display().to_string())
    }

    /// The game a run's config text names, the rest unread (a config another build wrote
    /// still says its game); `name` labels errors.
    pub fn game_in(text: &str, name: &str) -> Result<GameKind, ConfigError> {
        /// A config's `game` line alone.
        #[derive(Deserialize)]
        struct Game {
            game: String,
        }
        let read: Game = toml::from_str(text).map_err(|e| ConfigError::parse(name, &e))?;
        parse_game(&read.game).map_err(|error| ConfigError::Invalid {
            path: name.to_string(),
            error,
        })
    }

    /// The config of the run a weights file was trained in, when it lies in a run's
    /// checkpoint directory (`RUN/checkpoints/step-N/model.safetensors`); `None` for a
    /// model outside a run.
    pub fn of_checkpoint(weights: &Path) -> Result<Option<RunConfig>, ConfigError> {
        run_dir_of_weights(weights)
            .map(|run| RunConfig::of_run(&run))
            .transpose()
    }

    /// The `[search]` a weights file was trained with: its run's, or the defaults for a
    /// model outside a run.
    pub fn search_of_checkpoint(weights: &Path) -> Result<SearchConfig, ConfigError> {
        Ok(RunConfig::of_checkpoint(weights)?
            .map(|run| run.search)
            .unwrap_or_default())
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
        let parse_error = |e: toml::de::Error| ConfigError::parse(name, &e);
        let invalid = |error: KeyError| ConfigError::Invalid {
            path: name.to_string(),
            error,
        };
        let mut table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        compat::read_older_spellings(&mut table).map_err(invalid)?;
        for item in overrides {
            compat::set_key(&mut table, item).map_err(invalid)?;
        }
        let config: RunConfig = table.try_into().map_err(parse_error)?;
        config.validate().map_err(invalid)?;
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
            ply_cap: self.selfplay.ply_cap,
            ..RulesConfig::default()
        }
    }

    /// Checks every value's range, naming the first bad key.
    pub fn validate(&self) -> Result<(), KeyError> {
        self.check_game_and_net()?;
        self.selfplay.check()?;
        self.search.check("search.")?;
        self.batching.check()?;
        self.train.check()?;
        self.evaluation.check()?;
        self.checkpoints.check()?;
        self.lease.check()
    }

    fn check_game_and_net(&self) -> Result<(), KeyError> {
        parse_game(&self.game)?;
        let Some(net) = &self.net else {
            return Ok(());
        };
        check::first_failure(
            "net.",
            &[
                ("blocks", (1..=64).contains(&net.blocks), "must be 1..=64"),
                (
                    "channels",
                    (1..=1024).contains(&net.channels),
                    "must be 1..=1024",
                ),
                (
                    "policy_channels",
                    (1..=1024).contains(&net.policy_channels),
                    "must be 1..=1024",
                ),
                (
                    "value_hidden",
                    (1..=1024).contains(&net.value_hidden),
                    "must be 1..=1024",
                ),
            ],
        )
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

#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_its_config_is_an_error_in_words() {
        let dir = std::env::temp_dir().join(format!("cz-config-{}", std::process::id()));
        let checkpoint = dir.join("run/checkpoints/step-00000010");
        std::fs::create_dir_all(&checkpoint).unwrap();
        let weights = checkpoint.join("model.safetensors");
        let error = RunConfig::of_run(&dir.join("run")).unwrap_err().to_string();
        assert!(error.contains("has no config.toml"), "{error}");
        let error = RunConfig::of_checkpoint(&weights).unwrap_err().to_string();
        assert!(error.contains("has no config.toml"), "{error}");
        // A model outside a run has no run config, and that is no error.
        assert!(RunConfig::of_checkpoint(&dir.join("model.safetensors"))
            .unwrap()
            .is_none());
        std::fs::write(dir.join("run").join(CONFIG), "game = \"eximo\"\n").unwrap();
        let config = RunConfig::of_checkpoint(&weights).unwrap().unwrap();
        assert_eq!(config.kind(), GameKind::Eximo);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_bad_value_names_the_file_and_the_full_key() {
        let text = "game = \"rematch\"\n[batching]\nstreams = 0\n";
        let error = RunConfig::parse(text, "x.toml").unwrap_err();
        assert_eq!(error.key(), Some("batching.streams"));
        assert_eq!(
            error.to_string(),
            "x.toml: key `batching.streams`: must be 1..=16"
        );
        let error =
            RunConfig::parse_with("game = \"rematch\"\n", "x.toml", &["train".into()]).unwrap_err();
        assert_eq!(error.key(), Some("train"));
    }
}
