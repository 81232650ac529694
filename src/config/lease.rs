//! The lease section (`[lease]`): how long the leases of a distributed run's singleton roles
//! (the learner and the evaluation role) last, and how often their holders renew them. The leases
//! themselves: `crate::roles::lease`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::check::{first_failure, Check};

/// The lease settings (`[lease]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LeaseConfig {
    /// Seconds a lease lasts unless renewed: how long a killed holder's run waits before
    /// another takes it over.
    pub seconds: f64,
    /// Seconds between renewals (at most half the lease, so one failed renewal is retried
    /// in time).
    pub renew_seconds: f64,
}

impl Default for LeaseConfig {
    fn default() -> Self {
        LeaseConfig {
            seconds: 60.0,
            renew_seconds: 15.0,
        }
    }
}

impl LeaseConfig {
    /// Checks every value's range, naming the first bad key.
    pub fn check(&self) -> Check {
        first_failure(
            "lease.",
            &[
                (
                    "seconds",
                    (1.0..=3600.0).contains(&self.seconds),
                    "must be 1..=3600",
                ),
                (
                    "renew_seconds",
                    self.renew_seconds > 0.0 && self.renew_seconds * 2.0 <= self.seconds,
                    "must be more than 0 and at most half of lease.seconds",
                ),
            ],
        )
    }

    /// The lease time (the default's for a value out of range).
    pub fn duration(&self) -> Duration {
        Duration::try_from_secs_f64(self.seconds).unwrap_or(Duration::from_secs(60))
    }

    /// The time between renewals (the default's for a value out of range).
    pub fn renew_interval(&self) -> Duration {
        Duration::try_from_secs_f64(self.renew_seconds).unwrap_or(Duration::from_secs(15))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_settings_are_checked() {
        let config = LeaseConfig::default();
        assert_eq!(config.check(), Ok(()));
        assert_eq!(config.duration(), Duration::from_secs(60));
        assert_eq!(config.renew_interval(), Duration::from_secs(15));
        let parsed: LeaseConfig = toml::from_str("seconds = 30.0\nrenew_seconds = 10.0").unwrap();
        assert_eq!(parsed.check(), Ok(()));
        for (seconds, renew, key) in [
            (0.5, 0.1, "lease.seconds"),
            (f64::NAN, 1.0, "lease.seconds"),
            (30.0, 20.0, "lease.renew_seconds"),
            (30.0, 0.0, "lease.renew_seconds"),
        ] {
            let config = LeaseConfig {
                seconds,
                renew_seconds: renew,
            };
            assert_eq!(config.check().unwrap_err().key, key, "{seconds} {renew}");
        }
        assert!(toml::from_str::<LeaseConfig>("secs = 3.0").is_err());
    }
}
