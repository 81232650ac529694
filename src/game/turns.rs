//! Whole turns built from steps, generically for every game: enumeration with paths,
//! distinct resulting positions (what `moves` prints and perft counts), and parsing a
//! turn written in the move notation.

use std::collections::HashMap;
use std::fmt::Write;

use super::notation::parse_path;
use super::{Action, GameState, NotationError, StepKind, StepList};

/// Appends the text of one step to a turn's path (`b2-c3`, `xc5`, `*b1`).
pub fn push_step_text<S: GameState>(state: &S, action: Action, first: bool, path: &mut String) {
    let desc = state.describe_step(action);
    match desc.kind {
        StepKind::Drop => {
            let _ = write!(path, "*{}", desc.to);
        }
        kind => {
            if first {
                if let Some(from) = desc.from {
                    let _ = write!(path, "{from}");
                }
            }
            let sep = if kind == StepKind::Capture { 'x' } else { '-' };
            let _ = write!(path, "{sep}{}", desc.to);
        }
    }
}

/// Calls `visit(path, steps, end)` for every sequence of steps that makes one whole turn
/// from `state` (a position at a turn boundary). Nothing is visited when the game is over.
pub fn for_each_turn<S: GameState>(state: &S, mut visit: impl FnMut(&str, &[Action], &S)) {
    if state.outcome().is_some() {
        return;
    }
    let mut path = Some(String::new());
    walk(state, true, &mut path, &mut Vec::new(), &mut visit);
}

/// [`for_each_turn`] without the paths (`visit(steps, end)`): what a search needs, at less
/// cost.
pub fn for_each_turn_steps<S: GameState>(state: &S, mut visit: impl FnMut(&[Action], &S)) {
    if state.outcome().is_some() {
        return;
    }
    walk(
        state,
        true,
        &mut None,
        &mut Vec::new(),
        &mut |_, steps, end| visit(steps, end),
    );
}

/// The walk behind [`for_each_turn`]; `path` is `None` when no text is wanted (then `visit`
/// gets an empty path).
fn walk<S: GameState>(
    state: &S,
    first: bool,
    path: &mut Option<String>,
    steps: &mut Vec<Action>,
    visit: &mut impl FnMut(&str, &[Action], &S),
) {
    let mut legal = StepList::new();
    state.legal_steps(&mut legal);
    for &action in &legal {
        let mark = path.as_ref().map_or(0, String::len);
        if let Some(path) = path.as_mut() {
            push_step_text(state, action, first, path);
        }
        steps.push(action);
        let mut next = state.clone();
        next.apply_step(action);
        if next.turn_in_progress() && next.outcome().is_none() {
            walk(&next, false, path, steps, visit);
        } else {
            visit(path.as_deref().unwrap_or(""), steps, &next);
        }
        steps.pop();
        if let Some(path) = path.as_mut() {
            path.truncate(mark);
        }
    }
}

/// One whole turn and the position it leads to.
#[derive(Debug, Clone)]
pub struct Turn<S> {
    /// The path in the move notation (the lexicographically smallest of its position's paths).
    pub path: String,
    /// The steps that make it.
    pub steps: Vec<Action>,
    /// The position after it.
    pub state: S,
}

/// The distinct positions reachable by one whole turn, each with its smallest path, sorted
/// by path.
pub fn distinct_turns<S: GameState>(state: &S) -> Vec<Turn<S>> {
    let mut by_position: HashMap<u64, Turn<S>> = HashMap::new();
    for_each_turn(state, |path, steps, end| {
        let key = end.position_hash();
        match by_position.get_mut(&key) {
            Some(turn) if turn.path.as_str() <= path => {}
            Some(turn) => {
                turn.path = path.to_string();
                turn.steps = steps.to_vec();
            }
            None => {
                by_position.insert(
                    key,
                    Turn {
                        path: path.to_string(),
                        steps: steps.to_vec(),
                        state: end.clone(),
                    },
                );
            }
        }
    });
    let mut turns: Vec<Turn<S>> = by_position.into_values().collect();
    turns.sort_by(|a, b| a.path.cmp(&b.path));
    turns
}

/// perft through the generic step interface: leaves of the tree of distinct whole-turn
/// children. Slow next to a game's own generator, but it is the reference.
pub fn perft_generic<S: GameState>(state: &S, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut children: HashMap<u64, S> = HashMap::new();
    for_each_turn_steps(state, |_, end| {
        children
            .entry(end.position_hash())
            .or_insert_with(|| end.clone());
    });
    if depth == 1 {
        return children.len() as u64;
    }
    children.values().map(|c| perft_generic(c, depth - 1)).sum()
}

/// Finds the turn written as `text` (any of its paths) and returns its steps and the
/// position after it. Errors say whether the text is malformed or the move illegal.
pub fn parse_turn<S: GameState>(state: &S, text: &str) -> Result<Turn<S>, NotationError> {
    let text = text.trim();
    parse_path(text)?;
    let mut found: Option<Turn<S>> = None;
    for_each_turn(state, |path, steps, end| {
        if found.is_none() && path == text {
            found = Some(Turn {
                path: path.to_string(),
                steps: steps.to_vec(),
                state: end.clone(),
            });
        }
    });
    found.ok_or_else(|| NotationError::IllegalMove {
        text: text.to_string(),
        legal: distinct_turns(state)
            .iter()
            .map(|t| t.path.as_str())
            .collect::<Vec<_>>()
            .join(" "),
    })
}

/// The legal whole turns of the position `text` gives (the start without one), one per
/// distinct resulting position (its smallest path), sorted: what `checkers-zero moves`
/// prints and the web API's `/api/legal` answers.
pub fn turn_paths(
    kind: super::GameKind,
    text: Option<&str>,
    rules: super::RulesConfig,
) -> Result<Vec<String>, NotationError> {
    crate::with_game!(kind, S => {
        let state: S = super::position(kind, text, rules)?;
        Ok(distinct_turns(&state).into_iter().map(|t| t.path).collect())
    })
}
