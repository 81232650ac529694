//! The `train` command end to end: a tiny run trains, stops, resumes from the same step;
//! a checkpoint whose publishing fails half-way leaves the previous one to resume from; a
//! resume skips a checkpoint that does not load, saying so; a stop before the first step leaves a
//! step-0 checkpoint that `export` and `match` take; `train` and the distributed roles write
//! the same layout; configs with unknown keys or bad values are refused with the key named;
//! a fork carries its base's window and optimizer over unchanged; a resume's `--set` changes
//! the run's settings from its newest checkpoint on, never its game or net.

use crate::common;
use common::fresh_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use checkers_zero::config::RunConfig;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::layout::{self, read_state};
use checkers_zero::metrics::log::MetricsLog;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::roles::fork::{fork_run, ForkPoint};
use checkers_zero::roles::keeper::LeaseKeeper;
use checkers_zero::roles::learner::{LearnerRole, Readied};
use checkers_zero::roles::lease::SingletonRole;
use checkers_zero::roles::local::{train, TrainOptions, TrainSummary};
use checkers_zero::selfplay::record::read_records;
use checkers_zero::store::RunStore;
use checkers_zero::train::learner::Learner;
use checkers_zero::train::window::Sample;

const TINY: &str = common::TINY_CONFIG;

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// TINY with an evaluation every iteration: `games` games at 4 visits per opponent (the
/// previous checkpoint and `random`), then the lines `extra`.
fn with_evaluation(games: u32, extra: &str) -> String {
    format!(
        "{TINY}\n[evaluation]\nevery = 1\ngames = {games}\nvisits = 4\nanchors = [\"random\"]\nparallel = {games}\n{extra}"
    )
}

/// The checkpoint directory `checkpoints/latest` names.
fn latest_checkpoint(checkpoints: &Path) -> PathBuf {
    let name = std::fs::read_to_string(checkpoints.join(layout::LATEST_FILE)).unwrap();
    checkpoints.join(name.trim())
}

/// The games in every shard of every self-play session (`games/<session>/NNNNNNNN.jsonl.gz`).
fn games_on_disk(run: &Path) -> usize {
    let mut games = 0;
    for session in std::fs::read_dir(run.join(layout::GAMES)).unwrap() {
        for shard in std::fs::read_dir(session.unwrap().path()).unwrap() {
            games += read_records(&shard.unwrap().path()).unwrap().len();
        }
    }
    games
}

/// The learner's metrics lines of `kind` (`train`, `intake`, `selfplay`).
fn learner_metrics(run: &Path, kind: &str) -> Vec<serde_json::Value> {
    metrics_of(&run.join(layout::LEARNER_METRICS), kind)
}

/// The lines of `kind` of the metrics log at `path`, read through their types, as JSON.
fn metrics_of(path: &Path, kind: &str) -> Vec<serde_json::Value> {
    MetricsLog::read(path)
        .unwrap()
        .iter()
        .map(|line| serde_json::to_value(line).unwrap())
        .filter(|m| m["type"] == kind)
        .collect()
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
    let latest = latest_checkpoint(&run.join(layout::CHECKPOINTS));
    assert!(latest.ends_with(layout::checkpoint_name(10)), "{latest:?}");
    assert_eq!(read_state(&latest).unwrap().step, 10);
    assert!(first.games > 0 && first.samples > 0);
    let recorded = RunConfig::load(&run.join(layout::CONFIG)).unwrap();
    assert_eq!(recorded, RunConfig::load(&config).unwrap());
    // The checkpoint records the rules self-play used (ply_cap 40), for play to default to.
    let meta = Model::read_meta(&latest.join(layout::WEIGHTS_FILE)).unwrap();
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
    let train_lines = learner_metrics(&run, "train");
    let steps: Vec<u64> = train_lines
        .iter()
        .map(|m| m["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, vec![5, 10, 15]);
    for m in &train_lines {
        for key in [
            "policy_loss",
            "value_loss",
            "policy_entropy",
            "elapsed_s",
            "cpu_s",
        ] {
            assert!(m[key].as_f64().unwrap().is_finite(), "{key} in {m}");
        }
    }
    // The CPU time is summed over both invocations, as the wall time is.
    let cpu: Vec<f64> = train_lines
        .iter()
        .map(|m| m["cpu_s"].as_f64().unwrap())
        .collect();
    assert!(
        cpu.windows(2).all(|w| w[0] <= w[1]) && cpu[2] > cpu[0],
        "{cpu:?}"
    );
    // Each iteration also logs its intake (with how the games went) and self-play's rates.
    let intake = learner_metrics(&run, "intake");
    assert_eq!(intake.len(), 3, "{intake:?}");
    for m in &intake {
        let games = m["games"].as_u64().unwrap();
        let decided = ["wins_side0", "wins_side1", "draws"]
            .iter()
            .map(|k| m[*k].as_u64().unwrap())
            .sum::<u64>();
        assert_eq!(games, decided, "{m}");
        // The diversity of the newest games and of the window rides along.
        let d = &m["diversity"];
        let openings: Vec<f64> = ["openings_2", "openings_4", "openings_6", "openings_8"]
            .iter()
            .map(|k| d[*k].as_f64().unwrap())
            .collect();
        assert!(openings.windows(2).all(|w| w[0] <= w[1]), "{d}");
        assert!(openings[3] <= 1000.0 && openings[0] > 0.0, "{d}");
        let repeated = d["repeated_samples"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&repeated), "{d}");
        assert!(d["games"].as_u64().unwrap() >= games, "{d}");
    }
    // Each checkpoint logs the process's memory and the run's disk (a long run's bounds).
    let resources = learner_metrics(&run, "resources");
    assert!(resources.len() >= 3, "{resources:?}");
    for m in &resources {
        let (rss, peak) = (
            m["rss_kib"].as_u64().unwrap(),
            m["peak_rss_kib"].as_u64().unwrap(),
        );
        assert!(rss > 0 && peak >= rss, "{m}");
        assert!(m["run_disk_bytes"].as_u64().unwrap() > 0, "{m}");
    }
    let selfplay = learner_metrics(&run, "selfplay");
    assert_eq!(selfplay.len(), 3, "{selfplay:?}");
    let rates: Vec<f64> = selfplay
        .iter()
        .map(|m| m["positions_per_s"].as_f64().unwrap())
        .collect();
    assert!(
        rates.iter().all(|r| r.is_finite() && *r >= 0.0),
        "{rates:?}"
    );
    assert!(rates.iter().any(|r| *r > 0.0), "{rates:?}");
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
fn a_checkpoint_publish_failing_halfway_resumes_from_the_previous_checkpoint() {
    let dir = fresh_dir("train-fail-publish");
    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    let first = train(&TrainOptions {
        config: Some(config),
        run_dir: Some(run.clone()),
        iterations: Some(1),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!(first.final_step, 5);
    // The fault: a folder holds the name of step 10's optimizer state, so publishing that
    // checkpoint fails after its weights went up and before its state did.
    let checkpoints = run.join(layout::CHECKPOINTS);
    let blocker = run.join(layout::checkpoint_key(10, layout::OPTIMIZER_FILE));
    std::fs::create_dir_all(&blocker).unwrap();
    let failed = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(3),
        ..TrainOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(failed.contains(layout::OPTIMIZER_FILE), "{failed}");
    // Half of step 10 reached the run, its state did not, and `latest` still names step 5.
    assert!(run
        .join(layout::checkpoint_key(10, layout::WEIGHTS_FILE))
        .is_file());
    assert!(!run
        .join(layout::checkpoint_key(10, layout::STATE_FILE))
        .exists());
    let latest = latest_checkpoint(&checkpoints);
    assert!(
        latest.ends_with(layout::checkpoint_name(5)),
        "{}",
        latest.display()
    );

    std::fs::remove_dir_all(&blocker).unwrap();
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
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with(".tmp-") && !n.contains('#')),
        "{names:?}"
    );
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
    let text = with_evaluation(4, "gating = true\ngate_score = 0.0\n");
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
        .join(layout::checkpoint_key(0, layout::WEIGHTS_FILE))
        .is_file());
    let evaluations = metrics_of(&run.join(layout::EVALUATION_METRICS), "evaluation");
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
    // Self-play follows `checkpoints/promoted`, which names the newest promoted step.
    let promoted = evaluations
        .iter()
        .filter(|m| m["promoted"] == true)
        .map(|m| m["step"].as_u64().unwrap())
        .max()
        .unwrap();
    let pointer = std::fs::read_to_string(run.join(layout::PROMOTED)).unwrap();
    assert_eq!(pointer.trim(), format!("step-{promoted:08}"));
    let evaluated: Vec<u64> = evaluations
        .iter()
        .map(|m| m["step"].as_u64().unwrap())
        .collect();
    // Match records in the format `ratings` reads, and games for `games show`.
    let names: Vec<String> = std::fs::read_dir(run.join(layout::MATCHES))
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
            .join(layout::MATCHES)
            .join(report.replace(".json", ".games.jsonl"));
        assert_eq!(read_records(&games).unwrap().len(), 4);
        // The candidate plays as `step-NNNNNNNN@VISITS`, one of the steps evaluated.
        let text = std::fs::read_to_string(run.join(layout::MATCHES).join(report)).unwrap();
        assert!(
            evaluated
                .iter()
                .any(|s| text.contains(&format!("step-{s:08}@4"))),
            "{text}"
        );
    }
    // `ratings` counts these games without playing more.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(["ratings", "--no-play", "--visits", "4", "--run-dir"])
        .arg(&run)
        .output()
        .unwrap();
    common::assert_success(&out);
    assert!(run.join(layout::RATINGS_CSV).is_file());
    // Gating without evaluations, or a gate above 1, is refused by the config check.
    for bad in [
        "[evaluation]\ngating = true\n",
        "[evaluation]\nevery = 1\ngate_score = 1.5\n",
    ] {
        let error = RunConfig::parse(&format!("game = \"rematch\"\n{bad}"), "t.toml").unwrap_err();
        assert!(error.to_string().contains("evaluation."), "{error}");
    }
    // An anchor that is no agent is refused as the run starts, before its config is stored.
    let text = format!("{TINY}\n[evaluation]\nevery = 1\nanchors = [\"uct:x\"]\n");
    let bad = write_config(&dir, &text);
    let refused = dir.join("bad-anchor");
    let error = train(&TrainOptions {
        config: Some(bad),
        run_dir: Some(refused.clone()),
        ..TrainOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("evaluation.anchors[0]"), "{error}");
    assert!(!refused.join(layout::CONFIG).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resume_without_a_run_and_with_no_checkpoint_that_loads_are_clear_errors() {
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
    for step in [0, 5] {
        let checkpoint = run.join(layout::checkpoint_dir_key(step));
        std::fs::write(checkpoint.join(layout::OPTIMIZER_FILE), b"garbage").unwrap();
    }
    let error = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(2),
        ..TrainOptions::default()
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("no checkpoint"), "{error}");
    assert!(error.contains(layout::OPTIMIZER_FILE), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train --resume` with `--set` on the run of `run`, to `iterations`.
fn resume_with(run: &Path, set: &[&str], iterations: u64) -> Result<TrainSummary, String> {
    train(&TrainOptions {
        run_dir: Some(run.to_path_buf()),
        resume: true,
        set: set.iter().map(|s| s.to_string()).collect(),
        iterations: Some(iterations),
        ..TrainOptions::default()
    })
    .map_err(|e| e.to_string())
}

#[test]
fn a_resume_with_set_changes_the_settings_from_the_newest_checkpoint_on() {
    let dir = fresh_dir("train-set-on-resume");
    let run = dir.join("run");
    assert_eq!(
        train_to(&run, Some(write_config(&dir, TINY)), 2).final_step,
        10
    );
    let original = std::fs::read_to_string(run.join(layout::CONFIG)).unwrap();
    let set = [
        "selfplay.resign_playthrough=0.5",
        "selfplay.opponent_share=0.25",
    ];
    let resumed = resume_with(&run, &set, 3).unwrap();
    assert_eq!((resumed.start_step, resumed.final_step), (10, 15));
    let changed = RunConfig::load(&run.join(layout::CONFIG)).unwrap();
    assert_eq!(changed.selfplay.resign_playthrough, 0.5);
    assert_eq!(changed.selfplay.opponent_share, 0.25);
    let kept = run.join(checkers_zero::roles::settings::replaced_config_key(10));
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), original);
    // The game and the net cannot change, nor can a bad value be set: refused, nothing written.
    let now = std::fs::read_to_string(run.join(layout::CONFIG)).unwrap();
    for (bad, says) in [
        ("net.blocks=2", "cannot change the game or the net"),
        ("game=\"hexdame\"", "cannot change the game or the net"),
        ("selfplay.resign_playthrough=2.0", "resign_playthrough"),
        ("selfplay.no_such_key=1", "no_such_key"),
    ] {
        let error = resume_with(&run, &[bad], 4).unwrap_err();
        assert!(error.contains(says), "{bad}: {error}");
        assert_eq!(
            std::fs::read_to_string(run.join(layout::CONFIG)).unwrap(),
            now
        );
    }
    assert_eq!(
        read_state(&latest_checkpoint(&run.join(layout::CHECKPOINTS)))
            .unwrap()
            .step,
        15
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs the binary; returns (success, stdout, stderr).
fn run_binary(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn resume_skips_a_truncated_newest_checkpoint_and_says_so() {
    let dir = fresh_dir("train-fallback");
    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    let run_text = run.to_str().unwrap();
    let config_text = config.to_str().unwrap();
    let (ok, _, err) = run_binary(&[
        "train",
        "--quiet",
        "--iterations",
        "2",
        "--config",
        config_text,
        "--run-dir",
        run_text,
    ]);
    assert!(ok, "{err}");
    // Truncate the newest checkpoint's weights, as a full disk or a bad copy would.
    let weights = run.join(layout::checkpoint_key(10, layout::WEIGHTS_FILE));
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let (ok, out, err) = run_binary(&[
        "train",
        "--quiet",
        "--resume",
        "--iterations",
        "3",
        "--run-dir",
        run_text,
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains(&format!(
            "skipping checkpoint {}",
            layout::checkpoint_name(10)
        )) && err.contains(layout::WEIGHTS_FILE),
        "says which checkpoint it skipped and why: {err}"
    );
    assert!(
        err.contains(&format!("resuming from {}", layout::checkpoint_name(5))),
        "{err}"
    );
    assert!(
        out.contains("steps 5 -> 15"),
        "continues from step 5: {out}"
    );
    // Step 10 was trained again and written whole.
    assert_eq!(
        std::fs::metadata(&weights).unwrap().len(),
        bytes.len() as u64
    );
    let state = read_state(&run.join(layout::checkpoint_dir_key(10))).unwrap();
    assert_eq!(state.step, 10);
    let latest = latest_checkpoint(&run.join(layout::CHECKPOINTS));
    assert!(latest.ends_with(layout::checkpoint_name(15)), "{latest:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_stop_before_the_first_step_leaves_a_step_0_checkpoint_export_and_match_take() {
    let dir = fresh_dir("train-step0");
    // A window that never fills within the time limit: no training step at all.
    let text = TINY.replace("min_window = 64", "min_window = 400000");
    let config = write_config(&dir, &text);
    let run = dir.join("run");
    let summary = train(&TrainOptions {
        config: Some(config),
        run_dir: Some(run.clone()),
        minutes: Some(0.05),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((summary.start_step, summary.final_step), (0, 0));
    assert!(summary.checkpoint.ends_with(layout::checkpoint_name(0)));
    assert_eq!(read_state(&summary.checkpoint).unwrap().step, 0);
    let run_text = run.to_str().unwrap();
    let export = dir.join("export");
    let (ok, out, err) = run_binary(&[
        "export",
        "--checkpoint",
        run_text,
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(ok && out.contains("training step 0,"), "{out}{err}");
    let (ok, out, err) = run_binary(&[
        "match",
        "--game",
        "rematch",
        "--agent",
        &format!("net:{run_text}:4"),
        "--agent",
        "random",
        "--games",
        "2",
        "--quiet",
        "--out",
        dir.join("match").to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("random"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `key` with its numbers as `N` (`checkpoints/step-N/`, `games/<session>/N.jsonl.gz`).
fn numbers_as_n(key: &str) -> String {
    let normal: String = key
        .chars()
        .map(|c| if c.is_ascii_digit() { 'N' } else { c })
        .collect();
    normal.replace("NNNNNNNN", "N")
}

/// Every file and directory under `root`, relative, with the parts that name a time, a
/// session or a number replaced (`games/<session>/N.jsonl.gz`, `checkpoints/step-N/`).
fn normal_listing(root: &Path) -> std::collections::BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut std::collections::BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let mut parts: Vec<String> = relative.split('/').map(str::to_string).collect();
            if parts.len() >= 2 && (parts[0] == layout::GAMES || parts[0] == layout::WORKERS) {
                // Sessions are `<worker>-<unix ms>-<random>`.
                parts[1] = if parts.len() == 2 && parts[0] == layout::WORKERS {
                    "<session>.json".into()
                } else {
                    "<session>".into()
                };
            }
            if parts[0] == layout::MATCHES && parts.len() == 2 {
                // Match files are named after their players.
                let name = &parts[1];
                parts[1] = if name.ends_with(".games.jsonl") {
                    "<match>.games.jsonl".into()
                } else {
                    "<match>.json".into()
                };
            }
            out.insert(numbers_as_n(&parts.join("/")));
            if path.is_dir() {
                walk(&path, root, out);
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn train_and_the_distributed_roles_write_the_same_layout() {
    let dir = fresh_dir("train-layout");
    let config = write_config(&dir, &with_evaluation(2, ""));
    let config_text = config.to_str().unwrap();
    let local = dir.join("train");
    train(&TrainOptions {
        config: Some(config.clone()),
        run_dir: Some(local.clone()),
        iterations: Some(1),
        ..TrainOptions::default()
    })
    .unwrap();

    let store = dir.join("roles");
    let store_text = store.to_str().unwrap();
    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut learner = spawn(&[
        "learn",
        "--quiet",
        "--store",
        store_text,
        "--config",
        config_text,
        "--max-steps",
        "5",
        "--poll-seconds",
        "0.2",
    ]);
    let mut worker = spawn(&[
        "selfplay",
        "--quiet",
        "--store",
        store_text,
        "--games-per-shard",
        "4",
        "--shard-seconds",
        "1",
        "--poll-seconds",
        "0.2",
        "--max-minutes",
        "10",
    ]);
    assert!(learner.wait().unwrap().success());
    Command::new("kill")
        .args(["-TERM", &worker.id().to_string()])
        .status()
        .unwrap();
    assert!(worker.wait().unwrap().success());
    let (ok, _, err) = run_binary(&["evaluate", "--once", "--quiet", "--store", store_text]);
    assert!(ok, "{err}");

    let (trained, roles) = (normal_listing(&local), normal_listing(&store));
    for key in [
        layout::LEARNER_METRICS.to_string(),
        numbers_as_n(&layout::checkpoint_key(1, layout::INTAKE_FILE)),
        numbers_as_n(&layout::shard_key("<session>", 1)),
        layout::match_key("<match>.json"),
    ] {
        assert!(trained.contains(&key), "{key} not in {trained:?}");
    }
    assert_eq!(
        trained, roles,
        "train and learn + selfplay + evaluate differ"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_config_file_is_one_clear_line() {
    let dir = fresh_dir("train-missing-config");
    let missing = dir.join("nope.toml");
    let output = common::run(&[
        "train",
        "--config",
        missing.to_str().unwrap(),
        "--run-dir",
        dir.join("run").to_str().unwrap(),
    ]);
    common::assert_clean_error(&output, "nope.toml");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "the cause once: {stderr}"
    );
    assert!(
        !dir.join("run").exists(),
        "nothing is created for a bad config"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scripts_train_says_a_missing_config_once_before_building() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/train");
    for args in [
        vec!["--config", "configs/no-such.toml"],
        vec!["--config=configs/no-such.toml", "--minutes", "1"],
    ] {
        let output = Command::new("bash")
            .arg(&script)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        common::assert_clean_error(&output, "configs/no-such.toml: no such file");
    }
}

/// The learner of a run, resumed from its newest checkpoint (window rebuilt).
fn resumed_learner(run: &Path) -> LearnerRole<Rematch> {
    let store = RunStore::open(run.to_str().unwrap()).unwrap();
    let config = RunConfig::load(&run.join(layout::CONFIG)).unwrap();
    let lease =
        LeaseKeeper::acquire(store.location(), SingletonRole::Learner, &config.lease).unwrap();
    LearnerRole::<Rematch>::start(store, config, None, Duration::from_secs(1), lease).unwrap()
}

/// Model and optimizer files a learner writes now (the training state aside).
fn saved_weights(role: &LearnerRole<Rematch>, dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let saved = role.learner().save_checkpoint(dir).unwrap();
    let read = |name: &str| std::fs::read(saved.join(name)).unwrap();
    (read(layout::WEIGHTS_FILE), read(layout::OPTIMIZER_FILE))
}

#[test]
fn a_fork_carries_window_and_optimizer_over_unchanged() {
    let dir = fresh_dir("train-fork");
    let config = write_config(&dir, TINY);
    let base = dir.join("base");
    train(&TrainOptions {
        config: Some(config),
        run_dir: Some(base.clone()),
        ..TrainOptions::default()
    })
    .unwrap();
    // An arm forked at the base's newest checkpoint (step 10) with two settings changed.
    let arm = dir.join("arm");
    let point: ForkPoint = format!("{}@10", base.display()).parse().unwrap();
    let sets = ["train.learning_rate=0.0005".to_string(), "seed=9".into()];
    let arm_config = RunConfig::parse_with(TINY, "tiny", &sets).unwrap();
    let store = RunStore::open(arm.to_str().unwrap()).unwrap();
    let record = fork_run(&point, &store, &arm_config).unwrap();
    assert_eq!(record.step, 10);
    assert!(record.shards > 0);

    let (base_role, arm_role) = (resumed_learner(&base), resumed_learner(&arm));
    let (b, a) = (base_role.learner(), arm_role.learner());
    assert_eq!((a.state.step, a.state.seed), (10, 9));
    assert_eq!(a.config.train.learning_rate, 0.0005);
    assert_eq!(
        (a.samples_total, a.games_total, &a.state.consumed),
        (b.samples_total, b.games_total, &b.state.consumed)
    );
    assert!(!b.window.is_empty());
    assert!(
        a.window.iter().eq(b.window.iter()),
        "the same replay window"
    );
    assert_eq!(
        saved_weights(&arm_role, &dir.join("a")),
        saved_weights(&base_role, &dir.join("b")),
        "the same weights and optimizer state"
    );
    drop((base_role, arm_role));

    // The fork trains on as a run of its own, from step 10.
    let resumed = train(&TrainOptions {
        run_dir: Some(arm.clone()),
        resume: true,
        iterations: Some(3),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((resumed.start_step, resumed.final_step), (10, 15));
    // A step with no checkpoint, and a config that changes the net, are refused in words.
    for (at, sets, needle) in [
        ("7", vec![], "no published checkpoint at step 7"),
        ("10", vec!["net.channels=8".to_string()], "changes the net"),
    ] {
        let point: ForkPoint = format!("{}@{at}", base.display()).parse().unwrap();
        let config = RunConfig::parse_with(TINY, "tiny", &sets).unwrap();
        let store = RunStore::open(dir.join(format!("bad-{at}")).to_str().unwrap()).unwrap();
        let error = fork_run(&point, &store, &config).unwrap_err().to_string();
        assert!(error.contains(needle), "{error}");
    }
    // A fork with a lower replay ratio counts the ratio from the fork: the base trained
    // more samples than 0.01 of its intake allows, and the arm steps once 0.01 of what it
    // takes in from the fork on pays for a batch (32 samples: 3,200 new ones), instead of
    // waiting until 0.01 of everything ever taken in covers what the base trained.
    let config = RunConfig::parse_with(TINY, "tiny", &["train.replay_ratio=0.01".into()]).unwrap();
    let checkpoint = latest_checkpoint(&base.join(layout::CHECKPOINTS));
    let mut low = Learner::<Rematch>::new(config, Some(&checkpoint)).unwrap();
    let (seen, games) = (low.state.samples_seen, low.state.games_seen);
    low.restore_totals(seen, games);
    assert!(low.state.samples_trained as f64 > 0.01 * (seen + 3_200) as f64);
    let sample = Sample {
        planes: vec![0.0; Rematch::PLANES * Rematch::HEIGHT * Rematch::WIDTH].into(),
        legal: vec![0].into(),
        target: vec![(0, 1.0)].into(),
        result: 1,
        q: 0.0,
        surprise: None,
        moves_left: 1,
        key: 0,
    };
    low.ingest(vec![sample.clone(); 3_100], true);
    assert!(
        !low.ready(),
        "a step before 0.01 of the new samples pays for it"
    );
    low.ingest(vec![sample; 200], true);
    assert!(
        low.ready(),
        "the fork waits for intake to catch up with the base's"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_fork_on_the_command_line_starts_from_the_base_checkpoint() {
    let dir = fresh_dir("train-fork-cli");
    let config = write_config(&dir, TINY);
    let base = dir.join("base");
    let base_arg = base.to_str().unwrap().to_string();
    let (ok, _, err) = run_binary(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        &base_arg,
        "--iterations",
        "1",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    let arm = dir.join("arm");
    let fork = format!("{base_arg}@5");
    let (ok, out, err) = run_binary(&[
        "train",
        "--fork",
        &fork,
        "--set",
        "train.learning_rate=0.0005",
        "--run-dir",
        arm.to_str().unwrap(),
        "--iterations",
        "2",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("steps 5 -> 10"), "{out}");
    assert!(err.contains("forked") && err.contains("at step 5"), "{err}");
    let recorded = RunConfig::load(&arm.join(layout::CONFIG)).unwrap();
    assert_eq!(recorded.train.learning_rate, 0.0005);
    let (ok, _, err) = run_binary(&[
        "train",
        "--fork",
        "nowhere@5",
        "--run-dir",
        &format!("{base_arg}-x"),
    ]);
    assert!(!ok && err.contains("holds no run to fork"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_shipped_model_forks_its_kept_checkpoint_and_refills_the_window() {
    let dir = fresh_dir("train-fork-shipped");
    let config = write_config(&dir, TINY);
    let base = dir.join("base");
    let (ok, _, err) = run_binary(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--run-dir",
        base.to_str().unwrap(),
        "--iterations",
        "2",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    // What scripts/keep-run commits: the newest checkpoint, no older link, no games.
    std::fs::remove_dir_all(base.join(layout::checkpoint_dir_key(5))).unwrap();
    std::fs::remove_dir_all(base.join(layout::GAMES)).unwrap();
    let shipped = dir.join("shipped");
    std::fs::create_dir_all(&shipped).unwrap();
    std::fs::write(shipped.join("checkpoint.txt"), "../base@10\n").unwrap();
    let (ok, out, err) = run_binary(&[
        "train",
        "--fork",
        shipped.to_str().unwrap(),
        "--run-dir",
        dir.join("arm").to_str().unwrap(),
        "--iterations",
        "3",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("steps 10 -> 15"), "{out}");
    assert!(err.contains("refills from new self-play"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the checkpoint directory of `step` holds: whole, weights only, or its link only.
fn held(run: &Path, step: u64) -> &'static str {
    let dir = run.join(layout::checkpoint_dir_key(step));
    assert!(
        dir.join(layout::INTAKE_FILE).is_file(),
        "step {step} keeps its link"
    );
    let has = |f: &str| dir.join(f).is_file();
    match (
        has(layout::OPTIMIZER_FILE),
        has(layout::WEIGHTS_FILE),
        has(layout::STATE_FILE),
    ) {
        (true, true, true) => "full",
        (false, true, true) => "weights",
        (false, false, false) => "link",
        other => panic!("step {step} holds {other:?}"),
    }
}

#[test]
fn retention_keeps_the_newest_whole_and_thinned_weights_and_resume_and_fork_go_on() {
    let dir = fresh_dir("train-retention");
    let text = format!("{TINY}\n[checkpoints]\nkeep_full = 2\nkeep_weights = 2\n");
    let config = write_config(&dir, &text);
    let run = dir.join("run");
    let first = train(&TrainOptions {
        config: Some(config),
        run_dir: Some(run.clone()),
        iterations: Some(6),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!(first.final_step, 30);
    // The newest two whole; weights at evenly spaced steps (0 and 20: every 20); the rest
    // keep their intake links.
    let kept: Vec<&str> = (0..=6).map(|i| held(&run, i * 5)).collect();
    assert_eq!(
        kept,
        ["weights", "link", "link", "link", "weights", "full", "full"]
    );
    // Ratings list what has weights.
    let listed: Vec<u64> = checkers_zero::eval::ratings::list_checkpoints(&run)
        .unwrap()
        .iter()
        .map(|c| c.step)
        .collect();
    assert_eq!(listed, vec![0, 20, 25, 30]);
    // The links still name every shard taken in.
    let store = RunStore::open(run.to_str().unwrap()).unwrap();
    let chain = checkers_zero::roles::learner::intake_chain(&store, 30).unwrap();
    assert_eq!(chain.len() as u64, read_state_consumed(&run, 30));

    // A pinned checkpoint (bench-learning pins those it rated) stays whole.
    std::fs::write(
        run.join(layout::checkpoint_key(25, layout::PINNED_FILE)),
        b"",
    )
    .unwrap();

    // Resume goes on from the newest whole checkpoint.
    let resumed = train(&TrainOptions {
        run_dir: Some(run.clone()),
        resume: true,
        iterations: Some(8),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((resumed.start_step, resumed.final_step), (30, 40));
    assert_eq!((held(&run, 35), held(&run, 40)), ("full", "full"));
    // Thinned to steps 0 and 40 (every 40), but 25 is pinned (whole); 20 is not.
    assert_eq!((held(&run, 20), held(&run, 25)), ("link", "full"));
    // A fork of a whole checkpoint trains on; one of weights only is refused in words.
    let arm_config = RunConfig::parse(&text, "tiny").unwrap();
    let point: ForkPoint = format!("{}@35", run.display()).parse().unwrap();
    let arm = dir.join("arm");
    let arm_store = RunStore::open(arm.to_str().unwrap()).unwrap();
    assert_eq!(fork_run(&point, &arm_store, &arm_config).unwrap().step, 35);
    let pinned: ForkPoint = format!("{}@25", run.display()).parse().unwrap();
    let pinned_arm = RunStore::open(dir.join("arm25").to_str().unwrap()).unwrap();
    assert_eq!(
        fork_run(&pinned, &pinned_arm, &arm_config).unwrap().step,
        25
    );
    let forked = train(&TrainOptions {
        run_dir: Some(arm.clone()),
        resume: true,
        iterations: Some(8),
        ..TrainOptions::default()
    })
    .unwrap();
    assert_eq!((forked.start_step, forked.final_step), (35, 40));
    let point: ForkPoint = format!("{}@0", run.display()).parse().unwrap();
    let other = RunStore::open(dir.join("arm0").to_str().unwrap()).unwrap();
    let error = fork_run(&point, &other, &arm_config)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("keeps only the weights of step 0") && error.contains("35, 40"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Shards the checkpoint at `step` had taken in, from its counters.
fn read_state_consumed(run: &Path, step: u64) -> u64 {
    let state = read_state(&run.join(layout::checkpoint_dir_key(step))).unwrap();
    state.consumed.values().sum()
}

/// `train` of the run in `run` (a TINY one when `config` is given) to `iterations`
/// iterations in total, resuming it otherwise.
fn train_to(run: &Path, config: Option<PathBuf>, iterations: u64) -> TrainSummary {
    train(&TrainOptions {
        resume: config.is_none(),
        config,
        run_dir: Some(run.to_path_buf()),
        iterations: Some(iterations),
        ..TrainOptions::default()
    })
    .unwrap()
}

#[test]
fn a_resumed_run_removes_what_a_stopped_learner_left_unpublished() {
    let dir = fresh_dir("train-leftover");
    let run = dir.join("run");
    assert_eq!(
        train_to(&run, Some(write_config(&dir, TINY)), 2).final_step,
        10
    );
    // A learner stopped while writing step 15: its weights there, cut short, no counters.
    let left = run.join(layout::checkpoint_dir_key(15));
    std::fs::create_dir_all(&left).unwrap();
    std::fs::write(left.join(layout::WEIGHTS_FILE), b"cut short").unwrap();
    let resumed = train_to(&run, None, 3);
    assert_eq!((resumed.start_step, resumed.final_step), (10, 15));
    // Step 15 is this learner's own, whole: the leftover was removed, not built on.
    assert_eq!(held(&run, 15), "full");
    let weights = std::fs::read(left.join(layout::WEIGHTS_FILE)).unwrap();
    assert_ne!(weights, b"cut short");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_learner_readied_while_waiting_is_readied_again_if_the_run_moved_on() {
    let dir = fresh_dir("train-standby");
    let config = write_config(&dir, TINY);
    let run = dir.join("run");
    let first = train_to(&run, Some(config), 1).final_step;
    let store = RunStore::open(run.to_str().unwrap()).unwrap();
    let run_config = RunConfig::load(&run.join(layout::CONFIG)).unwrap();
    // A successor readies itself while the run's learner still holds the lease.
    let ready =
        Readied::<Rematch>::prepare(&store, run_config, None, Duration::from_secs(1)).unwrap();
    assert_eq!(ready.step(), first);
    let ready = ready.fresh(&store).unwrap();
    assert_eq!(ready.step(), first, "nothing newer: the same learner");
    // The holder goes on and publishes more before it gives the lease up.
    let moved = train_to(&run, None, 2).final_step;
    assert!(moved > first);
    let ready = ready.fresh(&store).unwrap();
    assert_eq!(
        ready.step(),
        moved,
        "a stale learner would undo the holder's steps"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tiny run trained 2 iterations (step 10), then its game files removed: (dir, run).
fn tiny_run_without_games(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir(name);
    let run = dir.join("run");
    let config = write_config(&dir, TINY);
    assert_eq!(train_to(&run, Some(config), 2).final_step, 10);
    std::fs::remove_dir_all(run.join(layout::GAMES)).unwrap();
    (dir, run)
}

/// Resumes `run` to iteration 3; it must say that its window refills from new self-play.
fn resume_three_iterations(run: &Path) {
    let run_text = run.to_str().unwrap();
    let (ok, _, stderr) = run_binary(&[
        "train",
        "--run-dir",
        run_text,
        "--resume",
        "--iterations",
        "3",
        "--quiet",
    ]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("refills from new self-play"), "{stderr}");
}

#[test]
fn a_committed_run_with_only_its_newest_checkpoint_resumes_with_its_counts() {
    // What `scripts/keep-run save` commits: the newest checkpoint, no older links, no games.
    let (dir, run) = tiny_run_without_games("train-committed");
    let intake = learner_metrics(&run, "intake");
    let before = intake.last().unwrap()["samples_total"].as_u64().unwrap();
    let checkpoints = run.join(layout::CHECKPOINTS);
    let newest = std::fs::read_to_string(checkpoints.join(layout::LATEST_FILE)).unwrap();
    for entry in std::fs::read_dir(&checkpoints).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.file_name().unwrap() != newest.trim() {
            std::fs::remove_dir_all(path).unwrap();
        }
    }
    resume_three_iterations(&run);
    // The totals go on from the checkpoint's counts (the replay ratio paces by them), not
    // from zero, which would hold training until new self-play matched all past training.
    let after = learner_metrics(&run, "intake");
    let first = &after[intake.len()];
    assert!(
        first["samples_total"].as_u64().unwrap() > before,
        "{before} then {first}"
    );
    let last = learner_metrics(&run, "train").pop().unwrap();
    assert_eq!(last["step"].as_u64(), Some(15), "{last}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_whose_game_files_are_gone_resumes_and_refills_its_window_from_new_selfplay() {
    // What a run moved to a fresh machine from its committed checkpoints looks like.
    let (dir, run) = tiny_run_without_games("train-no-games");
    resume_three_iterations(&run);
    let window = learner_metrics(&run, "window");
    assert_eq!(window.len(), 1, "{window:?}");
    assert!(
        window[0]["shards_missing"].as_u64().unwrap() > 0,
        "{window:?}"
    );
    assert_eq!(window[0]["samples"].as_u64(), Some(0), "{window:?}");
    assert_eq!(window[0]["refills_from_new_selfplay"].as_bool(), Some(true));
    // It trained on from the new games: the next iteration's step, its losses finite.
    let last = learner_metrics(&run, "train").pop().unwrap();
    assert_eq!(last["step"].as_u64(), Some(15), "{last}");
    assert!(last["policy_loss"].as_f64().unwrap().is_finite(), "{last}");
    assert!(games_on_disk(&run) > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Of the shards the checkpoint at `step` had taken in: how many, and how many of their
/// files are still on disk.
fn taken_and_kept(run: &Path, step: u64) -> (usize, usize) {
    let state = read_state(&run.join(layout::checkpoint_dir_key(step))).unwrap();
    let store = RunStore::open(run.to_str().unwrap()).unwrap();
    let kept = store
        .list(layout::GAMES)
        .unwrap()
        .iter()
        .filter_map(|k| layout::parse_shard_key(k))
        .filter(|(session, seq)| state.consumed.get(*session).is_some_and(|n| seq < n))
        .count();
    (state.consumed.values().sum::<u64>() as usize, kept)
}

/// Resumes the learner of `run` and checks that its window's rebuild found every shard it
/// walked through; returns the window's size.
fn resumed_window_is_whole(run: &Path) -> usize {
    let size = resumed_learner(run).learner().window.len();
    let window = learner_metrics(run, "window");
    assert_eq!(window.last().unwrap()["shards_missing"].as_u64(), Some(0));
    size
}

/// Forks `run` at `step` into `arm` (config `text`) and checks that the fork's window is
/// whole.
fn forked_window_is_whole(run: &Path, step: u64, arm: &Path, text: &str) {
    let point: ForkPoint = format!("{}@{step}", run.display()).parse().unwrap();
    let store = RunStore::open(arm.to_str().unwrap()).unwrap();
    fork_run(&point, &store, &RunConfig::parse(text, "tiny").unwrap()).unwrap();
    assert!(resumed_window_is_whole(arm) > 0);
}

#[test]
fn game_retention_deletes_what_no_window_reads_and_resume_and_fork_read_theirs_whole() {
    let dir = fresh_dir("train-game-retention");
    // A window of 200 samples, so that the run takes in many windows' worth.
    let small = TINY.replace("window_base = 1000", "window_base = 200\nwindow_max = 200");
    let run = dir.join("run");
    train_to(&run, Some(write_config(&dir, &small)), 2);
    // Step 10 pinned (a doubling's or a rated checkpoint): its window is kept too.
    std::fs::write(
        run.join(layout::checkpoint_key(10, layout::PINNED_FILE)),
        b"",
    )
    .unwrap();
    let summary = train_to(&run, None, 10);
    assert_eq!(summary.final_step, 50);
    let (taken, kept) = taken_and_kept(&run, 50);
    assert!(
        kept < taken,
        "{kept} shard files kept of {taken} taken in: none deleted"
    );
    // The metrics count each deletion.
    let deleted: u64 = learner_metrics(&run, "resources")
        .iter()
        .map(|m| m["games_deleted"].as_u64().unwrap())
        .sum();
    assert_eq!(deleted as usize, taken - kept);
    // The links still name every shard taken in.
    let store = RunStore::open(run.to_str().unwrap()).unwrap();
    let chain = checkers_zero::roles::learner::intake_chain(&store, 50).unwrap();
    assert_eq!(chain.len(), taken);

    // A resume reads its whole window back: no shard it walks through is gone.
    assert_eq!(resumed_window_is_whole(&run), 200);
    // A fork of the pinned checkpoint too.
    forked_window_is_whole(&run, 10, &dir.join("arm"), &small);

    // keep_games = "all" deletes none, nor does keep_full = 0 (every checkpoint whole, so
    // every window kept).
    for (name, line) in [("all", "keep_games = \"all\""), ("whole", "keep_full = 0")] {
        let run = dir.join(name);
        let text = format!("{small}[checkpoints]\n{line}\n");
        train_to(&run, Some(write_config(&dir, &text)), 6);
        let (taken, kept) = taken_and_kept(&run, 30);
        assert_eq!(kept, taken, "{line}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn game_retention_counts_the_shards_of_links_written_before_their_counts() {
    let dir = fresh_dir("train-game-retention-old");
    let small = TINY.replace("window_base = 1000", "window_base = 200\nwindow_max = 200");
    let text = format!("{small}[checkpoints]\nkeep_games = \"all\"\n");
    let run = dir.join("run");
    train_to(&run, Some(write_config(&dir, &text)), 6);
    // A run from before game retention: every game kept, links without their counts.
    let checkpoints = run.join(layout::CHECKPOINTS);
    for entry in std::fs::read_dir(&checkpoints).unwrap() {
        let link = entry.unwrap().path().join(layout::INTAKE_FILE);
        if let Ok(json) = std::fs::read_to_string(&link) {
            let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
            value.as_object_mut().unwrap().remove("samples");
            std::fs::write(&link, value.to_string()).unwrap();
        }
    }
    let (taken, kept) = taken_and_kept(&run, 30);
    assert_eq!(kept, taken);
    // Resumed with the default: the files it no longer needs go, counted from the files.
    std::fs::write(run.join(layout::CONFIG), &small).unwrap();
    train_to(&run, None, 7);
    let (taken, kept) = taken_and_kept(&run, 35);
    assert!(kept < taken, "{kept} of {taken} kept");
    assert_eq!(resumed_window_is_whole(&run), 200);
    // The older whole checkpoint's window, walked through the old links, is whole too.
    forked_window_is_whole(&run, 30, &dir.join("arm"), &small);
    std::fs::remove_dir_all(&dir).unwrap();
}
