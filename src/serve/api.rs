//! The routes of the JSON API and the page (docs/web.md is the reference). Requests
//! carry the whole game state they need (game name, position, the steps of a turn being
//! entered), so the server keeps no sessions; only analyses that the page polls are kept.
//! Bad input is a 4xx answer `{"error": "..."}`. The page's files are [`super::assets`]'s,
//! the analyses the page polls [`super::analyses`]', and what every route reads from a
//! request [`super::request`]'s.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::analyses::{
    analyse_now, graph, poll_analysis, start_analysis, stop_analysis, MAX_GRAPH_POSITIONS,
    MAX_LINES,
};
use super::assets::{asset, index};
use super::board::{board, pieces};
use super::clicks::{click, EntryInput};
use super::error::ApiError;
use super::guard;
use super::request::{
    blocking, body, cell, game_kind, parse_position, query, seconds, visits, ApiResult, Shared,
};
use super::rundir::{RunError, RunRoot};
use super::search::{self, search_config, RequestEvaluator, StopOnDrop};
use super::words::{mover_words, outcome_words};
use super::ServeState;
use crate::game::turns::{distinct_turns, parse_turn};
use crate::game::{GameKind, GameState};
use crate::search::run::Budget;
use crate::with_game;

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
        .route("/api/graph", post(graph))
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
            "max_graph_positions": MAX_GRAPH_POSITIONS,
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
        let turns =
            crate::game::turns::turn_paths(kind, req.position.as_deref(), Default::default())
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
