//! `bench-learning` end to end on a tiny budget: a tiny run is trained and rated against a
//! 2-rung ladder with a few games; the table has a line per checkpoint and rung with its
//! per-seat columns; resuming plays only the matches that are missing. No timings.

use crate::common;
use common::{assert_clean_error, fresh_dir, run};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use checkers_zero::layout;

/// A tiny ReMATCH config that stops after two iterations of 5 steps (a checkpoint each).
const TINY: &str = common::TINY_CONFIG;

fn bench(dir: &Path, extra: &[&str]) -> String {
    bench_streams(dir, extra).0
}

/// `bench` with its stdout and its stderr.
fn bench_streams(dir: &Path, extra: &[&str]) -> (String, String) {
    let config = dir.join("tiny.toml");
    let run_dir = dir.join("run");
    let mut args = vec![
        "bench-learning",
        "rematch",
        "5",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        run_dir.to_str().unwrap(),
        "--visits",
        "4",
        "--checkpoints",
        "2",
    ];
    args.extend_from_slice(extra);
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    (stdout, stderr)
}

/// Every match result on record with its modification time.
fn results(run_dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    let mut found = Vec::new();
    let matches = run_dir.join(layout::BENCH).join(layout::MATCHES);
    for step in std::fs::read_dir(&matches).unwrap() {
        for rung in std::fs::read_dir(step.unwrap().path()).unwrap() {
            let path = rung.unwrap().path().join(layout::MATCH_REPORT_FILE);
            if let Ok(meta) = std::fs::metadata(&path) {
                found.push((path, meta.modified().unwrap()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_tiny_benchmark_writes_its_table_and_resumes_only_what_is_missing() {
    let dir = fresh_dir("bench-learning");
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    let run_dir = dir.join("run");
    let bench_dir = run_dir.join(layout::BENCH);
    let [md_file, csv_file, png_file] = layout::LADDER_FILES;
    let ladder = [
        "--ladder",
        "random,alphabeta:1",
        "--games",
        "2",
        "--set",
        "train.weight_decay=0.02",
        // The budget in the run's CPU minutes.
        "--clock",
        "cpu",
    ];
    let (first, log) = bench_streams(&dir, &ladder);
    // Train's progress line reaches the benchmark's stderr (it used to be swallowed).
    assert!(
        log.lines()
            .any(|l| l.starts_with("step ") && l.contains(" pos/s")),
        "{log}"
    );
    // The arm's override reached the trained run and the table's heading.
    let trained = std::fs::read_to_string(run_dir.join(layout::CONFIG)).unwrap();
    assert!(trained.contains("weight_decay = 0.02"), "{trained}");
    // The ladder games open from the game's suite, by its absolute path.
    let plan = std::fs::read_to_string(bench_dir.join(layout::BENCH_PLAN_FILE)).unwrap();
    let suite = std::fs::canonicalize("openings/rematch.txt").unwrap();
    assert!(
        plan.contains(&format!("\"openings\": \"{}\"", suite.display())),
        "{plan}"
    );
    assert!(
        first.contains("[bench] training rematch from step 0: 5.0 of 5 CPU minutes left"),
        "{first}"
    );
    assert!(plan.contains("\"clock\": \"cpu\""), "{plan}");
    assert!(
        first.contains("against 2 rungs: 4 matches of 2 games, 4 to play"),
        "{first}"
    );
    // The newest checkpoint is rated first (the headline row), the table is in step order.
    assert!(first.contains("[bench] 1/4 step 10 vs random"), "{first}");
    assert!(first.contains("[bench] 3/4 step 5 vs random"), "{first}");

    // The table: a line per checkpoint (steps 5 and 10) and rung, Red and Team apart.
    let csv = std::fs::read_to_string(bench_dir.join(csv_file)).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(lines.len(), 5, "{csv}");
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mut seen = Vec::new();
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        seen.push((cells[col("step")], cells[col("rung")]));
        assert_eq!(cells[col("games")], "2", "{line}");
        let played: u64 = cells[col("selfplay_games")].parse().unwrap();
        assert!(played > 0, "self-play games by the checkpoint: {line}");
        let per_seat: u64 = ["red", "team"]
            .iter()
            .flat_map(|s| ["wins", "draws", "losses"].map(|r| format!("{s}_{r}")))
            .map(|c| cells[col(&c)].parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            per_seat, 2,
            "each game counted once, at the seat played: {line}"
        );
        let score: f64 = cells[col("score")].parse().unwrap();
        assert!((0.0..=1.0).contains(&score), "{line}");
    }
    assert_eq!(
        seen,
        vec![
            ("5", "random"),
            ("5", "alphabeta:1"),
            ("10", "random"),
            ("10", "alphabeta:1")
        ]
    );
    let md = std::fs::read_to_string(bench_dir.join(md_file)).unwrap();
    assert!(
        md.contains("as Red W-D-L") && md.contains("as Team W-D-L"),
        "{md}"
    );
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 5);
    assert!(md.contains("with train.weight_decay=0.02"), "{md}");
    let png = std::fs::read(bench_dir.join(png_file)).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let before = results(&run_dir);
    assert_eq!(before.len(), 4);

    // Resuming a finished benchmark plays nothing and keeps every result; a `--set` given
    // with it changes the run's settings from its newest checkpoint on (the tiny config's
    // iteration limit leaves the budget unspent, so train resumes and takes no step).
    let again = bench(
        &dir,
        &["--resume", "--set", "selfplay.resign_playthrough=0.5"],
    );
    assert!(again.contains("4 matches of 2 games, 0 to play"), "{again}");
    let trained = std::fs::read_to_string(run_dir.join(layout::CONFIG)).unwrap();
    assert!(trained.contains("resign_playthrough = 0.5"), "{trained}");
    assert!(run_dir.join("config-before-step-00000010.toml").is_file());
    let plan = std::fs::read_to_string(bench_dir.join(layout::BENCH_PLAN_FILE)).unwrap();
    assert!(plan.contains("selfplay.resign_playthrough=0.5"), "{plan}");
    let recorded = std::fs::read_to_string(bench_dir.join(layout::CONFIG)).unwrap();
    assert!(recorded.contains("resign_playthrough = 0.5"), "{recorded}");
    assert!(
        again.contains("CPU minutes"),
        "the plan's clock kept: {again}"
    );
    assert_eq!(results(&run_dir), before);

    // A lost result is played again, alone; a new rung adds its matches only.
    std::fs::remove_file(&before[0].0).unwrap();
    let third = bench(
        &dir,
        &[
            "--resume",
            "--ladder",
            "random,alphabeta:1,uct:5",
            "--set",
            "selfplay.resign_playthrough=0.5",
        ],
    );
    let plan = std::fs::read_to_string(bench_dir.join(layout::BENCH_PLAN_FILE)).unwrap();
    assert_eq!(plan.matches("resign_playthrough").count(), 1, "{plan}");
    assert!(
        third.contains("against 3 rungs: 6 matches of 2 games, 3 to play"),
        "{third}"
    );
    let after = results(&run_dir);
    assert_eq!(after.len(), 6);
    for kept in &before[1..] {
        assert!(after.contains(kept), "{kept:?} was played again");
    }
    let csv = std::fs::read_to_string(bench_dir.join(csv_file)).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");

    // What `scripts/keep-run` commits carries the matches on record to a new machine: the
    // restored benchmark plays none again.
    let (run_text, kept) = (run_dir.to_str().unwrap(), dir.join("kept"));
    let whole = dir.join("kept-whole");
    keep_run(&["save", run_text, whole.to_str().unwrap()]);
    assert_eq!(kept_optimizers(&whole), (2, 2), "every pin whole");
    keep_run(&["save", "--light-pins", run_text, kept.to_str().unwrap()]);
    assert_eq!(kept_optimizers(&kept), (2, 1), "only the newest whole");
    assert!(!kept.join(layout::GAMES).exists(), "no game files kept");
    std::fs::remove_dir_all(&run_dir).unwrap();
    keep_run(&["restore", kept.to_str().unwrap(), run_dir.to_str().unwrap()]);
    let restored = bench(&dir, &["--resume"]);
    assert!(
        restored.contains("against 3 rungs: 6 matches of 2 games, 0 to play"),
        "{restored}"
    );
    assert_eq!(
        std::fs::read_to_string(bench_dir.join(csv_file)).unwrap(),
        csv
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Of the checkpoints `scripts/keep-run` kept in `kept`: how many, and how many of them
/// with their optimizer state.
fn kept_optimizers(kept: &Path) -> (usize, usize) {
    let dirs: Vec<PathBuf> = std::fs::read_dir(kept.join(layout::CHECKPOINTS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    for dir in &dirs {
        assert!(dir.join(layout::WEIGHTS_FILE).is_file(), "{dir:?}");
    }
    let whole = dirs
        .iter()
        .filter(|d| d.join(layout::OPTIMIZER_FILE).is_file())
        .count();
    (dirs.len(), whole)
}

/// Runs `scripts/keep-run` with `args`; it must succeed.
fn keep_run(args: &[&str]) {
    let out = std::process::Command::new("scripts/keep-run")
        .args(args)
        .output()
        .unwrap();
    common::assert_success(&out);
}

fn run_owned(args: &[String]) -> std::process::Output {
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn bad_benchmark_input_is_a_one_line_error() {
    let dir = fresh_dir("bench-learning-errors");
    std::fs::write(dir.join("tiny.toml"), TINY).unwrap();
    let config = dir.join("tiny.toml");
    let run_dir = dir.join("run");
    let (config, run_dir) = (config.to_str().unwrap(), run_dir.to_str().unwrap());
    let base = ["bench-learning", "--config", config, "--run-dir", run_dir];
    let with = |extra: &[&'static str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--resume"])),
        "no benchmark to resume",
    );
    assert_clean_error(&run_owned(&with(&["hexdame", "5"])), "not hexdame");
    assert_clean_error(&run_owned(&with(&["rematch", "0"])), "MINUTES");
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--games", "0"])),
        "--games",
    );
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--ladder", "uct"])),
        "--ladder uct",
    );
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--set", "train.weight_decay=-1"])),
        "train.weight_decay",
    );
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--set", "train.no_such_key=1"])),
        "no_such_key",
    );
    assert_clean_error(
        &run_owned(&with(&["rematch", "5", "--set", "weight_decay"])),
        "KEY=VALUE",
    );
    std::fs::create_dir_all(dir.join("run")).unwrap();
    assert_clean_error(&run_owned(&with(&["rematch", "5"])), "--resume");
    std::fs::remove_dir_all(&dir).unwrap();
}
