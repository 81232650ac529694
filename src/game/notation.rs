//! Positions and moves as text (`docs/notation.md`): cell names, the token
//! structure of a position, and the errors every parser reports.

use std::fmt;

use super::Action;

/// A cell name: file letter and rank number, both stored 0-based (`a1` is file 0, rank 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// 0-based file (`a` = 0).
    pub file: u8,
    /// 0-based rank (`1` = 0).
    pub rank: u8,
}

impl Coord {
    /// A coordinate from 0-based file and rank.
    pub const fn new(file: u8, rank: u8) -> Coord {
        Coord { file, rank }
    }

    /// Parses a cell name such as `e5` (lower-case file letter, rank from 1).
    pub fn parse(text: &str) -> Result<Coord, NotationError> {
        let bad = || NotationError::BadCell(text.to_string());
        let mut chars = text.chars();
        let file = chars.next().ok_or_else(bad)?;
        if !file.is_ascii_lowercase() {
            return Err(bad());
        }
        let rank_text = chars.as_str();
        if rank_text.is_empty() || !rank_text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let rank: u32 = rank_text.parse().map_err(|_| bad())?;
        if rank == 0 || rank > 26 {
            return Err(bad());
        }
        Ok(Coord::new(file as u8 - b'a', (rank - 1) as u8))
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank + 1)
    }
}

/// Everything that can be wrong with a game name, a position or a move given as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// The game name is not one of the known games.
    #[error("unknown game '{0}' (known: {known})", known = crate::game::GameKind::names(", "))]
    UnknownGame(String),
    /// The position text has no tokens at all.
    #[error("empty position: expected the seat to move, then cell:contents tokens")]
    EmptyPosition,
    /// The first token does not name a seat of this game.
    #[error("bad seat '{token}': expected one of {expected}")]
    BadSeat {
        /// The token found.
        token: String,
        /// The seats this game accepts.
        expected: &'static str,
    },
    /// A token is neither `cell:contents` nor `key=value`.
    #[error("malformed token '{0}': expected cell:contents or key=value")]
    BadToken(String),
    /// A cell name is malformed.
    #[error("malformed cell name '{0}'")]
    BadCell(String),
    /// A well-formed cell name that is not on this board.
    #[error("cell {0} is not on the board")]
    OffBoard(Coord),
    /// The contents of a cell are not valid for this game.
    #[error("bad contents '{contents}' on {cell}: {reason}")]
    BadContents {
        /// The cell.
        cell: Coord,
        /// The contents as written.
        contents: String,
        /// What is allowed.
        reason: &'static str,
    },
    /// The same cell appears twice.
    #[error("cell {0} is given twice")]
    DuplicateCell(Coord),
    /// A `key=value` counter this game does not know.
    #[error("unknown counter '{key}' (known: {known})")]
    UnknownCounter {
        /// The key found.
        key: String,
        /// The keys this game accepts.
        known: &'static str,
    },
    /// A counter with a value out of range or malformed.
    #[error("bad value '{value}' for counter '{key}': {reason}")]
    BadCounter {
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What is allowed.
        reason: &'static str,
    },
    /// The tokens parse but describe a position the rules cannot reach.
    #[error("impossible position: {0}")]
    Impossible(String),
    /// A move's text is not a path of cells.
    #[error("malformed move '{0}': expected a path like b2-c3, a3xc3xe3 or c7-c8*b1*c1")]
    BadMove(String),
    /// A well-formed move that is not legal here.
    #[error("illegal move '{text}' (legal: {legal})")]
    IllegalMove {
        /// The move as written.
        text: String,
        /// The legal moves, space separated.
        legal: String,
    },
    /// An action index that is not a legal step here.
    #[error("action {0} is not a legal step in this position")]
    IllegalStep(Action),
}

/// A position split into its parts, not yet checked against a game's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionTokens<'a> {
    /// The first token: the seat to move.
    pub seat: &'a str,
    /// `cell:contents` tokens, cells distinct, in the order given.
    pub pieces: Vec<(Coord, &'a str)>,
    /// `key=value` tokens, in the order given.
    pub counters: Vec<(&'a str, &'a str)>,
}

impl<'a> PositionTokens<'a> {
    /// Splits a position into seat, pieces and counters; checks token shapes and duplicates.
    pub fn split(text: &'a str) -> Result<Self, NotationError> {
        let mut tokens = text.split_whitespace();
        let seat = tokens.next().ok_or(NotationError::EmptyPosition)?;
        let mut pieces: Vec<(Coord, &str)> = Vec::new();
        let mut counters = Vec::new();
        for token in tokens {
            if let Some((cell, contents)) = token.split_once(':') {
                let cell = Coord::parse(cell)?;
                if contents.is_empty() {
                    return Err(NotationError::BadToken(token.to_string()));
                }
                if pieces.iter().any(|(c, _)| *c == cell) {
                    return Err(NotationError::DuplicateCell(cell));
                }
                pieces.push((cell, contents));
            } else if let Some((key, value)) = token.split_once('=') {
                if key.is_empty() || value.is_empty() {
                    return Err(NotationError::BadToken(token.to_string()));
                }
                if counters.iter().any(|(k, _)| *k == key) {
                    return Err(NotationError::BadToken(token.to_string()));
                }
                counters.push((key, value));
            } else {
                return Err(NotationError::BadToken(token.to_string()));
            }
        }
        Ok(PositionTokens {
            seat,
            pieces,
            counters,
        })
    }
}

/// Parses a counter value as a number no larger than `max`.
pub fn parse_counter(key: &str, value: &str, max: u32) -> Result<u32, NotationError> {
    let bad = |reason| NotationError::BadCounter {
        key: key.to_string(),
        value: value.to_string(),
        reason,
    };
    if !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("expected a non-negative whole number"));
    }
    match value.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(bad("number too large")),
    }
}

/// One piece of a move path: a cell reached by a move/jump (`-`), a capture (`x`) or a drop (`*`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathPart {
    /// The first cell of the path (the origin), or the first drop cell.
    Origin(Coord),
    /// `-cell`
    Move(Coord),
    /// `xcell`
    Capture(Coord),
    /// `*cell`
    Drop(Coord),
}

/// Checks that a move text has the shape of a path (`b2-c3`, `a3xc3`, `c7-c8*b1*c1`, `*b1`).
pub fn parse_path(text: &str) -> Result<Vec<PathPart>, NotationError> {
    let bad = || NotationError::BadMove(text.to_string());
    let mut parts = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let sep = bytes[i];
        let start = if matches!(sep, b'-' | b'x' | b'*') {
            i + 1
        } else {
            i
        };
        let mut end = start + 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        if start >= bytes.len() || end > bytes.len() {
            return Err(bad());
        }
        let cell = Coord::parse(&text[start..end]).map_err(|_| bad())?;
        let part = match (sep, parts.is_empty()) {
            (b'-', false) => PathPart::Move(cell),
            (b'x', false) => PathPart::Capture(cell),
            (b'*', _) => PathPart::Drop(cell),
            (_, true) if start == i => PathPart::Origin(cell),
            _ => return Err(bad()),
        };
        parts.push(part);
        i = end;
    }
    let only_origin = parts.len() == 1 && matches!(parts[0], PathPart::Origin(_));
    if parts.is_empty() || only_origin {
        return Err(bad());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coords_round_trip() {
        for text in ["a1", "e5", "i9", "h8"] {
            assert_eq!(Coord::parse(text).unwrap().to_string(), text);
        }
        for bad in ["", "a", "1a", "A1", "a0", "a1x", "a-1"] {
            assert!(Coord::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn position_tokens_split() {
        let p = PositionTokens::split("white a1:w b2:R quiet=3").unwrap();
        assert_eq!(p.seat, "white");
        assert_eq!(p.pieces.len(), 2);
        assert_eq!(p.counters, vec![("quiet", "3")]);
        assert!(matches!(
            PositionTokens::split("white a1:w a1:r"),
            Err(NotationError::DuplicateCell(_))
        ));
        assert!(matches!(
            PositionTokens::split("white a1"),
            Err(NotationError::BadToken(_))
        ));
        assert!(matches!(
            PositionTokens::split("   "),
            Err(NotationError::EmptyPosition)
        ));
    }

    #[test]
    fn paths_parse() {
        assert_eq!(parse_path("b2-c3").unwrap().len(), 2);
        assert_eq!(parse_path("a3xc3xe3xc1").unwrap().len(), 4);
        assert_eq!(parse_path("c7-c8*b1*c1").unwrap().len(), 4);
        assert_eq!(parse_path("*b1").unwrap().len(), 1);
        for bad in ["", "b2", "b2-", "-b2", "b2c3", "b2-c3x", "b2--c3", "b2+c3"] {
            assert!(parse_path(bad).is_err(), "{bad}");
        }
    }
}
