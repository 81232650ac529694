//! Matches: seat rotation and ReMATCH scoring, parallel play with records that replay, the
//! SPRT stop, net agents from checkpoints, and clear errors for bad agents.

use crate::common;
use common::fresh_dir;
use std::collections::HashMap;
use std::path::Path;

use checkers_zero::config::batching::DeviceChoice;
use checkers_zero::config::batching::Precision;
use checkers_zero::config::decided::DecidedCheck;
use checkers_zero::config::net::NetConfig;
use checkers_zero::eval::arena::{
    play_match, read_report, seat_agents, seat_points, seat_sides, summary_table, write_match,
    MatchReport, MatchSettings, REPORT_FORMAT_VERSION,
};
use checkers_zero::eval::openings::{
    generate_suite, suite_text, OpeningRange, OpeningSuite, SuitePlan,
};
use checkers_zero::eval::pairs::Grouped;
use checkers_zero::eval::spec::AgentSpec;
use checkers_zero::eval::sprt::{Sprt, SprtDecision};
use checkers_zero::eval::EvalError;
use checkers_zero::game::hexdame::HexDame;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::{GameKind, RulesConfig, Side};
use checkers_zero::layout;
use checkers_zero::net::args::NetSettings;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::selfplay::record::read_records;
use tch::Device;

fn settings(kind: GameKind, games: u64) -> MatchSettings {
    MatchSettings {
        kind,
        rules: RulesConfig::default(),
        games,
        parallel: 2,
        seed: 7,
        opening_turns: 2,
        openings: None,
        sprt: None,
        search: checkers_zero::config::search::SearchConfig::default(),
        progress: false,
        net: fp32_cpu(),
    }
}

/// Forced fp32 on the CPU: no probe, the same results on every machine.
fn fp32_cpu() -> NetSettings {
    NetSettings {
        precision: Precision::Fp32,
        device: DeviceChoice::Cpu,
        ..NetSettings::default()
    }
}

fn specs(texts: &[&str]) -> Vec<AgentSpec> {
    texts.iter().map(|t| AgentSpec::parse(t).unwrap()).collect()
}

#[test]
fn two_seat_games_swap_sides_every_game() {
    for g in 0..10u64 {
        let seats = seat_agents(2, g);
        assert_eq!(seats, if g % 2 == 0 { vec![0, 1] } else { vec![1, 0] });
    }
}

#[test]
fn three_seat_roles_rotate_counter_clockwise() {
    // Red (0) -> White (1) -> Orange (2) -> Red: the player who was Red plays White next.
    for g in 0..12u64 {
        let now = seat_agents(3, g);
        let next = seat_agents(3, g + 1);
        assert_eq!(next[1], now[0], "game {g}: Red's player moves to White");
        assert_eq!(next[2], now[1], "game {g}: White's player moves to Orange");
        assert_eq!(next[0], now[2], "game {g}: Orange's player moves to Red");
    }
    // Every agent holds every role exactly once in each cycle of 3 games.
    for cycle in 0..4u64 {
        let mut seen = [[0; 3]; 3];
        for g in 3 * cycle..3 * cycle + 3 {
            for (seat, agent) in seat_agents(3, g).into_iter().enumerate() {
                seen[agent][seat] += 1;
            }
        }
        assert_eq!(seen, [[1; 3]; 3]);
    }
}

#[test]
fn rematch_points_lone_win_one_team_win_half_each() {
    let sides3 = seat_sides(GameKind::Rematch3);
    assert_eq!(sides3, vec![Side(0), Side(1), Side(1)]);
    assert_eq!(seat_points(&sides3, Some(0)), vec![1.0, 0.0, 0.0]);
    assert_eq!(seat_points(&sides3, Some(1)), vec![0.0, 0.5, 0.5]);
    assert_eq!(seat_points(&sides3, None), vec![0.5, 0.25, 0.25]);
    let sides2 = seat_sides(GameKind::Rematch);
    assert_eq!(seat_points(&sides2, Some(1)), vec![0.0, 1.0]);
    assert_eq!(seat_points(&sides2, None), vec![0.5, 0.5]);
}

fn report(kind: GameKind, agents: usize, winners: &[Option<u8>]) -> MatchReport {
    let names = (0..agents).map(|a| format!("a{a}")).collect();
    MatchReport::of_winners(kind, names, winners)
}

#[test]
fn three_player_scores_sets_and_seat_results() {
    // Game 0: seats (a0, a1, a2), Red wins: a0 +1.
    // Game 1: seats (a2, a0, a1), Team wins: a0 +½, a1 +½.
    // Game 2: seats (a1, a2, a0), draw: a1 +½, a2 +¼, a0 +¼.
    // Game 3: seats (a0, a1, a2), Red wins: a0 +1 -> a0 has 2.75.
    // Game 4: seats (a2, a0, a1), Team wins: a0 reaches 3.25, a1 1.5: a0 takes the set.
    let r = report(
        GameKind::Rematch3,
        3,
        &[Some(0), Some(1), None, Some(0), Some(1), Some(0)],
    );
    let s = r.summary().unwrap();
    assert_eq!(s.games, vec![6, 6, 6]);
    // Game 5: seats (a1, a2, a0), Red (a1) wins.
    assert_eq!(s.points, vec![3.25, 2.5, 0.25]);
    assert_eq!(s.points.iter().sum::<f64>(), 6.0);
    // a0 as Red (games 0, 3): two wins; as White (games 1, 4): two wins; as Orange
    // (games 2, 5): a draw and a loss.
    let wdl = |w: &checkers_zero::eval::elo::Wdl| (w.wins, w.draws, w.losses);
    assert_eq!(wdl(&s.by_seat[0][0]), (2.0, 0.0, 0.0));
    assert_eq!(wdl(&s.by_seat[0][1]), (2.0, 0.0, 0.0));
    assert_eq!(wdl(&s.by_seat[0][2]), (0.0, 1.0, 1.0));
    // Team mates never meet: a0 and a1 shared the Team in game 1 and 4.
    let (won, complete, current) = r.sets(3.0).unwrap();
    assert_eq!(complete, 1);
    assert_eq!(won, vec![1.0, 0.0, 0.0]);
    assert_eq!(current, vec![0.0, 1.0, 0.0]);
}

#[test]
fn two_player_sets_first_to_three() {
    // Agent 0 holds seat 0 in even games. Side 0 wins games 0, 2, 4 (agent 0), side 1 wins
    // games 1, 3 (agent 0 again): agent 0 reaches 3 after game 2; the next set runs
    // 3 (a0), 4 (a1), 5 draw, 6 (a1), 7 draw: a1 reaches 3 after game 7. Points 5 to 3.
    let winners = [
        Some(0),
        Some(1),
        Some(0),
        Some(1),
        Some(1),
        None,
        Some(1),
        None,
    ];
    let r = report(GameKind::Rematch, 2, &winners);
    let (won, complete, current) = r.sets(3.0).unwrap();
    assert_eq!(complete, 2, "{won:?} {current:?}");
    assert_eq!(won, vec![1.0, 1.0]);
    assert_eq!(current, vec![0.0, 0.0]);
    let s = r.summary().unwrap();
    assert_eq!(s.points, vec![5.0, 3.0]);
    let elo = s.elo.unwrap();
    assert_eq!(elo[1].elo, 0.0, "the last agent is the anchor");
    let expected = checkers_zero::eval::elo::elo_of_score(5.0 / 8.0);
    assert!((elo[0].elo - expected).abs() < 1e-9);
    assert!(elo[0].low < elo[0].elo && elo[0].elo < elo[0].high);
}

#[test]
fn three_player_match_plays_every_role_and_records_replay() {
    let dir = fresh_dir("eval-m3");
    let (report, records) = play_match(
        &specs(&["random", "alphabeta:1", "uct:8"]),
        &settings(GameKind::Rematch3, 6),
    )
    .unwrap();
    assert_eq!(report.games.len(), 6);
    assert_eq!(records.len(), 6);
    let summary = report.summary().unwrap();
    for agent in 0..3 {
        for seat in 0..3 {
            assert_eq!(summary.by_seat[agent][seat].games(), 2.0);
        }
    }
    assert!((summary.points.iter().sum::<f64>() - 6.0).abs() < 1e-9);
    for (game, record) in report.games.iter().zip(&records) {
        assert_eq!(game.index, record.index);
        let names: Vec<String> = game
            .seats
            .iter()
            .map(|&a| report.agents[a].clone())
            .collect();
        assert_eq!(record.agents, names);
        let end: Rematch = record.replay(|_, _| {}).unwrap();
        let outcome = checkers_zero::game::GameState::outcome(&end).expect("finished");
        assert_eq!(outcome.winner.map(|s| s.0), game.winner);
    }
    // Openings are shared within a rotation and differ between rotations.
    assert_eq!(records[0].steps[0].action, records[1].steps[0].action);
    write_match(&dir, &report, &records).unwrap();
    assert_eq!(
        read_report(&dir.join(layout::MATCH_REPORT_FILE)).unwrap(),
        report
    );
    assert_eq!(
        read_records(&dir.join(layout::MATCH_GAMES_FILE)).unwrap(),
        records
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let mut s = settings(GameKind::Rematch, 400);
    s.sprt = Some(Sprt::new(0.0, 100.0, 0.05, 0.05).unwrap());
    let (report, _) = play_match(&specs(&["alphabeta:2", "random"]), &s).unwrap();
    assert_eq!(report.sprt_decision, Some(SprtDecision::AcceptH1));
    assert!(report.games.len() < 100, "{} games", report.games.len());
    let (_, high) = s.sprt.unwrap().bounds();
    assert!(report.llr.unwrap() >= high);
}

#[test]
fn bad_agents_and_settings_are_errors() {
    let s = settings(GameKind::Rematch, 2);
    let err = play_match(&specs(&["random"]), &s).unwrap_err();
    assert!(err.to_string().contains("2 seats"), "{err}");
    let err = play_match(
        &specs(&["random", "random"]),
        &settings(GameKind::Rematch3, 2),
    )
    .unwrap_err();
    assert!(err.to_string().contains("3 seats"), "{err}");
    let err = play_match(&specs(&["net:/nonexistent/run:8", "random"]), &s).unwrap_err();
    assert!(matches!(err, EvalError::NoModel { .. }), "{err}");
    assert!(err.to_string().contains("does not exist"), "{err}");
}

fn tiny_model(path: &Path, shape: checkers_zero::net::model::NetShape) {
    Model::new(shape, NetConfig::tiny(), Device::Cpu)
        .unwrap()
        .save(path)
        .unwrap();
}

/// A tiny ReMATCH checkpoint `checkpoints/step-00000010` in `dir`, named by `latest`.
fn tiny_rematch_checkpoint(dir: &Path) -> std::path::PathBuf {
    let ckpt = dir.join(layout::checkpoint_dir_key(10));
    std::fs::create_dir_all(&ckpt).unwrap();
    tiny_model(
        &ckpt.join(layout::WEIGHTS_FILE),
        Rematch::net_shape(GameKind::Rematch),
    );
    std::fs::write(dir.join(layout::LATEST), layout::checkpoint_name(10)).unwrap();
    std::fs::write(dir.join(layout::CONFIG), "game = \"rematch\"\n").unwrap();
    ckpt
}

#[test]
fn net_agents_play_from_checkpoints_and_wrong_games_are_refused() {
    let dir = fresh_dir("eval-net");
    let ckpt = tiny_rematch_checkpoint(&dir);
    let hex = dir.join("hexdame.safetensors");
    tiny_model(&hex, HexDame::net_shape(GameKind::Hexdame));

    let run = dir.display().to_string();
    let agents = [format!("{run}@4"), format!("policy:{}", ckpt.display())];
    let specs: Vec<AgentSpec> = agents
        .iter()
        .map(|a| AgentSpec::parse(a).unwrap())
        .collect();
    let mut s = settings(GameKind::Rematch, 4);
    s.rules.ply_cap = 60;
    let (report, records) = play_match(&specs, &s).unwrap();
    assert_eq!(report.games.len(), 4);
    for record in &records {
        let _: Rematch = record.replay(|_, _| {}).unwrap();
    }
    // Search settings by name: a Gumbel net against a PUCT one.
    let agents = [
        format!("net:{run}:visits=4,search=gumbel,k=4"),
        format!("net:{run}:visits=4,search=puct,c_puct=2"),
    ];
    let specs: Vec<AgentSpec> = agents
        .iter()
        .map(|a| AgentSpec::parse(a).unwrap())
        .collect();
    let (report, _) = play_match(&specs, &s).unwrap();
    assert_eq!(report.games.len(), 4);
    assert_eq!(
        report.agents[0],
        format!("net:{run}:visits=4,kind=gumbel,considered=4")
    );

    let wrong = AgentSpec::parse(&hex.display().to_string()).unwrap();
    let err = play_match(&[wrong, AgentSpec::Random], &s).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("model mismatch") && text.contains("game"),
        "{text}"
    );
    // A rematch model is not a rematch3 model either.
    let err = play_match(
        &[
            AgentSpec::parse(&format!("{run}@4")).unwrap(),
            AgentSpec::Random,
            AgentSpec::Random,
        ],
        &settings(GameKind::Rematch3, 3),
    )
    .unwrap_err();
    assert!(err.to_string().contains("model mismatch"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The moves of each game of a match, by game.
fn moves_of(records: &[checkers_zero::selfplay::record::GameRecord]) -> Vec<Vec<u16>> {
    records
        .iter()
        .map(|r| r.steps.iter().map(|s| s.action).collect())
        .collect()
}

#[test]
fn net_agents_play_with_their_runs_search_without_noise() {
    let dir = fresh_dir("eval-own-search");
    tiny_rematch_checkpoint(&dir);
    let trained = "game = \"rematch\"\n[search]\nkind = \"gumbel\"\nvisits = 6\nconsidered = 4\n";
    std::fs::write(dir.join(layout::CONFIG), trained).unwrap();
    let run = dir.display().to_string();
    let play = |agent: &str, seed: u64| {
        let mut s = settings(GameKind::Rematch, 4);
        (s.rules.ply_cap, s.opening_turns, s.seed) = (40, 0, seed);
        s.search.visits = 50; // the match's own default: not used for a run's checkpoint
        play_match(&specs(&[agent, "random"]), &s).unwrap()
    };
    let (report, records) = play(&format!("net:{run}"), 1);
    let search = report.searches[0].clone().expect("a net agent's search");
    assert_eq!(
        (search.visits, search.considered, search.gumbel_scale),
        (6, 4, 0.0)
    );
    assert_eq!(report.searches[1], None);
    let json = serde_json::to_string(&report).unwrap();
    assert!(json.contains("\"searches\""), "{json}");
    // The spec's overrides come last; without noise the net's games do not depend on the
    // agents' seeds (the random agent's do, so it is replaced by a second net here).
    let (report, _) = play(&format!("net:{run}:visits=3"), 1);
    assert_eq!(report.searches[0].as_ref().unwrap().visits, 3);
    let net_against_itself = |agent: &str, seed| {
        let mut s = settings(GameKind::Rematch, 2);
        (s.rules.ply_cap, s.opening_turns, s.seed) = (40, 0, seed);
        moves_of(&play_match(&specs(&[agent, agent]), &s).unwrap().1)
    };
    let quiet = format!("net:{run}");
    assert_eq!(
        net_against_itself(&quiet, 1),
        net_against_itself(&quiet, 2),
        "deterministic play"
    );
    let noisy = format!("net:{run}:gumbel_scale=1");
    assert_ne!(
        net_against_itself(&noisy, 1),
        net_against_itself(&noisy, 2),
        "gumbel_scale=1 brings the noise back"
    );
    assert!(!records.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ratings_play_what_is_missing_then_rate_and_plot() {
    use checkers_zero::eval::ratings::{rate_run, RatingsOptions};
    let run = fresh_dir("eval-run");
    std::fs::write(run.join(layout::CONFIG), "game = \"rematch\"\nseed = 1\n").unwrap();
    for (step, elapsed) in [(10u64, 36.0f64), (20, 72.0)] {
        let dir = run.join(layout::checkpoint_dir_key(step));
        std::fs::create_dir_all(&dir).unwrap();
        tiny_model(
            &dir.join(layout::WEIGHTS_FILE),
            Rematch::net_shape(GameKind::Rematch),
        );
        // The newer checkpoint records its CPU seconds; the older is from a run that did not.
        let cpu = if step == 20 { ", \"cpu_s\": 144.0" } else { "" };
        let state = format!("{{\"step\": {step}, \"elapsed_s\": {elapsed}{cpu}}}");
        std::fs::write(dir.join(layout::STATE_FILE), state).unwrap();
    }
    let mut metrics = String::new();
    for step in [10, 20] {
        metrics.push_str(&format!(
            "{{\"type\":\"train\",\"step\":{step},\"elapsed_s\":1.0,\"policy_loss\":{},\
             \"value_loss\":0.6,\"total_loss\":2.0,\"policy_entropy\":1.5}}\n",
            2.0 / step as f64
        ));
        metrics.push_str("{\"type\":\"selfplay\",\"step\":5}\n");
    }
    std::fs::write(run.join(layout::METRICS_FILE), metrics).unwrap();
    let mut options = RatingsOptions {
        run_dir: run.clone(),
        anchors: specs(&["random"]),
        visits: 2,
        games_per_pair: 4,
        parallel: 2,
        seed: 3,
        opening_turns: 1,
        openings: Some(suite(GameKind::Rematch, 3).suite),
        rules: RulesConfig {
            ply_cap: 40,
            ..RulesConfig::default()
        },
        play: true,
        every: 1,
        progress: false,
        net: fp32_cpu(),
    };
    let summary = rate_run(&options).unwrap();
    // Pairs: 20-10, 20-random, 10-random: 4 games each.
    assert_eq!(summary.games_played, 12);
    assert_eq!(summary.anchor, "random");
    let names: Vec<&str> = summary.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["step-00000010@2", "step-00000020@2", "random"]);
    assert_eq!(summary.players[1].step, Some(20));
    assert_eq!(summary.players[1].hours, Some(0.02));
    assert_eq!(summary.players[1].cpu_hours, Some(0.04));
    assert_eq!(summary.players[0].cpu_hours, None, "no cpu_s on record");
    assert_eq!(summary.players[2].elo.elo, 0.0);
    let csv = std::fs::read_to_string(run.join(layout::RATINGS_CSV)).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("player,step,hours,games,elo,elo_low,elo_high,cpu_hours\n"));
    assert!(
        csv.lines().nth(1).unwrap().ends_with(','),
        "no CPU hours: {csv}"
    );
    assert!(csv.lines().nth(2).unwrap().ends_with(",0.0400"), "{csv}");
    for png in [layout::RATINGS_PLOT, layout::LOSSES_PLOT] {
        let bytes = std::fs::read(run.join(png)).unwrap();
        assert!(bytes.len() > 1000 && &bytes[1..4] == b"PNG", "{png}");
    }
    let match_files = std::fs::read_dir(run.join(layout::MATCHES))
        .unwrap()
        .count();
    assert_eq!(match_files, 6, "a report and a games file per pair");
    // Everything needed is on record: a second call plays nothing and rates the same.
    let again = rate_run(&options).unwrap();
    assert_eq!(again.games_played, 0);
    assert_eq!(again.players, summary.players);
    // Rating every 5th checkpoint still keeps the first and the newest.
    options.every = 5;
    assert_eq!(rate_run(&options).unwrap().players, summary.players);
    options.every = 1;
    options.games_per_pair = 6;
    assert_eq!(rate_run(&options).unwrap().games_played, 6);
    // Each pair went on with the opening after the two its 4 games used.
    let openings = options.openings.clone().unwrap().positions.clone();
    let mut per_opening = [0; 3];
    for file in std::fs::read_dir(run.join(layout::MATCHES)).unwrap() {
        let path = file.unwrap().path();
        if path.to_string_lossy().ends_with(".games.jsonl") {
            for record in read_records(&path).unwrap() {
                per_opening[openings.iter().position(|o| *o == record.start).unwrap()] += 1;
            }
        }
    }
    assert_eq!(per_opening, [6, 6, 6], "3 pairs, each opening twice");
    options.games_per_pair = 8;
    let err = rate_run(&options).unwrap_err().to_string();
    assert!(
        err.contains("needs 1 more openings, but test-suite.txt has 0 left"),
        "{err}"
    );
    options.games_per_pair = 6;
    // At another visit count and anchored on the first checkpoint, the @2 matches on record
    // are joined to nothing rated now: they are left out, not an error.
    options.visits = 3;
    options.anchors.clear();
    let other = rate_run(&options).unwrap();
    let names: Vec<&str> = other.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["step-00000010@3", "step-00000020@3"]);
    assert_eq!(other.games_played, 6);
    std::fs::remove_dir_all(&run).unwrap();
}

/// A suite of `count` distinct ReMATCH-family openings (4 random turns, no check).
fn suite(kind: GameKind, count: usize) -> OpeningRange {
    let plan = SuitePlan {
        kind,
        turns: 4,
        count,
        check: DecidedCheck::None,
        seed: 11,
    };
    let text = suite_text(&plan, &generate_suite(&plan).unwrap(), "test");
    OpeningRange {
        suite: std::sync::Arc::new(
            OpeningSuite::parse(&text, Path::new("test-suite.txt"), kind).unwrap(),
        ),
        offset: 0,
    }
}

#[test]
fn suite_games_pair_up_on_one_opening_with_the_seats_swapped() {
    let openings = suite(GameKind::Rematch, 3);
    let mut s = settings(GameKind::Rematch, 6);
    s.openings = Some(openings.clone());
    let openings = openings.suite;
    let (report, records) = play_match(&specs(&["random", "uct:20"]), &s).unwrap();
    assert_eq!(report.games.len(), 6);
    for i in 0..3 {
        let (a, b) = (&report.games[2 * i], &report.games[2 * i + 1]);
        assert_eq!((a.seats.clone(), b.seats.clone()), (vec![0, 1], vec![1, 0]));
        assert_eq!(records[2 * i].start, openings.positions[i]);
        assert_eq!(records[2 * i + 1].start, openings.positions[i]);
        let end: Rematch = records[2 * i].replay(|_, _| {}).unwrap();
        assert!(checkers_zero::game::GameState::outcome(&end).is_some());
    }
    let suite_report = report.suite.clone().expect("a suite report");
    assert_eq!(suite_report.file, "test-suite.txt");
    assert_eq!((suite_report.offset, suite_report.openings), (0, 3));
    let pairs = suite_report.pentanomial.expect("2 seats: pairs");
    assert_eq!(pairs.pairs(), 3);
    assert_eq!(Some(pairs), report.summary().unwrap().pentanomial);
    assert_eq!(suite_report.pair_elo, pairs.elo());
    // The offset moves every game to a later opening.
    s.openings.as_mut().unwrap().offset = 1;
    s.games = 4;
    let (_, records) = play_match(&specs(&["random", "random"]), &s).unwrap();
    let starts: Vec<&str> = records.iter().map(|r| r.start.as_str()).collect();
    let p = &openings.positions;
    assert_eq!(starts, [&p[1], &p[1], &p[2], &p[2]]);
}

#[test]
fn three_player_rotations_share_an_opening_and_suites_are_checked() {
    let openings = suite(GameKind::Rematch3, 2);
    let mut s = settings(GameKind::Rematch3, 6);
    s.openings = Some(openings.clone());
    let agents = specs(&["random", "random", "random"]);
    let (report, records) = play_match(&agents, &s).unwrap();
    for (g, record) in records.iter().enumerate() {
        assert_eq!(record.start, openings.suite.positions[g / 3]);
    }
    assert_eq!(
        report.suite.unwrap().pentanomial,
        None,
        "no pairs with 3 seats"
    );
    for (games, offset, needle) in [
        (7, 0, "a multiple of 3"),
        (9, 0, "up to 6 (2 openings"),
        (3, 2, "leaves none of the 2 openings"),
    ] {
        s.games = games;
        s.openings.as_mut().unwrap().offset = offset;
        let err = play_match(&agents, &s).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    }
    let mut wrong = settings(GameKind::Rematch, 2);
    wrong.openings = Some(openings);
    let err = play_match(&specs(&["random", "random"]), &wrong).unwrap_err();
    assert!(
        err.to_string().contains("is for rematch3, not for rematch"),
        "{err}"
    );
}

#[test]
fn the_sprt_on_a_suite_decides_on_completed_pairs() {
    let mut s = settings(GameKind::Rematch, 120);
    s.openings = Some(suite(GameKind::Rematch, 60));
    s.sprt = Some(Sprt::new(0.0, 100.0, 0.05, 0.05).unwrap());
    let (report, _) = play_match(&specs(&["alphabeta:2", "random"]), &s).unwrap();
    assert_eq!(report.sprt_decision, Some(SprtDecision::AcceptH1));
    assert!(report.games.len() < 120, "{} games", report.games.len());
    let pairs = report.suite.unwrap().pentanomial.unwrap();
    // The LLR on record is that of the pairs completed when it decided: all of them.
    assert_eq!(report.llr, Some(s.sprt.unwrap().llr_groups(&pairs)));
    assert!(report.llr.unwrap() >= s.sprt.unwrap().bounds().1);
}

#[test]
fn the_sprt_in_a_three_seat_game_decides_on_completed_rotations() {
    let mut s = settings(GameKind::Rematch3, 180);
    s.openings = Some(suite(GameKind::Rematch3, 60));
    s.sprt = Some(Sprt::new(0.0, 100.0, 0.05, 0.05).unwrap());
    let (report, _) = play_match(&specs(&["alphabeta:2", "random", "random"]), &s).unwrap();
    assert_eq!(report.sprt_decision, Some(SprtDecision::AcceptH1));
    let games = report.games.len();
    assert!(games < 180, "{games} games");
    let suite = report.suite.clone().unwrap();
    let rotations = suite.rotations.unwrap();
    // The rotations hold the candidate's points over the complete rotations' games (a game
    // of a rotation cut short by the decision is in the report, not in a rotation).
    let sides = seat_sides(GameKind::Rematch3);
    let mut by_rotation: HashMap<u64, Vec<f64>> = HashMap::new();
    for g in &report.games {
        let seat = g.seats.iter().position(|&a| a == 0).unwrap();
        let points = seat_points(&sides, g.winner)[seat];
        by_rotation.entry(g.index / 3).or_default().push(points);
    }
    let complete: Vec<f64> = by_rotation
        .values()
        .filter(|p| p.len() == 3)
        .map(|p| p.iter().sum())
        .collect();
    assert_eq!(rotations.groups(), complete.len() as u64);
    let counted: f64 = (0..9)
        .map(|k| k as f64 / 4.0 * rotations.counts[k] as f64)
        .sum();
    let points: f64 = complete.iter().sum();
    assert!((points - counted).abs() < 1e-9, "{points} vs {counted}");
    assert_eq!(report.llr, Some(s.sprt.unwrap().llr_groups(&rotations)));
    assert_eq!(suite.pair_elo, rotations.elo());
    assert!(suite.pentanomial.is_none());
    let table = summary_table(&report, None).unwrap();
    assert!(table.contains("SPRT on rotations"), "{table}");
    assert!(table.contains("rotations 0/¼/½"), "{table}");
}

#[test]
fn version_1_reports_are_still_read_and_later_ones_refused() {
    let dir = fresh_dir("eval-report-versions");
    let path = dir.join("old.json");
    let old = report(GameKind::Rematch, 2, &[Some(0), None]);
    let mut json = serde_json::to_value(&old).unwrap();
    json["format_version"] = 1.into();
    std::fs::write(&path, json.to_string()).unwrap();
    let read = read_report(&path).unwrap();
    assert_eq!((read.format_version, read.suite.clone()), (1, None));
    assert_eq!(read.summary().unwrap().pentanomial, None);
    json["format_version"] = (REPORT_FORMAT_VERSION + 1).into();
    std::fs::write(&path, json.to_string()).unwrap();
    let err = read_report(&path).unwrap_err().to_string();
    assert!(err.contains("this build reads versions 1 to 2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
