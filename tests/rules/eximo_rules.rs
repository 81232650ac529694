//! Eximo rules, sentence by sentence (`docs/rules.md`: "Eximo" and "Common"). Each test
//! builds a position in the notation and compares the EXACT sorted list of legal whole
//! turns (one path per distinct resulting position).

use checkers_zero::game::eximo::{Eximo, NUM_ACTIONS};
use checkers_zero::game::turns::{distinct_turns, parse_turn};
use checkers_zero::game::{
    Coord, EndReason, GameKind, GameState, NotationError, Outcome, RulesConfig, Seat, Side,
    StepKind, StepList,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules() -> RulesConfig {
    RulesConfig::default()
}

fn pos(text: &str) -> Eximo {
    Eximo::from_notation(GameKind::Eximo, text, rules()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn turns(text: &str) -> Vec<String> {
    distinct_turns(&pos(text))
        .into_iter()
        .map(|t| t.path)
        .collect()
}

#[track_caller]
fn assert_turns(text: &str, expected: &[&str]) {
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(turns(text), want, "position: {text}");
}

/// Plays a whole turn written in the notation and returns the position after it.
fn play(state: &Eximo, path: &str) -> Eximo {
    parse_turn(state, path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .state
}

fn err(text: &str) -> NotationError {
    Eximo::from_notation(GameKind::Eximo, text, rules()).unwrap_err()
}

const START: &str = "black b1:b b2:b b3:b b6:w b7:w b8:w c1:b c2:b c3:b c6:w c7:w c8:w \
                     d1:b d2:b d7:w d8:w e1:b e2:b e7:w e8:w f1:b f2:b f3:b f6:w f7:w f8:w \
                     g1:b g2:b g3:b g6:w g7:w g8:w";

/// White men that freeze Black's first rows (nothing of Black's there can move or capture):
/// a2, h2 and all of ranks 3 and 4.
const WALL: &str = "a2:w h2:w a3:w b3:w c3:w d3:w e3:w f3:w g3:w h3:w \
                    a4:w b4:w c4:w d4:w e4:w f4:w g4:w h4:w";

/// Black's drop zone but b1 and c1.
const ZONE_BUT_B1_C1: &str = "d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b";
/// Black's drop zone but b1.
const ZONE_BUT_B1: &str = "c1:b d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b";
/// Black's whole drop zone.
const ZONE_FULL: &str = "b1:b c1:b d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b";

// ---------------------------------------------------------------------------------------
// SETUP, sides, seats, action space.
// ---------------------------------------------------------------------------------------

/// "Black has his pieces on b1, c1, d1, e1, f1, g1, b2, c2, d2, e2, f2, g2, b3, c3, f3, g3;
/// White on b8, c8, d8, e8, f8, g8, b7, c7, d7, e7, f7, g7, b6, c6, f6, g6."
#[test]
fn setup_start_position() {
    let s = Eximo::start(GameKind::Eximo, rules());
    let want = START.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(s.to_notation(), want);
    assert_eq!(s.black().count_ones(), 16);
    assert_eq!(s.white().count_ones(), 16);
    assert_eq!(pos(START).position_hash(), s.position_hash());
}

/// Clarification: "Black moves first"; seats and sides: Seat(0)/Side(0) Black.
#[test]
fn black_moves_first_and_seats() {
    let s = Eximo::start(GameKind::Eximo, rules());
    assert_eq!(s.seat_to_move(), Seat(0));
    assert_eq!(s.side_to_move(), Side(0));
    assert_eq!(s.side_of(Seat(1)), Side(1));
    assert_eq!(s.num_seats(), 2);
    assert_eq!(s.kind(), GameKind::Eximo);
    assert!(!s.turn_in_progress());
    assert_eq!(s.outcome(), None);
    let after = play(&s, "d2-d3");
    assert_eq!(after.seat_to_move(), Seat(1));
}

/// The start position's 40 turns, and the action-space layout of the module doc.
#[test]
fn start_position_turns_and_action_layout() {
    assert_turns(
        START,
        &[
            "b1-a2", "b1-d3", "b2-a3", "b2-b4", "b2-d4", "b3-a4", "b3-b4", "b3-c4", "c1-a3",
            "c1-e3", "c2-a4", "c2-c4", "c2-d3", "c3-b4", "c3-c4", "c3-d4", "d1-d3", "d2-b4",
            "d2-d3", "d2-e3", "e1-e3", "e2-d3", "e2-e3", "e2-g4", "f1-d3", "f1-h3", "f2-e3",
            "f2-f4", "f2-h4", "f3-e4", "f3-f4", "f3-g4", "g1-e3", "g1-h2", "g2-e4", "g2-g4",
            "g2-h3", "g3-f4", "g3-g4", "g3-h4",
        ],
    );
    let s = Eximo::start(GameKind::Eximo, rules());
    assert_eq!(s.num_actions(), NUM_ACTIONS);
    assert_eq!(NUM_ACTIONS, 1088);
    // d2-d3: from d2 = 11, N = 0, distance 1 -> (11 * 8 + 0) * 2 + 0.
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert!(steps.contains(&176));
    let d = s.describe_step(176);
    assert_eq!(
        (d.from, d.to, d.kind),
        (Some(Coord::new(3, 1)), Coord::new(3, 2), StepKind::Move)
    );
    // d1-d3 (friendly jump): from d1 = 3, N, distance 2 -> 3 * 16 + 1.
    assert!(steps.contains(&49));
    assert_eq!(s.describe_step(49).to, Coord::new(3, 2));
    assert!(steps.iter().all(|&a| (a as usize) < 1024));
}

// ---------------------------------------------------------------------------------------
// MOVE: ordinary moves.
// ---------------------------------------------------------------------------------------

/// "A checker can move in 3 directions: forward or diagonally forward" and "ORDINARY MOVE:
/// a checker moves to a (forward or diagonally forward) adjacent and empty square" (Black:
/// north; never backwards or sideways).
#[test]
fn ordinary_move_forward_and_diagonally_forward_black() {
    assert_turns("black d4:b b7:w", &["d4-c5", "d4-d5", "d4-e5"]);
    // On the edge: a4 has only two of them.
    assert_turns("black a4:b b7:w", &["a4-a5", "a4-b5"]);
}

/// Clarification: "White southwards": White's forward is south.
#[test]
fn ordinary_move_forward_and_diagonally_forward_white() {
    assert_turns("white e5:w b2:b", &["e5-d4", "e5-e4", "e5-f4"]);
    assert_turns("white h5:w b2:b", &["h5-g4", "h5-h4"]);
}

/// "...adjacent and EMPTY square": no move onto a friend or an enemy (and no capture when
/// the square beyond the enemy is taken).
#[test]
fn ordinary_move_only_onto_empty_squares() {
    assert_turns("black d4:b d5:w d6:w", &["d4-c5", "d4-e5"]);
    assert_turns(
        "black d4:b d5:b d6:b a7:w",
        &[
            "d4-c5", "d4-e5", "d5-c6", "d5-d7", "d5-e6", "d6-c7", "d6-d7", "d6-e7",
        ],
    );
}

/// "There are two type of move: ordinary move and jumping move": an ordinary move is one
/// step and ends the turn.
#[test]
fn ordinary_move_is_one_step_turn() {
    let s = pos("black d4:b b7:w");
    let t = parse_turn(&s, "d4-d5").unwrap();
    assert_eq!(t.steps.len(), 1);
    assert!(!t.state.turn_in_progress());
    assert_eq!(t.state.side_to_move(), Side(1));
}

// ---------------------------------------------------------------------------------------
// MOVE: friendly jumps.
// ---------------------------------------------------------------------------------------

/// "Men can jump without capturing." "JUMPING MOVE: a checker jumps over a (forward or
/// diagonally forward) adjacent friendly piece if the next square in the same direction is
/// empty": the jumped friend stays.
#[test]
fn friendly_jump_over_own_piece() {
    assert_turns(
        "black d2:b d3:b e3:b a7:w",
        &[
            "d2-c3", "d2-d4", "d2-f4", "d3-c4", "d3-d4", "d3-e4", "e3-d4", "e3-e4", "e3-f4",
        ],
    );
    let after = play(&pos("black d2:b d3:b e3:b a7:w"), "d2-f4");
    assert_eq!(after.to_notation(), "white a7:w d3:b e3:b f4:b");
}

/// Friendly jumps: White jumps southwards over its own men.
#[test]
fn friendly_jump_white() {
    assert_turns(
        "white e7:w e6:w b2:b",
        &["e6-d5", "e6-e5", "e6-f5", "e7-d6", "e7-e5", "e7-f6"],
    );
}

/// "If the same player's checker can continue moving by jumping another friendly piece then
/// it must do so": d2-d4 alone is not a turn.
#[test]
fn friendly_jump_chain_must_continue() {
    assert_turns(
        "black d2:b d3:b d5:b c7:w",
        &[
            "d2-c3", "d2-d4-d6", "d2-e3", "d3-c4", "d3-d4", "d3-e4", "d5-c6", "d5-d6", "d5-e6",
        ],
    );
    // Step by step: after the first jump the turn is in progress, only the jump goes on.
    let s = pos("black d2:b d3:b d5:b c7:w");
    let t = parse_turn(&s, "d2-d4-d6").unwrap();
    let mut mid = s;
    mid.apply_step(t.steps[0]);
    assert!(mid.turn_in_progress());
    assert_eq!(mid.side_to_move(), Side(0));
    let mut steps = StepList::new();
    mid.legal_steps(&mut steps);
    assert_eq!(steps, vec![t.steps[1]]);
}

/// "(No need to choose the longest path.)": a two-jump and a three-jump chain from d1.
#[test]
fn friendly_jump_chain_any_path_no_longest_rule() {
    assert_turns(
        "black d1:b d2:b c4:b e4:b f6:b a7:w",
        &[
            "c4-b5",
            "c4-c5",
            "c4-d5",
            "d1-c2",
            "d1-d3-b5",
            "d1-d3-f5-f7",
            "d1-e2",
            "d2-c3",
            "d2-d3",
            "d2-e3",
            "e4-d5",
            "e4-e5",
            "e4-f5",
            "f6-e7",
            "f6-f7",
            "f6-g7",
        ],
    );
}

/// Clarification: "Friendly jumps never capture and cannot be mixed with captures": after a
/// jump, an open capture (d4xf6) is not taken; after a capture, an open jump is not taken.
#[test]
fn friendly_jumps_never_mixed_with_captures() {
    assert_turns(
        "black d2:b d3:b e5:w",
        &["d2-c3", "d2-d4", "d2-e3", "d3-c4", "d3-d4", "d3-e4"],
    );
    let after = play(&pos("black d2:b d3:b e5:w"), "d2-d4");
    assert_eq!(after.side_to_move(), Side(1));
    assert_eq!(after.to_notation(), "white d3:b d4:b e5:w");
    // A capture that ends next to a friend with an empty square beyond does not jump it.
    assert_turns("black c3:b c6:b c4:w h5:w", &["c3xc5"]);
}

// ---------------------------------------------------------------------------------------
// CAPTURE.
// ---------------------------------------------------------------------------------------

/// "A checker can capture in 5 directions: forward, diagonally forward, right or left" and
/// never backwards: d4 is surrounded by eight white men, three of them behind it.
#[test]
fn capture_in_five_directions_not_backwards() {
    assert_turns(
        "black d4:b c3:w c4:w c5:w d3:w d5:w e3:w e4:w e5:w",
        &["d4xb4xd6", "d4xb6", "d4xd6", "d4xf4xd6", "d4xf6"],
    );
}

/// Sideways captures (must-have): left and right, White as well.
#[test]
fn sideways_capture_left_and_right() {
    assert_turns("black d4:b c4:w e4:w", &["d4xb4", "d4xf4"]);
    // White e5: south, west and east; e6 behind it cannot be taken.
    assert_turns(
        "white e5:w e4:b d5:b f5:b e6:b",
        &["e5xc5", "e5xe3", "e5xg5"],
    );
    // Not off the board: h4 takes only westwards.
    assert_turns("black h4:b g4:w a5:w", &["h4xf4"]);
}

/// "...if the next square in the same direction is empty": an occupied landing square
/// blocks the capture (then ordinary moves are allowed).
#[test]
fn capture_needs_empty_square_beyond() {
    assert_turns("black d4:b e4:w f4:w", &["d4-c5", "d4-d5", "d4-e5"]);
    assert_turns(
        "black d4:b e4:w f4:b",
        &["d4-c5", "d4-d5", "d4-e5", "f4-e5", "f4-f5", "f4-g5"],
    );
}

/// "The opponent's piece is removed from the board immediately": a white man taken on b2,
/// inside Black's drop zone, leaves its square free for the drops of the same turn (the
/// chain ends on g8). Also a four-capture chain.
#[test]
fn captured_piece_removed_immediately() {
    let text = "black a2:b b1:b c1:b d1:b e1:b f1:b g1:b d2:b e2:b f2:b g2:b \
                b2:w d3:w f5:w g7:w";
    assert_turns(
        text,
        &["a2xc2xe4xg6xg8*b2*c2", "b1xb3", "c1xa3", "d2xd4", "e2xc4"],
    );
    let after = play(&pos(text), "a2xc2xe4xg6xg8*b2*c2");
    assert_eq!(after.white(), 0);
    assert_eq!(
        after.outcome(),
        Some(Outcome {
            winner: Some(Side(0)),
            reason: EndReason::NoPieces
        })
    );
}

/// "If the same player's checker can continue capturing by jumping another opponent's piece
/// then it must do so": c3xc5 alone is not a turn.
#[test]
fn capture_chain_must_continue() {
    assert_turns("black c3:b c4:w c6:w h5:w", &["c3xc5xc7"]);
    let s = pos("black c3:b c4:w c6:w h5:w");
    let t = parse_turn(&s, "c3xc5xc7").unwrap();
    let mut mid = s;
    mid.apply_step(t.steps[0]);
    assert!(mid.turn_in_progress());
    assert_eq!(mid.describe_step(t.steps[1]).kind, StepKind::Capture);
    assert_ne!(mid.position_hash(), s.position_hash());
}

/// "(No need to take the maximum number of pieces.)": one capture or two, free choice.
#[test]
fn capture_chain_shorter_path_allowed() {
    assert_turns("black c3:b c4:w d4:w e6:w", &["c3xc5", "c3xe5xe7"]);
}

/// "Capturing is mandatory" / clarification "Capturing has priority over every other move":
/// the capture of g4 excludes b2's jump and every ordinary move.
#[test]
fn capture_has_priority_over_jumps_and_moves() {
    assert_turns("black b2:b b3:b g4:b g5:w a7:w", &["g4xg6"]);
    // Obligation is per side: every man that can capture may do it.
    assert_turns("black b4:b g4:b b5:w g5:w", &["b4xb6", "g4xg6"]);
}

/// Clarification "Perft": two paths to the same position are one turn: d1-d3-f5 and
/// d1-f3-f5 jump different friends but end the same.
#[test]
fn jump_routes_to_same_position_count_once() {
    let text = "black d1:b d2:b e2:b e4:b f4:b a7:w";
    assert_turns(
        text,
        &[
            "d1-c2", "d1-d3-f5", "d1-f3-d5", "d2-c3", "d2-d3", "d2-e3", "e2-d3", "e2-e3", "e2-f3",
            "e4-d5", "e4-e5", "e4-f5", "f4-e5", "f4-f5", "f4-g5",
        ],
    );
    let mut paths = 0;
    checkers_zero::game::turns::for_each_turn(&pos(text), |_, _, _| paths += 1);
    assert_eq!(paths, 16);
    assert_eq!(pos(text).perft(1), 15);
}

// ---------------------------------------------------------------------------------------
// ON THE LAST ROW.
// ---------------------------------------------------------------------------------------

/// "When a checker reaches the other end of the board, it is removed from the board
/// immediately and the player gets two extra-moves ... dropping two new checkers": c7
/// reaches b8, c8 or d8 (one child per pair of drop cells), drops on any two free cells.
#[test]
fn last_row_by_move_two_drops() {
    // Free drop cells: b1, c1, d1.
    let text = format!("black c7:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b {WALL}");
    assert_turns(&text, &["c7-b8*b1*c1", "c7-b8*b1*d1", "c7-b8*c1*d1"]);
}

/// Drops are steps: the turn is in progress until the drops are done; the two orders of
/// two drops are one position (and one turn in `moves`/perft).
#[test]
fn drops_are_steps_and_orders_merge() {
    let text = format!("black c7:b {ZONE_BUT_B1_C1} {WALL}");
    assert_turns(&text, &["c7-b8*b1*c1"]);
    let s = pos(&text);
    let a = parse_turn(&s, "c7-c8*b1*c1").unwrap();
    let b = parse_turn(&s, "c7-c8*c1*b1").unwrap();
    assert_eq!(a.state.position_hash(), b.state.position_hash());
    assert_eq!(a.state.to_notation(), b.state.to_notation());
    let mut mid = s;
    mid.apply_step(a.steps[0]);
    assert!(mid.turn_in_progress());
    assert_eq!(
        mid.black() & (1 << 58),
        0,
        "the man on c8 is removed at once"
    );
    let mut steps = StepList::new();
    mid.legal_steps(&mut steps);
    steps.sort();
    assert_eq!(steps, vec![1024 + 1, 1024 + 2]);
    let d = mid.describe_step(1024 + 1);
    assert_eq!(
        (d.from, d.to, d.kind),
        (None, Coord::new(1, 0), StepKind::Drop)
    );
    mid.apply_step(1024 + 2);
    assert!(mid.turn_in_progress());
    mid.legal_steps(&mut steps);
    assert_eq!(steps, vec![1024 + 1]);
    mid.apply_step(1024 + 1);
    assert!(!mid.turn_in_progress());
    assert_eq!(mid.side_to_move(), Side(1));
    assert_eq!(mid.position_hash(), a.state.position_hash());
}

/// "...in any empty square in his own first two rows, except in the four squares on the
/// sides": a2 and a1, h1 are empty but never dropped on.
#[test]
fn drop_zone_excludes_side_squares() {
    let text = format!("black c7:b {ZONE_BUT_B1_C1} {WALL}").replace("a2:w ", "");
    assert_turns(&text, &["c7-b8*b1*c1"]);
}

/// "If there are just one empty square in the drop zone, the player gets only one drop."
#[test]
fn one_drop_when_one_square_free() {
    let text = format!("black c7:b {ZONE_BUT_B1} {WALL}");
    assert_turns(&text, &["c7-b8*b1"]);
}

/// "If a checker reaches the other end of the board and there isn't any empty square in the
/// drop zone, the player loses that piece."
#[test]
fn no_drop_when_zone_full() {
    let text = format!("black c7:b {ZONE_FULL} {WALL}");
    assert_turns(&text, &["c7-b8"]);
    let after = play(&pos(&text), "c7-b8");
    assert_eq!(after.black().count_ones(), 12);
    assert!(!after.turn_in_progress());
}

/// Clarification: the far row is reached "by move, jump or capture": by a friendly jump.
#[test]
fn last_row_by_friendly_jump() {
    let text = format!("black c6:b c7:b {ZONE_BUT_B1} {WALL}");
    assert_turns(&text, &["c6-b7", "c6-c8*b1", "c6-d7", "c7-b8*b1"]);
}

/// Clarification: "...its turn's sequence ends" even mid-chain: the capture b6xd6xd8 stops
/// on d8 although d8xf8 (over e8) would be open.
#[test]
fn last_row_mid_capture_chain_stops() {
    let text = format!("black b6:b c6:w d7:w e8:w {ZONE_BUT_B1_C1} {WALL}");
    assert_turns(&text, &["b6xd6xd8*b1*c1"]);
    let after = play(&pos(&text), "b6xd6xd8*b1*c1");
    assert_eq!(
        after.to_notation(),
        format!("white {ZONE_FULL} e8:w {WALL}")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .pipe_sort()
    );
}

/// The drop zone for White: b8-g8, b7-g7; White's far row is rank 1.
#[test]
fn white_last_row_and_drop_zone() {
    let text = "white c2:w b7:w c7:w d7:w e7:w f7:w g7:w c8:w d8:w e8:w f8:w g8:w \
                a5:b b5:b c5:b d5:b e5:b f5:b g5:b h5:b a6:b b6:b c6:b d6:b e6:b f6:b g6:b h6:b \
                a7:b h7:b";
    assert_turns(text, &["c2-b1*b8"]);
    let t = parse_turn(&pos(text), "c2-d1*b8").unwrap();
    assert_eq!(t.state.white().count_ones(), 12);
    assert_eq!(t.state.side_to_move(), Side(0));
}

/// "When a man reaches the last row, it frees another man": with two drops the side ends
/// the turn one man richer.
#[test]
fn reaching_last_row_frees_a_man() {
    let text = format!("black c7:b {ZONE_BUT_B1_C1} {WALL}");
    let s = pos(&text);
    let after = play(&s, "c7-b8*b1*c1");
    assert_eq!(after.black().count_ones(), s.black().count_ones() + 1);
}

// ---------------------------------------------------------------------------------------
// OBJECT, end of the game, ply cap.
// ---------------------------------------------------------------------------------------

/// "OBJECT: Capture all your opponent's pieces": taking the last man wins.
#[test]
fn win_by_capturing_all_pieces() {
    let s = pos("white d5:w d4:b a7:w");
    let after = play(&s, "d5xd3");
    assert_eq!(
        after.outcome(),
        Some(Outcome {
            winner: Some(Side(1)),
            reason: EndReason::NoPieces
        })
    );
    let mut steps = StepList::new();
    after.legal_steps(&mut steps);
    assert!(steps.is_empty());
    assert!(distinct_turns(&after).is_empty());
    // The same position given directly: Black to move without men has lost.
    let lost = pos("black a7:w d3:w");
    assert_eq!(lost.outcome(), after.outcome());
    assert_eq!(lost.perft(1), 0);
}

/// "...or stalemate the opponent so he has no moves" / clarification "A side whose seat is
/// to move and has no legal step loses (blocked)".
#[test]
fn blocked_side_loses() {
    let blocked = pos("black d4:b c5:w d5:w e5:w b6:w d6:w f6:w");
    assert_eq!(
        blocked.outcome(),
        Some(Outcome {
            winner: Some(Side(1)),
            reason: EndReason::Blocked
        })
    );
    assert!(turns("black d4:b c5:w d5:w e5:w b6:w d6:w f6:w").is_empty());
    // White makes the blocking move.
    let s = pos("white d4:b c3:w d3:w e3:w c5:w d5:w e5:w b6:w d6:w g7:w");
    let after = play(&s, "g7-f6");
    assert_eq!(after.outcome(), blocked.outcome());
    assert_eq!(
        after.position_hash(),
        pos(&after.to_notation()).position_hash()
    );
}

/// Clarification "[project] draw when the ply cap is reached" (ply_cap counts whole turns;
/// 0 disables it; project_draws does not switch it off: it is the only project rule here
/// and has its own switch).
#[test]
fn ply_cap_draw() {
    for project_draws in [true, false] {
        let r = RulesConfig {
            ply_cap: 2,
            project_draws,
        };
        let s = Eximo::start(GameKind::Eximo, r);
        let one = play(&s, "d2-d3");
        assert_eq!(one.outcome(), None);
        let two = play(&one, "d7-d6");
        assert_eq!(
            two.outcome(),
            Some(Outcome {
                winner: None,
                reason: EndReason::PlyCap
            })
        );
        assert_eq!(two.turns_played(), 2);
        assert!(distinct_turns(&two).is_empty());
    }
    // No cap.
    let r = RulesConfig {
        ply_cap: 0,
        project_draws: true,
    };
    let mut s = Eximo::start(GameKind::Eximo, r);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut steps = StepList::new();
    while s.outcome().is_none() {
        s.legal_steps(&mut steps);
        s.apply_step(steps[rng.gen_range(0..steps.len())]);
    }
    assert_ne!(s.outcome().unwrap().reason, EndReason::PlyCap);
}

/// A win on the turn that reaches the cap is a win, not a draw.
#[test]
fn win_beats_ply_cap() {
    let r = RulesConfig {
        ply_cap: 1,
        project_draws: true,
    };
    let s = Eximo::from_notation(GameKind::Eximo, "black d4:b d5:w", r).unwrap();
    let after = play(&s, "d4xd6");
    assert_eq!(after.outcome().unwrap().reason, EndReason::NoPieces);
}

/// Clarification (Common): a turn is a step, a whole capture sequence, a whole jump chain,
/// and its drops; the seat changes only at its end; the hash covers the unfinished turn.
#[test]
fn turn_is_whole_sequence_and_hash_covers_it() {
    let text = format!("black b6:b c6:w d7:w e8:w {ZONE_BUT_B1_C1} {WALL}");
    let s = pos(&text);
    let t = parse_turn(&s, "b6xd6xd8*b1*c1").unwrap();
    assert_eq!(t.steps.len(), 4);
    let mut st = s;
    let mut hashes = vec![st.position_hash()];
    for (i, &a) in t.steps.iter().enumerate() {
        assert_eq!(st.side_to_move(), Side(0));
        st.apply_step(a);
        assert_eq!(st.turn_in_progress(), i + 1 < t.steps.len());
        assert_eq!(st.position_hash(), st.compute_hash());
        hashes.push(st.position_hash());
    }
    let mut d = hashes.clone();
    d.sort();
    d.dedup();
    assert_eq!(d.len(), hashes.len());
    // Same men, other side to move: other hash.
    let w = pos(&text.replacen("black", "white", 1));
    assert_ne!(w.position_hash(), s.position_hash());
}

// ---------------------------------------------------------------------------------------
// Notation.
// ---------------------------------------------------------------------------------------

/// Clarification "Position": seat, then cell:contents tokens; canonical order by cell.
#[test]
fn notation_round_trip_and_canonical_order() {
    let s = pos("white   e5:w d4:b   b2:b");
    assert_eq!(s.to_notation(), "white b2:b d4:b e5:w");
    for text in [
        START,
        "black a4:b b4:w d4:w f4:w c5:w b7:w f7:w e2:b",
        "white a2:b h7:w",
    ] {
        let canonical = pos(text).to_notation();
        assert_eq!(pos(&canonical).to_notation(), canonical);
        assert_eq!(pos(&canonical).position_hash(), pos(text).position_hash());
    }
    assert!(pos(START).render().contains("a b c d e f g h"));
}

#[test]
fn notation_error_empty() {
    assert_eq!(err(""), NotationError::EmptyPosition);
    assert_eq!(err("  \t "), NotationError::EmptyPosition);
}

#[test]
fn notation_error_bad_seat() {
    for text in ["red d4:b e5:w", "Black d4:b e5:w", "d4:b e5:w", "orange"] {
        assert!(matches!(err(text), NotationError::BadSeat { .. }), "{text}");
    }
    assert!(err("red d4:b").to_string().contains("red"));
}

#[test]
fn notation_error_bad_token() {
    for text in ["black d4", "black d4: e5:w", "black =3", "black ply="] {
        assert!(matches!(err(text), NotationError::BadToken(_)), "{text}");
    }
}

#[test]
fn notation_error_bad_cell() {
    for text in [
        "black 4d:b e5:w",
        "black D4:b e5:w",
        "black d0:b e5:w",
        "black :b",
    ] {
        assert!(matches!(err(text), NotationError::BadCell(_)), "{text}");
    }
}

#[test]
fn notation_error_off_board() {
    assert_eq!(
        err("black i4:b e5:w"),
        NotationError::OffBoard(Coord::new(8, 3))
    );
    assert_eq!(
        err("black d9:b e5:w"),
        NotationError::OffBoard(Coord::new(3, 8))
    );
    assert!(err("black z26:b").to_string().contains("z26"));
}

#[test]
fn notation_error_bad_contents() {
    for text in [
        "black d4:B e5:w",
        "black d4:bw e5:w",
        "black d4:r e5:w",
        "black d4:b:b e5:w",
    ] {
        match err(text) {
            NotationError::BadContents { cell, .. } => assert_eq!(cell, Coord::new(3, 3)),
            e => panic!("{text}: {e:?}"),
        }
    }
}

/// "There are no kings, only men": no king contents exist.
#[test]
fn no_kings_only_men() {
    assert!(matches!(
        err("black d4:B e5:W"),
        NotationError::BadContents { .. }
    ));
}

#[test]
fn notation_error_duplicate_cell() {
    assert_eq!(
        err("black d4:b d4:w"),
        NotationError::DuplicateCell(Coord::new(3, 3))
    );
}

/// Eximo positions have no counters (BadCounter can therefore never be returned).
#[test]
fn notation_error_unknown_counter() {
    for text in ["black d4:b e5:w ply=3", "black d4:b e5:w quiet=0"] {
        assert!(
            matches!(err(text), NotationError::UnknownCounter { .. }),
            "{text}"
        );
    }
}

/// Impossible positions: a man on its own far row, a man on a corner of its own first row,
/// the side that has just moved without men.
#[test]
fn notation_error_impossible() {
    for (text, cell) in [
        ("black d8:b e5:w", "d8"),
        ("black d4:b e1:w", "e1"),
        ("white a1:b e5:w", "a1"),
        ("white h1:b e5:w", "h1"),
        ("black a8:w d4:b", "a8"),
        ("black h8:w d4:b", "h8"),
    ] {
        match err(text) {
            NotationError::Impossible(msg) => assert!(msg.contains(cell), "{msg}"),
            e => panic!("{text}: {e:?}"),
        }
    }
    assert!(matches!(err("black d4:b"), NotationError::Impossible(_)));
    assert!(matches!(err("white d4:w"), NotationError::Impossible(_)));
    assert!(matches!(err("black"), NotationError::Impossible(_)));
    // More than 16 men is possible (drops free a man): accepted.
    let many = "black b1:b c1:b d1:b e1:b f1:b g1:b b2:b c2:b d2:b e2:b f2:b g2:b \
                a3:b b3:b c3:b d3:b e3:b h7:w";
    assert_eq!(pos(many).black().count_ones(), 17);
}

#[test]
fn notation_wrong_game_kind() {
    assert!(matches!(
        Eximo::from_notation(GameKind::Hexdame, START, rules()),
        Err(NotationError::UnknownGame(_))
    ));
}

/// Moves in the path notation: illegal and malformed moves are errors, not panics.
#[test]
fn move_notation_errors() {
    let s = Eximo::start(GameKind::Eximo, rules());
    assert!(matches!(
        parse_turn(&s, "d2-d4"),
        Err(NotationError::IllegalMove { .. })
    ));
    assert!(matches!(
        parse_turn(&s, "d2d3"),
        Err(NotationError::BadMove(_))
    ));
    assert!(matches!(
        s.clone().try_apply_step(1087),
        Err(NotationError::IllegalStep(1087))
    ));
}

/// Weird input never panics.
#[test]
fn weird_input_never_panics() {
    let samples = [
        "black ü4:b",
        "black a1:b:b",
        "black a99999999999999999999:b",
        "black :",
        "black a:b",
        "white \u{0}",
        "black d4:b e5:w =",
        "black d4:b e5:w a=b=c",
        "🎲",
        "black d4:b e5:w ply=99999999999999999999",
    ];
    for text in samples {
        let _ = Eximo::from_notation(GameKind::Eximo, text, rules());
    }
    // Random text and mutated positions: tests/rules/conformance.rs.
}

trait PipeSort {
    fn pipe_sort(self) -> String;
}

impl PipeSort for String {
    /// Sorts the cell tokens of a position (after the seat) the canonical way.
    fn pipe_sort(self) -> String {
        let mut it = self.split_whitespace();
        let seat = it.next().unwrap().to_string();
        let mut cells: Vec<(Coord, String)> = it
            .map(|t| {
                (
                    Coord::parse(t.split(':').next().unwrap()).unwrap(),
                    t.to_string(),
                )
            })
            .collect();
        cells.sort();
        std::iter::once(seat)
            .chain(cells.into_iter().map(|(_, t)| t))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
