//! Riding out a store that does not answer: bounded, jittered exponential backoff. A role
//! whose store request fails for a reason that may pass (the network, the server, a
//! timeout) waits and tries again instead of ending, says so, and counts it; errors that
//! will not pass (a bad location, an object that must not be replaced) end it as before.
//!
//! [`Backoff`] is the schedule: the n-th failure in a row waits `base × 2^(n-1)`, capped,
//! times a random factor in [0.5, 1] so that many workers do not retry in step.
//! [`retry`] runs an operation under it until it succeeds or the time allowed is spent.

use std::time::{Duration, Instant};

use rand::Rng;

use super::lease::LeaseError;
use super::RoleError;
use crate::store::StoreError;

/// The first wait after a failure.
pub const BASE: Duration = Duration::from_millis(500);
/// The longest wait between tries.
pub const CAP: Duration = Duration::from_secs(30);
/// How long [`retry`] tries before it gives up (a store down this long is not an outage).
pub const PATIENCE: Duration = Duration::from_secs(15 * 60);

/// True for a store error that may pass by itself: a request that failed. A bad location,
/// missing rights, or an object that exists where a new one was to be written, will not.
pub fn transient(error: &RoleError) -> bool {
    match error {
        RoleError::Store(error) | RoleError::Lease(LeaseError::Store(error)) => {
            transient_store(error)
        }
        _ => false,
    }
}

/// [`transient`] for the store's own error.
fn transient_store(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Request { source, .. }
            if !matches!(
                source,
                object_store::Error::NotImplemented { .. }
                    | object_store::Error::NotSupported { .. }
                    | object_store::Error::PermissionDenied { .. }
                    | object_store::Error::Unauthenticated { .. }
                    | object_store::Error::InvalidPath { .. }
                    | object_store::Error::UnknownConfigurationKey { .. }
            )
    )
}

/// The retry schedule of one kind of request.
#[derive(Clone, Debug)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    /// Failures in a row.
    failures: u32,
    /// Every failure since the start (for metrics).
    pub total_failures: u64,
    /// No try before this.
    next_try: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff::new(BASE, CAP)
    }
}

impl Backoff {
    /// A schedule from `base` doubling up to `cap`.
    pub fn new(base: Duration, cap: Duration) -> Backoff {
        Backoff {
            base,
            cap,
            failures: 0,
            total_failures: 0,
            next_try: None,
        }
    }

    /// True when a try is allowed now.
    pub fn ready(&self) -> bool {
        self.next_try.is_none_or(|at| Instant::now() >= at)
    }

    /// Failures in a row so far (0: the store answers).
    pub fn failing(&self) -> u32 {
        self.failures
    }

    /// Records a failure; returns the wait before the next try.
    pub fn failed(&mut self) -> Duration {
        self.failures = self.failures.saturating_add(1);
        self.total_failures += 1;
        let doubled = self
            .base
            .saturating_mul(1u32 << self.failures.saturating_sub(1).min(20));
        let wait = doubled
            .min(self.cap)
            .mul_f64(rand::thread_rng().gen_range(0.5..=1.0));
        self.next_try = Some(Instant::now() + wait);
        wait
    }

    /// Records a success: the next failure starts from the base again.
    pub fn succeeded(&mut self) {
        self.failures = 0;
        self.next_try = None;
    }
}

/// Runs `op` until it succeeds, retrying transient store errors ([`transient`]) on the
/// [`Backoff`] schedule for up to `patience`, each retry named on stderr (`what` says
/// what was being done). Other errors, and the last one once `patience` is spent, are
/// returned.
pub fn retry<T>(
    what: &str,
    patience: Duration,
    mut op: impl FnMut() -> Result<T, RoleError>,
) -> Result<T, RoleError> {
    let started = Instant::now();
    let mut backoff = Backoff::default();
    loop {
        match op() {
            Ok(value) => return Ok(value),
            Err(error) if transient(&error) && started.elapsed() < patience => {
                let wait = backoff.failed();
                eprintln!(
                    "warning: {what}: the store did not answer ({error}); try {} in {:.1} s",
                    backoff.failing() + 1,
                    wait.as_secs_f64()
                );
                std::thread::sleep(wait);
            }
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outage() -> RoleError {
        RoleError::Store(StoreError::Request {
            location: "s3://b/run".into(),
            key: "games/x".into(),
            source: object_store::Error::Generic {
                store: "S3",
                source: "connection refused".into(),
            },
        })
    }

    #[test]
    fn waits_double_with_jitter_up_to_the_cap_and_reset_on_success() {
        let mut backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(700));
        assert!(backoff.ready());
        let waits: Vec<Duration> = (0..6).map(|_| backoff.failed()).collect();
        for (n, wait) in waits.iter().enumerate() {
            let full = Duration::from_millis(100 * (1 << n)).min(Duration::from_millis(700));
            assert!(*wait >= full / 2 && *wait <= full, "try {n}: {wait:?}");
        }
        assert!(!backoff.ready());
        assert_eq!((backoff.failing(), backoff.total_failures), (6, 6));
        backoff.succeeded();
        assert!(backoff.ready());
        assert!(backoff.failed() <= Duration::from_millis(100));
        assert_eq!(backoff.total_failures, 7);
    }

    #[test]
    fn retry_rides_out_transient_errors_only() {
        let mut calls = 0;
        let value = retry("test", Duration::from_secs(60), || {
            calls += 1;
            if calls < 3 {
                Err(outage())
            } else {
                Ok(calls)
            }
        })
        .unwrap();
        assert_eq!(value, 3);
        let mut calls = 0;
        let error = retry("test", Duration::from_secs(60), || -> Result<(), _> {
            calls += 1;
            Err(RoleError::Run("bad".into()))
        })
        .unwrap_err();
        assert_eq!((calls, error.to_string()), (1, "bad".to_string()));
        let exists = RoleError::Store(StoreError::Exists {
            location: "d".into(),
            key: "k".into(),
        });
        assert!(!transient(&exists) && transient(&outage()));
        // Out of patience: the last error comes back.
        let error = retry("test", Duration::ZERO, || -> Result<(), _> {
            Err(outage())
        });
        assert!(transient(&error.unwrap_err()));
    }
}
