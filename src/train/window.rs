//! The replay window: the most recent training samples (one per fully searched position),
//! and random training batches drawn from it with random board symmetries.
//!
//! Samples are stored already encoded, so the trainer needs nothing of the rules: planes,
//! the legal policy indices, the policy target, the game's result for the side to move and
//! the search's value there (mixed into the value target by `train.value_q_mix`), and the
//! steps left in the game (the moves-left head's target).

use std::collections::{HashMap, VecDeque};

use rand::Rng;

use crate::net::encode::Encode;
use crate::net::model::MOVES_LEFT_UNIT;

/// One training position.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Encoded input planes.
    pub planes: Box<[f32]>,
    /// Policy indices of the legal steps.
    pub legal: Box<[u16]>,
    /// The search's policy target as (policy index, probability).
    pub target: Box<[(u16, f32)]>,
    /// The game's result for the side to move: 0 win, 1 draw, 2 loss.
    pub result: u8,
    /// The search's value of the position for the side to move, in [-1, 1].
    pub q: f32,
    /// The search's policy surprise there (KL(target || prior), nats), when recorded.
    pub surprise: Option<f32>,
    /// Steps left in the game from this position, this one included (the moves-left
    /// head's target).
    pub moves_left: u16,
    /// The position's key (`future_key`, else `position_hash`): the window counts repeats.
    pub key: u64,
}

/// The game's symmetries as plain functions, so that the window and trainer stay generic-free.
#[derive(Clone, Copy, Debug)]
pub struct Symmetries {
    /// Number of symmetries (identity included).
    pub count: usize,
    /// Transforms planes.
    pub planes: fn(usize, &[f32], &mut [f32]),
    /// Transforms a policy index.
    pub policy_index: fn(usize, usize) -> usize,
}

impl Symmetries {
    /// The symmetries of game `S`: the board's, and those that also exchange colours when
    /// `colours` is on (`train.colour_symmetry`).
    pub fn of<S: Encode>(colours: bool) -> Symmetries {
        Symmetries {
            count: if colours {
                S::SYMMETRIES
            } else {
                S::BOARD_SYMMETRIES
            },
            planes: S::transform_planes,
            policy_index: S::transform_policy_index,
        }
    }
}

/// A training batch laid out for the net.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Positions.
    pub size: usize,
    /// Inputs, `size * planes * height * width`.
    pub inputs: Vec<f32>,
    /// Policy targets, dense, `size * num_actions`.
    pub policy: Vec<f32>,
    /// Additive logit mask, `size * num_actions`: 0 on legal steps, a large negative
    /// number elsewhere.
    pub mask: Vec<f32>,
    /// Result class per position (0 win, 1 draw, 2 loss).
    pub results: Vec<i64>,
    /// W/D/L value target per position, `size * 3`: the result's one-hot, mixed with the
    /// search's value as (W, D, L) = ((1 + q) / 2, 0, (1 - q) / 2) by the window's q-mix.
    pub value: Vec<f32>,
    /// Steps left per position, in the moves-left head's units ([`MOVES_LEFT_UNIT`]).
    pub moves_left: Vec<f32>,
}

/// The logit mask's value on illegal steps (finite, so 0 × mask stays 0).
pub const ILLEGAL_LOGIT: f32 = -1.0e9;

/// The most recent samples, up to a capacity that can grow.
#[derive(Debug, Default)]
pub struct ReplayWindow {
    samples: VecDeque<Sample>,
    capacity: usize,
    q_mix: f32,
    /// Share of the draw weight given by policy surprise (0: uniform draws).
    surprise_weight: f32,
    /// Sum and count of the recorded surprises held (their mean scales the weights).
    surprise_sum: f64,
    surprise_count: usize,
    /// The samples' position keys (`repeated_samples` of the diversity metrics).
    keys: KeyCounts,
}

/// A sample's surprise counts at most this many times the window's mean (so one freak
/// position cannot dominate the batches, and rejection sampling stays cheap).
pub const SURPRISE_RATIO_CAP: f32 = 8.0;

impl ReplayWindow {
    /// An empty window holding at most `capacity` samples.
    pub fn new(capacity: usize) -> ReplayWindow {
        ReplayWindow {
            samples: VecDeque::new(),
            capacity: capacity.max(1),
            ..ReplayWindow::default()
        }
    }

    /// The same window drawing samples with frequency `(1 - w) + w * surprise / mean
    /// surprise` (KataGo's policy surprise weighting; `w` in 0..=1, 0: uniform).
    pub fn with_surprise_weight(mut self, w: f32) -> ReplayWindow {
        self.surprise_weight = w.clamp(0.0, 1.0);
        self
    }

    /// The same window with value targets mixing in `q_mix` (0..=1) of the search's value.
    pub fn with_q_mix(mut self, q_mix: f32) -> ReplayWindow {
        self.q_mix = q_mix.clamp(0.0, 1.0);
        self
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }

    /// The capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes the capacity (dropping the oldest samples if it shrank).
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        self.trim();
    }

    /// Adds samples, dropping the oldest beyond the capacity.
    pub fn extend(&mut self, samples: impl IntoIterator<Item = Sample>) {
        for sample in samples {
            if let Some(k) = sample.surprise {
                self.surprise_sum += k as f64;
                self.surprise_count += 1;
            }
            self.keys.insert(sample.key);
            self.samples.push_back(sample);
        }
        self.trim();
    }

    fn trim(&mut self) {
        while self.samples.len() > self.capacity {
            let Some(sample) = self.samples.pop_front() else {
                break;
            };
            self.keys.remove(sample.key);
            if let Some(k) = sample.surprise {
                self.surprise_sum -= k as f64;
                self.surprise_count -= 1;
            }
        }
    }

    /// Share of the samples whose position occurs more than once in the window; `None`
    /// when it is empty.
    pub fn repeated_share(&self) -> Option<f64> {
        self.keys.repeated_share()
    }

    /// A sample's draw weight relative to the largest possible one, in (0, 1].
    fn relative_weight(&self, sample: &Sample) -> f32 {
        let w = self.surprise_weight;
        let mean = (self.surprise_sum / self.surprise_count.max(1) as f64) as f32;
        let ratio = match sample.surprise {
            Some(k) if mean > 1e-9 => (k / mean).min(SURPRISE_RATIO_CAP),
            _ => 1.0,
        };
        ((1.0 - w) + w * ratio) / ((1.0 - w) + w * SURPRISE_RATIO_CAP)
    }

    /// One sample, drawn uniformly or (with a surprise weight) by rejection in proportion
    /// to its weight.
    fn draw(&self, rng: &mut impl Rng) -> &Sample {
        loop {
            let sample = &self.samples[rng.gen_range(0..self.samples.len())];
            if self.surprise_weight == 0.0 || rng.gen::<f32>() < self.relative_weight(sample) {
                return sample;
            }
        }
    }

    /// A batch of `size` samples drawn with replacement (uniformly, or weighted by
    /// surprise), each under a random symmetry.
    pub fn batch(
        &self,
        size: usize,
        num_actions: usize,
        symmetries: &Symmetries,
        rng: &mut impl Rng,
    ) -> Batch {
        assert!(!self.samples.is_empty(), "batch from an empty window");
        let per_position = self.samples[0].planes.len();
        let mut batch = Batch {
            size,
            inputs: vec![0.0; size * per_position],
            policy: vec![0.0; size * num_actions],
            mask: vec![ILLEGAL_LOGIT; size * num_actions],
            results: Vec::with_capacity(size),
            value: Vec::with_capacity(size * 3),
            moves_left: Vec::with_capacity(size),
        };
        for b in 0..size {
            let sample = self.draw(rng);
            let sym = rng.gen_range(0..symmetries.count.max(1));
            let out = &mut batch.inputs[b * per_position..(b + 1) * per_position];
            if sym == 0 {
                out.copy_from_slice(&sample.planes);
            } else {
                (symmetries.planes)(sym, &sample.planes, out);
            }
            let row = b * num_actions;
            let map = |index: u16| {
                if sym == 0 {
                    index as usize
                } else {
                    (symmetries.policy_index)(sym, index as usize)
                }
            };
            for &index in sample.legal.iter() {
                batch.mask[row + map(index)] = 0.0;
            }
            for &(index, p) in sample.target.iter() {
                batch.policy[row + map(index)] += p;
            }
            batch.results.push(sample.result as i64);
            batch.value.extend(value_target(sample, self.q_mix));
            batch
                .moves_left
                .push(sample.moves_left as f32 / MOVES_LEFT_UNIT);
        }
        batch
    }
}

/// The W/D/L target of `sample`: `(1 - q_mix)` of the result's one-hot plus `q_mix` of the
/// search's value as a win/loss split (the search gives no draw share).
pub fn value_target(sample: &Sample, q_mix: f32) -> [f32; 3] {
    let mut target = [0.0; 3];
    target[sample.result.min(2) as usize] = 1.0 - q_mix;
    target[0] += q_mix * (1.0 + sample.q) / 2.0;
    target[2] += q_mix * (1.0 - sample.q) / 2.0;
    target
}

/// Counts of keys in a sliding multiset, and how many of its members share their key
/// with another: the replay window's `repeated_samples`.
#[derive(Clone, Debug, Default)]
pub struct KeyCounts {
    counts: HashMap<u64, u32>,
    members: usize,
    repeated: usize,
}

impl KeyCounts {
    /// Adds a member with `key`.
    pub fn insert(&mut self, key: u64) {
        let count = self.counts.entry(key).or_default();
        *count += 1;
        self.members += 1;
        self.repeated += match *count {
            1 => 0,
            2 => 2,
            _ => 1,
        };
    }

    /// Removes a member with `key` (one that was inserted).
    pub fn remove(&mut self, key: u64) {
        let Some(count) = self.counts.get_mut(&key) else {
            return;
        };
        *count -= 1;
        self.members -= 1;
        self.repeated -= match *count {
            0 => 0,
            1 => 2,
            _ => 1,
        };
        if *count == 0 {
            self.counts.remove(&key);
        }
    }

    /// Share of members whose key another member shares; `None` when empty.
    pub fn repeated_share(&self) -> Option<f64> {
        (self.members > 0).then(|| self.repeated as f64 / self.members as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_counts_track_members_sharing_a_key() {
        let mut keys = KeyCounts::default();
        assert_eq!(keys.repeated_share(), None);
        for k in [1, 2, 2, 3, 3, 3] {
            keys.insert(k);
        }
        assert_eq!(keys.repeated_share(), Some(5.0 / 6.0));
        keys.remove(3);
        keys.remove(2);
        // 1, 2, 3, 3: two of four share a key.
        assert_eq!(keys.repeated_share(), Some(0.5));
        keys.remove(3);
        assert_eq!(keys.repeated_share(), Some(0.0));
        keys.remove(9);
        assert_eq!(keys.repeated_share(), Some(0.0));
    }
}
