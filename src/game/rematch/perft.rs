//! ReMATCH's perft: whole turns generated directly, capture sequences deduplicated by their
//! end boards (checked against the generic perft built on the rules, `turns::perft_generic`,
//! which positions inside a turn use).

use super::*;

impl Rematch {
    /// Leaves of the whole-turn tree at `depth` (distinct positions).
    pub(super) fn perft_turns(&self, depth: u32) -> u64 {
        if self.jumper != NONE {
            return turns::perft_generic(self, depth);
        }
        let mut scratch = Vec::with_capacity(256);
        self.perft_fast(depth, &mut scratch)
    }

    /// Perft by whole turns, with capture sequences deduped by their end boards (the
    /// distinct children); checked against the generic perft in the tests.
    fn perft_fast(&self, depth: u32, scratch: &mut Vec<u64>) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.outcome.is_some() {
            return 0;
        }
        let own = self.tops[self.colour as usize];
        // Every capture opening of every stack; an adjacent one (distance 2) forces a capture.
        let mut openings = [(0u8, 0u8, 0u8); 48];
        let mut n = 0;
        let mut forced = false;
        for s in bits(own) {
            self.for_each_capture(s, |d, k| {
                forced |= k == 2;
                openings[n] = (s as u8, d as u8, k as u8);
                n += 1;
            });
        }
        let mut total = self.perft_captures(&openings[..n], depth, scratch);
        if !forced {
            total += self.perft_moves(own, depth, scratch);
        }
        total
    }

    /// [`Rematch::perft_fast`]'s capture turns from `openings`: distinct end boards (by
    /// piece hash) are the distinct children.
    fn perft_captures(&self, openings: &[(u8, u8, u8)], depth: u32, scratch: &mut Vec<u64>) -> u64 {
        if openings.is_empty() {
            return 0;
        }
        if depth == 1 {
            let mark = scratch.len();
            for &(s, d, k) in openings {
                let mut next = *self;
                next.capture_dfs(s as usize, d as usize, k as usize, &mut |end| {
                    scratch.push(end.piece_hash)
                });
            }
            let found = &mut scratch[mark..];
            found.sort_unstable();
            let mut unique = 0u64;
            for i in 0..found.len() {
                if i == 0 || found[i] != found[i - 1] {
                    unique += 1;
                }
            }
            scratch.truncate(mark);
            return unique;
        }
        let mut children: Vec<Rematch> = Vec::new();
        for &(s, d, k) in openings {
            let mut next = *self;
            next.capture_dfs(s as usize, d as usize, k as usize, &mut |end| {
                let mut done = *end;
                done.finish_turn(true, false);
                children.push(done);
            });
        }
        children.sort_unstable_by_key(|c| c.piece_hash);
        children.dedup_by_key(|c| c.piece_hash);
        children
            .iter()
            .map(|c| c.perft_fast(depth - 1, scratch))
            .sum()
    }

    /// [`Rematch::perft_fast`]'s plain moves of the stacks `own` tops (one cell onto an
    /// empty neighbour, always distinct children).
    fn perft_moves(&self, own: u32, depth: u32, scratch: &mut Vec<u64>) -> u64 {
        let empty = ALL_CELLS & !self.occupied();
        if depth == 1 {
            return bits(own)
                .map(|s| (NEIGHBOURS[s] & empty).count_ones() as u64)
                .sum();
        }
        let mut total = 0u64;
        for s in bits(own) {
            let targets = NEIGHBOURS[s] & empty;
            if targets == 0 {
                continue;
            }
            for (d, ray) in RAY[s].iter().enumerate() {
                let n = ray[0];
                if n != NONE && targets & (1 << n) != 0 {
                    let mut next = *self;
                    next.move_pieces(s, d, 1);
                    next.finish_turn(false, false);
                    total += next.perft_fast(depth - 1, scratch);
                }
            }
        }
        total
    }

    /// Plays a capture and all its continuations, calling `on_end` with each end board
    /// (before the turn's end-of-turn bookkeeping).
    fn capture_dfs(&mut self, from: usize, d: usize, k: usize, on_end: &mut impl FnMut(&Self)) {
        self.move_pieces(from, d, k);
        let at = RAY[from][d][k - 1] as usize;
        let mut openings = [(0u8, 0u8); 6];
        let mut n = 0;
        self.for_each_capture(at, |d, k| {
            openings[n] = (d as u8, k as u8);
            n += 1;
        });
        if n == 0 {
            on_end(self);
            return;
        }
        for &(d2, k2) in &openings[..n] {
            let mut next = *self;
            next.capture_dfs(at, d2 as usize, k2 as usize, on_end);
        }
    }
}
