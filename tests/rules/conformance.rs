//! The conformance suite every game runs: the same checks of the game API and of the net
//! encoding, written once as generic functions and instantiated per game by `conformance!`.
//! Game-specific rules (exact legal turns, plane layouts read back by a decoder, perft
//! counts) stay in the per-game test files.
//!
//! - facts: the `GameKind` record agrees with the rules and with the game's own state
//!   (seats, sides, who moves first, the action space, a legal example turn);
//! - notation: every position at a turn boundary round-trips through the notation, and
//!   random text never panics the parser;
//! - actions: policy indices are a bijection of the action space in every position, every
//!   legal step is described, an illegal one is refused;
//! - encoding: deterministic, overwrites its buffer, zero off the board; symmetries act on
//!   states, planes and policy indices alike; a net's masked policy covers the legal steps;
//! - the turns-left plane: a position encodes the same under any two ply caps both more
//!   than the horizon away, and reaches 0 at the cap;
//! - random playouts: legal steps exist exactly while there is no outcome, a turn keeps its
//!   seat, every game ends by the ply cap.
use crate::common;

use std::collections::BTreeSet;

use checkers_zero::config::net::NetConfig;
use checkers_zero::game::turns::parse_turn;
use checkers_zero::game::{Action, GameKind, GameState, RulesConfig, Seat, StepList};
use checkers_zero::net::backend::Request;
use checkers_zero::net::encode::{Encode, TURN_HORIZON};
use checkers_zero::net::model::Model;
use common::evaluate_batch;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tch::{Kind, Tensor};

/// The side that moves first by the rules (docs/rules.md: "the Team opens, with
/// White"; HexDame "White moves first"; Eximo "Black moves first"), by seat name.
fn first_mover_by_the_rules(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Rematch => "team",
        GameKind::Rematch3 => "white",
        GameKind::Hexdame => "white",
        GameKind::Eximo => "black",
    }
}

fn rules(ply_cap: u32) -> RulesConfig {
    RulesConfig {
        ply_cap,
        ..RulesConfig::default()
    }
}

fn legal<S: GameState>(s: &S) -> StepList {
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    steps
}

fn planes<S: Encode>(s: &S) -> Vec<f32> {
    let mut out = vec![f32::NAN; S::PLANES * S::HEIGHT * S::WIDTH];
    s.encode(&mut out);
    out
}

/// Positions of random games (every step, mid-turn ones included, and the final one) under
/// a ply cap of `ply_cap`.
fn playouts<S: GameState>(kind: GameKind, ply_cap: u32, games: usize, seed: u64) -> Vec<S> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut s = S::start(kind, rules(ply_cap));
        loop {
            out.push(s.clone());
            let steps = legal(&s);
            if steps.is_empty() {
                break;
            }
            s.apply_step(steps[rng.gen_range(0..steps.len())]);
        }
    }
    out
}

/// The facts record agrees with the rules and with the game's own state.
fn facts<S: GameState>(kind: GameKind) {
    let facts = kind.facts();
    let start = S::start(kind, RulesConfig::default());
    assert_eq!(facts.name, kind.name());
    assert_eq!(kind.name().parse::<GameKind>().unwrap(), kind);
    assert!(GameKind::ALL.contains(&kind));
    assert_eq!(start.kind(), kind);
    assert_eq!(facts.num_actions, start.num_actions());
    assert_eq!(facts.seats.len(), start.num_seats());
    for (seat, side) in facts.seat_sides.iter().enumerate() {
        assert_eq!(start.side_of(Seat(seat as u8)), *side, "seat {seat}");
        assert!((side.0 as usize) < facts.sides.len());
    }
    // Who moves first: the rules, the facts and the start position agree.
    assert_eq!(start.seat_to_move(), facts.first_seat);
    assert_eq!(
        facts.seats[facts.first_seat.0 as usize],
        first_mover_by_the_rules(kind)
    );
    // Match tables name the seats the same way.
    let table = checkers_zero::eval::arena::seat_names(kind);
    assert_eq!(table.len(), facts.seats.len());
    assert!(table[facts.first_seat.0 as usize].eq_ignore_ascii_case(first_mover_by_the_rules(kind)));
    assert!(parse_turn(&start, facts.turn_example).is_ok());
    assert!(facts.default_blocks >= 1);
    assert!(facts.match_first_to.is_none_or(|p| p > 0.0));
    assert!(!facts.action_layout.is_empty() && !facts.title.is_empty());
}

/// Positions at turn boundaries round-trip through the notation: the same text, hash,
/// legal steps and inputs (far from the ply cap the turn count, which the notation leaves
/// out, is not an input).
fn notation_round_trip<S: Encode>(kind: GameKind) {
    let positions = playouts::<S>(kind, RulesConfig::default().ply_cap, 6, 1);
    let (mut checked, mut seen) = (0, std::collections::HashSet::new());
    for s in positions.iter().filter(|s| !s.turn_in_progress()) {
        let text = s.to_notation();
        let back = S::from_notation(kind, &text, RulesConfig::default())
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back.to_notation(), text);
        assert_eq!(back.position_hash(), s.position_hash(), "{text}");
        if s.outcome().is_none() {
            assert_eq!(legal(&back), legal(s), "{text}");
            // A repetition history is not in the notation: compare first occurrences.
            if seen.insert(s.position_hash()) {
                assert_eq!(planes(&back), planes(s), "{text}");
            }
        }
        checked += 1;
    }
    assert!(checked > 50);
}

/// Random text from the notation's alphabet, and the start position with a few bytes
/// changed, never panic the parser; what parses writes back to text that parses to itself.
fn notation_fuzz<S: GameState>(kind: GameKind) {
    let start = S::start(kind, RulesConfig::default()).to_notation();
    let mut alphabet: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789:= \t-xé\u{0}"
        .chars()
        .chain(start.chars())
        .collect();
    alphabet.sort();
    alphabet.dedup();
    let seat = kind.facts().seats[0];
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let mut text = if rng.gen_bool(0.5) {
            format!("{seat} ")
        } else {
            String::new()
        };
        for _ in 0..rng.gen_range(0..40) {
            text.push(alphabet[rng.gen_range(0..alphabet.len())]);
        }
        // And a few bytes of the start position changed.
        let mut bytes: Vec<u8> = start.bytes().collect();
        for _ in 0..rng.gen_range(1..4) {
            let i = rng.gen_range(0..bytes.len());
            bytes[i] = rng.gen_range(32..127);
        }
        for text in [text, String::from_utf8(bytes).unwrap()] {
            if let Ok(s) = S::from_notation(kind, &text, RulesConfig::default()) {
                let back = s.to_notation();
                let again = S::from_notation(kind, &back, RulesConfig::default()).unwrap();
                assert_eq!(again.to_notation(), back, "{text:?}");
                parsed += 1;
            }
        }
    }
    assert!(parsed > 100, "{parsed} random texts parsed");
}

/// Policy indices are a bijection of the action space in every position; legal steps are
/// described and applied, an illegal one is refused.
fn action_round_trip<S: Encode>(kind: GameKind) {
    let n = kind.facts().num_actions;
    let positions = playouts::<S>(kind, 120, 3, 2);
    for s in positions.iter().step_by(7) {
        let mut seen = vec![false; n];
        for i in 0..n {
            let a = s.action_of_index(i);
            assert!((a as usize) < n);
            assert_eq!(s.policy_index(a), i);
            assert!(!std::mem::replace(&mut seen[a as usize], true));
        }
        let steps = legal(s);
        let indices: BTreeSet<usize> = steps.iter().map(|&a| s.policy_index(a)).collect();
        assert_eq!(indices.len(), steps.len(), "legal steps are distinct");
        for &a in &steps {
            let desc = s.describe_step(a);
            assert_ne!(desc.from, Some(desc.to), "a step goes somewhere");
            let mut t = s.clone();
            t.try_apply_step(a).unwrap();
        }
        if let Some(illegal) = (0..n as Action).find(|a| !steps.contains(a)) {
            assert!(s.clone().try_apply_step(illegal).is_err());
        }
    }
}

/// The encoding is deterministic, overwrites its buffer, and is zero off the board.
fn encode_basics<S: Encode>(kind: GameKind) {
    let mask = S::board_mask();
    let squares = S::HEIGHT * S::WIDTH;
    assert_eq!(mask.len(), squares);
    let shape = S::net_shape(kind);
    assert_eq!(shape.game, kind.name());
    assert_eq!(shape.num_actions as usize, kind.facts().num_actions);
    assert_eq!(shape.encoding_version, S::ENCODING_VERSION);
    for s in playouts::<S>(kind, 120, 3, 3) {
        let a = planes(&s);
        assert!(a.iter().all(|v| v.is_finite()), "every value written");
        let mut b = vec![7.5f32; a.len()];
        s.encode(&mut b);
        assert_eq!(a, b);
        for (i, v) in a.iter().enumerate() {
            assert!(mask[i % squares] || *v == 0.0, "off-board square {i}: {v}");
        }
    }
}

/// Symmetries act on states, planes and policy indices alike.
fn symmetry_consistency<S: Encode>(kind: GameKind) {
    let n = kind.facts().num_actions;
    for k in 0..S::SYMMETRIES {
        let image: BTreeSet<usize> = (0..n).map(|i| S::transform_policy_index(k, i)).collect();
        assert_eq!(image.len(), n, "symmetry {k} permutes the policy indices");
    }
    let mut applied = 0;
    for s in playouts::<S>(kind, 120, 3, 4).iter().step_by(3) {
        let p = planes(s);
        for k in 0..S::SYMMETRIES {
            let Some(t) = s.transform_state(k) else {
                continue;
            };
            let mut moved = vec![0.0; p.len()];
            S::transform_planes(k, &p, &mut moved);
            assert_eq!(planes(&t), moved, "symmetry {k}");
            let expected: BTreeSet<usize> = legal(s)
                .iter()
                .map(|&a| S::transform_policy_index(k, s.policy_index(a)))
                .collect();
            let found: BTreeSet<usize> = legal(&t).iter().map(|&a| t.policy_index(a)).collect();
            assert_eq!(found, expected, "symmetry {k}: legal steps");
            applied += 1;
        }
    }
    assert!(applied > 50);
}

/// Random games played under ply cap `cap` and, step for step, under cap 1000: the
/// positions encoded alike (more than the horizon from `cap`) and those encoded apart.
fn encode_under_two_caps<S: Encode>(kind: GameKind, cap: u32, seed: u64) -> (usize, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut same, mut near) = (0, 0);
    for _ in 0..16 {
        let mut short = S::start(kind, rules(cap));
        let mut long = S::start(kind, rules(1000));
        let mut turns = 0;
        while short.outcome().is_none() {
            let (a, b) = (planes(&short), planes(&long));
            if turns + TURN_HORIZON < cap {
                assert_eq!(a, b, "turn {turns}: the inputs depend on the cap");
                same += 1;
            } else if turns + TURN_HORIZON > cap {
                assert_ne!(a, b, "turn {turns}: the cap is near");
                near += 1;
            }
            let steps = legal(&short);
            let step = steps[rng.gen_range(0..steps.len())];
            short.apply_step(step);
            long.apply_step(step);
            if !short.turn_in_progress() {
                turns += 1;
            }
        }
    }
    (same, near)
}

/// A position encodes the same in self-play (cap 150) and in a match (cap 1000) while 150
/// is more than the horizon away; near a cap the turns-left plane tells them apart.
fn cap_free_inputs<S: Encode>(kind: GameKind) {
    let (same, _) = encode_under_two_caps::<S>(kind, 150, 5);
    assert!(same > 100, "{same} positions compared");
    let (_, near) = encode_under_two_caps::<S>(kind, TURN_HORIZON + 8, 6);
    assert!(near > 10, "{near} positions near the cap");
}

/// Random playouts keep the game API's promises.
fn playout_invariants<S: GameState>(kind: GameKind) {
    const CAP: u32 = 80;
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for _ in 0..20 {
        let mut s = S::start(kind, rules(CAP));
        let mut steps_played = 0u32;
        while s.outcome().is_none() {
            let steps = legal(&s);
            assert!(!steps.is_empty(), "no outcome but no legal step");
            assert_eq!(s.side_to_move(), s.side_of(s.seat_to_move()));
            let seat = s.seat_to_move();
            s.apply_step(steps[rng.gen_range(0..steps.len())]);
            if s.turn_in_progress() {
                assert_eq!(s.seat_to_move(), seat, "a turn keeps its seat");
            }
            steps_played += 1;
            assert!(steps_played < 100 * CAP, "the ply cap ends every game");
        }
        assert!(legal(&s).is_empty(), "a finished game offers no steps");
        assert!(!s.turn_in_progress());
        let outcome = s.outcome().unwrap();
        let sides = kind.facts().sides.len() as u8;
        assert!(outcome.winner.is_none_or(|w| w.0 < sides));
        assert_eq!(s.clone().position_hash(), s.position_hash());
    }
}

/// A net's policy, masked to the legal steps, is a distribution over exactly those.
fn masked_policy<S: Encode>(kind: GameKind) {
    tch::manual_seed(3);
    let model = Model::new(S::net_shape(kind), NetConfig::tiny(), tch::Device::Cpu).unwrap();
    let positions: Vec<S> = playouts::<S>(kind, 120, 2, 7)
        .into_iter()
        .filter(|s| s.outcome().is_none())
        .step_by(5)
        .collect();
    let mut steps = Vec::new();
    let requests: Vec<Request> = positions
        .iter()
        .map(|s| Request::for_state(s, &mut steps))
        .collect();
    let refs: Vec<&Request> = requests.iter().collect();
    let evals = evaluate_batch(&model, &refs).unwrap();
    assert_eq!(evals.len(), positions.len());
    // The raw logits: the probabilities are a softmax over exactly the legal indices.
    let input: Vec<f32> = requests.iter().flat_map(|r| r.input.clone()).collect();
    let dims = [S::PLANES, S::HEIGHT, S::WIDTH].map(|d| d as i64);
    let x = Tensor::from_slice(&input).reshape([requests.len() as i64, dims[0], dims[1], dims[2]]);
    let (logits, _) = model.forward_t(&x, false);
    let logits: Vec<f32> = Vec::try_from(logits.to_kind(Kind::Float).flatten(0, -1)).unwrap();
    let n = kind.facts().num_actions;
    for (i, (e, r)) in evals.iter().zip(&requests).enumerate() {
        assert_eq!(e.policy.len(), r.legal.len());
        assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        let row = &logits[i * n..(i + 1) * n];
        let max = r
            .legal
            .iter()
            .map(|&a| row[a as usize])
            .fold(f32::MIN, f32::max);
        let z: f32 = r.legal.iter().map(|&a| (row[a as usize] - max).exp()).sum();
        for (&a, &p) in r.legal.iter().zip(&e.policy) {
            assert!((p - (row[a as usize] - max).exp() / z).abs() < 1e-4);
        }
    }
}

/// Every list of games comes from `GameKind::ALL`; names are unique.
#[test]
fn every_game_is_listed_once() {
    let names: BTreeSet<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(names.len(), GameKind::ALL.len());
    for kind in GameKind::ALL {
        assert!(GameKind::names(", ").contains(kind.name()));
        assert!(format!("{}", "nogame".parse::<GameKind>().unwrap_err()).contains(kind.name()));
    }
}

/// Instantiates every check of the suite for one game: a module of tests named after it.
macro_rules! conformance {
    ($module:ident, $state:ty, $kind:expr) => {
        mod $module {
            use super::*;
            checks!($state, $kind; facts, notation_round_trip, notation_fuzz, action_round_trip,
                encode_basics, symmetry_consistency, cap_free_inputs, playout_invariants,
                masked_policy);
        }
    };
}

/// One `#[test]` per named check, calling the generic check for the game.
macro_rules! checks {
    ($state:ty, $kind:expr; $($check:ident),+) => {
        $(
            #[test]
            fn $check() {
                super::$check::<$state>($kind);
            }
        )+
    };
}

conformance!(
    rematch,
    checkers_zero::game::rematch::Rematch,
    GameKind::Rematch
);
conformance!(
    rematch3,
    checkers_zero::game::rematch::Rematch,
    GameKind::Rematch3
);
conformance!(
    hexdame,
    checkers_zero::game::hexdame::HexDame,
    GameKind::Hexdame
);
conformance!(eximo, checkers_zero::game::eximo::Eximo, GameKind::Eximo);
