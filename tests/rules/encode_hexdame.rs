//! HexDame's net encoding: a round trip through an independent decoder, move orders, the
//! mover's frame (180° turn with colours swapped), equivariance under the mirror and the
//! policy index in the mover's frame. The checks every game shares (determinism, off-board
//! zeros, the policy bijection, the masked net policy) are in tests/rules/conformance.rs.
use std::collections::BTreeSet;

use checkers_zero::game::hex::{HexGrid, HexSymmetry};
use checkers_zero::game::hexdame::{decode_action, encode_action, HexDame, NUM_ACTIONS};
use checkers_zero::game::{Action, Coord, GameKind, GameState, RulesConfig, StepList};
use checkers_zero::net::encode::Encode;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;
use common::{decoded_turns_left, expected_turns_left};

const SIDE: usize = 9;
const SQ: usize = SIDE * SIDE;
const PLANES: usize = 11;
const MIRROR: HexSymmetry = HexSymmetry {
    rotation: 0,
    mirror: true,
};
const TURN: HexSymmetry = HexSymmetry {
    rotation: 3,
    mirror: false,
};

fn hd_with(text: &str, rules: RulesConfig) -> HexDame {
    HexDame::from_notation(GameKind::Hexdame, text, rules).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn hd(text: &str) -> HexDame {
    hd_with(text, RulesConfig::default())
}

fn enc(s: &HexDame) -> Vec<f32> {
    let mut out = vec![0.0; HexDame::PLANES * SQ];
    s.encode(&mut out);
    out
}

fn legal(s: &HexDame) -> Vec<Action> {
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    steps
}

fn grid() -> HexGrid {
    HexGrid::new(4)
}

/// A sampled position, with the turn-boundary position it started its turn from and the
/// steps taken since (empty at a turn boundary).
#[derive(Clone)]
struct Sample {
    state: HexDame,
    boundary: HexDame,
    steps: Vec<Action>,
}

/// Positions from seeded random playouts, about a third of them mid-turn (when the playouts
/// offer that many), under several rule settings.
fn random_samples(seed: u64, count: usize) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rule_sets = [
        RulesConfig::default(),
        RulesConfig {
            ply_cap: 90,
            project_draws: true,
        },
        RulesConfig {
            ply_cap: 0,
            project_draws: false,
        },
    ];
    let mut out = Vec::new();
    let mut mid = 0;
    let mut game = 0;
    while out.len() < count {
        let rules = rule_sets[game % rule_sets.len()];
        game += 1;
        let mut s = HexDame::start(GameKind::Hexdame, rules);
        let mut boundary = s.clone();
        let mut steps = Vec::new();
        loop {
            let p = if s.turn_in_progress() { 0.6 } else { 0.08 };
            if out.len() < count && rng.gen_bool(p) {
                mid += s.turn_in_progress() as usize;
                out.push(Sample {
                    state: s.clone(),
                    boundary: boundary.clone(),
                    steps: steps.clone(),
                });
            }
            let moves = legal(&s);
            let Some(&a) = moves.choose(&mut rng) else {
                break;
            };
            s.apply_step(a);
            if s.turn_in_progress() {
                steps.push(a);
            } else {
                boundary = s.clone();
                steps.clear();
            }
        }
    }
    assert!(
        mid * 10 >= count,
        "enough mid-turn positions: {mid} of {count}"
    );
    out
}

/// Hand-built positions: kings, counters, a capture in progress, repetitions.
fn hand_built() -> Vec<HexDame> {
    let mut v = vec![
        HexDame::start(GameKind::Hexdame, RulesConfig::default()),
        hd("red a1:w b2:W e5:r h8:R i9:R quiet=3"),
        hd("white c3:w d4:r d6:r f6:r e8:R a1:W quiet=1"),
        hd_with(
            "white a1:W e5:r i9:R quiet=7",
            RulesConfig {
                ply_cap: 0,
                project_draws: false,
            },
        ),
    ];
    // A capture in progress: the first jump of the longest sequence.
    let s = hd("white c3:w c4:r c6:r d7:r h8:R");
    let first = legal(&s)[0];
    let mut m = s.clone();
    m.apply_step(first);
    assert!(m.turn_in_progress(), "{m:?}");
    v.push(m);
    // Kings shuffling: the start position occurs a second and a third time.
    let mut r = hd("white a1:W i5:R");
    let start = r.clone();
    let path = ["a1-b2", "i5-h5", "b2-a1", "h5-i5"];
    for round in 0..2 {
        for p in path {
            let a = step_by_coords(&r, p);
            r.apply_step(a);
            v.push(r.clone());
        }
        assert_eq!(r.repetition_count(), round + 2, "{r:?}");
    }
    assert_eq!(r.to_notation(), start.to_notation() + " quiet=8");
    v
}

/// The legal step from the first to the second cell ("a1-b2").
fn step_by_coords(s: &HexDame, text: &str) -> Action {
    let (from, to) = text.split_once('-').unwrap();
    let (from, to) = (Coord::parse(from).unwrap(), Coord::parse(to).unwrap());
    legal(s)
        .into_iter()
        .find(|&a| {
            let d = s.describe_step(a);
            d.from == Some(from) && d.to == to
        })
        .unwrap_or_else(|| panic!("{text} is not legal in {s:?}"))
}

/// What the decoder reads back.
#[derive(Debug, PartialEq)]
struct Decoded {
    notation: String,
    mover: Option<Coord>,
    jumped: Vec<Coord>,
    required: u32,
    repeated: bool,
    turns_left: u32,
}

/// The same fields, read from the state through its accessors.
fn fields(s: &HexDame) -> Decoded {
    let g = grid();
    let set = |bits: u64| -> Vec<Coord> {
        let mut v: Vec<Coord> = (0..61)
            .filter(|&c| bits & (1u64 << c) != 0)
            .map(|c| g.cells[c])
            .collect();
        v.sort();
        v
    };
    Decoded {
        notation: s.to_notation(),
        mover: s.capturing_piece().map(|c| g.cells[c as usize]),
        jumped: set(s.jumped()),
        required: s.captures_required(),
        repeated: s.repetition_count() >= 2,
        turns_left: expected_turns_left(s.turns_played(), s.rules().ply_cap),
    }
}

/// Reads planes back. The colour to move is not an input (the rules are symmetric under the
/// 180° turn with colours swapped, see `frame_*`), so the decoder is told it; the rules
/// settings (ply cap, project draws) are likewise the game's, not the position's.
fn decode(planes: &[f32], red_to_move: bool, rules: RulesConfig) -> Decoded {
    assert_eq!(planes.len(), PLANES * SQ);
    let g = grid();
    let plane = |p: usize| &planes[p * SQ..(p + 1) * SQ];
    // Squares in the mover's frame to board coordinates.
    let coord = |sq: usize| {
        let (f, r) = (sq % SIDE, sq / SIDE);
        let (f, r) = if red_to_move { (8 - f, 8 - r) } else { (f, r) };
        Coord::new(f as u8, r as u8)
    };
    let on_board: Vec<bool> = (0..SQ)
        .map(|sq| {
            g.cell_of(Coord::new((sq % SIDE) as u8, (sq / SIDE) as u8))
                .is_some()
        })
        .collect();
    for p in 0..PLANES {
        for (sq, (&x, &on)) in plane(p).iter().zip(&on_board).enumerate() {
            assert!(on || x == 0.0, "off-board square {sq} of plane {p}: {x}");
        }
    }
    let cells_of = |p: usize| -> Vec<Coord> {
        let mut v = Vec::new();
        for (sq, &x) in plane(p).iter().enumerate() {
            assert!(x == 0.0 || x == 1.0, "plane {p} is binary: {x}");
            if x == 1.0 {
                v.push(coord(sq));
            }
        }
        v.sort();
        v
    };
    let scalar = |p: usize| -> f32 {
        let first = plane(p)[0]; // a1
        for (&x, &on) in plane(p).iter().zip(&on_board) {
            assert!(!on || x == first, "plane {p} is constant on the board");
        }
        assert!((0.0..=1.0).contains(&first), "plane {p} in [0, 1]: {first}");
        first
    };
    let (me, opp) = if red_to_move { ('r', 'w') } else { ('w', 'r') };
    let mut pieces: Vec<(Coord, char)> = Vec::new();
    for (p, ch) in [
        (0, me),
        (1, me.to_ascii_uppercase()),
        (2, opp),
        (3, opp.to_ascii_uppercase()),
    ] {
        for c in cells_of(p) {
            assert!(pieces.iter().all(|&(d, _)| d != c), "{c} holds one piece");
            pieces.push((c, ch));
        }
    }
    pieces.sort();
    let mut notation = String::from(if red_to_move { "red" } else { "white" });
    for (c, ch) in pieces {
        notation.push_str(&format!(" {c}:{ch}"));
    }
    let quiet = (scalar(8) * 50.0).round() as u32;
    if rules.project_draws {
        if quiet > 0 {
            notation.push_str(&format!(" quiet={quiet}"));
        }
    } else {
        assert_eq!(quiet, 0, "no no-progress plane without the project draws");
    }
    let movers = cells_of(4);
    assert!(movers.len() <= 1);
    let repeated = scalar(7);
    assert!(
        repeated == 0.0 || repeated == 1.0,
        "the repetition plane is 0/1"
    );
    assert_eq!(scalar(10), 1.0, "the on-board plane");
    let turns_left = decoded_turns_left(scalar(9));
    if rules.ply_cap == 0 {
        assert_eq!(scalar(9), 1.0, "no cap: the turns-left plane is 1");
    }
    Decoded {
        notation,
        mover: movers.first().copied(),
        jumped: cells_of(5),
        required: (scalar(6) * 16.0).round() as u32,
        repeated: repeated == 1.0,
        turns_left,
    }
}

/// The quiet counter is written only with the project draws (it means nothing without).
fn expected_fields(s: &HexDame) -> Decoded {
    let mut f = fields(s);
    if !s.rules().project_draws && s.quiet_turns() > 0 {
        f.notation = f
            .notation
            .replace(&format!(" quiet={}", s.quiet_turns()), "");
    }
    f
}

fn round_trip(s: &HexDame) {
    let planes = enc(s);
    let decoded = decode(&planes, s.colour_to_move() == 1, s.rules());
    assert_eq!(decoded, expected_fields(s), "{s:?}");
}

#[test]
fn round_trip_start_hand_built_and_random() {
    for s in hand_built() {
        round_trip(&s);
    }
    let samples = random_samples(0xD1, 500);
    for x in &samples {
        round_trip(&x.state);
    }
    // The sample covers what the planes carry.
    let all: Vec<&HexDame> = samples.iter().map(|x| &x.state).collect();
    assert!(all.iter().any(|s| s.kings() != 0));
    assert!(all.iter().any(|s| s.captures_required() >= 1));
    assert!(all.iter().any(|s| s.colour_to_move() == 1));
    assert!(all
        .iter()
        .any(|s| s.quiet_turns() > 0 && s.rules().project_draws));
}

#[test]
fn round_trip_fails_on_a_different_position() {
    // The decoder is not a tautology: the planes of one position do not decode to another.
    let a = hd("white c3:w e5:r");
    let b = hd("white c3:w e6:r");
    let da = decode(&enc(&a), false, a.rules());
    assert_ne!(da, fields(&b));
    // And the frame matters: Red's planes read as White's give a different board.
    let r = hd("red c3:w e6:r");
    assert_ne!(
        decode(&enc(&r), false, r.rules()).notation,
        r.to_notation().replace("red", "white")
    );
}

#[test]
fn move_orders_to_one_position_encode_alike() {
    // Two move orders reaching the same position.
    let start = HexDame::start(GameKind::Hexdame, RulesConfig::default());
    let order = |ps: [&str; 3]| {
        let mut s = start.clone();
        for p in ps {
            let a = step_by_coords(&s, p);
            s.apply_step(a);
        }
        s
    };
    let x = order(["d1-e1", "f6-e6", "a4-a5"]);
    let y = order(["a4-a5", "f6-e6", "d1-e1"]);
    assert_eq!(x.to_notation(), y.to_notation());
    assert_eq!(x.position_hash(), y.position_hash());
    assert_eq!(enc(&x), enc(&y));
    let z = order(["a4-b5", "f6-e6", "d1-e1"]);
    assert_ne!(enc(&x), enc(&z));
}

/// The corresponding action under a hex symmetry, computed from the grid (not the encoder).
fn map_action(sym: HexSymmetry, a: Action) -> Action {
    let perm = grid().cell_permutation(sym);
    let (from, dir, dist) = decode_action(a);
    encode_action(perm[from as usize], sym.direction(dir), dist)
}

fn sym_of(k: usize) -> HexSymmetry {
    [
        HexSymmetry {
            rotation: 0,
            mirror: false,
        },
        MIRROR,
    ][k]
}

fn same_state(a: &HexDame, b: &HexDame) {
    assert_eq!(fields(a), fields(b));
    assert_eq!(a.position_hash(), b.position_hash());
    assert_eq!(a.outcome(), b.outcome());
    assert_eq!(a.turns_played(), b.turns_played());
    assert_eq!(enc(a), enc(b));
}

#[test]
fn equivariance_under_every_symmetry() {
    assert_eq!(HexDame::SYMMETRIES, 2);
    let samples = random_samples(0xD3, 300);
    let hand = hand_built();
    assert!(hand.iter().any(|s| s.repetition_count() == 3));
    let mut moved = 0;
    for s in samples.iter().map(|x| &x.state).chain(&hand) {
        let planes = enc(s);
        let s_legal = legal(s);
        same_state(&s.transform_state(0).unwrap(), s);
        assert!(s.transform_state(2).is_none());
        for k in 0..HexDame::SYMMETRIES {
            let t = s.transform_state(k).expect("symmetry applies");
            assert_eq!(t.position_hash(), t.compute_hash(), "hash of {t:?}");
            let mut expected = vec![0.0; planes.len()];
            HexDame::transform_planes(k, &planes, &mut expected);
            assert_eq!(enc(&t), expected, "planes, sym {k}, {s:?}");
            assert_eq!(t.outcome(), s.outcome());
            assert_eq!(t.turn_in_progress(), s.turn_in_progress());
            assert_eq!(t.repetition_count(), s.repetition_count());
            assert_eq!(t.colour_to_move(), s.colour_to_move());
            assert_eq!(t.quiet_turns(), s.quiet_turns());
            // Legal steps map one to one, as actions and as policy indices.
            let t_legal = legal(&t);
            let mapped: BTreeSet<Action> =
                s_legal.iter().map(|&a| map_action(sym_of(k), a)).collect();
            assert_eq!(mapped, t_legal.iter().copied().collect(), "{s:?}");
            let s_idx: BTreeSet<usize> = s_legal
                .iter()
                .map(|&a| HexDame::transform_policy_index(k, s.policy_index(a)))
                .collect();
            let t_idx: BTreeSet<usize> = t_legal.iter().map(|&a| t.policy_index(a)).collect();
            assert_eq!(s_idx, t_idx);
            for &a in &s_legal {
                let ta = map_action(sym_of(k), a);
                assert_eq!(
                    t.policy_index(ta),
                    HexDame::transform_policy_index(k, s.policy_index(a))
                );
                // Playing corresponding steps keeps the states corresponding.
                let mut sa = s.clone();
                sa.apply_step(a);
                let mut tb = t.clone();
                tb.apply_step(ta);
                same_state(&sa.transform_state(k).unwrap(), &tb);
            }
            if k == 1 {
                same_state(&t.transform_state(1).unwrap(), s);
                moved += (enc(&t) != planes) as usize;
            }
        }
    }
    assert!(
        moved * 2 > samples.len(),
        "the mirror moves most positions: {moved}"
    );
    // Policy index maps: involutions, permutations, and the mirror is not the identity.
    let mut seen = vec![false; NUM_ACTIONS];
    for i in 0..NUM_ACTIONS {
        assert_eq!(HexDame::transform_policy_index(0, i), i);
        let j = HexDame::transform_policy_index(1, i);
        assert_eq!(HexDame::transform_policy_index(1, j), i);
        assert!(!std::mem::replace(&mut seen[j], true));
    }
    assert_eq!(
        HexDame::transform_policy_index(1, 0),
        16,
        "a1 east becomes a1 north"
    );
}

#[test]
fn the_mirror_keeps_the_start() {
    let s = HexDame::start(GameKind::Hexdame, RulesConfig::default());
    same_state(&s.transform_state(1).unwrap(), &s);
    // But not an asymmetric position, and its image is the swapped notation.
    let a = hd("white b1:w e7:R");
    let m = a.transform_state(1).unwrap();
    assert_eq!(m.to_notation(), "white a2:w g5:R");
    assert_eq!(m.position_hash(), hd("white a2:w g5:R").position_hash());
}

#[test]
fn policy_index_is_in_the_movers_frame() {
    let white = HexDame::start(GameKind::Hexdame, RulesConfig::default());
    let red = hd("red a1:w b2:w h8:r i9:r");
    // White's index is the action; Red's is the action turned by 180°.
    let a = encode_action(0, 1, 1);
    assert_eq!(white.policy_index(a), a as usize);
    assert_eq!(red.policy_index(map_action(TURN, a)), a as usize);
    assert_ne!(red.policy_index(a), a as usize);
}

/// The position turned by 180° with the colours swapped and the other side to move.
fn twin_notation(s: &HexDame) -> String {
    let g = grid();
    let perm = g.cell_permutation(TURN);
    let mut pieces = Vec::new();
    for colour in 0..2 {
        for (c, &image) in perm.iter().enumerate() {
            if s.pieces(colour) & (1u64 << c) != 0 {
                let king = s.kings() & (1u64 << c) != 0;
                let ch = match (1 - colour, king) {
                    (0, false) => 'w',
                    (0, true) => 'W',
                    (_, false) => 'r',
                    (_, true) => 'R',
                };
                pieces.push((g.cells[image as usize], ch));
            }
        }
    }
    pieces.sort();
    let mut out = String::from(if s.colour_to_move() == 0 {
        "red"
    } else {
        "white"
    });
    for (c, ch) in pieces {
        out.push_str(&format!(" {c}:{ch}"));
    }
    if s.quiet_turns() > 0 {
        out.push_str(&format!(" quiet={}", s.quiet_turns()));
    }
    out
}

#[test]
fn frame_twin_with_colours_swapped_encodes_identically() {
    let start = HexDame::start(GameKind::Hexdame, RulesConfig::default());
    assert_eq!(
        twin_notation(&start),
        start.to_notation().replace("white", "red")
    );
    let mut checked_mid = 0;
    for x in random_samples(0xD4, 300) {
        let rules = x.boundary.rules();
        let p = hd_with(&x.boundary.to_notation(), rules);
        let q = hd_with(&twin_notation(&p), rules);
        assert_ne!(p.colour_to_move(), q.colour_to_move());
        let (mut p, mut q) = (p, q);
        let check = |p: &HexDame, q: &HexDame| {
            assert_eq!(enc(p), enc(q), "{p:?} against its twin {q:?}");
            let lp = legal(p);
            let lq = legal(q);
            assert_eq!(lp.len(), lq.len());
            let ip: BTreeSet<usize> = lp.iter().map(|&a| p.policy_index(a)).collect();
            let iq: BTreeSet<usize> = lq.iter().map(|&a| q.policy_index(a)).collect();
            assert_eq!(ip, iq, "same policy indices");
            for &a in &lp {
                assert_eq!(q.policy_index(map_action(TURN, a)), p.policy_index(a));
            }
        };
        check(&p, &q);
        for &a in &x.steps {
            p.apply_step(a);
            q.apply_step(map_action(TURN, a));
            check(&p, &q);
            checked_mid += 1;
        }
    }
    assert!(checked_mid > 50, "mid-turn twins checked: {checked_mid}");
    // Not vacuous: the same board with the other side to move (no turn) encodes differently.
    let a = hd("white c3:w e5:r");
    let b = hd("red c3:w e5:r");
    assert_ne!(enc(&a), enc(&b));
}

#[test]
fn the_mask_and_the_on_board_plane_are_the_61_cells() {
    let g = grid();
    let mask = HexDame::board_mask();
    assert_eq!(mask.len(), SQ);
    assert_eq!(mask.iter().filter(|&&m| m).count(), 61);
    for (sq, &m) in mask.iter().enumerate() {
        let c = Coord::new((sq % SIDE) as u8, (sq / SIDE) as u8);
        assert_eq!(m, g.cell_of(c).is_some());
    }
    // The on-board plane.
    let planes = enc(&HexDame::start(GameKind::Hexdame, RulesConfig::default()));
    assert!((0..SQ).all(|sq| planes[10 * SQ + sq] == mask[sq] as u8 as f32));
}

#[test]
fn net_shape() {
    let shape = HexDame::net_shape(GameKind::Hexdame);
    assert_eq!(shape.planes as usize, PLANES);
    assert_eq!((shape.height, shape.width), (9, 9));
    assert_eq!(shape.num_actions as usize, NUM_ACTIONS);
    assert!(shape.hex);
}

#[test]
fn the_policy_map_puts_each_legal_step_on_its_moving_piece() {
    // The convolutional policy head reads a step's logit at the square of the piece that
    // moves, as the planes place it (own men or kings, in the mover's frame).
    for sample in random_samples(7, 300) {
        let s = &sample.state;
        let planes = enc(s);
        for a in legal(s) {
            let (_, square) = HexDame::policy_square(s.policy_index(a));
            let own = planes[square] + planes[SQ + square];
            assert_eq!(own, 1.0, "step {a} of {}", s.to_notation());
        }
    }
}
