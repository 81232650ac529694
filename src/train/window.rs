//! The replay window: the most recent training samples (one per fully searched position),
//! and random training batches drawn from it with random board symmetries.
//!
//! Samples are stored already encoded, so the trainer needs nothing of the rules: planes,
//! the legal policy indices, the policy target and the game's result for the side to move.

use std::collections::VecDeque;

use rand::Rng;

use crate::game::Side;
use crate::net::encode::Encode;
use crate::selfplay::record::{GameRecord, RecordError};

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
    /// The symmetries of game `S`.
    pub fn of<S: Encode>() -> Symmetries {
        Symmetries {
            count: S::SYMMETRIES,
            planes: S::transform_planes,
            policy_index: S::transform_policy_index,
        }
    }
}

/// The training samples of a finished game: its fully searched positions.
pub fn samples_of_game<S: Encode>(record: &GameRecord) -> Result<Vec<Sample>, RecordError> {
    let mut samples = Vec::new();
    let mut steps = Vec::new();
    let planes = S::PLANES * S::HEIGHT * S::WIDTH;
    record.replay::<S>(|state, step| {
        if step.target.is_empty() {
            return;
        }
        let mut input = vec![0.0; planes];
        state.encode(&mut input);
        state.legal_steps(&mut steps);
        let side: Side = state.side_to_move();
        let result = match record.winner {
            None => 1,
            Some(w) if w == side.0 => 0,
            Some(_) => 2,
        };
        samples.push(Sample {
            planes: input.into_boxed_slice(),
            legal: steps
                .iter()
                .map(|&a| state.policy_index(a) as u16)
                .collect(),
            target: step
                .target
                .iter()
                .map(|&(a, p)| (state.policy_index(a) as u16, p))
                .collect(),
            result,
        });
    })?;
    Ok(samples)
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
}

/// The logit mask's value on illegal steps (finite, so 0 × mask stays 0).
pub const ILLEGAL_LOGIT: f32 = -1.0e9;

/// The most recent samples, up to a capacity that can grow.
#[derive(Debug, Default)]
pub struct ReplayWindow {
    samples: VecDeque<Sample>,
    capacity: usize,
}

impl ReplayWindow {
    /// An empty window holding at most `capacity` samples.
    pub fn new(capacity: usize) -> ReplayWindow {
        ReplayWindow {
            samples: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
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
        self.samples.extend(samples);
        self.trim();
    }

    fn trim(&mut self) {
        while self.samples.len() > self.capacity {
            self.samples.pop_front();
        }
    }

    /// A batch of `size` samples drawn uniformly (with replacement), each under a random
    /// symmetry.
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
        };
        for b in 0..size {
            let sample = &self.samples[rng.gen_range(0..self.samples.len())];
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
        }
        batch
    }
}
