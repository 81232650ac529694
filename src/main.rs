//! The `checkers-zero` command line: parse, dispatch, print.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use checkers_zero::cli;
use checkers_zero::game::GameKind;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "AlphaZero-style trainer for ReMATCH, HexDame and Eximo"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the whole-turn tree (distinct positions) at each depth 1..=N.
    Perft {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Deepest depth to count.
        #[arg(long)]
        depth: u32,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
    /// List the legal whole turns, one per distinct resulting position, sorted.
    Moves {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
    /// Draw the board with coordinates.
    Show {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
}

fn run(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Perft {
            game,
            depth,
            position,
        } => {
            let kind: GameKind = game.parse()?;
            cli::perft(kind, position.as_deref(), depth, &mut out)?;
        }
        Command::Moves { game, position } => {
            let kind: GameKind = game.parse()?;
            for path in cli::moves(kind, position.as_deref())? {
                writeln!(out, "{path}")?;
            }
        }
        Command::Show { game, position } => {
            let kind: GameKind = game.parse()?;
            write!(out, "{}", cli::show(kind, position.as_deref())?)?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    checkers_zero::net::init_torch_runtime();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line naming the problem; bad input is exit code 2, like clap's usage errors.
            let message = format!("{error:#}").replace('\n', " ");
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
