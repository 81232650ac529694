//! `match` on the command line: the summary table, the files it writes (records that
//! `games show` replays), and one-line errors for bad agents and settings.
mod common;
use common::{assert_clean_error, run};

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
    let games = dir.join("games.jsonl");
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
    let result = std::fs::read_to_string(dir.join("result.json")).unwrap();
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
