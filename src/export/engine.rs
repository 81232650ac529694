//! `checkers-zero engine`: a line protocol on stdin/stdout for GUIs and other programs,
//! in the manner of UCI and GTP. One command per line; answers are whole lines; a command
//! that cannot be carried out gets one line `error <message>` and the engine keeps running.
//! `docs/export.md`, "Engine protocol", is the reference; in short:
//!
//! ```text
//! id                                   -> id name checkers-zero <version> game <g> encoding <e> step <n|unknown> device <d> precision <p> batch <n|any> visits <v> plycap <c>
//! isready                              -> readyok
//! newgame                              (silent) the start position
//! position [<game>] startpos|<notation> [moves <turn> ...]   (silent)
//! play <turn> [<turn> ...]             (silent) apply turns to the current position
//! moves                                -> moves <turn> <turn> ...
//! go [visits N | movetime MS]          -> bestturn <turn> value <v> visits <n> pv <turn> ...
//! eval                                 -> eval value <v> wdl <w> <d> <l> [proven <value>]
//! show                                 -> the board, then [result <...>] and position <notation>
//! set visits N                         (silent) the default budget of go
//! help                                 -> commands <names>
//! quit                                 ends the engine (so does the end of input)
//! ```

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::play::describe_outcome;
use super::torchscript::ExportedModel;
use super::ExportError;
use crate::game::turns::{distinct_turns, parse_turn};
use crate::game::{GameKind, GameState, RulesConfig};
use crate::net::encode::Encode;
use crate::net::net_eval::NetEvaluator;
use crate::search::run::Budget;
use crate::search::solve::{quick_proof, QUICK_PROOF_NODES};
use crate::search::think::TurnSearch;
use crate::with_game;

const COMMANDS: &str = "id isready newgame position play moves go eval show set help quit";

/// Runs the engine on `input` until `quit` or the end of input, answering on `out`, with
/// the model under `net`'s precision and device. Positions are played under `ply_cap`
/// (`--ply-cap`), else under the rules the model was trained with. Only a model that cannot
/// be loaded (or a broken output) is an error; bad commands are answered with `error ...`
/// lines.
pub fn run_engine(
    model_dir: &Path,
    visits: Option<u32>,
    ply_cap: Option<u32>,
    net: crate::net::args::NetSettings,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), ExportError> {
    let model = Arc::new(ExportedModel::load_with(model_dir, net)?);
    let kind = model.meta().kind()?;
    let (rules, _) = RulesConfig::for_play(ply_cap, model.meta().rules);
    with_game!(kind, S => {
        model.check_game::<S>()?;
        let mut engine = Engine::<S>::new(kind, model, visits, rules);
        engine.run(input, out)
    })
}

/// What a command asks of the loop.
enum Reply {
    /// Lines to write (possibly none).
    Lines(Vec<String>),
    /// Stop.
    Quit,
}

struct Engine<S> {
    kind: GameKind,
    model: Arc<ExportedModel>,
    search: TurnSearch<NetEvaluator>,
    visits: u32,
    rules: RulesConfig,
    state: S,
}

fn parse_number<T: std::str::FromStr>(what: &str, text: Option<&str>) -> Result<T, String> {
    let text = text.ok_or_else(|| format!("{what} needs a number"))?;
    text.parse()
        .map_err(|_| format!("{what} needs a number, got '{text}'"))
}

impl<S: Encode> Engine<S> {
    fn new(
        kind: GameKind,
        model: Arc<ExportedModel>,
        visits: Option<u32>,
        rules: RulesConfig,
    ) -> Engine<S> {
        let config = model.meta().search.for_play();
        let visits = visits.unwrap_or(config.visits).max(1);
        Engine {
            kind,
            search: TurnSearch::new(model.evaluator(), config, 0),
            model,
            visits,
            rules,
            state: S::start(kind, rules),
        }
    }

    fn run(&mut self, input: impl BufRead, out: &mut impl Write) -> Result<(), ExportError> {
        for line in input.lines() {
            let line = line?;
            let reply = self
                .handle(&line)
                .unwrap_or_else(|message| Reply::Lines(vec![format!("error {message}")]));
            match reply {
                Reply::Quit => break,
                Reply::Lines(lines) => {
                    for line in lines {
                        writeln!(out, "{line}")?;
                    }
                    out.flush()?;
                }
            }
        }
        Ok(())
    }

    fn handle(&mut self, line: &str) -> Result<Reply, String> {
        let mut words = line.split_whitespace();
        let Some(command) = words.next() else {
            return Ok(Reply::Lines(Vec::new()));
        };
        let rest: Vec<&str> = words.collect();
        let lines = match command {
            "quit" => return Ok(Reply::Quit),
            "isready" => vec!["readyok".to_string()],
            "id" => vec![self.id()],
            "help" => vec![format!("commands {COMMANDS}")],
            "newgame" => {
                self.state = S::start(self.kind, self.rules);
                Vec::new()
            }
            "position" => {
                self.state = self.position(&rest)?;
                Vec::new()
            }
            "play" => {
                if rest.is_empty() {
                    return Err("play needs at least one turn".into());
                }
                self.state = apply_turns(&self.state, &rest)?;
                Vec::new()
            }
            "moves" => {
                let mut line = String::from("moves");
                for turn in distinct_turns(&self.state) {
                    line.push(' ');
                    line.push_str(&turn.path);
                }
                vec![line]
            }
            "go" => vec![self.go(&rest)?],
            "eval" => vec![self.eval()?],
            "show" => self.show(),
            "set" => {
                match rest.as_slice() {
                    ["visits", n] => {
                        let n: u32 = parse_number("set visits", Some(n))?;
                        if n == 0 {
                            return Err("set visits needs a positive number".into());
                        }
                        self.visits = n;
                    }
                    _ => return Err("usage: set visits N".into()),
                }
                Vec::new()
            }
            other => return Err(format!("unknown command '{other}' (commands: {COMMANDS})")),
        };
        Ok(Reply::Lines(lines))
    }

    fn id(&self) -> String {
        let meta = self.model.meta();
        let backend = self.model.evaluator().info();
        format!(
            "id name checkers-zero {} game {} encoding {} step {} device {} precision {} batch {} visits {} plycap {}",
            env!("CARGO_PKG_VERSION"),
            meta.game,
            meta.encoding_version,
            meta.training_step
                .map_or("unknown".to_string(), |s| s.to_string()),
            backend.device,
            backend.precision,
            backend.max_batch.map_or("any".to_string(), |n| n.to_string()),
            self.visits,
            self.rules.ply_cap
        )
    }

    /// `position [<game>] startpos|<notation> [moves <turn> ...]`: the new position, or an
    /// error leaving the current one as it is.
    fn position(&self, words: &[&str]) -> Result<S, String> {
        let mut words = words;
        if let Some(first) = words.first() {
            if let Ok(game) = first.parse::<GameKind>() {
                if game != self.kind {
                    return Err(format!("the model plays {}, not {game}", self.kind));
                }
                words = &words[1..];
            }
        }
        let (setup, turns) = match words.iter().position(|w| *w == "moves") {
            Some(at) => (&words[..at], &words[at + 1..]),
            None => (words, &words[words.len()..]),
        };
        let start = match setup {
            [] => return Err("position needs startpos or a position in the notation".into()),
            ["startpos"] => S::start(self.kind, self.rules),
            tokens => S::from_notation(self.kind, &tokens.join(" "), self.rules)
                .map_err(|e| e.to_string())?,
        };
        apply_turns(&start, turns)
    }

    fn go(&mut self, words: &[&str]) -> Result<String, String> {
        let budget = match words {
            [] => Budget::Count(self.visits),
            ["visits", n] => {
                let n: u32 = parse_number("go visits", Some(n))?;
                if n == 0 {
                    return Err("go visits needs a positive number".into());
                }
                Budget::Count(n)
            }
            ["movetime", ms] => Budget::Time(Duration::from_millis(parse_number(
                "go movetime",
                Some(ms),
            )?)),
            _ => return Err("usage: go [visits N | movetime MS]".into()),
        };
        if let Some(outcome) = self.state.outcome() {
            return Err(format!(
                "the game is over: {}",
                describe_outcome(self.kind, &outcome)
            ));
        }
        let thought = self
            .search
            .think(&self.state, budget)
            .map_err(|e| format!("the model failed: {e}"))?
            .ok_or("the game is over")?;
        Ok(format!(
            "bestturn {} value {:.3} visits {} pv {}",
            thought.path,
            thought.value,
            thought.visits,
            thought.pv.join(" ")
        ))
    }

    fn eval(&self) -> Result<String, String> {
        if let Some(outcome) = self.state.outcome() {
            return Err(format!(
                "the game is over: {}",
                describe_outcome(self.kind, &outcome)
            ));
        }
        let (value, wdl) = self
            .model
            .evaluator()
            .evaluate_one(&self.state)
            .map_err(|e| e.to_string())?;
        Ok(format!(
            "eval value {value:.3} wdl {:.3} {:.3} {:.3}{}",
            wdl[0],
            wdl[1],
            wdl[2],
            self.proven()?
        ))
    }

    /// ` proven VALUE` when the solver proves the position's class within
    /// [`QUICK_PROOF_NODES`], else nothing.
    fn proven(&self) -> Result<String, String> {
        let proven = quick_proof(&self.state, QUICK_PROOF_NODES).map_err(|e| e.to_string())?;
        Ok(proven.map_or(String::new(), |p| format!(" proven {p}")))
    }

    fn show(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.state.render().lines().map(str::to_string).collect();
        if let Some(outcome) = self.state.outcome() {
            lines.push(format!("result {}", describe_outcome(self.kind, &outcome)));
        }
        lines.push(format!("position {}", self.state.to_notation()));
        lines
    }
}

/// `state` after the turns `turns`, each in the move notation; an error names the first
/// turn that cannot be played (and the state is not changed).
fn apply_turns<S: GameState>(state: &S, turns: &[&str]) -> Result<S, String> {
    let mut current = state.clone();
    for (i, text) in turns.iter().enumerate() {
        if let Some(outcome) = current.outcome() {
            return Err(format!(
                "turn {} '{text}': the game is already over ({outcome:?})",
                i + 1
            ));
        }
        current = parse_turn(&current, text)
            .map_err(|e| format!("turn {} '{text}': {e}", i + 1))?
            .state;
    }
    Ok(current)
}
