//! Entering a whole turn by clicks. The page sends the turn so far (its steps), the selected
//! piece and the cell clicked; the answer says what the click did and which cells can be
//! clicked next. Only steps the rules offer are ever applied, and the rules offer only steps
//! that begin or continue a legal whole turn, so any legal turn can be entered and nothing
//! illegal can.
//!
//! A step is entered as origin then landing cell (a drop: its cell alone). In an unfinished
//! turn whose next steps all leave from one cell (the piece that is moving), that cell is
//! selected already, so a multi-capture is entered as one click per landing cell.

use serde::Serialize;

use crate::game::turns::{distinct_turns, for_each_turn};
use crate::game::{Action, Coord, GameState, StepKind, StepList};

/// A legal next step, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepOption {
    /// The action index.
    pub action: Action,
    /// The origin (`None` for a drop).
    pub from: Option<String>,
    /// The landing (or drop) cell.
    pub to: String,
    /// A drop.
    pub drop: bool,
}

/// What the page sends: a position at a turn boundary, the steps entered so far, the
/// selected piece and the click.
#[derive(Clone, Debug, Default)]
pub struct EntryInput {
    /// Steps of the unfinished turn, in order.
    pub steps: Vec<Action>,
    /// The selected piece's cell, if any.
    pub selected: Option<Coord>,
    /// The cell clicked, if any (none: just report the current state).
    pub click: Option<Coord>,
}

/// The turn entry after the click.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry<S> {
    /// Steps of the turn so far.
    pub steps: Vec<Action>,
    /// The selected piece.
    pub selected: Option<String>,
    /// Cells where a click does something.
    pub clickable: Vec<String>,
    /// Landing cells of the selected piece (or drop cells): the next step's choices.
    pub targets: Vec<String>,
    /// The rest of every legal whole turn that goes on from here (through the selected
    /// piece when one is selected), as the cells still to be reached.
    pub paths: Vec<Vec<String>>,
    /// Why the click was refused, if it was.
    pub refused: Option<String>,
    /// The finished turn in the notation (its position's smallest path), once complete.
    pub turn: Option<String>,
    /// The position after the steps so far (mid-turn: the rules' state in between).
    #[serde(skip)]
    pub state: S,
}

/// Why a turn entry cannot even be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// A step of the entry is not legal where it is played.
    #[error("step {index} (action {action}) is not legal there")]
    IllegalStep {
        /// 1-based index of the step.
        index: usize,
        /// The action.
        action: Action,
    },
    /// The steps go past the end of the turn.
    #[error("the turn is already complete after step {0}")]
    PastTurnEnd(usize),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// The legal next steps of `state` (mid-turn or at a boundary).
pub fn options<S: GameState>(state: &S) -> Vec<StepOption> {
    let mut steps = StepList::new();
    state.legal_steps(&mut steps);
    steps
        .iter()
        .map(|&action| {
            let desc = state.describe_step(action);
            StepOption {
                action,
                from: desc.from.map(|c| c.to_string()),
                to: desc.to.to_string(),
                drop: desc.kind == StepKind::Drop,
            }
        })
        .collect()
}

fn replay<S: GameState>(start: &S, steps: &[Action]) -> Result<S, EntryError> {
    if start.outcome().is_some() {
        return Err(EntryError::GameOver);
    }
    let mut state = start.clone();
    for (i, &action) in steps.iter().enumerate() {
        if i > 0 && (!state.turn_in_progress() || state.outcome().is_some()) {
            return Err(EntryError::PastTurnEnd(i));
        }
        state
            .try_apply_step(action)
            .map_err(|_| EntryError::IllegalStep {
                index: i + 1,
                action,
            })?;
    }
    Ok(state)
}

fn done<S: GameState>(state: &S, steps: &[Action]) -> bool {
    !steps.is_empty() && (!state.turn_in_progress() || state.outcome().is_some())
}

/// The single origin of every non-drop option, when the turn is under way and there is one.
fn moving_piece(options: &[StepOption], steps: &[Action]) -> Option<String> {
    let first = options.first()?.from.clone()?;
    let same = options.iter().all(|o| o.from.as_deref() == Some(&first));
    (!steps.is_empty() && same).then_some(first)
}

/// Applies one click to a turn entry from `start` (a position at a turn boundary).
pub fn click<S: GameState>(start: &S, input: &EntryInput) -> Result<Entry<S>, EntryError> {
    let mut steps = input.steps.clone();
    let mut state = replay(start, &steps)?;
    let mut selected = input.selected.map(|c| c.to_string());
    let mut refused = None;
    if let (Some(cell), false) = (input.click, done(&state, &steps)) {
        let cell = cell.to_string();
        let opts = options(&state);
        selected = selected.or_else(|| moving_piece(&opts, &steps));
        let step = opts.iter().find(|o| match &selected {
            Some(from) => o.from.as_ref() == Some(from) && o.to == cell,
            None => o.drop && o.to == cell,
        });
        if let Some(step) = step {
            state.apply_step(step.action);
            steps.push(step.action);
            selected = None;
        } else if opts.iter().any(|o| o.from.as_ref() == Some(&cell)) {
            selected = Some(cell);
        } else if selected.as_ref() == Some(&cell) && moving_piece(&opts, &steps).is_none() {
            selected = None;
        } else {
            refused = Some(format!("{cell} is not a legal choice here"));
        }
    }
    Ok(describe(start, state, steps, selected, refused))
}

fn describe<S: GameState>(
    start: &S,
    state: S,
    steps: Vec<Action>,
    selected: Option<String>,
    refused: Option<String>,
) -> Entry<S> {
    if done(&state, &steps) {
        let hash = state.position_hash();
        let turn = distinct_turns(start)
            .into_iter()
            .find(|t| t.state.position_hash() == hash)
            .map(|t| t.path);
        return Entry {
            steps,
            selected: None,
            clickable: Vec::new(),
            targets: Vec::new(),
            paths: Vec::new(),
            refused,
            turn,
            state,
        };
    }
    let opts = options(&state);
    let selected = selected
        .filter(|s| opts.iter().any(|o| o.from.as_ref() == Some(s)))
        .or_else(|| moving_piece(&opts, &steps));
    let targets: Vec<String> = opts
        .iter()
        .filter(|o| match &selected {
            Some(from) => o.from.as_ref() == Some(from),
            None => o.drop,
        })
        .map(|o| o.to.clone())
        .collect();
    let mut clickable: Vec<String> = opts
        .iter()
        .filter_map(|o| o.from.clone())
        .chain(targets.iter().cloned())
        .collect();
    clickable.sort();
    clickable.dedup();
    let paths = remaining_paths(start, &steps, selected.as_deref());
    Entry {
        steps,
        selected,
        clickable,
        targets,
        paths,
        refused,
        turn: None,
        state,
    }
}

/// Most paths listed for drawing (a position can have thousands of turns).
const MAX_PATHS: usize = 200;

/// The cells still to be reached by each whole turn that starts with `steps` (and, when
/// `selected` is given, whose next step leaves from it).
fn remaining_paths<S: GameState>(
    start: &S,
    steps: &[Action],
    selected: Option<&str>,
) -> Vec<Vec<String>> {
    let mut paths: Vec<Vec<String>> = Vec::new();
    for_each_turn(start, |_, turn, _| {
        if paths.len() >= MAX_PATHS || turn.len() <= steps.len() || !turn.starts_with(steps) {
            return;
        }
        let mut state = start.clone();
        let mut cells = Vec::new();
        for (i, &action) in turn.iter().enumerate() {
            if i >= steps.len() {
                let desc = state.describe_step(action);
                if i == steps.len() {
                    let from = desc.from.map(|c| c.to_string());
                    if selected.is_some() && from.as_deref() != selected {
                        return;
                    }
                    cells.extend(from);
                }
                cells.push(desc.to.to_string());
            }
            state.apply_step(action);
        }
        if !paths.contains(&cells) {
            paths.push(cells);
        }
    });
    paths
}

/// The clicks that enter the whole turn `steps` from `start`, as a person makes them: a
/// step's origin unless it is selected already, then its landing (or drop) cell. Checks each
/// click against the entry's clickable cells, so it fails where a person could not go on.
pub fn clicks_for_turn<S: GameState>(start: &S, steps: &[Action]) -> Result<Vec<String>, String> {
    let mut entry = click(start, &EntryInput::default()).map_err(|e| e.to_string())?;
    let mut clicked = Vec::new();
    for &action in steps {
        let desc = entry.state.describe_step(action);
        let origin = desc.from.map(|c| c.to_string());
        let mut names: Vec<String> = Vec::new();
        if origin.is_some() && entry.selected != origin {
            names.extend(origin);
        }
        names.push(desc.to.to_string());
        for name in names {
            if !entry.clickable.contains(&name) {
                return Err(format!("{name} is not clickable after {clicked:?}"));
            }
            let input = EntryInput {
                steps: entry.steps.clone(),
                selected: entry
                    .selected
                    .as_deref()
                    .map(Coord::parse)
                    .transpose()
                    .map_err(|e| e.to_string())?,
                click: Some(Coord::parse(&name).map_err(|e| e.to_string())?),
            };
            entry = click(start, &input).map_err(|e| e.to_string())?;
            if let Some(why) = entry.refused {
                return Err(why);
            }
            clicked.push(name);
        }
    }
    Ok(clicked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::eximo::Eximo;
    use crate::game::hexdame::HexDame;
    use crate::game::rematch::Rematch;
    use crate::game::turns::Turn;
    use crate::game::{GameKind, RulesConfig};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn cell(name: &str) -> Coord {
        Coord::parse(name).unwrap()
    }

    /// Clicks `cells` in order from `start`; the entry after the last.
    fn clicks<S: GameState>(start: &S, cells: &[&str]) -> Entry<S> {
        let mut entry = click(start, &EntryInput::default()).unwrap();
        for name in cells {
            entry = click_on(start, &entry, name);
            assert!(entry.refused.is_none(), "{name}: {:?}", entry.refused);
        }
        entry
    }

    fn click_on<S: GameState>(start: &S, entry: &Entry<S>, name: &str) -> Entry<S> {
        let input = EntryInput {
            steps: entry.steps.clone(),
            selected: entry.selected.as_deref().map(cell),
            click: Some(cell(name)),
        };
        click(start, &input).unwrap()
    }

    /// Enters `turn` by clicks: the cells clicked and the final entry.
    fn enter<S: GameState>(start: &S, turn: &[Action]) -> (Vec<String>, Entry<S>) {
        let names = clicks_for_turn(start, turn).unwrap();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let entry = clicks(start, &refs);
        (names, entry)
    }

    /// Every legal turn can be entered by clicks, and each lands on its position.
    fn every_turn_enters<S: GameState>(start: &S) {
        for turn in distinct_turns(start) {
            let (names, entry) = enter(start, &turn.steps);
            assert_eq!(entry.turn.as_deref(), Some(turn.path.as_str()), "{names:?}");
            assert_eq!(entry.state.position_hash(), turn.state.position_hash());
        }
    }

    #[test]
    fn every_turn_of_random_positions_can_be_clicked() {
        let mut rng = StdRng::seed_from_u64(3);
        for kind in GameKind::ALL {
            crate::with_game!(kind, S => {
                let mut state = S::start(kind, RulesConfig::default());
                for _ in 0..30 {
                    if state.outcome().is_some() {
                        break;
                    }
                    every_turn_enters(&state);
                    let mut turns = distinct_turns(&state);
                    state = turns.swap_remove(rng.gen_range(0..turns.len())).state;
                }
            });
        }
    }

    #[test]
    fn start_offers_origins_then_targets_and_refuses_others() {
        let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let entry = click(&start, &EntryInput::default()).unwrap();
        assert!(entry.selected.is_none() && entry.targets.is_empty());
        let origins: Vec<String> = options(&start).into_iter().filter_map(|o| o.from).collect();
        for c in &entry.clickable {
            assert!(origins.contains(c));
        }
        let first = entry.clickable[0].clone();
        let selected = clicks(&start, &[&first]);
        assert_eq!(selected.selected.as_deref(), Some(first.as_str()));
        assert!(!selected.targets.is_empty());
        assert!(selected.paths.iter().all(|p| p[0] == first));
        // A cell that is neither an origin nor a target is refused, changing nothing.
        let board = super::super::board::board(GameKind::Rematch);
        let outside = board
            .cells
            .iter()
            .find(|c| !selected.clickable.contains(&c.name))
            .unwrap();
        let input = EntryInput {
            steps: Vec::new(),
            selected: Some(cell(&first)),
            click: Some(cell(&outside.name)),
        };
        let refused = click(&start, &input).unwrap();
        assert!(refused.refused.is_some());
        assert_eq!(refused.selected, selected.selected);
        assert!(refused.steps.is_empty());
    }

    /// A position of a seeded random game of `S` with a turn whose path `wanted` accepts.
    fn find_turn<S: GameState>(kind: GameKind, wanted: impl Fn(&str) -> bool) -> (S, Turn<S>) {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..200 {
            let mut state = S::start(kind, RulesConfig::default());
            for _ in 0..300 {
                if state.outcome().is_some() {
                    break;
                }
                let turns = distinct_turns(&state);
                if let Some(t) = turns.iter().find(|t| wanted(&t.path)) {
                    return (state.clone(), t.clone());
                }
                state = turns[rng.gen_range(0..turns.len())].state.clone();
            }
        }
        panic!("no such turn in random games of {kind}")
    }

    #[test]
    fn multi_capture_continues_from_the_moving_piece() {
        let (start, turn) =
            find_turn::<HexDame>(GameKind::Hexdame, |p| p.matches('x').count() >= 2);
        let (names, _) = enter(&start, &turn.steps);
        let first_two: Vec<&str> = names.iter().take(2).map(String::as_str).collect();
        let mid = clicks(&start, &first_two);
        assert!(mid.turn.is_none(), "the capture goes on");
        // The moving piece is selected already; only its continuations are targets.
        assert_eq!(mid.selected.as_deref(), Some(first_two[1]));
        assert!(mid.targets.contains(&names[2]));
        assert!(mid.paths.iter().all(|p| p[0] == first_two[1]));
        assert_eq!(
            names.len(),
            turn.steps.len() + 1,
            "one click per landing cell"
        );
    }

    #[test]
    fn eximo_drops_are_clicked_on_their_cells() {
        let (start, turn) = find_turn::<Eximo>(GameKind::Eximo, |p| p.contains('*'));
        let (names, done) = enter(&start, &turn.steps);
        assert_eq!(done.turn.as_deref(), Some(turn.path.as_str()));
        // Before the first drop: no piece is selected and exactly the drop cells are offered.
        let drops = turn.path.matches('*').count();
        let before: Vec<&str> = names[..names.len() - drops]
            .iter()
            .map(String::as_str)
            .collect();
        let mid = clicks(&start, &before);
        assert!(mid.selected.is_none(), "no piece moves in a drop phase");
        let mut targets = mid.targets.clone();
        targets.sort();
        assert_eq!(mid.clickable, targets);
        assert!(targets.contains(&names[names.len() - drops]));
    }

    #[test]
    fn bad_entries_are_errors() {
        let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let input = EntryInput {
            steps: vec![u16::MAX],
            ..EntryInput::default()
        };
        assert!(matches!(
            click(&start, &input),
            Err(EntryError::IllegalStep { index: 1, .. })
        ));
        let turn = &distinct_turns(&start)[0];
        let mut steps = turn.steps.clone();
        steps.push(turn.steps[0]);
        let input = EntryInput {
            steps,
            ..EntryInput::default()
        };
        assert!(matches!(
            click(&start, &input),
            Err(EntryError::PastTurnEnd(_))
        ));
    }
}
