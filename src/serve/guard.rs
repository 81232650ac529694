//! What every request passes before a handler sees it: a POST to the API must say its body
//! is JSON (a page elsewhere on the web can send `text/plain` across origins without
//! asking, but not `application/json`), its body must arrive whole within
//! [`BODY_SECONDS`] and within the size limit (both refused in words); with `--log
//! requests`, each request is logged on stderr (method, path, status, milliseconds).

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::words::thousands;

/// How long a request body may take to arrive.
pub const BODY_SECONDS: u64 = 10;

/// An error answer in the API's shape, `{"error": message}`.
fn refuse(status: StatusCode, message: String) -> Response {
    ApiError::new(status, message).into_response()
}

/// What the middleware needs of the server's settings.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    /// Largest request body, in bytes.
    pub limit: usize,
    /// Log each request.
    pub log: bool,
}

/// The middleware: checks and reads a POST's body, runs the request, logs it if asked.
pub async fn guard(State(guard): State<Guard>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let response = match read_body(request, guard.limit).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    };
    if guard.log {
        eprintln!(
            "{method} {path} {} {:.0} ms",
            response.status().as_u16(),
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    response
}

/// A POST to `/api/` with its body read (JSON, on time, within `limit`); other requests
/// as they are.
async fn read_body(request: Request, limit: usize) -> Result<Request, Response> {
    if request.method() != Method::POST || !request.uri().path().starts_with("/api/") {
        return Ok(request);
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    if !json {
        return Err(refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the API takes JSON bodies: send the header content-type: application/json".into(),
        ));
    }
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limit);
    let bytes = match tokio::time::timeout(Duration::from_secs(BODY_SECONDS), read).await {
        Err(_) => {
            return Err(refuse(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {BODY_SECONDS} seconds"),
            ))
        }
        Ok(Err(_)) => {
            return Err(refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body is larger than the limit of {} bytes, or was cut off",
                    thousands(limit as u64)
                ),
            ))
        }
        Ok(Ok(bytes)) => bytes,
    };
    Ok(Request::from_parts(parts, Body::from(bytes)))
}
