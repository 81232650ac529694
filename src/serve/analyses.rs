//! Analyses: an analysis answered at once (`/api/analyse`), the registry of those the page
//! polls while they run (`/api/analysis`): started, read, stopped (saying why), and dropped
//! oldest first; and the graph of a game, its positions searched together (`/api/graph`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::ApiError;
use super::request::{
    asked_words, blocking, body, game_kind, parse_position, seconds, visits, ApiResult, Shared,
};
use super::search::{
    self, analysis_config, search_config, AnalysisBudget, RequestEvaluator, Snapshot, StopOnDrop,
};
use crate::game::GameState;
use crate::with_game;

/// The most lines (multi-PV) an analysis reports.
pub const MAX_LINES: usize = 10;

/// Lines when none are asked for.
const DEFAULT_LINES: usize = 3;

/// The lines asked for: [`DEFAULT_LINES`] when none are, else a whole number from 1
/// to [`MAX_LINES`].
fn lines(asked: Option<&Value>) -> Result<usize, ApiError> {
    let Some(asked) = asked else {
        return Ok(DEFAULT_LINES);
    };
    match asked.as_f64() {
        Some(n) if n.fract() == 0.0 && (1.0..=MAX_LINES as f64).contains(&n) => Ok(n as usize),
        _ => Err(ApiError::bad(format!(
            "an analysis shows a whole number of engine lines, at least 1 and at most \
             {MAX_LINES}; {} were asked for",
            asked_words(asked)
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseRequest {
    game: String,
    position: Option<String>,
    /// Root visits to reach, as sent (checked by `visits`).
    visits: Option<Value>,
    /// Longest time to search, in seconds (at most the server's limit), as sent (checked by
    /// `seconds`).
    seconds: Option<Value>,
    /// Lines to report (multi-PV), as sent (checked by `lines`).
    lines: Option<Value>,
}

type SearchJob = Box<dyn FnOnce(&Arc<AtomicBool>, &mut dyn FnMut(Snapshot)) + Send>;

/// Checks an analysis request and readies its search (run it on a blocking thread).
fn prepare_analysis(
    st: &Shared,
    req: &AnalyseRequest,
    progress: bool,
) -> Result<SearchJob, ApiError> {
    let kind = game_kind(&req.game)?;
    let budget = AnalysisBudget {
        visits: visits(st, req.visits.as_ref())?,
        time: seconds(st, req.seconds.as_ref())?,
        chunk: st.config.snapshot_visits,
        progress,
        lines: lines(req.lines.as_ref())?,
    };
    with_game!(kind, S => {
        let state: S = parse_position(kind, req.position.as_deref())?;
        if state.outcome().is_some() {
            return Err(ApiError::unplayable("the game is over: nothing to analyse"));
        }
        let st = Arc::clone(st);
        Ok(Box::new(move |stop, publish| {
            let model = st.models.get(&kind);
            let eval = RequestEvaluator::new(model, state.position_hash(), Arc::clone(stop));
            search::analyse(&state, eval, search_config(model), budget, stop, publish);
        }))
    })
}

pub(super) async fn analyse_now(
    State(st): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let req: AnalyseRequest = body(bytes)?;
    let job = prepare_analysis(&st, &req, false)?;
    let guard = StopOnDrop::default();
    let stop = Arc::clone(&guard.0);
    let permit = st.searches.clone().acquire_owned().await;
    let snapshot = blocking(move || {
        let _permit = permit;
        let mut last = Snapshot::default();
        job(&stop, &mut |s| last = s);
        Ok(last)
    })
    .await?;
    drop(guard);
    Ok(Json(json!(snapshot)))
}

struct Job {
    snapshot: Mutex<Snapshot>,
    stop: Arc<AtomicBool>,
    /// When the page last asked for it: an analysis nobody polls is stopped.
    polled: Mutex<Instant>,
    /// Why the server stopped it, in words (said in the last snapshot's `stopped`).
    why: Mutex<Option<String>>,
}

impl Job {
    /// Stops the analysis, saying why.
    fn stop(&self, why: impl Into<String>) {
        let mut said = self.why.lock().expect("why lock");
        if said.is_none() {
            *said = Some(why.into());
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Keeps `snapshot` as the one to answer with; a last one that stopped early says why.
    fn publish(&self, mut snapshot: Snapshot) {
        if let (Some(stopped), Some(why)) = (&snapshot.stopped, &*self.why.lock().expect("why")) {
            snapshot.stopped = Some(format!("{why}: {stopped}"));
        }
        *self.snapshot.lock().expect("snapshot lock") = snapshot;
    }
}

/// How long an analysis runs on with nobody polling it.
const UNPOLLED: Duration = Duration::from_secs(5);

/// Analyses the page polls: started, read while they run, stopped, and dropped oldest first.
#[derive(Default)]
pub struct Analyses {
    next: AtomicU64,
    jobs: Mutex<VecDeque<(u64, Arc<Job>)>>,
}

impl Analyses {
    fn insert(&self, job: Arc<Job>, keep: usize) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut jobs = self.jobs.lock().expect("analyses lock");
        jobs.push_back((id, job));
        while jobs.len() > keep {
            let at = jobs
                .iter()
                .position(|(_, j)| j.snapshot.lock().expect("snapshot lock").done)
                .unwrap_or(0);
            if let Some((_, old)) = jobs.remove(at) {
                old.stop(format!(
                    "dropped for a newer analysis (the server keeps {keep})"
                ));
            }
        }
        id
    }

    fn get(&self, id: u64) -> Result<Arc<Job>, ApiError> {
        let jobs = self.jobs.lock().expect("analyses lock");
        jobs.iter()
            .find(|(i, _)| *i == id)
            .map(|(_, j)| Arc::clone(j))
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no analysis {id}")))
    }
}

pub(super) async fn start_analysis(
    State(st): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let req: AnalyseRequest = body(bytes)?;
    let search = prepare_analysis(&st, &req, true)?;
    let job = Arc::new(Job {
        snapshot: Mutex::new(Snapshot::default()),
        stop: Arc::new(AtomicBool::new(false)),
        polled: Mutex::new(Instant::now()),
        why: Mutex::new(None),
    });
    let id = st.analyses.insert(Arc::clone(&job), st.config.max_analyses);
    let searches = Arc::clone(&st.searches);
    tokio::spawn(async move {
        let permit = searches.acquire_owned().await;
        let _ = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let stop = Arc::clone(&job.stop);
            search(&stop, &mut |s| {
                job.publish(s);
                if job.polled.lock().expect("poll lock").elapsed() > UNPOLLED {
                    job.stop(format!(
                        "nobody asked for it for {} s (poll /api/analysis/ID to keep it going)",
                        UNPOLLED.as_secs()
                    ));
                }
            });
        })
        .await;
    });
    Ok(Json(json!({ "id": id })))
}

/// An analysis id from the path, in words when it is not a number.
fn analysis_id(text: &str) -> Result<u64, ApiError> {
    text.parse().map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("no analysis '{text}': an analysis id is a number"),
        )
    })
}

pub(super) async fn poll_analysis(State(st): State<Shared>, Path(id): Path<String>) -> ApiResult {
    let job = st.analyses.get(analysis_id(&id)?)?;
    *job.polled.lock().expect("poll lock") = Instant::now();
    let snapshot = job.snapshot.lock().expect("snapshot lock").clone();
    Ok(Json(json!(snapshot)))
}

pub(super) async fn stop_analysis(State(st): State<Shared>, Path(id): Path<String>) -> ApiResult {
    let id = analysis_id(&id)?;
    let job = st.analyses.get(id)?;
    job.stop("stopped by its client");
    Ok(Json(json!({ "stopped": id })))
}

/// The most positions one graph request may search.
pub const MAX_GRAPH_POSITIONS: usize = 1000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphRequest {
    game: String,
    /// The positions of the game, in order.
    positions: Vec<String>,
    /// Root visits for each position, as sent (checked by `visits`).
    visits: Option<Value>,
}

/// The graph of a game: every position of `positions` searched together (their leaves share
/// the net's batches), each one's value for its side to move.
pub(super) async fn graph(
    State(st): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let req: GraphRequest = body(bytes)?;
    let kind = game_kind(&req.game)?;
    let count = req.positions.len();
    if count == 0 || count > MAX_GRAPH_POSITIONS {
        return Err(ApiError::bad(format!(
            "a graph takes from 1 to {MAX_GRAPH_POSITIONS} positions; {count} were sent"
        )));
    }
    let visits = visits(&st, req.visits.as_ref())?;
    let guard = StopOnDrop::default();
    let stop = Arc::clone(&guard.0);
    let permit = st.searches.clone().acquire_owned().await;
    let answer = blocking(move || {
        let _permit = permit;
        with_game!(kind, S => {
            let mut states: Vec<S> = Vec::with_capacity(count);
            for (i, text) in req.positions.iter().enumerate() {
                let state = parse_position(kind, Some(text)).map_err(|e| {
                    ApiError::bad(format!("position {} of {count}: {}", i + 1, e.message()))
                })?;
                states.push(state);
            }
            let model = st.models.get(&kind);
            let eval = RequestEvaluator::new(model, 0, stop);
            let deadline = Instant::now() + Duration::from_secs_f64(st.config.max_seconds);
            let values =
                search::graph_values(&states, eval, analysis_config(model), visits, deadline)
                    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e))?;
            Ok(Json(json!({ "positions": values })))
        })
    })
    .await;
    drop(guard);
    answer
}
