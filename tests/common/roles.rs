//! The roles of a distributed run as child processes of a test: started on a store, with
//! their output in `dir/<name>.out` and `.err`; finished, refused, terminated or killed.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use checkers_zero::roles::lease::Lease;
use checkers_zero::roles::unix_millis;
use checkers_zero::store::RunStore;

/// A role process with its output in `dir/<name>.out` and `.err`.
pub struct Role {
    child: Child,
    name: String,
}

pub fn spawn(dir: &Path, name: &str, args: &[&str], env: &[(String, String)]) -> Role {
    spawn_at(dir, name, args, env, 0)
}

/// [`spawn`] at CPU priority `niceness` (0: this process's; more: lower, through `nice`).
pub fn spawn_at(
    dir: &Path,
    name: &str,
    args: &[&str],
    env: &[(String, String)],
    niceness: u8,
) -> Role {
    let file = |ext: &str| std::fs::File::create(dir.join(format!("{name}.{ext}"))).unwrap();
    let binary = env!("CARGO_BIN_EXE_checkers-zero");
    let mut command = Command::new("nice");
    command.args(["-n", &niceness.to_string(), binary]);
    let child = command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(file("out"))
        .stderr(file("err"))
        .spawn()
        .expect("binary runs");
    Role {
        child,
        name: name.to_string(),
    }
}

impl Role {
    /// Waits for a clean exit (at most `timeout`); returns its standard output.
    pub fn finish(mut self, dir: &Path, timeout: Duration) -> String {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > timeout {
                let _ = self.child.kill();
                panic!("{} did not finish in {timeout:?}", self.name);
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let read = |ext: &str| {
            std::fs::read_to_string(dir.join(format!("{}.{ext}", self.name))).unwrap_or_default()
        };
        assert!(status.success(), "{} failed: {}", self.name, read("err"));
        assert!(!read("err").contains("panicked"), "{}", read("err"));
        read("out")
    }

    /// Waits for it to be refused (exit code 2, at most `timeout`); returns its error output.
    pub fn refused(mut self, dir: &Path, timeout: Duration) -> String {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < timeout,
                "{} was not refused in {timeout:?}; it said: {}",
                self.name,
                self.errors(dir)
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let err = std::fs::read_to_string(dir.join(format!("{}.err", self.name))).unwrap();
        assert_eq!(status.code(), Some(2), "{}: {err}", self.name);
        assert!(!err.contains("panicked"), "{err}");
        err
    }

    /// Its name (its output files' stem).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Its exit status, if it has ended.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// What it wrote to its error output so far.
    pub fn errors(&self, dir: &Path) -> String {
        std::fs::read_to_string(dir.join(format!("{}.err", self.name))).unwrap_or_default()
    }

    /// SIGTERM, as Kubernetes stops a pod.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits (at most `timeout`) until no lease of `role` (`learner`, `evaluator`) in `store` is
/// held: a killed holder's lease, until it expires.
pub fn wait_for_lease_expiry(store: &RunStore, role: &str, timeout: Duration) {
    wait_until(&format!("the {role}'s lease to expire"), timeout, || {
        let now = u64::try_from(unix_millis()).unwrap();
        match Lease::holders(store) {
            Ok(holders) => holders
                .iter()
                .all(|lease| lease.role != role || lease.expired_at(now)),
            // Right after a store outage a request can fail: asked again until the timeout.
            Err(error) => {
                eprintln!("reading the leases failed ({error}); asking again");
                false
            }
        }
    });
}

/// Starts role `command` (`learn`, `selfplay`, `evaluate`) on the store at `location`.
pub fn role(
    dir: &Path,
    name: &str,
    command: &str,
    location: &str,
    extra: &[&str],
    env: &[(String, String)],
) -> Role {
    role_at(dir, name, command, location, extra, env, 0)
}

/// [`role`] at CPU priority `niceness` ([`spawn_at`]).
pub fn role_at(
    dir: &Path,
    name: &str,
    command: &str,
    location: &str,
    extra: &[&str],
    env: &[(String, String)],
    niceness: u8,
) -> Role {
    let mut args = vec![
        command,
        "--store",
        location,
        "--quiet",
        "--poll-seconds",
        "0.2",
    ];
    args.extend_from_slice(extra);
    spawn_at(dir, name, &args, env, niceness)
}

/// The run of the distributed tests, without its `[evaluation]` and `[lease]` sections
/// (each test appends its own): a one-block net, 8 visits, iterations of 5 steps. It keeps
/// every game file, which the tests audit (each shard taken in exactly once).
pub const DISTRIBUTED_RUN: &str = r#"
game = "rematch"
seed = 5
[net]
blocks = 1
channels = 16
policy_channels = 8
value_hidden = 16
[search]
visits = 8
[selfplay]
workers = 1
games_in_flight = 8
fast_visits = 4
full_search_share = 0.5
ply_cap = 40
[batching]
max_batch = 32
instances = 1
[train]
batch_size = 32
steps_per_iteration = 5
replay_ratio = 2.0
min_window = 64
window_base = 1000
[checkpoints]
keep_games = "all"
"#;
