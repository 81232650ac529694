//! Self-play diversity: how varied the newest games are (their openings, exact repeats and
//! results). The learner role keeps the newest [`DIVERSITY_GAMES`] games' summaries and
//! writes [`GameDiversity::report`] as the `diversity` object of its `intake` metrics lines
//! (docs/training.md, "Self-play diversity"); the replay window adds `repeated_samples`.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::record::{GameRecord, RecordError};
use crate::game::{Action, GameState, Side};

/// Games the diversity figures are computed over: the newest this many taken in
/// (reanalyses, which repeat a game, not counted).
pub const DIVERSITY_GAMES: usize = 1000;

/// Opening lengths, in whole turns, whose distinct prefixes are counted.
pub const OPENING_TURNS: [usize; 4] = [2, 4, 6, 8];

/// Index of the 4-turn opening in [`OPENING_TURNS`] (its entropy is reported).
const ENTROPY_OPENING: usize = 1;

/// What diversity needs of one game: hashes of its openings and of the whole game, and
/// how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// Per [`OPENING_TURNS`] length k, a hash of the start and the steps of the first k
    /// whole turns (of the whole game when it has fewer).
    pub openings: [u64; OPENING_TURNS.len()],
    /// A hash of the start and every step.
    pub whole: u64,
    /// The winning side (`None`: a draw).
    pub winner: Option<u8>,
    /// Ended by resignation.
    pub resigned: bool,
    /// Played through: sides that would have resigned...
    pub would_resign: u8,
    /// ...and of those, sides that did not lose (false resignations).
    pub false_resign: u8,
}

/// FNV-1a over 64-bit words: stable across runs and platforms.
fn mix(hash: u64, word: u64) -> u64 {
    (hash ^ word).wrapping_mul(0x0000_0100_0000_01b3)
}

fn hash_text(text: &str) -> u64 {
    text.bytes()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| mix(h, u64::from(b)))
}

/// A game's summary built step by step while its record is replayed (the learner's
/// replay also encodes the samples: [`super::samples::take_game`]).
#[derive(Clone, Debug)]
pub struct SummaryBuilder {
    hash: u64,
    turns: usize,
    openings: [Option<u64>; OPENING_TURNS.len()],
}

impl SummaryBuilder {
    /// A builder for the game that starts at `record.start`.
    pub fn new(record: &GameRecord) -> SummaryBuilder {
        SummaryBuilder {
            hash: hash_text(&record.start),
            turns: 0,
            openings: [None; OPENING_TURNS.len()],
        }
    }

    /// Takes step `action`, played in `state`.
    pub fn step<S: GameState>(&mut self, state: &S, action: Action) {
        if !state.turn_in_progress() {
            // This step starts turn `turns + 1`: the steps so far are `turns` whole turns.
            if let Some(i) = OPENING_TURNS.iter().position(|&k| k == self.turns) {
                self.openings[i] = Some(self.hash);
            }
            self.turns += 1;
        }
        self.hash = mix(self.hash, u64::from(action) + 1);
    }

    /// The summary, once every step of `record` is taken.
    pub fn finish(self, record: &GameRecord) -> GameSummary {
        let mut summary = GameSummary {
            openings: self.openings.map(|o| o.unwrap_or(self.hash)),
            whole: self.hash,
            winner: record.winner,
            resigned: record.resigned,
            would_resign: 0,
            false_resign: 0,
        };
        if record.played_through {
            for side in 0..2u8 {
                if record.would_resign[side as usize].is_some() {
                    summary.would_resign += 1;
                    summary.false_resign += u8::from(record.score(Side(side)) > 0.0);
                }
            }
        }
        summary
    }
}

impl GameSummary {
    /// The summary of a finished game; fails if the record does not replay.
    pub fn of<S: GameState>(record: &GameRecord) -> Result<GameSummary, RecordError> {
        let mut builder = SummaryBuilder::new(record);
        record.replay::<S>(|state, step| builder.step(state, step.action))?;
        Ok(builder.finish(record))
    }
}

/// The diversity figures of a set of games (the `diversity` metrics object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiversityReport {
    /// Games the figures are computed over.
    pub games: usize,
    /// Distinct whole-turn openings of 2, 4, 6 and 8 turns, per 1,000 games.
    pub openings_2: f64,
    /// See `openings_2`.
    pub openings_4: f64,
    /// See `openings_2`.
    pub openings_6: f64,
    /// See `openings_2`.
    pub openings_8: f64,
    /// The Hill number of order 1 (exp of the Shannon entropy, in effective openings) of
    /// the 4-turn openings.
    pub opening_entropy_4: f64,
    /// Share of games whose steps repeat an earlier game of the set exactly.
    pub duplicate_games: f64,
    /// Share of the replay window's samples whose position occurs more than once in it
    /// (`None` where no window is at hand).
    pub repeated_samples: Option<f64>,
    /// Share of drawn games.
    pub draws: f64,
    /// Shannon entropy, in bits, of the games' results (side 0 wins, side 1 wins, draw):
    /// 0 when every game ends alike, log2(3) at most.
    pub outcome_entropy: f64,
    /// Share of games ended by resignation.
    pub resigned: f64,
    /// Of the sides that would have resigned in played-through games, the share that did
    /// not lose; `None` while there are none.
    pub false_resign: Option<f64>,
}

impl std::fmt::Display for DiversityReport {
    /// `openings 2/4/6/8 turns 7/40/121/260 per 1,000 games, 4-turn entropy 25.1, ...`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x));
        write!(
            f,
            "openings of 2/4/6/8 turns {:.0}/{:.0}/{:.0}/{:.0} per 1,000 games, \
             4-turn opening entropy {:.1}, duplicate games {}, repeated samples {}, \
             draws {}, outcome entropy {:.2} bits, resigned {}, false resignations {} \
             (newest {} games)",
            self.openings_2,
            self.openings_4,
            self.openings_6,
            self.openings_8,
            self.opening_entropy_4,
            pct(Some(self.duplicate_games)),
            pct(self.repeated_samples),
            pct(Some(self.draws)),
            self.outcome_entropy,
            pct(Some(self.resigned)),
            pct(self.false_resign),
            self.games
        )
    }
}

/// The newest games' summaries.
#[derive(Clone, Debug)]
pub struct GameDiversity {
    games: VecDeque<GameSummary>,
    capacity: usize,
}

impl Default for GameDiversity {
    fn default() -> Self {
        GameDiversity::new(DIVERSITY_GAMES)
    }
}

impl GameDiversity {
    /// Keeps the newest `capacity` games.
    pub fn new(capacity: usize) -> GameDiversity {
        GameDiversity {
            games: VecDeque::with_capacity(capacity.max(1)),
            capacity: capacity.max(1),
        }
    }

    /// Adds a finished game, dropping the oldest beyond the capacity.
    pub fn add(&mut self, game: GameSummary) {
        if self.games.len() == self.capacity {
            self.games.pop_front();
        }
        self.games.push_back(game);
    }

    /// Games held.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// True when no game is held.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The figures of the games held (`repeated_samples` as given); `None` with no game.
    pub fn report(&self, repeated_samples: Option<f64>) -> Option<DiversityReport> {
        let n = self.games.len();
        if n == 0 {
            return None;
        }
        let per_1000 = |i: usize| {
            let distinct: HashSet<u64> = self.games.iter().map(|g| g.openings[i]).collect();
            distinct.len() as f64 * 1000.0 / n as f64
        };
        let share = |count: usize| count as f64 / n as f64;
        let whole: HashSet<u64> = self.games.iter().map(|g| g.whole).collect();
        let would: u32 = self.games.iter().map(|g| u32::from(g.would_resign)).sum();
        let falses: u32 = self.games.iter().map(|g| u32::from(g.false_resign)).sum();
        Some(DiversityReport {
            games: n,
            openings_2: per_1000(0),
            openings_4: per_1000(1),
            openings_6: per_1000(2),
            openings_8: per_1000(3),
            opening_entropy_4: self.hill_number(ENTROPY_OPENING),
            duplicate_games: share(n - whole.len()),
            repeated_samples,
            draws: share(self.games.iter().filter(|g| g.winner.is_none()).count()),
            outcome_entropy: self.outcome_entropy(),
            resigned: share(self.games.iter().filter(|g| g.resigned).count()),
            false_resign: (would > 0).then(|| falses as f64 / would as f64),
        })
    }

    /// Entropy in bits of the results' distribution.
    fn outcome_entropy(&self) -> f64 {
        let mut counts = [0usize; 3];
        for game in &self.games {
            counts[game.winner.map_or(2, |w| usize::from(w.min(1)))] += 1;
        }
        entropy(counts.iter().copied(), self.games.len()) / std::f64::consts::LN_2
    }

    /// exp(H) of the distribution of opening `i`: the number of equally likely openings
    /// with the same entropy.
    fn hill_number(&self, i: usize) -> f64 {
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for game in &self.games {
            *counts.entry(game.openings[i]).or_default() += 1;
        }
        entropy(counts.values().copied(), self.games.len()).exp()
    }
}

/// Shannon entropy in nats of the distribution with these counts (of `n` in all).
fn entropy(counts: impl Iterator<Item = usize>, n: usize) -> f64 {
    counts
        .filter(|&c| c > 0)
        .map(|c| {
            let p = c as f64 / n as f64;
            -p * p.ln()
        })
        .sum()
}
