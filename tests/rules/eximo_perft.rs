//! Eximo: the rules core against a second, deliberately simple generator written here
//! (a mailbox array of chars addressed by (file, rank), recursive whole turns producing
//! boards, dedup through whole boards and notation strings), random-playout
//! invariants, and the fast perft against the generic step-by-step perft.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};

use common::positions::Keep;

use checkers_zero::game::eximo::Eximo;
use checkers_zero::game::turns::{distinct_turns, perft_generic};
use checkers_zero::game::{GameKind, GameState, RulesConfig, Side, StepKind, StepList};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------
// The independent reference generator.
// ---------------------------------------------------------------------------------------

/// A mailbox: `cells[file][rank]` is 'b', 'w' or '.', with a map-like interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Cells([[char; 8]; 8]);

impl Cells {
    fn new() -> Cells {
        Cells([['.'; 8]; 8])
    }
    fn get(&self, at: &(i32, i32)) -> Option<&char> {
        if !on_board(at.0, at.1) {
            return None;
        }
        let c = &self.0[at.0 as usize][at.1 as usize];
        (*c != '.').then_some(c)
    }
    fn contains_key(&self, at: &(i32, i32)) -> bool {
        self.get(at).is_some()
    }
    fn insert(&mut self, at: (i32, i32), c: char) {
        assert!(on_board(at.0, at.1) && c != '.');
        self.0[at.0 as usize][at.1 as usize] = c;
    }
    fn remove(&mut self, at: &(i32, i32)) {
        assert!(self.contains_key(at), "removing an empty cell");
        self.0[at.0 as usize][at.1 as usize] = '.';
    }
    /// Occupied cells, by file then rank.
    fn keys(&self) -> Vec<(i32, i32)> {
        let mut v = Vec::new();
        for f in 0..8 {
            for r in 0..8 {
                if self.contains_key(&(f, r)) {
                    v.push((f, r));
                }
            }
        }
        v
    }
}

/// A board and the side to move ('b' or 'w').
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Board {
    cells: Cells,
    to_move: char,
}

fn other(c: char) -> char {
    if c == 'b' {
        'w'
    } else {
        'b'
    }
}

fn cell_name(f: i32, r: i32) -> String {
    format!("{}{}", (b'a' + f as u8) as char, r + 1)
}

fn on_board(f: i32, r: i32) -> bool {
    (0..8).contains(&f) && (0..8).contains(&r)
}

impl Board {
    fn parse(text: &str) -> Board {
        let mut it = text.split_whitespace();
        let to_move = match it.next().unwrap() {
            "black" => 'b',
            "white" => 'w',
            s => panic!("seat {s}"),
        };
        let mut cells = Cells::new();
        for tok in it {
            let (cell, c) = tok.split_once(':').unwrap();
            let f = cell.as_bytes()[0] as i32 - 'a' as i32;
            let r: i32 = cell[1..].parse::<i32>().unwrap() - 1;
            cells.insert((f, r), c.chars().next().unwrap());
        }
        Board { cells, to_move }
    }

    /// The notation: seat, then the pieces sorted by file, then rank.
    fn text(&self) -> String {
        let keys = self.cells.keys();
        let mut s = String::from(if self.to_move == 'b' {
            "black"
        } else {
            "white"
        });
        for (f, r) in keys {
            s.push_str(&format!(
                " {}:{}",
                cell_name(f, r),
                self.cells.get(&(f, r)).unwrap()
            ));
        }
        s
    }

    fn forward(&self) -> i32 {
        if self.to_move == 'b' {
            1
        } else {
            -1
        }
    }

    fn far_rank(&self) -> i32 {
        if self.to_move == 'b' {
            7
        } else {
            0
        }
    }

    fn drop_cells(&self) -> Vec<(i32, i32)> {
        let ranks = if self.to_move == 'b' { [0, 1] } else { [7, 6] };
        let mut v = Vec::new();
        for r in ranks {
            for f in 1..=6 {
                if !self.cells.contains_key(&(f, r)) {
                    v.push((f, r));
                }
            }
        }
        v
    }

    fn capture_dirs(&self) -> [(i32, i32); 5] {
        let d = self.forward();
        [(0, d), (1, d), (-1, d), (1, 0), (-1, 0)]
    }

    fn move_dirs(&self) -> [(i32, i32); 3] {
        let d = self.forward();
        [(0, d), (1, d), (-1, d)]
    }

    /// Captures open to the piece on (f, r): (over, land).
    fn captures_from(&self, f: i32, r: i32) -> Vec<((i32, i32), (i32, i32))> {
        let me = self.to_move;
        let mut v = Vec::new();
        for (df, dr) in self.capture_dirs() {
            let over = (f + df, r + dr);
            let land = (f + 2 * df, r + 2 * dr);
            if on_board(land.0, land.1)
                && self.cells.get(&over) == Some(&other(me))
                && !self.cells.contains_key(&land)
            {
                v.push((over, land));
            }
        }
        v
    }

    fn jumps_from(&self, f: i32, r: i32) -> Vec<(i32, i32)> {
        let me = self.to_move;
        let mut v = Vec::new();
        for (df, dr) in self.move_dirs() {
            let over = (f + df, r + dr);
            let land = (f + 2 * df, r + 2 * dr);
            if on_board(land.0, land.1)
                && self.cells.get(&over) == Some(&me)
                && !self.cells.contains_key(&land)
            {
                v.push(land);
            }
        }
        v
    }
}

/// Finishes a turn: the mover's man is gone to the far row; drops, then the side changes.
fn finish_with_drops(board: Board, path: String, out: &mut Vec<(String, Board)>) {
    let free = board.drop_cells();
    match free.len() {
        0 => finish(board, path, out),
        1 => {
            let mut b = board;
            let me = b.to_move;
            b.cells.insert(free[0], me);
            finish(
                b,
                format!("{path}*{}", cell_name(free[0].0, free[0].1)),
                out,
            );
        }
        _ => {
            for &a in &free {
                for &c in &free {
                    if a == c {
                        continue;
                    }
                    let mut b = board.clone();
                    let me = b.to_move;
                    b.cells.insert(a, me);
                    b.cells.insert(c, me);
                    let p = format!("{path}*{}*{}", cell_name(a.0, a.1), cell_name(c.0, c.1));
                    finish(b, p, out);
                }
            }
        }
    }
}

fn finish(mut board: Board, path: String, out: &mut Vec<(String, Board)>) {
    board.to_move = other(board.to_move);
    out.push((path, board));
}

/// Places the moving man on `land`, or removes it there when `land` is on the far row.
fn arrive(board: &mut Board, land: (i32, i32)) -> bool {
    if land.1 == board.far_rank() {
        true
    } else {
        let me = board.to_move;
        board.cells.insert(land, me);
        false
    }
}

fn capture_seq(board: Board, at: (i32, i32), path: String, out: &mut Vec<(String, Board)>) {
    let caps = board.captures_from(at.0, at.1);
    if caps.is_empty() {
        finish(board, path, out);
        return;
    }
    for (over, land) in caps {
        let mut b = board.clone();
        b.cells.remove(&at);
        b.cells.remove(&over);
        let p = format!("{path}x{}", cell_name(land.0, land.1));
        if arrive(&mut b, land) {
            finish_with_drops(b, p, out);
        } else {
            capture_seq(b, land, p, out);
        }
    }
}

fn jump_seq(board: Board, at: (i32, i32), path: String, out: &mut Vec<(String, Board)>) {
    let jumps = board.jumps_from(at.0, at.1);
    if jumps.is_empty() {
        finish(board, path, out);
        return;
    }
    for land in jumps {
        let mut b = board.clone();
        b.cells.remove(&at);
        let p = format!("{path}-{}", cell_name(land.0, land.1));
        if arrive(&mut b, land) {
            finish_with_drops(b, p, out);
        } else {
            jump_seq(b, land, p, out);
        }
    }
}

/// Every whole turn (path, resulting board), duplicates included.
fn all_turns(board: &Board) -> Vec<(String, Board)> {
    let me = board.to_move;
    let mine: Vec<(i32, i32)> = board
        .cells
        .keys()
        .into_iter()
        .filter(|k| board.cells.get(k) == Some(&me))
        .collect();
    let mut out = Vec::new();
    let any_capture = mine
        .iter()
        .any(|&(f, r)| !board.captures_from(f, r).is_empty());
    for &(f, r) in &mine {
        let start = cell_name(f, r);
        if any_capture {
            if !board.captures_from(f, r).is_empty() {
                capture_seq(board.clone(), (f, r), start.clone(), &mut out);
            }
            continue;
        }
        for (df, dr) in board.move_dirs() {
            let to = (f + df, r + dr);
            if on_board(to.0, to.1) && !board.cells.contains_key(&to) {
                let mut b = board.clone();
                b.cells.remove(&(f, r));
                let p = format!("{start}-{}", cell_name(to.0, to.1));
                if arrive(&mut b, to) {
                    finish_with_drops(b, p, &mut out);
                } else {
                    finish(b, p, &mut out);
                }
            }
        }
        if !board.jumps_from(f, r).is_empty() {
            jump_seq(board.clone(), (f, r), start.clone(), &mut out);
        }
    }
    out
}

/// Distinct children: notation -> smallest path.
fn ref_children(board: &Board) -> BTreeMap<String, String> {
    let mut m: BTreeMap<String, String> = BTreeMap::new();
    for (path, b) in all_turns(board) {
        let key = b.text();
        match m.get(&key) {
            Some(p) if *p <= path => {}
            _ => {
                m.insert(key, path);
            }
        }
    }
    m
}

fn ref_perft(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let kids: HashSet<Board> = all_turns(board).into_iter().map(|(_, b)| b).collect();
    if depth == 1 {
        return kids.len() as u64;
    }
    kids.iter().map(|b| ref_perft(b, depth - 1)).sum()
}

// ---------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------

fn rules() -> RulesConfig {
    RulesConfig::default()
}

fn pos(text: &str) -> Eximo {
    Eximo::from_notation(GameKind::Eximo, text, rules()).unwrap()
}

fn engine_children(state: &Eximo) -> BTreeMap<String, String> {
    distinct_turns(state)
        .into_iter()
        .map(|t| (t.state.to_notation(), t.path))
        .collect()
}

fn compare_children(state: &Eximo) -> usize {
    let text = state.to_notation();
    let mine = engine_children(state);
    let reference = ref_children(&Board::parse(&text));
    assert_eq!(mine, reference, "children differ for {text}");
    mine.len()
}

/// Positions at turn boundaries from seeded random playouts.
fn random_positions(seed: u64, count: usize) -> Vec<Eximo> {
    let keep = Keep::BetweenTurns(1.0 / 30.0);
    common::positions::random_positions(GameKind::Eximo, rules(), count, seed, keep)
        .iter()
        .map(|s: &Eximo| pos(&s.to_notation()))
        .collect()
}

/// Hand-built mid-game positions: drops, long jump chains, capture chains, sideways.
const MIDGAME: &[&str] = &[
    // Black man on c7 can reach the far row three ways; drop zone has 3 free squares.
    "black b1:b b2:b c1:b c2:b c7:b d1:b d2:b e1:b f1:b f2:b g2:b e5:w f6:w",
    // Only one free drop square for Black.
    "black b1:b b2:b c1:b c2:b c7:b d1:b d2:b e1:b e2:b f1:b f2:b g2:b e5:w f6:w",
    // No free drop square.
    "black b1:b b2:b c1:b c2:b c7:b d1:b d2:b e1:b e2:b f1:b f2:b g1:b g2:b e5:w f6:w",
    // Capture chains with branches, sideways captures and a capture onto the far row.
    "black d3:b d4:w c5:w e5:w d6:w b6:w f6:w c7:w g7:w e7:w h7:w",
    "black a4:b b4:w d4:w f4:w c5:w b7:w f7:w e2:b",
    // White to move: captures southwards and sideways, promotion with drops.
    "white d5:w d4:b c4:b e4:b c2:b e2:b f3:b g4:b b2:w b8:w c8:w",
    "white c2:w d3:w b7:w c7:w d7:w e7:w f7:w g7:w b8:w c8:w d8:w e8:w f8:w g8:w a5:b",
    // Friendly jump chains with choices, ending on the far row or not.
    "black b1:b b2:b c3:b c5:b d4:b d6:b e5:b e7:b f6:b b8:w a7:w",
    "black d1:b d2:b d4:b d6:b c3:b e3:b c5:b b6:b e5:b f6:b a7:w",
    // Jump chain that reaches the far row from inside the drop zone (its own cell frees).
    "black b1:b c1:b d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b c3:b c5:b c7:b h5:w",
    // Two routes of a capture sequence to the same end (a loop).
    "black c3:b c4:w b5:w d5:w c6:w b6:w d6:w h7:w",
    "white e6:w e5:b d4:b f4:b e3:b d3:b f3:b h2:w",
];

// ---------------------------------------------------------------------------------------
// Tests.
// ---------------------------------------------------------------------------------------

#[test]
fn reference_matches_start_children() {
    let s = Eximo::start(GameKind::Eximo, rules());
    assert_eq!(compare_children(&s), 40);
}

#[test]
fn perft_start_against_reference_generator() {
    let s = Eximo::start(GameKind::Eximo, rules());
    let board = Board::parse(&s.to_notation());
    let expected = [1u64, 40, 1600, 60284, 2093190];
    for (depth, &want) in expected.iter().enumerate().take(4) {
        let depth = depth as u32;
        let reference = ref_perft(&board, depth);
        let fast = s.perft(depth);
        println!("eximo perft({depth}) = {fast} (reference {reference})");
        assert_eq!(fast, reference, "depth {depth}");
        assert_eq!(fast, want, "depth {depth}");
    }
}

#[test]
fn perft_start_depth_4_against_reference_generator() {
    let s = Eximo::start(GameKind::Eximo, rules());
    let board = Board::parse(&s.to_notation());
    let reference = ref_perft(&board, 4);
    println!("eximo perft(4) = {} (reference {reference})", s.perft(4));
    assert_eq!(reference, 2_093_190);
    assert_eq!(s.perft(4), 2_093_190);
}

#[test]
fn midgame_children_against_reference_generator() {
    for text in MIDGAME {
        let s = pos(text);
        compare_children(&s);
        for depth in 1..=3 {
            assert_eq!(
                s.perft(depth),
                ref_perft(&Board::parse(text), depth),
                "{text} depth {depth}"
            );
        }
    }
}

#[test]
fn random_positions_children_against_reference_generator() {
    let mut with_drops = 0;
    let mut with_captures = 0;
    let mut with_jump_chains = 0;
    for s in random_positions(0xE1, 300) {
        compare_children(&s);
        let turns = distinct_turns(&s);
        if turns.iter().any(|t| t.path.contains('*')) {
            with_drops += 1;
        }
        if turns.iter().any(|t| t.path.contains('x')) {
            with_captures += 1;
        }
        if turns.iter().any(|t| t.path.matches('-').count() > 1) {
            with_jump_chains += 1;
        }
    }
    println!("drops {with_drops}, captures {with_captures}, jump chains {with_jump_chains}");
    assert!(
        with_drops >= 10,
        "too few positions with drops: {with_drops}"
    );
    assert!(with_captures >= 50);
    assert!(with_jump_chains >= 20);
}

#[test]
fn random_positions_perft_against_reference_generator() {
    for s in random_positions(0xE2, 40) {
        let b = Board::parse(&s.to_notation());
        for depth in 1..=2 {
            assert_eq!(s.perft(depth), ref_perft(&b, depth), "{}", s.to_notation());
        }
    }
}

/// Positions made by random placement (every legal cell, random densities), which reach
/// corners of the rules that games rarely do: crowded drop zones, men on the seventh
/// rank, long chains. Parsed through the notation (invalid ones are skipped).
#[test]
fn random_placements_children_against_reference_generator() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xE6);
    let (mut compared, mut drops, mut zero_or_one_drop) = (0, 0, 0);
    while compared < 3000 {
        let density_b = rng.gen_range(0.05..0.6);
        let density_w = rng.gen_range(0.05..0.6);
        let mut text = String::from(if rng.gen_bool(0.5) { "black" } else { "white" });
        for f in 0..8u8 {
            for r in 0..8u8 {
                let cell = format!("{}{}", (b'a' + f) as char, r + 1);
                let x: f64 = rng.gen();
                if x < density_b && r != 7 && !(r == 0 && (f == 0 || f == 7)) {
                    text.push_str(&format!(" {cell}:b"));
                } else if x < density_b + density_w && r != 0 && !(r == 7 && (f == 0 || f == 7)) {
                    text.push_str(&format!(" {cell}:w"));
                }
            }
        }
        let Ok(s) = Eximo::from_notation(GameKind::Eximo, &text, rules()) else {
            continue;
        };
        compare_children(&s);
        let turns = distinct_turns(&s);
        assert_eq!(s.perft(1), turns.len() as u64, "{text}");
        if compared % 10 == 0 {
            assert_eq!(s.perft(2), ref_perft(&Board::parse(&text), 2), "{text}");
        }
        if turns.iter().any(|t| t.path.contains('*')) {
            drops += 1;
        }
        if turns.iter().any(|t| {
            t.state.black().count_ones() + t.state.white().count_ones() + 1
                == s.black().count_ones() + s.white().count_ones()
                && !t.path.contains('x')
        }) {
            zero_or_one_drop += 1;
        }
        compared += 1;
    }
    println!(
        "random placements: {compared}, with drops {drops}, with a lost man {zero_or_one_drop}"
    );
    assert!(drops > 300);
}

#[test]
fn random_positions_perft_depth_3_against_reference_generator() {
    let mut leaves = 0;
    for s in random_positions(0xE5, 25) {
        let b = Board::parse(&s.to_notation());
        let want = ref_perft(&b, 3);
        assert_eq!(s.perft(3), want, "{}", s.to_notation());
        leaves += want;
    }
    println!("random depth-3 leaves compared: {leaves}");
}

#[test]
fn fast_perft_equals_generic_perft_start() {
    let s = Eximo::start(GameKind::Eximo, rules());
    for depth in 0..=3 {
        assert_eq!(s.perft(depth), perft_generic(&s, depth), "depth {depth}");
    }
}

#[test]
fn fast_perft_equals_generic_perft_midgame() {
    for text in MIDGAME {
        let s = pos(text);
        for depth in 1..=3 {
            assert_eq!(s.perft(depth), perft_generic(&s, depth), "{text} {depth}");
        }
    }
    for s in random_positions(0xE3, 60) {
        for depth in 1..=2 {
            assert_eq!(s.perft(depth), perft_generic(&s, depth));
        }
    }
}

#[test]
fn fast_perft_respects_ply_cap() {
    for cap in 1..=3u32 {
        let r = RulesConfig {
            ply_cap: cap,
            project_draws: true,
        };
        let s = Eximo::start(GameKind::Eximo, r);
        for depth in 0..=4 {
            assert_eq!(
                s.perft(depth),
                perft_generic(&s, depth),
                "cap {cap} depth {depth}"
            );
            if depth > cap {
                assert_eq!(s.perft(depth), 0);
            }
        }
    }
}

fn first_step(s: &Eximo) -> u16 {
    let mut v = StepList::new();
    s.legal_steps(&mut v);
    v[0]
}

fn count(bb: u64) -> i32 {
    bb.count_ones() as i32
}

/// Eximo's own rules along random playouts (the promises every game keeps, such as
/// steps existing exactly while the game goes on and the notation round trip, are
/// tests/rules/conformance.rs's).
#[test]
fn random_playouts_keep_the_eximo_rules() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xE4);
    let mut steps = StepList::new();
    let mut reasons: HashMap<String, u32> = HashMap::new();
    let mut most_men = 0;
    for game in 0..2000 {
        let cap = 60 + (game % 7) as u32 * 40;
        let r = RulesConfig {
            ply_cap: cap,
            project_draws: true,
        };
        let mut s = Eximo::start(GameKind::Eximo, r);
        let mut turn_start = s;
        let mut promotions_this_turn = 0;
        let mut step_count = 0u32;
        while s.outcome().is_none() {
            s.legal_steps(&mut steps);
            let a = *steps.choose(&mut rng).unwrap();
            let desc = s.describe_step(a);
            let mover = s.side_to_move();
            let before = s;
            s.apply_step(a);
            step_count += 1;
            assert!(step_count < 100_000);
            // Hash: incremental equals recomputed, and the side changes only at turn end.
            assert_eq!(s.position_hash(), s.compute_hash());
            let (own_b, opp_b) = if mover == Side(0) {
                (before.black(), before.white())
            } else {
                (before.white(), before.black())
            };
            let (own_a, opp_a) = if mover == Side(0) {
                (s.black(), s.white())
            } else {
                (s.white(), s.black())
            };
            match desc.kind {
                StepKind::Drop => {
                    assert_eq!(count(own_a), count(own_b) + 1);
                    assert_eq!(opp_a, opp_b);
                }
                StepKind::Capture => {
                    assert_eq!(count(opp_a), count(opp_b) - 1);
                    assert!(count(own_a) == count(own_b) || count(own_a) == count(own_b) - 1);
                }
                StepKind::Move => {
                    assert_eq!(opp_a, opp_b);
                    assert!(count(own_a) == count(own_b) || count(own_a) == count(own_b) - 1);
                }
            }
            if desc.kind != StepKind::Drop && count(own_a) == count(own_b) - 1 {
                // The man reached the far row and was removed: the sequence ends.
                promotions_this_turn += 1;
                assert!(
                    !s.turn_in_progress() || s.describe_step(first_step(&s)).kind == StepKind::Drop
                );
            }
            if s.turn_in_progress() {
                assert_eq!(s.side_to_move(), mover);
                assert!(s.outcome().is_none());
            } else {
                // Turn boundary: notation round trip, hash equals a fresh parse.
                assert_ne!(s.side_to_move(), mover);
                assert!(promotions_this_turn <= 1);
                let text = s.to_notation();
                let back = Eximo::from_notation(GameKind::Eximo, &text, r)
                    .unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(back.to_notation(), text);
                assert_eq!(back.position_hash(), s.position_hash());
                // Conservation: the opponent never gains, the mover gains at most one man.
                let (own_t, opp_t) = if mover == Side(0) {
                    (turn_start.black(), turn_start.white())
                } else {
                    (turn_start.white(), turn_start.black())
                };
                assert!(count(opp_a) <= count(opp_t));
                assert!(count(own_a) <= count(own_t) + 1);
                assert!(own_a != 0);
                most_men = most_men.max(count(own_a));
                if let Some(o) = s.outcome() {
                    match o.reason {
                        checkers_zero::game::EndReason::PlyCap => {
                            assert_eq!(o.winner, None);
                            assert_eq!(s.turns_played(), cap);
                            assert!(back.outcome().is_none() || back.outcome() == s.outcome());
                        }
                        _ => {
                            assert_eq!(o.winner, Some(mover));
                            assert_eq!(back.outcome(), s.outcome());
                        }
                    }
                } else {
                    assert!(back.outcome().is_none());
                }
                turn_start = s;
                promotions_this_turn = 0;
            }
        }
        assert!(s.turns_played() <= cap);
        *reasons
            .entry(format!("{:?}", s.outcome().unwrap().reason))
            .or_default() += 1;
    }
    println!("game ends: {reasons:?}; most men of one colour: {most_men}");
    // Drops free a man: a colour can own more than its 16 men of the start.
    assert!(most_men > 16);
}

/// Deeper cross-check, too slow for the default run:
/// `cargo test --release --test rules eximo_perft:: -- --ignored`.
#[test]
#[ignore]
fn perft_start_depth_5_generic_and_reference() {
    let s = Eximo::start(GameKind::Eximo, rules());
    let fast = s.perft(5);
    let generic = perft_generic(&s, 5);
    let reference = ref_perft(&Board::parse(&s.to_notation()), 5);
    println!("eximo perft(5) = {fast} (generic {generic}, reference {reference})");
    assert_eq!(fast, 68_336_644);
    assert_eq!(generic, fast);
    assert_eq!(reference, fast);
}
