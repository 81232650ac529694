//! Probe sets: the file format, its errors, and the measures on a hand-made set.

use std::path::Path;

use super::build::{agreed_turn, build_set, BuildOptions};
use super::score::{score_set, ProbeNet, SeatScore};
use super::*;
use crate::config::search::SearchConfig;
use crate::eval::spec::AgentSpec;
use crate::game::rematch::Rematch;
use crate::game::{GameState, RulesConfig, StepList};
use crate::net::net_eval::NetAnswer;
use crate::net::net_eval::{Evaluate, LeafEval, UniformEvaluator};
use crate::net::NetError;
use crate::selfplay::record::{write_records, GameRecord};

/// Red to move: the flying capture a1xd4 takes the Team's last piece; the other three turns
/// are simple moves. White to move: six simple moves, all labelled as losing.
const SET: &str = "\
# a hand-made set
game rematch
labels solver
red a1:WWWOOOOR c3:RRRW | red | end | a1-a2=draw or loss;a1-b1=unknown;a1-b2=loss 2;a1xd4=win 1 | position win 1
white a1:WWWOOOOR c3:RRRW | team | middle | c3-b2=loss ?;c3-b3=loss ?;c3-c2=loss ?;c3-c4=loss 5;c3-d3=loss ?;c3-d4=loss ? | position loss ?
";

/// Uniform priors, W/D/L 0.6/0.3/0.1 everywhere, and a value of 0 for the search.
struct Fake;

impl ProbeNet<Rematch> for Fake {
    fn answer(&mut self, states: &[&Rematch]) -> Result<Vec<NetAnswer>, NetError> {
        Ok(states
            .iter()
            .map(|s| {
                let mut steps = StepList::new();
                s.legal_steps(&mut steps);
                let priors = vec![1.0 / steps.len() as f32; steps.len()];
                NetAnswer {
                    steps,
                    priors,
                    wdl: [0.6, 0.3, 0.1],
                }
            })
            .collect())
    }
}

impl Evaluate<Rematch> for Fake {
    fn evaluate(&mut self, states: &[&Rematch]) -> Result<Vec<LeafEval>, NetError> {
        UniformEvaluator.evaluate(states)
    }
}

fn parse(text: &str) -> Result<ProbeSet, ProbeError> {
    ProbeSet::parse(text, Path::new("set.txt"))
}

#[test]
fn a_set_reads_back_as_written() {
    let set = parse(SET).unwrap();
    assert_eq!(set.game, GameKind::Rematch);
    assert_eq!(set.labels, LabelKind::Solver);
    assert_eq!(set.comments, vec!["a hand-made set".to_string()]);
    assert_eq!(set.positions.len(), 2);
    assert_eq!(
        set.positions[0].turns[3],
        ("a1xd4".into(), Label::Value(Proven::Win(Some(1))))
    );
    assert_eq!(set.positions[1].value, Proven::Loss(None));
    assert_eq!(set.to_text(), SET);
}

#[test]
fn the_measures_on_a_hand_made_set() {
    let set = parse(SET).unwrap();
    let search = SearchConfig {
        visits: 100,
        ..SearchConfig::default()
    };
    let rows = score_set::<Rematch, _>(&set, &mut Fake, &search).unwrap();
    let (red, team, all) = (&rows[0], &rows[1], &rows[2]);
    // Red: uniform priors make a1-a2 (first in path order) the top turn, which loses the
    // win; the search finds the winning capture; a1-a2 and a1-b2 lose value (1/4 each).
    assert_eq!((red.seat.as_str(), red.positions), ("red", 1));
    assert_eq!((red.policy_optimal, red.search_optimal), (0, 1));
    assert!((red.losing_mass - 0.5).abs() < 1e-6);
    assert!((red.value_loss - -(0.6f64.ln())).abs() < 1e-6);
    // Team: every turn loses, as the position does: all optimal, none loses value.
    assert_eq!((team.seat.as_str(), team.positions), ("team", 1));
    assert_eq!((team.policy_optimal, team.search_optimal), (1, 1));
    assert_eq!(team.losing_mass, 0.0);
    assert!((team.value_loss - -(0.1f64.ln())).abs() < 1e-6);
    assert_eq!(
        (
            all.positions,
            all.policy_optimal,
            all.search_optimal,
            all.valued
        ),
        (2, 1, 2, 2)
    );
    assert_eq!(
        all.row(LabelKind::Solver),
        "all              2          50.0%         100.0%        0.250          1.407"
    );
    assert!(SeatScore::header().starts_with("seat"));
    // The solver's view: only Red's position has a turn that loses value; the search's
    // capture there is proven optimal.
    assert_eq!(
        (red.contested, red.contested_proven, red.contested_optimal),
        (1, 1, 1)
    );
    assert_eq!(team.contested, 0);
    assert_eq!(
        all.solver_row("run"),
        format!(
            "{:<40} all              1        1        1   100.0%",
            "run"
        )
    );
}

#[test]
fn agents_are_scored_where_a_mistake_is_possible() {
    let set = parse(SET).unwrap();
    // UCT finds the capture that wins at once.
    let rows = super::agents::score_agent(&set, &AgentSpec::parse("uct:200").unwrap()).unwrap();
    let counts = |r: &SeatScore| (r.contested, r.contested_proven, r.contested_optimal);
    assert_eq!(rows.len(), 3);
    assert_eq!((counts(&rows[0]), counts(&rows[1])), ((1, 1, 1), (0, 0, 0)));
    assert_eq!(counts(&rows[2]), (1, 1, 1));
    // A turn of unknown class (a1-b1) is not counted as proven: whatever random plays,
    // optimal <= proven <= contested.
    let rows = super::agents::score_agent(&set, &AgentSpec::Random).unwrap();
    let (c, p, o) = counts(&rows[2]);
    assert!(c == 1 && o <= p && p <= c, "{:?}", (c, p, o));
    // A net is probed as a checkpoint: refused in words.
    let net = AgentSpec::parse("net:runs/x").unwrap();
    let error = super::agents::score_agent(&set, &net)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("give a checkpoint as an argument"),
        "{error}"
    );
}

#[test]
fn set_errors_name_the_line() {
    let cases = [
        ("labels solver\nred a1:R | red | end | | position win 1\n", 2, "before the positions"),
        ("game chess\n", 1, "unknown game 'chess'"),
        ("game rematch\nlabels proven\n", 2, "bad labels 'proven'"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | end\n", 3, "expected 5 fields"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | late | a1xd4=win 1 | position win 1\n", 3, "bad phase 'late'"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | team | end | a1xd4=win 1 | position win 1\n", 3, "seat 'team', but red is to move"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | end | a1xd4=win 1 | position win 1\n", 3, "every legal turn"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | end | a1-c3=win 1 | position win 1\n", 3, "'a1-c3' is not a legal turn"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | end | a1xd4=won | position win 1\n", 3, "bad value 'won'"),
        ("game rematch\nlabels solver\nred a1:WWWOOOOR c3:RRRW | red | end | a1xd4=win 1;a1xd4=win 1 | position win 1\n", 3, "labelled twice"),
        ("game rematch\nlabels solver\nred a1:Q | red | end | | position win 1\n", 3, "bad contents"),
        ("game rematch\nlabels search\nred a1:WWWOOOOR c3:RRRW | red | end | a1xd4=win 1 | position unknown\n", 3, "TURN=best"),
        ("# nothing\n", 1, "no 'game NAME'"),
    ];
    for (text, line, reason) in cases {
        let error = parse(text).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("set.txt, line {line}: ")),
            "{error}"
        );
        assert!(error.contains(reason), "{error}");
    }
}

#[test]
fn a_search_labelled_set_parses() {
    let text = "game rematch\nlabels search\nred a1:WWWOOOOR c3:RRRW | red | end | a1xd4=best | position unknown\n";
    let set = parse(text).unwrap();
    assert_eq!(
        set.positions[0].turns,
        vec![("a1xd4".to_string(), Label::Best)]
    );
    assert_eq!(Label::Best.keeps(Proven::Unknown), Some(true));
}

/// A record file of `games` random games of `kind` in a fresh directory.
fn random_records<S: GameState>(kind: GameKind, games: u64, name: &str) -> std::path::PathBuf {
    use rand::SeedableRng;
    let dir = std::env::temp_dir().join(format!("cz-probe-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = RulesConfig::default();
    let records: Vec<GameRecord> = (0..games)
        .map(|seed| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut state = S::start(kind, rules);
            let mut record = GameRecord::new(&state, rules, seed, 0);
            record.play_random_turns(&mut state, 1_000, &mut rng);
            record
        })
        .collect();
    let path = dir.join("games.jsonl");
    write_records(&path, &records).unwrap();
    path
}

#[test]
fn a_build_keeps_proven_positions_and_reads_back() {
    let records = random_records::<Rematch>(GameKind::Rematch, 4, "build");
    let mut options = BuildOptions {
        game: GameKind::Rematch,
        records: vec![records.clone()],
        count: 12,
        nodes: 5_000,
        depth: 6,
        playouts: 20_000,
        seed: 1,
        command: "checkers-zero probe-build ...".into(),
        progress: false,
    };
    let (set, report) = build_set(&options).unwrap();
    assert_eq!(set.positions.len(), 12);
    assert_eq!(report.kept.iter().sum::<usize>(), 12);
    assert!((0..3).all(|i| report.kept[i] <= report.tried[i]));
    assert!(set.positions.iter().all(|p| p.value.class().is_some()));
    assert_eq!(set.comments[1], "rebuild: checkers-zero probe-build ...");
    let text = set.to_text();
    assert_eq!(parse(&text).unwrap(), set);
    // Records of another game are refused, naming the file and the game.
    options.game = GameKind::Rematch3;
    let error = build_set(&options).unwrap_err().to_string();
    assert!(
        error.contains("game 1: a rematch game, not rematch3"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(records.parent().unwrap());
}

#[test]
fn searches_agree_only_on_a_single_best_turn_that_uct_plays() {
    // Alpha-beta's values per turn (a best turn exact, the others upper bounds).
    assert_eq!(agreed_turn(&[1.0, 3.0, 2.0], Some(1)), Some(1));
    assert_eq!(agreed_turn(&[1.0, 3.0, 2.0], Some(2)), None);
    assert_eq!(agreed_turn(&[1.0, 3.0, 2.0], None), None);
    // Two best turns: alpha-beta does not say which, whatever UCT plays.
    assert_eq!(agreed_turn(&[3.0, 3.0, -1.0], Some(0)), None);
    assert_eq!(agreed_turn(&[-1.0e6], Some(0)), Some(0));
    assert_eq!(agreed_turn(&[], None), None);
}

/// Builds a small search-labelled set of `kind` from random games and checks it: search
/// labels, one best turn per position which is alpha-beta's only best, and it reads back.
fn check_search_build<S: GameState>(kind: GameKind) {
    let records = random_records::<S>(kind, 2, kind.name());
    let options = BuildOptions {
        game: kind,
        records: vec![records.clone()],
        count: 4,
        nodes: 0,
        depth: 2,
        playouts: 200,
        seed: 1,
        command: "checkers-zero probe-build ...".into(),
        progress: false,
    };
    let (set, report) = build_set(&options).unwrap();
    assert_eq!(set.labels, LabelKind::Search);
    assert_eq!(set.positions.len(), report.kept.iter().sum::<usize>());
    assert!(!set.positions.is_empty(), "{report:?}");
    for p in &set.positions {
        assert_eq!(p.value, Proven::Unknown);
        let state: S = p.state(kind).unwrap();
        let turns = crate::game::turns::distinct_turns(&state);
        let after: Vec<S> = turns.iter().map(|t| t.state.clone()).collect();
        let values = crate::search::agents::turn_values(state.side_to_move(), &after, 2);
        let best = turns.iter().position(|t| t.path == p.turns[0].0);
        assert_eq!(agreed_turn(&values, best), best, "{}", p.line());
    }
    assert!(set.comments[0].contains("search labels, not proofs"));
    assert_eq!(parse(&set.to_text()).unwrap(), set);
    let _ = std::fs::remove_dir_all(records.parent().unwrap());
}

#[test]
fn hexdame_and_eximo_builds_keep_agreed_turns_and_read_back() {
    check_search_build::<crate::game::hexdame::HexDame>(GameKind::Hexdame);
    check_search_build::<crate::game::eximo::Eximo>(GameKind::Eximo);
}

#[test]
fn the_shipped_sets_read_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("probe");
    for (file, game, labels) in [
        ("rematch.txt", GameKind::Rematch, LabelKind::Solver),
        ("hexdame.txt", GameKind::Hexdame, LabelKind::Search),
        ("eximo.txt", GameKind::Eximo, LabelKind::Search),
    ] {
        let set = ProbeSet::read(&dir.join(file)).unwrap();
        assert_eq!((set.game, set.labels), (game, labels), "{file}");
        assert!(
            set.positions.len() >= 100,
            "{file}: {}",
            set.positions.len()
        );
    }
}
