//! HexDame perft and invariants: an independent, deliberately simple move generator (hash
//! map board, recursive capture sequences, BTreeMap dedup of canonical strings) checked
//! against the rules core, plus random-playout invariants and fast-perft == generic perft.

use std::collections::{BTreeMap, HashMap};

use checkers_zero::game::hexdame::HexDame;
use checkers_zero::game::turns::{distinct_turns, perft_generic};
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------
// The independent generator.
// ---------------------------------------------------------------------------------------

/// Board: (file, rank) 0-based → 'w' 'r' 'W' 'R'.
#[derive(Clone, Debug)]
struct Pos {
    board: HashMap<(i32, i32), char>,
    white_to_move: bool,
    quiet: u32,
}

const DIRS: [(i32, i32); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

fn on_board(c: (i32, i32)) -> bool {
    (0..9).contains(&c.0) && (0..9).contains(&c.1) && (c.0 - c.1).abs() <= 4
}

fn name(c: (i32, i32)) -> String {
    format!("{}{}", (b'a' + c.0 as u8) as char, c.1 + 1)
}

fn is_white(p: char) -> bool {
    p == 'w' || p == 'W'
}

fn is_king(p: char) -> bool {
    p.is_ascii_uppercase()
}

fn parse(text: &str) -> Pos {
    let mut it = text.split_whitespace();
    let white_to_move = it.next().unwrap() == "white";
    let mut board = HashMap::new();
    let mut quiet = 0;
    for tok in it {
        if let Some(v) = tok.strip_prefix("quiet=") {
            quiet = v.parse().unwrap();
            continue;
        }
        let (cell, p) = tok.split_once(':').unwrap();
        let f = cell.as_bytes()[0] as i32 - b'a' as i32;
        let r: i32 = cell[1..].parse::<i32>().unwrap() - 1;
        board.insert((f, r), p.chars().next().unwrap());
    }
    Pos {
        board,
        white_to_move,
        quiet,
    }
}

fn canonical(p: &Pos) -> String {
    let mut cells: Vec<_> = p.board.iter().collect();
    cells.sort();
    let mut s = String::from(if p.white_to_move { "white" } else { "red" });
    for (c, v) in cells {
        s.push_str(&format!(" {}:{}", name(*c), v));
    }
    if p.quiet > 0 {
        s.push_str(&format!(" quiet={}", p.quiet));
    }
    s
}

fn back_rank(c: (i32, i32), white: bool) -> bool {
    if white {
        c.0 == 8 || c.1 == 8
    } else {
        c.0 == 0 || c.1 == 0
    }
}

/// A finished capture sequence: path cells, final cell, captured cells.
struct Seq {
    path: Vec<(i32, i32)>,
    captured: Vec<(i32, i32)>,
}

/// Recursively extends a capture sequence. `board` has the mover removed; captured pieces
/// stay on it (they block) and are listed in `captured`.
fn extend(
    board: &HashMap<(i32, i32), char>,
    white: bool,
    king: bool,
    path: &mut Vec<(i32, i32)>,
    captured: &mut Vec<(i32, i32)>,
    out: &mut Vec<Seq>,
) {
    let at = *path.last().unwrap();
    let mut any = false;
    for d in DIRS {
        // Find the piece to jump.
        let mut k = 1;
        let target;
        loop {
            let c = (at.0 + d.0 * k, at.1 + d.1 * k);
            if !on_board(c) {
                target = None;
                break;
            }
            if let Some(&p) = board.get(&c) {
                target = Some((c, p));
                break;
            }
            if !king {
                target = None;
                break;
            }
            k += 1;
        }
        let Some((tc, tp)) = target else { continue };
        if is_white(tp) == white || captured.contains(&tc) {
            continue;
        }
        let mut j = 1;
        loop {
            let land = (tc.0 + d.0 * j, tc.1 + d.1 * j);
            if !on_board(land) || board.contains_key(&land) {
                break;
            }
            any = true;
            path.push(land);
            captured.push(tc);
            extend(board, white, king, path, captured, out);
            captured.pop();
            path.pop();
            if !king {
                break;
            }
            j += 1;
        }
    }
    if !any && !captured.is_empty() {
        out.push(Seq {
            path: path.clone(),
            captured: captured.clone(),
        });
    }
}

/// Children: canonical position → smallest path.
fn children(p: &Pos) -> BTreeMap<String, String> {
    let white = p.white_to_move;
    let mut seqs = Vec::new();
    let mut own: Vec<_> = p
        .board
        .iter()
        .filter(|(_, &v)| is_white(v) == white)
        .map(|(c, v)| (*c, *v))
        .collect();
    own.sort();
    for &(c, v) in &own {
        let mut b = p.board.clone();
        b.remove(&c);
        extend(
            &b,
            white,
            is_king(v),
            &mut vec![c],
            &mut Vec::new(),
            &mut seqs,
        );
    }
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut add = |pos: Pos, path: String| {
        let key = canonical(&pos);
        match out.get(&key) {
            Some(old) if *old <= path => {}
            _ => {
                out.insert(key, path);
            }
        }
    };
    let max = seqs.iter().map(|s| s.captured.len()).max().unwrap_or(0);
    if max > 0 {
        for s in seqs.iter().filter(|s| s.captured.len() == max) {
            let from = s.path[0];
            let to = *s.path.last().unwrap();
            let mut b = p.board.clone();
            let mut piece = b.remove(&from).unwrap();
            for c in &s.captured {
                b.remove(c);
            }
            if !is_king(piece) && back_rank(to, white) {
                piece = piece.to_ascii_uppercase();
            }
            b.insert(to, piece);
            let path: Vec<String> = s.path.iter().map(|&c| name(c)).collect();
            add(
                Pos {
                    board: b,
                    white_to_move: !white,
                    quiet: 0,
                },
                path.join("x"),
            );
        }
        return out;
    }
    for &(c, v) in &own {
        let dirs: &[(i32, i32)] = if is_king(v) {
            &DIRS
        } else if white {
            &DIRS[0..3]
        } else {
            &DIRS[3..6]
        };
        for d in dirs {
            let mut k = 1;
            loop {
                let t = (c.0 + d.0 * k, c.1 + d.1 * k);
                if !on_board(t) || p.board.contains_key(&t) {
                    break;
                }
                let mut b = p.board.clone();
                b.remove(&c);
                let mut piece = v;
                if !is_king(piece) && back_rank(t, white) {
                    piece = piece.to_ascii_uppercase();
                }
                b.insert(t, piece);
                add(
                    Pos {
                        board: b,
                        white_to_move: !white,
                        quiet: if is_king(v) { p.quiet + 1 } else { 0 },
                    },
                    format!("{}-{}", name(c), name(t)),
                );
                if !is_king(v) {
                    break;
                }
                k += 1;
            }
        }
    }
    out
}

/// Independent perft (no draw rules: only used where none can apply).
fn simple_perft(p: &Pos, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let own_pieces = p
        .board
        .values()
        .filter(|&&v| is_white(v) == p.white_to_move)
        .count();
    if own_pieces == 0 {
        return 0;
    }
    let ch = children(p);
    if depth == 1 {
        return ch.len() as u64;
    }
    ch.keys().map(|k| simple_perft(&parse(k), depth - 1)).sum()
}

/// The core's children: notation → smallest path.
fn core_children(s: &HexDame) -> BTreeMap<String, String> {
    distinct_turns(s)
        .into_iter()
        .map(|t| (t.state.to_notation(), t.path))
        .collect()
}

fn hd(text: &str) -> HexDame {
    HexDame::from_notation(GameKind::Hexdame, text, RulesConfig::default())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn start() -> HexDame {
    HexDame::start(GameKind::Hexdame, RulesConfig::default())
}

fn assert_same_children(s: &HexDame) {
    let ours = core_children(s);
    let theirs = children(&parse(&s.to_notation()));
    if ours != theirs {
        let a: Vec<_> = ours
            .iter()
            .filter(|(k, _)| !theirs.contains_key(*k))
            .collect();
        let b: Vec<_> = theirs
            .iter()
            .filter(|(k, _)| !ours.contains_key(*k))
            .collect();
        panic!(
            "children differ for {}\n{}\nonly core: {a:#?}\nonly reference: {b:#?}\ncore paths {:?}\nref paths {:?}",
            s.to_notation(),
            s.render(),
            ours.values().collect::<Vec<_>>(),
            theirs.values().collect::<Vec<_>>()
        );
    }
}

/// Mid-game positions with kings, flying captures, long sequences and promotions.
const MID_GAME: &[&str] = &[
    "white a1:w b2:W c3:w e5:R e6:r f5:r g7:r h8:R d5:r c5:r",
    "red a1:W b3:w c4:w d4:W d6:w e7:w f6:R g8:r h9:r i5:R e4:w",
    "white e5:W d5:r c5:r e6:r e7:r f6:r g6:r f5:r d4:r",
    "white a1:W c3:r c5:r e5:r e3:r g5:r g7:r e7:r i9:R",
    "red i9:R g7:w e5:w c3:w g5:w e3:w c5:w e7:w a1:W",
    "white d7:w e8:r c6:r d6:r h7:r g4:R b2:R",
    "red f3:r d3:w c2:w e2:w b1:W a4:w h8:W g6:w f4:w",
    "white b2:W f6:R f4:R d6:R b4:R h8:R d2:R e5:w quiet=7",
    "red e5:R d4:W c3:W f6:W g7:W e6:W d5:W f5:W e4:W",
    "white a1:w a2:w b1:w b2:w c3:w d4:w e5:r f6:r g7:r h8:r i9:R",
];

/// A random position: 1..=`max_per_side` pieces a side on random cells, a random share of
/// kings (men on their own promotion line are made kings), a random side to move.
fn random_position(rng: &mut ChaCha8Rng, max_per_side: usize) -> Pos {
    let mut cells: Vec<(i32, i32)> = (0..9)
        .flat_map(|r| (0..9).map(move |f| (f, r)))
        .filter(|&c| on_board(c))
        .collect();
    cells.shuffle(rng);
    let nw = rng.gen_range(1..=max_per_side);
    let nr = rng.gen_range(1..=max_per_side);
    let king_p = rng.gen_range(0.0..1.0);
    let mut board = HashMap::new();
    for (i, &c) in cells.iter().take(nw + nr).enumerate() {
        let white = i < nw;
        let king = rng.gen_bool(king_p) || back_rank(c, white);
        let ch = match (white, king) {
            (true, false) => 'w',
            (true, true) => 'W',
            (false, false) => 'r',
            (false, true) => 'R',
        };
        board.insert(c, ch);
    }
    Pos {
        board,
        white_to_move: rng.gen_bool(0.5),
        quiet: 0,
    }
}

#[test]
fn reference_generator_agrees_on_start_perft_1_to_4() {
    let expected = [15u64, 211, 3337, 51589];
    println!("HexDame start perft 1-6: 15 211 3337 51589 848774 13660774");
    let reference = parse(&start().to_notation());
    for (i, &e) in expected.iter().enumerate() {
        let d = i as u32 + 1;
        assert_eq!(simple_perft(&reference, d), e, "reference perft {d}");
        assert_eq!(start().perft(d), e, "core perft {d}");
    }
}

#[test]
fn known_start_perft_values_fast_generator() {
    // Both generators agree on depths 1-4 (test above); deeper values from the fast one.
    assert_eq!(start().perft(5), 848_774);
    assert_eq!(start().perft(6), 13_660_774);
}

#[test]
fn reference_generator_agrees_on_start_children() {
    assert_same_children(&start());
    assert_eq!(core_children(&start()).len(), 15);
}

#[test]
fn reference_generator_agrees_on_mid_game_children() {
    for text in MID_GAME {
        assert_same_children(&hd(text));
    }
}

#[test]
fn reference_generator_agrees_on_mid_game_perft_3() {
    for text in MID_GAME {
        let s = hd(text);
        let p = parse(&s.to_notation());
        assert_eq!(s.perft(3), simple_perft(&p, 3), "{text}");
    }
}

/// Random positions, kings in plenty: the child sets must be identical.
#[test]
fn reference_generator_agrees_on_random_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x4d45);
    let mut checked = 0;
    while checked < 400 {
        let pos = random_position(&mut rng, 10);
        let s = hd(&canonical(&pos));
        assert_eq!(s.to_notation(), canonical(&pos));
        assert_same_children(&s);
        checked += 1;
    }
}

/// The position after up to `turns` whole turns of random play from the start (fewer if
/// the game ends first).
fn play_random_turns(rng: &mut ChaCha8Rng, steps: &mut StepList, turns: u32) -> HexDame {
    let mut s = start();
    let mut t = 0;
    while t < turns && s.outcome().is_none() {
        s.legal_steps(steps);
        s.apply_step(*steps.choose(rng).unwrap());
        if !s.turn_in_progress() {
            t += 1;
        }
    }
    s
}

/// Positions reached by random playouts from the start.
#[test]
fn reference_generator_agrees_on_playout_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut steps = StepList::new();
    let mut checked = 0;
    let mut with_kings = 0;
    while checked < 300 {
        let turns = rng.gen_range(5..160);
        let s = play_random_turns(&mut rng, &mut steps, turns);
        if s.outcome().is_none() {
            assert_same_children(&s);
            if s.to_notation().contains(['W', 'R']) {
                with_kings += 1;
            }
            checked += 1;
        }
    }
    assert!(with_kings > 20, "only {with_kings} positions with kings");
}

// ---------------------------------------------------------------------------------------
// Fast perft == generic perft.
// ---------------------------------------------------------------------------------------

#[test]
fn fast_perft_equals_generic_perft_start() {
    for d in 1..=4 {
        assert_eq!(start().perft(d), perft_generic(&start(), d), "depth {d}");
    }
}

#[test]
fn fast_perft_equals_generic_perft_mid_game() {
    for text in MID_GAME {
        let s = hd(text);
        for d in 1..=3 {
            assert_eq!(s.perft(d), perft_generic(&s, d), "{text} depth {d}");
        }
    }
}

#[test]
fn fast_perft_respects_draw_rules() {
    // No-progress draw inside the tree.
    let s = hd("white a1:W i9:R e5:w f9:r quiet=47");
    for d in 1..=4 {
        assert_eq!(s.perft(d), perft_generic(&s, d), "quiet depth {d}");
    }
    // Ply cap inside the tree.
    let rules = RulesConfig {
        ply_cap: 2,
        project_draws: true,
    };
    let s = HexDame::start(GameKind::Hexdame, rules);
    assert_eq!(s.perft(3), perft_generic(&s, 3));
    assert_eq!(s.perft(3), 0);
    assert_eq!(s.perft(2), 211);
    // Repetition inside the tree: two kings shuffle so the root recurs.
    let mut s = hd("white a1:W i9:R");
    for path in ["a1-a2", "i9-i8", "a2-a1", "i8-i9"] {
        s = checkers_zero::game::turns::parse_turn(&s, path)
            .unwrap()
            .state;
    }
    assert_eq!(s.repetition_count(), 2);
    for d in 1..=4 {
        assert_eq!(s.perft(d), perft_generic(&s, d), "repetition depth {d}");
    }
}

// ---------------------------------------------------------------------------------------
// Random-playout invariants.
// ---------------------------------------------------------------------------------------

/// HexDame's own rules along random playouts (the promises every game keeps, such as
/// steps existing exactly while the game goes on and the notation round trip, are
/// tests/rules/conformance.rs's).
#[test]
fn random_playouts_keep_the_hexdame_rules() {
    let rules = RulesConfig {
        ply_cap: 400,
        project_draws: true,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut steps = StepList::new();
    let mut reasons: HashMap<String, u32> = HashMap::new();
    // Games from the start, then king endings, then games cut short by a small ply cap.
    let king_starts = [
        "white a1:W b1:W i9:R h9:R",
        "red a1:W e5:W i9:R",
        "white c3:W g7:R g6:r c4:w",
    ];
    let short = RulesConfig {
        ply_cap: 30,
        project_draws: true,
    };
    for game in 0..2000 {
        let (mut s, rules) = if game < 1500 {
            (HexDame::start(GameKind::Hexdame, rules), rules)
        } else if game < 1800 {
            let text = king_starts[game % 3];
            (
                HexDame::from_notation(GameKind::Hexdame, text, rules).unwrap(),
                rules,
            )
        } else {
            (HexDame::start(GameKind::Hexdame, short), short)
        };
        let text = s.to_notation();
        let mut counts = [
            text.matches(":w").count() as u32 + text.matches(":W").count() as u32,
            text.matches(":r").count() as u32 + text.matches(":R").count() as u32,
        ];
        let mut step_count = 0;
        loop {
            assert_eq!(s.position_hash(), s.compute_hash(), "game {game}");
            s.legal_steps(&mut steps);
            if let Some(o) = s.outcome() {
                let text = s.to_notation();
                let again = HexDame::from_notation(GameKind::Hexdame, &text, rules).unwrap();
                match o.reason {
                    checkers_zero::game::EndReason::NoPieces
                    | checkers_zero::game::EndReason::Blocked => {
                        assert_eq!(o.winner, Some(s.side_to_move().opponent()));
                        assert_eq!(again.outcome(), Some(o));
                    }
                    checkers_zero::game::EndReason::NoProgress => {
                        assert_eq!(o.winner, None);
                        assert!(s.quiet_turns() >= 50);
                        assert_eq!(again.outcome(), Some(o));
                    }
                    checkers_zero::game::EndReason::Repetition => {
                        assert_eq!(o.winner, None);
                        assert_eq!(s.repetition_count(), 3);
                    }
                    checkers_zero::game::EndReason::PlyCap => {
                        assert_eq!(s.turns_played(), rules.ply_cap);
                    }
                }
                *reasons.entry(format!("{:?}", o.reason)).or_default() += 1;
                break;
            }
            let a = *steps.choose(&mut rng).unwrap();
            let mover = s.side_to_move();
            s.apply_step(a);
            step_count += 1;
            assert!(step_count < 400 * 20, "game does not end");
            if s.turn_in_progress() {
                assert_eq!(s.side_to_move(), mover);
                continue;
            }
            assert_eq!(s.side_to_move(), mover.opponent());
            // Piece counts never grow.
            let text = s.to_notation();
            let now = [
                text.matches(":w").count() as u32 + text.matches(":W").count() as u32,
                text.matches(":r").count() as u32 + text.matches(":R").count() as u32,
            ];
            assert!(now[0] <= counts[0] && now[1] <= counts[1], "{text}");
            // Only the side that moved can have taken pieces.
            assert_eq!(now[mover.0 as usize], counts[mover.0 as usize]);
            counts = now;
        }
    }
    assert!(
        reasons.contains_key("NoPieces") && reasons.contains_key("PlyCap"),
        "{reasons:?}"
    );
}

/// perft 1..3 of the mid-game positions (both generators agree: see the tests above).
const MID_GAME_PERFT: [[u64; 3]; 10] = [
    [15, 104, 1050],
    [14, 182, 4690],
    [8, 36, 424],
    [1, 7, 0],
    [1, 7, 0],
    [3, 90, 252],
    [1, 20, 60],
    [2, 4, 0],
    [8, 296, 4180],
    [10, 100, 872],
];

#[test]
fn known_mid_game_perft_values() {
    for (text, expected) in MID_GAME.iter().zip(MID_GAME_PERFT) {
        let s = hd(text);
        let got: Vec<u64> = (1..=3).map(|d| s.perft(d)).collect();
        println!("perft {text}: {got:?}");
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn fast_perft_equals_generic_perft_on_playout_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut steps = StepList::new();
    let mut checked = 0;
    while checked < 60 {
        let turns = rng.gen_range(10..120);
        let s = play_random_turns(&mut rng, &mut steps, turns);
        if s.outcome().is_none() {
            assert_eq!(s.perft(2), perft_generic(&s, 2), "{}", s.to_notation());
            checked += 1;
        }
    }
}

/// Slow (run with `--ignored`): the reference generator at depth 5 from the start.
#[test]
#[ignore]
fn reference_generator_agrees_on_start_perft_5_slow() {
    assert_eq!(simple_perft(&parse(&start().to_notation()), 5), 848_774);
}

/// Slow (run with `--ignored`): many more random positions and playouts.
#[test]
#[ignore]
fn reference_generator_agrees_on_many_positions_slow() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xbeef);
    for _ in 0..20000 {
        let pos = random_position(&mut rng, 16);
        let s = hd(&canonical(&pos));
        assert_same_children(&s);
        let mut t = s.clone();
        let mut steps = StepList::new();
        for _ in 0..30 {
            if t.outcome().is_some() {
                break;
            }
            t.legal_steps(&mut steps);
            t.apply_step(*steps.choose(&mut rng).unwrap());
            if !t.turn_in_progress() && t.outcome().is_none() {
                assert_same_children(&t);
            }
        }
    }
}
