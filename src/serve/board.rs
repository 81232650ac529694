//! Boards for the page: where each cell is drawn, and the pieces of a position as the
//! page draws them. The page knows no game's geometry; it draws what this module says.

use serde::Serialize;

use crate::game::hex::HexGrid;
use crate::game::notation::PositionTokens;
use crate::game::{Coord, GameKind, GameState};

/// One cell of a board: its name and its centre in board units (one unit between
/// neighbouring cell centres, y growing downwards).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Cell {
    /// The cell name (`c3`).
    pub name: String,
    /// Centre, x.
    pub x: f32,
    /// Centre, y.
    pub y: f32,
}

/// A board's drawing: the cell shape and every cell.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Board {
    /// `hex` or `square`.
    pub shape: &'static str,
    /// The cells, a1 first.
    pub cells: Vec<Cell>,
    /// Seat names, seat 0 first.
    pub seats: Vec<&'static str>,
    /// Side names, side 0 first.
    pub sides: Vec<&'static str>,
}

/// The drawing of `kind`'s board.
pub fn board(kind: GameKind) -> Board {
    let cells = match kind {
        GameKind::Eximo => (0..8u8)
            .flat_map(|rank| (0..8u8).map(move |file| (file, rank)))
            .map(|(file, rank)| Cell {
                name: Coord::new(file, rank).to_string(),
                x: file as f32,
                y: (7 - rank) as f32,
            })
            .collect(),
        GameKind::Rematch | GameKind::Rematch3 => hex_cells(2),
        GameKind::Hexdame => hex_cells(4),
    };
    Board {
        shape: if kind == GameKind::Eximo {
            "square"
        } else {
            "hex"
        },
        cells,
        seats: kind.seat_names().to_vec(),
        sides: kind.side_names().to_vec(),
    }
}

/// Hex cells: neighbours are (±1, 0), (0, ±1) and ±(1, 1) in (file, rank), drawn with
/// pointy tops, rank 1 at the bottom.
fn hex_cells(radius: u8) -> Vec<Cell> {
    let grid = HexGrid::new(radius);
    let top = 2.0 * radius as f32;
    grid.cells
        .iter()
        .map(|c| Cell {
            name: c.to_string(),
            x: c.file as f32 - 0.5 * c.rank as f32,
            y: (top - c.rank as f32) * 0.75f32.sqrt(),
        })
        .collect()
}

/// One occupied cell as drawn.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Piece {
    /// The cell.
    pub cell: String,
    /// The contents in the notation (a ReMATCH stack bottom to top, e.g. `RWO`).
    pub text: String,
    /// The colour of the top piece: `red`, `white`, `orange` or `black`.
    pub colour: &'static str,
    /// A HexDame king.
    pub king: bool,
}

fn colour_of(c: char) -> &'static str {
    match c.to_ascii_lowercase() {
        'r' => "red",
        'o' => "orange",
        'b' => "black",
        _ => "white",
    }
}

/// The pieces of `state`, read from its notation.
pub fn pieces<S: GameState>(state: &S) -> Vec<Piece> {
    let text = state.to_notation();
    let Ok(tokens) = PositionTokens::split(&text) else {
        return Vec::new();
    };
    let hexdame = state.kind() == GameKind::Hexdame;
    tokens
        .pieces
        .iter()
        .map(|(cell, contents)| {
            let top = contents.chars().last().unwrap_or('w');
            Piece {
                cell: cell.to_string(),
                text: contents.to_string(),
                colour: colour_of(top),
                king: hexdame && top.is_ascii_uppercase(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_have_every_cell_once_and_neighbours_one_unit_apart() {
        for (kind, count) in [
            (GameKind::Rematch, 19),
            (GameKind::Hexdame, 61),
            (GameKind::Eximo, 64),
        ] {
            let b = board(kind);
            assert_eq!(b.cells.len(), count, "{kind}");
            let mut names: Vec<&str> = b.cells.iter().map(|c| c.name.as_str()).collect();
            names.dedup();
            assert_eq!(names.len(), count);
            // Every cell has a neighbour at distance 1 and none closer.
            for a in &b.cells {
                let nearest = b
                    .cells
                    .iter()
                    .filter(|c| c.name != a.name)
                    .map(|c| ((c.x - a.x).powi(2) + (c.y - a.y).powi(2)).sqrt())
                    .fold(f32::INFINITY, f32::min);
                assert!((nearest - 1.0).abs() < 1e-4, "{kind} {}: {nearest}", a.name);
            }
        }
    }

    #[test]
    fn pieces_follow_the_notation() {
        let state = crate::game::rematch::Rematch::from_notation(
            GameKind::Rematch,
            "red c3:RWO a2:R b1:R b2:R d2:W d3:W e3:W b4:O c4:O c5:O",
            crate::game::RulesConfig::default(),
        )
        .unwrap();
        let p = pieces(&state);
        assert_eq!(p.len(), 10);
        let stack = p.iter().find(|p| p.cell == "c3").unwrap();
        assert_eq!((stack.text.as_str(), stack.colour), ("RWO", "orange"));
    }
}
