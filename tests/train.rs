//! The `train` command end to end: a tiny run trains, stops, resumes from the same step;
//! a run killed in the middle of a checkpoint write resumes without corruption; configs
//! with unknown keys or bad values are refused with the key named.

mod common;
use common::fresh_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use checkers_zero::net::model::Model;
use checkers_zero::selfplay::record::read_records;
use checkers_zero::train::checkpoint::{latest_checkpoint, read_state, PAUSE_IN_CHECKPOINT_ENV};
use checkers_zero::train::config::RunConfig;
use checkers_zero::train::metrics::MetricsLog;
use checkers_zero::train::run::{train, TrainOptions};

const TINY: &str = r#"
game = "rematch"
seed = 3
[net]
blocks = 1
channels = 16
policy_channels = 8
value_hidden = 16
[selfplay]
workers = 1
games_in_flight = 16
full_visits = 8
fast_visits = 4
full_search_share = 0.5
ply_cap = 40
[evaluator]
max_batch = 32
[train]
batch_size = 32
steps_per_iteration = 5
iterations = 2
replay_ratio = 4.0
min_window = 64
window_base = 1000
"#;

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn games_on_disk(run: &Path) -> usize {
    std::fs::read_dir(run.join("games"))
        .unwrap()
        .map(|e| read_records(&e.unwrap().path()).unwrap().len())
        .sum()
}

#[test]
fn tiny_run_trains_stops_and_resumes_from_the_same_step() {
    let dir = fresh_dir("train-resume");
    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    let first = train(&TrainOptions {
        config: Some(config.clone()),
        run_dir: Some(run.clone()),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((first.start_step, first.final_step), (0, 10));
    let latest = latest_checkpoint(&run.join("checkpoints"))
        .unwrap()
        .unwrap();
    assert!(latest.ends_with("step-00000010"), "{latest:?}");
    assert_eq!(read_state(&latest).unwrap().step, 10);
    assert!(first.games > 0 && first.samples > 0);
    let recorded = RunConfig::load(&run.join("config.toml")).unwrap();
    assert_eq!(recorded, RunConfig::load(&config).unwrap());
    // The checkpoint records the rules self-play used (ply_cap 40), for play to default to.
    let meta = Model::read_meta(&latest.join("model.safetensors")).unwrap();
    assert_eq!(meta.rules, Some(recorded.rules()));
    assert_eq!(meta.rules.unwrap().ply_cap, 40);
    let games_before = games_on_disk(&run);
    assert!(games_before as u64 >= first.games);

    // Starting again in the same directory is refused; resuming continues at step 10.
    let again = train(&TrainOptions {
        config: Some(config.clone()),
        run_dir: Some(run.clone()),
        ..TrainOptions::default()
    });
    assert!(again.unwrap_err().to_string().contains("--resume"));
    let second = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(3),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((second.start_step, second.final_step), (10, 15));
    assert!(
        games_on_disk(&run) >= games_before,
        "the first invocation's games are kept"
    );
    let metrics = MetricsLog::read(&run.join("metrics.jsonl")).unwrap();
    let steps: Vec<u64> = metrics
        .iter()
        .filter(|m| m["type"] == "train")
        .map(|m| m["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, vec![5, 10, 15]);
    for m in metrics.iter().filter(|m| m["type"] == "train") {
        for key in ["policy_loss", "value_loss", "policy_entropy", "elapsed_s"] {
            assert!(m[key].as_f64().unwrap().is_finite(), "{key} in {m}");
        }
    }
    // A finished run at its iteration target does nothing more when resumed.
    let third = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(3),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((third.start_step, third.final_step), (15, 15));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn killed_during_a_checkpoint_write_resumes_from_the_previous_checkpoint() {
    let dir = fresh_dir("train-kill");
    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    let binary = env!("CARGO_BIN_EXE_checkers-zero");
    let status = Command::new(binary)
        .args(["train", "--quiet", "--iterations", "1", "--config"])
        .arg(&config)
        .arg("--run-dir")
        .arg(&run)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    // Resume towards 3 iterations, pausing inside the next checkpoint write; kill -9 there.
    let marker = dir.join("paused");
    let mut child = Command::new(binary)
        .args([
            "train",
            "--quiet",
            "--resume",
            "--iterations",
            "3",
            "--run-dir",
        ])
        .arg(&run)
        .env(PAUSE_IN_CHECKPOINT_ENV, &marker)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !marker.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never reached a checkpoint"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let checkpoints = run.join("checkpoints");
    let partial: Vec<_> = std::fs::read_dir(&checkpoints)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert_eq!(
        partial.len(),
        1,
        "the killed write left its temporary directory"
    );
    assert!(!checkpoints.join("step-00000010").exists());
    let latest = latest_checkpoint(&checkpoints).unwrap().unwrap();
    assert!(latest.ends_with("step-00000005"));

    let resumed = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(3),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((resumed.start_step, resumed.final_step), (5, 15));
    let names: Vec<String> = std::fs::read_dir(&checkpoints)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with(".tmp-")), "{names:?}");
    for step in [5, 10, 15] {
        assert!(names.contains(&format!("step-{step:08}")), "{names:?}");
    }
    // Every game file written before or after the kill reads whole.
    assert!(games_on_disk(&run) > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn periodic_evaluation_logs_results_and_gating_promotes() {
    let dir = fresh_dir("train-evaluation");
    let text = format!(
        "{TINY}\n[evaluation]\nevery = 1\ngames = 4\nvisits = 4\nanchors = [\"random\"]\nparallel = 4\ngating = true\ngate_score = 0.0\n"
    );
    let config = write_config(&dir, &text);
    let run = dir.join("run");
    let summary = train(&TrainOptions {
        config: Some(config),
        run_dir: Some(run.clone()),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!(summary.final_step, 10);
    // A baseline checkpoint at step 0 is the first incumbent.
    assert!(run
        .join("checkpoints/step-00000000/model.safetensors")
        .is_file());
    let metrics = MetricsLog::read(&run.join("metrics.jsonl")).unwrap();
    let evaluations: Vec<_> = metrics
        .iter()
        .filter(|m| m["type"] == "evaluation")
        .collect();
    assert!(evaluations.len() >= 2, "{evaluations:?}");
    let vs_incumbent = evaluations.iter().find(|m| m["incumbent"] == true).unwrap();
    assert_eq!(vs_incumbent["games"], 4);
    assert_eq!(
        vs_incumbent["promoted"], true,
        "gate_score 0 always promotes"
    );
    let score = vs_incumbent["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    assert!(evaluations.iter().any(|m| m["opponent"] == "random"));
    let promoted = vs_incumbent["step"].as_u64().unwrap();
    let latest = latest_checkpoint(&run.join("checkpoints"))
        .unwrap()
        .unwrap();
    let state = read_state(&latest).unwrap();
    assert!(state.promoted_step >= Some(promoted));
    // Match records in the format `ratings` reads, and games for `games show`.
    let names: Vec<String> = std::fs::read_dir(run.join("matches"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    let reports: Vec<&String> = names
        .iter()
        .filter(|n| n.ends_with(".json") && !n.ends_with(".games.jsonl"))
        .collect();
    assert!(reports.len() >= 2, "{names:?}");
    for report in reports {
        let games = run
            .join("matches")
            .join(report.replace(".json", ".games.jsonl"));
        assert_eq!(read_records(&games).unwrap().len(), 4);
        let text = std::fs::read_to_string(run.join("matches").join(report)).unwrap();
        assert!(text.contains("step-00000005@4"), "{text}");
    }
    // `ratings` counts these games without playing more.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(["ratings", "--no-play", "--visits", "4", "--run-dir"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(run.join("ratings.csv").is_file());
    // Gating without evaluations, or a gate above 1, is refused by the config check.
    for bad in [
        "[evaluation]\ngating = true\n",
        "[evaluation]\nevery = 1\ngate_score = 1.5\n",
        "[evaluation]\nevery = 1\nanchors = [\"uct:x\"]\n",
    ] {
        let error = RunConfig::parse(&format!("game = \"rematch\"\n{bad}"), "t.toml").unwrap_err();
        assert!(error.to_string().contains("evaluation."), "{error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_errors_name_the_key() {
    let cases = [
        ("game = \"rematch\"\nbogus = 1\n", "bogus"),
        ("game = \"rematch\"\n[train]\nbatch_sise = 3\n", "batch_sise"),
        ("game = \"rematch\"\n[selfplay]\nfull_visits = 1\n", "selfplay.full_visits"),
        ("game = \"rematch\"\n[train]\nlearning_rate = -1.0\n", "train.learning_rate"),
        ("game = \"rematch\"\n[selfplay]\nsearch = \"alphabeta\"\n", "search"),
        ("game = \"rematch\"\n[selfplay]\nnew_weights = \"sometimes\"\n", "new_weights"),
        ("game = \"chess\"\n", "game"),
        ("game = \"rematch\"\n[train]\nwindow_base = 10\nwindow_max = 5\n", "train.window_max"),
        ("game = \"rematch\"\n[net]\nblocks = 0\nchannels = 8\npolicy_channels = 4\nvalue_hidden = 4\n", "net.blocks"),
        ("game = \"rematch\"\n[evaluator]\nmax_batch = \"big\"\n", "max_batch"),
    ];
    for (text, key) in cases {
        let error = RunConfig::parse(text, "test.toml").unwrap_err().to_string();
        assert!(
            error.contains(key),
            "{text:?} gave {error:?}, which does not name {key}"
        );
    }
    for name in ["quick", "rematch", "rematch3", "hexdame", "eximo"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("configs/{name}.toml"));
        RunConfig::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn resume_without_a_run_and_bad_checkpoints_are_clear_errors() {
    let dir = fresh_dir("train-errors");
    let error = train(&TrainOptions {
        run_dir: Some(dir.join("nothing")),
        resume: true,
        ..TrainOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("no run to resume"), "{error}");

    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    train(&TrainOptions {
        config: Some(config),
        run_dir: Some(run.clone()),
        iterations: Some(1),
        ..TrainOptions::default()
    })
    .unwrap();
    let checkpoint = run.join("checkpoints/step-00000005");
    std::fs::write(checkpoint.join("optimizer.safetensors"), b"garbage").unwrap();
    let error = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(2),
        ..TrainOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("optimizer.safetensors"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}
