//! `checkers_zero._native`: the Python classes over [`bridge`]. The package
//! `checkers_zero` (Python) re-exports them and adds the PettingZoo/Gymnasium environments.
//!
//! Errors are Python exceptions carrying the CLI's messages: bad input is a `ValueError`,
//! an unreadable file an `OSError`, a failing model a `RuntimeError`; nothing panics across
//! the boundary.

mod bridge;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use numpy::ndarray::{Array1, Array3};
use numpy::{
    IntoPyArray, PyArray1, PyArray3, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyReadwriteArrayDyn,
};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString};

use bridge::{AnyState, Brain, BridgeError, Choice, Kind};
use checkers_zero::config::search::SearchOverrides;
use checkers_zero::game::GameKind;

impl From<BridgeError> for PyErr {
    fn from(error: BridgeError) -> PyErr {
        match error {
            BridgeError::Value(m) => PyValueError::new_err(m),
            BridgeError::Os(m) => PyOSError::new_err(m),
            BridgeError::Runtime(m) => PyRuntimeError::new_err(m),
        }
    }
}

fn kind_of(name: &str) -> PyResult<Kind> {
    Ok(bridge::parse_kind(name)?)
}

/// Python ints for every action id of each game, made once: a list of legal actions then
/// costs a reference count per action rather than a new int (action ids are mostly above
/// CPython's small-int cache), which is most of what the list costs.
static ACTION_INTS: [PyOnceLock<Vec<Py<PyInt>>>; Kind::ALL.len()] =
    [const { PyOnceLock::new() }; Kind::ALL.len()];

/// `actions` of a `state` of its game as a Python list.
fn action_list<'py>(
    py: Python<'py>,
    state: &AnyState,
    actions: &[usize],
) -> PyResult<Bound<'py, PyList>> {
    let game = Kind::ALL.iter().position(|&k| k == state.kind());
    let ints = ACTION_INTS[game.unwrap_or(0)].get_or_init(py, || {
        (0..state.num_actions())
            .map(|a| PyInt::new(py, a).unbind())
            .collect()
    });
    PyList::new(py, actions.iter().map(|&a| ints[a].bind(py)))
}

/// A position of one game, with everything its rules need. Actions are the net's policy
/// indices (the side to move's frame), as in the environments and an exported model's
/// output; `legal_steps`/`apply_step` use the rules' own step ids.
#[pyclass(module = "checkers_zero", name = "State")]
#[derive(Clone)]
struct State {
    inner: AnyState,
    /// The legal actions of `inner`, once asked for (cleared by every change).
    legal: Option<Vec<usize>>,
}

impl State {
    fn new(inner: AnyState) -> State {
        State { inner, legal: None }
    }

    fn legal(&mut self) -> &[usize] {
        self.legal.get_or_insert_with(|| self.inner.legal_actions())
    }

    /// Applies an action, through the cached legal actions when there are some.
    fn apply_one(&mut self, action: usize) -> PyResult<()> {
        if self.legal().contains(&action) {
            self.inner.apply_legal_action(action);
        } else {
            self.inner.apply_action(action)?;
        }
        self.legal = None;
        Ok(())
    }
}

#[pymethods]
impl State {
    /// The game's name.
    #[getter]
    fn game(&self) -> &'static str {
        self.inner.kind().name()
    }

    /// The seat to move (0-based; see `seat_names(game)`).
    #[getter]
    fn to_play(&self) -> usize {
        self.inner.seat_to_move()
    }

    /// The side to move (0-based; see `side_names(game)`).
    #[getter]
    fn side_to_move(&self) -> usize {
        self.inner.side_to_move()
    }

    /// The side a seat plays for.
    fn side_of(&self, seat: usize) -> PyResult<usize> {
        Ok(self.inner.side_of(seat)?)
    }

    /// Seats that take decisions (2, or 3 in rematch3).
    #[getter]
    fn num_seats(&self) -> usize {
        self.inner.num_seats()
    }

    /// The size of the action space.
    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.num_actions()
    }

    /// True while a turn is unfinished (the same seat moves again).
    #[getter]
    fn turn_in_progress(&self) -> bool {
        self.inner.turn_in_progress()
    }

    /// True once the game is over.
    fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }

    /// Per seat: +1 win, 0 draw, -1 loss (all 0 while the game goes on).
    fn returns(&self) -> Vec<f64> {
        self.inner.returns()
    }

    /// `None` while the game goes on, else `(winning side or None for a draw, reason)`.
    fn outcome(&self) -> Option<(Option<usize>, String)> {
        self.inner.outcome()
    }

    /// The legal whole turns in the move notation (one per distinct resulting position,
    /// sorted); with `actions=True`, each turn's actions instead.
    #[pyo3(signature = (actions = false))]
    fn legal_turns(&self, py: Python<'_>, actions: bool) -> PyResult<Py<PyAny>> {
        let turns = self.inner.legal_turns()?;
        Ok(if actions {
            let lists: Vec<Vec<usize>> = turns.into_iter().map(|t| t.1).collect();
            lists.into_pyobject(py)?.into_any().unbind()
        } else {
            let paths: Vec<String> = turns.into_iter().map(|t| t.0).collect();
            paths.into_pyobject(py)?.into_any().unbind()
        })
    }

    /// The legal actions of the next step (net frame).
    fn legal_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.legal();
        action_list(py, &self.inner, self.legal.as_deref().unwrap_or_default())
    }

    /// The legal-action mask over the action space (uint8, 1 = legal).
    fn action_mask<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let mut mask = vec![0u8; self.inner.num_actions()];
        for &action in self.legal() {
            mask[action] = 1;
        }
        Array1::from_vec(mask).into_pyarray(py)
    }

    /// The legal steps of the next step (the rules' step ids).
    fn legal_steps(&self) -> Vec<u16> {
        self.inner.legal_steps()
    }

    /// The action (net frame) of a step id.
    fn action_of_step(&self, step: usize) -> PyResult<usize> {
        Ok(self.inner.action_of_step(step)?)
    }

    /// The step id of an action (net frame).
    fn step_of_action(&self, action: usize) -> PyResult<usize> {
        Ok(self.inner.step_of_action(action)?)
    }

    /// Applies a whole turn (`str`, the move notation), one action (`int`, net frame) or a
    /// sequence of actions. Returns the actions applied.
    fn apply(&mut self, turn: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        if let Ok(text) = turn.cast::<PyString>() {
            let actions = self.inner.apply_turn(text.to_str()?)?;
            self.legal = None;
            return Ok(actions);
        }
        if turn.is_instance_of::<PyInt>() {
            let action: usize = turn.extract()?;
            self.apply_one(action)?;
            return Ok(vec![action]);
        }
        let actions: Vec<usize> = turn.extract().map_err(|_| {
            PyValueError::new_err("apply takes a turn (str), an action (int) or a list of actions")
        })?;
        let mut next = self.inner.clone();
        for &action in &actions {
            next.apply_action(action)?;
        }
        self.inner = next;
        self.legal = None;
        Ok(actions)
    }

    /// Applies one action (net frame): the fast path of `apply` for an int.
    fn apply_action(&mut self, action: usize) -> PyResult<()> {
        self.apply_one(action)
    }

    /// Applies one step by its rules' step id.
    fn apply_step(&mut self, step: usize) -> PyResult<()> {
        self.inner.apply_step(step)?;
        self.legal = None;
        Ok(())
    }

    /// The actions of a turn written in the move notation (nothing is applied).
    fn turn_actions(&self, turn: &str) -> PyResult<Vec<usize>> {
        Ok(self.inner.turn_actions(turn)?)
    }

    /// The move notation of a sequence of actions from this position.
    fn turn_text(&self, actions: Vec<usize>) -> PyResult<String> {
        Ok(self.inner.turn_text(&actions)?)
    }

    /// The position in the project notation (at a turn boundary).
    fn notation(&self) -> PyResult<String> {
        Ok(self.inner.notation()?)
    }

    /// A copy.
    fn clone(&self) -> State {
        Clone::clone(self)
    }

    fn __copy__(&self) -> State {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        Clone::clone(self)
    }

    /// perft(depth): leaves of the tree of distinct whole-turn children (as the CLI's
    /// `perft`). Releases the GIL.
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        let state = self.inner.clone();
        Ok(py.detach(move || state.perft(depth))?)
    }

    /// The hash that identifies the position for repetitions.
    #[getter]
    fn position_hash(&self) -> u64 {
        self.inner.position_hash()
    }

    /// The net's input planes, float32 `[planes, height, width]`, from the side to move's
    /// view (a new array; the buffer is handed to numpy without a copy).
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let info = bridge::encoding(self.inner.kind());
        let mut planes = vec![0.0f32; self.inner.plane_size()];
        self.inner.encode(&mut planes)?;
        let array = Array3::from_shape_vec((info.planes, info.height, info.width), planes)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// Writes the planes into `out` in place (a C-contiguous float32 array of
    /// `planes * height * width` values, e.g. one row of a batch).
    fn encode_into(&self, mut out: PyReadwriteArrayDyn<'_, f32>) -> PyResult<()> {
        let slice = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("out must be a C-contiguous float32 array"))?;
        Ok(self.inner.encode(slice)?)
    }

    /// The position under symmetry `sym`, or `None` where the symmetry does not apply.
    fn transform(&self, sym: usize) -> PyResult<Option<State>> {
        Ok(self.inner.transform(sym)?.map(State::new))
    }

    /// The board drawn for a terminal.
    fn render(&self) -> String {
        self.inner.render()
    }

    fn __str__(&self) -> String {
        self.inner.render()
    }

    fn __repr__(&self) -> String {
        match self.inner.notation() {
            Ok(text) => format!("State('{}', '{}')", self.game(), text),
            Err(_) => format!("State('{}', <mid-turn>)", self.game()),
        }
    }
}

/// The start position of a game (`rematch`, `rematch3`, `hexdame`, `eximo`).
#[pyfunction]
fn new_game(name: &str) -> PyResult<State> {
    Ok(State::new(AnyState::start(kind_of(name)?)))
}

/// A position written in the project notation.
#[pyfunction]
fn from_notation(name: &str, text: &str) -> PyResult<State> {
    Ok(State::new(AnyState::from_notation(kind_of(name)?, text)?))
}

/// The games' names.
#[pyfunction]
fn games() -> Vec<&'static str> {
    bridge::game_names()
}

/// The seat names of a game, seat 0 first.
#[pyfunction]
fn seat_names(name: &str) -> PyResult<Vec<&'static str>> {
    Ok(bridge::seats(kind_of(name)?).to_vec())
}

/// The side names of a game, side 0 first.
#[pyfunction]
fn side_names(name: &str) -> PyResult<Vec<&'static str>> {
    Ok(bridge::sides(kind_of(name)?).to_vec())
}

/// A game's encoding: planes, height, width, num_actions, symmetries, hex, board_mask
/// (bool `[height, width]`), version.
#[pyfunction]
fn encoding<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let info = bridge::encoding(kind_of(name)?);
    let dict = PyDict::new(py);
    dict.set_item("planes", info.planes)?;
    dict.set_item("height", info.height)?;
    dict.set_item("width", info.width)?;
    dict.set_item("num_actions", info.num_actions)?;
    dict.set_item("symmetries", info.symmetries)?;
    dict.set_item("hex", info.hex)?;
    dict.set_item("version", info.version)?;
    let mask = PyArray1::from_vec(py, info.board_mask).reshape([info.height, info.width])?;
    dict.set_item("board_mask", mask)?;
    Ok(dict)
}

/// Planes (`[..., planes, height, width]`, float32) under symmetry `sym`: a new array.
#[pyfunction]
fn transform_planes<'py>(
    py: Python<'py>,
    name: &str,
    sym: usize,
    planes: PyReadonlyArrayDyn<'py, f32>,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let kind = kind_of(name)?;
    let view = planes.as_array();
    let shape = view.shape().to_vec();
    let input = view.iter().copied().collect::<Vec<f32>>();
    let mut out = vec![0.0f32; input.len()];
    bridge::transform_planes(kind, sym, &input, &mut out)?;
    PyArray1::from_vec(py, out).reshape(shape)
}

/// Where symmetry `sym` sends each action: `perm[a]` (int64 array over the action space).
#[pyfunction]
fn action_permutation<'py>(
    py: Python<'py>,
    name: &str,
    sym: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let perm = bridge::action_permutation(kind_of(name)?, sym)?;
    Ok(PyArray1::from_vec(
        py,
        perm.into_iter().map(|i| i as i64).collect(),
    ))
}

/// perft of a position (the start when `notation` is None), as `checkers-zero perft`.
#[pyfunction]
#[pyo3(signature = (name, depth, notation = None))]
fn perft(py: Python<'_>, name: &str, depth: u32, notation: Option<&str>) -> PyResult<u64> {
    let kind = kind_of(name)?;
    let state = match notation {
        Some(text) => AnyState::from_notation(kind, text)?,
        None => AnyState::start(kind),
    };
    Ok(py.detach(move || state.perft(depth))?)
}

/// Random games from the start in Rust alone: the steps played (the benchmark's
/// reference). `through="api"` makes the calls a Python loop makes (`is_terminal`,
/// `legal_actions`, `apply_action`) from Rust; `"core"` uses the rules core's step ids.
/// Releases the GIL.
#[pyfunction]
#[pyo3(signature = (name, games, seed, through = "api"))]
fn rust_random_steps(
    py: Python<'_>,
    name: &str,
    games: usize,
    seed: u64,
    through: &str,
) -> PyResult<u64> {
    let kind = kind_of(name)?;
    let how = match through {
        "api" => bridge::RustLoop::Api,
        "core" => bridge::RustLoop::Core,
        other => {
            return Err(PyValueError::new_err(format!(
                "through must be \"api\" or \"core\", not {other:?}"
            )))
        }
    };
    Ok(py.detach(move || bridge::random_playout_steps(kind, games, seed, how)))
}

/// A turn chosen by a `Player`.
#[pyclass(module = "checkers_zero", name = "Choice", frozen, get_all)]
struct PyChoice {
    /// The turn in the move notation.
    path: String,
    /// Its actions (net frame), to apply one by one.
    actions: Vec<usize>,
    /// The search's value of the turn for the mover in [-1, 1] (0 for baselines).
    value: f32,
    /// The principal variation in whole turns, this turn first.
    pv: Vec<String>,
    /// Root visits of the first searched step (0 when there was no choice or no search).
    visits: u32,
}

#[pymethods]
impl PyChoice {
    fn __repr__(&self) -> String {
        format!(
            "Choice(path='{}', value={:.3}, visits={})",
            self.path, self.value, self.visits
        )
    }
}

impl From<Choice> for PyChoice {
    fn from(c: Choice) -> Self {
        PyChoice {
            path: c.path,
            actions: c.actions,
            value: c.value,
            pv: c.pv,
            visits: c.visits,
        }
    }
}

/// Chooses turns: an exported model with the project's search (`Player.load`), or a
/// baseline (`Player.baseline("random" | "uct:N" | "alphabeta:D" | "alphabeta:Nms")`).
/// Thread-safe: one handle may serve many threads; the GIL is released while it thinks.
#[pyclass(module = "checkers_zero", frozen)]
struct Player {
    brain: Brain,
    seed: u64,
    calls: AtomicU64,
}

#[pymethods]
impl Player {
    /// Loads an export directory (`model.pt` + `model.json`); search settings default to
    /// the export's.
    #[staticmethod]
    #[pyo3(signature = (path, visits = None, c_puct = None, fpu_reduction = None, seed = 0))]
    fn load(
        py: Python<'_>,
        path: PathBuf,
        visits: Option<u32>,
        c_puct: Option<f32>,
        fpu_reduction: Option<f32>,
        seed: u64,
    ) -> PyResult<Player> {
        let overrides = SearchOverrides::default()
            .and("visits", visits)
            .and("c_puct", c_puct)
            .and("fpu_reduction", fpu_reduction);
        let brain = py.detach(move || Brain::load(&path, &overrides))?;
        Ok(Player::new(brain, seed))
    }

    /// The game's shipped model (`models/GAME`, found as `checkers-zero` finds it; see
    /// docs/export.md), loaded as `Player.load` loads an export.
    #[staticmethod]
    #[pyo3(signature = (game = "rematch", visits = None, seed = 0))]
    fn shipped(py: Python<'_>, game: &str, visits: Option<u32>, seed: u64) -> PyResult<Player> {
        let kind: GameKind = game
            .parse()
            .map_err(|e: checkers_zero::game::NotationError| {
                PyValueError::new_err(e.to_string())
            })?;
        let dir =
            checkers_zero::export::shipped::require_shipped(kind).map_err(PyValueError::new_err)?;
        let overrides = SearchOverrides::default().and("visits", visits);
        let brain = py.detach(move || Brain::load(&dir, &overrides))?;
        Ok(Player::new(brain, seed))
    }

    /// A baseline agent: `random`, `uct:N` (N random playouts per step), `alphabeta:D`
    /// (D whole turns deep, material) or `alphabeta:Nms`.
    #[staticmethod]
    #[pyo3(signature = (spec, seed = 0))]
    fn baseline(spec: &str, seed: u64) -> PyResult<Player> {
        Ok(Player::new(Brain::baseline(spec)?, seed))
    }

    /// A short description (`model:DIR:VISITS`, `random`, `uct:N`, ...).
    #[getter]
    fn name(&self) -> String {
        self.brain.name()
    }

    /// The model's game (`None` for a baseline, which plays every game).
    #[getter]
    fn game(&self) -> Option<&'static str> {
        self.brain.kind().map(|k| k.name())
    }

    /// What runs the model, e.g. `TorchScript on cpu, fp32, any batch` (`None` for a
    /// baseline).
    #[getter]
    fn backend(&self) -> Option<String> {
        self.brain.backend()
    }

    /// The model's visits per searched step (`None` for a baseline).
    #[getter]
    fn visits(&self) -> Option<u32> {
        self.brain.visits()
    }

    /// Chooses the (rest of the) turn to play in `state` without changing it.
    /// `seed` makes a baseline's choice reproducible (by default each call draws a new one).
    #[pyo3(signature = (state, visits = None, seed = None))]
    fn think(
        &self,
        py: Python<'_>,
        state: &State,
        visits: Option<u32>,
        seed: Option<u64>,
    ) -> PyResult<PyChoice> {
        let inner = state.inner.clone();
        let seed = seed.unwrap_or_else(|| {
            let call = self.calls.fetch_add(1, Ordering::Relaxed);
            self.seed ^ call.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        });
        let choice = py.detach(|| self.brain.choose(&inner, seed, visits))?;
        Ok(choice.into())
    }

    /// The turn to play in `state`, in the move notation.
    #[pyo3(signature = (state, visits = None))]
    fn choose_turn(&self, py: Python<'_>, state: &State, visits: Option<u32>) -> PyResult<String> {
        Ok(self.think(py, state, visits, None)?.path)
    }

    /// The next action (net frame) to play in `state` (also in the middle of a turn).
    #[pyo3(signature = (state, visits = None))]
    fn choose_action(&self, py: Python<'_>, state: &State, visits: Option<u32>) -> PyResult<usize> {
        Ok(self.think(py, state, visits, None)?.actions[0])
    }

    fn __repr__(&self) -> String {
        format!("Player('{}')", self.brain.name())
    }
}

impl Player {
    fn new(brain: Brain, seed: u64) -> Player {
        Player {
            brain,
            seed,
            calls: AtomicU64::new(0),
        }
    }
}

/// The native part of `checkers_zero`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<State>()?;
    m.add_class::<Player>()?;
    m.add_class::<PyChoice>()?;
    m.add_function(wrap_pyfunction!(new_game, m)?)?;
    m.add_function(wrap_pyfunction!(from_notation, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(seat_names, m)?)?;
    m.add_function(wrap_pyfunction!(side_names, m)?)?;
    m.add_function(wrap_pyfunction!(encoding, m)?)?;
    m.add_function(wrap_pyfunction!(transform_planes, m)?)?;
    m.add_function(wrap_pyfunction!(action_permutation, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(rust_random_steps, m)?)?;
    Ok(())
}
