//! `checkers-zero status`: what a distributed run is doing, read from its store alone — the
//! learner's newest checkpoint and how far it is behind the shards, each self-play session's
//! counters, and the evaluation role's last result.

use std::fmt;

use serde_json::Value;

use super::lease::Lease;
use super::selfplay::SelfPlayStatus;
use super::{read_pointer, read_state_file, unix_millis, RoleError};
use crate::config::RunConfig;
use crate::layout::state::{EvaluationState, IntakeLink, TrainState};
use crate::layout::{
    checkpoint_key, parse_shard_key, CONFIG, EVALUATION_METRICS, EVALUATION_STATE, GAMES,
    INTAKE_FILE, LATEST, PROMOTED, STATE_FILE, WORKERS,
};
use crate::store::RunStore;

/// A worker session whose counters are older than this is reported as stopped.
pub const ACTIVE_SECONDS: f64 = 120.0;

/// One self-play session's counters (its `workers/<session>.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionStatus {
    /// The session's name.
    pub session: String,
    /// Games played (published or about to be).
    pub games: u64,
    /// Self-play positions per second over the session.
    pub positions_per_s: f64,
    /// The checkpoint its new games use.
    pub model_step: u64,
    /// Seconds since it last wrote its counters.
    pub age_s: f64,
    /// It said it stopped.
    pub done: bool,
}

/// What a run is doing.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStatus {
    /// The run location.
    pub location: String,
    /// Game and seed of the run.
    pub game: String,
    /// The newest checkpoint's counters (`None`: no checkpoint yet).
    pub checkpoint: Option<TrainState>,
    /// Seconds since the newest checkpoint was published.
    pub checkpoint_age_s: Option<f64>,
    /// With gating: the checkpoint self-play uses.
    pub promoted: Option<u64>,
    /// Shards in the store.
    pub shards: u64,
    /// Shards the newest checkpoint has not taken in.
    pub backlog: u64,
    /// Every self-play session, newest counters first.
    pub sessions: Vec<SessionStatus>,
    /// The evaluation role's last evaluated step and its last metrics lines.
    pub evaluation: Option<(u64, Vec<Value>)>,
    /// The singleton roles' leases, one line each (who holds the run, until when).
    pub leases: Vec<String>,
}

/// Reads the status of the run at `store`.
pub fn run_status(store: &RunStore) -> Result<RunStatus, RoleError> {
    let Some(config_text) = store.get_text(CONFIG)? else {
        return Err(RoleError::Run(format!("{} holds no run", store.location())));
    };
    let config = RunConfig::parse(&config_text, CONFIG)?;
    let latest = read_pointer(store, LATEST)?;
    let (checkpoint, checkpoint_age_s) = match latest {
        Some(step) => {
            let state: Option<TrainState> =
                read_state_file(store, &checkpoint_key(step, STATE_FILE))?;
            let age = read_state_file::<IntakeLink>(store, &checkpoint_key(step, INTAKE_FILE))?
                .map(|link| link.published_unix_ms)
                .filter(|&ms| ms > 0)
                .map(|ms| (unix_millis() as f64 - ms as f64) / 1000.0);
            (state, age)
        }
        None => (None, None),
    };
    let consumed = checkpoint.as_ref().map(|c| &c.consumed);
    let (mut shards, mut backlog) = (0u64, 0u64);
    for key in store.list(GAMES)? {
        if let Some((session, seq)) = parse_shard_key(&key) {
            shards += 1;
            // Shards taken in may have been deleted (game retention): the backlog counts
            // the ones at or past each session's count.
            let next = consumed.and_then(|c| c.get(session)).copied().unwrap_or(0);
            backlog += u64::from(seq >= next);
        }
    }
    let now = unix_millis() as f64;
    let mut sessions = Vec::new();
    for key in store.list(WORKERS)? {
        let Some(w) = read_state_file::<SelfPlayStatus>(store, &key)? else {
            continue;
        };
        sessions.push(SessionStatus {
            session: if w.session.is_empty() { key } else { w.session },
            games: w.games,
            positions_per_s: w.positions_per_s,
            model_step: w.model_step,
            age_s: (now - w.updated_unix_ms as f64) / 1000.0,
            done: w.done,
        });
    }
    sessions.sort_by(|a, b| a.age_s.total_cmp(&b.age_s));
    let evaluated = read_state_file::<EvaluationState>(store, EVALUATION_STATE)?;
    let evaluation = match evaluated.and_then(|state| state.last_step) {
        Some(step) => {
            let lines: Vec<Value> = store
                .get_text(EVALUATION_METRICS)?
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|v| v["step"].as_u64() == Some(step))
                .collect();
            Some((step, lines))
        }
        None => None,
    };
    let now_ms = u64::try_from(unix_millis()).unwrap_or(u64::MAX);
    let leases = Lease::holders(store)?
        .iter()
        .map(|lease| lease.describe(now_ms))
        .collect();
    Ok(RunStatus {
        location: store.location().to_string(),
        game: format!("{}, seed {}", config.game, config.seed),
        checkpoint,
        checkpoint_age_s,
        promoted: read_pointer(store, PROMOTED)?,
        shards,
        backlog,
        sessions,
        evaluation,
        leases,
    })
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "run {} ({})", self.location, self.game)?;
        match &self.checkpoint {
            Some(c) => writeln!(
                f,
                "learner: checkpoint step {}{}, {:.2} h of training{}",
                c.step,
                self.checkpoint_age_s
                    .map_or(String::new(), |a| format!(" (published {a:.0} s ago)")),
                c.elapsed_s / 3600.0,
                if c.games_seen > 0 {
                    format!(
                        ", {} games and {} samples taken in",
                        c.games_seen, c.samples_seen
                    )
                } else {
                    String::new()
                },
            )?,
            None => writeln!(f, "learner: no checkpoint yet")?,
        }
        if let Some(step) = self.promoted {
            writeln!(f, "gating: self-play uses step {step}")?;
        }
        writeln!(
            f,
            "shards: {} in the store, backlog {} not yet taken in",
            self.shards, self.backlog
        )?;
        let active: Vec<&SessionStatus> = self
            .sessions
            .iter()
            .filter(|s| !s.done && s.age_s < ACTIVE_SECONDS)
            .collect();
        writeln!(
            f,
            "self-play: {} active of {} sessions, {:.0} positions/s together",
            active.len(),
            self.sessions.len(),
            active.iter().fold(0.0, |sum, s| sum + s.positions_per_s)
        )?;
        for s in &self.sessions {
            let state = if s.done {
                "stopped"
            } else if s.age_s < ACTIVE_SECONDS {
                "active"
            } else {
                "silent"
            };
            writeln!(
                f,
                "  {:<40} {state:<7} {:>7} games {:>7.0} positions/s  checkpoint {:>6}  {:.0} s ago",
                s.session, s.games, s.positions_per_s, s.model_step, s.age_s
            )?;
        }
        if self.leases.is_empty() {
            writeln!(f, "leases: none held (no learner or evaluator running)")?;
        }
        for lease in &self.leases {
            writeln!(f, "lease: {lease}")?;
        }
        match &self.evaluation {
            Some((step, lines)) => {
                write!(f, "evaluator: last evaluated step {step}")?;
                for v in lines {
                    if let (Some(o), Some(score)) = (v["opponent"].as_str(), v["score"].as_f64()) {
                        write!(f, "; vs {o} {:.0}%", 100.0 * score)?;
                    }
                }
                writeln!(f)
            }
            None => writeln!(f, "evaluator: nothing evaluated yet"),
        }
    }
}
