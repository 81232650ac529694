//! Checkpoint retention applied to a run (the plan: [`crate::train::retention`]): after
//! each new checkpoint is published whole, older ones are thinned, each in the order that
//! keeps the run readable at every moment: the optimizer state goes first (no resume tries
//! it then), the weights next (no listing of weights offers it then), the counters last. Intake links are never removed: resume and
//! fork follow them back to the run's first checkpoint. A pinned checkpoint (a doubling's,
//! one rated) stays whole, so it can be forked and shipped as well as rated.

use crate::config::RunConfig;
use crate::layout::state::EvaluationState;
use crate::layout::{
    checkpoint_key, held_checkpoints, pinned_steps, CHECKPOINTS, EVALUATION_STATE, MODEL_META_FILE,
    OPTIMIZER_FILE, PROMOTED, STATE_FILE, WEIGHTS_FILE,
};
use crate::roles::{read_pointer, read_state_file, RoleError};
use crate::store::RunStore;
use crate::train::retention::Keep;

/// Thins the run's older checkpoints as its `[checkpoints]` settings say; returns how many
/// it changed.
pub fn prune(store: &RunStore, config: &RunConfig) -> Result<usize, RoleError> {
    if config.checkpoints.keep_full == 0 {
        return Ok(0);
    }
    let keys = store.list(CHECKPOINTS)?;
    let (held, pinned) = (held_checkpoints(&keys), pinned_steps(&keys));
    let protect = Protected::read(store, config)?;
    let plan = config
        .checkpoints
        .plan(&held, config.train.steps_per_iteration, |step| {
            protect.covers(step) || pinned.contains(&step)
        });
    let plan: Vec<_> = plan
        .into_iter()
        .filter(|(step, _)| !pinned.contains(step))
        .collect();
    for (step, keep) in &plan {
        let files: &[&str] = match keep {
            Keep::Full => &[],
            Keep::Weights => &[OPTIMIZER_FILE],
            Keep::Link => &[OPTIMIZER_FILE, WEIGHTS_FILE, MODEL_META_FILE, STATE_FILE],
        };
        for file in files {
            store.delete(&checkpoint_key(*step, file))?;
        }
    }
    Ok(plan.len())
}

/// Checkpoints whose weights others still need: the promoted one (self-play plays it), and
/// once an evaluation role has run (or with evaluation on), the last one evaluated and every later
/// one (its next incumbent and candidates).
struct Protected {
    promoted: Option<u64>,
    evaluated_from: Option<u64>,
}

impl Protected {
    fn read(store: &RunStore, config: &RunConfig) -> Result<Protected, RoleError> {
        let state: Option<EvaluationState> = read_state_file(store, EVALUATION_STATE)?;
        let on = config.evaluation.every > 0;
        let evaluated_from = match state {
            Some(state) => Some(state.last_step.unwrap_or(0)),
            None => on.then_some(0),
        };
        Ok(Protected {
            promoted: read_pointer(store, PROMOTED)?,
            evaluated_from,
        })
    }

    fn covers(&self, step: u64) -> bool {
        self.promoted == Some(step) || self.evaluated_from.is_some_and(|from| step >= from)
    }
}
