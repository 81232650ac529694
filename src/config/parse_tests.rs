//! Config files read: the configs of older runs and the shipped ones load, a bad key or
//! value is an error that names it, and the learning-rate schedule the `[train]` keys set.

use std::path::Path;

use super::net::NetConfig;
use super::search::SearchKind;
use super::RunConfig;

#[test]
fn the_configs_of_older_runs_still_load() {
    // docs/learning/*/config.toml were written by older versions: `[evaluator]` for
    // `[batching]`, and some with search keys in `[selfplay]`.
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/learning");
    let mut loaded = 0;
    for entry in std::fs::read_dir(&docs).unwrap() {
        let path = entry.unwrap().path().join("config.toml");
        if !path.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if text.contains("[evaluator]") {
            let old: toml::Table = toml::from_str(&text).unwrap();
            let max_batch = old["evaluator"]
                .get("max_batch")
                .and_then(|v| v.as_integer());
            if let Some(max_batch) = max_batch {
                assert_eq!(
                    config.batching.max_batch as i64,
                    max_batch,
                    "{}",
                    path.display()
                );
            }
        }
        loaded += 1;
    }
    assert!(loaded >= 5, "only {loaded} old configs found");
    // A search key in `[selfplay]`, as configs once had them, is read as its `[search]` key.
    let old = RunConfig::parse(
        "game = \"rematch\"\n[selfplay]\nfull_visits = 40\nsearch = \"puct\"\n",
        "old.toml",
    )
    .unwrap();
    assert_eq!((old.search.visits, old.search.kind), (40, SearchKind::Puct));
}

#[test]
fn config_errors_name_the_key() {
    let cases = [
        ("game = \"rematch\"\nbogus = 1\n", "bogus"),
        ("game = \"rematch\"\n[train]\nbatch_sise = 3\n", "batch_sise"),
        ("game = \"rematch\"\n[search]\nvisits = 8\n[selfplay]\nfull_visits = 8\n", "selfplay.full_visits"),
        ("game = \"rematch\"\n[search]\nvisits = 0\n", "search.visits"),
        ("game = \"rematch\"\n[search]\nc_scale = 0\n", "search.c_scale"),
        ("game = \"rematch\"\n[search]\nkind = \"alphabeta\"\n", "alphabeta"),
        ("game = \"rematch\"\n[selfplay]\ngumbel_play = \"best\"\n", "gumbel_play"),
        ("game = \"rematch\"\n[train]\nlearning_rate = -1.0\n", "train.learning_rate"),
        ("game = \"rematch\"\n[selfplay]\nply_cap = 100001\n", "selfplay.ply_cap"),
        ("game = \"rematch\"\n[selfplay]\nnew_weights = \"sometimes\"\n", "new_weights"),
        ("game = \"chess\"\n", "game"),
        ("game = \"rematch\"\n[train]\nwindow_base = 10\nwindow_max = 5\n", "train.window_max"),
        ("game = \"rematch\"\n[net]\nblocks = 0\nchannels = 8\npolicy_channels = 4\nvalue_hidden = 4\n", "net.blocks"),
        ("game = \"rematch\"\n[batching]\nmax_batch = \"big\"\n", "max_batch"),
        ("game = \"rematch\"\n[train]\nvalue_q_mix = 1.5\n", "train.value_q_mix"),
        ("game = \"rematch\"\n[selfplay]\nopening_random_turns = 5000\n", "selfplay.opening_random_turns"),
        ("game = \"rematch\"\n[selfplay]\nbalanced_openings = \"alphabeta:9:1\"\n", "alphabeta:DEPTH:MARGIN"),
        ("game = \"rematch\"\n[selfplay]\nopening_random_turns = 0\nbalanced_openings = \"alphabeta:4:1\"\n", "selfplay.balanced_openings"),
        ("game = \"rematch\"\n[net]\nblocks = 2\nchannels = 8\npolicy_channels = 4\nvalue_hidden = 4\nglobal_pool = 1\n", "global_pool"),
    ];
    for (text, key) in cases {
        let error = RunConfig::parse(text, "test.toml").unwrap_err().to_string();
        assert!(
            error.contains(key),
            "{text:?} gave {error:?}, which does not name {key}"
        );
    }
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut loaded = 0;
    for entry in std::fs::read_dir(&configs).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let config =
                RunConfig::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // `configs/<game>.toml` trains the game's standard size (what `[net]` left out means).
            if path.file_stem().is_some_and(|s| s == config.game.as_str()) {
                let standard = NetConfig::default_for(config.kind());
                assert_eq!(config.net_config(), standard, "{}", path.display());
            }
            loaded += 1;
        }
    }
    assert!(
        loaded >= 5,
        "only {loaded} configs under {}",
        configs.display()
    );
}

/// Over the last `learning_rate_decay_share` of the budget the rate falls linearly to
/// `learning_rate_final` of itself, on top of any drops; without a budget it stays.
#[test]
fn learning_rate_decays_over_the_end_of_the_budget() {
    let text = "game = \"rematch\"\n[train]\nlearning_rate = 0.001\n\
                learning_rate_decay_share = 0.4\nlearning_rate_final = 0.1\n";
    let config = RunConfig::parse(text, "t").unwrap();
    let rate = |p: Option<f64>| config.train.learning_rate_at(5, p);
    for (progress, want) in [
        (None, 1e-3),
        (Some(0.0), 1e-3),
        (Some(0.6), 1e-3),
        (Some(0.8), 5.5e-4),
        (Some(1.0), 1e-4),
    ] {
        let got = rate(progress);
        assert!((got - want).abs() < 1e-12, "{progress:?}: {got}");
    }
    for bad in [
        "learning_rate_decay_share = 1.5",
        "learning_rate_final = 0.0",
    ] {
        let error = RunConfig::parse(&format!("{text}{bad}\n"), "t").unwrap_err();
        assert!(
            error.to_string().contains(bad.split(' ').next().unwrap()),
            "{error}"
        );
    }
}

#[test]
fn learning_rate_drops_at_the_scheduled_steps_and_bad_schedules_are_refused() {
    let text = "game = \"rematch\"\n[train]\nlearning_rate = 0.001\n";
    let config = RunConfig::parse(
        &format!("{text}learning_rate_drops = [[100, 0.3], [200, 0.1]]\n"),
        "t",
    )
    .unwrap();
    let rates: Vec<f64> = [0u64, 99, 100, 199, 200, 10_000]
        .iter()
        .map(|&step| config.train.learning_rate_at(step, None))
        .collect();
    let expected = [1e-3, 1e-3, 3e-4, 3e-4, 1e-4, 1e-4];
    for (rate, want) in rates.iter().zip(expected) {
        assert!((rate - want).abs() < 1e-12, "{rates:?}");
    }
    let constant = RunConfig::parse(text, "t").unwrap();
    assert_eq!(constant.train.learning_rate_at(1_000_000, None), 1e-3);
    for bad in ["[[200, 0.3], [100, 0.1]]", "[[100, 0.0]]", "[[100, -1.0]]"] {
        let error = RunConfig::parse(&format!("{text}learning_rate_drops = {bad}\n"), "t")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("train.learning_rate_drops"),
            "{bad}: {error}"
        );
    }
}
