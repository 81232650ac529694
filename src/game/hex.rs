//! Axial hex geometry shared by ReMATCH (radius 2, 19 cells) and HexDame (radius 4, 61 cells).
//!
//! Cell (f, r) — 0-based file and rank — exists iff |f − r| ≤ radius, with f, r in
//! 0..=2·radius. Neighbours differ by one of [`DIRECTIONS`]. The board embeds in a
//! (2r+1)x(2r+1) square grid, which is what the net sees.

use super::Coord;

/// The six directions as (file, rank) offsets, in rotation order: direction `d + 1` is
/// direction `d` turned by 60°, and `d + 3` is its opposite.
pub const DIRECTIONS: [(i8, i8); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

/// The direction opposite to `d`.
pub const fn opposite(d: usize) -> usize {
    (d + 3) % 6
}

/// Sentinel for "no cell" in neighbour tables.
pub const NONE: u8 = u8::MAX;

/// Precomputed tables for a hex board of one radius: cell list, coordinate lookup and
/// neighbours.
#[derive(Debug, Clone)]
pub struct HexGrid {
    /// The board's radius (2 for ReMATCH, 4 for HexDame).
    pub radius: u8,
    /// Grid side, 2·radius + 1.
    pub side: u8,
    /// The cells, ordered by rank then file (a1 first); a cell's index is its position here.
    pub cells: Vec<Coord>,
    /// Cell index for every square of the side x side grid, `NONE` off the board
    /// (indexed by rank · side + file).
    pub index: Vec<u8>,
    /// `neighbour[cell][d]`: the adjacent cell in direction d, or `NONE`.
    pub neighbour: Vec<[u8; 6]>,
}

impl HexGrid {
    /// Builds the tables for a board of `radius`.
    pub fn new(radius: u8) -> HexGrid {
        let side = 2 * radius + 1;
        let mut cells = Vec::new();
        let mut index = vec![NONE; side as usize * side as usize];
        for rank in 0..side {
            for file in 0..side {
                if (file as i32 - rank as i32).unsigned_abs() <= radius as u32 {
                    index[rank as usize * side as usize + file as usize] = cells.len() as u8;
                    cells.push(Coord::new(file, rank));
                }
            }
        }
        let mut grid = HexGrid {
            radius,
            side,
            cells,
            index,
            neighbour: Vec::new(),
        };
        grid.neighbour = (0..grid.cells.len())
            .map(|i| {
                let c = grid.cells[i];
                let mut n = [NONE; 6];
                for (d, (df, dr)) in DIRECTIONS.iter().enumerate() {
                    let f = c.file as i32 + *df as i32;
                    let r = c.rank as i32 + *dr as i32;
                    n[d] = grid.lookup(f, r).unwrap_or(NONE);
                }
                n
            })
            .collect();
        grid
    }

    /// Number of cells on the board.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Always false: a board has cells.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The cell index at signed (file, rank), if it is on the board.
    pub fn lookup(&self, file: i32, rank: i32) -> Option<u8> {
        let side = self.side as i32;
        if !(0..side).contains(&file) || !(0..side).contains(&rank) {
            return None;
        }
        let i = self.index[(rank * side + file) as usize];
        (i != NONE).then_some(i)
    }

    /// The cell index of a coordinate, if it is on the board.
    pub fn cell_of(&self, c: Coord) -> Option<u8> {
        self.lookup(c.file as i32, c.rank as i32)
    }

    /// The cells along direction `d` from `cell`, nearest first (the cell itself excluded).
    pub fn ray(&self, cell: u8, d: usize) -> impl Iterator<Item = u8> + '_ {
        let mut at = cell;
        std::iter::from_fn(move || {
            at = self.neighbour[at as usize][d];
            (at != NONE).then_some(at)
        })
    }

    /// Draws the board as a hexagon, ranks from the top, with rank numbers on the left and
    /// each file's letter just below that file's lowest cell, continuing its line.
    /// `cell_text` gives each cell's contents, at most `width` characters (padded).
    pub fn render(&self, width: usize, cell_text: impl Fn(u8) -> String) -> String {
        // Cell (f, r) sits at column 2f − r (+ offset) on row r, so each of its six
        // neighbours is at horizontal distance 1 or 2 "half-cells".
        let half = width.div_ceil(2) + 1;
        let side = self.side as i32;
        let radius = self.radius as i32;
        let mut out = String::new();
        for rank in (-1..side).rev() {
            let mut line = if rank >= 0 {
                format!("{:>2} ", rank + 1)
            } else {
                String::from("   ")
            };
            let mut col = 0;
            for file in 0..side {
                let lowest_rank = (file - radius).max(0);
                let text = match self.lookup(file, rank) {
                    Some(cell) => cell_text(cell),
                    None if rank == lowest_rank - 1 => ((b'a' + file as u8) as char).to_string(),
                    None => continue,
                };
                let target = (2 * file - rank + side) as usize * half;
                while col < target {
                    line.push(' ');
                    col += 1;
                }
                line.push_str(&format!("{text:<width$}"));
                col += width.max(text.chars().count());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// One of the 12 symmetries of the hexagon: a rotation by `rotation` × 60° about the
/// centre, preceded by the mirror that swaps file and rank when `mirror` is set.
/// (The swap maps the direction set onto itself: it is HexDame's mirror, since it fixes the
/// men's forward directions, the start position and the promotion lines.)
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HexSymmetry {
    /// Sixths of a full turn, 0..6.
    pub rotation: u8,
    /// Swap file and rank before rotating.
    pub mirror: bool,
}

impl HexSymmetry {
    /// All 12 symmetries; the identity first.
    pub fn all() -> impl Iterator<Item = HexSymmetry> {
        (0..12).map(|i| HexSymmetry {
            rotation: i % 6,
            mirror: i >= 6,
        })
    }

    /// The image of direction `d` (an index into [`DIRECTIONS`]).
    pub fn direction(self, d: usize) -> usize {
        // The swap maps direction d to (2 − d) mod 6: (1,0)↔(0,1), (1,1) fixed, and so on.
        let d = if self.mirror { (8 - d) % 6 } else { d };
        (d + self.rotation as usize) % 6
    }

    /// The image of an offset (x, y) from the centre.
    pub fn offset(self, x: i32, y: i32) -> (i32, i32) {
        let (mut x, mut y) = if self.mirror { (y, x) } else { (x, y) };
        for _ in 0..self.rotation {
            (x, y) = (x - y, x);
        }
        (x, y)
    }
}

impl HexGrid {
    /// Where each cell goes under `sym`: `map[cell]` is the image cell.
    pub fn cell_permutation(&self, sym: HexSymmetry) -> Vec<u8> {
        let r = self.radius as i32;
        self.cells
            .iter()
            .map(|c| {
                let (x, y) = sym.offset(c.file as i32 - r, c.rank as i32 - r);
                self.lookup(x + r, y + r)
                    .expect("hex symmetries map the board onto itself")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_counts_and_neighbours() {
        let small = HexGrid::new(2);
        assert_eq!(small.len(), 19);
        let big = HexGrid::new(4);
        assert_eq!(big.len(), 61);
        // The centre has six neighbours, a corner three.
        let centre = big.cell_of(Coord::parse("e5").unwrap()).unwrap();
        assert_eq!(
            big.neighbour[centre as usize]
                .iter()
                .filter(|&&n| n != NONE)
                .count(),
            6
        );
        let corner = big.cell_of(Coord::parse("a1").unwrap()).unwrap();
        assert_eq!(
            big.neighbour[corner as usize]
                .iter()
                .filter(|&&n| n != NONE)
                .count(),
            3
        );
        // Neighbour relation is symmetric through opposite directions.
        for c in 0..big.len() as u8 {
            for d in 0..6 {
                let n = big.neighbour[c as usize][d];
                if n != NONE {
                    assert_eq!(big.neighbour[n as usize][opposite(d)], c);
                }
            }
        }
        assert!(big.cell_of(Coord::parse("a6").unwrap()).is_none());
        assert_eq!(big.ray(corner, 1).count(), 8);
    }

    #[test]
    fn symmetries_preserve_adjacency_and_directions() {
        for grid in [HexGrid::new(2), HexGrid::new(4)] {
            let mut seen = std::collections::HashSet::new();
            for sym in HexSymmetry::all() {
                let map = grid.cell_permutation(sym);
                seen.insert(map.clone());
                let mut image = map.clone();
                image.sort_unstable();
                image.dedup();
                assert_eq!(image.len(), grid.len(), "a permutation");
                for c in 0..grid.len() {
                    for d in 0..6 {
                        let n = grid.neighbour[c][d];
                        if n != NONE {
                            let moved = grid.neighbour[map[c] as usize][sym.direction(d)];
                            assert_eq!(moved, map[n as usize], "{sym:?} cell {c} dir {d}");
                        }
                    }
                }
            }
            assert_eq!(seen.len(), 12, "12 distinct symmetries");
        }
        // The mirror swaps file and rank: a1 stays, b1 <-> a2.
        let grid = HexGrid::new(4);
        let mirror = HexSymmetry {
            rotation: 0,
            mirror: true,
        };
        let map = grid.cell_permutation(mirror);
        let b1 = grid.cell_of(Coord::parse("b1").unwrap()).unwrap();
        let a2 = grid.cell_of(Coord::parse("a2").unwrap()).unwrap();
        assert_eq!(map[b1 as usize], a2);
    }
}
