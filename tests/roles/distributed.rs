//! The distributed roles as separate processes sharing one run location: two self-play
//! workers and a learner, a worker and the learner killed and restarted, then the audit that
//! the learner took in every shard exactly once. Run on a local directory and on a real
//! S3-compatible server (s3s-fs on loopback; skipped, saying so, where it is not installed).

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;
use std::time::Duration;

use checkers_zero::config::RunConfig;
use checkers_zero::layout;
use checkers_zero::layout::state::TrainState;
use checkers_zero::layout::{checkpoint_key, parse_shard_key, LATEST, PROMOTED, STATE_FILE};
use checkers_zero::roles::learner::intake_chain;
use checkers_zero::roles::lease::Lease;
use checkers_zero::roles::{read_pointer, read_state_file};
use checkers_zero::selfplay::record::{parse_record_bytes, GameRecord};
use checkers_zero::store::RunStore;
use common::roles::{role, spawn, wait_for_lease_expiry, wait_until, DISTRIBUTED_RUN};
use common::{assert_clean_error, fresh_dir, run};

/// The tests' run: the shared small run, evaluated every iteration, short leases (long
/// enough that a learner started after a kill still finds the killed one's lease on a
/// loaded machine).
static CONFIG: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{DISTRIBUTED_RUN}{}",
        r#"[evaluation]
every = 1
games = 2
visits = 4
anchors = ["random"]
parallel = 2
[lease]
seconds = 12.0
renew_seconds = 1.0
"#
    )
});

/// The shard keys in the store, by session.
fn shards_by_session(store: &RunStore) -> BTreeMap<String, Vec<String>> {
    let mut sessions: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for key in store.list(layout::GAMES).unwrap() {
        let (session, _) = parse_shard_key(&key).unwrap_or_else(|| panic!("stray {key}"));
        sessions.entry(session.to_string()).or_default().push(key);
    }
    sessions
}

/// The games of a shard (it must be whole and readable).
fn shard_games(store: &RunStore, key: &str) -> Vec<GameRecord> {
    let bytes = store.get(key).unwrap().unwrap();
    parse_record_bytes(&bytes, Path::new(key)).unwrap()
}

/// Runs `checkers-zero evaluate --once` on `location`; returns its output.
fn evaluate_once(dir: &Path, name: &str, location: &str) -> String {
    role(dir, name, "evaluate", location, &["--once"], &[]).finish(dir, Duration::from_secs(120))
}

/// The number in `text` between `label` and the next `end`.
fn number_after<T: std::str::FromStr>(text: &str, label: &str, end: char) -> T {
    text.split(label)
        .nth(1)
        .and_then(|s| s.split(end).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no number after {label:?} in {text:?}"))
}

fn latest_step(store: &RunStore) -> Option<u64> {
    read_pointer(store, LATEST).unwrap()
}

/// Two workers and a learner at `location`; a worker killed mid-shard and a learner killed
/// and restarted; every shard must be taken in exactly once.
fn shards_flow(location: &str, env: &[(String, String)], dir: &Path) {
    let config = dir.join("config.toml");
    std::fs::write(&config, CONFIG.as_str()).unwrap();
    let store = RunStore::open_with(location, env).unwrap();
    let config = config.to_str().unwrap();
    let learn = |name: &str, extra: &[&str]| role(dir, name, "learn", location, extra, env);
    let selfplay = |name: &str, extra: &[&str]| {
        let mut args = vec!["--games-per-shard", "2", "--shard-seconds", "2"];
        args.extend_from_slice(extra);
        role(dir, name, "selfplay", location, &args, env)
    };
    let learner = learn("learn-1", &["--config", config]);
    // A second learner on the run is refused in words while the first holds its lease.
    wait_until("the learner's lease", Duration::from_secs(60), || {
        !Lease::holders(&store).unwrap().is_empty()
    });
    let second = learn("learn-second", &["--config", config]).refused(dir, Duration::from_secs(60));
    assert!(
        second.contains("a learner on") && second.contains("holds this run until"),
        "{second}"
    );
    let status = spawn(dir, "status-1", &["status", "--store", location], env)
        .finish(dir, Duration::from_secs(60));
    assert!(status.contains("lease: learner: "), "{status}");
    let worker1 = selfplay("worker-1", &["--worker-id", "w1"]);
    let worker2 = selfplay("worker-2", &["--worker-id", "w2", "--max-games", "40"]);

    // Kill worker 1 once it has published two shards: it is playing its next one.
    let w1_shards = |store: &RunStore| {
        shards_by_session(store)
            .iter()
            .filter(|(s, _)| s.starts_with("w1-"))
            .map(|(_, keys)| keys.len())
            .sum::<usize>()
    };
    wait_until("worker 1's shards", Duration::from_secs(120), || {
        w1_shards(&store) >= 2
    });
    worker1.kill();
    // Nothing partial: every object under games/ is a whole, readable shard.
    for keys in shards_by_session(&store).values() {
        for key in keys {
            assert!(!shard_games(&store, key).is_empty(), "{key} is empty");
        }
    }

    // Kill the learner once it has published a trained checkpoint.
    wait_until("a trained checkpoint", Duration::from_secs(120), || {
        latest_step(&store).is_some_and(|s| s >= 10)
    });
    learner.kill();
    let killed_at = latest_step(&store).unwrap();
    // The killed learner's lease holds the run until it expires; then a new one takes over.
    let early = learn("learn-early", &[]).refused(dir, Duration::from_secs(60));
    assert!(early.contains("holds this run until"), "{early}");
    // The restarted worker first, so that its games are there before the next learner can
    // run out of shards and exit; that learner may wait (a restarted pod): it waits for the
    // expiry and takes the run over.
    let worker1 = selfplay("worker-1b", &["--worker-id", "w1", "--max-games", "12"]);
    let learner = learn("learn-2", &["--idle-exit", "4", "--wait-for-lease"]);
    wait_for_lease_expiry(&store, "learner", Duration::from_secs(30));

    worker1.finish(dir, Duration::from_secs(180));
    worker2.finish(dir, Duration::from_secs(180));
    let out = learner.finish(dir, Duration::from_secs(180));
    let waited = std::fs::read_to_string(dir.join("learn-2.err")).unwrap();
    assert!(
        waited.contains("holds this run until") && waited.contains("(--wait-for-lease)"),
        "{waited}"
    );
    // A warm standby: the checkpoint and window were read while the lease still ran.
    assert!(waited.contains("readied step "), "{waited}");
    let resumed_from: u64 = number_after(&out, "steps ", ' ');
    assert!(
        resumed_from >= killed_at && resumed_from > 0,
        "restarted learner began at {resumed_from}, the store had {killed_at}: {out}"
    );

    // The audit: the chain of checkpoints from the newest back to step 0 names every shard
    // in the store exactly once, and the newest checkpoint's counts agree.
    let sessions = shards_by_session(&store);
    assert_eq!(
        sessions.len(),
        3,
        "two sessions of w1, one of w2: {sessions:?}"
    );
    let mut all: Vec<String> = sessions.values().flatten().cloned().collect();
    all.sort();
    let latest = latest_step(&store).unwrap();
    let chain = intake_chain(&store, latest).unwrap();
    let mut taken = chain.clone();
    taken.sort();
    let repeated: Vec<_> = taken.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(repeated.is_empty(), "taken in twice: {repeated:?}");
    assert_eq!(taken, all, "the chain must hold every shard");
    let state_key = checkpoint_key(latest, STATE_FILE);
    let state: TrainState = read_state_file(&store, &state_key).unwrap().unwrap();
    let counts: BTreeMap<String, u64> = sessions
        .iter()
        .map(|(s, keys)| (s.clone(), keys.len() as u64))
        .collect();
    assert_eq!(state.consumed, counts);
    // The restarted worker began after the learner had published step `killed_at`: its
    // games are played by that checkpoint or newer ones.
    let mut w1_sessions: Vec<(u128, &String)> = sessions
        .keys()
        .filter(|s| s.starts_with("w1-"))
        .map(|s| (s.split('-').nth(1).unwrap().parse().unwrap(), s))
        .collect();
    w1_sessions.sort();
    for key in &sessions[w1_sessions[1].1] {
        for game in shard_games(&store, key) {
            assert!(game.model_step >= killed_at, "{key}: {}", game.model_step);
        }
    }
    // A restart re-reads only the newest shards, enough to fill the window as it was.
    let out = role(
        dir,
        "learn-3",
        "learn",
        location,
        &["--max-steps", "0"],
        env,
    )
    .finish(dir, Duration::from_secs(120));
    let window: usize = number_after(&out, "window ", ';');
    let capacity = RunConfig::parse(&CONFIG, "test")
        .unwrap()
        .window_size(state.samples_seen);
    assert!(state.samples_seen > 0);
    assert_eq!(window, capacity.min(state.samples_seen as usize), "{out}");
    // `status` sums it up from the store alone.
    let status = spawn(dir, "status", &["status", "--store", location], env)
        .finish(dir, Duration::from_secs(60));
    for expected in [
        format!("learner: checkpoint step {latest}"),
        format!(
            "shards: {} in the store, backlog 0 not yet taken in",
            all.len()
        ),
        "of 3 sessions".to_string(),
        "leases: none held".to_string(),
    ] {
        assert!(status.contains(&expected), "{expected:?} not in {status}");
    }
    // Workers report their counters.
    let statuses = store.list(layout::WORKERS).unwrap();
    assert_eq!(statuses.len(), 3, "{statuses:?}");
}

#[test]
fn local_store_takes_in_every_shard_once_across_kills_then_evaluates() {
    let dir = fresh_dir("dist-local");
    let store_dir = dir.join("store");
    let location = store_dir.to_str().unwrap();
    shards_flow(location, &[], &dir);

    // The evaluator plays the newest checkpoint against step 0 and the anchor, once.
    let out = evaluate_once(&dir, "evaluate-1", location);
    assert!(out.contains("evaluated 1 checkpoint"), "{out}");
    let matches: Vec<_> = std::fs::read_dir(store_dir.join(layout::MATCHES))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(
        matches
            .iter()
            .filter(|n| n.ends_with(".games.jsonl"))
            .count(),
        2,
        "{matches:?}"
    );
    let metrics = std::fs::read_to_string(store_dir.join(layout::EVALUATION_METRICS)).unwrap();
    assert!(metrics.contains("\"opponent\":\"random\""), "{metrics}");
    assert!(metrics.contains("\"incumbent\":true"), "{metrics}");
    // Its progress is saved: nothing is due a second time.
    let again = evaluate_once(&dir, "evaluate-2", location);
    assert!(again.contains("evaluated 0 checkpoint"), "{again}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn s3_store_takes_in_every_shard_once_across_kills() {
    let Some(server) = common::s3::server_or_skip() else {
        return;
    };
    server.create_bucket("runs");
    let dir = fresh_dir("dist-s3");
    shards_flow("s3://runs/test-run", &server.env(), &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_gating_workers_follow_the_promoted_checkpoint_not_the_newest() {
    let dir = fresh_dir("dist-gating");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        CONFIG.replace("parallel = 2", "parallel = 2\ngating = true"),
    )
    .unwrap();
    let store_dir = dir.join("store");
    let location = store_dir.to_str().unwrap();
    let config = config.to_str().unwrap();
    let learner = role(
        &dir,
        "learn",
        "learn",
        location,
        &["--config", config, "--idle-exit", "3"],
        &[],
    );
    let worker = role(
        &dir,
        "worker",
        "selfplay",
        location,
        &[
            "--worker-id",
            "g",
            "--games-per-shard",
            "2",
            "--max-games",
            "30",
        ],
        &[],
    );
    worker.finish(&dir, Duration::from_secs(120));
    learner.finish(&dir, Duration::from_secs(120));
    let store = RunStore::open(location).unwrap();
    let latest = latest_step(&store).unwrap();
    assert!(latest >= 5, "the learner trained: {latest}");
    // No evaluator ran: step 0 is still the promoted checkpoint, and every game used it.
    assert_eq!(read_pointer(&store, PROMOTED).unwrap(), Some(0));
    for key in store.list(layout::GAMES).unwrap() {
        for game in shard_games(&store, &key) {
            assert_eq!(game.model_step, 0, "{key}");
        }
    }
    // The evaluator plays the newest against the promoted one and moves the pointer only if
    // the newest scored its gate.
    evaluate_once(&dir, "evaluate", location);
    let metrics = store.get_text(layout::EVALUATION_METRICS).unwrap().unwrap();
    let incumbent: serde_json::Value = metrics
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["incumbent"] == true)
        .expect("an incumbent result");
    let promoted = incumbent["promoted"].as_bool().unwrap();
    assert_eq!(incumbent["step"].as_u64(), Some(latest));
    assert_eq!(incumbent["score"].as_f64().unwrap() >= 0.55, promoted);
    let expected = if promoted { latest } else { 0 };
    assert_eq!(read_pointer(&store, PROMOTED).unwrap(), Some(expected));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigterm_lets_a_worker_finish_its_games_publish_them_and_exit() {
    let dir = fresh_dir("dist-sigterm");
    let config = dir.join("config.toml");
    std::fs::write(&config, CONFIG.as_str()).unwrap();
    let store_dir = dir.join("store");
    let location = store_dir.to_str().unwrap();
    let config = config.to_str().unwrap();
    // A run with its first checkpoint, and no learner.
    role(
        &dir,
        "learn",
        "learn",
        location,
        &["--config", config, "--max-steps", "0"],
        &[],
    )
    .finish(&dir, Duration::from_secs(60));
    let worker = role(
        &dir,
        "worker",
        "selfplay",
        location,
        &["--worker-id", "t"],
        &[],
    );
    let store = RunStore::open(location).unwrap();
    let shard_count = || store.list(layout::GAMES).unwrap().len();
    wait_until("a first shard", Duration::from_secs(60), || {
        shard_count() >= 1
    });
    let before = shard_count();
    worker.terminate();
    let out = worker.finish(&dir, Duration::from_secs(60));
    // The games in flight were finished and published in a last shard.
    assert!(shard_count() > before, "{out}");
    let published: usize = store
        .list(layout::GAMES)
        .unwrap()
        .iter()
        .map(|key| shard_games(&store, key).len())
        .sum();
    assert!(out.contains(&format!(" {published} games in ")), "{out}");
    let status_key = &store.list(layout::WORKERS).unwrap()[0];
    let status: serde_json::Value =
        serde_json::from_str(&store.get_text(status_key).unwrap().unwrap()).unwrap();
    assert_eq!(status["done"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn role_commands_reject_bad_input_clearly() {
    let dir = fresh_dir("dist-errors");
    let store = dir.join("store");
    let location = store.to_str().unwrap();
    assert_clean_error(
        &run(&["status", "--store", location]),
        "no such run directory",
    );
    assert_clean_error(
        &run(&["learn", "--store", location, "--quiet"]),
        "holds no run: pass --config",
    );
    assert_clean_error(
        &run(&[
            "selfplay",
            "--store",
            location,
            "--wait-minutes",
            "0",
            "--quiet",
        ]),
        "has no config.toml yet",
    );
    assert_clean_error(
        &run(&["selfplay", "--store", location, "--worker-id", "a/b"]),
        "worker id",
    );
    assert_clean_error(
        &run(&["learn", "--store", "ftp://host/run", "--quiet"]),
        "unsupported scheme",
    );
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "game = \"rematch\"\n[train]\nbatch_size = 0\n").unwrap();
    assert_clean_error(
        &run(&[
            "learn",
            "--store",
            location,
            "--config",
            bad.to_str().unwrap(),
        ]),
        "train.batch_size",
    );
    // A run exists: another config is refused.
    let config = dir.join("config.toml");
    std::fs::write(&config, CONFIG.as_str()).unwrap();
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(
        store.join(layout::CONFIG),
        CONFIG.replace("seed = 5", "seed = 6"),
    )
    .unwrap();
    assert_clean_error(
        &run(&[
            "learn",
            "--store",
            location,
            "--config",
            config.to_str().unwrap(),
        ]),
        "differs from the config",
    );
    // A corrupt pointer is an error, not a panic.
    std::fs::write(store.join(layout::CONFIG), CONFIG.as_str()).unwrap();
    std::fs::create_dir_all(store.join(layout::CHECKPOINTS)).unwrap();
    std::fs::write(store.join(layout::LATEST), "garbage").unwrap();
    assert_clean_error(
        &run(&["learn", "--store", location, "--quiet"]),
        "not a checkpoint name",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_learner_on_a_store_that_does_not_answer_says_so_within_the_lease_time() {
    let dir = fresh_dir("dist-silent");
    // A server that takes connections and never answers (a stalled store).
    let silent = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let env = common::s3::client_env(&format!("http://{}", silent.local_addr().unwrap()));
    let config = dir.join("config.toml");
    std::fs::write(&config, CONFIG.as_str()).unwrap();
    let config = config.to_str().unwrap();
    let learner = role(
        &dir,
        "learn",
        "learn",
        "s3://runs/x",
        &["--config", config],
        &env,
    );
    // Its first requests are bounded and asked again for the lease time (4 s), not the
    // client's default minutes: then it gives up, in words.
    let said = learner.refused(&dir, Duration::from_secs(60));
    assert!(said.contains("the store did not answer"), "{said}");
    assert!(said.contains("error: "), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}
