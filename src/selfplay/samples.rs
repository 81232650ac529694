//! A finished game as the learner takes it, from one replay of its record: its training
//! samples (the fully searched positions, encoded with their targets) and, for a played game,
//! its diversity summary. The learner itself sees only samples.

use super::diversity::{GameSummary, SummaryBuilder};
use super::record::{GameRecord, RecordError};
use crate::game::Side;
use crate::net::encode::Encode;
use crate::train::window::Sample;

/// What a finished game gives the learner role.
#[derive(Clone, Debug)]
pub struct TakenGame {
    /// Its training samples, in the order played.
    pub samples: Vec<Sample>,
    /// Its diversity summary; `None` for a reanalysis, which repeats a game already counted.
    pub summary: Option<GameSummary>,
}

/// The samples and summary of a finished game; fails if the record does not replay.
pub fn take_game<S: Encode>(record: &GameRecord) -> Result<TakenGame, RecordError> {
    let mut samples = Vec::new();
    let mut steps = Vec::new();
    let planes = S::PLANES * S::HEIGHT * S::WIDTH;
    let mut left = record.steps.len();
    let mut summary = SummaryBuilder::new(record);
    record.replay::<S>(|state, step| {
        summary.step(state, step.action);
        left -= 1;
        if step.target.is_empty() {
            return;
        }
        let mut input = vec![0.0; planes];
        state.encode(&mut input);
        state.legal_steps(&mut steps);
        let side: Side = state.side_to_move();
        let result = match (step.proven, record.winner) {
            (Some(class), _) => (1 - class.clamp(-1, 1)) as u8,
            (None, None) => 1,
            (None, Some(w)) if w == side.0 => 0,
            (None, Some(_)) => 2,
        };
        // A searched step always has a value; an old record without one falls back on z.
        let z = 1.0 - result as f32;
        let q = step.value.map_or(z, |v| v.clamp(-1.0, 1.0));
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
            q,
            surprise: step.surprise.map(|k| k.max(0.0)),
            moves_left: (left + 1).min(u16::MAX as usize) as u16,
            key: state.future_key().unwrap_or_else(|| state.position_hash()),
        });
    })?;
    Ok(TakenGame {
        samples,
        summary: (!record.reanalysed).then(|| summary.finish(record)),
    })
}

/// The training samples of a finished game alone.
pub fn samples_of_game<S: Encode>(record: &GameRecord) -> Result<Vec<Sample>, RecordError> {
    take_game::<S>(record).map(|taken| taken.samples)
}
