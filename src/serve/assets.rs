//! The page's files, embedded in the binary: `index.html` and the assets it loads.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

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

/// For work on the page: a folder named by this variable serves the page's files from disk
/// (the same names, read at each request), so that a change shows without a rebuild.
const FROM_DISK: &str = "CZ_WEB_ASSETS";

/// `name`'s text (one of the page's own names, never a path a request chose) from the
/// folder [`FROM_DISK`] names, when it names one and the file reads.
fn from_disk(name: &str) -> Option<String> {
    let dir = std::env::var_os(FROM_DISK)?;
    let rel = if name.starts_with("uplot") {
        format!("vendor/{name}")
    } else {
        name.to_string()
    };
    std::fs::read_to_string(std::path::Path::new(&dir).join(rel)).ok()
}

pub(super) async fn index() -> Response {
    let html = from_disk("index.html").unwrap_or_else(|| INDEX_HTML.to_string());
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

pub(super) async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, mime, text)) => {
            let text = from_disk(&name).unwrap_or_else(|| text.to_string());
            ([(header::CONTENT_TYPE, *mime)], text).into_response()
        }
        None => ApiError::new(StatusCode::NOT_FOUND, format!("no asset '{name}'")).into_response(),
    }
}
