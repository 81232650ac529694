use std::path::{Path, PathBuf};

use super::*;

fn checkpoint(step: u64, minutes: f64) -> Checkpoint {
    Checkpoint {
        dir: PathBuf::from(format!("run/checkpoints/step-{step:08}")),
        step,
        elapsed_s: minutes * 60.0,
        cpu_s: minutes * 120.0,
    }
}

fn plan(game: &str) -> BenchPlan {
    BenchPlan {
        version: PLAN_VERSION,
        game: game.into(),
        minutes: 10.0,
        clock: Clock::Wall,
        ladder: vec!["random".into(), "uct:10".into()],
        games: 4,
        checkpoints: 3,
        seed: 7,
        visits: 100,
        ply_cap: 200,
        overrides: Vec::new(),
        openings: None,
        opening_turns: 2,
    }
}

/// A report of `winners.len()` games with seats rotating as `match` rotates them, played
/// with the settings of [`plan`].
fn report(game: &str, agents: &[String], winners: &[Option<u8>]) -> MatchReport {
    MatchReport {
        seed: 7,
        opening_turns: 2,
        ply_cap: 200,
        ..MatchReport::of_winners(game.parse().unwrap(), agents.to_vec(), winners)
    }
}

#[test]
fn checkpoints_are_spread_over_the_training_time() {
    let all: Vec<Checkpoint> = (1..=10).map(|i| checkpoint(100 * i, i as f64)).collect();
    let steps = |n| {
        select_checkpoints(&all, n, Clock::Wall)
            .iter()
            .map(|c| c.step)
            .collect::<Vec<_>>()
    };
    assert_eq!(steps(5), vec![200, 400, 600, 800, 1000]);
    assert_eq!(steps(1), vec![1000]);
    // More wanted than exist: each once, the newest always.
    assert_eq!(steps(30), (1..=10).map(|i| 100 * i).collect::<Vec<_>>());
    let few = vec![checkpoint(0, 0.5), checkpoint(100, 10.0)];
    assert_eq!(
        select_checkpoints(&few, 4, Clock::Wall)
            .iter()
            .map(|c| c.step)
            .collect::<Vec<_>>(),
        vec![0, 100]
    );
    assert!(select_checkpoints(&[], 5, Clock::Wall).is_empty());
    // On the CPU clock the targets are CPU seconds: a run whose CPU came slower at first
    // (its machine shared) is spread by its CPU time.
    let shared: Vec<Checkpoint> = (1..=10)
        .map(|i| Checkpoint {
            cpu_s: if i <= 5 {
                10.0 * i as f64
            } else {
                50.0 + 190.0 * (i - 5) as f64
            },
            ..checkpoint(100 * i, i as f64)
        })
        .collect();
    let on_cpu: Vec<u64> = select_checkpoints(&shared, 2, Clock::Cpu)
        .iter()
        .map(|c| c.step)
        .collect();
    assert_eq!(on_cpu, vec![700, 1000]);
    let on_wall: Vec<u64> = select_checkpoints(&shared, 2, Clock::Wall)
        .iter()
        .map(|c| c.step)
        .collect();
    assert_eq!(on_wall, vec![500, 1000]);
}

#[test]
fn two_seat_rows_score_each_side_apart() {
    let plan = plan("rematch");
    let agents = plan.agents(Path::new("ckpt"), "random").unwrap();
    assert_eq!(agents, vec!["net:ckpt:100".to_string(), "random".into()]);
    // Game 0: the checkpoint is Red (seat 0); game 1: Team; and so on.
    let report = report("rematch", &agents, &[Some(0), Some(1), None, Some(0)]);
    assert!(plan.is_done(&report, &agents));
    let row = row_from_report(&report, &checkpoint(300, 6.0), 42, "random").unwrap();
    assert_eq!((row.games, row.step, row.selfplay_games), (4, 300, 42));
    assert_eq!(row.minutes, 6.0);
    // Red: a win and a draw; Team: a win and a loss.
    assert_eq!(
        (
            row.by_side[0].wins,
            row.by_side[0].draws,
            row.by_side[0].losses
        ),
        (1.0, 1.0, 0.0)
    );
    assert_eq!(
        (
            row.by_side[1].wins,
            row.by_side[1].draws,
            row.by_side[1].losses
        ),
        (1.0, 0.0, 1.0)
    );
    assert_eq!((row.points, row.possible), (2.5, 4.0));
    assert!((row.score() - 0.625).abs() < 1e-12);
    assert!(row.elo.elo > 0.0 && row.elo.low < row.elo.elo && row.elo.elo < row.elo.high);
}

#[test]
fn three_seat_rows_count_the_points_the_checkpoint_could_win() {
    let plan = plan("rematch3");
    let agents = plan.agents(Path::new("ckpt"), "uct:10").unwrap();
    assert_eq!(agents.len(), 3);
    // Seats rotate: the checkpoint is Red in game 0, Orange in game 1, White in game 2.
    // Red wins every game: 1 point of 1 as Red, 0 of 1/2 twice as a Team member.
    let report = report("rematch3", &agents, &[Some(0), Some(0), Some(0)]);
    let row = row_from_report(&report, &checkpoint(100, 1.0), 0, "uct:10").unwrap();
    assert_eq!((row.points, row.possible), (1.0, 2.0));
    assert_eq!(row.by_side.len(), 2, "Red and Team");
    assert_eq!((row.by_side[0].wins, row.by_side[1].losses), (1.0, 2.0));
    assert_eq!(side_names(GameKind::Rematch3), vec!["Red", "Team"]);
}

#[test]
fn results_of_other_settings_are_not_taken_as_done() {
    let plan = plan("rematch");
    let agents = plan.agents(Path::new("ckpt"), "random").unwrap();
    let full = report("rematch", &agents, &[Some(0); 4]);
    assert!(plan.is_done(&full, &agents));
    let short = report("rematch", &agents, &[Some(0); 3]);
    assert!(!plan.is_done(&short, &agents));
    let other = plan.agents(Path::new("ckpt"), "uct:10").unwrap();
    assert!(!plan.is_done(&full, &other));
    let mut reseeded = full.clone();
    reseeded.seed = 8;
    assert!(!plan.is_done(&reseeded, &agents));
}

#[test]
fn tables_have_a_line_per_row_and_a_column_per_side() {
    let plan = plan("rematch");
    let agents = plan.agents(Path::new("ckpt"), "random").unwrap();
    let report = report("rematch", &agents, &[Some(0), Some(0), Some(1), Some(1)]);
    let rows: Vec<Row> = [(100, 2.0), (200, 4.0)]
        .iter()
        .map(|&(s, m)| row_from_report(&report, &checkpoint(s, m), 5, "random").unwrap())
        .collect();
    let sides = side_names(GameKind::Rematch);
    let md = markdown_table(&rows, &sides);
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), 4, "{md}");
    assert!(lines[0].contains("as Red W-D-L") && lines[0].contains("as Team W-D-L"));
    // Game 0 Red wins (checkpoint Red: win), game 1 Red wins (checkpoint Team: loss)...
    assert!(
        lines[2].contains("| 2.0 | 4 | 100 | 5 | random | 4 | 50.0% |"),
        "{md}"
    );
    assert!(lines[2].contains("50% (1-0-1) | 50% (1-0-1) |"), "{md}");
    let csv = csv_table(&rows, &sides);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert!(header.contains(&"red_score") && header.contains(&"team_losses"));
    for line in csv.lines().skip(1) {
        assert_eq!(line.split(',').count(), header.len(), "{line}");
    }
    assert_eq!(csv.lines().count(), 3);
    // The table reads back into the same rows (what `--replot` draws from).
    let back = rows_from_csv(&csv, sides.len()).unwrap();
    assert_eq!(csv_table(&back, &sides), csv);
    assert_eq!(back[1].by_side, rows[1].by_side);
    assert_eq!(back[1].cpu_minutes, 8.0);
    // A table written before the CPU column still reads, with the CPU unknown ("-").
    let old: String = csv
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
        .collect();
    let old_rows = rows_from_csv(&old, sides.len()).unwrap();
    assert_eq!(old_rows[1].cpu_minutes, 0.0);
    assert_eq!(old_rows[1].by_side, rows[1].by_side);
    assert!(markdown_table(&old_rows, &sides).contains("| 4.0 | - | 200 |"));
    assert!(rows_from_csv(&csv.replace("random", "random,x"), 2).is_err());
    assert!(rows_from_csv("minutes,step\n", 2).is_err());
    let panels = ladder_panels(&rows, &plan.ladder, "rematch", Clock::Wall);
    assert_eq!(panels[0].series[0].points, vec![(2.0, 0.0), (4.0, 0.0)]);
    assert_eq!(panels[0].x_label, "training wall minutes");
    // On the CPU clock the x axis is the rows' CPU minutes.
    let cpu = ladder_panels(&rows, &plan.ladder, "rematch", Clock::Cpu);
    let xs: Vec<f64> = rows
        .iter()
        .filter(|r| r.rung == "random")
        .map(|r| r.cpu_minutes)
        .collect();
    let got: Vec<f64> = cpu[0].series[0].points.iter().map(|p| p.0).collect();
    assert_eq!(got, xs);
    assert_eq!(cpu[1].x_label, "training CPU minutes");
    assert!(panels[0].series[1].points.is_empty(), "no uct:10 rows");
}

#[test]
fn plans_are_checked_naming_the_setting() {
    let good = plan("hexdame");
    assert!(good.validate().is_ok());
    type Change = fn(&mut BenchPlan);
    let cases: [(Change, &str); 4] = [
        (|p| p.minutes = 0.0, "MINUTES"),
        (|p| p.ladder.clear(), "--ladder"),
        (|p| p.games = 0, "--games"),
        (|p| p.checkpoints = 0, "--checkpoints"),
    ];
    for (change, key) in cases {
        let mut bad = good.clone();
        change(&mut bad);
        assert!(bad.validate().unwrap_err().contains(key), "{key}");
    }
    assert!(plan("chess").kind().is_err());
}

#[test]
fn match_folders_name_the_checkpoint_and_rung() {
    let dir = match_dir(Path::new("b"), &checkpoint(400, 1.0), "uct:1000");
    assert_eq!(dir, Path::new("b/matches/step-00000400/uct-1000"));
}
