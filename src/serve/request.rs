//! What every route reads from a request: its body or query, the game and position it
//! names, and the limits of a search it asks for, each refused in words when wrong; and
//! the blocking thread a route's work runs on.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::Query;
use axum::http::StatusCode;
use axum::Json;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;
use super::words::thousands;
use super::ServeState;
use crate::game::{position, Coord, GameKind, GameState, RulesConfig};

/// The server's state as the routes share it.
pub(super) type Shared = Arc<ServeState>;

/// A route's answer: JSON, or a refusal in words.
pub(super) type ApiResult = Result<Json<Value>, ApiError>;

/// The JSON body of a request, refused in words when it does not parse.
pub(super) fn body<T: DeserializeOwned>(
    bytes: Result<Bytes, BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad(format!("bad request body: {e}")))
}

/// The query of a request, refused in words when it does not parse.
pub(super) fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(t)| t)
        .map_err(|r| ApiError::bad(format!("bad query: {}", r.body_text())))
}

/// The game a request names.
pub(super) fn game_kind(name: &str) -> Result<GameKind, ApiError> {
    name.parse()
        .map_err(|e: crate::game::NotationError| ApiError::bad(e.to_string()))
}

/// The position a request gives (the start position when none), under the default rules.
pub(super) fn parse_position<S: GameState>(
    kind: GameKind,
    text: Option<&str>,
) -> Result<S, ApiError> {
    position(kind, text, RulesConfig::default())
        .map_err(|e| ApiError::bad(format!("bad position: {e}")))
}

/// A cell a request names.
pub(super) fn cell(name: &str) -> Result<Coord, ApiError> {
    Coord::parse(name).map_err(|e| ApiError::bad(e.to_string()))
}

/// Runs `f` on a blocking thread (game rules and searches never run on the async ones).
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
}

// A search's visits and seconds are taken from the body as any JSON value and checked here,
// so that every value out of range or of the wrong kind (-5, 1.5, 0, 10^9, "many") is refused
// in words that name the range, never in the JSON parser's words.

/// The visits a search may make: the server's default when none are asked for, else a whole
/// number from 1 to `max_visits`.
pub(super) fn visits(st: &ServeState, asked: Option<&Value>) -> Result<u32, ApiError> {
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

/// The longest time a search may take: the server's limit when none is asked for, else more
/// than 0 and at most `max_seconds`.
pub(super) fn seconds(st: &ServeState, asked: Option<&Value>) -> Result<Duration, ApiError> {
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
pub(super) fn asked_words(asked: &Value) -> String {
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
