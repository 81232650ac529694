//! `match` on the command line: the summary table, the files it writes (records that
//! `games show` replays), and one-line errors for bad agents and settings.
use crate::common;
use common::{assert_clean_error, run};

use checkers_zero::layout;

#[test]
fn match_prints_a_summary_and_writes_replayable_games() {
    let dir = std::env::temp_dir().join(format!("cz-cli-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out_dir = dir.display().to_string();
    let out = run(&[
        "match",
        "--game",
        "rematch",
        "--agent",
        "alphabeta:1",
        "--agent",
        "random",
        "--games",
        "6",
        "--parallel",
        "2",
        "--out",
        &out_dir,
        "--quiet",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "as Red W-D-L",
        "as Team W-D-L",
        "Elo (95%)",
        "0 (anchor)",
        "sets (first to 3",
    ] {
        assert!(stdout.contains(needle), "'{needle}' not in:\n{stdout}");
    }
    let agent_rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("alphabeta:1 ") || l.starts_with("random "))
        .collect();
    assert_eq!(agent_rows.len(), 2, "{stdout}");
    let games = dir.join(layout::MATCH_GAMES_FILE);
    let shown = run(&[
        "games",
        "show",
        &games.display().to_string(),
        "--index",
        "5",
    ]);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("random, alphabeta:1"),
        "game 5: random holds seat 0\n{shown}"
    );
    let result = std::fs::read_to_string(dir.join(layout::MATCH_REPORT_FILE)).unwrap();
    assert!(result.contains("\"agents\""), "{result}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_match_input_is_a_one_line_error() {
    let base = ["match", "--game", "rematch", "--games", "2", "--quiet"];
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        run(&args)
    };
    assert_clean_error(
        &with(&["--agent", "rnadom", "--agent", "random"]),
        "unknown agent 'rnadom'",
    );
    assert_clean_error(
        &with(&["--agent", "uct:0", "--agent", "random"]),
        "playouts must be",
    );
    assert_clean_error(&with(&["--agent", "random"]), "give 2 agents");
    assert_clean_error(
        &with(&["--agent", "net:/nonexistent/run", "--agent", "random"]),
        "does not exist",
    );
    assert_clean_error(
        &with(&[
            "--agent",
            "random",
            "--agent",
            "random",
            "--sprt",
            "10,0,0.05,0.05",
        ]),
        "elo0 must be below elo1",
    );
}

/// `match` plays a checkpoint under the ply cap it was trained with unless `--ply-cap` says
/// otherwise, and `result.json` says which cap and where it came from.
#[test]
fn match_defaults_to_the_cap_the_model_was_trained_with() {
    use checkers_zero::config::net::NetConfig;
    use checkers_zero::game::eximo::Eximo;
    use checkers_zero::game::{GameKind, RulesConfig};
    use checkers_zero::net::encode::Encode;
    use checkers_zero::net::model::Model;

    let dir = common::fresh_dir("cli-match-cap");
    let checkpoint = dir.join(layout::checkpoint_name(10));
    std::fs::create_dir_all(&checkpoint).unwrap();
    let mut model = Model::new(
        Eximo::net_shape(GameKind::Eximo),
        NetConfig::tiny(),
        tch::Device::Cpu,
    )
    .unwrap();
    model.set_rules(RulesConfig {
        ply_cap: 150,
        ..RulesConfig::default()
    });
    model.save(&checkpoint.join(layout::WEIGHTS_FILE)).unwrap();
    let net = format!("net:{}:2", checkpoint.display());
    let result = |extra: &[&str]| {
        let out_dir = dir.join(format!("match{}", extra.len()));
        let out_text = out_dir.display().to_string();
        let mut args = vec![
            "match", "--game", "eximo", "--agent", &net, "--agent", "random", "--games", "2",
            "--out", &out_text, "--quiet",
        ];
        args.extend(extra);
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(out_dir.join(layout::MATCH_REPORT_FILE)).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    let trained = result(&[]);
    assert_eq!(trained["ply_cap"], 150);
    let from = trained["ply_cap_from"].as_str().unwrap();
    assert!(from.contains("training") && from.contains(&net), "{from}");
    let told = result(&["--ply-cap", "300"]);
    assert_eq!(told["ply_cap"], 300);
    assert_eq!(told["ply_cap_from"], "--ply-cap");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `openings` writes a suite that `match --openings` plays (one game per seat and opening
/// by default); a suite of another game, or one with --opening-turns, is a one-line error.
#[test]
fn openings_writes_a_suite_that_match_plays_and_refuses_for_another_game() {
    let dir = common::fresh_dir("cli-openings");
    let suite = dir.join("rematch.txt").display().to_string();
    let args = [
        "openings", "--game", "rematch", "--turns", "4", "--count", "2",
    ];
    let out = run(&[&args[..], &["--check", "alphabeta:1:2", "--out", &suite]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&suite).unwrap();
    assert!(text.contains("# game: rematch\n# rebuild: checkers-zero openings --game rematch"));
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 2);
    let out_dir = dir.join("m").display().to_string();
    let base = ["match", "--agent", "random", "--agent", "random", "--quiet"];
    let played = run(&[
        &base[..],
        &["--game", "rematch", "--openings", &suite, "--out", &out_dir],
    ]
    .concat());
    let stdout = String::from_utf8_lossy(&played.stdout);
    assert!(
        played.status.success(),
        "{}",
        String::from_utf8_lossy(&played.stderr)
    );
    assert!(stdout.contains("(2 pairs); pair Elo"), "{stdout}");
    assert!(
        stdout.starts_with("agent") && stdout.contains("\n4 games in"),
        "{stdout}"
    );
    assert_clean_error(
        &run(&[&base[..], &["--game", "hexdame", "--openings", &suite]].concat()),
        "an opening suite for rematch, not for hexdame",
    );
    assert_clean_error(
        &run(&[
            &base[..],
            &["--game", "rematch", "--openings", &suite, "--games", "6"],
        ]
        .concat()),
        "up to 4 (2 openings",
    );
    let both = run(&[
        &base[..],
        &[
            "--game",
            "rematch",
            "--openings",
            &suite,
            "--opening-turns",
            "3",
        ],
    ]
    .concat());
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
    assert_clean_error(
        &run(&[&args[..], &["--check", "alphabeta:4", "--out", &suite]].concat()),
        "expected 'none' or 'alphabeta:DEPTH:MARGIN'",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `ratings` reads the suite it is given before playing; a missing one is a one-line error,
/// and random openings are asked for by name.
#[test]
fn ratings_name_a_missing_suite_and_keep_random_openings_apart() {
    let dir = common::fresh_dir("cli-ratings-openings");
    std::fs::write(dir.join(layout::CONFIG), "game = \"rematch\"\nseed = 1\n").unwrap();
    let run_dir = dir.display().to_string();
    let missing = dir.join("missing.txt").display().to_string();
    let base = [
        "ratings",
        "--run-dir",
        &run_dir,
        "--anchor",
        "random",
        "--quiet",
    ];
    assert_clean_error(
        &run(&[&base[..], &["--openings", &missing]].concat()),
        "missing.txt: cannot read the opening suite",
    );
    for extra in [
        &["--openings", &missing, "--random-openings"][..],
        &["--opening-turns", "3"][..],
    ] {
        let out = run(&[&base[..], extra].concat());
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
