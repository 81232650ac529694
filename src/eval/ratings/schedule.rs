//! Which pairs a rating wants on record, and the games each still lacks.

use std::collections::HashMap;

use super::RatingsOptions;
use crate::eval::arena::MatchReport;
use crate::eval::spec::AgentSpec;
use crate::eval::EvalError;

/// The pairs (indices into the player list) the schedule wants on record: consecutive
/// checkpoints, each anchor against the first and last checkpoint, anchors against each
/// other. Checkpoints are players `0..checkpoints`, anchors follow.
pub fn scheduled_pairs(checkpoints: usize, anchors: usize) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = (1..checkpoints).map(|i| (i, i - 1)).collect();
    for a in checkpoints..checkpoints + anchors {
        if checkpoints > 0 {
            pairs.push((checkpoints - 1, a));
            if checkpoints > 1 {
                pairs.push((0, a));
            }
        }
        for b in a + 1..checkpoints + anchors {
            pairs.push((a, b));
        }
    }
    pairs
}

/// A scheduled pair's games still to play: players `a` and `b` (indices into the names),
/// `games` of them (whole seat rotations), from opening `offset` of the suite on (the
/// openings after those the games on record used).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Due {
    /// The first player.
    pub a: usize,
    /// The second player (it fills the extra seats).
    pub b: usize,
    /// Games to play.
    pub games: u64,
    /// The first opening of the suite they play.
    pub offset: usize,
}

/// The games each scheduled pair still lacks: `games_per_pair` minus those on record in
/// `reports`, rounded up to whole rotations of `seats` seats.
pub fn due_games(
    reports: &[MatchReport],
    names: &[String],
    (checkpoints, anchors): (usize, usize),
    games_per_pair: u64,
    seats: u64,
) -> Vec<Due> {
    let mut on_record: HashMap<(String, String), u64> = HashMap::new();
    for report in reports {
        let mut distinct = report.agents.clone();
        distinct.sort();
        distinct.dedup();
        if let [a, b] = distinct.as_slice() {
            *on_record.entry((a.clone(), b.clone())).or_default() += report.games.len() as u64;
        }
    }
    let mut due = Vec::new();
    for (a, b) in scheduled_pairs(checkpoints, anchors) {
        let key = if names[a] < names[b] {
            (names[a].clone(), names[b].clone())
        } else {
            (names[b].clone(), names[a].clone())
        };
        let have = on_record.get(&key).copied().unwrap_or(0);
        let missing = games_per_pair.saturating_sub(have);
        if missing == 0 {
            continue;
        }
        let games = missing.div_ceil(seats) * seats;
        let offset = (have / seats) as usize;
        due.push(Due {
            a,
            b,
            games,
            offset,
        });
    }
    due
}

/// Checks that the suite (if any) has `rotations` openings from `offset` on for `pair`.
pub fn check_openings_left(
    options: &RatingsOptions,
    pair: [(&String, &AgentSpec); 2],
    rotations: u64,
    offset: usize,
) -> Result<(), EvalError> {
    let Some(suite) = &options.openings else {
        return Ok(());
    };
    let left = suite.len().saturating_sub(offset) as u64;
    if rotations > left {
        return Err(EvalError::Settings(format!(
            "{} vs {} needs {rotations} more openings, but {} has {left} left after the {offset} \
             its games on record used; pass a larger suite with --openings or lower \
             --games-per-pair",
            pair[0].0,
            pair[1].0,
            suite.path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_chains_checkpoints_and_ties_anchors_to_both_ends() {
        assert_eq!(scheduled_pairs(3, 0), vec![(1, 0), (2, 1)]);
        assert_eq!(
            scheduled_pairs(3, 2),
            vec![(1, 0), (2, 1), (2, 3), (0, 3), (3, 4), (2, 4), (0, 4)]
        );
        assert_eq!(scheduled_pairs(1, 1), vec![(0, 1)]);
        assert_eq!(scheduled_pairs(0, 2), vec![(0, 1)]);
    }
}
