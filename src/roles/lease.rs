//! Leases for a run's singleton roles, the learner and the evaluation role: one object per role,
//! `leases/<role>.json` ([`LeaseInfo`]), naming its holder (a random id), host, process and
//! expiry.
//!
//! - [`Lease::acquire`] creates the object only if there is none (`put_if(.., None)`). If one
//!   exists and has not expired, it refuses in words ([`LeaseError::Held`]); if it has
//!   expired, it takes it over by compare-and-swap on the version it read, so of processes
//!   racing for one lease exactly one wins.
//! - [`Lease::renew`] pushes the expiry on by compare-and-swap; it fails in words
//!   ([`LeaseError::Lost`]) when another process took the lease over meanwhile.
//! - [`Lease::release`] deletes the object while it is still its holder's.
//!
//! A holder renews well before its expiry (`crate::config::lease::LeaseConfig`) and writes the run only while
//! [`Lease::still_held`]: a lease is taken over only after it has expired, so one holder's
//! time ends before the next one's begins. Expiry times are wall-clock Unix milliseconds,
//! written by the holder and read by others: the machines' clocks must agree to well within
//! the lease time (NTP does).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::layout::LEASES;
use crate::store::{Conflict, RunStore, StoreError, Version};

/// How often [`Lease::acquire`] reads the lease again after losing a race for it.
const ACQUIRE_ATTEMPTS: usize = 5;

/// A role that runs at most once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SingletonRole {
    /// The learner: it alone writes checkpoints and moves `latest`.
    Learner,
    /// The evaluation role (`checkers-zero evaluate`): it alone writes the evaluation
    /// results and moves `promoted`.
    Evaluation,
}

impl SingletonRole {
    /// Its name, as in messages, lease objects and the lease's key: the evaluation role's
    /// is its older name, `evaluator`, which existing runs hold.
    pub fn name(self) -> &'static str {
        match self {
            SingletonRole::Learner => "learner",
            SingletonRole::Evaluation => "evaluator",
        }
    }

    /// The key of its lease object (`leases/learner.json`).
    pub fn key(self) -> String {
        format!("{LEASES}/{}.json", self.name())
    }
}

/// Errors of leases.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another process holds the lease and it has not expired (the command exits 2).
    #[error(
        "{a_role} on {host} holds this run until {until} (UTC); stop it, or wait for its lease to expire"
    )]
    Held {
        /// The role.
        role: String,
        /// The role with its article (`a learner`, `an evaluator`).
        a_role: String,
        /// The holder's host.
        host: String,
        /// Its expiry, UTC (`YYYY-MM-DD HH:MM:SS`).
        until: String,
        /// The same, Unix milliseconds (when a waiting role tries again).
        expires_unix_ms: u64,
    },
    /// Another process took the lease over: its holder must stop writing the run.
    #[error(
        "this {role} lost its lease to {host} at {at} (UTC): it stops so that only one {role} writes the run"
    )]
    Lost {
        /// The role.
        role: String,
        /// The new holder's host.
        host: String,
        /// When the new holder took it, UTC.
        at: String,
    },
    /// The lease object was removed while held: its holder must stop writing the run.
    #[error(
        "this {role}'s lease {location}/{key} was removed: it stops so that only one {role} writes the run"
    )]
    Gone {
        /// The role.
        role: String,
        /// The run location.
        location: String,
        /// The lease's key.
        key: String,
    },
    /// The lease object does not parse.
    #[error("{location}/{key} is not a lease ({reason}); remove it if no {role} runs on this run")]
    Record {
        /// The role.
        role: String,
        /// The run location.
        location: String,
        /// The lease's key.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Every attempt lost a race to a lease that then expired at once (unlikely).
    #[error(
        "{location}/{key}: lost the race for the lease {attempts} times; try again",
        attempts = ACQUIRE_ATTEMPTS
    )]
    Contended {
        /// The run location.
        location: String,
        /// The lease's key.
        key: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A lease object's contents: who holds a role of the run, and until when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseInfo {
    /// The role (`learner`, `evaluator`).
    pub role: String,
    /// The holder: a random id, new with each [`Lease::acquire`].
    pub holder: String,
    /// The holder's host name.
    pub host: String,
    /// The holder's process id.
    pub pid: u32,
    /// When the holder took the lease (Unix ms).
    pub acquired_unix_ms: u64,
    /// When it expires unless renewed (Unix ms).
    pub expires_unix_ms: u64,
}

impl LeaseInfo {
    /// A lease of `role` for this process, from `now` (Unix ms) for `duration`.
    fn new(role: SingletonRole, holder: &str, now: u64, duration: Duration) -> LeaseInfo {
        LeaseInfo {
            role: role.name().to_string(),
            holder: holder.to_string(),
            host: host_name(),
            pid: std::process::id(),
            acquired_unix_ms: now,
            expires_unix_ms: now.saturating_add(millis(duration)),
        }
    }

    /// True once `now_ms` (Unix ms) has reached its expiry.
    pub fn expired_at(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_unix_ms
    }

    /// One line for `status`: `learner: HOST (pid N) since TIME, until TIME UTC (in 42 s)`,
    /// or `… expired 3 s ago`.
    pub fn describe(&self, now_ms: u64) -> String {
        let left = self.expires_unix_ms as f64 / 1000.0 - now_ms as f64 / 1000.0;
        let when = if left > 0.0 {
            format!("in {left:.0} s")
        } else {
            format!("expired {:.0} s ago", -left)
        };
        format!(
            "{}: {} (pid {}) since {}, until {} UTC ({when})",
            self.role,
            self.host,
            self.pid,
            utc_time(self.acquired_unix_ms),
            utc_time(self.expires_unix_ms)
        )
    }

    /// The lease in a [`LeaseError::Held`].
    fn held(&self) -> LeaseError {
        let vowel = self.role.starts_with(|c: char| "aeiou".contains(c));
        let article = if vowel { "an" } else { "a" };
        LeaseError::Held {
            role: self.role.clone(),
            a_role: format!("{article} {}", self.role),
            host: self.host.clone(),
            until: utc_time(self.expires_unix_ms),
            expires_unix_ms: self.expires_unix_ms,
        }
    }

    /// Its JSON text.
    fn to_bytes(&self, store: &RunStore, key: &str) -> Result<Vec<u8>, LeaseError> {
        serde_json::to_vec_pretty(self).map_err(|e| lease_json_error(store, key, &self.role, e))
    }

    /// The lease of `role` stored at `key` as `bytes`.
    fn parse(
        bytes: &[u8],
        store: &RunStore,
        key: &str,
        role: SingletonRole,
    ) -> Result<Self, LeaseError> {
        serde_json::from_slice(bytes).map_err(|e| lease_json_error(store, key, role.name(), e))
    }
}

/// A [`LeaseError::Record`].
fn lease_json_error(
    store: &RunStore,
    key: &str,
    role: &str,
    reason: serde_json::Error,
) -> LeaseError {
    LeaseError::Record {
        role: role.to_string(),
        location: store.location().to_string(),
        key: key.to_string(),
        reason: reason.to_string(),
    }
}

/// A held lease of a role. Dropping it without [`Lease::release`] leaves the object to
/// expire.
#[derive(Debug)]
pub struct Lease {
    role: SingletonRole,
    key: String,
    info: LeaseInfo,
    version: Version,
    duration: Duration,
}

impl Lease {
    /// Takes the lease of `role` for `duration`: creates it, or takes over an expired one.
    /// One held by another process that has not expired is [`LeaseError::Held`].
    pub fn acquire(
        store: &RunStore,
        role: SingletonRole,
        duration: Duration,
    ) -> Result<Lease, LeaseError> {
        let key = role.key();
        let holder = format!("{:016x}", rand::random::<u64>());
        for _ in 0..ACQUIRE_ATTEMPTS {
            let now = now_ms();
            let expected = match store.get_versioned(&key)? {
                None => None,
                Some((bytes, version)) => {
                    let stored = LeaseInfo::parse(&bytes, store, &key, role)?;
                    if stored.holder == holder {
                        // Our own write, whose answer was lost (a retried request).
                        let info = stored;
                        return Ok(Lease {
                            role,
                            key,
                            info,
                            version,
                            duration,
                        });
                    }
                    if !stored.expired_at(now) {
                        return Err(stored.held());
                    }
                    Some(version)
                }
            };
            let info = LeaseInfo::new(role, &holder, now, duration);
            let bytes = info.to_bytes(store, &key)?;
            if let Ok(version) = store.put_if(&key, bytes, expected.as_ref())? {
                return Ok(Lease {
                    role,
                    key,
                    info,
                    version,
                    duration,
                });
            }
            // Lost a race: read again, to see who won.
        }
        let location = store.location().to_string();
        Err(LeaseError::Contended { location, key })
    }

    /// Pushes the expiry on to the lease time from now, by compare-and-swap. If another
    /// process took the lease over, [`LeaseError::Lost`] (or [`LeaseError::Gone`] if it was
    /// removed): the holder must stop writing the run. A lease that expired but was not
    /// taken over is renewed.
    pub fn renew(&mut self, store: &RunStore) -> Result<(), LeaseError> {
        let mut next = self.info.clone();
        next.expires_unix_ms = now_ms().saturating_add(millis(self.duration));
        let bytes = next.to_bytes(store, &self.key)?;
        match store.put_if(&self.key, bytes, Some(&self.version))? {
            Ok(version) => {
                self.info = next;
                self.version = version;
                Ok(())
            }
            Err(Conflict) => self.after_conflict(store),
        }
    }

    /// After a renewal lost its compare-and-swap: still ours if the stored lease names this
    /// holder (a retried request whose first try had landed), else lost.
    fn after_conflict(&mut self, store: &RunStore) -> Result<(), LeaseError> {
        let Some((bytes, version)) = store.get_versioned(&self.key)? else {
            return Err(LeaseError::Gone {
                role: self.role.name().to_string(),
                location: store.location().to_string(),
                key: self.key.clone(),
            });
        };
        let stored = LeaseInfo::parse(&bytes, store, &self.key, self.role)?;
        if stored.holder == self.info.holder {
            self.info = stored;
            self.version = version;
            return Ok(());
        }
        Err(LeaseError::Lost {
            role: self.role.name().to_string(),
            host: stored.host,
            at: utc_time(stored.acquired_unix_ms),
        })
    }

    /// Gives the lease up: deletes the object if it is still this holder's and not near
    /// its expiry (while it has not expired, no one else writes it). Near or past its
    /// expiry it is marked expired by compare-and-swap instead, since a delete then could
    /// remove a new holder's lease. One that is another's now is left alone.
    pub fn release(self, store: &RunStore) -> Result<(), LeaseError> {
        let Some((bytes, version)) = store.get_versioned(&self.key)? else {
            return Ok(());
        };
        let stored = LeaseInfo::parse(&bytes, store, &self.key, self.role)?;
        if stored.holder != self.info.holder {
            return Ok(());
        }
        let now = now_ms();
        let margin = millis((self.duration / 4).min(Duration::from_secs(5)));
        if now.saturating_add(margin) < stored.expires_unix_ms {
            store.delete(&self.key)?;
            return Ok(());
        }
        let mut ended = stored;
        ended.expires_unix_ms = now;
        let bytes = ended.to_bytes(store, &self.key)?;
        // A lost race means another holder has it now: nothing to give up.
        let _ = store.put_if(&self.key, bytes, Some(&version))?;
        Ok(())
    }

    /// What the lease object says (as last written or read by this holder).
    pub fn info(&self) -> &LeaseInfo {
        &self.info
    }

    /// True while the lease has not expired by this machine's clock: its holder writes the
    /// run only then.
    pub fn still_held(&self) -> bool {
        !self.info.expired_at(now_ms())
    }

    /// Every lease in the run (expired ones too), by role; objects that do not parse are
    /// left out (acquiring that role names them).
    pub fn holders(store: &RunStore) -> Result<Vec<LeaseInfo>, StoreError> {
        let keys: Vec<String> = store
            .list(LEASES)?
            .into_iter()
            .filter(|key| key.ends_with(".json"))
            .collect();
        Ok(store
            .get_many(&keys)?
            .into_iter()
            .flatten()
            .filter_map(|bytes| serde_json::from_slice::<LeaseInfo>(&bytes).ok())
            .collect())
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// This machine's name (`HOSTNAME`, else the kernel's), for messages.
fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .filter(|name| !name.trim().is_empty())
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "an unnamed host".into())
}

/// Unix milliseconds as a UTC time, `YYYY-MM-DD HH:MM:SS`.
pub fn utc_time(unix_ms: u64) -> String {
    let seconds = unix_ms / 1000;
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm), for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Barrier};

    use super::*;

    const LONG: Duration = Duration::from_secs(60);

    fn temp_store(name: &str) -> (PathBuf, RunStore) {
        let dir = std::env::temp_dir().join(format!("cz-lease-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        (dir, store)
    }

    /// `threads` processes' worth of stores on `dir`, racing to acquire the learner's lease:
    /// the winner's holder id, or the error.
    fn race(dir: &std::path::Path, threads: usize) -> Vec<Result<String, LeaseError>> {
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let dir = dir.to_path_buf();
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    let store = RunStore::open(dir.to_str().unwrap()).unwrap();
                    barrier.wait();
                    Lease::acquire(&store, SingletonRole::Learner, LONG)
                        .map(|l| l.info().holder.clone())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    fn assert_one_winner(store: &RunStore, results: &[Result<String, LeaseError>]) {
        let winners: Vec<&String> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        for result in results {
            if let Err(error) = result {
                assert!(matches!(error, LeaseError::Held { .. }), "{error}");
            }
        }
        let holders = Lease::holders(store).unwrap();
        assert_eq!(holders.len(), 1, "{holders:?}");
        assert_eq!(&holders[0].holder, winners[0]);
    }

    #[test]
    fn a_second_holder_is_refused_in_words() {
        let (dir, store) = temp_store("refused");
        let first = Lease::acquire(&store, SingletonRole::Learner, LONG).unwrap();
        let error = Lease::acquire(&store, SingletonRole::Learner, LONG).unwrap_err();
        assert!(matches!(error, LeaseError::Held { .. }), "{error}");
        let expected = format!(
            "a learner on {} holds this run until {} (UTC); stop it, or wait for its lease to expire",
            first.info().host,
            utc_time(first.info().expires_unix_ms)
        );
        assert_eq!(error.to_string(), expected);
        // The evaluation role's lease is another object.
        let evaluation = Lease::acquire(&store, SingletonRole::Evaluation, LONG).unwrap();
        let holders = Lease::holders(&store).unwrap();
        assert_eq!(holders, [evaluation.info().clone(), first.info().clone()]);
        let line = holders[1].describe(now_ms());
        assert!(line.starts_with("learner: "), "{line}");
        assert!(
            line.contains(&format!("(pid {})", std::process::id())),
            "{line}"
        );
        first.release(&store).unwrap();
        evaluation.release(&store).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_expired_lease_is_taken_over_and_its_old_holder_cannot_renew() {
        let (dir, store) = temp_store("takeover");
        let mut first =
            Lease::acquire(&store, SingletonRole::Learner, Duration::from_millis(200)).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(!first.still_held());
        let mut second = Lease::acquire(&store, SingletonRole::Learner, LONG).unwrap();
        let error = first.renew(&store).unwrap_err();
        assert!(matches!(error, LeaseError::Lost { .. }), "{error}");
        let expected = format!(
            "this learner lost its lease to {} at {} (UTC): it stops so that only one learner writes the run",
            second.info().host,
            utc_time(second.info().acquired_unix_ms)
        );
        assert_eq!(error.to_string(), expected);
        // The old holder's release leaves the new holder's lease alone.
        first.release(&store).unwrap();
        assert_eq!(Lease::holders(&store).unwrap(), [second.info().clone()]);
        let before = second.info().expires_unix_ms;
        std::thread::sleep(Duration::from_millis(5));
        second.renew(&store).unwrap();
        assert!(second.info().expires_unix_ms > before);
        assert_eq!(Lease::holders(&store).unwrap(), [second.info().clone()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_expired_lease_no_one_took_is_renewed() {
        let (dir, store) = temp_store("late-renew");
        let mut lease = Lease::acquire(
            &store,
            SingletonRole::Evaluation,
            Duration::from_millis(100),
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(150));
        assert!(!lease.still_held());
        // Renewed for long, so that the checks below do not race its expiry.
        lease.duration = LONG;
        lease.renew(&store).unwrap();
        assert!(lease.still_held());
        let error = Lease::acquire(&store, SingletonRole::Evaluation, LONG).unwrap_err();
        assert!(matches!(error, LeaseError::Held { .. }), "{error}");
        assert!(error.to_string().starts_with("an evaluator on "), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn release_lets_a_new_holder_in() {
        let (dir, store) = temp_store("release");
        let first = Lease::acquire(&store, SingletonRole::Learner, LONG).unwrap();
        first.release(&store).unwrap();
        assert!(Lease::holders(&store).unwrap().is_empty());
        let second = Lease::acquire(&store, SingletonRole::Learner, LONG).unwrap();
        assert_eq!(Lease::holders(&store).unwrap(), [second.info().clone()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn of_racing_acquirers_exactly_one_wins() {
        let (dir, store) = temp_store("race");
        assert_one_winner(&store, &race(&dir, 4));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn of_racing_takeovers_of_an_expired_lease_exactly_one_wins() {
        let (dir, store) = temp_store("race-takeover");
        let old =
            Lease::acquire(&store, SingletonRole::Learner, Duration::from_millis(100)).unwrap();
        std::thread::sleep(Duration::from_millis(150));
        let results = race(&dir, 4);
        assert_one_winner(&store, &results);
        assert_ne!(
            Some(&old.info().holder),
            results.iter().find_map(|r| r.as_ref().ok())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn times_are_shown_in_utc() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(utc_time(1_700_000_000_999), "2023-11-14 22:13:20");
    }
}
