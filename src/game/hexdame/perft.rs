//! HexDame's perft: a dedicated generator (checked against the generic one built on the
//! rules, `turns::perft_generic`, which positions inside a turn use): bitboards, whole-turn children generated directly,
//! leaves counted in bulk (quiet moves are always distinct positions; capture results are
//! deduplicated by sorting).

use super::*;

impl HexDame {
    /// Leaves of the whole-turn tree at `depth` (distinct positions).
    pub(super) fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.mover != NONE || self.outcome.is_some() {
            return turns::perft_generic(self, depth);
        }
        let mut hist = Vec::new();
        let mut node = self.history.as_deref();
        while let Some(h) = node {
            hist.push(h.hash);
            node = h.prev.as_deref();
        }
        hist.reverse();
        hist.push(self.hash);
        let mut p = Perft {
            rules: self.rules,
            hist,
            bufs: Vec::new(),
        };
        let root = Node {
            pieces: self.pieces,
            kings: self.kings,
            side: self.side as usize,
            quiet: self.quiet,
            turns: self.turns,
        };
        p.run(&root, depth)
    }
}

/// A position at a turn boundary.
#[derive(Copy, Clone)]
pub struct Node {
    pub pieces: [u64; 2],
    pub kings: u64,
    pub side: usize,
    pub quiet: u32,
    pub turns: u32,
}

/// A child: (own pieces, opponent pieces, kings) from the mover's point of view, and
/// whether the turn was irreversible.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Child {
    own: u64,
    opp: u64,
    kings: u64,
    irreversible: bool,
}

pub struct Perft {
    pub rules: RulesConfig,
    /// Hashes of the positions since the last irreversible turn, root path included.
    pub hist: Vec<u64>,
    pub bufs: Vec<Vec<Child>>,
}

struct CapSearch<'a> {
    occ: u64,
    origin: u8,
    king: bool,
    own: u64,
    opp: u64,
    kings: u64,
    promo: u64,
    max: u32,
    out: &'a mut Vec<Child>,
}

impl CapSearch<'_> {
    fn dfs(&mut self, cell: u8, avail: u64, captured: u64, count: u32) {
        if count + avail.count_ones() < self.max {
            return;
        }
        let mut buf = [Jump::default(); MAX_JUMPS];
        let n = jumps(cell, self.king, self.occ, avail, &mut buf);
        if n == 0 {
            if count == 0 {
                return;
            }
            if count < self.max {
                return;
            }
            if count > self.max {
                self.max = count;
                self.out.clear();
            }
            let own = (self.own & !bit(self.origin)) | bit(cell);
            let mut kings = self.kings & !captured;
            if self.king {
                kings = (kings & !bit(self.origin)) | bit(cell);
            } else if self.promo & bit(cell) != 0 {
                kings |= bit(cell);
            }
            self.out.push(Child {
                own,
                opp: self.opp & !captured,
                kings,
                irreversible: true,
            });
            return;
        }
        for j in &buf[..n] {
            self.dfs(
                j.land,
                avail & !bit(j.cap),
                captured | bit(j.cap),
                count + 1,
            );
        }
    }
}

/// Fills `out` with the results of the longest capture sequences (deduplicated) and
/// returns true, or returns false when there is no capture.
fn captures(n: &Node, out: &mut Vec<Child>) -> bool {
    let me = n.side;
    let own = n.pieces[me];
    let opp = n.pieces[1 - me];
    let occ_all = own | opp;
    out.clear();
    let mut s = CapSearch {
        occ: 0,
        origin: 0,
        king: false,
        own,
        opp,
        kings: n.kings,
        promo: T.promo[me],
        max: 1,
        out,
    };
    let mut rest = own;
    while rest != 0 {
        let c = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let occ = occ_all & !bit(c);
        let king = n.kings & bit(c) != 0;
        if !has_jump(c, king, occ, opp) {
            continue;
        }
        s.occ = occ;
        s.origin = c;
        s.king = king;
        s.dfs(c, opp, 0, 0);
    }
    if out.is_empty() {
        return false;
    }
    if out.len() > 1 {
        out.sort_unstable();
        out.dedup();
    }
    true
}

/// The quiet moves' results.
fn quiet_children(n: &Node, out: &mut Vec<Child>) {
    let me = n.side;
    let own = n.pieces[me];
    let opp = n.pieces[1 - me];
    let empty = !(own | opp) & ((1u64 << CELLS) - 1);
    let mut rest = own;
    while rest != 0 {
        let c = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let from = own & !bit(c);
        if n.kings & bit(c) != 0 {
            let kings = n.kings & !bit(c);
            for d in 0..6 {
                let len = T.ray_len[c as usize][d] as usize;
                for i in 0..len {
                    let t = T.ray[c as usize][d][i];
                    if empty & bit(t) == 0 {
                        break;
                    }
                    out.push(Child {
                        own: from | bit(t),
                        opp,
                        kings: kings | bit(t),
                        irreversible: false,
                    });
                }
            }
        } else {
            let mut targets = T.forward[me][c as usize] & empty;
            while targets != 0 {
                let t = targets.trailing_zeros() as u8;
                targets &= targets - 1;
                let kings = if T.promo[me] & bit(t) != 0 {
                    n.kings | bit(t)
                } else {
                    n.kings
                };
                out.push(Child {
                    own: from | bit(t),
                    opp,
                    kings,
                    irreversible: true,
                });
            }
        }
    }
}

/// The number of quiet moves (each is a distinct child).
fn count_quiet(n: &Node) -> u64 {
    let me = n.side;
    let own = n.pieces[me];
    let empty = !(own | n.pieces[1 - me]) & ((1u64 << CELLS) - 1);
    let mut total = 0u64;
    let mut men = own & !n.kings;
    while men != 0 {
        let c = men.trailing_zeros() as usize;
        men &= men - 1;
        total += (T.forward[me][c] & empty).count_ones() as u64;
    }
    let mut kings = own & n.kings;
    while kings != 0 {
        let c = kings.trailing_zeros() as usize;
        kings &= kings - 1;
        for d in 0..6 {
            let len = T.ray_len[c][d] as usize;
            let ray = &T.ray[c][d];
            let mut i = 0;
            while i < len && empty & bit(ray[i]) != 0 {
                i += 1;
            }
            total += i as u64;
        }
    }
    total
}

fn node_hash(n: &Node) -> u64 {
    let mut h = 0;
    for colour in 0..2 {
        let mut rest = n.pieces[colour];
        while rest != 0 {
            let c = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            h ^= piece_key(colour, n.kings & bit(c) != 0, c);
        }
    }
    if n.side == RED {
        h ^= RED_TO_MOVE_KEY;
    }
    h
}

impl Perft {
    /// Leaves below `n` (a position whose game is not over) at `depth` ≥ 1.
    pub fn run(&mut self, n: &Node, depth: u32) -> u64 {
        let level = depth as usize;
        while self.bufs.len() <= level {
            self.bufs.push(Vec::with_capacity(64));
        }
        let mut buf = std::mem::take(&mut self.bufs[level]);
        let any_capture = captures(n, &mut buf);
        let total = if depth == 1 {
            if any_capture {
                buf.len() as u64
            } else {
                count_quiet(n)
            }
        } else {
            if !any_capture {
                quiet_children(n, &mut buf);
            }
            let mut total = 0;
            for ch in buf.iter() {
                total += self.child(n, ch, depth - 1);
            }
            total
        };
        self.bufs[level] = buf;
        total
    }

    /// Leaves below the child `ch` of `n`, applying the end-of-game rules to it.
    fn child(&mut self, n: &Node, ch: &Child, depth: u32) -> u64 {
        let me = n.side;
        let mut pieces = [0; 2];
        pieces[me] = ch.own;
        pieces[1 - me] = ch.opp;
        let c = Node {
            pieces,
            kings: ch.kings,
            side: 1 - me,
            quiet: if ch.irreversible {
                0
            } else {
                n.quiet.saturating_add(1)
            },
            turns: n.turns.saturating_add(1),
        };
        // No pieces or no step: no children, whatever the rest says.
        if ch.opp == 0 {
            return 0;
        }
        let hash = node_hash(&c);
        let saved = if ch.irreversible {
            Some(std::mem::take(&mut self.hist))
        } else {
            None
        };
        let repeats = self.hist.iter().filter(|&&h| h == hash).count() + 1;
        let over = repeats >= 3
            || (self.rules.project_draws && c.quiet >= NO_PROGRESS_TURNS)
            || (self.rules.ply_cap > 0 && c.turns >= self.rules.ply_cap);
        let total = if over {
            0
        } else {
            self.hist.push(hash);
            let t = self.run(&c, depth);
            self.hist.pop();
            t
        };
        if let Some(h) = saved {
            self.hist = h;
        }
        total
    }
}
