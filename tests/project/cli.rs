//! The command-line contract: output formats and clear one-line errors (exit code 2) on bad
//! input, for every game.
use crate::common;
use common::{assert_clean_error, run};

const GAMES: [&str; 4] = ["rematch", "rematch3", "hexdame", "eximo"];

#[test]
fn unknown_game_is_a_clear_error() {
    for command in ["perft", "moves", "show", "solve"] {
        let mut args = vec![command, "--game", "chess"];
        if command == "perft" {
            args.extend(["--depth", "1"]);
        }
        assert_clean_error(&run(&args), "unknown game 'chess'");
    }
}

#[test]
fn perft_prints_one_line_per_depth() {
    for game in GAMES {
        let out = run(&["perft", "--game", game, "--depth", "3"]);
        assert!(
            out.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{game}: {text}");
        for (i, line) in lines.iter().enumerate() {
            let (d, count) = line.split_once(' ').unwrap();
            assert_eq!(d, (i + 1).to_string());
            assert!(count.parse::<u64>().unwrap() > 0);
        }
    }
}

#[test]
fn moves_are_sorted_and_distinct() {
    for game in GAMES {
        let out = run(&["moves", "--game", game]);
        assert!(out.status.success(), "{game}");
        let text = String::from_utf8(out.stdout).unwrap();
        let moves: Vec<&str> = text.lines().collect();
        let mut sorted = moves.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(moves, sorted, "{game}");
        // perft 1 counts the same distinct positions.
        let perft = run(&["perft", "--game", game, "--depth", "1"]);
        let perft = String::from_utf8(perft.stdout).unwrap();
        assert_eq!(perft.trim(), format!("1 {}", moves.len()), "{game}");
    }
}

#[test]
fn show_draws_a_board_with_coordinates() {
    for game in GAMES {
        let out = run(&["show", "--game", game]);
        assert!(out.status.success(), "{game}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains('a') && text.contains('1'), "{game}: {text}");
        assert!(text.contains("position: "), "{game}");
    }
}

#[test]
fn moves_from_a_given_position_round_trip() {
    // The start position written out and read back gives the same moves.
    for game in GAMES {
        let shown = String::from_utf8(run(&["show", "--game", game]).stdout).unwrap();
        let position = shown
            .lines()
            .find_map(|l| l.strip_prefix("position: "))
            .unwrap()
            .to_string();
        let from_start = run(&["moves", "--game", game]).stdout;
        let from_text = run(&["moves", "--game", game, "--position", &position]).stdout;
        assert_eq!(from_start, from_text, "{game}");
    }
}

#[test]
fn malformed_positions_are_clear_errors() {
    let cases: [(&str, &str, &str); 8] = [
        ("hexdame", "", "empty position"),
        ("hexdame", "blue a1:w", "bad seat 'blue'"),
        ("hexdame", "white a1", "malformed token 'a1'"),
        ("hexdame", "white a6:w i9:r", "cell a6 is not on the board"),
        ("hexdame", "white zz:w", "malformed cell name 'zz'"),
        ("rematch", "white a1:R a1:W", "cell a1 is given twice"),
        ("eximo", "black a1:b foo=3", "unknown counter 'foo'"),
        ("rematch", "red a1:X", "bad contents 'X' on a1"),
    ];
    for (game, position, needle) in cases {
        for command in ["moves", "show", "solve"] {
            let out = run(&[command, "--game", game, "--position", position]);
            assert_clean_error(&out, needle);
        }
    }
}

#[test]
fn missing_arguments_are_usage_errors() {
    let out = run(&["perft", "--game", "hexdame"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["perft", "--game", "hexdame", "--depth", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn solve_prints_each_turn_then_the_position() {
    // Two turns before the quiet draw: Red's flying capture a1xd4 starts a win in 7, a1-b2
    // loses to White's c3xa1, the other simple moves draw.
    let position = "red a1:WWWOOOR c3:RRRW e5:O quiet=38";
    let out = run(&[
        "solve",
        "--game",
        "rematch",
        "--position",
        position,
        "--nodes",
        "100000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "a1-a2 draw\na1-b1 draw\na1-b2 loss 2\na1xd4 win 7\nposition win 7\n"
    );
    let out = run(&[
        "solve",
        "--game",
        "rematch",
        "--position",
        "red a1:RRRR c3:WWWW e5:OOOO quiet=40",
    ]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "position draw\n");
}
