//! `checkers-zero serve`: a web page to play, analyse, watch self-play and follow training,
//! and the JSON API behind it (docs/web.md documents both). One binary: the page's files are
//! embedded, the server is axum on tokio, every game-rules or search job runs on a blocking
//! thread, and the served run directory is only read.
//!
//! * [`api`]: the routes and their JSON; [`analyses`]: analyses, and the registry of those
//!   the page polls; [`assets`]: the page's files; [`request`]: what every route reads from
//!   a request; [`clicks`]: entering a turn by clicks;
//!   [`board`]: boards and pieces as the page draws them; [`rundir`]: runs, games, metrics,
//!   checkpoints and ratings read from the run directory; [`search`]: models and search
//!   (the only file that touches them); [`words`]: results, movers and limits in words;
//!   [`guard`]: what every request passes first (JSON bodies only, read on time and within
//!   the limit) and the request log; [`error`]: the one shape of a refusal;
//!   [`mirror`]: `serve --store`, a local copy of a run's store; [`command`]: its command
//!   line.
//!   The page itself is in `assets/` (ES modules; uPlot vendored in `assets/vendor/`).

pub mod analyses;
pub mod api;
pub mod assets;
pub mod board;
pub mod clicks;
pub mod command;
pub mod error;
pub mod guard;
pub mod mirror;
pub mod request;
pub mod rundir;
pub mod search;
pub mod words;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use crate::config::serve::ServeConfig;
use crate::game::GameKind;
use rundir::RunRoot;
use search::LoadedModel;

/// What `checkers-zero serve` is told.
#[derive(Clone, Debug, Default)]
pub struct ServeOptions {
    /// Models: export directories, checkpoints, run directories or weights files (one per
    /// game at most).
    pub models: Vec<PathBuf>,
    /// The run directory (or a folder of runs) to watch.
    pub run_dir: Option<PathBuf>,
    /// The limits.
    pub config: ServeConfig,
    /// Games left without a model (none given, none lent by the run) play their shipped
    /// model where one is found ([`crate::export::shipped`]).
    pub shipped: bool,
}

/// Everything the handlers share.
pub struct ServeState {
    config: ServeConfig,
    models: HashMap<GameKind, LoadedModel>,
    run: Option<RunRoot>,
    searches: Arc<tokio::sync::Semaphore>,
    analyses: analyses::Analyses,
}

impl ServeState {
    /// Loads the models and opens the run directory. With no model, a run directory that
    /// has checkpoints lends its newest one.
    pub fn new(options: &ServeOptions) -> Result<ServeState, String> {
        options
            .config
            .check()
            .map_err(|e| format!("serve config: {e}"))?;
        let mut models = HashMap::new();
        let mut paths = options.models.clone();
        if let (true, Some(run)) = (paths.is_empty(), &options.run_dir) {
            if crate::layout::resolve_model(run).is_ok() {
                paths.push(run.clone());
            }
        }
        for path in &paths {
            let (kind, model) = LoadedModel::load(path)?;
            if models.insert(kind, model).is_some() {
                return Err(format!("two models given for {kind}"));
            }
        }
        for kind in GameKind::ALL {
            let shipped = crate::export::shipped::shipped_model(kind);
            if let (true, false, Some(dir)) = (options.shipped, models.contains_key(&kind), shipped)
            {
                let (_, model) = LoadedModel::load(&dir)?;
                eprintln!("{}", crate::export::shipped::say_shipped(kind, &dir));
                models.insert(kind, model);
            }
        }
        let run = options.run_dir.as_deref().map(RunRoot::new).transpose()?;
        Ok(ServeState {
            searches: Arc::new(tokio::sync::Semaphore::new(options.config.max_searches)),
            config: options.config.clone(),
            models,
            run,
            analyses: analyses::Analyses::default(),
        })
    }
}

/// Serves on `addr` until the process ends; `ready` is called with the bound address.
pub fn serve(
    options: &ServeOptions,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let state = Arc::new(ServeState::new(options)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        ready(bound);
        accept_loop(listener, api::router(state)).await;
        Ok(())
    })
}

/// How long a request's headers may take to arrive; then the connection is closed (the body
/// has its own bound, [`guard::BODY_SECONDS`]).
pub const HEADER_SECONDS: u64 = 10;

/// Serves each connection `listener` accepts with `router` (HTTP/1), its headers bounded in
/// time by [`HEADER_SECONDS`].
async fn accept_loop(listener: tokio::net::TcpListener, router: axum::Router) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // A connection lost before it was accepted, or no file descriptor left: the
            // next one, after a breath.
            Err(error) => {
                eprintln!("warning: accepting a connection failed: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            // A connection that ends badly (reset, headers too slow) concerns no one else.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(HEADER_SECONDS))
                .serve_connection(io, service)
                .await;
        });
    }
}
