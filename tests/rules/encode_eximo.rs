//! The Eximo net encoding: planes read back to the position (a decoder written here), move
//! orders, the side-to-move frame (a position and its vertically flipped colour-swapped twin
//! encode identically), the policy index in the mover's frame, and the mirror symmetry
//! acting on states, planes and policy indices alike. The checks every game shares
//! (determinism, the policy bijection, the masked net policy) are in tests/rules/conformance.rs.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use checkers_zero::game::eximo::{Eximo, NUM_ACTIONS, NUM_PIECE_ACTIONS};
use checkers_zero::game::turns::parse_turn;
use checkers_zero::game::{Action, GameKind, GameState, RulesConfig, StepList};
use checkers_zero::net::encode::Encode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;
use common::positions::Keep;
use common::{decoded_turns_left, expected_turns_left};

const SQ: usize = 64;
const PLANE_VALUES: usize = 9 * SQ;

fn rules() -> RulesConfig {
    RulesConfig::default()
}

fn pos(text: &str) -> Eximo {
    Eximo::from_notation(GameKind::Eximo, text, rules()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn start() -> Eximo {
    Eximo::start(GameKind::Eximo, rules())
}

/// Encodes into a buffer first filled with NaN, so that an unwritten value shows.
fn planes(s: &Eximo) -> Vec<f32> {
    let mut out = vec![f32::NAN; PLANE_VALUES];
    s.encode(&mut out);
    assert!(
        out.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)),
        "every value written, in [0, 1]"
    );
    out
}

fn legal(s: &Eximo) -> Vec<Action> {
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    steps
}

fn legal_indices(s: &Eximo) -> BTreeSet<usize> {
    legal(s).into_iter().map(|a| s.policy_index(a)).collect()
}

fn cell_name(sq: usize) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

/// Applies the single step from `from` to `to` (cells like "d4"; `from` None for a drop).
fn step(s: &Eximo, from: Option<&str>, to: &str) -> Eximo {
    for a in legal(s) {
        let d = s.describe_step(a);
        if d.to.to_string() == to && d.from.map(|c| c.to_string()).as_deref() == from {
            let mut next = *s;
            next.apply_step(a);
            return next;
        }
    }
    panic!("no step {from:?} -> {to} in {}", s.render());
}

fn play(s: &Eximo, path: &str) -> Eximo {
    parse_turn(s, path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .state
}

// ---------------------------------------------------------------------------------------
// The decoder: planes back to a position.

/// What the planes say. The colour to move is deliberately not in the planes (the frame
/// test proves the encoding is the same for the colour-swapped flipped twin), so the
/// decoder is told it; everything else comes from the planes.
#[derive(Debug, PartialEq)]
struct Decoded {
    notation: String,
    jumping: Option<u8>,
    capturing: Option<u8>,
    drops: u8,
    turns_left: u32,
}

fn actual(s: &Eximo) -> Decoded {
    Decoded {
        notation: s.to_notation(),
        jumping: s.jumping_man(),
        capturing: s.capturing_man(),
        drops: s.drops_due(),
        turns_left: expected_turns_left(s.turns_played(), s.rules().ply_cap),
    }
}

fn binary_cells(plane: &[f32]) -> Vec<usize> {
    assert!(plane.iter().all(|&v| v == 0.0 || v == 1.0), "0/1 plane");
    (0..SQ).filter(|&i| plane[i] == 1.0).collect()
}

fn constant(plane: &[f32]) -> f32 {
    assert!(plane.iter().all(|&v| v == plane[0]), "constant plane");
    plane[0]
}

fn decode(p: &[f32], white_to_move: bool, ply_cap: u32) -> Decoded {
    assert_eq!(p.len(), PLANE_VALUES);
    let plane = |i: usize| &p[i * SQ..(i + 1) * SQ];
    // Mover's frame to board: White's view is flipped vertically.
    let flip = if white_to_move { 56 } else { 0 };
    let own = binary_cells(plane(0));
    let opp = binary_cells(plane(1));
    let mut board = [None::<char>; SQ];
    let (own_c, opp_c) = if white_to_move {
        ('w', 'b')
    } else {
        ('b', 'w')
    };
    for &c in &own {
        board[c ^ flip] = Some(own_c);
    }
    for &c in &opp {
        assert!(
            board[c ^ flip].is_none(),
            "own and opponent men on one cell"
        );
        board[c ^ flip] = Some(opp_c);
    }
    let mut notation = String::from(if white_to_move { "white" } else { "black" });
    for file in 0..8 {
        for rank in 0..8 {
            if let Some(c) = board[rank * 8 + file] {
                let _ = write!(notation, " {}:{c}", cell_name(rank * 8 + file));
            }
        }
    }
    let single = |i: usize| -> Option<u8> {
        let cells = binary_cells(plane(i));
        assert!(cells.len() <= 1, "at most one man continues the turn");
        cells.first().map(|&c| {
            assert!(own.contains(&c), "the man that continues is the mover's");
            (c ^ flip) as u8
        })
    };
    let jumping = single(2);
    let capturing = single(3);
    let one = constant(plane(4));
    let two = constant(plane(5));
    assert!(one + two <= 1.0);
    let drops = if two == 1.0 {
        2
    } else if one == 1.0 {
        1
    } else {
        0
    };
    assert!(
        [jumping.is_some(), capturing.is_some(), drops > 0]
            .iter()
            .filter(|&&b| b)
            .count()
            <= 1,
        "one unfinished-turn state at most"
    );
    // The drop-zone plane is the mover's b1-g2 (in its frame) minus occupied cells.
    let zone: Vec<usize> = (0..SQ)
        .filter(|&c| c / 8 < 2 && (1..7).contains(&(c % 8)))
        .filter(|c| !own.contains(c) && !opp.contains(c))
        .collect();
    assert_eq!(binary_cells(plane(6)), zone, "drop-zone plane");
    let turns_left = decoded_turns_left(constant(plane(7)));
    if ply_cap == 0 {
        assert_eq!(
            turns_left,
            expected_turns_left(0, 0),
            "no cap: the plane is 1"
        );
    }
    assert_eq!(constant(plane(8)), 1.0);
    Decoded {
        notation,
        jumping,
        capturing,
        drops,
        turns_left,
    }
}

fn round_trip(s: &Eximo) {
    let white = s.seat_to_move().0 == 1;
    assert_eq!(
        decode(&planes(s), white, s.rules().ply_cap),
        actual(s),
        "{}",
        s.render()
    );
}

// ---------------------------------------------------------------------------------------
// Positions.

/// Hand-built mid-turn states: (description, state).
fn hand_built() -> Vec<(&'static str, Eximo)> {
    let mut v = Vec::new();
    // Black reaches d8: two drops due, then one.
    let p = pos("black d7:b a5:w h6:w");
    let two = step(&p, Some("d7"), "d8");
    assert_eq!(two.drops_due(), 2);
    let one = step(&two, None, "c2");
    assert_eq!(one.drops_due(), 1);
    v.push(("black, two drops due", two));
    v.push(("black, one drop due", one));
    // Only b1 is free: one drop due at once.
    let p = pos("black d7:b c1:b d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b a5:w");
    let only = step(&p, Some("d7"), "d8");
    assert_eq!(only.drops_due(), 1);
    v.push(("black, one drop due (zone nearly full)", only));
    // White reaches e1 (White's drop zone is b7-g8).
    let p = pos("white e2:w a4:b h3:b");
    let two = step(&p, Some("e2"), "e1");
    assert_eq!(two.drops_due(), 2);
    v.push(("white, two drops due", two));
    v.push(("white, one drop due", step(&two, None, "f8")));
    // Friendly-jump chain: b3 over b4 to b5, must go on over b6.
    let p = pos("black b3:b b4:b b6:b h6:w");
    let j = step(&p, Some("b3"), "b5");
    assert_eq!(j.jumping_man(), Some(33));
    v.push(("black, mid jump chain", j));
    // White jump chain: g6 over g5 to g4, must go on over g3.
    let p = pos("white g6:w g5:w g3:w a3:b");
    let j = step(&p, Some("g6"), "g4");
    assert_eq!(j.jumping_man(), Some(30));
    v.push(("white, mid jump chain", j));
    // Capture sequence: d4xd6, then sideways over e6.
    let p = pos("black d4:b d5:w e6:w a7:w");
    let c = step(&p, Some("d4"), "d6");
    assert_eq!(c.capturing_man(), Some(43));
    v.push(("black, mid capture", c));
    // White: e5xc5 (west), then must capture on over c4.
    let p = pos("white e5:w d5:b c4:b h2:b");
    let c = step(&p, Some("e5"), "c5");
    assert_eq!(c.capturing_man(), Some(34));
    v.push(("white, mid capture", c));
    for (what, s) in &v {
        assert!(s.turn_in_progress(), "{what}");
        assert!(s.outcome().is_none(), "{what}");
    }
    v
}

/// Positions from random playouts from the start, every mid-turn state included.
fn random_positions(n: usize, seed: u64) -> Vec<Eximo> {
    let keep = Keep::MidTurnAnd(0.15);
    common::positions::random_positions(GameKind::Eximo, rules(), n, seed, keep)
}

/// Every kind of unfinished turn occurs among `states`.
fn assert_covers_mid_turn(states: &[Eximo]) {
    let count = |f: &dyn Fn(&Eximo) -> bool| states.iter().filter(|s| f(s)).count();
    let jumping = count(&|s| s.jumping_man().is_some());
    let capturing = count(&|s| s.capturing_man().is_some());
    let one = count(&|s| s.drops_due() == 1);
    let two = count(&|s| s.drops_due() == 2);
    let white = count(&|s| s.seat_to_move().0 == 1);
    let over = count(&|s| s.outcome().is_some());
    assert!(
        jumping > 0 && capturing > 0 && one > 0 && two > 0 && white > 0,
        "coverage: jumping {jumping}, capturing {capturing}, 1 drop {one}, 2 drops {two}, \
         white {white}, over {over}"
    );
}

/// The vertically flipped, colour-swapped position with the other side to move, built from
/// the notation (turn boundaries only).
fn twin_notation(s: &Eximo) -> String {
    assert!(!s.turn_in_progress());
    let text = s.to_notation();
    let mut tokens = text.split_whitespace();
    let side = match tokens.next().unwrap() {
        "black" => "white",
        _ => "black",
    };
    let mut out = side.to_string();
    for t in tokens {
        let (cell, c) = t.split_once(':').unwrap();
        let file = &cell[..1];
        let rank: u32 = cell[1..].parse().unwrap();
        let c = if c == "b" { "w" } else { "b" };
        let _ = write!(out, " {file}{}:{c}", 9 - rank);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Absolute-frame action maps, written here independently of the encoder.

/// The game action `a` mirrored left-right (file f to 7 - f; NE/NW, E/W, SE/SW swap).
fn mirror_action(a: Action) -> Action {
    let a = a as usize;
    let m = if a >= NUM_PIECE_ACTIONS {
        let c = a - NUM_PIECE_ACTIONS;
        NUM_PIECE_ACTIONS + (c / 8) * 8 + 7 - c % 8
    } else {
        let (from, dir, dist) = (a / 16, (a / 2) % 8, a % 2);
        let from = (from / 8) * 8 + 7 - from % 8;
        let dir = [0, 7, 6, 5, 4, 3, 2, 1][dir];
        (from * 8 + dir) * 2 + dist
    };
    m as Action
}

/// The game action `a` flipped vertically (rank r to 7 - r; N/S, NE/SE, NW/SW swap).
fn flip_action(a: Action) -> Action {
    let a = a as usize;
    let m = if a >= NUM_PIECE_ACTIONS {
        let c = a - NUM_PIECE_ACTIONS;
        NUM_PIECE_ACTIONS + (7 - c / 8) * 8 + c % 8
    } else {
        let (from, dir, dist) = (a / 16, (a / 2) % 8, a % 2);
        let from = (7 - from / 8) * 8 + from % 8;
        let dir = [4, 3, 2, 1, 0, 7, 6, 5][dir];
        (from * 8 + dir) * 2 + dist
    };
    m as Action
}

// ---------------------------------------------------------------------------------------
// Tests.

#[test]
fn shape_and_board() {
    assert_eq!(Eximo::PLANES * Eximo::HEIGHT * Eximo::WIDTH, PLANE_VALUES);
    assert_eq!((Eximo::HEIGHT, Eximo::WIDTH), (8, 8));
    const { assert!(!Eximo::HEX) };
    assert_eq!(Eximo::SYMMETRIES, 2);
    let mask = Eximo::board_mask();
    assert_eq!(mask.len(), SQ);
    assert!(
        mask.iter().all(|&b| b),
        "no off-board squares on the 8x8 grid"
    );
    let shape = Eximo::net_shape(GameKind::Eximo);
    assert_eq!(shape.num_actions as usize, NUM_ACTIONS);
    assert_eq!(shape.planes, 9);
    assert_eq!(shape.encoding_version, Eximo::ENCODING_VERSION);
    const { assert!(Eximo::ENCODING_VERSION >= 1) };
}

#[test]
fn start_planes_by_hand() {
    let p = planes(&start());
    let plane = |i: usize| &p[i * SQ..(i + 1) * SQ];
    let cells = |names: &[&str]| -> Vec<usize> {
        let mut v: Vec<usize> = names
            .iter()
            .map(|n| {
                let b = n.as_bytes();
                ((b[1] - b'1') * 8 + (b[0] - b'a')) as usize
            })
            .collect();
        v.sort();
        v
    };
    let black = [
        "b1", "c1", "d1", "e1", "f1", "g1", "b2", "c2", "d2", "e2", "f2", "g2", "b3", "c3", "f3",
        "g3",
    ];
    let white = [
        "b8", "c8", "d8", "e8", "f8", "g8", "b7", "c7", "d7", "e7", "f7", "g7", "b6", "c6", "f6",
        "g6",
    ];
    assert_eq!(binary_cells(plane(0)), cells(&black));
    assert_eq!(binary_cells(plane(1)), cells(&white));
    for i in 2..7 {
        assert!(plane(i).iter().all(|&v| v == 0.0), "plane {i}");
    }
    assert!(
        plane(7).iter().all(|&v| v == 1.0),
        "turn 0: the ply cap is far"
    );
    assert!(plane(8).iter().all(|&v| v == 1.0));
    // After b3-b4 White moves: its men are "own", seen from below (b8 at b1).
    let after = play(&start(), "b3-b4");
    let q = planes(&after);
    assert_eq!(binary_cells(&q[0..SQ]), cells(&black));
    let mut black_after: Vec<&str> = black.iter().copied().filter(|&c| c != "b3").collect();
    black_after.push("b4");
    let flipped: Vec<String> = black_after
        .iter()
        .map(|c| format!("{}{}", &c[..1], 9 - c[1..].parse::<u32>().unwrap()))
        .collect();
    let flipped: Vec<&str> = flipped.iter().map(|s| s.as_str()).collect();
    assert_eq!(binary_cells(&q[SQ..2 * SQ]), cells(&flipped));
    assert!(q[7 * SQ..8 * SQ].iter().all(|&v| v == 1.0));
}

#[test]
fn round_trip_start_hand_built_and_random() {
    round_trip(&start());
    round_trip(&play(&start(), "b3-b4"));
    for (_, s) in hand_built() {
        round_trip(&s);
    }
    let states = random_positions(500, 1);
    assert_covers_mid_turn(&states);
    for s in &states {
        round_trip(s);
    }
    // Turn-boundary positions also from their notation (turn 0 there).
    for s in states.iter().filter(|s| !s.turn_in_progress()).take(100) {
        round_trip(&pos(&s.to_notation()));
    }
    // A decoder that ignored a plane would still pass if the planes were all alike: the
    // encodings of these positions must differ wherever the positions do.
    let mut seen = std::collections::HashMap::new();
    for s in &states {
        let key = (s.position_hash(), s.turns_played());
        let p = planes(s);
        if let Some(q) = seen.insert(key, p.clone()) {
            assert_eq!(p, q);
        }
    }
}

#[test]
fn decoder_catches_a_wrong_encoding() {
    // The round trip can fail: a changed plane decodes to a different position.
    let (_, s) = hand_built().remove(5); // black, mid jump chain
    let mut p = planes(&s);
    p[2 * SQ..3 * SQ].fill(0.0);
    assert_ne!(decode(&p, false, 1000), actual(&s));
    let mut p = planes(&s);
    p[33] = 0.0; // the jumping man's own-men bit
    assert!(std::panic::catch_unwind(|| decode(&p, false, 1000)).is_err());
}

#[test]
fn determinism_notation_and_move_orders() {
    let s = start();
    assert_eq!(planes(&s), planes(&s));
    assert_eq!(planes(&s), planes(&pos(&s.to_notation())));
    // Transposition: the same three turns in two orders.
    let a = play(&play(&play(&start(), "b3-b4"), "e7-e6"), "g3-g4");
    let b = play(&play(&play(&start(), "g3-g4"), "e7-e6"), "b3-b4");
    assert_eq!(a, b);
    assert_eq!(planes(&a), planes(&b));
    // The two orders of a pair of drops.
    let two = step(&pos("black d7:b a5:w h6:w"), Some("d7"), "d8");
    let x = step(&step(&two, None, "b1"), None, "g2");
    let y = step(&step(&two, None, "g2"), None, "b1");
    assert_eq!(x, y);
    assert_eq!(planes(&x), planes(&y));
    assert_ne!(planes(&x), planes(&two));
}

#[test]
fn policy_index_is_in_the_movers_frame() {
    // Black's index is the action; White's is the vertically flipped action.
    let white = play(&start(), "b3-b4");
    for a in 0..NUM_ACTIONS as Action {
        assert_eq!(start().policy_index(a), a as usize);
        assert_eq!(white.policy_index(a), flip_action(a) as usize);
    }
    // Legal steps map to distinct indices.
    let mut states = random_positions(300, 3);
    states.extend(hand_built().into_iter().map(|(_, s)| s));
    for s in &states {
        let steps = legal(s);
        assert_eq!(legal_indices(s).len(), steps.len());
    }
    // The opening moves of either side have the same indices.
    assert_eq!(
        legal_indices(&start()),
        legal_indices(&pos(&twin_notation(&start())))
    );
}

#[test]
fn frame_colour_swapped_flipped_twin_encodes_identically() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut roots = vec![start()];
    roots.extend(
        random_positions(400, 5)
            .into_iter()
            .filter(|s| !s.turn_in_progress() && s.outcome().is_none())
            .take(40),
    );
    let mut mid_turn = 0;
    let mut compared = 0;
    for root in roots {
        // Both sides from the notation, so both count turns from 0.
        let mut s = pos(&root.to_notation());
        let mut t = pos(&twin_notation(&s));
        assert_ne!(s.seat_to_move(), t.seat_to_move());
        for _ in 0..40 {
            assert_eq!(planes(&s), planes(&t), "{}\n{}", s.render(), t.render());
            assert_eq!(legal_indices(&s), legal_indices(&t));
            assert_eq!(s.outcome().map(|o| o.reason), t.outcome().map(|o| o.reason));
            assert_eq!(s.turn_in_progress(), t.turn_in_progress());
            compared += 1;
            mid_turn += s.turn_in_progress() as usize;
            let steps = legal(&s);
            if steps.is_empty() {
                break;
            }
            let a = steps[rng.gen_range(0..steps.len())];
            // The twin plays the same step in its own frame (same index), which must be
            // the flipped action.
            let b = t.action_of_index(s.policy_index(a));
            assert_eq!(b, flip_action(a));
            s.apply_step(a);
            t.apply_step(b);
        }
    }
    assert!(compared > 500 && mid_turn > 20, "{compared} {mid_turn}");
    // Hand-built mid-turn twins: black d7-d8 vs white d2-d1.
    let s = step(&pos("black d7:b a5:w h6:w"), Some("d7"), "d8");
    let t = step(&pos("white d2:w a4:b h3:b"), Some("d2"), "d1");
    assert_eq!(planes(&s), planes(&t));
    // And the frame matters: the same men with the other side to move differ.
    let lop = play(&start(), "b3-b4").to_notation();
    assert!(lop.starts_with("white"));
    assert_ne!(
        planes(&pos(&lop)),
        planes(&pos(&lop.replacen("white", "black", 1)))
    );
}

#[test]
fn mirror_equivariance_on_states_planes_and_indices() {
    let mut states = random_positions(300, 6);
    states.extend(hand_built().into_iter().map(|(_, s)| s));
    assert_covers_mid_turn(&states);
    let mut out = vec![0.0; PLANE_VALUES];
    for s in &states {
        let p = planes(s);
        // Identity.
        let id = s.transform_state(0).unwrap();
        assert_eq!(&id, s);
        assert_eq!(id.position_hash(), s.position_hash());
        Eximo::transform_planes(0, &p, &mut out);
        assert_eq!(out, p);
        for k in 0..Eximo::SYMMETRIES {
            let t = s.transform_state(k).unwrap();
            assert_eq!(t.position_hash(), t.compute_hash(), "hash from scratch");
            assert_eq!(t.turns_played(), s.turns_played());
            assert_eq!(t.seat_to_move(), s.seat_to_move());
            assert_eq!(t.outcome(), s.outcome());
            assert_eq!(t.turn_in_progress(), s.turn_in_progress());
            assert_eq!(t.drops_due(), s.drops_due());
            Eximo::transform_planes(k, &p, &mut out);
            assert_eq!(planes(&t), out, "sym {k}\n{}", s.render());
            // Legal steps: the mirrored action is legal in t, with the transformed index.
            let map = |a: Action| if k == 0 { a } else { mirror_action(a) };
            let t_legal: BTreeSet<Action> = legal(&t).into_iter().collect();
            let s_legal = legal(s);
            let mapped: BTreeSet<Action> = s_legal.iter().map(|&a| map(a)).collect();
            assert_eq!(mapped, t_legal);
            for &a in &s_legal {
                assert_eq!(
                    t.policy_index(map(a)),
                    Eximo::transform_policy_index(k, s.policy_index(a))
                );
            }
            let transformed: BTreeSet<usize> = legal_indices(s)
                .into_iter()
                .map(|i| Eximo::transform_policy_index(k, i))
                .collect();
            assert_eq!(transformed, legal_indices(&t));
            // The game goes on alike: after the same (mirrored) step, still mirrored.
            if let Some(&a) = s_legal.first() {
                let mut s2 = *s;
                s2.apply_step(a);
                let mut t2 = t;
                t2.apply_step(map(a));
                assert_eq!(s2.transform_state(k).unwrap(), t2);
                assert_eq!(
                    s2.transform_state(k).unwrap().position_hash(),
                    t2.position_hash()
                );
            }
        }
        // The mirror twice is the identity, on states, planes and indices.
        let m = s.transform_state(1).unwrap();
        assert_eq!(&m.transform_state(1).unwrap(), s);
        Eximo::transform_planes(1, &p, &mut out);
        let mut back = vec![0.0; PLANE_VALUES];
        Eximo::transform_planes(1, &out, &mut back);
        assert_eq!(back, p);
    }
    assert_eq!(Eximo::transform_state(&start(), 2), None);
    // The start is mirror-symmetric; a lopsided position is not.
    assert_eq!(start().transform_state(1).unwrap(), start());
    let lop = play(&start(), "b3-b4");
    assert_ne!(lop.transform_state(1).unwrap(), lop);
    let mut seen = vec![false; NUM_ACTIONS];
    for i in 0..NUM_ACTIONS {
        let j = Eximo::transform_policy_index(1, i);
        assert_eq!(Eximo::transform_policy_index(0, i), i);
        assert!(!seen[j]);
        seen[j] = true;
        assert_eq!(Eximo::transform_policy_index(1, j), i);
    }
    // Position-independence: the index map agrees with mirroring in either colour's frame.
    for a in 0..NUM_ACTIONS as Action {
        assert_eq!(
            Eximo::transform_policy_index(1, a as usize),
            mirror_action(a) as usize
        );
        assert_eq!(
            Eximo::transform_policy_index(1, flip_action(a) as usize),
            flip_action(mirror_action(a)) as usize
        );
    }
}

#[test]
fn the_policy_map_puts_each_legal_step_on_its_square() {
    // The convolutional policy head reads a man's step at the square of the man (an own
    // man in the mover's frame) and a drop at the empty square it fills.
    for s in random_positions(300, 11) {
        let p = planes(&s);
        for a in legal(&s) {
            let (channel, square) = Eximo::policy_square(s.policy_index(a));
            let (own, opp) = (p[square], p[SQ + square]);
            match channel {
                16 => assert_eq!((own, opp), (0.0, 0.0), "drop {a} of {}", s.to_notation()),
                _ => assert_eq!(own, 1.0, "step {a} of {}", s.to_notation()),
            }
        }
    }
}
