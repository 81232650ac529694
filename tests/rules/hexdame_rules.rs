//! HexDame rules, one test per sentence of the published rules and per binding reading
//! (`docs/rules.md`, "HexDame"), each on a hand-built position with the exact set of legal
//! whole turns.

use checkers_zero::game::hexdame::{decode_action, encode_action, HexDame, NUM_ACTIONS};
use checkers_zero::game::turns::{distinct_turns, parse_turn};
use checkers_zero::game::{
    EndReason, GameKind, GameState, NotationError, Outcome, RulesConfig, Seat, Side, StepKind,
    StepList,
};

fn rules() -> RulesConfig {
    RulesConfig::default()
}

fn hd(text: &str) -> HexDame {
    HexDame::from_notation(GameKind::Hexdame, text, rules())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn hd_with(text: &str, rules: RulesConfig) -> HexDame {
    HexDame::from_notation(GameKind::Hexdame, text, rules).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The sorted paths of the distinct whole turns.
fn paths(s: &HexDame) -> Vec<String> {
    distinct_turns(s).into_iter().map(|t| t.path).collect()
}

fn assert_turns(text: &str, expected: &[&str]) {
    let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    expected.sort();
    assert_eq!(paths(&hd(text)), expected, "position {text}");
}

/// The position after the turn written `path`.
fn after(s: &HexDame, path: &str) -> HexDame {
    parse_turn(s, path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .state
}

fn play(text: &str, path: &str) -> String {
    after(&hd(text), path).to_notation()
}

const START: &str = "white a1:w a2:w a3:w a4:w b1:w b2:w b3:w b4:w c1:w c2:w c3:w c4:w d1:w \
d2:w d3:w d4:w f6:r f7:r f8:r f9:r g6:r g7:r g8:r g9:r h6:r h7:r h8:r h9:r i6:r i7:r i8:r i9:r";

// ---------------------------------------------------------------------------------------
// Board, start, turn order.
// ---------------------------------------------------------------------------------------

#[test]
fn board_has_61_cells_with_abs_file_minus_rank_at_most_4() {
    let mut on = 0;
    for f in 0..9u8 {
        for r in 0..9u8 {
            let cell = format!("{}{}", (b'a' + f) as char, r + 1);
            let res =
                HexDame::from_notation(GameKind::Hexdame, &format!("white {cell}:W i9:R"), rules());
            let exists = (f as i32 - r as i32).abs() <= 4;
            if cell == "i9" {
                continue;
            }
            if exists {
                on += 1;
                assert!(res.is_ok(), "{cell}");
            } else {
                assert!(matches!(res, Err(NotationError::OffBoard(_))), "{cell}");
            }
        }
    }
    assert_eq!(on + 1, 61);
    assert_eq!(hd("white e5:W i9:R").num_actions(), 61 * 6 * 8);
}

#[test]
fn initial_setting_sixteen_men_each_white_a1_d4_red_f6_i9() {
    let s = HexDame::start(GameKind::Hexdame, rules());
    assert_eq!(s.to_notation(), START);
    assert_eq!(hd(START).position_hash(), s.position_hash());
    assert_eq!(s.outcome(), None);
    assert!(!s.turn_in_progress());
}

#[test]
fn player_white_begins_with_these_fifteen_moves() {
    let s = HexDame::start(GameKind::Hexdame, rules());
    assert_eq!(s.seat_to_move(), Seat(0));
    assert_eq!(s.side_to_move(), Side(0));
    assert_eq!(
        paths(&s),
        [
            "a4-a5", "a4-b5", "b4-b5", "b4-c5", "c4-c5", "c4-d5", "d1-e1", "d1-e2", "d2-e2",
            "d2-e3", "d3-e3", "d3-e4", "d4-d5", "d4-e4", "d4-e5"
        ]
    );
}

#[test]
fn game_play_alternates_between_white_and_red() {
    let s = HexDame::start(GameKind::Hexdame, rules());
    let s = after(&s, "d4-e5");
    assert_eq!(s.seat_to_move(), Seat(1));
    assert_eq!(s.side_of(Seat(1)), Side(1));
    assert_eq!(s.num_seats(), 2);
    // d4 left empty behind e5: Red must take it at once.
    assert_eq!(paths(&s), ["f6xd4"]);
    let s = after(&s, "f6xd4");
    assert_eq!(s.seat_to_move(), Seat(0));
}

#[test]
fn players_are_not_allowed_to_skip_a_turn() {
    // No pass action exists: every action moves a piece, and a position with a legal step
    // offers only moves.
    let s = hd("white e5:w i9:r");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert_eq!(steps.len(), 3);
    for &a in &steps {
        let d = s.describe_step(a);
        assert_ne!(d.from, Some(d.to));
    }
}

// ---------------------------------------------------------------------------------------
// Moving.
// ---------------------------------------------------------------------------------------

#[test]
fn white_men_move_forward_higher_number_succeeding_letter_or_both() {
    assert_turns("white e5:w i9:r", &["e5-e6", "e5-f5", "e5-f6"]);
}

#[test]
fn red_men_move_forward_smaller_number_preceding_letter_or_both() {
    assert_turns("red e5:r a1:w", &["e5-d4", "e5-d5", "e5-e4"]);
}

#[test]
fn men_move_forward_only_never_back_or_sideways() {
    // Forward cells partly blocked by own pieces: the man may not step back or sideways.
    assert_turns(
        "white e5:w e6:w f6:w i9:r",
        &["e5-f5", "e6-e7", "e6-f7", "f6-f7", "f6-g6", "f6-g7"],
    );
    assert_turns(
        "red e5:r d5:r e4:r a1:w",
        &[
            "d5-c4", "d5-c5", "d5-d4", "e4-d3", "e4-d4", "e4-e3", "e5-d4",
        ],
    );
}

#[test]
fn men_step_only_one_cell() {
    // A man cannot move over empty cells (the red man's forward lines are empty).
    assert_turns("red e9:r a1:w", &["e9-d8", "e9-e8"]);
}

#[test]
fn kings_move_any_distance_in_six_directions() {
    assert_turns(
        "white e5:W i9:r",
        &[
            "e5-f5", "e5-g5", "e5-h5", "e5-i5", "e5-f6", "e5-g7", "e5-h8", "e5-e6", "e5-e7",
            "e5-e8", "e5-e9", "e5-d5", "e5-c5", "e5-b5", "e5-a5", "e5-d4", "e5-c3", "e5-b2",
            "e5-a1", "e5-e4", "e5-e3", "e5-e2", "e5-e1",
        ],
    );
}

#[test]
fn kings_cannot_move_through_pieces() {
    assert_turns(
        "red c3:R c5:r e3:r h7:w",
        &[
            "c3-d3", "c3-d4", "c3-e5", "c3-f6", "c3-g7", "c3-h8", "c3-i9", "c3-c4", "c3-b3",
            "c3-a3", "c3-b2", "c3-a1", "c3-c2", "c3-c1", "c5-b5", "c5-b4", "c5-c4", "e3-d3",
            "e3-d2", "e3-e2",
        ],
    );
}

// ---------------------------------------------------------------------------------------
// Promotion.
// ---------------------------------------------------------------------------------------

#[test]
fn white_man_promotes_ending_its_move_on_rank_9() {
    assert_turns("white e8:w i9:r", &["e8-e9", "e8-f8", "e8-f9"]);
    assert_eq!(play("white e8:w i9:r", "e8-e9"), "red e9:W i9:r");
    assert_eq!(play("white e8:w i9:r", "e8-f9"), "red f9:W i9:r");
    assert_eq!(play("white e8:w i9:r", "e8-f8"), "red f8:w i9:r");
}

#[test]
fn white_man_promotes_ending_its_move_on_file_i() {
    assert_eq!(play("white h6:w e2:r", "h6-i6"), "red e2:r i6:W");
    assert_eq!(play("white h6:w e2:r", "h6-i7"), "red e2:r i7:W");
    assert_eq!(play("white h6:w e2:r", "h6-h7"), "red e2:r h7:w");
}

#[test]
fn red_man_promotes_ending_its_move_on_rank_1() {
    assert_turns("red e2:r h7:w", &["e2-d1", "e2-d2", "e2-e1"]);
    assert_eq!(play("red e2:r h7:w", "e2-d1"), "white d1:R h7:w");
    assert_eq!(play("red e2:r h7:w", "e2-e1"), "white e1:R h7:w");
    assert_eq!(play("red e2:r h7:w", "e2-d2"), "white d2:r h7:w");
}

#[test]
fn red_man_promotes_ending_its_move_on_file_a() {
    assert_eq!(play("red b5:r h7:w", "b5-a5"), "white a5:R h7:w");
    assert_eq!(play("red b5:r h7:w", "b5-a4"), "white a4:R h7:w");
    assert_eq!(play("red b5:r h7:w", "b5-b4"), "white b4:r h7:w");
}

#[test]
fn man_promotes_when_a_capture_ends_on_the_back_rank() {
    assert_eq!(play("white g7:w h8:r e3:r", "g7xi9"), "red e3:r i9:W");
    assert_eq!(play("white g5:w h5:r e3:r", "g5xi5"), "red e3:r i5:W");
    assert_eq!(play("red c3:r b2:w h7:w", "c3xa1"), "white a1:R h7:w");
    assert_eq!(play("red c3:r c2:w h7:w", "c3xc1"), "white c1:R h7:w");
}

#[test]
fn man_visiting_back_rank_during_capture_does_not_promote() {
    // White: d7 x e8 lands on f9 (rank 9), then must go on: f9 x f8 to f7, still a man.
    assert_turns("white d7:w e8:r f8:r", &["d7xf9xf7"]);
    assert_eq!(play("white d7:w e8:r f8:r", "d7xf9xf7"), "red f7:w");
    // Red: d3 x c2 lands on b1 (rank 1), then b1 x b2 to b3, still a man.
    assert_turns("red d3:r c2:w b2:w", &["d3xb1xb3"]);
    assert_eq!(play("red d3:r c2:w b2:w", "d3xb1xb3"), "white b3:r");
}

#[test]
fn man_mid_capture_on_back_rank_still_captures_as_a_man() {
    // f7 x g8 lands on h9; as a king it could fly on over h6, as a man it cannot: the turn
    // ends there and only then is it crowned.
    assert_turns("white f7:w g8:r h6:r", &["f7xh9"]);
    assert_eq!(play("white f7:w g8:r h6:r", "f7xh9"), "red h6:r h9:W");
}

// ---------------------------------------------------------------------------------------
// Capturing.
// ---------------------------------------------------------------------------------------

#[test]
fn men_capture_adjacent_pieces_in_all_six_directions_including_backwards() {
    assert_turns(
        "white e5:w f5:r f6:r e6:r d5:r d4:r e4:r",
        &["e5xc3", "e5xc5", "e5xe3", "e5xe7", "e5xg5", "e5xg7"],
    );
    assert_turns(
        "red e5:r f5:w f6:w e6:w d5:w d4:w e4:w",
        &["e5xc3", "e5xc5", "e5xe3", "e5xe7", "e5xg5", "e5xg7"],
    );
}

#[test]
fn men_capture_kings_too() {
    assert_turns("white e5:w f5:R i9:R", &["e5xg5"]);
}

#[test]
fn men_are_non_flying_and_capture_only_adjacent_pieces() {
    assert_turns("white a1:w c3:r i9:r", &["a1-a2", "a1-b1", "a1-b2"]);
}

#[test]
fn capture_needs_the_field_directly_behind_to_be_empty() {
    // f5 is backed by g5: no capture; the man moves.
    assert_turns("white e5:w f5:r g5:r i9:r", &["e5-e6", "e5-f6"]);
    // A man cannot jump off the board.
    assert_turns("red b2:r a2:w e2:w", &["b2-a1", "b2-b1"]);
}

#[test]
fn capturing_is_compulsory() {
    // a1 could move, but e5 must capture.
    assert_turns("white a1:w e5:w f5:r i9:r", &["e5xg5"]);
}

#[test]
fn chained_jumps_are_compulsory() {
    // After c3 x d3 the man must go on over e4 and d4 (the whole chain, nothing shorter).
    assert_turns("white c3:w d3:r e4:r d4:r", &["c3xe3xe5xc3"]);
}

#[test]
fn must_select_the_capture_taking_the_most_pieces() {
    // b1 can take two (c2, d4), e3 only one (f3): only b1's chain is legal.
    assert_turns("white b1:w c2:r d4:r e3:w f3:r", &["b1xd3xd5"]);
}

#[test]
fn majority_counts_men_and_kings_the_same() {
    // a1 takes man + king, g3 takes two men: both are maximal. The king e1 could take the
    // red king e7 (one piece): not allowed. Quiet moves are not allowed.
    assert_turns(
        "white a1:w b2:r c4:R g3:w g4:r g6:r e1:W e7:R",
        &["a1xc3xc5", "g3xg5xg7"],
    );
}

#[test]
fn two_kings_do_not_outweigh_two_men() {
    // Same count, free choice: e5 x two men, or a1 x two kings.
    assert_turns(
        "white e5:w e6:r e8:r a1:w b2:R c4:R i9:R",
        &["a1xc3xc5", "e5xe7xe9"],
    );
}

#[test]
fn equal_captures_leave_a_free_choice() {
    assert_turns("white e5:w f5:r d5:r", &["e5xc5", "e5xg5"]);
}

#[test]
fn kings_capture_at_a_distance_and_choose_the_landing_cell() {
    // a1 flies over b2 to capture c3 and may stop on any empty cell beyond (i9 is taken).
    assert_turns(
        "white a1:W c3:r i9:R",
        &["a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8"],
    );
}

#[test]
fn king_must_stop_where_the_maximum_capture_continues() {
    // After c3 only e5 (then e6) and f6 (then e6) continue: the other landings are illegal.
    assert_turns(
        "white a1:W c3:r e6:r",
        &[
            "a1xe5xe7", "a1xe5xe8", "a1xe5xe9", "a1xf6xb6", "a1xf6xc6", "a1xf6xd6",
        ],
    );
    // Step by step: the first jump offers only the landings e5 and f6.
    let s = hd("white a1:W c3:r e6:r");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    let mut to: Vec<String> = steps
        .iter()
        .map(|&a| s.describe_step(a).to.to_string())
        .collect();
    to.sort();
    assert_eq!(to, ["e5", "f6"]);
}

#[test]
fn king_long_chain_with_changes_of_direction_and_forced_landings() {
    assert_turns(
        "white b1:w c2:r d4:R e3:w f3:r g4:r h9:W g9:R",
        &["h9xf9xf2xb2xg7xg3"],
    );
    assert_eq!(
        play(
            "white b1:w c2:r d4:R e3:w f3:r g4:r h9:W g9:R",
            "h9xf9xf2xb2xg7xg3"
        ),
        "red b1:w e3:w g3:W"
    );
}

#[test]
fn kings_capture_in_any_direction_forwards_or_backwards() {
    assert_turns("red e5:R e3:w c7:w", &["e5xe1", "e5xe2"]);
    assert_turns("red e5:R e7:w a1:w", &["e5xe8", "e5xe9"]);
}

#[test]
fn each_jump_goes_over_a_single_piece() {
    // Two pieces in a row (d5, c5) cannot be jumped; i5 has no field behind it.
    let s = hd("white e5:W d5:r c5:r i5:R");
    assert!(paths(&s).iter().all(|p| p.contains('-')));
    assert_eq!(paths(&s).len(), 19);
    // Flying king: the first piece on the line (c5) is backed by b5.
    assert_turns("white e5:W c5:r b5:r g5:r", &["e5xh5", "e5xi5"]);
}

#[test]
fn kings_cannot_jump_own_pieces() {
    let s = hd("white e5:W f5:w i9:r");
    assert!(paths(&s).iter().all(|p| p.contains('-')));
}

#[test]
fn chain_may_combine_same_or_different_directions() {
    // Same direction twice.
    assert_turns("white e1:w e2:r e4:r i9:r", &["e1xe3xe5"]);
    // Different directions.
    assert_turns("white b1:w c2:r d4:r", &["b1xd3xd5"]);
}

#[test]
fn captured_pieces_are_removed_only_after_the_capture_is_complete() {
    // Mid-sequence the jumped piece is still on the board.
    let s = hd("white d7:w e8:r f8:r");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert_eq!(steps.len(), 1);
    let mut mid = s.clone();
    mid.apply_step(steps[0]);
    assert!(mid.turn_in_progress());
    assert_eq!(mid.seat_to_move(), Seat(0));
    assert_eq!(mid.outcome(), None);
    assert!(mid.to_notation().contains("e8:r"));
    assert_eq!(mid.position_hash(), mid.compute_hash());
    mid.legal_steps(&mut steps);
    assert_eq!(steps.len(), 1);
    assert_eq!(mid.describe_step(steps[0]).kind, StepKind::Capture);
    mid.apply_step(steps[0]);
    assert!(!mid.turn_in_progress());
    assert_eq!(mid.to_notation(), "red f7:w");
    assert_eq!(mid.position_hash(), mid.compute_hash());
}

#[test]
fn captured_pieces_block_a_flying_king_until_the_sequence_ends() {
    // After e5 x e6 the king cannot fly back south over e6 to take e3 (and vice versa):
    // with immediate removal it would take both. (Only kings can meet a jumped piece
    // again: a man's landing cells all lie an even number of steps from its origin, the
    // pieces it jumps an odd number, so a man can never land on or cross one.)
    assert_turns(
        "white e5:W e6:r e3:r",
        &["e5xe1", "e5xe2", "e5xe7", "e5xe8", "e5xe9"],
    );
}

#[test]
fn a_piece_may_not_be_jumped_more_than_once() {
    // Jumping f5 back (g5 x f5 to e5) would open e5 x d5: three captures. Not allowed, so
    // the maximum is one, either side.
    assert_turns("white e5:w f5:r d5:r", &["e5xc5", "e5xg5"]);
    // A king cannot turn back over the piece it has just taken either.
    assert_turns(
        "white a1:W c3:r b6:r",
        &["a1xd4", "a1xe5", "a1xf6", "a1xg7", "a1xh8", "a1xi9"],
    );
}

#[test]
fn empty_fields_may_be_revisited_and_jumped_over_multiple_times() {
    // The man goes round a triangle and lands back on its own (now empty) origin c3.
    assert_turns("white c3:w d3:r e4:r d4:r", &["c3xe3xe5xc3"]);
    assert_eq!(play("white c3:w d3:r e4:r d4:r", "c3xe3xe5xc3"), "red c3:w");
}

#[test]
fn no_breezing_penalty_only_capturing_moves_are_offered() {
    // Not capturing is impossible (no huffing): only the capture is a legal turn.
    assert_turns("white a1:w e5:w f5:r i9:r", &["e5xg5"]);
}

// ---------------------------------------------------------------------------------------
// Objective and draws.
// ---------------------------------------------------------------------------------------

#[test]
fn capturing_all_opponent_pieces_wins() {
    let s = after(&hd("white e5:w f5:r"), "e5xg5");
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: Some(Side(0)),
            reason: EndReason::NoPieces
        })
    );
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert!(steps.is_empty());
    assert!(paths(&s).is_empty());
    // Parsed directly: the side to move has no pieces, it has lost.
    assert_eq!(
        hd("red g5:w").outcome(),
        Some(Outcome {
            winner: Some(Side(0)),
            reason: EndReason::NoPieces
        })
    );
}

#[test]
fn a_player_that_cannot_move_loses() {
    // Red's man b2 has no step and no capture.
    let s = hd("red b2:r a1:w a2:w b1:w");
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: Some(Side(0)),
            reason: EndReason::Blocked
        })
    );
    // White blocks it by a move.
    let s = hd("white b2:r a1:w a2:w c2:w c3:w d2:w d4:w c1:W");
    assert_eq!(s.outcome(), None);
    let s = after(&s, "c1-b1");
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: Some(Side(0)),
            reason: EndReason::Blocked
        })
    );
    assert_eq!(s.outcome().unwrap().score(Side(1)), 0.0);
}

#[test]
fn third_occurrence_of_the_same_position_is_a_draw() {
    let mut s = hd("white a1:W i9:R");
    assert_eq!(s.repetition_count(), 1);
    let cycle = ["a1-a2", "i9-i8", "a2-a1", "i8-i9"];
    for p in cycle {
        s = after(&s, p);
        assert_eq!(s.outcome(), None);
    }
    assert_eq!(s.repetition_count(), 2);
    for (i, p) in cycle.iter().enumerate() {
        s = after(&s, p);
        if i < 3 {
            assert_eq!(s.outcome(), None, "after {p}");
            assert_eq!(s.repetition_count(), 2);
        }
    }
    assert_eq!(s.repetition_count(), 3);
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::Repetition
        })
    );
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    // The same pieces with the other side to move do not count.
    let mut s = hd("white a1:W i9:R");
    let h0 = s.position_hash();
    s = after(&s, "a1-a2");
    s = after(&s, "i9-i8");
    s = after(&s, "a2-a1");
    // Red to move, pieces a1, i8: compare with white-to-move a1, i8.
    assert_ne!(s.position_hash(), hd("white a1:W i8:R").position_hash());
    assert_ne!(s.position_hash(), h0);
}

#[test]
fn repetition_counting_restarts_after_a_man_move_or_capture() {
    let mut s = hd("white a1:W i9:R c5:w");
    for p in ["a1-a2", "i9-i8", "a2-a1", "i8-i9"] {
        s = after(&s, p);
    }
    assert_eq!(s.repetition_count(), 2);
    s = after(&s, "c5-c6");
    assert_eq!(s.repetition_count(), 1);
}

#[test]
fn fifty_turns_without_capture_or_man_move_is_a_draw_project() {
    let s = hd("white a1:W i9:R e4:w quiet=49");
    assert_eq!(s.outcome(), None);
    assert_eq!(s.quiet_turns(), 49);
    let drawn = after(&s, "a1-a2");
    assert_eq!(
        drawn.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::NoProgress
        })
    );
    // A man move resets the count.
    let reset = after(&s, "e4-e5");
    assert_eq!(reset.outcome(), None);
    assert_eq!(reset.quiet_turns(), 0);
    assert_eq!(reset.to_notation(), "red a1:W e5:w i9:R");
    // King moves count up one per turn.
    let s = after(&hd("white a1:W i9:R e4:w"), "a1-a2");
    assert_eq!(s.quiet_turns(), 1);
    let s = after(&s, "i9-h9");
    assert_eq!(s.quiet_turns(), 2);
    assert_eq!(s.to_notation(), "white a2:W e4:w h9:R quiet=2");
}

#[test]
fn fifty_turn_draw_is_switched_off_by_project_draws_false() {
    let off = RulesConfig {
        ply_cap: 0,
        project_draws: false,
    };
    let s = hd_with("white a1:W i9:R e4:w quiet=49", off);
    let s = after(&s, "a1-a2");
    assert_eq!(s.outcome(), None);
    assert_eq!(s.to_notation(), "red a2:W e4:w i9:R quiet=50");
    let s = hd_with("white a1:W i9:R quiet=70", off);
    assert_eq!(s.outcome(), None);
    // On by default: a parsed position at 50 is already drawn.
    assert_eq!(
        hd("white a1:W i9:R quiet=50").outcome().map(|o| o.reason),
        Some(EndReason::NoProgress)
    );
}

#[test]
fn capture_resets_the_no_progress_count() {
    let s = hd("white a1:W c3:r i9:R quiet=30");
    let s = after(&s, "a1xd4");
    assert_eq!(s.quiet_turns(), 0);
}

#[test]
fn ply_cap_counts_whole_turns_and_draws_project() {
    let capped = RulesConfig {
        ply_cap: 3,
        project_draws: true,
    };
    let mut s = HexDame::start(GameKind::Hexdame, capped);
    for p in ["a4-a5", "i6-i5", "b4-b5"] {
        assert_eq!(s.outcome(), None);
        s = after(&s, p);
    }
    assert_eq!(s.turns_played(), 3);
    assert_eq!(
        s.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::PlyCap
        })
    );
    assert_eq!(s.outcome().unwrap().score(Side(0)), 0.5);
    // A capture sequence of several steps is one turn.
    let s = hd_with(
        "white c3:w d3:r e4:r d4:r i9:r",
        RulesConfig {
            ply_cap: 1,
            project_draws: true,
        },
    );
    let t = after(&s, "c3xe3xe5xc3");
    assert_eq!(t.outcome().map(|o| o.reason), Some(EndReason::PlyCap));
    // 0 disables the cap.
    let mut s = HexDame::start(
        GameKind::Hexdame,
        RulesConfig {
            ply_cap: 0,
            project_draws: true,
        },
    );
    for p in ["a4-a5", "i6-i5", "b4-b5"] {
        s = after(&s, p);
    }
    assert_eq!(s.outcome(), None);
}

#[test]
fn game_over_offers_no_steps() {
    let s = hd("red b2:r a1:w a2:w b1:w");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    assert!(steps.is_empty());
}

// ---------------------------------------------------------------------------------------
// Steps, actions, hashing.
// ---------------------------------------------------------------------------------------

#[test]
fn action_layout_from_direction_distance() {
    assert_eq!(NUM_ACTIONS, 2928);
    // a1 is cell 0; direction 1 is (1,1); distance 3 lands on d4.
    let a = encode_action(0, 1, 3);
    assert_eq!(a, 10);
    assert_eq!(decode_action(a), (0, 1, 3));
    let s = hd("white a1:W i9:R");
    let d = s.describe_step(a);
    assert_eq!(d.from.unwrap().to_string(), "a1");
    assert_eq!(d.to.to_string(), "d4");
    assert_eq!(d.kind, StepKind::Move);
    let s = hd("white a1:W c3:r i9:R");
    assert_eq!(s.describe_step(a).kind, StepKind::Capture);
}

#[test]
fn every_landing_of_a_flying_capture_is_its_own_step() {
    let s = hd("white a1:W c3:r i9:R");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    steps.sort();
    let expected: Vec<u16> = (3..=7).map(|d| encode_action(0, 1, d)).collect();
    assert_eq!(steps, expected);
}

#[test]
fn hash_covers_the_unfinished_turn_and_matches_recomputation() {
    let s = hd("white a1:W c3:r e6:r");
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    let mut hashes = std::collections::HashSet::new();
    hashes.insert(s.position_hash());
    for &a in &steps {
        let mut t = s.clone();
        t.apply_step(a);
        assert!(t.turn_in_progress());
        assert_eq!(t.position_hash(), t.compute_hash());
        assert!(hashes.insert(t.position_hash()));
    }
    // Move counters are not part of the hash.
    assert_eq!(
        hd("white a1:W i9:R quiet=5").position_hash(),
        hd("white a1:W i9:R").position_hash()
    );
    // Side to move is.
    assert_ne!(
        hd("white a1:W i9:R").position_hash(),
        hd("red a1:W i9:R").position_hash()
    );
}

// ---------------------------------------------------------------------------------------
// Notation.
// ---------------------------------------------------------------------------------------

#[test]
fn notation_round_trips_in_canonical_order() {
    for text in [
        START,
        "red a1:W b3:w c4:w d4:W d6:w e4:w e7:w f6:R g8:r h9:r i5:R quiet=12",
        "white e5:W i9:R",
    ] {
        assert_eq!(hd(text).to_notation(), text);
    }
    // Any token order is accepted; output is sorted by cell (file, then rank).
    assert_eq!(
        hd("red  quiet=3  i9:R a1:W   e5:w").to_notation(),
        "red a1:W e5:w i9:R quiet=3"
    );
    // quiet=0 is the default and is not written.
    assert_eq!(
        hd("white e5:W i9:R quiet=0").to_notation(),
        "white e5:W i9:R"
    );
}

fn err(text: &str) -> NotationError {
    match HexDame::from_notation(GameKind::Hexdame, text, rules()) {
        Ok(s) => panic!("{text} parsed as {}", s.to_notation()),
        Err(e) => e,
    }
}

#[test]
fn notation_errors_name_the_problem() {
    assert_eq!(err(""), NotationError::EmptyPosition);
    assert_eq!(err("   "), NotationError::EmptyPosition);
    assert!(matches!(
        err("black a1:w i9:r"),
        NotationError::BadSeat { .. }
    ));
    assert!(matches!(
        err("White a1:w i9:r"),
        NotationError::BadSeat { .. }
    ));
    assert!(matches!(err("white a1 i9:r"), NotationError::BadToken(_)));
    assert!(matches!(err("white a1: i9:r"), NotationError::BadToken(_)));
    assert!(matches!(err("white 1a:w i9:r"), NotationError::BadCell(_)));
    assert!(matches!(err("white A1:w i9:r"), NotationError::BadCell(_)));
    assert_eq!(
        err("white a6:w i9:r"),
        NotationError::OffBoard(checkers_zero::game::Coord::new(0, 5))
    );
    assert!(matches!(err("white j1:w i9:r"), NotationError::OffBoard(_)));
    assert!(matches!(
        err("white a10:w i9:r"),
        NotationError::OffBoard(_)
    ));
    assert!(matches!(
        err("white a1:x i9:r"),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err("white a1:ww i9:r"),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err("white a1:b i9:r"),
        NotationError::BadContents { .. }
    ));
    assert!(matches!(
        err("white a1:w a1:r"),
        NotationError::DuplicateCell(_)
    ));
    assert!(matches!(
        err("white a1:w i9:r ply=3"),
        NotationError::UnknownCounter { .. }
    ));
    assert!(matches!(
        err("white a1:w i9:r team=white"),
        NotationError::UnknownCounter { .. }
    ));
    assert!(matches!(
        err("white a1:w i9:r quiet=-1"),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err("white a1:w i9:r quiet=x"),
        NotationError::BadCounter { .. }
    ));
    assert!(matches!(
        err("white a1:w i9:r quiet=99999999999"),
        NotationError::BadCounter { .. }
    ));
    let msg = err("white a1:x i9:r").to_string();
    assert!(msg.contains("a1") && msg.contains('x'), "{msg}");
}

#[test]
fn notation_rejects_impossible_positions() {
    // 17 white pieces.
    let seventeen = format!("{START} e1:w");
    let e = err(&seventeen);
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("17 white")),
        "{e}"
    );
    let red17 = format!("{START} e9:R");
    assert!(matches!(err(&red17), NotationError::Impossible(m) if m.contains("17 red")));
    // A man on its own promotion row.
    for text in [
        "white e9:w a3:r",
        "white i5:w a3:r",
        "red a3:r i9:w",
        "red e1:r i9:w",
    ] {
        let e = err(text);
        assert!(
            matches!(&e, NotationError::Impossible(m) if m.contains("promotion")),
            "{text}: {e}"
        );
    }
    // Kings there are fine; so are men on the other side's promotion row.
    hd("white e9:W a3:R");
    hd("white a1:w i9:r");
    // No pieces at all; the side not to move without pieces.
    assert!(matches!(err("white"), NotationError::Impossible(_)));
    assert!(matches!(err("white e5:w"), NotationError::Impossible(m) if m.contains("red")));
    assert!(matches!(err("red e5:r"), NotationError::Impossible(m) if m.contains("white")));
    // quiet=N > 0 needs the last N turns to have been king moves.
    let e = err("white e5:W i9:r quiet=1");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("red has no king")),
        "{e}"
    );
    hd("white e5:w i9:R quiet=1");
    let e = err("white e5:w i9:R quiet=2");
    assert!(
        matches!(&e, NotationError::Impossible(m) if m.contains("white has no king")),
        "{e}"
    );
    hd("white e5:W i9:R quiet=2");
}

#[test]
fn weird_notation_input_never_panics() {
    let samples = [
        "",
        " ",
        "white",
        "red",
        "white :",
        "white ::",
        "white a:w",
        "white a1:",
        "white :w",
        "white =",
        "white a=",
        "white =1",
        "white quiet=",
        "white a1:w=3",
        "white zz99:w",
        "white a0:w",
        "white a255:w",
        "white a99999999999999:w",
        "white é1:w",
        "white a1:é",
        "white a1:ww",
        "white a1:W a1:W",
        "red i9:R quiet==3",
        "white \u{0}",
        "white a1:w\tb2:R",
        "white quiet=1 quiet=2 a1:W i9:R",
        "white a1:W i9:R quiet=4294967296",
    ];
    for text in samples {
        let _ = HexDame::from_notation(GameKind::Hexdame, text, rules());
    }
    // Random text and mutated positions: tests/rules/conformance.rs.
}

#[test]
fn render_shows_the_board_and_side_to_move() {
    let r = HexDame::start(GameKind::Hexdame, rules()).render();
    assert!(r.contains("white to move"));
    assert_eq!(r.matches('w').count(), 16 + 1);
    // 16 red men, and the r of "turns".
    assert_eq!(r.matches('r').count(), 16 + 1);
}
