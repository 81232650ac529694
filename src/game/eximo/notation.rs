//! Eximo positions as text, and the board drawn: `SEAT cell:b|w ...`, no counters.
//!
//! # Impossible positions (rejected by `from_notation`)
//! A man on its own far row (it is removed on arrival); a black man on a1/h1 or a white man
//! on a8/h8 (men enter their first row only on b–g and could leave it sideways only by
//! capturing an enemy man on that row, where enemy men never stand); the side that has just
//! moved without men (a side always keeps men after its own turn).

use std::fmt::Write as _;

use super::*;

impl Eximo {
    /// The position `text` writes.
    pub(super) fn read_notation(
        kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        if kind != GameKind::Eximo {
            return Err(NotationError::UnknownGame(format!(
                "{kind} (this rules core plays eximo)"
            )));
        }
        Eximo::parse(text, rules)
    }

    /// Parses a position: seat, `cell:b|w` tokens, no counters.
    fn parse(text: &str, rules: RulesConfig) -> Result<Eximo, NotationError> {
        let seat = text
            .split_whitespace()
            .next()
            .ok_or(NotationError::EmptyPosition)?;
        let side = match seat {
            "black" => 0u8,
            "white" => 1u8,
            _ => {
                return Err(NotationError::BadSeat {
                    token: seat.to_string(),
                    expected: "black, white",
                })
            }
        };
        let tokens = PositionTokens::split(text)?;
        if let Some((key, _)) = tokens.counters.first() {
            return Err(NotationError::UnknownCounter {
                key: key.to_string(),
                known: "none: Eximo positions have no counters",
            });
        }
        let mut men = [0u64; 2];
        for &(cell, contents) in &tokens.pieces {
            if cell.file >= 8 || cell.rank >= 8 {
                return Err(NotationError::OffBoard(cell));
            }
            let side = match contents {
                "b" => BLACK,
                "w" => WHITE,
                _ => {
                    return Err(NotationError::BadContents {
                        cell,
                        contents: contents.to_string(),
                        reason: "expected b (a black man) or w (a white man)",
                    })
                }
            };
            let sq = cell.rank * 8 + cell.file;
            men[side] |= bit(sq);
        }
        // Men that the rules can never leave on these cells.
        let checks: [(u64, &str); 4] = [
            (
                men[BLACK] & RANK_8,
                "a black man on rank 8, Black's far row (it is removed at once on arrival)",
            ),
            (
                men[WHITE] & RANK_1,
                "a white man on rank 1, White's far row (it is removed at once on arrival)",
            ),
            (
                men[BLACK] & (bit(0) | bit(7)),
                "a black man on a1 or h1 (Black's men start and are dropped on b-g, only move \
                 northwards, and capture sideways only over white men, which never stand on rank 1)",
            ),
            (
                men[WHITE] & (bit(56) | bit(63)),
                "a white man on a8 or h8 (White's men start and are dropped on b-g, only move \
                 southwards, and capture sideways only over black men, which never stand on rank 8)",
            ),
        ];
        for (bad, why) in checks {
            if bad != 0 {
                let sq = bad.trailing_zeros() as u8;
                return Err(NotationError::Impossible(format!("{}: {why}", coord(sq))));
            }
        }
        let waiting = side as usize ^ 1;
        if men[waiting] == 0 {
            return Err(NotationError::Impossible(format!(
                "{} has no men but has just moved (a side always keeps its men after its own \
                 turn: a man reaching the far row frees drops into an empty drop zone)",
                ["black", "white"][waiting]
            )));
        }
        Ok(Eximo::from_parts(men, side, rules))
    }

    /// The position as text.
    pub(super) fn write_notation(&self) -> String {
        let mut text = String::from(["black", "white"][self.side as usize]);
        // Sorted by cell: file, then rank.
        for file in 0..8u8 {
            for rank in 0..8u8 {
                let sq = rank * 8 + file;
                for (side, c) in [(BLACK, 'b'), (WHITE, 'w')] {
                    if self.men[side] & bit(sq) != 0 {
                        let _ = write!(text, " {}:{c}", coord(sq));
                    }
                }
            }
        }
        text
    }

    /// The board drawn as text.
    pub(super) fn draw_board(&self) -> String {
        let mut s = String::new();
        for rank in (0..8u8).rev() {
            let _ = write!(s, "{} ", rank + 1);
            for file in 0..8u8 {
                let sq = rank * 8 + file;
                let c = if self.men[BLACK] & bit(sq) != 0 {
                    'b'
                } else if self.men[WHITE] & bit(sq) != 0 {
                    'w'
                } else {
                    '.'
                };
                let _ = write!(s, " {c}");
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        let phase = match self.phase {
            Phase::Start => String::new(),
            Phase::Capturing(sq) => format!(" (the man on {} must capture on)", coord(sq)),
            Phase::Jumping(sq) => format!(" (the man on {} must jump on)", coord(sq)),
            Phase::Dropping(n) => format!(" ({n} drop(s) due)"),
        };
        let _ = writeln!(
            s,
            "{} to move{phase}; turn {}",
            ["black", "white"][self.side as usize],
            self.turns
        );
        s
    }
}
