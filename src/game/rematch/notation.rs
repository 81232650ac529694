//! ReMATCH positions as text, and the board drawn.
//!
//! `SEAT cell:STACK ... [team=white|orange] [quiet=N]`. SEAT is `red`, or for the Team the
//! colour that moves (`white`/`orange`). When a Team colour is given that tops no stack, it
//! is read as the colour *due* and the Team moves the other one (the notation written back
//! names the colour that moves; both mean the same position). `team=` is the colour due next
//! when Red is to move (default white); when the Team is to move it is accepted only if it
//! equals the seat token, and never written. `quiet=N` counts whole turns since the last
//! capture (0..=40, default 0; 40 means the game is already drawn). Stacks are written bottom
//! to top; tokens are written sorted by cell (file, then rank), counters omitted at default.

use std::fmt::Write;

use super::*;

impl Rematch {
    /// The position `text` writes.
    pub(super) fn read_notation(
        kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        if !matches!(kind, GameKind::Rematch | GameKind::Rematch3) {
            return Err(NotationError::UnknownGame(format!(
                "{kind} (this parser reads rematch and rematch3 positions)"
            )));
        }
        let tokens = PositionTokens::split(text)?;
        let seat = parse_colour_name(tokens.seat).ok_or_else(|| NotationError::BadSeat {
            token: tokens.seat.to_string(),
            expected: "red, white or orange",
        })?;
        let mut state = Rematch::empty_state(kind, rules);
        let counts = state.place_stacks(&tokens)?;
        let team_counter = state.read_counters(&tokens)?;
        check_piece_counts(counts)?;
        state.set_seat_to_move(seat, team_counter)?;
        state.outcome = state.end_check(true);
        Ok(state)
    }

    /// The position as text.
    pub(super) fn write_notation(&self) -> String {
        let mut out = String::from(COLOUR_NAMES[self.colour as usize]);
        let mut order: Vec<usize> = (0..CELLS).filter(|&c| self.cells[c] != 0).collect();
        order.sort_by_key(|&c| coord(c));
        for c in order {
            let s = self.cells[c];
            let _ = write!(out, " {}:", coord(c));
            for level in 0..height(s) {
                out.push(COLOUR_CHARS[piece_at(s, level) as usize]);
            }
        }
        if self.colour == RED && self.team_due == ORANGE {
            out.push_str(" team=orange");
        }
        if self.quiet != 0 {
            let _ = write!(out, " quiet={}", self.quiet);
        }
        out
    }

    /// The board drawn as text, with the turn's state.
    pub(super) fn draw_board(&self) -> String {
        let grid = HexGrid::new(2);
        let mut out = grid.render(3, |cell| {
            let s = self.cells[cell as usize];
            if s == 0 {
                ".".to_string()
            } else {
                format!("{}{}", COLOUR_CHARS[top(s) as usize], height(s))
            }
        });
        out.push_str("stacks (bottom to top):\n");
        let mut order: Vec<usize> = (0..CELLS).filter(|&c| self.cells[c] != 0).collect();
        order.sort_by_key(|&c| coord(c));
        for c in order {
            let s = self.cells[c];
            let text: String = (0..height(s))
                .map(|l| COLOUR_CHARS[piece_at(s, l) as usize])
                .collect();
            let _ = writeln!(out, "  {}: {}", coord(c), text);
        }
        let _ = write!(
            out,
            "colour to move: {}",
            COLOUR_NAMES[self.colour as usize]
        );
        if self.colour == RED {
            let _ = write!(
                out,
                " (Team's colour due next: {})",
                COLOUR_NAMES[self.team_due as usize]
            );
        }
        let _ = writeln!(out, ", turns without capture: {}", self.quiet);
        if self.jumper != NONE {
            let _ = writeln!(
                out,
                "capture sequence in progress from {}",
                coord(self.jumper as usize)
            );
        }
        out
    }

    /// Puts the stacks of a position's tokens on the board; returns the pieces of each
    /// colour.
    fn place_stacks(&mut self, tokens: &PositionTokens) -> Result<[u32; 3], NotationError> {
        let mut counts = [0u32; 3];
        for &(cell, contents) in &tokens.pieces {
            let index = (0..CELLS)
                .find(|&i| COORDS[i] == (cell.file, cell.rank))
                .ok_or(NotationError::OffBoard(cell))?;
            let bad = |reason| NotationError::BadContents {
                cell,
                contents: contents.to_string(),
                reason,
            };
            if contents.len() > TOTAL_PIECES as usize {
                return Err(bad(
                    "a stack has at most 12 pieces (the whole set), written bottom to top in R W O",
                ));
            }
            let mut s = 0u32;
            for (level, ch) in contents.chars().enumerate() {
                let colour = COLOUR_CHARS
                    .iter()
                    .position(|&c| c == ch)
                    .ok_or_else(|| bad("expected a stack bottom to top in the letters R W O"))?;
                s |= (colour as u32) << (2 * level);
                counts[colour] += 1;
            }
            s |= (contents.len() as u32) << 24;
            self.set_cell(index, s);
        }
        Ok(counts)
    }

    /// Reads a position's counters: sets `quiet`, returns the `team` counter if given.
    fn read_counters(&mut self, tokens: &PositionTokens) -> Result<Option<u8>, NotationError> {
        let mut team_counter: Option<u8> = None;
        for &(key, value) in &tokens.counters {
            match key {
                "team" => {
                    let c = match value {
                        "white" => WHITE,
                        "orange" => ORANGE,
                        _ => {
                            return Err(NotationError::BadCounter {
                                key: key.to_string(),
                                value: value.to_string(),
                                reason: "expected white or orange",
                            })
                        }
                    };
                    team_counter = Some(c);
                }
                "quiet" => {
                    self.quiet = parse_counter(key, value, 40)?;
                }
                _ => {
                    return Err(NotationError::UnknownCounter {
                        key: key.to_string(),
                        known: "team, quiet",
                    })
                }
            }
        }
        Ok(team_counter)
    }

    /// Sets the colour to move and the Team's next colour from the seat token and the
    /// `team` counter, refusing positions no game reaches.
    fn set_seat_to_move(
        &mut self,
        seat: u8,
        team_counter: Option<u8>,
    ) -> Result<(), NotationError> {
        let red_tops = self.tops[RED as usize] != 0;
        let team_tops = self.tops[WHITE as usize] | self.tops[ORANGE as usize] != 0;
        if seat == RED {
            if !team_tops {
                return Err(NotationError::Impossible(
                    "Red is to move but the Team tops no stack: the Team's own last turn \
                     cannot have left it without stacks (the game ended when Red took the \
                     last top)"
                        .to_string(),
                ));
            }
            self.colour = RED;
            self.team_due = team_counter.unwrap_or(WHITE);
        } else {
            if !red_tops {
                return Err(NotationError::Impossible(
                    "the Team is to move but Red tops no stack: Red's own last turn cannot \
                     have left it without stacks (the game ended when the Team took the \
                     last top)"
                        .to_string(),
                ));
            }
            if let Some(c) = team_counter.filter(|&c| c != seat) {
                return Err(NotationError::BadCounter {
                    key: "team".to_string(),
                    value: COLOUR_NAMES[c as usize].to_string(),
                    reason: "when the Team is to move, the seat token already names its \
                             colour; team= may only repeat it",
                });
            }
            self.colour = self.effective_team_colour(seat);
            self.team_due = self.colour;
        }
        if self.quiet > 0 && (!red_tops || !team_tops) {
            return Err(NotationError::Impossible(
                "a side has just lost its last top, so the last turn was a capture: quiet must \
                 be 0"
                    .to_string(),
            ));
        }
        Ok(())
    }
}

fn parse_colour_name(s: &str) -> Option<u8> {
    COLOUR_NAMES.iter().position(|&n| n == s).map(|i| i as u8)
}

/// ReMATCH always has its 12 pieces on the board, 4 of each colour.
fn check_piece_counts(counts: [u32; 3]) -> Result<(), NotationError> {
    let total: u32 = counts.iter().sum();
    if total != TOTAL_PIECES || counts.iter().any(|&n| n != 4) {
        return Err(NotationError::Impossible(format!(
            "ReMATCH always has its 12 pieces on the board, 4 of each colour (captured \
             pieces stay inside stacks); found {} red, {} white, {} orange",
            counts[0], counts[1], counts[2]
        )));
    }
    Ok(())
}
