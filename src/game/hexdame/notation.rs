//! HexDame positions as text, and the board drawn.
//!
//! `white a1:w b1:w ... quiet=N`: seat to move (`white`/`red`), `cell:contents` tokens
//! (`w`/`r` men, `W`/`R` kings) written in cell order (file, then rank: a1, a2, ..., b1, ...),
//! then the optional counter `quiet=N`: whole turns since the last capture or man move
//! (written only when non-zero). The turn count used by the ply cap starts at 0 on a parsed
//! position, and the repetition history starts with the parsed position.
//!
//! Positions the rules cannot reach are rejected (`NotationError::Impossible`): more than 16
//! pieces of a colour; a man on its own promotion row (it would have been crowned); no pieces
//! at all, or none for the side that just moved (only the side to move can have lost its
//! last piece); `quiet=N` ≥ 1 when the side that just moved has no king, or ≥ 2 when the side
//! to move has none (those turns were king moves). With `project_draws`, a parsed position
//! with `quiet` ≥ 50 is already drawn.

use super::*;

impl HexDame {
    /// The position `text` writes.
    pub(super) fn read_notation(
        _kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        let tokens = PositionTokens::split(text)?;
        let mut s = HexDame::empty(rules);
        s.side = match tokens.seat {
            "white" => WHITE as u8,
            "red" => RED as u8,
            other => {
                return Err(NotationError::BadSeat {
                    token: other.to_string(),
                    expected: "white, red",
                })
            }
        };
        s.place_pieces(&tokens)?;
        for &(key, value) in &tokens.counters {
            match key {
                "quiet" => s.quiet = parse_counter(key, value, MAX_QUIET)?,
                _ => {
                    return Err(NotationError::UnknownCounter {
                        key: key.to_string(),
                        known: "quiet",
                    })
                }
            }
        }
        s.check_reachable()?;
        s.hash = s.compute_hash();
        s.outcome = s.boundary_outcome();
        Ok(s)
    }

    /// The position as text.
    pub(super) fn write_notation(&self) -> String {
        let mut out = String::from(Self::seat_name(self.side as usize));
        let mut cells: Vec<u8> = (0..CELLS as u8)
            .filter(|&c| self.contents_char(c).is_some())
            .collect();
        cells.sort_by_key(|&c| coord_of(c));
        for c in cells {
            out.push(' ');
            out.push_str(&coord_of(c).to_string());
            out.push(':');
            out.push(self.contents_char(c).unwrap_or('?'));
        }
        if self.quiet > 0 {
            out.push_str(&format!(" quiet={}", self.quiet));
        }
        out
    }

    /// The board drawn as text, with the counters.
    pub(super) fn draw_board(&self) -> String {
        let grid = HexGrid::new(4);
        let mut out = grid.render(1, |c| match self.contents_char(c) {
            Some(ch) if self.captured & bit(c) != 0 => ch.to_string().to_lowercase(),
            Some(ch) => ch.to_string(),
            None => ".".to_string(),
        });
        out.push_str(&format!(
            "{} to move, quiet={}, turns={}",
            Self::seat_name(self.side as usize),
            self.quiet,
            self.turns
        ));
        if self.mover != NONE {
            let caps: Vec<String> = (0..CELLS as u8)
                .filter(|&c| self.captured & bit(c) != 0)
                .map(|c| coord_of(c).to_string())
                .collect();
            out.push_str(&format!(
                "; capturing with {} (jumped {}), {} more to take",
                coord_of(self.mover),
                caps.join(" "),
                self.remaining
            ));
        }
        out.push('\n');
        out
    }

    fn seat_name(side: usize) -> &'static str {
        if side == WHITE {
            "white"
        } else {
            "red"
        }
    }

    fn contents_char(&self, c: u8) -> Option<char> {
        let king = self.kings & bit(c) != 0;
        if self.pieces[WHITE] & bit(c) != 0 {
            Some(if king { 'W' } else { 'w' })
        } else if self.pieces[RED] & bit(c) != 0 {
            Some(if king { 'R' } else { 'r' })
        } else {
            None
        }
    }

    /// Puts the pieces of a position's tokens on the board.
    fn place_pieces(&mut self, tokens: &PositionTokens) -> Result<(), NotationError> {
        for &(coord, contents) in &tokens.pieces {
            let cell = cell_of(coord).ok_or(NotationError::OffBoard(coord))?;
            let (colour, king) = match contents {
                "w" => (WHITE, false),
                "W" => (WHITE, true),
                "r" => (RED, false),
                "R" => (RED, true),
                _ => {
                    return Err(NotationError::BadContents {
                        cell: coord,
                        contents: contents.to_string(),
                        reason: "expected one of w, r (men), W, R (kings)",
                    })
                }
            };
            self.pieces[colour] |= bit(cell);
            if king {
                self.kings |= bit(cell);
            }
        }
        Ok(())
    }

    /// Refuses positions the rules can never reach: too many pieces, a man on its own
    /// promotion row, no pieces where the side to move must have some, a `quiet` count
    /// of king moves by a side without a king.
    fn check_reachable(&self) -> Result<(), NotationError> {
        // Positions the rules can never reach.
        for colour in [WHITE, RED] {
            let name = Self::seat_name(colour);
            let n = self.pieces[colour].count_ones();
            if n > MAX_PIECES {
                return Err(NotationError::Impossible(format!(
                    "{n} {name} pieces: each side starts with {MAX_PIECES} and never gains any"
                )));
            }
            let men_on_back = self.pieces[colour] & !self.kings & T.promo[colour];
            if men_on_back != 0 {
                let c = coord_of(men_on_back.trailing_zeros() as u8);
                return Err(NotationError::Impossible(format!(
                    "{name} man on {c}, its own promotion row: a man ending a turn there is \
                     crowned and it can never start there"
                )));
            }
        }
        let me = self.side as usize;
        if self.pieces[0] | self.pieces[1] == 0 {
            return Err(NotationError::Impossible(
                "no pieces at all: a game ends as soon as one side has none".to_string(),
            ));
        }
        if self.pieces[1 - me] == 0 {
            return Err(NotationError::Impossible(format!(
                "{} has no pieces but it is not its turn: only the side that just moved can \
                 take the last piece, so the side to move is the one left without pieces",
                Self::seat_name(1 - me)
            )));
        }
        // quiet=N counts turns with neither capture nor man move: king moves only. The side
        // that just moved made the last of them, the side to move the one before.
        let has_king = |colour: usize| self.pieces[colour] & self.kings != 0;
        if self.quiet >= 1 && !has_king(1 - me) {
            return Err(NotationError::Impossible(format!(
                "quiet={} says {}'s last turn was a king move, but {} has no king",
                self.quiet,
                Self::seat_name(1 - me),
                Self::seat_name(1 - me)
            )));
        }
        if self.quiet >= 2 && !has_king(me) {
            return Err(NotationError::Impossible(format!(
                "quiet={} says {}'s previous turn was a king move, but {} has no king",
                self.quiet,
                Self::seat_name(me),
                Self::seat_name(me)
            )));
        }
        Ok(())
    }
}
