//! ReMATCH rules, one test per sentence of the published rules and per clarification
//! (`docs/rules.md`, "ReMATCH"). Every position is hand-built in
//! the notation and checked against the exact, complete list of legal whole turns.
//!
//! Every position has the 12 pieces, 4 of each colour; pieces that play no part are parked
//! in a stack topped by the side not to move, away from every line of the side to move.
use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::turns::{distinct_turns, parse_turn};
use checkers_zero::game::{
    EndReason, GameKind, GameState, NotationError, Outcome, RulesConfig, Seat, Side, StepList,
};

fn rules() -> RulesConfig {
    RulesConfig::default()
}

fn pos(text: &str) -> Rematch {
    Rematch::from_notation(GameKind::Rematch, text, rules())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn pos3(text: &str) -> Rematch {
    Rematch::from_notation(GameKind::Rematch3, text, rules())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The sorted paths of the distinct legal whole turns.
fn turns_of(state: &Rematch) -> Vec<String> {
    distinct_turns(state).into_iter().map(|t| t.path).collect()
}

#[track_caller]
fn assert_turns(text: &str, expected: &[&str]) {
    let state = pos(text);
    assert_eq!(turns_of(&state), expected, "turns of {text}");
    // The same in the 3-player game: the tree is identical.
    assert_eq!(turns_of(&pos3(text)), expected, "3-player turns of {text}");
}

/// The position after the turn written `path`.
fn after(text: &str, path: &str) -> String {
    parse_turn(&pos(text), path)
        .unwrap_or_else(|e| panic!("{path} in {text}: {e}"))
        .state
        .to_notation()
}

fn win(side: u8, reason: EndReason) -> Option<Outcome> {
    Some(Outcome {
        winner: Some(Side(side)),
        reason,
    })
}

const START: &str = "white a1:R a2:R b1:R b2:R d2:W d3:W e3:W e4:W b4:O c4:O c5:O d5:O";

// ----- Board, start, turn order -------------------------------------------------------

#[test]
fn start_position_is_fig3_and_team_opens_with_white() {
    let s = Rematch::start(GameKind::Rematch, rules());
    assert_eq!(
        s.to_notation(),
        "white a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W"
    );
    assert_eq!(s.to_notation(), pos(START).to_notation());
    assert_eq!(s.seat_to_move(), Seat(1));
    assert_eq!(s.side_to_move(), Side(1));
    // Only White stacks move in the opening turn (d2, d3, e4; e3 is hemmed in).
    assert_turns(
        START,
        &[
            "d2-c1", "d2-c2", "d3-c2", "d3-c3", "d3-d4", "e4-d4", "e4-e5",
        ],
    );
    let s3 = Rematch::start(GameKind::Rematch3, rules());
    assert_eq!(s3.num_seats(), 3);
    assert_eq!(s3.seat_to_move(), Seat(1));
    assert_eq!(s.num_seats(), 2);
    assert_eq!(s3.kind(), GameKind::Rematch3);
    assert_eq!(s.kind(), GameKind::Rematch);
}

#[test]
fn board_has_19_hexes_and_six_neighbours_at_the_centre() {
    let s = pos("red c3:OOOWWWWRRRR a1:O");
    // A stack in the centre moves one step in each of the six directions.
    assert_turns(
        "red c3:OOOWWWWRRRR a1:O",
        &["c3-b2", "c3-b3", "c3-c2", "c3-c4", "c3-d3", "c3-d4"],
    );
    assert_eq!(s.num_actions(), 19 * 6 * 4);
    // Off-board hexes are rejected.
    for cell in ["a4", "a5", "b5", "d1", "e1", "e2", "f3", "c6"] {
        let text = format!("red a1:RRRRWWWWOOO {cell}:O");
        assert!(
            matches!(
                Rematch::from_notation(GameKind::Rematch, &text, rules()),
                Err(NotationError::OffBoard(_))
            ),
            "{cell}"
        );
    }
}

#[test]
fn turns_alternate_red_and_team_and_team_colours_alternate() {
    // White, Red, Orange, Red, White, Red, Orange: the first legal turn each time.
    let mut s = pos3(START);
    let mut tokens = Vec::new();
    let mut seats = Vec::new();
    for _ in 0..7 {
        tokens.push(s.to_notation().split(' ').next().unwrap().to_string());
        seats.push(s.seat_to_move().0);
        s = distinct_turns(&s).swap_remove(0).state;
    }
    assert_eq!(
        tokens,
        ["white", "red", "orange", "red", "white", "red", "orange"]
    );
    assert_eq!(seats, [1, 0, 2, 0, 1, 0, 2]);
}

// ----- Moving ------------------------------------------------------------------------

#[test]
fn simple_move_moves_the_whole_stack_one_step() {
    let text = "red c3:OOOWWWWRRRR a1:O";
    // White is due but tops nothing: Orange moves next.
    assert_eq!(after(text, "c3-d4"), "orange a1:O d4:OOOWWWWRRRR quiet=1");
}

#[test]
fn simple_move_only_onto_an_empty_hex() {
    // a1 cannot step onto its own b1 nor onto the Team stack a2 (not capturable: a3 beyond
    // is occupied).
    assert_turns(
        "red a1:R a2:RWWWW a3:ROOOO b1:R",
        &["a1-b2", "b1-b2", "b1-c1", "b1-c2"],
    );
}

#[test]
fn a_stack_moves_as_one_piece_and_belongs_to_its_top_colour() {
    // a1 holds a White and an Orange piece under a Red top: it is Red's, and moves whole.
    let text = "red a1:WOR c5:RRRWWOOO e3:W";
    assert_turns(text, &["a1-a2", "a1-b1", "a1-b2"]);
    assert_eq!(
        after(text, "a1-b2"),
        "white b2:WOR c5:RRRWWOOO e3:W quiet=1"
    );
    // On White's turn, neither a1 (Red top) nor c5 (Orange top) is White's: only e3 moves.
    assert_turns(
        "white a1:WOR c5:RRRWWOOO e3:W",
        &["e3-d2", "e3-d3", "e3-e4"],
    );
}

// ----- Capturing ---------------------------------------------------------------------

#[test]
fn capture_jumps_an_adjacent_different_colour_onto_the_empty_hex_beyond() {
    // Capturing is mandatory: White c3 must take d3; e5 may not make a simple move.
    let text = "white a1:RRR c3:W d3:R e5:OOOOWWW";
    assert_turns(text, &["c3xe3"]);
    // The taken piece goes under the jumper; the single piece's hex is empty.
    assert_eq!(
        after(text, "c3xe3"),
        "red a1:RRR e3:RW e5:OOOOWWW team=orange"
    );
}

#[test]
fn capture_of_a_stack_takes_only_its_top_piece_to_the_bottom_of_the_jumper() {
    let text = "white a1:RRR c3:OW d3:OOOR e5:WWW";
    assert_turns(text, &["c3xe3"]);
    assert_eq!(
        after(text, "c3xe3"),
        "red a1:RRR d3:OOO e3:ROW e5:WWW team=orange"
    );
}

#[test]
fn only_pieces_of_a_different_colour_can_be_captured() {
    // White d3 next to White c3 with e3 empty: no capture, simple moves only.
    assert_turns(
        "white a1:RRRR c3:W d3:W e5:OOOOWW",
        &[
            "c3-b2", "c3-b3", "c3-c2", "c3-c4", "c3-d4", "d3-c2", "d3-d2", "d3-d4", "d3-e3",
            "d3-e4", "e5-d4", "e5-d5", "e5-e4",
        ],
    );
    // Red never captures Red.
    assert_turns(
        "red a1:R b2:R c5:RRWWWWOOOO",
        &[
            "a1-a2", "a1-b1", "b2-a2", "b2-b1", "b2-b3", "b2-c2", "b2-c3",
        ],
    );
}

#[test]
fn capture_needs_the_hex_beyond_empty_and_on_the_board() {
    // d3 beyond is e3: occupied. e3 beyond would be f3: off the board.
    assert_turns(
        "white a1:RRR c3:W d3:R e3:O e5:OOOWWW",
        &[
            "c3-b2", "c3-b3", "c3-c2", "c3-c4", "c3-d4", "e5-d4", "e5-d5", "e5-e4",
        ],
    );
}

#[test]
fn team_colours_capture_each_other() {
    let text = "white a1:RRRR c3:W d3:O e5:OOOWWW";
    assert_turns(text, &["c3xe3"]);
    assert_eq!(
        after(text, "c3xe3"),
        "red a1:RRRR e3:OW e5:OOOWWW team=orange"
    );
    let text = "orange a1:RRRR c3:O d3:W e5:WWWOOO";
    assert_turns(text, &["c3xe3"]);
    assert_eq!(after(text, "c3xe3"), "red a1:RRRR e3:WO e5:WWWOOO");
}

#[test]
fn capturing_is_mandatory_for_the_team_even_against_its_own_other_colour() {
    // White's only capture is of an Orange stack; no simple move is allowed.
    assert_turns("white a1:RRRR b2:W c3:O e5:OOOWWW", &["b2xd4"]);
}

#[test]
fn fig8_white_stack_must_take_three_tops_including_orange() {
    // The White single on a1 jumps b2 (Red top), then c4 (Orange top), then b4 (Red top):
    // each jumped stack keeps its lower pieces, the sequence cannot stop early.
    let text = "white a1:W b2:OR b4:WR c4:RO e5:WWOOR";
    assert_turns(text, &["a1xc3xc5xa3"]);
    assert_eq!(
        after(text, "a1xc3xc5xa3"),
        "red a3:RORW b2:O b4:W c4:R e5:WWOOR team=orange"
    );
    // Step by step: the turn stays in progress until the third capture.
    let mut s = pos(text);
    let mut steps = StepList::new();
    for i in 0..3 {
        s.legal_steps(&mut steps);
        assert_eq!(steps.len(), 1, "one capture open at step {i}");
        s.apply_step(steps[0]);
        assert_eq!(s.turn_in_progress(), i < 2);
        assert_eq!(s.seat_to_move(), if i < 2 { Seat(1) } else { Seat(0) });
    }
}

#[test]
fn multiple_capture_is_mandatory_and_the_sequence_is_one_turn() {
    // White e5 takes e4 then must take d3.
    let text = "white a1:W b1:R c5:WWOOOOR d3:R e4:R e5:W";
    assert_turns(text, &["a1xc1", "e5xe3xc3"]);
    let s = pos(text);
    // No turn stops after e5xe3.
    assert!(parse_turn(&s, "e5xe3").is_err());
}

#[test]
fn freedom_of_choice_no_majority_rule() {
    // a1xc1 takes one piece, e5xe3xc3 two: both are legal (same position as above).
    let text = "white a1:W b1:R c5:WWOOOOR d3:R e4:R e5:W";
    let turns = turns_of(&pos(text));
    assert!(turns.contains(&"a1xc1".to_string()));
    assert!(turns.contains(&"e5xe3xc3".to_string()));
}

#[test]
fn a_stack_is_jumped_at_most_once_per_sequence() {
    // White b2 jumps the Red stack c3 to d4; jumping it back to b2 would be a second jump.
    let text = "white a3:R b2:W c3:RRR e5:WWWOOOO";
    assert_turns(text, &["b2xd4"]);
    assert_eq!(
        after(text, "b2xd4"),
        "red a3:R c3:RR d4:RW e5:WWWOOOO team=orange"
    );
}

#[test]
fn hexes_may_be_revisited_and_paths_to_one_position_count_once() {
    // c3 takes d3, e4, d4 (in either order) and comes back to its own origin c3; the jumped
    // stacks keep blocking, none can be jumped again. Both orders give the same position.
    let text = "white a1:WWOOR c3:W d3:OR d4:WR e4:OR";
    assert_turns(text, &["c3xe3xe5xc3"]);
    assert_eq!(
        after(text, "c3xe5xe3xc3"),
        "red a1:WWOOR c3:RRRW d3:O d4:W e4:O team=orange"
    );
}

// ----- Red's flying capture ----------------------------------------------------------

#[test]
fn flying_capture_is_optional_when_red_has_only_flying_captures() {
    let text = "red a1:R c5:RRRWWWOOOO d4:W";
    assert_turns(text, &["a1-a2", "a1-b1", "a1-b2", "a1xe5"]);
    // White is due but tops nothing now: Orange moves.
    assert_eq!(after(text, "a1xe5"), "orange c5:RRRWWWOOOO e5:WR");
}

#[test]
fn flying_capture_may_be_chosen_instead_of_an_adjacent_one() {
    // Red must capture (b1 adjacent), and may do it by flying over b2, c3 to take d4.
    assert_turns("red a1:R b1:W b3:RRRWWWOOO d4:O", &["a1xc1", "a1xe5"]);
}

#[test]
fn the_same_target_may_be_taken_by_a_simple_or_a_flying_capture() {
    // c3 can be taken by b3 (adjacent, landing d3) or by c1 flying over c2 (landing c4).
    assert_turns("red b3:R c1:R c3:W e5:RRWWWOOOO", &["b3xd3", "c1xc4"]);
}

#[test]
fn flying_capture_sequence_must_continue() {
    // After flying to e5, the capture of e4 (landing e3) is open: it must be made.
    let text = "red a1:R b4:RRRWWWOOO d4:W e4:O";
    assert_turns(text, &["a1-a2", "a1-b1", "a1-b2", "a1xe5xe3"]);
    assert!(parse_turn(&pos(text), "a1xe5").is_err());
}

#[test]
fn flying_capture_continues_with_flying_ones_over_hexes_emptied_this_turn() {
    // e3 takes the single d3 (adjacent), then from c3 either c4 or c2; from the far end it
    // flies back along the c file over the hex it emptied and the centre it left.
    assert_turns(
        "red a2:RRRWWOOO c2:W c4:O d3:W e3:R",
        &["e3xc3xc1xc5", "e3xc3xc5xc1"],
    );
}

#[test]
fn jumped_single_piece_leaves_its_hex_at_once_so_the_sequence_lands_on_it() {
    // a1 takes the single b1 (landing c1), then d2 (landing e3), flies over d3 to take the
    // single c3 (landing b3), then takes the top of b2 landing on b1, the hex emptied by
    // its first capture, and last the top of c2 landing on d3. The two jumped stacks b2 and
    // c2 keep their Red pieces and block; the jumper's origin a1 is empty behind it.
    let text = "red a1:R a3:W b1:O b2:RO c2:RO c3:O d2:W d4:W d5:RW";
    assert_turns(text, &["a1xc1xe3xb3xb1xd3"]);
    assert_eq!(
        after(text, "a1xc1xe3xb3xb1xd3"),
        "white a3:W b2:R c2:R d3:OOOWOR d4:W d5:RW"
    );
}

#[test]
fn flying_line_only_the_first_occupied_hex_with_the_hex_directly_beyond_empty() {
    // c3 is first on the diagonal, with d4 occupied beyond: nothing to take on that line, and
    // d4 behind it can never be taken.
    assert_turns(
        "red a1:R c3:W d2:RRRWWWOOO d4:O",
        &["a1-a2", "a1-b1", "a1-b2"],
    );
    // The hex directly beyond must be empty: e5 behind d4 is occupied.
    assert_turns(
        "red a1:R d2:RRRWWWOOO d4:W e5:O",
        &["a1-a2", "a1-b1", "a1-b2"],
    );
    // Landing is only directly beyond: b2 adjacent is taken landing on c3, not d4 or e5.
    assert_turns("red a1:R b2:W e3:RRRWWWOOOO", &["a1xc3"]);
}

#[test]
fn only_red_flies_team_captures_are_adjacent() {
    assert_turns(
        "white a1:W c3:R e5:WWWOOOORRR",
        &["a1-a2", "a1-b1", "a1-b2"],
    );
}

#[test]
fn capture_obligation_is_per_side_every_capturing_stack_and_red_flying_openings() {
    // Red a1 has an adjacent capture; e3 only a flying one. Both are allowed, no move is.
    assert_turns("red a1:R b1:W b3:O d5:RRWWWOOO e3:R", &["a1xc1", "e3xa3"]);
    // Team: both White stacks capture, nothing else.
    assert_turns(
        "white a1:W b1:R c5:WWOOOOR d3:R e4:R e5:W",
        &["a1xc1", "e5xe3xc3"],
    );
}

// ----- Team colour alternation and the fall-back -------------------------------------

#[test]
fn team_moves_its_other_colour_while_the_due_colour_tops_no_stack() {
    // White is due but tops nothing: after Red's move the Orange player moves, and White
    // stays due.
    let text = "red a1:R b1:RRR c5:WWWO e3:OOWO";
    assert_turns(text, &["a1-a2", "a1-b2", "b1-b2", "b1-c1", "b1-c2"]);
    let s = parse_turn(&pos3(text), "a1-a2").unwrap().state;
    assert_eq!(
        s.to_notation(),
        "orange a2:R b1:RRR c5:WWWO e3:OOWO quiet=1"
    );
    assert_eq!(s.seat_to_move(), Seat(2));
    assert_eq!(s.side_to_move(), Side(1));
    let s = parse_turn(&s, "e3-e4").unwrap().state;
    // White still due.
    assert_eq!(s.to_notation(), "red a2:R b1:RRR c5:WWWO e4:OOWO quiet=2");
    let s = parse_turn(&s, "a2-a1").unwrap().state;
    assert_eq!(
        s.to_notation(),
        "orange a1:R b1:RRR c5:WWWO e4:OOWO quiet=3"
    );
    assert_eq!(s.seat_to_move(), Seat(2));
    // The notation "white" for this position means the same: White due, Orange moves.
    let same = pos3("white a1:R b1:RRR c5:WWWO e4:OOWO quiet=3");
    assert_eq!(same.to_notation(), s.to_notation());
    assert_eq!(same.position_hash(), s.position_hash());
    assert_eq!(same.seat_to_move(), Seat(2));
}

#[test]
fn team_returns_to_alternation_once_the_due_colour_is_released() {
    // Red must take the Orange top of d2, uncovering a White piece: White (due) moves next.
    let text = "red a1:RR b1:R c1:R c5:WWWO d2:OOWO";
    assert_turns(text, &["c1xe3"]);
    let s = parse_turn(&pos3(text), "c1xe3").unwrap().state;
    assert_eq!(s.to_notation(), "white a1:RR b1:R c5:WWWO d2:OOW e3:OR");
    assert_eq!(s.seat_to_move(), Seat(1));
    // White's only stack d2 moves; Orange is due after it.
    let s = parse_turn(&s, "d2-c1").unwrap().state;
    assert!(s.to_notation().ends_with("team=orange quiet=1"));
    let s = parse_turn(&s, "a1-a2").unwrap().state;
    assert!(s.to_notation().starts_with("orange "));
    assert_eq!(s.seat_to_move(), Seat(2));
}

#[test]
fn rematch3_seats_follow_the_colour_that_moves() {
    let s = Rematch::start(GameKind::Rematch3, rules());
    assert_eq!(s.side_of(Seat(0)), Side(0));
    assert_eq!(s.side_of(Seat(1)), Side(1));
    assert_eq!(s.side_of(Seat(2)), Side(1));
    // Orange is due but tops nothing: the White player moves (fall-back), Seat 1.
    let s = pos3("orange a1:R b1:RRR c5:OOOW e3:WWOW");
    assert_eq!(s.seat_to_move(), Seat(1));
    assert_eq!(s.to_notation().split(' ').next(), Some("white"));
    // The 2-player game has one Team seat.
    let two = pos("orange a1:R b1:RRR c5:WWWO e3:OOWO");
    assert_eq!(two.seat_to_move(), Seat(1));
    assert_eq!(
        pos3("orange a1:R b1:RRR c5:WWWO e3:OOWO").seat_to_move(),
        Seat(2)
    );
    assert_eq!(
        pos3("red a1:R b1:RRR c5:WWWO e3:OOWO").seat_to_move(),
        Seat(0)
    );
    // perft and hashes are the same for both kinds.
    let a = Rematch::start(GameKind::Rematch, rules());
    let b = Rematch::start(GameKind::Rematch3, rules());
    assert_eq!(a.perft(4), b.perft(4));
    assert_eq!(a.position_hash(), b.position_hash());
}

// ----- End of the game ---------------------------------------------------------------

#[test]
fn red_wins_by_taking_the_last_team_top() {
    let text = "red a1:R b2:W e5:WWWOOOORRR";
    assert_turns(text, &["a1xc3"]);
    let s = parse_turn(&pos(text), "a1xc3").unwrap().state;
    assert_eq!(s.outcome(), win(0, EndReason::NoPieces));
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert!(steps.is_empty());
    assert!(distinct_turns(&s).is_empty());
}

#[test]
fn team_wins_by_taking_the_last_red_top() {
    let text = "white a1:W b2:R e5:RRRWWWOOOO";
    assert_turns(text, &["a1xc3"]);
    let s = parse_turn(&pos(text), "a1xc3").unwrap().state;
    assert_eq!(s.outcome(), win(1, EndReason::NoPieces));
    // A position given with no Red top, Red to move, is already lost.
    let s = pos("red a1:RRRRWWWWOOOO");
    assert_eq!(s.outcome(), win(1, EndReason::NoPieces));
    let s = pos("white a1:WWWWOOOORRRR");
    assert_eq!(s.outcome(), win(0, EndReason::NoPieces));
}

#[test]
fn blocked_due_colour_loses_even_if_the_other_colour_could_move() {
    // White's only stack a1 has no move and no capture: the Team loses, Orange cannot
    // stand in.
    let text = "white a1:W a2:R a3:O b1:R b2:R c1:O c3:O e5:WWWOR";
    let s = pos(text);
    assert_eq!(s.outcome(), win(0, EndReason::Blocked));
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert!(steps.is_empty());
    // With Orange due, the same board is playable.
    let s = pos("orange a1:W a2:R a3:O b1:R b2:R c1:O c3:O e5:WWWOR");
    assert_eq!(s.outcome(), None);
}

#[test]
fn blocked_red_loses_after_the_team_closes_its_last_hex() {
    // Red's only stack a1: b1, a2 are Team stacks with occupied hexes beyond; White c2-b2
    // closes the last hex (c3 beyond b2 is occupied too).
    let text = "white a1:R a2:O a3:RW b1:W c1:RO c2:OW c3:ROW";
    assert_eq!(pos(text).outcome(), None);
    let s = parse_turn(&pos(text), "c2-b2").unwrap().state;
    assert_eq!(
        s.to_notation(),
        "red a1:R a2:O a3:RW b1:W b2:OW c1:RO c3:ROW team=orange quiet=1"
    );
    assert_eq!(s.outcome(), win(1, EndReason::Blocked));
    // Given directly.
    let s = pos("red a1:R a2:O a3:RW b1:W b2:OW c1:RO c3:ROW");
    assert_eq!(s.outcome(), win(1, EndReason::Blocked));
}

#[test]
fn forty_turns_without_capture_is_a_draw() {
    let text = "red c3:OOOWWWWRRRR a1:O quiet=39";
    let s = parse_turn(&pos(text), "c3-c4").unwrap().state;
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::NoProgress
        })
    );
    // One turn earlier it goes on.
    let s = parse_turn(&pos("red c3:OOOWWWWRRRR a1:O quiet=38"), "c3-c4")
        .unwrap()
        .state;
    assert_eq!(s.outcome(), None);
    assert_eq!(s.quiet(), 39);
    // A capture resets the count.
    let s = parse_turn(&pos("white a1:RRR c3:W d3:R e5:OOOOWWW quiet=39"), "c3xe3")
        .unwrap()
        .state;
    assert_eq!(s.outcome(), None);
    assert_eq!(s.quiet(), 0);
    // Given as already reached: drawn.
    assert_eq!(
        pos("red c3:OOOWWWWRRRR a1:O quiet=40").outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::NoProgress
        })
    );
    // The quiet draw is checked before the blocked loss: Red's 40th quiet turn blocks
    // White, and the game is a draw.
    let text = "white a1:R a2:O a3:RW b1:W c1:RO c2:OW c3:ROW quiet=39";
    let s = parse_turn(&pos(text), "c2-b2").unwrap().state;
    assert_eq!(s.outcome().unwrap().reason, EndReason::NoProgress);
    // The quiet draw is a rule of the game: it applies with the project rules switched off.
    let off = RulesConfig {
        ply_cap: 0,
        project_draws: false,
    };
    let s =
        Rematch::from_notation(GameKind::Rematch, "red c3:OOOWWWWRRRR a1:O quiet=39", off).unwrap();
    let s = parse_turn(&s, "c3-c4").unwrap().state;
    assert_eq!(s.outcome().unwrap().reason, EndReason::NoProgress);
}

#[test]
fn ply_cap_is_an_adjudicated_draw_counting_whole_turns() {
    let capped = RulesConfig {
        ply_cap: 3,
        project_draws: true,
    };
    let mut s = Rematch::start(GameKind::Rematch, capped);
    for i in 0..3 {
        assert_eq!(s.outcome(), None, "turn {i}");
        s = distinct_turns(&s).swap_remove(0).state;
    }
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::PlyCap
        })
    );
    // 0 disables the cap.
    let mut s = Rematch::start(
        GameKind::Rematch,
        RulesConfig {
            ply_cap: 0,
            project_draws: true,
        },
    );
    for _ in 0..3 {
        s = distinct_turns(&s).swap_remove(0).state;
    }
    assert_eq!(s.outcome(), None);
}

// ----- Steps, actions, hashing -------------------------------------------------------

#[test]
fn steps_are_described_as_moves_and_captures() {
    let s = pos("white a1:W b2:OR b4:WR c4:RO e5:WWOOR");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert_eq!(steps.len(), 1);
    let d = s.describe_step(steps[0]);
    assert_eq!(d.from.unwrap().to_string(), "a1");
    assert_eq!(d.to.to_string(), "c3");
    assert_eq!(d.kind, checkers_zero::game::StepKind::Capture);
    // Action layout: (from * 6 + dir) * 4 + dist - 1, a1 = cell 0, dir (1,1) = 1, dist 2.
    assert_eq!(steps[0], 5);
    // A flying capture a1xe5 is distance 4 along the diagonal.
    let s = pos("red a1:R c5:RRRWWWOOOO d4:W");
    s.legal_steps(&mut steps);
    assert!(steps.contains(&7));
    let d = s.describe_step(7);
    assert_eq!(
        (d.to.to_string(), d.kind),
        ("e5".to_string(), checkers_zero::game::StepKind::Capture)
    );
}

#[test]
fn hash_covers_turn_state_not_counters() {
    let a = pos("red a1:R b1:RRR c5:WWWO e3:OOWO");
    let b = pos("red a1:R b1:RRR c5:WWWO e3:OOWO team=orange");
    let c = pos("red a1:R b1:RRR c5:WWWO e3:OOWO quiet=7");
    assert_ne!(a.position_hash(), b.position_hash());
    assert_eq!(a.position_hash(), c.position_hash());
    let w = pos("white a1:RR b1:R c5:WWWO d2:OOW e3:OR");
    let o = pos("orange a1:RR b1:R c5:WWWO d2:OOW e3:OR");
    let r = pos("red a1:RR b1:R c5:WWWO d2:OOW e3:OR");
    assert_ne!(w.position_hash(), o.position_hash());
    assert_ne!(w.position_hash(), r.position_hash());
    // Mid-sequence states: each step checks its incremental hash against a recomputation
    // (a debug assertion in `apply_step`; tests build with them).
    let mut s = pos("white a1:W b2:OR b4:WR c4:RO e5:WWOOR");
    let mut steps = StepList::new();
    while {
        s.legal_steps(&mut steps);
        !steps.is_empty()
    } {
        s.apply_step(steps[0]);
    }
}

// ----- Notation ----------------------------------------------------------------------

#[test]
fn notation_round_trips_in_canonical_order() {
    for text in [
        "white a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W",
        "red a1:RR b1:R c1:R c5:WWWO d2:OOWO team=orange quiet=17",
        "orange a3:RORW b2:O b4:W c4:R e5:WWOOR quiet=3",
        "red c3:RRWOOWOWORR e5:W",
        "red c3:OOOWWWWRRRR a1:O quiet=40",
    ] {
        let s = pos(text);
        let written = s.to_notation();
        assert_eq!(pos(&written).to_notation(), written);
        assert_eq!(pos(&written).position_hash(), s.position_hash());
    }
    // Unsorted input, default counters and extra spaces are normalised.
    let s = pos(
        "  white e4:W d5:O c5:O   b1:R a1:R a2:R b2:R d2:W d3:W e3:W b4:O c4:O team=white quiet=0 ",
    );
    assert_eq!(
        s.to_notation(),
        "white a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W"
    );
    let s = pos("red a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W team=white");
    assert!(!s.to_notation().contains("team"));
}

fn err(text: &str) -> NotationError {
    match Rematch::from_notation(GameKind::Rematch, text, rules()) {
        Ok(_) => panic!("{text} parsed"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

const PIECES: &str = "a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W";

#[test]
fn notation_errors_name_the_problem() {
    assert!(matches!(err(""), NotationError::EmptyPosition));
    assert!(matches!(
        Rematch::from_notation(GameKind::Hexdame, START, rules()),
        Err(NotationError::UnknownGame(_))
    ));
    assert!(matches!(err("   "), NotationError::EmptyPosition));
    assert!(matches!(
        err(&format!("blue {PIECES}")),
        NotationError::BadSeat { .. }
    ));
    assert!(matches!(
        err(&format!("Red {PIECES}")),
        NotationError::BadSeat { .. }
    ));
    assert!(matches!(
        err(&format!("a1:R {PIECES}")),
        NotationError::BadSeat { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} c3")),
        NotationError::BadToken(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} c3:")),
        NotationError::BadToken(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} quiet=")),
        NotationError::BadToken(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} 3c:R")),
        NotationError::BadCell(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} C3:R")),
        NotationError::BadCell(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} c0:R")),
        NotationError::BadCell(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} a4:R")),
        NotationError::OffBoard(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} z9:R")),
        NotationError::OffBoard(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} c3:X")),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} c3:r")),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err("red c3:RRRRWWWWOOOOR"),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} a1:W")),
        NotationError::DuplicateCell(_)
    ));
    assert!(matches!(
        err(&format!("red {PIECES} ply=3")),
        NotationError::UnknownCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} quiet=x")),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} quiet=-1")),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} quiet=41")),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} quiet=99999999999999999999")),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} team=red")),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err(&format!("red {PIECES} team=White")),
        NotationError::BadCounter { .. }
    ));
    // team= with the Team to move may only repeat the seat.
    assert!(matches!(
        err(&format!("white {PIECES} team=orange")),
        NotationError::BadCounter { .. }
    ));
    assert!(pos(&format!("white {PIECES} team=white"))
        .outcome()
        .is_none());
    // Impossible positions.
    let e = err("red a1:R a2:R b1:R d2:W d3:W e3:W e4:W b4:O c4:O c5:O d5:O");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("12 pieces")),
        "{e}"
    );
    let e = err("red a1:R a2:R b1:R b2:R c3:R d2:W d3:W e4:W b4:O c4:O c5:O d5:O");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("5 red")),
        "{e}"
    );
    let e = err("red a1:R a2:R b1:R b2:R c3:RWO d2:W d3:W e4:W b4:O c4:O c5:O d5:O");
    assert!(matches!(e, NotationError::Impossible(_)));
    assert!(matches!(err("white"), NotationError::Impossible(_)));
    // The side that just moved cannot be without tops.
    let e = err("white a1:RRRRWWWWOOOO");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("Red tops no stack")),
        "{e}"
    );
    let e = err("red a1:WWWWOOOORRRR");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("Team tops no stack")),
        "{e}"
    );
    // A side without tops was just captured: quiet must be 0.
    assert!(matches!(
        err("red a1:RRRRWWWWOOOO quiet=3"),
        NotationError::Impossible(_)
    ));
}

#[test]
fn weird_notation_input_never_panics() {
    let weird = [
        "",
        " ",
        "\n",
        "red",
        "red :",
        "red :R",
        "red a1:",
        "red a1::R",
        "red =",
        "red a=",
        "red =1",
        "red a1:R=",
        "red a1=R:",
        "red é1:R",
        "red a1:RÉ",
        "red a99999999999:R",
        "red a1:RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR",
        "red {:R",
        "red `1:R",
        "red a1:R quiet=4294967296",
        "red a1:R quiet=+1",
        "red a1:R team=",
        "red ~",
        "orange",
        "white quiet=1 quiet=2",
        "red a1:R a1:R",
        "\u{0}",
        "red a\u{0}:R",
    ];
    for text in weird {
        for kind in [GameKind::Rematch, GameKind::Rematch3] {
            let _ = Rematch::from_notation(kind, text, rules());
        }
    }
    // Random text and mutated positions: tests/rules/conformance.rs.
}

#[test]
fn render_shows_tops_heights_and_stack_listing() {
    let s = pos("white a1:W b2:OR b4:WR c4:RO e5:WWOOR");
    let shown = s.render();
    assert!(shown.contains("R5"), "{shown}");
    assert!(shown.contains("W1"), "{shown}");
    assert!(shown.contains("e5: WWOOR"), "{shown}");
    assert!(shown.contains("b2: OR"), "{shown}");
}
