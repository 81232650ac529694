//! The solver's view of agents without a net (`probe --agent uct:3000`): on the set's
//! positions where a mistake is possible, how often the agent's whole turn is proven
//! optimal, counted over the choices whose class is proven. A checkpoint's search gets the
//! same figures from [`super::score::score_set`], so the two stand side by side.

use rayon::prelude::*;

use super::score::{is_contested, play_forced, turn_label, SeatScore};
use super::{ProbeError, ProbePosition, ProbeSet};
use crate::eval::spec::AgentSpec;
use crate::game::turns::distinct_turns;
use crate::game::GameState;
use crate::search::agents::{rollout_uct, Agent, AlphaBetaAgent, RandomAgent};
use crate::with_game;

/// Seed of the agent at position `i` (each position gets its own, so the result does not
/// depend on how the positions are shared among threads).
const SEED: u64 = 0x005e_ed0f_501e;

/// The agent `spec` names, seeded with `seed`: random, UCT or alpha-beta. A net is probed
/// as a checkpoint (its search at the probe's visits), not as an agent.
fn agent_for<S: GameState>(spec: &AgentSpec, seed: u64) -> Result<Box<dyn Agent<S>>, ProbeError> {
    let agent: Box<dyn Agent<S>> = match spec {
        AgentSpec::Random => Box::new(RandomAgent::new(seed)),
        AgentSpec::Uct { playouts } => Box::new(rollout_uct(*playouts, seed)),
        AgentSpec::AlphaBeta { budget } => Box::new(AlphaBetaAgent::new(*budget, seed)),
        other => {
            return Err(ProbeError::Settings(format!(
                "--agent {other}: only agents without a net (random, uct:N, alphabeta:D); \
                 give a checkpoint as an argument to probe its search"
            )))
        }
    };
    Ok(agent)
}

/// The hash of the position after `agent` plays its whole turn from `state`.
fn agent_turn<S: GameState>(agent: &mut dyn Agent<S>, state: &S) -> Result<u64, ProbeError> {
    let mut current = state.clone();
    while play_forced(&mut current) {
        let step = agent
            .choose(&current)
            .map_err(|e| ProbeError::Settings(format!("the agent failed: {e}")))?;
        current.apply_step(step);
        if !current.turn_in_progress() || current.outcome().is_some() {
            break;
        }
    }
    Ok(current.position_hash())
}

/// The solver's view of `spec` on one position (index `i` of the set): its seat's row and
/// what the chosen turn keeps.
fn score_position<S: GameState>(
    set: &ProbeSet,
    spec: &AgentSpec,
    i: usize,
    p: &ProbePosition,
) -> Result<(usize, Option<bool>), ProbeError> {
    let state: S = p.state(set.game).map_err(ProbeError::Settings)?;
    let mut agent = agent_for::<S>(spec, SEED ^ i as u64)?;
    let chosen = agent_turn(agent.as_mut(), &state)?;
    let label = turn_label(p, &distinct_turns(&state), chosen);
    Ok((
        state.seat_to_move().0 as usize,
        label.and_then(|l| l.keeps(p.value)),
    ))
}

/// The solver's view of `spec` on `set`: one row per seat, then `all`; only the
/// `contested*` figures are filled (the agent is asked only where a mistake is possible).
pub fn score_agent(set: &ProbeSet, spec: &AgentSpec) -> Result<Vec<SeatScore>, ProbeError> {
    let chosen: Vec<(usize, Option<bool>)> = set
        .positions
        .par_iter()
        .enumerate()
        .filter(|(_, p)| is_contested(p))
        .map(|(i, p)| with_game!(set.game, S => score_position::<S>(set, spec, i, p)))
        .collect::<Result<_, _>>()?;
    let mut rows = SeatScore::per_seat(set.game);
    for (seat, keeps) in chosen {
        rows[seat].count_choice(true, keeps);
    }
    Ok(SeatScore::with_total(rows))
}
