//! `checkers-zero play`: people against an exported model in a terminal.
//!
//! The board is drawn after every turn. A person types a turn in the move notation or its
//! number in the list of legal turns; `list` shows that list, `undo` takes back the last turn
//! a person made (and the model's replies to it), `board` redraws, `help` explains, `quit`
//! ends. Wrong input is answered with the reason and the legal choices. The model's turns
//! are shown with the search's value for the side that made them. Any mix of people and
//! models may sit at the seats (three seats in 3-player ReMATCH).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;

use super::torchscript::ExportedModel;
use super::ExportError;
use crate::config::search::SearchConfig;
use crate::game::turns::{distinct_turns, parse_turn};
use crate::game::{GameKind, GameState, Outcome, RulesConfig, Seat};
use crate::net::encode::Encode;
use crate::search::run::Budget;
use crate::search::think::TurnSearch;
use crate::with_game;

/// What `play` was asked to do.
#[derive(Clone, Debug, Default)]
pub struct PlayOptions {
    /// The export directory.
    pub model: PathBuf,
    /// The seats people play: comma-separated seat names or numbers, `all` or `none`
    /// (default: the seat that moves first).
    pub seats: Option<String>,
    /// Root visits per searched step (default: the export's).
    pub visits: Option<u32>,
    /// The start position in the notation (default: the game's start).
    pub position: Option<String>,
    /// Precision and device of the model.
    pub net: crate::net::args::NetSettings,
    /// Whole turns after which the game is an adjudicated draw (default: the cap the model
    /// was trained under).
    pub ply_cap: Option<u32>,
}

/// How a session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayEnd {
    /// The game finished.
    Finished(Outcome),
    /// A person typed `quit`, or the input ended.
    Quit,
}

const HELP: &str = "\
type a turn in the move notation (e.g. b2-c3, a3xc3xe3, c7-c8*b1*c1) or its number from the list
  list    the legal turns, numbered
  board   draw the board again
  undo    take back your last turn (and the model's replies)
  help    this text
  quit    end the game";

/// Plays one game: people's turns read from `input`, everything written to `out`.
pub fn play(
    options: &PlayOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<PlayEnd, ExportError> {
    let model = Arc::new(ExportedModel::load_with(&options.model, options.net)?);
    let kind = model.meta().kind()?;
    with_game!(kind, S => play_typed::<S>(kind, model, options, input, out))
}

/// Parses `--seat`: which seats people play.
pub fn human_seats(
    kind: GameKind,
    text: Option<&str>,
    first: Seat,
) -> Result<Vec<bool>, ExportError> {
    let names = kind.seat_names();
    let mut human = vec![false; names.len()];
    match text.map(str::trim) {
        None => human[first.0 as usize] = true,
        Some("all") => human.iter_mut().for_each(|h| *h = true),
        Some("none") => {}
        Some(list) => {
            for item in list.split(',').map(str::trim) {
                let seat = names
                    .iter()
                    .position(|n| *n == item)
                    .or_else(|| item.parse::<usize>().ok().filter(|&i| i < names.len()))
                    .ok_or_else(|| {
                        ExportError::Usage(format!(
                            "unknown seat '{item}' for {kind}: seats are {} (or 0..{}), all, none",
                            names.join(", "),
                            names.len() - 1
                        ))
                    })?;
                human[seat] = true;
            }
        }
    }
    Ok(human)
}

/// The result of a finished game in words.
pub fn describe_outcome(kind: GameKind, outcome: &Outcome) -> String {
    let winner = match outcome.winner {
        Some(side) => format!("{} wins", kind.side_names()[side.0 as usize]),
        None => "draw".to_string(),
    };
    format!("{winner} ({:?})", outcome.reason)
}

fn write_board<S: GameState>(out: &mut impl Write, state: &S) -> std::io::Result<()> {
    write!(out, "{}", state.render())?;
    writeln!(out, "position: {}", state.to_notation())
}

fn write_list<S: GameState>(out: &mut impl Write, state: &S) -> std::io::Result<()> {
    let turns = distinct_turns(state);
    writeln!(out, "legal turns:")?;
    for (i, turn) in turns.iter().enumerate() {
        writeln!(out, "  {:>3}. {}", i + 1, turn.path)?;
    }
    Ok(())
}

fn play_typed<S: Encode>(
    kind: GameKind,
    model: Arc<ExportedModel>,
    options: &PlayOptions,
    mut input: impl BufRead,
    out: &mut impl Write,
) -> Result<PlayEnd, ExportError> {
    model.check_game::<S>()?;
    let (rules, cap_from) = RulesConfig::for_play(options.ply_cap, model.meta().rules);
    let mut state: S = crate::game::position(kind, options.position.as_deref(), rules)?;
    if state.turn_in_progress() {
        return Err(ExportError::Usage(
            "the position must be at a turn boundary".into(),
        ));
    }
    let human = human_seats(kind, options.seats.as_deref(), state.seat_to_move())?;
    let mut config = model.meta().search.for_play();
    config.visits = options.visits.unwrap_or(config.visits).max(1);
    let cap = format!("{} ({cap_from})", rules.ply_cap);
    write_header(out, kind, &model, &config, &human, &cap)?;
    write_board(out, &state)?;
    let visits = config.visits;
    let mut search = TurnSearch::new(model.evaluator(), config, 0);
    let names = kind.seat_names();
    // Positions at the start of each turn played so far, for undo.
    let mut history: Vec<S> = Vec::new();
    let mut line = String::new();
    loop {
        if let Some(outcome) = state.outcome() {
            writeln!(out, "game over: {}", describe_outcome(kind, &outcome))?;
            out.flush()?;
            return Ok(PlayEnd::Finished(outcome));
        }
        let seat = state.seat_to_move().0 as usize;
        if !human[seat] {
            let thought = search
                .think(&state, Budget::Count(visits))?
                .expect("the game is not over");
            writeln!(
                out,
                "{} (model) plays {}   value {:+.3}   pv {}",
                names[seat],
                thought.path,
                thought.value,
                thought.pv.join(" ")
            )?;
            history.push(std::mem::replace(&mut state, thought.state));
            write_board(out, &state)?;
            continue;
        }
        write!(out, "{} to move> ", names[seat])?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            writeln!(out, "input ended")?;
            return Ok(PlayEnd::Quit);
        }
        let mut person = Person {
            state: &mut state,
            history: &mut history,
            human: &human,
            name: names[seat],
        };
        if person.command(line.trim(), out)? {
            return Ok(PlayEnd::Quit);
        }
    }
}

/// The first lines of a session: the model, its search and who plays.
fn write_header(
    out: &mut impl Write,
    kind: GameKind,
    model: &ExportedModel,
    config: &SearchConfig,
    human: &[bool],
    cap: &str,
) -> std::io::Result<()> {
    let names = kind.seat_names();
    let step = model
        .meta()
        .training_step
        .map_or("unknown".to_string(), |s| s.to_string());
    let people: Vec<&str> = (0..names.len())
        .filter(|&i| human[i])
        .map(|i| names[i])
        .collect();
    writeln!(
        out,
        "{kind}: model {} (training step {step}; {}), {} search, {} visits per step, ply cap {cap}; people play: {}",
        model.dir().display(),
        model.evaluator().info(),
        config.kind,
        config.visits,
        if people.is_empty() {
            "none".to_string()
        } else {
            people.join(", ")
        }
    )?;
    writeln!(out, "type 'help' for the commands")
}

/// A person's turn: the game's state and history, which seats are people's, and the name
/// of the seat to move.
struct Person<'a, S> {
    state: &'a mut S,
    history: &'a mut Vec<S>,
    human: &'a [bool],
    name: &'a str,
}

impl<S: GameState> Person<'_, S> {
    /// Carries out one command line; true when the person quits.
    fn command(&mut self, command: &str, out: &mut impl Write) -> Result<bool, ExportError> {
        match command {
            "" => {}
            "quit" | "exit" => {
                writeln!(out, "game abandoned")?;
                return Ok(true);
            }
            "help" | "?" => writeln!(out, "{HELP}")?,
            "list" | "moves" => write_list(out, &*self.state)?,
            "board" | "show" => write_board(out, &*self.state)?,
            "undo" => self.undo(out)?,
            _ => self.turn(command, out)?,
        }
        Ok(false)
    }

    /// Takes back the person's last turn and the model's replies to it.
    fn undo(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let human = self.human;
        match self
            .history
            .iter()
            .rposition(|s| human[s.seat_to_move().0 as usize])
        {
            Some(at) => {
                let undone = self.history.len() - at;
                self.history.truncate(at + 1);
                *self.state = self.history.pop().expect("the turn to go back to");
                writeln!(out, "undone: {undone} turn(s)")?;
                write_board(out, &*self.state)
            }
            None => writeln!(out, "nothing to undo: no turn of yours has been played"),
        }
    }

    /// Plays a turn given in the notation or by its number in the list.
    fn turn(&mut self, command: &str, out: &mut impl Write) -> std::io::Result<()> {
        let chosen = match command.parse::<usize>() {
            Ok(number) => {
                let turns = distinct_turns(&*self.state);
                match number.checked_sub(1).and_then(|i| turns.into_iter().nth(i)) {
                    Some(turn) => Ok(turn),
                    None => Err(format!("there is no turn number {number}")),
                }
            }
            Err(_) => parse_turn(&*self.state, command).map_err(|e| e.to_string()),
        };
        match chosen {
            Ok(turn) => {
                writeln!(out, "{} plays {}", self.name, turn.path)?;
                self.history
                    .push(std::mem::replace(&mut *self.state, turn.state));
                write_board(out, &*self.state)
            }
            Err(reason) => {
                writeln!(out, "not played: {reason}")?;
                write_list(out, &*self.state)
            }
        }
    }
}
