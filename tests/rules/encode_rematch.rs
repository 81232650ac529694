//! ReMATCH encoding: a lossless round trip through an independent decoder, transpositions,
//! equivariance under the 12 hexagon symmetries (planes, legal policy indices, successors),
//! the policy layout and the who-moves planes. The checks every game shares (determinism,
//! off-board zeros, the policy bijection, the masked net policy) are in tests/rules/conformance.rs.
use std::collections::BTreeSet;

use checkers_zero::game::hex::{HexGrid, HexSymmetry, DIRECTIONS};
use checkers_zero::game::rematch::{Rematch, ORANGE, RED, WHITE};
use checkers_zero::game::{Action, GameKind, GameState, RulesConfig, StepList};
use checkers_zero::net::encode::Encode;

use crate::common;
use common::positions::{random_positions as random_positions_of, Keep};
use common::{decoded_turns_left, expected_turns_left};

const KINDS: [GameKind; 2] = [GameKind::Rematch, GameKind::Rematch3];
const SQ: usize = 25;

fn planes_len() -> usize {
    Rematch::PLANES * Rematch::HEIGHT * Rematch::WIDTH
}

fn enc(s: &Rematch) -> Vec<f32> {
    let mut out = vec![f32::NAN; planes_len()];
    s.encode(&mut out);
    out
}

fn legal(s: &Rematch) -> StepList {
    let mut v = StepList::new();
    s.legal_steps(&mut v);
    v
}

fn pos(kind: GameKind, text: &str) -> Rematch {
    Rematch::from_notation(kind, text, RulesConfig::default()).unwrap()
}

/// Positions from random playouts of both kinds, every mid-sequence state included, `n` of
/// each kind.
fn random_positions(n: usize, seed: u64) -> Vec<Rematch> {
    let keep = Keep::MidTurnAnd(0.25);
    KINDS
        .iter()
        .flat_map(|&kind| random_positions_of(kind, RulesConfig::default(), n, seed, keep))
        .collect()
}

/// Hand-built positions: tall stacks, the 12-piece stack, both Team colours, team=orange,
/// quiet turns, and a terminal one.
fn hand_built() -> Vec<Rematch> {
    let mut v = Vec::new();
    for kind in KINDS {
        v.push(Rematch::start(kind, RulesConfig::default()));
        for text in [
            "white c3:WWWOOOORRRR d4:W",
            "orange c3:WWWWOOORRRR d4:O quiet=7",
            "white c3:WWWWOOOORRRR",
            "red a1:R a2:R a3:R b1:R c3:OW c1:O b4:O d4:O c5:W e4:W e5:W team=orange quiet=12",
            "red a1:ROWR c3:WW d4:OOO e5:RW b2:R team=white",
        ] {
            v.push(pos(kind, text));
        }
    }
    v
}

/// The Red flying capture a3 over c3 (landing d3) that continues over d4 (mid-sequence).
fn red_flying_mid_sequence(kind: GameKind) -> Rematch {
    let mut s = pos(
        kind,
        "red a1:R a2:R a3:R b1:R c3:OW c1:O b4:O d4:O c5:W e4:W e5:W",
    );
    let grid = HexGrid::new(2);
    let a3 = grid.lookup(0, 2).unwrap() as usize;
    let d3 = grid.lookup(3, 2).unwrap() as usize;
    let c3 = grid.lookup(2, 2).unwrap() as usize;
    let flying = ((a3 * 6) * 4 + 2) as Action; // direction 0 = (1, 0), distance 3
    assert_eq!(DIRECTIONS[0], (1, 0));
    s.try_apply_step(flying)
        .expect("the flying capture is legal");
    assert!(s.turn_in_progress(), "the sequence must continue over d4");
    assert_eq!(s.jumper(), Some(d3));
    assert_eq!(
        s.jumped(),
        1 << c3,
        "c3 still stands (O left) and was jumped"
    );
    assert_eq!(s.colour_to_move(), RED);
    s
}

/// Everything tested: hand-built, the flying continuation, and random playout positions.
fn corpus(n: usize, seed: u64) -> Vec<Rematch> {
    let mut v = hand_built();
    for kind in KINDS {
        v.push(red_flying_mid_sequence(kind));
    }
    v.extend(random_positions(n, seed));
    v
}

// ---------------------------------------------------------------------------------------
// The decoder: written from the plane list in the module doc, independent of the encoder.

const P_HEIGHT: usize = 36;
const P_MOVER: usize = 37;
const P_DUE: usize = 40;
const P_JUMPER: usize = 42;
const P_JUMPED: usize = 43;
const P_IN_SEQ: usize = 44;
const P_QUIET: usize = 45;
const P_PLIES: usize = 46;
const P_SEAT: usize = 47;
const P_ONES: usize = 50;

struct Decoded {
    notation: String,
    jumper: Option<usize>,
    jumped: u32,
    turns_left: u32,
    seat: Option<u8>,
}

fn at(planes: &[f32], p: usize, sq: usize) -> f32 {
    planes[p * SQ + sq]
}

/// A constant plane's value on the board (asserting it is constant there).
fn constant(planes: &[f32], p: usize, grid: &HexGrid) -> f32 {
    let sq0 = square(grid, 0);
    let v = at(planes, p, sq0);
    for c in 0..grid.len() {
        assert_eq!(
            at(planes, p, square(grid, c)),
            v,
            "plane {p} is not constant"
        );
    }
    v
}

fn square(grid: &HexGrid, cell: usize) -> usize {
    let c = grid.cells[cell];
    c.rank as usize * 5 + c.file as usize
}

fn one_hot(values: &[f32]) -> Option<usize> {
    let ones: Vec<usize> = (0..values.len()).filter(|&i| values[i] == 1.0).collect();
    assert!(values.iter().all(|&v| v == 0.0 || v == 1.0), "{values:?}");
    assert!(ones.len() <= 1, "{values:?}");
    ones.first().copied()
}

fn decode(planes: &[f32], ply_cap: u32) -> Decoded {
    assert_eq!(planes.len(), Rematch::PLANES * SQ);
    let grid = HexGrid::new(2);
    let colour = ['R', 'W', 'O'];
    let names = ["red", "white", "orange"];
    let mover = one_hot(
        &(0..3)
            .map(|i| constant(planes, P_MOVER + i, &grid))
            .collect::<Vec<_>>(),
    )
    .expect("someone moves");
    let mut text = names[mover].to_string();
    let mut cells: Vec<usize> = (0..grid.len()).collect();
    cells.sort_by_key(|&c| grid.cells[c]);
    for c in cells {
        let sq = square(&grid, c);
        let h = (at(planes, P_HEIGHT, sq) * 12.0).round() as usize;
        assert_eq!(at(planes, P_HEIGHT, sq), h as f32 / 12.0);
        let mut top_down = String::new();
        for d in 0..12 {
            let one = one_hot(&[
                at(planes, 3 * d, sq),
                at(planes, 3 * d + 1, sq),
                at(planes, 3 * d + 2, sq),
            ]);
            match one {
                Some(col) => {
                    assert!(d < h, "a piece below the stack's height");
                    top_down.push(colour[col]);
                }
                None => assert!(d >= h, "a hole inside the stack"),
            }
        }
        if h > 0 {
            let bottom_up: String = top_down.chars().rev().collect();
            text.push_str(&format!(" {}:{}", grid.cells[c], bottom_up));
        }
    }
    let due = one_hot(&[
        constant(planes, P_DUE, &grid),
        constant(planes, P_DUE + 1, &grid),
    ]);
    if mover == 0 {
        if due.expect("Red to move: a Team colour is due") == 1 {
            text.push_str(" team=orange");
        }
    } else {
        assert_eq!(due, None, "the colour due is only encoded when Red moves");
    }
    let quiet = (constant(planes, P_QUIET, &grid) * 40.0).round() as u32;
    if quiet != 0 {
        text.push_str(&format!(" quiet={quiet}"));
    }
    let jumper_plane: Vec<f32> = (0..grid.len())
        .map(|c| at(planes, P_JUMPER, square(&grid, c)))
        .collect();
    let jumper = one_hot(&jumper_plane);
    let mut jumped = 0u32;
    for c in 0..grid.len() {
        let v = at(planes, P_JUMPED, square(&grid, c));
        assert!(v == 0.0 || v == 1.0);
        if v == 1.0 {
            jumped |= 1 << c;
        }
    }
    let in_seq = constant(planes, P_IN_SEQ, &grid);
    assert_eq!(in_seq == 1.0, jumper.is_some());
    if jumper.is_none() {
        assert_eq!(jumped, 0);
    }
    let turns_left = decoded_turns_left(constant(planes, P_PLIES, &grid));
    if ply_cap == 0 {
        assert_eq!(
            turns_left,
            expected_turns_left(0, 0),
            "no cap: the plane is 1"
        );
    }
    let seat = one_hot(
        &(0..3)
            .map(|i| constant(planes, P_SEAT + i, &grid))
            .collect::<Vec<_>>(),
    )
    .map(|s| s as u8);
    assert_eq!(constant(planes, P_ONES, &grid), 1.0);
    Decoded {
        notation: text,
        jumper,
        jumped,
        turns_left,
        seat,
    }
}

// ---------------------------------------------------------------------------------------

#[test]
fn shape_and_board_mask() {
    assert_eq!(Rematch::PLANES, 51);
    assert_eq!((Rematch::HEIGHT, Rematch::WIDTH), (5, 5));
    const { assert!(Rematch::HEX) };
    assert_eq!((Rematch::SYMMETRIES, Rematch::BOARD_SYMMETRIES), (24, 12));
    let mask = Rematch::board_mask();
    let grid = HexGrid::new(2);
    for (sq, &on_board) in mask.iter().enumerate() {
        let (file, rank) = ((sq % 5) as i32, (sq / 5) as i32);
        assert_eq!(on_board, grid.lookup(file, rank).is_some());
    }
    assert_eq!(mask.iter().filter(|&&b| b).count(), 19);
    for kind in KINDS {
        let shape = Rematch::net_shape(kind);
        assert_eq!(shape.game, kind.name());
        assert_eq!(shape.num_actions, 456);
        assert_eq!(shape.planes, 51);
    }
}

#[test]
fn transpositions_encode_identically() {
    // Two move orders of quiet steps reaching the same position (W a, R x, O b, R y versus
    // W a, R y, O b, R x).
    for kind in KINDS {
        let start = Rematch::start(kind, RulesConfig::default());
        let mut found = 0;
        'search: for &a in &legal(&start) {
            let mut s1 = start;
            s1.apply_step(a);
            let reds = legal(&s1);
            for &x in &reds {
                for &y in &reds {
                    if x == y {
                        continue;
                    }
                    let mut p = s1;
                    p.apply_step(x);
                    let Some(&b) = legal(&p).first() else {
                        continue;
                    };
                    p.apply_step(b);
                    if !legal(&p).contains(&y) {
                        continue;
                    }
                    p.apply_step(y);
                    let mut q = s1;
                    if !legal(&q).contains(&y) {
                        continue;
                    }
                    q.apply_step(y);
                    if !legal(&q).contains(&b) {
                        continue;
                    }
                    q.apply_step(b);
                    if !legal(&q).contains(&x) {
                        continue;
                    }
                    q.apply_step(x);
                    if p.position_hash() == q.position_hash()
                        && p.quiet() == q.quiet()
                        && p.to_notation() == q.to_notation()
                    {
                        assert_eq!(enc(&p), enc(&q));
                        found += 1;
                        if found >= 5 {
                            break 'search;
                        }
                    }
                }
            }
        }
        assert!(found >= 5, "no transpositions found");
    }
}

#[test]
fn round_trip_through_decoder() {
    let positions = corpus(500, 22);
    let (mut mid, mut red_mid, mut tall, mut terminal, mut orange) = (0, 0, 0, 0, 0);
    for s in &positions {
        let d = decode(&enc(s), s.rules().ply_cap);
        assert_eq!(d.notation, s.to_notation(), "{}", s.render());
        assert_eq!(d.jumper, s.jumper());
        assert_eq!(d.jumped, s.jumped());
        assert_eq!(
            d.turns_left,
            expected_turns_left(s.plies(), s.rules().ply_cap)
        );
        match s.kind() {
            GameKind::Rematch3 => assert_eq!(d.seat, Some(s.seat_to_move().0)),
            _ => assert_eq!(d.seat, None),
        }
        if !s.turn_in_progress() {
            // The decoded notation is a position equal to the original (hash included).
            let r = Rematch::from_notation(s.kind(), &d.notation, RulesConfig::default()).unwrap();
            assert_eq!(r.position_hash(), s.position_hash());
        }
        mid += s.turn_in_progress() as usize;
        red_mid += (s.turn_in_progress() && s.colour_to_move() == RED) as usize;
        terminal += s.outcome().is_some() as usize;
        orange += (s.colour_to_move() == ORANGE) as usize;
        let max_h = (0..19).map(|c| s.stack_colours(c).len()).max().unwrap();
        tall += (max_h >= 5) as usize;
    }
    assert!(positions.len() >= 500);
    assert!(mid >= 30, "mid-sequence states: {mid}");
    assert!(red_mid >= 10, "Red mid-sequence states: {red_mid}");
    assert!(tall >= 20, "positions with a stack of 5+: {tall}");
    assert!(terminal >= 5 && orange >= 30, "{terminal} {orange}");
}

fn debug(s: &Rematch) -> String {
    format!("{s:?}")
}

#[test]
fn equivariance_under_every_symmetry() {
    let positions = corpus(300, 33);
    let mut distinct_images = 0;
    for s in &positions {
        let planes = enc(s);
        assert_eq!(debug(&s.transform_state(0).unwrap()), debug(s));
        assert!(s.transform_state(24).is_none());
        let steps = legal(s);
        let indices: Vec<usize> = steps.iter().map(|&a| s.policy_index(a)).collect();
        let mut images = BTreeSet::new();
        for k in 0..Rematch::SYMMETRIES {
            let t = s.transform_state(k).unwrap();
            assert_eq!(t.outcome(), s.outcome());
            assert_eq!(t.turn_in_progress(), s.turn_in_progress());
            let seat = s.seat_to_move().0;
            let swapped = k >= 12 && s.kind() == GameKind::Rematch3 && seat > 0;
            assert_eq!(t.seat_to_move().0, if swapped { 3 - seat } else { seat });
            assert_eq!((t.quiet(), t.plies()), (s.quiet(), s.plies()));
            let tp = enc(&t);
            let mut moved = vec![0f32; planes_len()];
            Rematch::transform_planes(k, &planes, &mut moved);
            assert_eq!(tp, moved, "sym {k} on {}", s.render());
            images.insert(tp.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
            // Legal steps map exactly, and each one leads to the transformed successor.
            let t_steps = legal(&t);
            let t_set: BTreeSet<usize> = t_steps.iter().map(|&a| t.policy_index(a)).collect();
            let mapped: BTreeSet<usize> = indices
                .iter()
                .map(|&i| Rematch::transform_policy_index(k, i))
                .collect();
            assert_eq!(t_set, mapped, "sym {k}");
            for (&a, &i) in steps.iter().zip(&indices) {
                let b = t.action_of_index(Rematch::transform_policy_index(k, i));
                assert_eq!(t.policy_index(b), Rematch::transform_policy_index(k, i));
                let mut s2 = *s;
                s2.apply_step(a);
                let mut t2 = t;
                t2.apply_step(b);
                assert_eq!(
                    debug(&s2.transform_state(k).unwrap()),
                    debug(&t2),
                    "sym {k}, step {a}"
                );
            }
        }
        if images.len() == Rematch::SYMMETRIES {
            distinct_images += 1;
        }
    }
    // Most positions have no symmetry of their own: the 24 maps really differ.
    assert!(distinct_images * 2 > positions.len(), "{distinct_images}");
}

/// Exchanging White and Orange (symmetry 12: the board left as it is, the Team's colours
/// swapped) is a symmetry of the rules: along random games of both variants the swapped
/// position has the swapped stacks and colours, the same legal turns, each leading to the
/// swap of the successor, and the same outcome.
#[test]
fn white_orange_exchange_commutes_with_the_rules() {
    let swap = |c: u8| match c {
        WHITE => ORANGE,
        ORANGE => WHITE,
        c => c,
    };
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(77);
    let mut checked = 0;
    for game in 0..40 {
        let mut s = Rematch::start(KINDS[game % 2], RulesConfig::default());
        let mut t = s.transform_state(12).unwrap();
        loop {
            for cell in 0..19 {
                let expected: Vec<u8> = s.stack_colours(cell).into_iter().map(swap).collect();
                assert_eq!(t.stack_colours(cell), expected, "{}", s.render());
            }
            assert_eq!(t.colour_to_move(), swap(s.colour_to_move()));
            if s.colour_to_move() == RED {
                assert_eq!(t.team_due(), swap(s.team_due()), "{}", s.render());
            }
            assert_eq!(t.outcome(), s.outcome(), "{}", s.render());
            let steps = legal(&s);
            let set: BTreeSet<Action> = steps.iter().copied().collect();
            assert_eq!(legal(&t).into_iter().collect::<BTreeSet<_>>(), set);
            if steps.is_empty() {
                break;
            }
            let a = steps[rand::Rng::gen_range(&mut rng, 0..steps.len())];
            s.apply_step(a);
            t.apply_step(a);
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}

#[test]
fn composition_of_symmetries() {
    let syms: Vec<HexSymmetry> = HexSymmetry::all().collect();
    assert_eq!(
        syms[0],
        HexSymmetry {
            rotation: 0,
            mirror: false
        }
    );
    let index_of = |h: HexSymmetry| syms.iter().position(|&x| x == h).unwrap();
    let mirror = index_of(HexSymmetry {
        rotation: 0,
        mirror: true,
    });
    let rot1 = index_of(HexSymmetry {
        rotation: 1,
        mirror: false,
    });
    let rot2 = index_of(HexSymmetry {
        rotation: 2,
        mirror: false,
    });
    let rot3 = index_of(HexSymmetry {
        rotation: 3,
        mirror: false,
    });
    for s in corpus(40, 44) {
        let m = s.transform_state(mirror).unwrap();
        assert_eq!(debug(&m.transform_state(mirror).unwrap()), debug(&s));
        let r = s.transform_state(rot1).unwrap();
        assert_eq!(
            debug(&r.transform_state(rot1).unwrap()),
            debug(&s.transform_state(rot2).unwrap())
        );
        let mut x = s;
        for _ in 0..6 {
            x = x.transform_state(rot1).unwrap();
        }
        assert_eq!(debug(&x), debug(&s));
        // Planes: the half turn twice is the identity; rot1 then rot2 is rot3.
        let p = enc(&s);
        let mut a = vec![0f32; p.len()];
        let mut b = vec![0f32; p.len()];
        Rematch::transform_planes(rot3, &p, &mut a);
        Rematch::transform_planes(rot3, &a, &mut b);
        assert_eq!(b, p);
        Rematch::transform_planes(rot1, &p, &mut a);
        Rematch::transform_planes(rot2, &a, &mut b);
        let mut c = vec![0f32; p.len()];
        Rematch::transform_planes(rot3, &p, &mut c);
        assert_eq!(b, c);
    }
    for i in 0..456 {
        let m = Rematch::transform_policy_index(mirror, i);
        assert_eq!(Rematch::transform_policy_index(mirror, m), i);
        let r = Rematch::transform_policy_index(rot2, Rematch::transform_policy_index(rot1, i));
        assert_eq!(r, Rematch::transform_policy_index(rot3, i));
    }
}

#[test]
fn policy_index_is_the_action_and_symmetries_follow_the_layout() {
    let mut samples = vec![
        pos(GameKind::Rematch, "white c3:WWWOOOORRRR d4:W"),
        pos(
            GameKind::Rematch3,
            "red a1:R a2:R a3:R b1:R c3:OW c1:O b4:O d4:O c5:W e4:W e5:W",
        ),
        red_flying_mid_sequence(GameKind::Rematch),
    ];
    samples.extend(KINDS.map(|k| Rematch::start(k, RulesConfig::default())));
    // No frame change: the index is the action (the bijection itself: tests/rules/conformance.rs).
    for s in &samples {
        assert_eq!(s.num_actions(), 456);
        assert!((0..456).all(|a| s.policy_index(a as Action) == a));
    }
    // The layout: (cell * 6 + dir) * 4 + dist - 1, rotated by HexSymmetry::direction.
    let grid = HexGrid::new(2);
    for (k, sym) in HexSymmetry::all().enumerate() {
        let perm = grid.cell_permutation(sym);
        for (cell, &image) in perm.iter().enumerate() {
            for dir in 0..6 {
                for dist in 1..=4 {
                    let i = (cell * 6 + dir) * 4 + dist - 1;
                    let j = (image as usize * 6 + sym.direction(dir)) * 4 + dist - 1;
                    assert_eq!(Rematch::transform_policy_index(k, i), j);
                }
            }
        }
    }
}

/// The planes that differ between two encodings.
fn differing_planes(a: &[f32], b: &[f32]) -> Vec<usize> {
    (0..Rematch::PLANES)
        .filter(|&p| a[p * SQ..(p + 1) * SQ] != b[p * SQ..(p + 1) * SQ])
        .collect()
}

#[test]
fn who_moves_is_in_the_planes() {
    // No colour-swap symmetry in ReMATCH: instead the same stacks with a different mover
    // (or a different colour due) must encode differently, and only in the who-moves planes.
    let pieces = "a1:R a2:R b1:R b2:R d2:W d3:W e3:W e4:W b4:O c4:O c5:O d5:O";
    for kind in KINDS {
        let white = enc(&pos(kind, &format!("white {pieces}")));
        let orange = enc(&pos(kind, &format!("orange {pieces}")));
        let red_w = enc(&pos(kind, &format!("red {pieces}")));
        let red_o = enc(&pos(kind, &format!("red {pieces} team=orange")));
        let seat = |p: &[usize]| {
            if kind == GameKind::Rematch3 {
                p.to_vec()
            } else {
                p.iter().copied().filter(|&x| x < P_SEAT).collect()
            }
        };
        assert_eq!(
            differing_planes(&white, &orange),
            seat(&[P_MOVER + 1, P_MOVER + 2, P_SEAT + 1, P_SEAT + 2])
        );
        assert_eq!(differing_planes(&red_w, &red_o), vec![P_DUE, P_DUE + 1]);
        assert_eq!(
            differing_planes(&red_w, &white),
            seat(&[P_MOVER, P_MOVER + 1, P_DUE, P_SEAT, P_SEAT + 1])
        );
    }
    // The two kinds differ only in the seat planes.
    let a = enc(&pos(GameKind::Rematch, &format!("orange {pieces}")));
    let b = enc(&pos(GameKind::Rematch3, &format!("orange {pieces}")));
    assert_eq!(differing_planes(&a, &b), vec![P_SEAT + 2]);
    assert_eq!(WHITE, 1);
}
