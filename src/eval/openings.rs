//! Opening suites: files of distinct, undecided positions that matches start from
//! (`match --openings FILE`, ratings, `bench-learning`), each opening played twice with the
//! seats swapped (three times, every role once, in 3-player ReMATCH).
//!
//! **File.** One position per line in the project notation (`docs/notation.md`); lines
//! starting with `#` are comments, blank lines are skipped. A `# game: NAME` line before
//! the first position names the game (ReMATCH's 2- and 3-player positions read alike, so
//! the name decides); other comments give the command that rebuilt the file and the counts.
//!
//! **Generation** (`checkers-zero openings`): from the start position, `turns` uniformly
//! random whole turns (seeded), keeping each position not seen before (by its Zobrist
//! hash) and not finished, and dropping those a search already calls decided
//! ([`DecidedCheck`], [`Balance`]), until `count` are kept. Candidates are drawn in batches
//! and checked in parallel, kept in the order drawn, so the file depends only on the
//! arguments.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;

use super::EvalError;
use crate::config::decided::DecidedCheck;
use crate::game::{GameKind, GameState, RulesConfig};
use crate::search::agents::Balance;
use crate::selfplay::record::GameRecord;
use crate::with_game;

/// The comment that names a suite's game.
const GAME_PREFIX: &str = "# game:";

/// Candidate openings drawn before each parallel check.
const BATCH: usize = 64;

/// Draws allowed per opening asked for before generation gives up.
const DRAWS_PER_OPENING: usize = 200;

/// The openings of a suite a match uses: from `offset` on, in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningRange {
    /// The suite.
    pub suite: Arc<OpeningSuite>,
    /// The first opening used (0: the suite's first).
    pub offset: usize,
}

/// A suite read from a file: its game and positions in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningSuite {
    /// The game the suite is for.
    pub kind: GameKind,
    /// The file it was read from.
    pub path: PathBuf,
    /// The positions, in the notation, in file order.
    pub positions: Vec<String>,
}

fn file_error(path: &Path, reason: impl ToString) -> EvalError {
    EvalError::File {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

impl OpeningSuite {
    /// Reads the suite at `path` for `kind`; errors name the line, and a suite of another
    /// game is refused.
    pub fn read(path: &Path, kind: GameKind) -> Result<OpeningSuite, EvalError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| file_error(path, format!("cannot read the opening suite: {e}")))?;
        OpeningSuite::parse(&text, path, kind)
    }

    /// Parses suite text (read from `path`, for messages) for `kind`.
    pub fn parse(text: &str, path: &Path, kind: GameKind) -> Result<OpeningSuite, EvalError> {
        let mut game: Option<GameKind> = None;
        let mut positions = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            let at_line = |reason: String| file_error(path, format!("line {}: {reason}", i + 1));
            if let Some(name) = line.strip_prefix(GAME_PREFIX) {
                let named: GameKind = name.trim().parse().map_err(|e| at_line(format!("{e}")))?;
                if named != kind {
                    return Err(file_error(
                        path,
                        format!("an opening suite for {named}, not for {kind}"),
                    ));
                }
                game = Some(named);
            } else if line.is_empty() || line.starts_with('#') {
                continue;
            } else if game.is_none() {
                return Err(at_line(format!(
                    "a position before the '{GAME_PREFIX} NAME' line that names the suite's game"
                )));
            } else {
                check_opening(kind, line).map_err(at_line)?;
                positions.push(line.to_string());
            }
        }
        if positions.is_empty() {
            return Err(file_error(path, "the opening suite has no positions"));
        }
        Ok(OpeningSuite {
            kind,
            path: path.to_path_buf(),
            positions,
        })
    }

    /// The number of openings.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the suite is empty (never, once read).
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// Checks that `text` is a position of `kind` whose game is not over.
fn check_opening(kind: GameKind, text: &str) -> Result<(), String> {
    with_game!(kind, S => {
        let state = S::from_notation(kind, text, RulesConfig::default())
            .map_err(|e| format!("not a {kind} position: {e}"))?;
        if state.outcome().is_some() {
            return Err("the game is already over in this position".into());
        }
        Ok(())
    })
}

/// The suite of `kind` shipped in the repository, `openings/<game>.txt`: looked for in the
/// working directory, then in the source tree this binary was built from; an error naming
/// both places, and the flags to pass instead, when neither has it.
pub fn default_suite(kind: GameKind) -> Result<PathBuf, EvalError> {
    let name = format!("openings/{kind}.txt");
    let here = PathBuf::from(&name);
    if here.is_file() {
        return Ok(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(&name);
    if built.is_file() {
        return Ok(built);
    }
    Err(EvalError::Settings(format!(
        "no opening suite for {kind}: neither {name} nor {} exists; pass --openings FILE \
         to use another suite, or --random-openings to open games with random turns",
        built.display()
    )))
}

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct SuitePlan {
    /// The game.
    pub kind: GameKind,
    /// Random whole turns from the start.
    pub turns: u32,
    /// Openings to keep.
    pub count: usize,
    /// How decided positions are found.
    pub check: DecidedCheck,
    /// Seed of the random turns.
    pub seed: u64,
}

/// A generated suite and what was thrown away on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedSuite {
    /// The kept positions, in the order drawn.
    pub positions: Vec<String>,
    /// Random openings drawn.
    pub drawn: u64,
    /// Drawn positions seen before.
    pub repeated: u64,
    /// Drawn games over before the last turn.
    pub finished: u64,
    /// Distinct positions the check called decided.
    pub decided: u64,
}

/// Generates a suite (the module documentation says how); an error in words when too few
/// positions qualify.
pub fn generate_suite(plan: &SuitePlan) -> Result<GeneratedSuite, String> {
    with_game!(plan.kind, S => generate_in::<S>(plan))
}

fn generate_in<S: GameState>(plan: &SuitePlan) -> Result<GeneratedSuite, String> {
    let rules = RulesConfig::default();
    let mut rng = StdRng::seed_from_u64(plan.seed);
    let mut seen = HashSet::new();
    let balance = Balance::new(&S::start(plan.kind, rules), plan.check);
    let mut out = GeneratedSuite {
        positions: Vec::new(),
        drawn: 0,
        repeated: 0,
        finished: 0,
        decided: 0,
    };
    let limit = (plan.count.max(1) * DRAWS_PER_OPENING) as u64;
    while out.positions.len() < plan.count {
        if out.drawn >= limit {
            return Err(format!(
                "only {} undecided distinct {} positions after {} random openings \
                 (--turns {}); use more --turns or a smaller --count",
                out.positions.len(),
                plan.kind,
                out.drawn,
                plan.turns
            ));
        }
        // No more candidates than openings still needed: every one drawn is accounted for.
        let wanted = BATCH.min(plan.count - out.positions.len());
        let mut batch: Vec<S> = Vec::new();
        while batch.len() < wanted && out.drawn < limit {
            out.drawn += 1;
            let mut state = S::start(plan.kind, rules);
            let mut record = GameRecord::new(&state, rules, 0, 0);
            let played = record.play_random_turns(&mut state, plan.turns, &mut rng);
            if played < plan.turns || state.outcome().is_some() {
                out.finished += 1;
            } else if !seen.insert(state.position_hash()) {
                out.repeated += 1;
            } else {
                batch.push(state);
            }
        }
        let decided: Vec<bool> = batch.par_iter().map(|s| balance.decided(s)).collect();
        for (state, decided) in batch.iter().zip(decided) {
            if decided {
                out.decided += 1;
            } else {
                out.positions.push(state.to_notation());
            }
        }
    }
    Ok(out)
}

/// The suite file's text: the header comments (game, the command that rebuilds it, the
/// counts and the check) and one position per line.
pub fn suite_text(plan: &SuitePlan, suite: &GeneratedSuite, command: &str) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "# checkers-zero opening suite (docs/evaluation.md)");
    let _ = writeln!(text, "{GAME_PREFIX} {}", plan.kind);
    let _ = writeln!(text, "# rebuild: {command}");
    let _ = writeln!(
        text,
        "# {} openings of {} random whole turns (seed {}): {} drawn, {} repeated, \
         {} finished, {} dropped as decided by {}",
        suite.positions.len(),
        plan.turns,
        plan.seed,
        suite.drawn,
        suite.repeated,
        suite.finished,
        suite.decided,
        plan.check
    );
    for position in &suite.positions {
        let _ = writeln!(text, "{position}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const REMATCH_START: &str = "white a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W";

    fn parse(text: &str, kind: GameKind) -> Result<OpeningSuite, String> {
        OpeningSuite::parse(text, Path::new("suite.txt"), kind).map_err(|e| e.to_string())
    }

    #[test]
    fn reader_skips_comments_and_names_bad_lines() {
        let text = format!("# a suite\n{GAME_PREFIX} rematch\n\n  # more\n{REMATCH_START}\n");
        let suite = parse(&text, GameKind::Rematch).unwrap();
        assert_eq!(suite.positions, vec![REMATCH_START.to_string()]);
        assert_eq!(suite.len(), 1);
        let bad = format!("{GAME_PREFIX} rematch\n{REMATCH_START}\nwhite a1:Q\n");
        let error = parse(&bad, GameKind::Rematch).unwrap_err();
        assert!(
            error.starts_with("suite.txt: line 3: not a rematch position"),
            "{error}"
        );
        let headless = parse(REMATCH_START, GameKind::Rematch).unwrap_err();
        assert!(headless.contains("line 1: a position before the '# game: NAME' line"));
        let empty = parse("# game: rematch\n# nothing\n", GameKind::Rematch).unwrap_err();
        assert!(empty.contains("has no positions"), "{empty}");
        let unknown = parse("# game: chess\n", GameKind::Rematch).unwrap_err();
        assert!(
            unknown.contains("line 1: unknown game 'chess'"),
            "{unknown}"
        );
    }

    #[test]
    fn reader_refuses_another_games_suite() {
        let text = format!("{GAME_PREFIX} rematch\n{REMATCH_START}\n");
        let error = parse(&text, GameKind::Rematch3).unwrap_err();
        assert_eq!(
            error,
            "suite.txt: an opening suite for rematch, not for rematch3"
        );
        // Without the header, a ReMATCH position is no Eximo position.
        let text = format!("{GAME_PREFIX} eximo\n{REMATCH_START}\n");
        let error = parse(&text, GameKind::Eximo).unwrap_err();
        assert!(error.contains("line 2: not a eximo position"), "{error}");
    }

    #[test]
    fn generated_openings_are_distinct_legal_unfinished_and_reproducible() {
        let plan = SuitePlan {
            kind: GameKind::Rematch,
            turns: 4,
            count: 12,
            check: DecidedCheck::AlphaBeta {
                depth: 1,
                margin: 1.0,
            },
            seed: 7,
        };
        let suite = generate_suite(&plan).unwrap();
        assert_eq!(suite.positions.len(), 12);
        assert_eq!(
            generate_suite(&plan).unwrap(),
            suite,
            "the seed decides the suite"
        );
        let other = generate_suite(&SuitePlan {
            seed: 8,
            ..plan.clone()
        })
        .unwrap();
        assert_ne!(other.positions, suite.positions);
        let text = suite_text(&plan, &suite, "checkers-zero openings ...");
        let read = parse(&text, GameKind::Rematch).unwrap();
        assert_eq!(
            read.positions, suite.positions,
            "what is written reads back"
        );
        let mut hashes = HashSet::new();
        let start = crate::game::rematch::Rematch::start(GameKind::Rematch, RulesConfig::default());
        let balance = Balance::new(&start, plan.check);
        for text in &suite.positions {
            let state = crate::game::rematch::Rematch::from_notation(
                GameKind::Rematch,
                text,
                RulesConfig::default(),
            )
            .unwrap();
            assert!(state.outcome().is_none() && !state.turn_in_progress());
            assert!(hashes.insert(state.position_hash()), "{text} twice");
            assert!(!balance.decided(&state), "{text} is decided");
        }
        assert_eq!(
            suite.drawn,
            12 + suite.repeated + suite.finished + suite.decided,
            "every draw is accounted for"
        );
    }

    #[test]
    fn shipped_suites_read_and_hold_at_least_500_distinct_openings() {
        for kind in GameKind::ALL {
            let path = default_suite(kind).unwrap();
            let suite = OpeningSuite::read(&path, kind).unwrap();
            let distinct: HashSet<u64> = suite
                .positions
                .iter()
                .map(|text| {
                    with_game!(kind, S => S::from_notation(kind, text, RulesConfig::default())
                        .unwrap()
                        .position_hash())
                })
                .collect();
            assert!(distinct.len() >= 500, "{kind}: {}", distinct.len());
            assert_eq!(distinct.len(), suite.len(), "{kind}: no repeats");
        }
    }

    #[test]
    fn too_few_positions_is_an_error_in_words() {
        // ReMATCH has 7 distinct positions after one turn.
        let plan = SuitePlan {
            kind: GameKind::Rematch,
            turns: 1,
            count: 8,
            check: DecidedCheck::None,
            seed: 1,
        };
        let error = generate_suite(&plan).unwrap_err().to_string();
        assert_eq!(
            error,
            "only 7 undecided distinct rematch positions after 1600 random openings \
             (--turns 1); use more --turns or a smaller --count"
        );
    }
}
