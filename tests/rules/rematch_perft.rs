//! ReMATCH: cross-check of the rules core against a deliberately simple, independent
//! whole-turn generator written here (HashMap board of char stacks, recursive sequences,
//! BTreeSet of canonical position strings), plus random-playout invariants and the fast
//! perft against the generic one.
use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::positions::Keep;

use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::turns::{distinct_turns, for_each_turn, perft_generic};
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------
// The independent reference generator.
// ---------------------------------------------------------------------------------------

const DIRS: [(i32, i32); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)];

fn on_board(p: (i32, i32)) -> bool {
    (0..5).contains(&p.0) && (0..5).contains(&p.1) && (p.0 - p.1).abs() <= 2
}

/// A position of the reference: stacks bottom→top as strings of 'R' 'W' 'O'.
#[derive(Clone, Debug)]
struct Pos {
    board: HashMap<(i32, i32), String>,
    /// 'R' when Red is to move, else the Team colour named by the seat token.
    seat: char,
    /// Team colour due next (when Red is to move).
    due: char,
    quiet: u32,
}

fn other(c: char) -> char {
    if c == 'W' {
        'O'
    } else {
        'W'
    }
}

fn cell_name(p: (i32, i32)) -> String {
    format!("{}{}", (b'a' + p.0 as u8) as char, p.1 + 1)
}

fn parse_ref(text: &str) -> Pos {
    let mut it = text.split_whitespace();
    let seat = match it.next().unwrap() {
        "red" => 'R',
        "white" => 'W',
        "orange" => 'O',
        s => panic!("seat {s}"),
    };
    let mut pos = Pos {
        board: HashMap::new(),
        seat,
        due: 'W',
        quiet: 0,
    };
    for tok in it {
        if let Some((k, v)) = tok.split_once('=') {
            match k {
                "team" => pos.due = if v == "white" { 'W' } else { 'O' },
                "quiet" => pos.quiet = v.parse().unwrap(),
                _ => panic!("{k}"),
            }
        } else {
            let (c, s) = tok.split_once(':').unwrap();
            let b = c.as_bytes();
            let f = (b[0] - b'a') as i32;
            let r: i32 = c[1..].parse::<i32>().unwrap() - 1;
            pos.board.insert((f, r), s.to_string());
        }
    }
    pos
}

fn top_of(s: &str) -> char {
    s.chars().last().unwrap()
}

fn has_top(board: &HashMap<(i32, i32), String>, c: char) -> bool {
    board.values().any(|s| top_of(s) == c)
}

/// The colour that actually moves.
fn mover(pos: &Pos) -> char {
    if pos.seat == 'R' {
        'R'
    } else if has_top(&pos.board, pos.seat) {
        pos.seat
    } else {
        other(pos.seat)
    }
}

fn write_ref(board: &HashMap<(i32, i32), String>, seat: char, due: char, quiet: u32) -> String {
    let mut cells: Vec<(&(i32, i32), &String)> = board.iter().collect();
    cells.sort();
    let mut out = match seat {
        'R' => "red".to_string(),
        'W' => "white".to_string(),
        _ => "orange".to_string(),
    };
    for (p, s) in cells {
        out.push_str(&format!(" {}:{}", cell_name(*p), s));
    }
    if seat == 'R' && due == 'O' {
        out.push_str(" team=orange");
    }
    if quiet > 0 {
        out.push_str(&format!(" quiet={quiet}"));
    }
    out
}

/// Captures open to the stack at `from` (colour `me`): (victim, landing).
fn captures(
    board: &HashMap<(i32, i32), String>,
    from: (i32, i32),
    me: char,
    jumped: &BTreeSet<(i32, i32)>,
) -> Vec<((i32, i32), (i32, i32))> {
    let mut out = Vec::new();
    for (df, dr) in DIRS {
        let mut p = (from.0 + df, from.1 + dr);
        while on_board(p) {
            match board.get(&p) {
                None => {
                    if me != 'R' {
                        break;
                    }
                }
                Some(s) => {
                    let beyond = (p.0 + df, p.1 + dr);
                    if top_of(s) != me
                        && !jumped.contains(&p)
                        && on_board(beyond)
                        && !board.contains_key(&beyond)
                    {
                        out.push((p, beyond));
                    }
                    break;
                }
            }
            p = (p.0 + df, p.1 + dr);
        }
    }
    out
}

fn is_adjacent(a: (i32, i32), b: (i32, i32)) -> bool {
    DIRS.iter().any(|&(df, dr)| (a.0 + df, a.1 + dr) == b)
}

/// Recursively plays out capture sequences; collects the final boards.
fn sequences(
    board: &HashMap<(i32, i32), String>,
    at: (i32, i32),
    me: char,
    jumped: &BTreeSet<(i32, i32)>,
    out: &mut Vec<HashMap<(i32, i32), String>>,
) {
    let caps = captures(board, at, me, jumped);
    if caps.is_empty() {
        out.push(board.clone());
        return;
    }
    for (victim, land) in caps {
        let mut b = board.clone();
        let mut jumper = b.remove(&at).unwrap();
        let mut v = b.remove(&victim).unwrap();
        let taken = v.pop().unwrap();
        jumper.insert(0, taken);
        let mut j = jumped.clone();
        if !v.is_empty() {
            b.insert(victim, v);
            j.insert(victim);
        }
        b.insert(land, jumper);
        sequences(&b, land, me, &j, out);
    }
}

/// Is the game over at this turn boundary? (no tops, quiet draw, blocked)
fn ref_game_over(pos: &Pos) -> bool {
    if !has_top(&pos.board, 'R') || !(has_top(&pos.board, 'W') || has_top(&pos.board, 'O')) {
        return true;
    }
    if pos.quiet >= 40 {
        return true;
    }
    ref_children_raw(pos).is_empty()
}

/// The distinct child positions (as notation strings), ignoring whether the game is over.
fn ref_children_raw(pos: &Pos) -> BTreeSet<String> {
    let me = mover(pos);
    let own: Vec<(i32, i32)> = pos
        .board
        .iter()
        .filter(|(_, s)| top_of(s) == me)
        .map(|(p, _)| *p)
        .collect();
    let none = BTreeSet::new();
    let forced = own.iter().any(|&p| {
        captures(&pos.board, p, me, &none)
            .iter()
            .any(|&(v, _)| is_adjacent(p, v))
    });
    let mut ends_capture = Vec::new();
    let mut ends_move = Vec::new();
    if forced || me == 'R' {
        for &p in &own {
            for (victim, land) in captures(&pos.board, p, me, &none) {
                let mut b = pos.board.clone();
                let mut jumper = b.remove(&p).unwrap();
                let mut v = b.remove(&victim).unwrap();
                jumper.insert(0, v.pop().unwrap());
                let mut j = BTreeSet::new();
                if !v.is_empty() {
                    b.insert(victim, v);
                    j.insert(victim);
                }
                b.insert(land, jumper);
                sequences(&b, land, me, &j, &mut ends_capture);
            }
        }
    }
    if !forced {
        for &p in &own {
            for (df, dr) in DIRS {
                let q = (p.0 + df, p.1 + dr);
                if on_board(q) && !pos.board.contains_key(&q) {
                    let mut b = pos.board.clone();
                    let s = b.remove(&p).unwrap();
                    b.insert(q, s);
                    ends_move.push(b);
                }
            }
        }
    }
    let next = |b: &HashMap<(i32, i32), String>, quiet: u32| -> String {
        if me == 'R' {
            // The Team moves next: the colour due, or the other if the due one tops nothing.
            let due = pos.due;
            let seat = if has_top(b, due) || !has_top(b, other(due)) {
                due
            } else {
                other(due)
            };
            write_ref(b, seat, seat, quiet)
        } else {
            write_ref(b, 'R', other(me), quiet)
        }
    };
    let mut out = BTreeSet::new();
    for b in &ends_capture {
        out.insert(next(b, 0));
    }
    for b in &ends_move {
        out.insert(next(b, pos.quiet + 1));
    }
    out
}

fn ref_children(text: &str) -> BTreeSet<String> {
    let pos = parse_ref(text);
    if ref_game_over(&pos) {
        return BTreeSet::new();
    }
    ref_children_raw(&pos)
}

fn ref_perft(text: &str, depth: u32, memo: &mut HashMap<(String, u32), u64>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if let Some(&n) = memo.get(&(text.to_string(), depth)) {
        return n;
    }
    let children = ref_children(text);
    let n = if depth == 1 {
        children.len() as u64
    } else {
        children.iter().map(|c| ref_perft(c, depth - 1, memo)).sum()
    };
    memo.insert((text.to_string(), depth), n);
    n
}

// ---------------------------------------------------------------------------------------
// Helpers on the core.
// ---------------------------------------------------------------------------------------

fn rules() -> RulesConfig {
    RulesConfig {
        ply_cap: 0,
        project_draws: true,
    }
}

fn core(text: &str) -> Rematch {
    Rematch::from_notation(GameKind::Rematch, text, rules()).unwrap()
}

fn core_children(state: &Rematch) -> BTreeSet<String> {
    distinct_turns(state)
        .into_iter()
        .map(|t| t.state.to_notation())
        .collect()
}

const START: &str = "white a1:R a2:R b1:R b2:R d2:W d3:W e3:W e4:W b4:O c4:O c5:O d5:O";

/// Mid-game positions with tall stacks, flying captures, blocked colours and fall-backs.
const MIDGAME: &[&str] = &[
    // Red with flying options and a tall mixed stack.
    "red a1:R b3:WOW c3:R d4:O e5:OW a3:R b2:R c1:O e3:W",
    // Team to move, White tops nothing: Orange moves (fall-back).
    "white a1:WRR b2:WO c3:O d4:R e3:WO e4:WO e5:R",
    // Orange due, long capture chains available.
    "orange a2:W b2:O b3:R c3:W c4:R d4:O d3:W e4:O c2:R d2:W b1:R e3:O",
    // A 12-high stack and lone tops.
    "white c3:RRWWOOWORWOR",
    "red c3:RRWOOWOWORR e5:W",
    "white a1:RRWWOOWOR e5:W c3:R e3:O",
    // Red flying across the board, several targets.
    "red a1:R c3:W e5:O e3:O a3:W b4:W c5:O b1:R d2:O c1:W d5:R e4:R",
    // Team capture race: White and Orange capture each other.
    "white b2:W b3:O c3:W c4:O d4:W d3:O a1:RRR e5:W e3:R c1:O",
    "red b2:W b3:O c3:R c4:O d4:W d3:O a1:WRR e5:W e3:R c1:O team=orange quiet=7",
];

#[test]
fn start_perft_to_depth_8_matches_reference_and_known_values() {
    let known = [7u64, 34, 97, 477, 1631, 8334, 32315, 171048];
    let state = core(START);
    let mut memo = HashMap::new();
    for (i, &want) in known.iter().enumerate() {
        let d = i as u32 + 1;
        let reference = ref_perft(START, d, &mut memo);
        let fast = state.perft(d);
        println!("perft({d}) = {fast} (reference {reference})");
        assert_eq!(reference, want, "reference perft({d})");
        assert_eq!(fast, want, "core perft({d})");
    }
}

#[test]
fn midgame_child_sets_match_reference() {
    for text in MIDGAME {
        let state = core(text);
        let ours = core_children(&state);
        let theirs = ref_children(&state.to_notation());
        assert_eq!(ours, theirs, "children of {text}");
    }
}

#[test]
fn midgame_perft_matches_reference_and_generic() {
    let mut memo = HashMap::new();
    for text in MIDGAME {
        let state = core(text);
        for d in 1..=3 {
            let fast = state.perft(d);
            let generic = perft_generic(&state, d);
            let reference = ref_perft(&state.to_notation(), d, &mut memo);
            assert_eq!(fast, generic, "fast vs generic perft({d}) of {text}");
            assert_eq!(fast, reference, "fast vs reference perft({d}) of {text}");
        }
    }
}

#[test]
fn start_fast_perft_equals_generic() {
    let state = core(START);
    for d in 1..=6 {
        assert_eq!(state.perft(d), perft_generic(&state, d), "depth {d}");
    }
}

/// Positions between turns of random playouts from the start.
fn random_positions(count: usize, seed: u64) -> Vec<Rematch> {
    let keep = Keep::BetweenTurns(1.0 / 30.0);
    common::positions::random_positions(GameKind::Rematch, rules(), count, seed, keep)
}

#[test]
fn random_position_child_sets_match_reference() {
    let mut tall = 0;
    let mut with_flying = 0;
    for state in random_positions(400, 11) {
        let text = state.to_notation();
        let ours = core_children(&state);
        let theirs = ref_children(&text);
        assert_eq!(ours, theirs, "children of {text}");
        if text.split_whitespace().any(|t| t.len() > 6) {
            tall += 1;
        }
        let mut flying = false;
        for_each_turn(&state, |_, steps, _| {
            if steps.iter().any(|&a| a % 4 >= 2) {
                flying = true;
            }
        });
        with_flying += flying as usize;
    }
    println!("random positions: {tall} with stacks of 4+, {with_flying} with flying captures");
    assert!(tall > 20 && with_flying > 10);
}

/// Random setups: the 12 pieces shuffled into random stacks on random hexes, a random seat
/// and counters. Many are unreachable in play but legal in the notation; they exercise tall
/// stacks, long flying lines, fall-backs and blocked seats far more than playouts do.
fn random_setups(count: usize, seed: u64) -> Vec<Rematch> {
    const CELLS: [&str; 19] = [
        "a1", "b1", "c1", "a2", "b2", "c2", "d2", "a3", "b3", "c3", "d3", "e3", "b4", "c4", "d4",
        "e4", "c5", "d5", "e5",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pieces: Vec<char> = "RRRRWWWWOOOO".chars().collect();
        for i in (1..pieces.len()).rev() {
            pieces.swap(i, rng.gen_range(0..=i));
        }
        let mut cells: Vec<&str> = CELLS.to_vec();
        for i in (1..cells.len()).rev() {
            cells.swap(i, rng.gen_range(0..=i));
        }
        let stacks = rng.gen_range(3..=12);
        let mut contents = vec![String::new(); stacks];
        for (i, p) in pieces.iter().enumerate() {
            let k = if i < stacks {
                i
            } else {
                rng.gen_range(0..stacks)
            };
            contents[k].push(*p);
        }
        let seat = ["red", "white", "orange"][rng.gen_range(0..3)];
        let mut text = seat.to_string();
        for (k, c) in contents.iter().enumerate() {
            text.push_str(&format!(" {}:{}", cells[k], c));
        }
        if seat == "red" && rng.gen_bool(0.5) {
            text.push_str(" team=orange");
        }
        if rng.gen_bool(0.3) {
            text.push_str(&format!(" quiet={}", rng.gen_range(0..=40)));
        }
        if let Ok(state) = Rematch::from_notation(GameKind::Rematch, &text, rules()) {
            out.push(state);
        }
    }
    out
}

#[test]
fn random_setup_child_sets_and_perft_match_reference() {
    let mut memo = HashMap::new();
    let mut flying = 0;
    let mut over = 0;
    for (i, state) in random_setups(3000, 21).into_iter().enumerate() {
        let text = state.to_notation();
        assert_eq!(
            core_children(&state),
            ref_children(&text),
            "children of {text}"
        );
        over += state.outcome().is_some() as usize;
        for_each_turn(&state, |_, steps, _| {
            if steps.iter().any(|&a| a % 4 >= 2) {
                flying += 1;
            }
        });
        if i % 10 == 0 {
            for d in 2..=3 {
                let fast = state.perft(d);
                assert_eq!(fast, perft_generic(&state, d), "depth {d} of {text}");
                assert_eq!(fast, ref_perft(&text, d, &mut memo), "depth {d} of {text}");
            }
        }
    }
    println!("random setups: {flying} flying-capture turns, {over} finished positions");
    assert!(flying > 100 && over > 10);
}

#[test]
fn random_position_perft_fast_equals_generic_and_reference() {
    let mut memo = HashMap::new();
    for state in random_positions(60, 12) {
        let text = state.to_notation();
        for d in 1..=3 {
            let fast = state.perft(d);
            assert_eq!(fast, perft_generic(&state, d), "depth {d} of {text}");
            assert_eq!(fast, ref_perft(&text, d, &mut memo), "depth {d} of {text}");
        }
    }
}

fn colour_counts(state: &Rematch) -> [u32; 3] {
    let mut counts = [0; 3];
    for c in 0..19 {
        for colour in state.stack_colours(c) {
            counts[colour as usize] += 1;
        }
    }
    counts
}

fn stacks_by_cell(state: &Rematch) -> BTreeMap<usize, Vec<u8>> {
    (0..19)
        .filter(|&c| state.stack(c) != 0)
        .map(|c| (c, state.stack_colours(c)))
        .collect()
}

/// ReMATCH's own rules along random playouts (the promises every game keeps, such as
/// steps existing exactly while the game goes on and the notation round trip, are
/// tests/rules/conformance.rs's).
#[test]
fn random_playouts_keep_the_stack_rules() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut steps = StepList::new();
    let mut endings: HashMap<String, usize> = HashMap::new();
    for game in 0..3000 {
        let kind = if game % 2 == 0 {
            GameKind::Rematch
        } else {
            GameKind::Rematch3
        };
        let mut state = Rematch::start(kind, RulesConfig::default());
        let mut turns = 0;
        while state.outcome().is_none() {
            let before = stacks_by_cell(&state);
            let quiet_before = state.quiet();
            let mover = state.colour_to_move();
            let seat = state.seat_to_move();
            // 3-player seats follow the colour that moves.
            if kind == GameKind::Rematch3 {
                assert_eq!(seat.0, mover);
            } else {
                assert_eq!(seat.0, (mover != 0) as u8);
            }
            assert_eq!(state.side_of(seat).0, (mover != 0) as u8);
            let mut jumped_tops: Vec<u8> = Vec::new();
            let mut origin = None;
            let mut at = None;
            loop {
                state.legal_steps(&mut steps);
                let a = steps[rng.gen_range(0..steps.len())];
                let desc = state.describe_step(a);
                if origin.is_none() {
                    origin = desc.from;
                } else {
                    assert_eq!(desc.from, at, "the same stack continues the sequence");
                }
                let mid = stacks_by_cell(&state);
                if desc.kind == checkers_zero::game::StepKind::Capture {
                    // The jumped hex lies between from and to on the line; its top is taken.
                    let from = desc.from.unwrap();
                    let (df, dr) = (
                        desc.to.file as i32 - from.file as i32,
                        desc.to.rank as i32 - from.rank as i32,
                    );
                    let len = df.abs().max(dr.abs());
                    let victim = (
                        (from.file as i32 + df / len * (len - 1)) as u8,
                        (from.rank as i32 + dr / len * (len - 1)) as u8,
                    );
                    let vcell = (0..19)
                        .find(|&c| checkers_zero::game::rematch::COORDS[c] == victim)
                        .unwrap();
                    let vstack = &mid[&vcell];
                    jumped_tops.push(*vstack.last().unwrap());
                }
                // (apply_step checks its incremental hash in debug builds, which tests are.)
                state.apply_step(a);
                at = Some(desc.to);
                if !state.turn_in_progress() {
                    break;
                }
            }
            turns += 1;
            // Conservation: 12 pieces, 4 of each colour, no empty stack.
            assert_eq!(colour_counts(&state), [4, 4, 4]);
            let after = stacks_by_cell(&state);
            assert!(after.values().all(|s| !s.is_empty()));
            // The moving stack: its old contents with the jumped tops below, last jumped lowest.
            let o = (0..19)
                .find(|&c| {
                    checkers_zero::game::rematch::COORDS[c] == {
                        let o = origin.unwrap();
                        (o.file, o.rank)
                    }
                })
                .unwrap();
            let t = (0..19)
                .find(|&c| {
                    checkers_zero::game::rematch::COORDS[c] == {
                        let o = at.unwrap();
                        (o.file, o.rank)
                    }
                })
                .unwrap();
            let mut expected: Vec<u8> = jumped_tops.iter().rev().copied().collect();
            expected.extend(before[&o].iter());
            assert_eq!(after[&t], expected, "moving stack");
            assert_eq!(*expected.last().unwrap(), mover);
            // Every other stack lost at most its top (each at most once).
            let mut lost = 0;
            for (c, s) in &before {
                if *c == o {
                    continue;
                }
                match after.get(c) {
                    Some(a) if *c != t => {
                        if a != s {
                            assert_eq!(a.as_slice(), &s[..s.len() - 1]);
                            lost += 1;
                        }
                    }
                    _ => {
                        // The hex is empty now (or the mover landed there): a single piece
                        // was taken.
                        assert_eq!(s.len(), 1, "a whole stack vanished");
                        lost += 1;
                    }
                }
            }
            assert_eq!(lost, jumped_tops.len());
            if jumped_tops.is_empty() {
                assert_eq!(state.quiet(), quiet_before + 1);
            } else {
                assert_eq!(state.quiet(), 0);
            }
        }
        assert!(turns <= 1000);
        let o = state.outcome().unwrap();
        *endings
            .entry(format!("{:?} {:?}", o.winner, o.reason))
            .or_default() += 1;
    }
    println!("endings: {endings:?}");
    assert!(endings.len() >= 3);
}
