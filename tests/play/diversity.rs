//! Self-play diversity figures (`diversity` in the learner's metrics) on hand-made games
//! with known counts.

use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::selfplay::diversity::{GameDiversity, GameSummary};
use checkers_zero::selfplay::record::GameRecord;
use checkers_zero::selfplay::samples::samples_of_game;
use checkers_zero::train::window::{ReplayWindow, Sample};

/// A ReMATCH game of whole turns, turn i playing the `choices[i]`-th legal first step
/// (modulo their number) and then the first step while the turn goes on.
fn game(choices: &[usize]) -> GameRecord {
    let rules = RulesConfig::default();
    let mut state = Rematch::start(GameKind::Rematch, rules);
    let mut record = GameRecord::new(&state, rules, 0, 0);
    let mut steps = StepList::new();
    for &choice in choices {
        state.legal_steps(&mut steps);
        record.play_unsearched(&mut state, steps[choice % steps.len()]);
        while state.turn_in_progress() && state.outcome().is_none() {
            state.legal_steps(&mut steps);
            record.play_unsearched(&mut state, steps[0]);
        }
        assert!(state.outcome().is_none(), "the hand-made game ends early");
    }
    record
}

fn summary(record: &GameRecord) -> GameSummary {
    GameSummary::of::<Rematch>(record).unwrap()
}

#[test]
fn openings_duplicates_and_entropy_are_counted_by_whole_turns() {
    let base = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let mut third = base;
    third[3] = 1; // differs from turn 4 on (turn 3 is forced on this line)
    let mut first = base;
    first[0] = 1; // differs from turn 1 on
    let mut ninth = base;
    ninth[8] = 1; // differs after 8 turns: the same 8-turn opening
    let mut set = GameDiversity::new(100);
    for choices in [base, base, third, first, ninth] {
        set.add(summary(&game(&choices)));
    }
    let r = set.report(None).unwrap();
    assert_eq!(r.games, 5);
    // 2 turns: {base, base, third, ninth} and {first}.
    assert_eq!(r.openings_2, 2.0 * 1000.0 / 5.0);
    // 4, 6 and 8 turns: {base, base, ninth}, {third}, {first}.
    for openings in [r.openings_4, r.openings_6, r.openings_8] {
        assert_eq!(openings, 3.0 * 1000.0 / 5.0);
    }
    // Counts 3, 1, 1 of 5: exp(H).
    let h: f64 = [0.6f64, 0.2, 0.2].iter().map(|p| -p * p.ln()).sum();
    assert!((r.opening_entropy_4 - h.exp()).abs() < 1e-12, "{r:?}");
    // One game repeats an earlier one step for step.
    assert_eq!(r.duplicate_games, 0.2);
    assert_eq!((r.draws, r.resigned, r.false_resign), (1.0, 0.0, None));
    assert_eq!(r.outcome_entropy, 0.0);
}

#[test]
fn a_short_game_is_its_own_opening_and_the_oldest_games_leave() {
    // One whole turn: its 2-turn opening is the whole game, not shared with a longer game
    // that starts the same way.
    let short = summary(&game(&[0]));
    let long = summary(&game(&[0, 0, 0]));
    assert_eq!(short.openings, [short.whole; 4]);
    assert_ne!(short.openings[0], long.openings[0]);
    assert_eq!(long.openings[1], long.whole);
    let mut set = GameDiversity::new(2);
    set.add(short.clone());
    set.add(short);
    assert_eq!(set.report(None).unwrap().duplicate_games, 0.5);
    set.add(long.clone());
    set.add(long);
    assert_eq!(set.len(), 2);
    let r = set.report(Some(0.25)).unwrap();
    assert_eq!((r.openings_2, r.duplicate_games), (500.0, 0.5));
    assert_eq!(r.repeated_samples, Some(0.25));
    assert!(GameDiversity::new(3).report(None).is_none());
}

#[test]
fn results_resignations_and_false_resignations_are_shares() {
    let mut won = game(&[0, 0]);
    won.winner = Some(0);
    let mut resigned = game(&[0, 1]);
    resigned.resign(checkers_zero::game::Side(1));
    // Played through: side 1 would have resigned and lost (confirmed), side 0 would have
    // resigned and won (a false resignation).
    let mut through = game(&[1, 0]);
    through.winner = Some(0);
    through.played_through = true;
    through.would_resign = [Some(3), Some(5)];
    let draw = game(&[1, 1]);
    let mut set = GameDiversity::new(10);
    for g in [&won, &resigned, &through, &draw] {
        set.add(summary(g));
    }
    let r = set.report(None).unwrap();
    assert_eq!((r.draws, r.resigned), (0.25, 0.25));
    // Results 3 wins of side 0 and a draw: -(3/4 log2 3/4 + 1/4 log2 1/4) bits.
    let bits = -(0.75f64 * 0.75f64.log2() + 0.25 * 0.25f64.log2());
    assert!((r.outcome_entropy - bits).abs() < 1e-12, "{r:?}");
    assert_eq!(r.false_resign, Some(0.5));
    // Not played through: its would-resign marks are not counted.
    through.played_through = false;
    let mut set = GameDiversity::new(10);
    set.add(summary(&through));
    assert_eq!(set.report(None).unwrap().false_resign, None);
}

#[test]
fn the_window_counts_samples_whose_position_repeats() {
    // Every step searched: the two identical games give each position twice, the third
    // game shares only its start position with them.
    let searched = |mut record: GameRecord| {
        for step in &mut record.steps {
            step.value = Some(0.0);
            step.target = vec![(step.action, 1.0)];
        }
        record
    };
    let a = searched(game(&[0, 0, 0]));
    let b = searched(game(&[1, 1, 1]));
    let samples = |g: &GameRecord| -> Vec<Sample> { samples_of_game::<Rematch>(g).unwrap() };
    let (sa, sb) = (samples(&a), samples(&b));
    assert!(sa.len() >= 3 && sb.len() >= 3);
    let mut window = ReplayWindow::new(1000);
    assert_eq!(window.repeated_share(), None);
    window.extend(sa.clone());
    assert_eq!(window.repeated_share(), Some(0.0));
    window.extend(sa.clone());
    assert_eq!(window.repeated_share(), Some(1.0));
    window.extend(sb.clone());
    let n = (2 * sa.len() + sb.len()) as f64;
    // 2 * |a| repeated, plus b's start (shared with a's).
    let expected = (2 * sa.len() + 1) as f64 / n;
    assert_eq!(window.repeated_share(), Some(expected));
    // Shrinking drops the oldest copy of a: a's positions other than the start are single.
    window.set_capacity(sa.len() + sb.len());
    let expected = 2.0 / (sa.len() + sb.len()) as f64;
    assert_eq!(window.repeated_share(), Some(expected));
}
