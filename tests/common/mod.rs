//! Helpers shared by the tests: running the binary and checking that an error is one clear
//! line with exit code 2, fresh temporary directories, a missing tool's skip or failure,
//! (`positions`) random playout positions, (`roles`) a distributed run's roles as child
//! processes, and (`s3`) a local S3-compatible server.
#![allow(dead_code)]

pub mod positions;
pub mod roles;
pub mod s3;
pub mod web;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Whether the tests run under CI (`CI=true`), where every tool they use must be there.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A test's outside tool (`tool`: Chromium, s3s-fs, Python) is missing, for `reason`. Under
/// `CI=true` the test fails, naming the tool; elsewhere it prints that it is skipped and the
/// caller returns.
pub fn missing_tool(tool: &str, reason: &str) {
    if let Some(failure) = missing_tool_verdict(tool, reason, in_ci()) {
        panic!("{failure}");
    }
}

/// The failure message for a missing tool under CI (`None` elsewhere, after printing that
/// the test is skipped).
pub fn missing_tool_verdict(tool: &str, reason: &str, ci: bool) -> Option<String> {
    let what = format!("{tool} is missing ({reason}); scripts/setup installs it");
    if ci {
        return Some(format!(
            "{what}. CI=true: every tool a test uses must be installed"
        ));
    }
    eprintln!("SKIPPED: {what}");
    None
}

/// A net of two blocks of 16 channels: still small, but with more than one block to load,
/// save and export.
pub fn small_net() -> checkers_zero::config::net::NetConfig {
    checkers_zero::config::net::NetConfig {
        blocks: 2,
        channels: 16,
        value_hidden: 16,
        ..checkers_zero::config::net::NetConfig::tiny()
    }
}

/// The answers of `model` to `requests` through the evaluator self-play uses (a batcher on a
/// thread of its own, fp32 settings: the model runs in its own kind), in one forward pass.
pub fn evaluate_batch(
    model: &checkers_zero::net::model::Model,
    requests: &[&checkers_zero::net::backend::Request],
) -> Result<Vec<checkers_zero::net::backend::Answer>, checkers_zero::net::NetError> {
    use checkers_zero::net::batcher::{Batcher, BatcherConfig};
    let config = BatcherConfig {
        max_batch: requests.len().max(1),
        ..BatcherConfig::default()
    };
    let batcher = Batcher::spawn(model.try_clone()?, config);
    checkers_zero::net::backend::evaluate(&batcher, requests)
}

/// Runs `checkers-zero` with `args` and no input.
pub fn run(args: &[&str]) -> Output {
    run_with_input(args, "")
}

/// Runs `checkers-zero` with `args`, writing `stdin` to its input.
pub fn run_with_input(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut pipe = child.stdin.take().unwrap();
    // The program may stop reading early (quit, game over): a broken pipe is fine.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Asserts a failed run printed exactly one `error: ...` line containing `needle`, nothing
/// on stdout, exited with code 2 and did not panic.
pub fn assert_clean_error(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(output.stdout.is_empty(), "no output on error");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(needle), "'{needle}' not in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Asserts a run succeeded, showing its stderr when it did not.
pub fn assert_success(output: &Output) {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// An empty directory `cz-<name>-<pid>` under the system's temp directory (emptied first if
/// a previous run left it).
pub fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What every encoding's turns-left plane holds, in turns (docs/encoding.md): the turns left
/// before the ply cap's adjudicated draw, at most the horizon; the horizon without a cap.
pub fn expected_turns_left(turns_played: u32, ply_cap: u32) -> u32 {
    let horizon = checkers_zero::net::encode::TURN_HORIZON;
    if ply_cap == 0 {
        horizon
    } else {
        ply_cap.saturating_sub(turns_played).min(horizon)
    }
}

/// Reads the turns-left plane's value back in turns.
pub fn decoded_turns_left(value: f32) -> u32 {
    assert!(
        (0.0..=1.0).contains(&value),
        "turns-left plane in [0, 1]: {value}"
    );
    (value * checkers_zero::net::encode::TURN_HORIZON as f32).round() as u32
}

/// A tiny ReMATCH run config: a one-block net, 8 visits, two iterations of 5 steps.
pub const TINY_CONFIG: &str = r#"
game = "rematch"
seed = 3
[net]
blocks = 1
channels = 16
policy_channels = 8
value_hidden = 16
[search]
visits = 8
[selfplay]
workers = 1
games_in_flight = 16
fast_visits = 4
full_search_share = 0.5
ply_cap = 40
[batching]
max_batch = 32
[train]
batch_size = 32
steps_per_iteration = 5
iterations = 2
replay_ratio = 4.0
min_window = 64
window_base = 1000
"#;
