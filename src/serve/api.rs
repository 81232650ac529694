//! The routes: the page's files and the JSON API (docs/web.md is the reference). Requests
//! carry the whole game state they need (game name, position, the steps of a turn being
//! entered), so the server keeps no sessions; only analyses that the page polls are kept.
//! Bad input is a 4xx answer `{"error": "..."}`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::board::{board, pieces};
use super::clicks::{click, EntryInput};
use super::error::ApiError;
use super::guard;
use super::rundir::{RunError, RunRoot};
use super::search::{self, search_config, AnalysisBudget, RequestEvaluator, Snapshot, StopOnDrop};
use super::words::{mover_words, outcome_words, thousands};
use super::ServeState;
use crate::game::turns::{distinct_turns, parse_turn};
use crate::game::{position, Coord, GameKind, GameState, RulesConfig};
use crate::search::run::Budget;
use crate::with_game;

type Shared = Arc<ServeState>;

impl From<RunError> for ApiError {
    fn from(e: RunError) -> Self {
        let status = match e {
            RunError::NoRunDir | RunError::NotFound(_) => StatusCode::NOT_FOUND,
            RunError::Outside(_) => StatusCode::FORBIDDEN,
            RunError::Unreadable(_) => StatusCode::UNPROCESSABLE_ENTITY,
        };
        ApiError::new(status, e.to_string())
    }
}

type ApiResult = Result<Json<Value>, ApiError>;

/// The router over `state`.
pub fn router(state: Shared) -> Router {
    let limit = state.config.max_body_bytes;
    let guard = guard::Guard {
        limit,
        log: state.config.log_requests,
    };
    let routes = Router::new()
        .route("/", get(index))
        .route("/assets/{name}", get(asset))
        .route("/api/info", get(info))
        .route("/api/new", post(new_game))
        .route("/api/position", post(show_position))
        .route("/api/legal", post(legal))
        .route("/api/play", post(play))
        .route("/api/entry", post(entry))
        .route("/api/analyse", post(analyse_now))
        .route("/api/analysis", post(start_analysis))
        .route(
            "/api/analysis/{id}",
            get(poll_analysis).delete(stop_analysis),
        )
        .route("/api/runs", get(runs))
        .route("/api/games", get(games))
        .route("/api/game", get(game))
        .route("/api/metrics", get(metrics))
        .route("/api/checkpoints", get(checkpoints))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page or endpoint") })
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state);
    // Around the whole router, so that it sees the answers of the method routers too.
    Router::new()
        .fallback_service(routes)
        .layer(axum::middleware::from_fn(json_errors))
        .layer(axum::middleware::from_fn_with_state(guard, guard::guard))
}

/// Turns every error answer that is not JSON yet (a wrong method, a malformed path) into
/// `{"error": message}`, in words.
async fn json_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let response = next.run(request).await;
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return response;
    }
    let allow = response
        .headers()
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = axum::body::to_bytes(response.into_body(), 64 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_string();
    let message = match (status, allow) {
        (StatusCode::METHOD_NOT_ALLOWED, Some(allow)) => {
            format!("{path} takes {allow} requests, not {method}")
        }
        _ if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    ApiError::new(status, message).into_response()
}

// ---- the page ----

const INDEX_HTML: &str = include_str!("assets/index.html");
/// The page's files by name: (name, content type, contents). uPlot is vendored from npm
/// (`assets/vendor/README.md`).
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.js", JS, include_str!("assets/app.js")),
    ("util.js", JS, include_str!("assets/util.js")),
    ("play.js", JS, include_str!("assets/play.js")),
    ("engine.js", JS, include_str!("assets/engine.js")),
    ("gametext.js", JS, include_str!("assets/gametext.js")),
    ("tree.js", JS, include_str!("assets/tree.js")),
    ("link.js", JS, include_str!("assets/link.js")),
    ("board.js", JS, include_str!("assets/board.js")),
    ("charts.js", JS, include_str!("assets/charts.js")),
    ("views.js", JS, include_str!("assets/views.js")),
    ("dashboard.js", JS, include_str!("assets/dashboard.js")),
    ("graph.js", JS, include_str!("assets/graph.js")),
    ("editor.js", JS, include_str!("assets/editor.js")),
    ("style.css", CSS, include_str!("assets/style.css")),
    (
        "uplot.min.js",
        JS,
        include_str!("assets/vendor/uplot.min.js"),
    ),
    (
        "uplot.min.css",
        CSS,
        include_str!("assets/vendor/uplot.min.css"),
    ),
    (
        "uplot-LICENSE.txt",
        "text/plain; charset=utf-8",
        include_str!("assets/vendor/uplot-LICENSE.txt"),
    ),
];
const JS: &str = "text/javascript";
const CSS: &str = "text/css";

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, mime, text)) => ([(header::CONTENT_TYPE, *mime)], *text).into_response(),
        None => ApiError::new(StatusCode::NOT_FOUND, format!("no asset '{name}'")).into_response(),
    }
}

// ---- request parsing ----

fn body<T: DeserializeOwned>(bytes: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad(format!("bad request body: {e}")))
}

fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(t)| t)
        .map_err(|r| ApiError::bad(format!("bad query: {}", r.body_text())))
}

fn game_kind(name: &str) -> Result<GameKind, ApiError> {
    name.parse()
        .map_err(|e: crate::game::NotationError| ApiError::bad(e.to_string()))
}

fn parse_position<S: GameState>(kind: GameKind, text: Option<&str>) -> Result<S, ApiError> {
    position(kind, text, RulesConfig::default())
        .map_err(|e| ApiError::bad(format!("bad position: {e}")))
}

fn cell(name: &str) -> Result<Coord, ApiError> {
    Coord::parse(name).map_err(|e| ApiError::bad(e.to_string()))
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameRequest {
    game: String,
    position: Option<String>,
}

/// A position as the page shows it: notation, pieces, who moves, the result, legal turns.
fn view<S: GameState>(state: &S) -> Value {
    let kind = state.kind();
    let seat = state.seat_to_move();
    json!({
        "game": kind.name(),
        "position": state.to_notation(),
        "seat": kind.seat_names().get(seat.0 as usize),
        "seat_index": seat.0,
        "mover": mover_words(state),
        "side": state.side_to_move().0,
        "pieces": pieces(state),
        "outcome": state.outcome().map(|o| outcome_words(kind, &o)),
        // The winning side's index once the game is over (null: a draw, or not over).
        "winner": state.outcome().and_then(|o| o.winner).map(|side| side.0),
        "turns": distinct_turns(state).into_iter().map(|t| t.path).collect::<Vec<_>>(),
    })
}

// ---- games ----

async fn info(State(st): State<Shared>) -> Json<Value> {
    let models: serde_json::Map<String, Value> = st
        .models
        .iter()
        .map(|(k, m)| (k.name().to_string(), json!(m.describe())))
        .collect();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": GameKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
        "models": models,
        "run_dir": st.run.is_some(),
        // Searches holding a slot now (a search stopped by its client frees its slot).
        "searches_running": st.config.max_searches.saturating_sub(st.searches.available_permits()),
        "limits": {
            "max_visits": st.config.max_visits,
            "default_visits": st.config.default_visits,
            "max_seconds": st.config.max_seconds,
            "max_lines": MAX_LINES,
            "max_body_bytes": st.config.max_body_bytes,
        },
    }))
}

async fn new_game(bytes: Result<Bytes, BytesRejection>) -> ApiResult {
    let req: GameRequest = body(bytes)?;
    let kind = game_kind(&req.game)?;
    blocking(move || {
        with_game!(kind, S => {
            let state: S = parse_position(kind, req.position.as_deref())?;
            let mut v = view(&state);
            v["board"] = json!(board(kind));
            Ok(Json(v))
        })
    })
    .await
}

async fn show_position(bytes: Result<Bytes, BytesRejection>) -> ApiResult {
    new_game(bytes).await
}

async fn legal(bytes: Result<Bytes, BytesRejection>) -> ApiResult {
    let req: GameRequest = body(bytes)?;
    let kind = game_kind(&req.game)?;
    blocking(move || {
        let turns = crate::game::turns::turn_paths(kind, req.position.as_deref())
            .map_err(|e| ApiError::bad(format!("bad position: {e}")))?;
        Ok(Json(json!({ "turns": turns })))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayRequest {
    game: String,
    position: Option<String>,
    /// The turn to play; without it the model (or search) chooses one.
    turn: Option<String>,
    /// Root visits for each searched step, as sent (checked by `visits`).
    visits: Option<Value>,
    /// Time for each searched step, in seconds (instead of visits), as sent (checked by
    /// `seconds`).
    seconds: Option<Value>,
}

// A search's visits and seconds are taken from the body as any JSON value and checked here,
// so that every value out of range or of the wrong kind (-5, 1.5, 0, 10^9, "many") is refused
// in words that name the range, never in the JSON parser's words.

/// The visits a search may make: the server's default when none are asked for, else a whole
/// number from 1 to `max_visits`.
fn visits(st: &ServeState, asked: Option<&Value>) -> Result<u32, ApiError> {
    let max = st.config.max_visits;
    let Some(asked) = asked else {
        return Ok(st.config.default_visits);
    };
    match asked.as_f64() {
        Some(v) if v.fract() == 0.0 && (1.0..=f64::from(max)).contains(&v) => Ok(v as u32),
        _ => Err(ApiError::bad(format!(
            "a search takes a whole number of visits, at least 1 and at most {}; {} were \
             asked for",
            thousands(u64::from(max)),
            asked_words(asked)
        ))),
    }
}

/// The most engine lines an analysis reports.
pub const MAX_LINES: usize = 10;

/// Engine lines when none are asked for.
const DEFAULT_LINES: usize = 3;

/// The engine lines asked for: [`DEFAULT_LINES`] when none are, else a whole number from 1
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

/// The longest time a search may take: the server's limit when none is asked for, else more
/// than 0 and at most `max_seconds`.
fn seconds(st: &ServeState, asked: Option<&Value>) -> Result<Duration, ApiError> {
    let max = st.config.max_seconds;
    let Some(asked) = asked else {
        return Ok(Duration::from_secs_f64(max));
    };
    match asked.as_f64() {
        Some(s) if s > 0.0 && s <= max => Ok(Duration::from_secs_f64(s)),
        _ => Err(ApiError::bad(format!(
            "a search takes more than 0 and at most {max} seconds; {} were asked for",
            asked_words(asked)
        ))),
    }
}

/// A value asked for, as an error quotes it: whole numbers with thousands separators
/// (`1,000,000,000`, `-5`), other numbers as sent (`1.5`), anything else as JSON.
fn asked_words(asked: &Value) -> String {
    if let Some(n) = asked.as_u64() {
        return thousands(n);
    }
    if let Some(n) = asked.as_i64() {
        return format!("-{}", thousands(n.unsigned_abs()));
    }
    match asked.as_f64() {
        Some(f) if f.abs() >= 1e15 => format!("{f:e}"),
        Some(f) if f.fract() == 0.0 => {
            let sign = if f < 0.0 { "-" } else { "" };
            format!("{sign}{}", thousands(f.abs() as u64))
        }
        Some(f) => f.to_string(),
        None => asked.to_string(),
    }
}

/// The model's budget for one searched step: visits, or seconds when asked for.
fn play_budget(st: &ServeState, req: &PlayRequest) -> Result<Budget, ApiError> {
    match (&req.visits, &req.seconds) {
        (Some(_), Some(_)) => Err(ApiError::bad("give visits or seconds, not both")),
        (_, Some(s)) => Ok(Budget::Time(seconds(st, Some(s))?)),
        (v, None) => Ok(Budget::Count(visits(st, v.as_ref())?)),
    }
}

async fn play(State(st): State<Shared>, bytes: Result<Bytes, BytesRejection>) -> ApiResult {
    let req: PlayRequest = body(bytes)?;
    let kind = game_kind(&req.game)?;
    let budget = play_budget(&st, &req)?;
    let permit = match req.turn {
        Some(_) => None,
        None => Some(
            st.searches
                .clone()
                .acquire_owned()
                .await
                .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?,
        ),
    };
    // Dropped with this request (the client went away): the search stops at once.
    let guard = StopOnDrop::default();
    let stop = Arc::clone(&guard.0);
    let answer = blocking(move || {
        let _permit = permit;
        with_game!(kind, S => {
            let state: S = parse_position(kind, req.position.as_deref())?;
            if let Some(outcome) = state.outcome() {
                return Err(ApiError::unplayable(format!(
                    "the game is over: {}", outcome_words(kind, &outcome)
                )));
            }
            let after = match req.turn {
                Some(text) => parse_turn(&state, &text)
                    .map_err(|e| ApiError::unplayable(e.to_string()))?
                    .state,
                None => {
                    let model = st.models.get(&kind);
                    let eval = RequestEvaluator::new(model, state.position_hash(), stop);
                    let bound = Duration::from_secs_f64(st.config.max_seconds);
                    search::choose_turn(&state, eval, search_config(model), budget, bound)
                        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e))?
                        .1
                }
            };
            Ok(Json(played(&state, &after)))
        })
    })
    .await;
    drop(guard);
    answer
}

/// The position after a turn, with the turn's smallest path.
fn played<S: GameState>(before: &S, after: &S) -> Value {
    let hash = after.position_hash();
    let turn = distinct_turns(before)
        .into_iter()
        .find(|t| t.state.position_hash() == hash)
        .map(|t| t.path);
    let mut v = view(after);
    v["turn"] = json!(turn);
    v
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryRequest {
    game: String,
    position: Option<String>,
    #[serde(default)]
    steps: Vec<u16>,
    selected: Option<String>,
    click: Option<String>,
}

async fn entry(bytes: Result<Bytes, BytesRejection>) -> ApiResult {
    let req: EntryRequest = body(bytes)?;
    let kind = game_kind(&req.game)?;
    let input = EntryInput {
        steps: req.steps,
        selected: req.selected.as_deref().map(cell).transpose()?,
        click: req.click.as_deref().map(cell).transpose()?,
    };
    blocking(move || {
        with_game!(kind, S => {
            let start: S = parse_position(kind, req.position.as_deref())?;
            let entry = click(&start, &input).map_err(|e| ApiError::unplayable(e.to_string()))?;
            let mut v = json!(entry);
            v["pieces"] = json!(pieces(&entry.state));
            if entry.turn.is_some() {
                v["after"] = view(&entry.state);
            }
            Ok(Json(v))
        })
    })
    .await
}

// ---- analysis ----

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
    /// Engine lines to report (multi-PV), as sent (checked by `lines`).
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

async fn analyse_now(State(st): State<Shared>, bytes: Result<Bytes, BytesRejection>) -> ApiResult {
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
                old.stop.store(true, Ordering::Relaxed);
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

async fn start_analysis(
    State(st): State<Shared>,
    bytes: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let req: AnalyseRequest = body(bytes)?;
    let search = prepare_analysis(&st, &req, true)?;
    let job = Arc::new(Job {
        snapshot: Mutex::new(Snapshot::default()),
        stop: Arc::new(AtomicBool::new(false)),
        polled: Mutex::new(Instant::now()),
    });
    let id = st.analyses.insert(Arc::clone(&job), st.config.max_analyses);
    let searches = Arc::clone(&st.searches);
    tokio::spawn(async move {
        let permit = searches.acquire_owned().await;
        let _ = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let stop = Arc::clone(&job.stop);
            search(&stop, &mut |s| {
                *job.snapshot.lock().expect("snapshot lock") = s;
                if job.polled.lock().expect("poll lock").elapsed() > UNPOLLED {
                    job.stop.store(true, Ordering::Relaxed);
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

async fn poll_analysis(State(st): State<Shared>, Path(id): Path<String>) -> ApiResult {
    let job = st.analyses.get(analysis_id(&id)?)?;
    *job.polled.lock().expect("poll lock") = Instant::now();
    let snapshot = job.snapshot.lock().expect("snapshot lock").clone();
    Ok(Json(json!(snapshot)))
}

async fn stop_analysis(State(st): State<Shared>, Path(id): Path<String>) -> ApiResult {
    let id = analysis_id(&id)?;
    let job = st.analyses.get(id)?;
    job.stop.store(true, Ordering::Relaxed);
    Ok(Json(json!({ "stopped": id })))
}

// ---- runs ----

fn run_root(st: &ServeState) -> Result<&RunRoot, ApiError> {
    st.run.as_ref().ok_or_else(|| RunError::NoRunDir.into())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunQuery {
    #[serde(default)]
    run: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameQuery {
    file: String,
    index: Option<usize>,
    /// List the games of the file instead of replaying one.
    #[serde(default)]
    list: bool,
}

async fn runs(State(st): State<Shared>) -> ApiResult {
    Ok(Json(json!({ "runs": run_root(&st)?.runs() })))
}

async fn games(State(st): State<Shared>, q: Result<Query<RunQuery>, QueryRejection>) -> ApiResult {
    let q = query(q)?;
    blocking(move || Ok(Json(json!({ "files": run_root(&st)?.game_files(&q.run)? })))).await
}

async fn game(State(st): State<Shared>, q: Result<Query<GameQuery>, QueryRejection>) -> ApiResult {
    let q = query(q)?;
    blocking(move || {
        let root = run_root(&st)?;
        if q.list {
            return Ok(Json(json!({ "games": root.games_in(&q.file)? })));
        }
        Ok(Json(json!(root.replay(&q.file, q.index)?)))
    })
    .await
}

async fn metrics(
    State(st): State<Shared>,
    q: Result<Query<RunQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    blocking(move || {
        let root = run_root(&st)?;
        Ok(Json(json!({
            "metrics": root.metrics(&q.run)?,
            "ratings": root.ratings(&q.run)?,
            "game": root.game(&q.run),
        })))
    })
    .await
}

async fn checkpoints(
    State(st): State<Shared>,
    q: Result<Query<RunQuery>, QueryRejection>,
) -> ApiResult {
    let q = query(q)?;
    blocking(move || {
        Ok(Json(
            json!({ "checkpoints": run_root(&st)?.checkpoints(&q.run)? }),
        ))
    })
    .await
}
