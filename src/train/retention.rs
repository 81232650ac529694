//! Checkpoint retention (`[checkpoints]`): the newest `keep_full` checkpoints are kept
//! whole (weights, optimizer state, counters: what resume and fork need); of the older
//! ones, at most `keep_weights` keep their weights (for ratings and play), at evenly thinned
//! steps; the rest keep only their intake link, which resume and fork follow back through
//! the run. The plan here is pure; `crate::roles::learner::retention` applies it.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::retention::RetentionConfig;
use crate::layout::Held;

/// What a checkpoint is to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything.
    Full,
    /// Its weights and counters, not its optimizer state.
    Weights,
    /// Its intake link only.
    Link,
}

impl RetentionConfig {
    /// The changes to the whole checkpoints `held`: each one to thin, with what it keeps.
    /// Steps `every` apart are the grid the kept weights are thinned on; `protected` steps
    /// keep their weights whatever the spacing (the promoted checkpoint, those the evaluation role
    /// has yet to play).
    pub fn plan(
        &self,
        held: &BTreeMap<u64, Held>,
        every: u64,
        protected: impl Fn(u64) -> bool,
    ) -> Vec<(u64, Keep)> {
        if self.keep_full == 0 {
            return Vec::new();
        }
        let newest_full: BTreeSet<u64> = held
            .iter()
            .rev()
            .filter(|(_, h)| **h == Held::Full)
            .take(self.keep_full)
            .map(|(step, _)| *step)
            .collect();
        let steps: Vec<u64> = held.keys().copied().collect();
        let spaced = thinned(&steps, every, self.keep_weights);
        held.iter()
            .filter(|(step, _)| !newest_full.contains(step))
            .filter_map(|(&step, &now)| {
                let keep = if spaced.contains(&step) || protected(step) {
                    Keep::Weights
                } else {
                    Keep::Link
                };
                (now == Held::Full || keep == Keep::Link).then_some((step, keep))
            })
            .collect()
    }
}

/// The CPU-hours of the doubling (1, 2, 4, ...) the run's CPU time reached between two
/// checkpoints, `before` and `now` CPU seconds: the smallest doubling above `before`, if
/// `now` is at or past it.
pub fn doubling_reached(before: f64, now: f64) -> Option<u64> {
    let mut hours = 1u64;
    while (hours as f64) * 3600.0 <= before {
        hours = hours.checked_mul(2)?;
    }
    (now >= hours as f64 * 3600.0).then_some(hours)
}

/// The steps of `steps` kept at even spacing, at most `most` of them: the multiples of the
/// smallest spacing (`every` doubled as often as needed) that leaves no more than `most`.
pub fn thinned(steps: &[u64], every: u64, most: usize) -> BTreeSet<u64> {
    if most == 0 {
        return BTreeSet::new();
    }
    let last = steps.iter().copied().max().unwrap_or(0);
    let mut spacing = every.max(1);
    loop {
        let kept: BTreeSet<u64> = steps
            .iter()
            .copied()
            .filter(|s| s.is_multiple_of(spacing))
            .collect();
        if kept.len() <= most || spacing > last {
            return kept;
        }
        spacing = spacing.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_doubling_of_cpu_time_is_reached_once() {
        assert_eq!(doubling_reached(0.0, 3599.0), None);
        assert_eq!(doubling_reached(3500.0, 3600.0), Some(1));
        assert_eq!(doubling_reached(3600.0, 7000.0), None);
        assert_eq!(doubling_reached(7000.0, 7300.0), Some(2));
        assert_eq!(doubling_reached(7300.0, 20000.0), Some(4));
        assert_eq!(doubling_reached(28_800.0, 28_900.0), None);
        assert_eq!(doubling_reached(28_799.0, 28_800.0), Some(8));
        // Checkpoints walked in order pin exactly one per doubling.
        let cpu: Vec<f64> = (0..400).map(|i| i as f64 * 100.0).collect();
        let pinned: Vec<u64> = cpu
            .windows(2)
            .filter_map(|w| doubling_reached(w[0], w[1]))
            .collect();
        assert_eq!(pinned, vec![1, 2, 4, 8]);
    }

    #[test]
    fn weights_are_thinned_evenly_and_never_come_back() {
        let steps: Vec<u64> = (0..=40).map(|i| i * 100).collect();
        let kept = thinned(&steps, 100, 8);
        assert_eq!(kept, (0..=5).map(|i| i * 800).collect());
        assert!(thinned(&steps, 100, 0).is_empty());
        assert_eq!(thinned(&steps, 100, 1), BTreeSet::from([0]));
        // Thinning what was kept again keeps a subset: nothing dropped is needed later.
        let more: Vec<u64> = kept.iter().copied().chain([4100, 4200]).collect();
        assert!(thinned(&more, 100, 4).is_subset(&kept));
    }

    #[test]
    fn the_newest_stay_whole_older_ones_keep_weights_or_their_link() {
        let held: BTreeMap<u64, Held> = (0..=6)
            .map(|i| (i * 10, Held::Full))
            .chain([(65, Held::Full)])
            .collect();
        let retention = RetentionConfig {
            keep_full: 2,
            keep_weights: 3,
            ..RetentionConfig::default()
        };
        let plan = retention.plan(&held, 10, |step| step == 30);
        // Whole: 60 and 65. Weights: 0 and 40 (every 40: 3 at most) and 30 (protected).
        let expected = [
            (0, Keep::Weights),
            (10, Keep::Link),
            (20, Keep::Link),
            (30, Keep::Weights),
            (40, Keep::Weights),
            (50, Keep::Link),
        ];
        assert_eq!(plan, expected.to_vec());
        // Applied, the plan has nothing more to do.
        let after: BTreeMap<u64, Held> = held
            .iter()
            .filter_map(|(&s, &h)| match plan.iter().find(|(p, _)| *p == s) {
                Some((_, Keep::Link)) => None,
                Some(_) => Some((s, Held::Weights)),
                None => Some((s, h)),
            })
            .collect();
        assert!(retention.plan(&after, 10, |step| step == 30).is_empty());
        let keep_all = RetentionConfig {
            keep_full: 0,
            ..retention
        };
        assert!(keep_all.plan(&held, 10, |_| false).is_empty());
    }
}
