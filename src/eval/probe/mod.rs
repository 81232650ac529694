//! Probe sets: positions with known best turns, to measure a checkpoint's policy, search and
//! value head against (`checkers-zero probe`), and how they are built from game records
//! (`checkers-zero probe-build`). See `docs/evaluation.md`, "Probe sets".
//!
//! # The set file
//! A small text file: `#` comment lines (the first ones say what rebuilt the file and the
//! share proven by phase), then `game NAME`, `labels solver|search`, and one position per
//! line:
//!
//! ```text
//! POSITION | SEAT | PHASE | TURN=VALUE;TURN=VALUE... | position VALUE
//! ```
//! POSITION in the project notation, SEAT the seat to move, PHASE `opening`, `middle` or
//! `end`, each TURN as `moves` writes it. With `labels solver` every legal turn is listed
//! with its proven value (as `solve` writes values, partial ones included) and the
//! position's value is proven at least as a class; with `labels search` only the turn two
//! different searches agreed on is listed, as `TURN=best`, and the position's value is
//! `unknown`: search labels, not proofs.
//!
//! The parts: [`build`] (`probe-build`), [`score`] (`probe`: a checkpoint measured),
//! [`agents`] (agents without a net measured), [`validate`] (a set checked against a
//! ladder), [`command`] (both commands' arguments); here, the set file.

pub mod agents;
pub mod build;
pub mod command;
pub mod score;
pub mod validate;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::game::turns::distinct_turns;
use crate::game::{GameKind, GameState};
use crate::search::solve::{Proven, RULES_ALONE};
use crate::with_game;

/// The stage of the game a position comes from: the thirds of its game's turns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// The first third of the game's turns.
    Opening,
    /// The second third.
    Middle,
    /// The last third.
    End,
}

impl Phase {
    /// Every phase, in order.
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middle, Phase::End];

    /// The phase of the position before turn `turn` (0-based) of a game of `turns` turns.
    pub fn of_turn(turn: usize, turns: usize) -> Phase {
        Phase::ALL[(3 * turn / turns.max(1)).min(2)]
    }

    /// The name in set files.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middle => "middle",
            Phase::End => "end",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a set's turn labels are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// Proven by the exact solver.
    Solver,
    /// The best turn two different searches agreed on (not a proof).
    Search,
}

impl LabelKind {
    /// The name in set files (`solver`, `search`).
    pub fn name(self) -> &'static str {
        match self {
            LabelKind::Solver => "solver",
            LabelKind::Search => "search",
        }
    }
}

/// The label of one turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// Its proven value, from the view of the side making it.
    Value(Proven),
    /// The turn two searches agreed is best.
    Best,
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Value(v) => v.fmt(f),
            Label::Best => f.write_str("best"),
        }
    }
}

impl Label {
    /// Whether playing this turn keeps the position's value `position`: `Some(true)` an
    /// optimal turn (a best turn, or one proven of the position's class), `Some(false)` a
    /// turn proven to lose value, `None` not known.
    pub fn keeps(self, position: Proven) -> Option<bool> {
        match self {
            Label::Best => Some(true),
            Label::Value(value) => {
                let class = position.class()?;
                let (lo, hi) = value.class_range();
                if lo >= class {
                    Some(true)
                } else if hi < class {
                    Some(false)
                } else {
                    None
                }
            }
        }
    }
}

/// One position of a probe set.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbePosition {
    /// The position in the project notation.
    pub position: String,
    /// The seat to move (its name).
    pub seat: String,
    /// The stage of its game it was taken from.
    pub phase: Phase,
    /// Labelled turns, as `moves` writes them.
    pub turns: Vec<(String, Label)>,
    /// The position's value for the side to move.
    pub value: Proven,
}

/// A probe set: one game's positions and their labels.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSet {
    /// The game.
    pub game: GameKind,
    /// What the labels are.
    pub labels: LabelKind,
    /// The comment lines at the top (without their `# `).
    pub comments: Vec<String>,
    /// The positions.
    pub positions: Vec<ProbePosition>,
}

/// Errors reading, building or scoring probe sets.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A set file line that does not parse.
    #[error("{path}, line {line}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Its 1-based line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A file that cannot be read or written.
    #[error("{path}: {reason}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// Settings or inputs that cannot make or score a set.
    #[error("{0}")]
    Settings(String),
    /// A model that cannot be found, loaded or run.
    #[error("{path}: {reason}")]
    Model {
        /// The checkpoint as given.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl ProbePosition {
    /// The set-file line.
    pub fn line(&self) -> String {
        let turns: Vec<String> = self.turns.iter().map(|(t, l)| format!("{t}={l}")).collect();
        format!(
            "{} | {} | {} | {} | position {}",
            self.position,
            self.seat,
            self.phase,
            turns.join(";"),
            self.value
        )
    }

    /// Parses a set-file line of game `kind` and checks it against the rules: the position
    /// parses, the seat is the one to move, every labelled turn is a legal turn as `moves`
    /// writes it, and with solver labels every legal turn is labelled.
    pub fn parse(text: &str, kind: GameKind, labels: LabelKind) -> Result<Self, String> {
        let fields: Vec<&str> = text.split('|').map(str::trim).collect();
        let [position, seat, phase, turns, value] = fields[..] else {
            return Err(format!(
                "expected 5 fields separated by '|', found {}",
                fields.len()
            ));
        };
        let phase = Phase::ALL
            .into_iter()
            .find(|p| p.name() == phase)
            .ok_or_else(|| format!("bad phase '{phase}': expected opening, middle or end"))?;
        let value = value
            .strip_prefix("position ")
            .ok_or_else(|| format!("expected 'position VALUE', found '{value}'"))?;
        let value: Proven = value.parse().map_err(|e| format!("{e}"))?;
        let turns = parse_turns(turns)?;
        let parsed = ProbePosition {
            position: position.to_string(),
            seat: seat.to_string(),
            phase,
            turns,
            value,
        };
        with_game!(kind, S => parsed.check::<S>(kind, labels))?;
        Ok(parsed)
    }

    /// The position under the rules alone.
    pub fn state<S: GameState>(&self, kind: GameKind) -> Result<S, String> {
        S::from_notation(kind, &self.position, RULES_ALONE).map_err(|e| e.to_string())
    }

    fn check<S: GameState>(&self, kind: GameKind, labels: LabelKind) -> Result<(), String> {
        let state: S = self.state(kind)?;
        let to_move = kind.seat_names()[state.seat_to_move().0 as usize];
        if self.seat != to_move {
            return Err(format!("seat '{}', but {to_move} is to move", self.seat));
        }
        let legal: Vec<String> = distinct_turns(&state).into_iter().map(|t| t.path).collect();
        if let Some((turn, _)) = self.turns.iter().find(|(t, _)| !legal.contains(t)) {
            return Err(format!(
                "'{turn}' is not a legal turn as `moves` writes it (legal: {})",
                legal.join(" ")
            ));
        }
        let proven = self.turns.iter().all(|(_, l)| matches!(l, Label::Value(_)));
        let complete = self.turns.len() == legal.len();
        match labels {
            LabelKind::Solver if !(proven && complete) => Err(
                "a solver-labelled position lists every legal turn once, each with a value".into(),
            ),
            LabelKind::Solver if self.value.class().is_none() => {
                Err("a solver-labelled position has a proven win, draw or loss".into())
            }
            LabelKind::Search if self.turns.len() != 1 || self.turns[0].1 != Label::Best => {
                Err("a search-labelled position lists exactly one turn, as TURN=best".into())
            }
            _ => Ok(()),
        }
    }
}

/// `TURN=LABEL;TURN=LABEL...`, each turn once.
fn parse_turns(text: &str) -> Result<Vec<(String, Label)>, String> {
    let mut turns: Vec<(String, Label)> = Vec::new();
    for item in text.split(';').filter(|s| !s.trim().is_empty()) {
        let (turn, label) = item
            .split_once('=')
            .ok_or_else(|| format!("expected TURN=VALUE, found '{item}'"))?;
        let turn = turn.trim().to_string();
        let label = match label.trim() {
            "best" => Label::Best,
            value => Label::Value(value.parse().map_err(|e| format!("{turn}: {e}"))?),
        };
        if turns.iter().any(|(t, _)| *t == turn) {
            return Err(format!("turn '{turn}' is labelled twice"));
        }
        turns.push((turn, label));
    }
    Ok(turns)
}

impl ProbeSet {
    /// The set file's text.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for comment in &self.comments {
            text.push_str(&format!("# {comment}\n"));
        }
        text.push_str(&format!(
            "game {}\nlabels {}\n",
            self.game,
            self.labels.name()
        ));
        for p in &self.positions {
            text.push_str(&p.line());
            text.push('\n');
        }
        text
    }

    /// Parses a set file's text; errors name `path` and the line.
    pub fn parse(text: &str, path: &Path) -> Result<ProbeSet, ProbeError> {
        let error = |line: usize, reason: String| ProbeError::Parse {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut comments = Vec::new();
        let mut game = None;
        let mut labels = None;
        let mut positions = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if let Some(comment) = line.strip_prefix('#') {
                comments.push(comment.trim().to_string());
            } else if line.is_empty() {
                continue;
            } else if let Some(name) = line.strip_prefix("game ") {
                game = Some(
                    name.trim()
                        .parse::<GameKind>()
                        .map_err(|e| error(i + 1, e.to_string()))?,
                );
            } else if let Some(kind) = line.strip_prefix("labels ") {
                labels = Some(match kind.trim() {
                    "solver" => LabelKind::Solver,
                    "search" => LabelKind::Search,
                    other => {
                        return Err(error(
                            i + 1,
                            format!("bad labels '{other}': expected solver or search"),
                        ))
                    }
                });
            } else {
                let (Some(game), Some(labels)) = (game, labels) else {
                    return Err(error(
                        i + 1,
                        "expected 'game NAME' and 'labels solver|search' before the positions"
                            .into(),
                    ));
                };
                positions
                    .push(ProbePosition::parse(line, game, labels).map_err(|r| error(i + 1, r))?);
            }
        }
        let (Some(game), Some(labels)) = (game, labels) else {
            return Err(error(
                text.lines().count(),
                "no 'game NAME' and 'labels solver|search' lines".into(),
            ));
        };
        Ok(ProbeSet {
            game,
            labels,
            comments,
            positions,
        })
    }

    /// Reads a set file.
    pub fn read(path: &Path) -> Result<ProbeSet, ProbeError> {
        let text = std::fs::read_to_string(path).map_err(|e| ProbeError::File {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        ProbeSet::parse(&text, path)
    }

    /// Writes the set file atomically.
    pub fn write(&self, path: &Path) -> Result<(), ProbeError> {
        crate::util::write_atomic(path, self.to_text().as_bytes()).map_err(|e| ProbeError::File {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests;
