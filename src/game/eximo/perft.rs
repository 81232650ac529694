//! Eximo's perft: a dedicated generator on the bitboards seen from the side to move
//! (White's board is byte-swapped so that every side moves north). Ordinary moves
//! that stay off the far row and single friendly jumps that cannot go on are always distinct
//! children and are counted in bulk at the last ply; capture sequences, longer jump chains
//! and far-row arrivals (with every unordered pair of drop cells) are collected, sorted and
//! deduplicated.

use super::*;

impl Eximo {
    /// Leaves of the whole-turn tree at `depth` (distinct positions).
    pub(super) fn perft_turns(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.outcome.is_some() {
            return 0;
        }
        if self.phase != Phase::Start {
            return turns::perft_generic(self, depth);
        }
        let cap_left = if self.rules.ply_cap == 0 {
            u32::MAX
        } else {
            self.rules.ply_cap - self.turns
        };
        let (me, opp) = north_frame(self.men, self.side as usize);
        let mut buf = Vec::with_capacity(4096);
        perft_north(me, opp, depth, cap_left, &mut buf)
    }
}

/// North-frame capture directions: N, NE, NW, E, W.
const NORTH_CAPTURE_DIRS: [usize; 5] = [0, 1, 7, 2, 6];

/// North-frame move/jump directions: N, NE, NW.
const NORTH_MOVE_DIRS: [usize; 3] = [0, 1, 7];

/// Children of one node, as (own men, enemy men) of the mover, in the mover's north frame.
type Child = (u64, u64);

/// The man that left for the far row is gone (`rest` no longer holds it): drops follow.
#[inline]
fn push_promotion(rest: u64, opp: u64, out: &mut Vec<Child>) {
    let free = ZONE_SOUTH & !(rest | opp);
    match free.count_ones() {
        0 | 1 => out.push((rest | free, opp)),
        _ => {
            let mut a = free;
            while a != 0 {
                let first = a & a.wrapping_neg();
                a ^= first;
                let mut b = a;
                while b != 0 {
                    let second = b & b.wrapping_neg();
                    b ^= second;
                    out.push((rest | first | second, opp));
                }
            }
        }
    }
}

/// Continues a capture sequence of the man on `sq` (not in `rest`).
fn capture_chain(sq: u8, rest: u64, opp: u64, out: &mut Vec<Child>) {
    let empty = !(rest | opp);
    let mut any = false;
    for &d in &NORTH_CAPTURE_DIRS {
        let [mid, land] = TARGET[sq as usize][d];
        if land != NONE && opp & bit(mid) != 0 && empty & bit(land) != 0 {
            any = true;
            let opp2 = opp ^ bit(mid);
            if land >= 56 {
                push_promotion(rest, opp2, out);
            } else {
                capture_chain(land, rest, opp2, out);
            }
        }
    }
    if !any {
        out.push((rest | bit(sq), opp));
    }
}

/// Continues a friendly-jump chain of the man on `sq` (not in `rest`).
fn jump_chain(sq: u8, rest: u64, opp: u64, out: &mut Vec<Child>) {
    let empty = !(rest | opp);
    let mut any = false;
    for &d in &NORTH_MOVE_DIRS {
        let [mid, land] = TARGET[sq as usize][d];
        if land != NONE && rest & bit(mid) != 0 && empty & bit(land) != 0 {
            any = true;
            if land >= 56 {
                push_promotion(rest, opp, out);
            } else {
                jump_chain(land, rest, opp, out);
            }
        }
    }
    if !any {
        out.push((rest | bit(sq), opp));
    }
}

/// Fast perft in the north frame of the side to move. `cap_left`: turns until the ply cap
/// (`u32::MAX` without cap); the node is not over. `depth >= 1`.
fn perft_north(me: u64, opp: u64, depth: u32, cap_left: u32, buf: &mut Vec<Child>) -> u64 {
    let start = buf.len();
    let child_cap = cap_left.saturating_sub(1);
    let node = PerftNode {
        me,
        opp,
        depth,
        child_cap,
        deeper: depth > 1 && child_cap > 0,
    };
    let mut total = 0u64;
    let caps = capture_origins(me, opp);
    if caps != 0 {
        let mut o = caps;
        while o != 0 {
            let sq = o.trailing_zeros() as u8;
            o &= o - 1;
            capture_chain(sq, me ^ bit(sq), opp, buf);
        }
    } else {
        total += node.plain_moves(buf) + node.friendly_jumps(buf);
    }
    // The children that can coincide (captures, jumps, promotions), deduped.
    let n = dedup_from(buf, start);
    if depth == 1 {
        total += n as u64;
    } else if node.deeper {
        for i in start..start + n {
            let (m2, o2) = buf[i];
            total += perft_north(o2.swap_bytes(), m2.swap_bytes(), depth - 1, child_cap, buf);
        }
    }
    buf.truncate(start);
    total
}

/// A node of [`perft_north`]: the side to move's men and the opponent's (north frame), the
/// depth left, the children's ply cap, and whether children are searched further.
struct PerftNode {
    me: u64,
    opp: u64,
    depth: u32,
    child_cap: u32,
    deeper: bool,
}

impl PerftNode {
    /// The perft of the child where the side to move's men become `m2` (no capture).
    fn child(&self, m2: u64, buf: &mut Vec<Child>) -> u64 {
        perft_north(
            self.opp.swap_bytes(),
            m2.swap_bytes(),
            self.depth - 1,
            self.child_cap,
            buf,
        )
    }

    /// Plain moves: those that do not reach the far row are always distinct children,
    /// counted (or searched) here; those onto the far row push one child set per man (the
    /// square reached is gone) for deduplication.
    fn plain_moves(&self, buf: &mut Vec<Child>) -> u64 {
        let (me, opp) = (self.me, self.opp);
        let empty = !(me | opp);
        let n_t = (me << 8) & empty;
        let ne_t = ((me & NOT_H) << 9) & empty;
        let nw_t = ((me & NOT_A) << 7) & empty;
        let mut total = 0u64;
        if self.depth == 1 {
            total += ((n_t & !RANK_8).count_ones()
                + (ne_t & !RANK_8).count_ones()
                + (nw_t & !RANK_8).count_ones()) as u64;
        } else if self.deeper {
            for (targets, delta) in [(n_t, 8u8), (ne_t, 9), (nw_t, 7)] {
                let mut t = targets & !RANK_8;
                while t != 0 {
                    let to = t.trailing_zeros() as u8;
                    t &= t - 1;
                    total += self.child(me ^ bit(to) ^ bit(to - delta), buf);
                }
            }
        }
        let mut promo = ((n_t & RANK_8) >> 8) | ((ne_t & RANK_8) >> 9) | ((nw_t & RANK_8) >> 7);
        while promo != 0 {
            let sq = promo.trailing_zeros() as u8;
            promo &= promo - 1;
            push_promotion(me ^ bit(sq), opp, buf);
        }
        total
    }

    /// Friendly jumps. A single jump that cannot go on and does not reach the far row is a
    /// distinct child: a chain of k jumps climbs exactly 2k ranks, so it differs from every
    /// other chain, from plain moves and from promotions (which change only the drop zone,
    /// ranks 1-2, besides removing the man); those are counted (or searched) here. Longer
    /// chains are pushed for deduplication.
    fn friendly_jumps(&self, buf: &mut Vec<Child>) -> u64 {
        let (me, opp) = (self.me, self.opp);
        let empty = !(me | opp);
        // `goes_on`: cells from which a further jump is open (the jumper's old cell lies
        // two ranks below and changes nothing there).
        let goes_on = (me >> 8) & (empty >> 16)
            | NOT_GH & (me >> 9) & (empty >> 18)
            | NOT_AB & (me >> 7) & (empty >> 14);
        let mut total = 0u64;
        for (shift, mask) in [(8u32, !0u64), (9, NOT_GH), (7, NOT_AB)] {
            let origins = me & mask & (me >> shift) & (empty >> (2 * shift));
            let lands = origins << (2 * shift);
            let single = lands & !goes_on & !RANK_8;
            if self.depth == 1 {
                total += single.count_ones() as u64;
            } else if self.deeper {
                let mut t = single;
                while t != 0 {
                    let to = t.trailing_zeros() as u8;
                    t &= t - 1;
                    total += self.child(me ^ bit(to) ^ bit(to - 2 * shift as u8), buf);
                }
            }
            let mut t = lands & (goes_on | RANK_8);
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                let rest = me ^ bit(to - 2 * shift as u8);
                if to >= 56 {
                    push_promotion(rest, opp, buf);
                } else {
                    jump_chain(to, rest, opp, buf);
                }
            }
        }
        total
    }
}

/// Sorts and dedups the children pushed from `start` on; returns how many are left.
fn dedup_from(buf: &mut Vec<Child>, start: usize) -> usize {
    let kids = &mut buf[start..];
    kids.sort_unstable();
    let mut n = 0;
    for i in 0..kids.len() {
        if i == 0 || kids[i] != kids[n - 1] {
            kids[n] = kids[i];
            n += 1;
        }
    }
    buf.truncate(start + n);
    n
}
