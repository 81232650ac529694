//! Keeps a role's lease ([`super::lease`]) for as long as the role runs: a thread renews it
//! every `lease.renew_seconds` on a store of its own, and the role asks [`LeaseKeeper::check`]
//! before each write to the run. A renewal that fails because the store does not answer is
//! tried again at the next interval (the lease still holds until its expiry); one that finds
//! the lease taken over ends the keeping, and the role stops in words. Dropping the keeper
//! stops the thread and gives the lease up.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::backoff::{retry, transient};
use super::lease::{Lease, LeaseError, LeaseInfo, SingletonRole};
use super::{unix_millis, RoleError, StopFlag};
use crate::config::lease::LeaseConfig;
use crate::config::RunConfig;
use crate::layout::CONFIG;
use crate::store::RunStore;

/// The first bound of one request while taking a lease ([`LeaseKeeper::acquire_waiting`]):
/// short, so that a request that hangs (a store just restarted, or busy) costs little at
/// the holder's expiry; doubled after each try the store did not answer, up to the renewal
/// interval, so that a slow store is still reached.
const FIRST_ACQUIRE_BOUND: Duration = Duration::from_secs(2);

/// The lease settings of the run at `location`: its recorded config's `[lease]`, else
/// `given`'s (a new run), else the defaults; with the recorded config's text. A role's first
/// request: each try ends within the renewal interval, and a store that does not answer is
/// asked again for up to the lease time, so that a second learner hears promptly that the
/// run is held (an unbounded request to a stalled store could outlast the holder's lease).
pub fn lease_settings(
    location: &str,
    given: Option<&RunConfig>,
) -> Result<(LeaseConfig, Option<String>), RoleError> {
    let fallback = given.map(|config| config.lease.clone()).unwrap_or_default();
    let store = RunStore::open_bounded(location, &[], Some(fallback.renew_interval()))?;
    let text = retry("reading the run's config", fallback.duration(), || {
        Ok(store.get_text(CONFIG)?)
    })?;
    let Some(text) = text else {
        return Ok((fallback, None));
    };
    let name = format!("{}/{CONFIG}", store.location());
    let settings = RunConfig::parse(&text, &name)?.lease;
    Ok((settings, Some(text)))
}

/// What the renewing thread and the role share.
#[derive(Default)]
struct Shared {
    /// The lease's expiry as last written (Unix ms).
    expires_ms: AtomicU64,
    /// Why the lease was lost, once it was.
    lost: Mutex<Option<LeaseError>>,
    /// Set to end the thread.
    stop: AtomicBool,
    /// Renewals tried and failed so far (for the words of an expiry).
    tries: AtomicU64,
    failures: AtomicU64,
}

/// A held lease, renewed in the background until dropped.
pub struct LeaseKeeper {
    role: SingletonRole,
    info: LeaseInfo,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl LeaseKeeper {
    /// Takes the lease of `role` at the run `location` ([`Lease::acquire`]: refused in
    /// words while another holder's lease runs) and starts renewing it.
    pub fn acquire(
        location: &str,
        role: SingletonRole,
        settings: &LeaseConfig,
    ) -> Result<LeaseKeeper, RoleError> {
        LeaseKeeper::acquire_within(location, role, settings, settings.renew_interval())
    }

    /// [`LeaseKeeper::acquire`] with each request of the taking bounded by `bound`.
    fn acquire_within(
        location: &str,
        role: SingletonRole,
        settings: &LeaseConfig,
        bound: Duration,
    ) -> Result<LeaseKeeper, RoleError> {
        let taking = RunStore::open_bounded(location, &[], Some(bound))?;
        let lease = Lease::acquire(&taking, role, settings.duration())?;
        // Each request of a renewal ends within the time between renewals, so that one that
        // hangs (a store just restarted) fails and the next renewal starts afresh.
        let every = settings.renew_interval();
        let store = RunStore::open_bounded(location, &[], Some(every))?;
        let info = lease.info().clone();
        let shared = Arc::new(Shared::default());
        shared
            .expires_ms
            .store(info.expires_unix_ms, Ordering::Release);
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("{}-lease", role.name()))
            .spawn(move || renew_until_stopped(store, lease, every, &thread_shared))
            .map_err(|e| RoleError::Run(format!("cannot start the lease's thread: {e}")))?;
        Ok(LeaseKeeper {
            role,
            info,
            shared,
            thread: Some(thread),
        })
    }

    /// [`LeaseKeeper::acquire`], waiting while another holder's lease runs, for up to
    /// `patience` (`None`: not at all): a role restarted before its killed predecessor's
    /// lease ran out (a Kubernetes pod) takes the run over at the expiry instead of exiting.
    /// It tries again every 2 s at most and at the holder's expiry. A store that does not
    /// answer is waited out too (an outage), for up to `patience`, or without one up to the
    /// lease time; each try's requests are bounded ([`FIRST_ACQUIRE_BOUND`]). Each wait is
    /// said once on stderr; past the patience, the refusal or the store's error as without
    /// waiting. `None` when `stop` is raised while waiting (the role then ends cleanly,
    /// having written nothing).
    pub fn acquire_waiting(
        location: &str,
        role: SingletonRole,
        settings: &LeaseConfig,
        patience: Option<Duration>,
        stop: &StopFlag,
    ) -> Result<Option<LeaseKeeper>, RoleError> {
        let started = Instant::now();
        let waits = |error: &RoleError| match patience {
            Some(patience) => started.elapsed() < patience && waits_out(error),
            None => started.elapsed() < settings.duration() && transient(error),
        };
        let most = settings.renew_interval();
        let mut bound = FIRST_ACQUIRE_BOUND.min(most);
        let (mut said_held, mut said_store) = (false, false);
        loop {
            let tried = Instant::now();
            let error = match LeaseKeeper::acquire_within(location, role, settings, bound) {
                Err(error) if waits(&error) => error,
                other => return other.map(Some),
            };
            let held = matches!(error, RoleError::Lease(LeaseError::Held { .. }));
            let wait = retry_after(&error, settings, tried.elapsed(), bound);
            bound = match held {
                true => FIRST_ACQUIRE_BOUND.min(most),
                false => (bound * 2).min(most),
            };
            let said = match held {
                true => &mut said_held,
                false => &mut said_store,
            };
            if !std::mem::replace(said, true) {
                let (all, how) = match patience {
                    Some(patience) => (patience, " (--wait-for-lease)"),
                    None => (settings.duration(), ""),
                };
                eprintln!(
                    "{error}; waiting up to {:.0} s in all{how}",
                    all.as_secs_f64()
                );
            }
            if !pause(wait, stop) {
                eprintln!("stopped while waiting for the {} lease", role.name());
                return Ok(None);
            }
        }
    }

    /// The lease as acquired (holder, host, first expiry).
    pub fn info(&self) -> &LeaseInfo {
        &self.info
    }

    /// `Ok` while the lease is this process's and has not expired by this machine's clock:
    /// the role writes the run only then. Otherwise the error says why (taken over,
    /// removed, or not renewed in time because the store did not answer).
    pub fn check(&self) -> Result<(), RoleError> {
        if let Some(error) = self.shared.lost.lock().ok().and_then(|mut l| l.take()) {
            return Err(error.into());
        }
        let expires = self.shared.expires_ms.load(Ordering::Acquire);
        if u64::try_from(unix_millis()).unwrap_or(u64::MAX) >= expires {
            let tries = self.shared.tries.load(Ordering::Acquire);
            let failures = self.shared.failures.load(Ordering::Acquire);
            return Err(RoleError::Run(format!(
                "this {role}'s lease expired before it was renewed ({tries} renewals tried, {failures} of them failed because the store did not answer): it stops so that only one {role} writes the run",
                role = self.role.name()
            )));
        }
        Ok(())
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The renewing thread: renews every `every` until stopped (then releases the lease) or
/// until the lease is lost (then records why).
fn renew_until_stopped(store: RunStore, mut lease: Lease, every: Duration, shared: &Shared) {
    let mut due = Instant::now() + every;
    while !shared.stop.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(20).min(every));
        if Instant::now() < due {
            continue;
        }
        due = Instant::now() + every;
        shared.tries.fetch_add(1, Ordering::AcqRel);
        match lease.renew(&store) {
            Ok(()) => shared
                .expires_ms
                .store(lease.info().expires_unix_ms, Ordering::Release),
            // The store did not answer: try again next time; the lease holds till expiry.
            Err(LeaseError::Store(error)) => {
                shared.failures.fetch_add(1, Ordering::AcqRel);
                eprintln!(
                    "warning: renewing the {} lease failed ({error}); trying again in {:.0} s",
                    lease.info().role,
                    every.as_secs_f64()
                )
            }
            Err(lost) => {
                if let Ok(mut slot) = shared.lost.lock() {
                    *slot = Some(lost);
                }
                return;
            }
        }
    }
    if let Err(error) = lease.release(&store) {
        eprintln!("warning: giving the lease up failed ({error}); it expires by itself");
    }
}

/// Sleeps `wait`; false (at once) when `stop` is raised meanwhile.
fn pause(wait: Duration, stop: &StopFlag) -> bool {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if stop.raised() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    !stop.raised()
}

/// How long a waiting role waits before it tries again after `error`, from a try that took
/// `took` with its requests bounded by `bound`: until just past the holder's expiry by this
/// machine's clock, at most 2 s (or the renewal interval) at a time; at once after a try the
/// store did not answer within its bound, which has waited already (at the holder's
/// expiry, every second counts).
fn retry_after(
    error: &RoleError,
    settings: &LeaseConfig,
    took: Duration,
    bound: Duration,
) -> Duration {
    let most = settings.renew_interval().min(Duration::from_secs(2));
    let RoleError::Lease(LeaseError::Held {
        expires_unix_ms, ..
    }) = error
    else {
        return if took >= bound { Duration::ZERO } else { most };
    };
    let now = u64::try_from(unix_millis()).unwrap_or(u64::MAX);
    // A few milliseconds past it, so that the next try finds it expired.
    let left = Duration::from_millis(expires_unix_ms.saturating_sub(now) + 5);
    left.min(most)
}

/// An error [`LeaseKeeper::acquire_waiting`] waits out: another holder's lease, or a store
/// that does not answer.
fn waits_out(error: &RoleError) -> bool {
    matches!(error, RoleError::Lease(LeaseError::Held { .. })) || transient(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(seconds: f64, renew: f64) -> LeaseConfig {
        LeaseConfig {
            seconds,
            renew_seconds: renew,
        }
    }

    fn temp_store(name: &str) -> (std::path::PathBuf, String) {
        let dir = std::env::temp_dir().join(format!("cz-keeper-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let location = dir.to_str().unwrap().to_string();
        (dir, location)
    }

    #[test]
    fn a_kept_lease_outlives_its_time_and_is_given_up_when_dropped() {
        let (dir, location) = temp_store("renew");
        // Renewed every 0.2 s, a lease of 2 s outlives 3 s (with room for a loaded machine).
        let keeper =
            LeaseKeeper::acquire(&location, SingletonRole::Learner, &settings(2.0, 0.2)).unwrap();
        std::thread::sleep(Duration::from_millis(3_000));
        keeper.check().unwrap();
        let second = LeaseKeeper::acquire(&location, SingletonRole::Learner, &settings(2.0, 0.2));
        let refused = second
            .err()
            .expect("a second learner is refused")
            .to_string();
        assert!(refused.contains("holds this run until"), "{refused}");
        drop(keeper);
        LeaseKeeper::acquire(&location, SingletonRole::Learner, &settings(2.0, 0.2))
            .expect("the lease is free once its holder is gone");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_keeper_whose_lease_was_taken_over_stops_its_role() {
        let (dir, location) = temp_store("lost");
        let keeper =
            LeaseKeeper::acquire(&location, SingletonRole::Evaluation, &settings(1.0, 0.3))
                .unwrap();
        // Another process sees the lease expired (its clock runs ahead, say) and takes it:
        // here, by removing it and acquiring anew.
        let store = RunStore::open(&location).unwrap();
        store.delete(&SingletonRole::Evaluation.key()).unwrap();
        let _thief =
            Lease::acquire(&store, SingletonRole::Evaluation, Duration::from_secs(60)).unwrap();
        // Its next renewal (every 0.3 s) finds the lease taken; 2 s leave room for a
        // loaded machine.
        std::thread::sleep(Duration::from_millis(2_000));
        let error = keeper.check().unwrap_err().to_string();
        assert!(error.contains("lost its lease"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stop_while_waiting_for_a_held_lease_ends_the_wait_with_nothing_taken() {
        let (dir, location) = temp_store("stop");
        let holder =
            LeaseKeeper::acquire(&location, SingletonRole::Learner, &settings(30.0, 5.0)).unwrap();
        let stop = StopFlag::new();
        let raiser = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            raiser.raise();
        });
        let started = Instant::now();
        let waited = LeaseKeeper::acquire_waiting(
            &location,
            SingletonRole::Learner,
            &settings(30.0, 5.0),
            Some(Duration::from_secs(60)),
            &stop,
        )
        .unwrap();
        assert!(waited.is_none(), "nothing is acquired once stopped");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the wait ends soon after the stop"
        );
        holder.check().expect("the holder keeps its lease");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_waiting_role_takes_the_lease_once_its_holder_is_gone() {
        let (dir, location) = temp_store("wait");
        let holder =
            LeaseKeeper::acquire(&location, SingletonRole::Evaluation, &settings(30.0, 5.0))
                .unwrap();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(holder);
        });
        let waited = LeaseKeeper::acquire_waiting(
            &location,
            SingletonRole::Evaluation,
            &settings(30.0, 5.0),
            Some(Duration::from_secs(60)),
            &StopFlag::new(),
        )
        .unwrap();
        waited.expect("taken once given up").check().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_try_the_store_did_not_answer_in_time_is_followed_at_once_a_refused_one_after_a_pause() {
        let unanswered = RoleError::Store(crate::store::StoreError::Request {
            location: "s3://runs/x".into(),
            key: "leases/learner.json".into(),
            source: object_store::Error::Generic {
                store: "S3",
                source: "error sending request".into(),
            },
        });
        let lease = settings(45.0, 5.0);
        let bound = Duration::from_secs(2);
        let wait = |took| retry_after(&unanswered, &lease, took, bound);
        assert_eq!(wait(Duration::from_millis(2_001)), Duration::ZERO);
        assert_eq!(wait(Duration::from_millis(100)), Duration::from_secs(2));
        // A held lease: until just past its expiry, however long the try took.
        let now = u64::try_from(unix_millis()).unwrap();
        let held = RoleError::Lease(LeaseError::Held {
            role: "learner".into(),
            a_role: "a learner".into(),
            host: "elsewhere".into(),
            until: "soon".into(),
            expires_unix_ms: now + 700,
        });
        let wait = retry_after(&held, &lease, Duration::from_secs(3), bound);
        // (700 ms ahead when `now` was read; this thread may have waited since.)
        assert!(
            wait > Duration::from_millis(100) && wait <= Duration::from_millis(705),
            "{wait:?}"
        );
    }

    #[test]
    fn a_waiting_role_takes_an_expired_lease_at_its_expiry() {
        let (dir, location) = temp_store("expiry");
        // A killed holder: its lease (1.5 s) is never renewed nor given up.
        let store = RunStore::open(&location).unwrap();
        let killed =
            Lease::acquire(&store, SingletonRole::Learner, Duration::from_millis(1_500)).unwrap();
        let expiry = killed.info().expires_unix_ms;
        let waited = LeaseKeeper::acquire_waiting(
            &location,
            SingletonRole::Learner,
            &settings(30.0, 5.0),
            Some(Duration::from_secs(60)),
            &StopFlag::new(),
        )
        .unwrap()
        .expect("taken at the expiry");
        let late = unix_millis() as i128 - expiry as i128;
        // Tried again at the expiry, not at the next of 2-second polls (a loaded machine
        // may take a few hundred milliseconds more).
        assert!(
            (0..1_000).contains(&late),
            "taken {late} ms after the expiry"
        );
        waited.check().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
