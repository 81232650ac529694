//! The thin layer between the Python classes and the `checkers_zero` crate: every use of the
//! crate's API is in this file, so that a change of the crate is adapted here only.
//!
//! Terms: a *step* is a game action id (`GameState::legal_steps`); an *action* is the net's
//! policy index of a step in the side to move's frame (`Encode::policy_index`), which is
//! what the environments, the mask and an exported model's output use.

use std::path::{Path, PathBuf};

use checkers_zero::config::search::SearchConfig;
use checkers_zero::config::search::SearchOverrides;
use checkers_zero::eval::spec::AgentSpec;
use checkers_zero::export::torchscript::ExportedModel;
use checkers_zero::export::ExportError;
use checkers_zero::game::eximo::Eximo;
use checkers_zero::game::hexdame::HexDame;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::turns::{distinct_turns, parse_turn, push_step_text};
use checkers_zero::game::{
    Action, GameKind, GameState, NotationError, Outcome, RulesConfig, Seat, StepList,
};
use checkers_zero::net::encode::Encode;
use checkers_zero::net::net_eval::NetEvaluator;
use checkers_zero::search::agents::{rollout_uct, Agent, AlphaBetaAgent, RandomAgent};
use checkers_zero::search::run::Budget;
use checkers_zero::search::think::TurnSearch;
use checkers_zero::with_game;

pub use checkers_zero::game::GameKind as Kind;

/// What can go wrong in a call, by the Python exception it becomes.
#[derive(Debug)]
pub enum BridgeError {
    /// Bad input: a game name, a position, a move, an argument (`ValueError`).
    Value(String),
    /// A file that cannot be read (`OSError`).
    Os(String),
    /// The model failed while running (`RuntimeError`).
    Runtime(String),
}

impl From<NotationError> for BridgeError {
    fn from(error: NotationError) -> Self {
        BridgeError::Value(error.to_string())
    }
}

impl From<ExportError> for BridgeError {
    fn from(error: ExportError) -> Self {
        match error {
            ExportError::Io { .. } | ExportError::Terminal(_) => BridgeError::Os(error.to_string()),
            ExportError::Torch(_) => BridgeError::Runtime(error.to_string()),
            _ => BridgeError::Value(error.to_string()),
        }
    }
}

type Result<T> = std::result::Result<T, BridgeError>;

/// A position of any game.
#[derive(Clone, Debug)]
pub enum AnyState {
    /// ReMATCH, 2 or 3 seats.
    Rematch(Rematch),
    /// HexDame.
    Hexdame(HexDame),
    /// Eximo.
    Eximo(Eximo),
}

/// Runs `$body` with `$s` bound to the typed state inside an [`AnyState`].
macro_rules! on_state {
    ($state:expr, $s:ident => $body:expr) => {
        match $state {
            AnyState::Rematch($s) => $body,
            AnyState::Hexdame($s) => $body,
            AnyState::Eximo($s) => $body,
        }
    };
}

/// A typed state that can be wrapped.
trait Wrap: Encode {
    fn wrap(self) -> AnyState;
}

impl Wrap for Rematch {
    fn wrap(self) -> AnyState {
        AnyState::Rematch(self)
    }
}
impl Wrap for HexDame {
    fn wrap(self) -> AnyState {
        AnyState::Hexdame(self)
    }
}
impl Wrap for Eximo {
    fn wrap(self) -> AnyState {
        AnyState::Eximo(self)
    }
}

/// The game of a name, with the CLI's error for unknown names.
pub fn parse_kind(name: &str) -> Result<GameKind> {
    Ok(name.parse::<GameKind>()?)
}

/// Every game's name.
pub fn game_names() -> Vec<&'static str> {
    GameKind::ALL.iter().map(|k| k.name()).collect()
}

/// The seat names of a game, seat 0 first.
pub fn seats(kind: GameKind) -> &'static [&'static str] {
    kind.seat_names()
}

/// The side names of a game, side 0 first.
pub fn sides(kind: GameKind) -> &'static [&'static str] {
    kind.side_names()
}

/// A game's encoding: sizes, board mask and symmetry count.
#[derive(Clone, Debug)]
pub struct EncodingInfo {
    /// Input planes.
    pub planes: usize,
    /// Grid height.
    pub height: usize,
    /// Grid width.
    pub width: usize,
    /// Policy outputs (the action space).
    pub num_actions: usize,
    /// Symmetries, the identity (0) included.
    pub symmetries: usize,
    /// A hex board embedded in the grid.
    pub hex: bool,
    /// Board cells of the grid, row-major.
    pub board_mask: Vec<bool>,
    /// The encoding's version.
    pub version: u32,
}

/// The encoding facts of `kind`.
pub fn encoding(kind: GameKind) -> EncodingInfo {
    with_game!(kind, S => {
        let shape = S::net_shape(kind);
        EncodingInfo {
            planes: S::PLANES,
            height: S::HEIGHT,
            width: S::WIDTH,
            num_actions: shape.num_actions as usize,
            symmetries: S::SYMMETRIES,
            hex: S::HEX,
            board_mask: shape.board_mask,
            version: shape.encoding_version,
        }
    })
}

fn check_symmetry(kind: GameKind, sym: usize) -> Result<()> {
    let count = encoding(kind).symmetries;
    if sym >= count {
        return Err(BridgeError::Value(format!(
            "symmetry {sym} out of range: {kind} has {count} (0..{count})"
        )));
    }
    Ok(())
}

/// Applies symmetry `sym` to planes of `kind` (`planes` and `out` hold whole positions).
pub fn transform_planes(kind: GameKind, sym: usize, planes: &[f32], out: &mut [f32]) -> Result<()> {
    check_symmetry(kind, sym)?;
    let info = encoding(kind);
    let size = info.planes * info.height * info.width;
    if !planes.len().is_multiple_of(size) || planes.len() != out.len() || planes.is_empty() {
        return Err(BridgeError::Value(format!(
            "planes of {kind} have {size} values per position ({} x {} x {}), got {}",
            info.planes,
            info.height,
            info.width,
            planes.len()
        )));
    }
    with_game!(kind, S => {
        for (p, o) in planes.chunks(size).zip(out.chunks_mut(size)) {
            S::transform_planes(sym, p, o);
        }
    });
    Ok(())
}

/// Where symmetry `sym` sends each action of `kind`.
pub fn action_permutation(kind: GameKind, sym: usize) -> Result<Vec<usize>> {
    check_symmetry(kind, sym)?;
    let n = encoding(kind).num_actions;
    Ok(with_game!(kind, S => (0..n).map(|i| S::transform_policy_index(sym, i)).collect()))
}

/// The result of a finished game per seat: +1 win, 0 draw, -1 loss.
fn seat_returns<S: GameState>(state: &S, outcome: Option<Outcome>) -> Vec<f64> {
    (0..state.num_seats())
        .map(|seat| match outcome {
            None => 0.0,
            Some(o) => 2.0 * o.score(state.side_of(Seat(seat as u8))) as f64 - 1.0,
        })
        .collect()
}

/// A whole turn: its path and its actions (net frame).
pub type TurnText = (String, Vec<usize>);

fn actions_of<S: Encode>(start: &S, steps: &[Action]) -> Vec<usize> {
    let mut state = start.clone();
    steps
        .iter()
        .map(|&step| {
            let action = state.policy_index(step);
            state.apply_step(step);
            action
        })
        .collect()
}

fn path_of<S: Encode>(start: &S, actions: &[usize]) -> Result<String> {
    let mut state = start.clone();
    let mut path = String::new();
    for (i, &action) in actions.iter().enumerate() {
        let step = step_of(&state, action)?;
        push_step_text(&state, step, i == 0, &mut path);
        state.apply_step(step);
    }
    Ok(path)
}

fn step_of<S: Encode>(state: &S, action: usize) -> Result<Action> {
    if action >= state.num_actions() {
        return Err(BridgeError::Value(format!(
            "action {action} out of range (0..{})",
            state.num_actions()
        )));
    }
    let step = state.action_of_index(action);
    let mut legal = StepList::new();
    state.legal_steps(&mut legal);
    if !legal.contains(&step) {
        return Err(BridgeError::Value(format!(
            "illegal action {action} (legal: {})",
            legal
                .iter()
                .map(|&s| state.policy_index(s).to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    Ok(step)
}

impl AnyState {
    /// The start position of `kind`.
    pub fn start(kind: GameKind) -> AnyState {
        with_game!(kind, S => S::start(kind, RulesConfig::default()).wrap())
    }

    /// A position in the project notation.
    pub fn from_notation(kind: GameKind, text: &str) -> Result<AnyState> {
        Ok(with_game!(kind, S => S::from_notation(kind, text, RulesConfig::default())?.wrap()))
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        on_state!(self, s => s.kind())
    }

    /// The seat to move.
    pub fn seat_to_move(&self) -> usize {
        on_state!(self, s => s.seat_to_move().0 as usize)
    }

    /// The side to move.
    pub fn side_to_move(&self) -> usize {
        on_state!(self, s => s.side_to_move().0 as usize)
    }

    /// The side a seat plays for.
    pub fn side_of(&self, seat: usize) -> Result<usize> {
        let seats = self.num_seats();
        if seat >= seats {
            return Err(BridgeError::Value(format!(
                "seat {seat} out of range (0..{seats})"
            )));
        }
        Ok(on_state!(self, s => s.side_of(Seat(seat as u8)).0 as usize))
    }

    /// Seats that take decisions.
    pub fn num_seats(&self) -> usize {
        on_state!(self, s => s.num_seats())
    }

    /// The size of the action space.
    pub fn num_actions(&self) -> usize {
        on_state!(self, s => s.num_actions())
    }

    /// True while a turn is unfinished.
    pub fn turn_in_progress(&self) -> bool {
        on_state!(self, s => s.turn_in_progress())
    }

    /// True once the game is over.
    pub fn is_terminal(&self) -> bool {
        on_state!(self, s => s.outcome().is_some())
    }

    /// Per seat: +1 win, 0 draw, -1 loss (all 0 while the game goes on).
    pub fn returns(&self) -> Vec<f64> {
        on_state!(self, s => seat_returns(s, s.outcome()))
    }

    /// The winning side (`None` for a draw) and the reason, once the game is over.
    pub fn outcome(&self) -> Option<(Option<usize>, String)> {
        on_state!(self, s => s.outcome())
            .map(|o| (o.winner.map(|w| w.0 as usize), format!("{:?}", o.reason)))
    }

    /// The legal steps (game ids).
    pub fn legal_steps(&self) -> Vec<Action> {
        let mut steps = StepList::new();
        on_state!(self, s => s.legal_steps(&mut steps));
        steps
    }

    /// The legal actions (net frame), in step order.
    pub fn legal_actions(&self) -> Vec<usize> {
        on_state!(self, s => {
            let mut steps = StepList::new();
            s.legal_steps(&mut steps);
            steps.iter().map(|&step| s.policy_index(step)).collect()
        })
    }

    /// `index` (a step id or an action) if it is inside the action space.
    fn in_range(&self, what: &str, index: usize) -> Result<usize> {
        let n = self.num_actions();
        if index >= n {
            return Err(BridgeError::Value(format!(
                "{what} {index} out of range (0..{n})"
            )));
        }
        Ok(index)
    }

    /// The action (net frame) of a step id.
    pub fn action_of_step(&self, step: usize) -> Result<usize> {
        let step = self.in_range("step", step)? as Action;
        Ok(on_state!(self, s => s.policy_index(step)))
    }

    /// The step id of an action (net frame), which must be in range.
    pub fn step_of_action(&self, action: usize) -> Result<usize> {
        let action = self.in_range("action", action)?;
        Ok(on_state!(self, s => s.action_of_index(action) as usize))
    }

    /// Applies a legal action (net frame); the error lists the legal ones.
    pub fn apply_action(&mut self, action: usize) -> Result<()> {
        on_state!(self, s => {
            let step = step_of(s, action)?;
            s.apply_step(step);
            Ok(())
        })
    }

    /// Applies an action (net frame) that the caller knows is legal (from `legal_actions`
    /// of this very position).
    pub fn apply_legal_action(&mut self, action: usize) {
        on_state!(self, s => {
            let step = s.action_of_index(action);
            s.apply_step(step);
        })
    }

    /// Applies a legal step (game id).
    pub fn apply_step(&mut self, step: usize) -> Result<()> {
        let step = Action::try_from(step)
            .map_err(|_| BridgeError::Value(format!("step {step} out of range")))?;
        on_state!(self, s => Ok(s.try_apply_step(step)?))
    }

    /// Applies a whole turn written in the move notation; returns its actions (net frame).
    pub fn apply_turn(&mut self, text: &str) -> Result<Vec<usize>> {
        self.check_boundary("apply a turn")?;
        on_state!(self, s => {
            let turn = parse_turn(s, text)?;
            let actions = actions_of(s, &turn.steps);
            *s = turn.state;
            Ok(actions)
        })
    }

    /// The actions (net frame) of a turn written in the move notation, without applying it.
    pub fn turn_actions(&self, text: &str) -> Result<Vec<usize>> {
        self.clone().apply_turn(text)
    }

    /// The path of a sequence of actions (net frame) from this position.
    pub fn turn_text(&self, actions: &[usize]) -> Result<String> {
        on_state!(self, s => path_of(s, actions))
    }

    /// The distinct legal whole turns (sorted paths) with their actions (net frame).
    pub fn legal_turns(&self) -> Result<Vec<TurnText>> {
        self.check_boundary("list whole turns")?;
        Ok(on_state!(self, s => distinct_turns(s)
            .into_iter()
            .map(|t| {
                let actions = actions_of(s, &t.steps);
                (t.path, actions)
            })
            .collect()))
    }

    fn check_boundary(&self, what: &str) -> Result<()> {
        if self.turn_in_progress() {
            return Err(BridgeError::Value(format!(
                "cannot {what} in the middle of a turn: finish it with single actions"
            )));
        }
        Ok(())
    }

    /// The position in the project notation (at a turn boundary).
    pub fn notation(&self) -> Result<String> {
        self.check_boundary("write the notation")?;
        Ok(on_state!(self, s => s.to_notation()))
    }

    /// The board for a terminal.
    pub fn render(&self) -> String {
        on_state!(self, s => s.render())
    }

    /// The repetition hash.
    pub fn position_hash(&self) -> u64 {
        on_state!(self, s => s.position_hash())
    }

    /// perft(depth) over distinct whole-turn children (at a turn boundary).
    pub fn perft(&self, depth: u32) -> Result<u64> {
        self.check_boundary("count perft")?;
        Ok(on_state!(self, s => s.perft(depth)))
    }

    /// Values per position of the planes.
    pub fn plane_size(&self) -> usize {
        let info = encoding(self.kind());
        info.planes * info.height * info.width
    }

    /// Writes the input planes (side to move's view) into `out` (`plane_size` values).
    pub fn encode(&self, out: &mut [f32]) -> Result<()> {
        let size = self.plane_size();
        if out.len() != size {
            return Err(BridgeError::Value(format!(
                "the planes of {} need {size} values, the array has {}",
                self.kind(),
                out.len()
            )));
        }
        on_state!(self, s => s.encode(out));
        Ok(())
    }

    /// The position under symmetry `sym`, or `None` where the symmetry does not apply.
    pub fn transform(&self, sym: usize) -> Result<Option<AnyState>> {
        check_symmetry(self.kind(), sym)?;
        Ok(on_state!(self, s => s.transform_state(sym).map(|t| t.wrap())))
    }
}

/// A chosen turn: path, actions (net frame), value for the mover, principal variation,
/// root visits.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The turn's path.
    pub path: String,
    /// Its actions (net frame).
    pub actions: Vec<usize>,
    /// The search's value for the mover in [-1, 1] (0 for baselines).
    pub value: f32,
    /// The principal variation in whole turns (the turn alone for baselines).
    pub pv: Vec<String>,
    /// Root visits of the first searched step.
    pub visits: u32,
}

/// Who chooses turns: an exported model with the project's search, or a baseline.
pub enum Brain {
    /// An exported model and its search settings.
    Model {
        /// An evaluator over the export's net (each choice searches with a clone).
        evaluator: NetEvaluator,
        /// The export directory.
        dir: PathBuf,
        /// Its game.
        kind: GameKind,
        /// Visits per searched step.
        visits: u32,
        /// PUCT settings.
        config: SearchConfig,
    },
    /// A baseline agent spec (`random`, `uct:N`, `alphabeta:D`, `alphabeta:Nms`).
    Baseline(AgentSpec),
}

impl Brain {
    /// Loads an export directory (`model.pt` + `model.json`), with `overrides` over the
    /// export's search settings.
    pub fn load(dir: &Path, overrides: &SearchOverrides) -> Result<Brain> {
        let model = ExportedModel::load(dir)?;
        let kind = model.meta().kind()?;
        with_game!(kind, S => model.check_game::<S>())?;
        let config = model
            .meta()
            .search
            .for_play()
            .with(overrides)
            .map_err(|e| BridgeError::Value(e.to_string()))?;
        let visits = config.visits;
        check_visits(visits)?;
        Ok(Brain::Model {
            evaluator: model.evaluator(),
            dir: model.dir().to_path_buf(),
            kind,
            visits,
            config,
        })
    }

    /// A baseline from its spec.
    pub fn baseline(spec: &str) -> Result<Brain> {
        let parsed = AgentSpec::parse(spec).map_err(|e| BridgeError::Value(e.to_string()))?;
        match parsed {
            AgentSpec::Random | AgentSpec::Uct { .. } | AgentSpec::AlphaBeta { .. } => {
                Ok(Brain::Baseline(parsed))
            }
            _ => Err(BridgeError::Value(format!(
                "'{spec}' is not a baseline (random, uct:N, alphabeta:D, alphabeta:Nms); \
                 load an export directory with Player.load"
            ))),
        }
    }

    /// A short description.
    pub fn name(&self) -> String {
        match self {
            Brain::Model { dir, visits, .. } => {
                format!("model:{}:{visits}", dir.display())
            }
            Brain::Baseline(spec) => spec.to_string(),
        }
    }

    /// The model's game, for a model.
    pub fn kind(&self) -> Option<GameKind> {
        match self {
            Brain::Model { kind, .. } => Some(*kind),
            Brain::Baseline(_) => None,
        }
    }

    /// What runs the model (runtime, device, precision, largest batch), for a model.
    pub fn backend(&self) -> Option<String> {
        match self {
            Brain::Model { evaluator, .. } => Some(evaluator.info().to_string()),
            Brain::Baseline(_) => None,
        }
    }

    /// The model's visits per searched step, for a model.
    pub fn visits(&self) -> Option<u32> {
        match self {
            Brain::Model { visits, .. } => Some(*visits),
            Brain::Baseline(_) => None,
        }
    }

    /// Chooses the rest of the current turn in `state` (a whole turn at a turn boundary).
    pub fn choose(&self, state: &AnyState, seed: u64, visits: Option<u32>) -> Result<Choice> {
        if state.is_terminal() {
            return Err(BridgeError::Value(
                "the game is over: no turn to choose".into(),
            ));
        }
        if let Some(kind) = self.kind() {
            if kind != state.kind() {
                return Err(BridgeError::Value(format!(
                    "the model plays {kind}, the position is {}",
                    state.kind()
                )));
            }
        }
        on_state!(state, s => self.choose_typed(s, seed, visits))
    }

    fn choose_typed<S: Encode>(&self, state: &S, seed: u64, visits: Option<u32>) -> Result<Choice> {
        match self {
            Brain::Model {
                evaluator,
                visits: default,
                config,
                ..
            } => {
                let visits = visits.unwrap_or(*default);
                check_visits(visits)?;
                let evaluator = evaluator.clone();
                // A model's choice depends on the position and budget only (Gumbel's noise
                // is seeded the same every call), so a handle answers alike from any thread.
                let mut search = TurnSearch::new(evaluator, config.clone(), 0);
                let thought = search
                    .think(state, Budget::Count(visits))
                    .map_err(|error| BridgeError::Runtime(format!("the model failed: {error}")))?
                    .ok_or_else(|| BridgeError::Value("the game is over".into()))?;
                Ok(Choice {
                    actions: actions_of(state, &thought.steps),
                    path: thought.path,
                    value: thought.value,
                    pv: thought.pv,
                    visits: thought.visits,
                })
            }
            Brain::Baseline(spec) => {
                let mut agent: Box<dyn Agent<S>> = match *spec {
                    AgentSpec::Uct { playouts } => Box::new(rollout_uct(playouts, seed)),
                    AgentSpec::AlphaBeta { budget } => Box::new(AlphaBetaAgent::new(budget, seed)),
                    _ => Box::new(RandomAgent::new(seed)),
                };
                play_turn(state, agent.as_mut())
            }
        }
    }
}

fn check_visits(visits: u32) -> Result<()> {
    if !(1..=1_000_000).contains(&visits) {
        return Err(BridgeError::Value(format!(
            "visits must be 1..=1000000, got {visits}"
        )));
    }
    Ok(())
}

/// The rest of the turn in `state`, step by step with `agent`.
fn play_turn<S: Encode>(state: &S, agent: &mut dyn Agent<S>) -> Result<Choice> {
    let mut current = state.clone();
    let mut path = String::new();
    let mut actions = Vec::new();
    loop {
        let step = agent
            .choose(&current)
            .map_err(|error| BridgeError::Runtime(format!("the agent failed: {error}")))?;
        push_step_text(&current, step, actions.is_empty(), &mut path);
        actions.push(current.policy_index(step));
        current.apply_step(step);
        if !current.turn_in_progress() || current.outcome().is_some() {
            break;
        }
    }
    Ok(Choice {
        pv: vec![path.clone()],
        path,
        actions,
        value: 0.0,
        visits: 0,
    })
}

/// Which Rust loop the binding benchmark compares the Python one with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RustLoop {
    /// The calls a Python loop makes, made from Rust: `is_terminal`, `legal_actions` (net
    /// frame) and `apply_legal_action` on an [`AnyState`]. The ratio to it is the binding's
    /// own cost per step.
    Api,
    /// The rules core alone: step ids, no action mapping, no dispatch over games.
    Core,
}

/// Plays `games` random games of `kind` to the end from the start (seeded) through `how`;
/// returns the steps played. The Rust side of the binding benchmark.
pub fn random_playout_steps(kind: GameKind, games: usize, seed: u64, how: RustLoop) -> u64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut total = 0u64;
    if how == RustLoop::Api {
        for _ in 0..games {
            let mut state = AnyState::start(kind);
            while !state.is_terminal() {
                let legal = state.legal_actions();
                state.apply_legal_action(legal[rng.gen_range(0..legal.len())]);
                total += 1;
            }
        }
        return total;
    }
    with_game!(kind, S => {
        let mut steps = StepList::new();
        for _ in 0..games {
            let mut state = S::start(kind, RulesConfig::default());
            while state.outcome().is_none() {
                state.legal_steps(&mut steps);
                let step = steps[rng.gen_range(0..steps.len())];
                state.apply_step(step);
                total += 1;
            }
        }
    });
    total
}
