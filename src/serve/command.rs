//! The command line of `checkers-zero serve`.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use super::{mirror, serve, ServeConfig, ServeOptions};

/// Arguments of `checkers-zero serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// A model: an export directory, a checkpoint or run directory, or a weights file.
    /// Repeat for other games (one model per game); games without one play their shipped
    /// model (models/GAME), or search with random playouts where none is shipped.
    #[arg(long)]
    pub model: Vec<PathBuf>,
    /// Do not play the shipped models: games without a --model search with random playouts.
    #[arg(long)]
    pub no_shipped_models: bool,
    /// A run directory (or a folder of runs) to watch and chart; lends its newest
    /// checkpoint when no --model is given.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// A distributed run's store (a directory or an object-store URL, as `learn --store`):
    /// copied into --run-dir (default: a temporary folder) and refreshed every 10 s.
    #[arg(long)]
    pub store: Option<String>,
    /// Address to listen on (loopback by default: the page is for this machine).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The server's limits as TOML (docs/web.md lists the keys).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// What to log on stderr: `requests`, one line per request.
    #[arg(long, value_enum)]
    pub log: Option<LogWhat>,
}

/// What `serve --log` logs.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogWhat {
    /// One line per request: method, path, status, milliseconds.
    Requests,
}

/// Runs the server until the process is stopped; prints the address once it listens.
pub fn run_serve(args: &ServeArgs, out: &mut impl Write) -> Result<()> {
    let mut config = match &args.config {
        Some(path) => ServeConfig::load(path)?,
        None => ServeConfig::default(),
    };
    if args.log == Some(LogWhat::Requests) {
        config.log_requests = true;
    }
    let mut run_dir = args.run_dir.clone();
    if let Some(location) = &args.store {
        let dir = run_dir.get_or_insert_with(|| {
            std::env::temp_dir().join(format!("checkers-zero-serve-{}", std::process::id()))
        });
        mirror::start(location, dir, Duration::from_secs(10)).map_err(anyhow::Error::msg)?;
    }
    let options = ServeOptions {
        models: args.model.clone(),
        run_dir,
        config,
        shipped: !args.no_shipped_models,
    };
    serve(&options, args.addr, |bound| {
        let _ = writeln!(out, "serving on http://{bound}/");
        let _ = out.flush();
    })
    .map_err(anyhow::Error::msg)
}
