//! The web server's limits (`serve --config FILE`, TOML; every key optional, top-level: the
//! file holds these keys only). The server itself: `crate::serve`.

use std::path::Path;

use serde::Deserialize;

use super::check::{first_failure, Check};
use super::{read_config_text, ConfigError};

/// The server's limits, as data.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Most root visits one search may ask for.
    pub max_visits: u32,
    /// Visits of a search that names none (the model's moves and analysis).
    pub default_visits: u32,
    /// Longest time one search may run, in seconds.
    pub max_seconds: f64,
    /// Searches running at once; more wait their turn.
    pub max_searches: usize,
    /// Root visits between two progress reports of an analysis.
    pub snapshot_visits: u32,
    /// Analyses kept for polling (the oldest finished ones are dropped first).
    pub max_analyses: usize,
    /// One line per request on stderr: method, path, status, milliseconds (`--log
    /// requests`).
    pub log_requests: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            max_body_bytes: 64 * 1024,
            max_visits: 100_000,
            default_visits: 200,
            max_seconds: 60.0,
            max_searches: 2,
            snapshot_visits: 50,
            max_analyses: 64,
            log_requests: false,
        }
    }
}

impl ServeConfig {
    /// Reads a limits file and checks it: an unknown key or a value out of range is an
    /// error naming the file and the key, as for a run's config.
    pub fn load(path: &Path) -> Result<ServeConfig, ConfigError> {
        let name = path.display().to_string();
        let text = read_config_text(path)?;
        let config: ServeConfig =
            toml::from_str(&text).map_err(|e| ConfigError::parse(&name, &e))?;
        config
            .check()
            .map_err(|error| ConfigError::Invalid { path: name, error })?;
        Ok(config)
    }

    /// Checks every key's range, naming the first bad key.
    pub fn check(&self) -> Check {
        first_failure(
            "",
            &[
                (
                    "max_body_bytes",
                    (1024..=16 << 20).contains(&self.max_body_bytes),
                    "must be 1024..=16777216",
                ),
                (
                    "max_visits",
                    (1..=10_000_000).contains(&self.max_visits),
                    "must be 1..=10000000",
                ),
                (
                    "default_visits",
                    (1..=self.max_visits).contains(&self.default_visits),
                    "must be 1..=max_visits",
                ),
                (
                    "max_seconds",
                    self.max_seconds > 0.0 && self.max_seconds <= 3600.0,
                    "must be more than 0 and at most 3600",
                ),
                (
                    "max_searches",
                    (1..=64).contains(&self.max_searches),
                    "must be 1..=64",
                ),
                (
                    "snapshot_visits",
                    (1..=100_000).contains(&self.snapshot_visits),
                    "must be 1..=100000",
                ),
                (
                    "max_analyses",
                    (1..=10_000).contains(&self.max_analyses),
                    "must be 1..=10000",
                ),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_checked_by_key() {
        assert_eq!(ServeConfig::default().check(), Ok(()));
        let config = ServeConfig {
            max_visits: 0,
            ..ServeConfig::default()
        };
        assert_eq!(config.check().unwrap_err().key, "max_visits");
        let parsed: Result<ServeConfig, _> = toml::from_str("max_visitz = 3");
        assert!(parsed.unwrap_err().to_string().contains("max_visitz"));
        let parsed: ServeConfig = toml::from_str("max_searches = 4").unwrap();
        assert_eq!(parsed.max_searches, 4);
    }

    #[test]
    fn a_limits_file_names_the_file_and_the_key() {
        let dir = std::env::temp_dir().join(format!("cz-serve-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("serve.toml");
        std::fs::write(&path, "max_searches = 0\n").unwrap();
        let error = ServeConfig::load(&path).unwrap_err();
        assert_eq!(error.key(), Some("max_searches"));
        assert!(error.to_string().contains("serve.toml"), "{error}");
        std::fs::write(&path, "max_visitz = 3\n").unwrap();
        let error = ServeConfig::load(&path).unwrap_err().to_string();
        assert!(error.contains("max_visitz"), "{error}");
        std::fs::write(&path, "max_searches = 4\n").unwrap();
        assert_eq!(ServeConfig::load(&path).unwrap().max_searches, 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
