//! Agent specs: how the command line names an agent.
//!
//! | spec | agent |
//! | --- | --- |
//! | `random` | uniformly random legal steps |
//! | `uct:N` | UCT with random playouts, `N` playouts per step |
//! | `alphabeta:D` / `alphabeta:Nms` | alpha-beta on material, `D` whole turns deep / `N` ms per step |
//! | `policy:PATH` | the net's most probable step, no search |
//! | `net:PATH` / `net:PATH:V` / `PATH` / `PATH@V` | net + MCTS, `V` visits per step (default 100) |
//! | `export:DIR` / `export:DIR:V` (or `DIR`, `DIR@V` for an export directory) | an exported TorchScript model + MCTS |
//!
//! `PATH` is a checkpoint directory (`.../checkpoints/step-00000200`), a run directory (its
//! newest checkpoint), or a model `.safetensors` file (with its `.json` metadata beside it).
//! A bare `PATH` must contain a `/`, end in `.safetensors` or exist, so that typos of the
//! keywords are errors rather than missing files.
//!
//! To add a kind of agent: a variant of [`AgentSpec`], a branch in [`AgentSpec::parse`] and
//! in its `Display`, and its construction in [`crate::eval::arena`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use crate::layout::is_export_dir;
use crate::search::agents::Budget;

/// Visits per step of a net agent whose spec gives none.
pub const DEFAULT_VISITS: u32 = 100;

/// An agent as named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// Uniformly random legal steps.
    Random,
    /// UCT with random playouts.
    Uct {
        /// Playouts per step.
        playouts: u32,
    },
    /// Alpha-beta on material: a depth in whole turns, or a time per step.
    AlphaBeta {
        /// Depth (`Budget::Count`) or time per step.
        budget: Budget,
    },
    /// The net's most probable legal step.
    Policy {
        /// Checkpoint directory, run directory or weights file.
        path: PathBuf,
    },
    /// An exported model (`checkers-zero export`) + MCTS.
    Exported {
        /// The export directory (`model.pt` and `model.json`).
        dir: PathBuf,
        /// Visits per step.
        visits: u32,
    },
    /// Net + MCTS.
    Net {
        /// Checkpoint directory, run directory or weights file.
        path: PathBuf,
        /// Visits per step.
        visits: u32,
    },
}

/// A spec that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// Nothing given.
    #[error("empty agent spec")]
    Empty,
    /// Neither a known keyword nor something that looks like a path.
    #[error(
        "unknown agent '{0}': expected random, uct:N, alphabeta:D, alphabeta:Nms, \
         policy:PATH, net:PATH[:VISITS] or PATH[@VISITS]"
    )]
    Unknown(String),
    /// A number that is missing, malformed or out of range.
    #[error("agent '{spec}': {what} must be {range}, got '{found}'")]
    BadNumber {
        /// The whole spec.
        spec: String,
        /// What the number is.
        what: &'static str,
        /// The allowed range.
        range: &'static str,
        /// The text found.
        found: String,
    },
    /// A net or policy agent without a path.
    #[error("agent '{0}': a model path is missing")]
    MissingPath(String),
}

fn number(
    spec: &str,
    text: &str,
    what: &'static str,
    range: &'static str,
    ok: impl Fn(u32) -> bool,
) -> Result<u32, SpecError> {
    match text.parse::<u32>() {
        Ok(n) if ok(n) => Ok(n),
        _ => Err(SpecError::BadNumber {
            spec: spec.to_string(),
            what,
            range,
            found: text.to_string(),
        }),
    }
}

fn visits(spec: &str, text: &str) -> Result<u32, SpecError> {
    number(spec, text, "visits", "1..=1000000", |n| {
        (1..=1_000_000).contains(&n)
    })
}

fn model_path(spec: &str, text: &str) -> Result<PathBuf, SpecError> {
    if text.is_empty() {
        return Err(SpecError::MissingPath(spec.to_string()));
    }
    Ok(PathBuf::from(text))
}

fn looks_like_path(text: &str) -> bool {
    text.contains('/') || text.ends_with(".safetensors") || Path::new(text).exists()
}

impl AgentSpec {
    /// Parses a spec (see the module documentation for the forms).
    pub fn parse(text: &str) -> Result<AgentSpec, SpecError> {
        let spec = text.trim();
        if spec.is_empty() {
            return Err(SpecError::Empty);
        }
        if spec == "random" {
            return Ok(AgentSpec::Random);
        }
        let (head, rest) = spec.split_once(':').unwrap_or((spec, ""));
        match head {
            "uct" => Ok(AgentSpec::Uct {
                playouts: number(spec, rest, "playouts", "1..=10000000", |n| {
                    (1..=10_000_000).contains(&n)
                })?,
            }),
            "alphabeta" => {
                let budget = match rest.strip_suffix("ms") {
                    Some(ms) => Budget::Time(Duration::from_millis(number(
                        spec,
                        ms,
                        "time",
                        "1..=3600000 ms",
                        |n| (1..=3_600_000).contains(&n),
                    )? as u64)),
                    None => Budget::Count(number(spec, rest, "depth", "1..=64", |n| {
                        (1..=64).contains(&n)
                    })?),
                };
                Ok(AgentSpec::AlphaBeta { budget })
            }
            "policy" => Ok(AgentSpec::Policy {
                path: model_path(spec, rest)?,
            }),
            "net" | "export" => {
                // net:PATH or net:PATH:VISITS (a last `:` followed by digits is the budget).
                let (path, budget) = match rest.rsplit_once(':') {
                    Some((path, v)) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                        (path, Some(v))
                    }
                    _ => (rest, None),
                };
                let visits = budget.map_or(Ok(DEFAULT_VISITS), |v| visits(spec, v))?;
                if head == "export" || is_export_dir(Path::new(path)) {
                    if path.is_empty() {
                        return Err(SpecError::Unknown(spec.to_string()));
                    }
                    return Ok(AgentSpec::Exported {
                        dir: PathBuf::from(path),
                        visits,
                    });
                }
                Ok(AgentSpec::Net {
                    path: model_path(spec, path)?,
                    visits,
                })
            }
            _ => {
                let (path, budget) = match spec.rsplit_once('@') {
                    Some((path, v)) => (path, Some(v)),
                    None => (spec, None),
                };
                if !looks_like_path(path) {
                    return Err(SpecError::Unknown(spec.to_string()));
                }
                if is_export_dir(Path::new(path)) {
                    return Ok(AgentSpec::Exported {
                        dir: PathBuf::from(path),
                        visits: budget.map_or(Ok(DEFAULT_VISITS), |v| visits(spec, v))?,
                    });
                }
                Ok(AgentSpec::Net {
                    path: model_path(spec, path)?,
                    visits: budget.map_or(Ok(DEFAULT_VISITS), |v| visits(spec, v))?,
                })
            }
        }
    }

    /// The model file or directory the agent needs, if any.
    pub fn model_path(&self) -> Option<&Path> {
        match self {
            AgentSpec::Policy { path } | AgentSpec::Net { path, .. } => Some(path),
            _ => None,
        }
    }
}

impl FromStr for AgentSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentSpec::parse(s)
    }
}

/// The canonical spelling, which parses back to the same spec.
impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => f.write_str("random"),
            AgentSpec::Uct { playouts } => write!(f, "uct:{playouts}"),
            AgentSpec::AlphaBeta {
                budget: Budget::Count(d),
            } => write!(f, "alphabeta:{d}"),
            AgentSpec::AlphaBeta {
                budget: Budget::Time(t),
            } => write!(f, "alphabeta:{}ms", t.as_millis()),
            AgentSpec::Policy { path } => write!(f, "policy:{}", path.display()),
            AgentSpec::Net { path, visits } => write!(f, "net:{}:{visits}", path.display()),
            AgentSpec::Exported { dir, visits } => write!(f, "export:{}:{visits}", dir.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_round_trips() {
        let cases = [
            ("random", AgentSpec::Random),
            ("uct:1000", AgentSpec::Uct { playouts: 1000 }),
            (
                "alphabeta:4",
                AgentSpec::AlphaBeta {
                    budget: Budget::Count(4),
                },
            ),
            (
                "alphabeta:250ms",
                AgentSpec::AlphaBeta {
                    budget: Budget::Time(Duration::from_millis(250)),
                },
            ),
            (
                "policy:runs/a/checkpoints/step-00000200",
                AgentSpec::Policy {
                    path: "runs/a/checkpoints/step-00000200".into(),
                },
            ),
            (
                "net:m.safetensors",
                AgentSpec::Net {
                    path: "m.safetensors".into(),
                    visits: DEFAULT_VISITS,
                },
            ),
            (
                "net:runs/a:400",
                AgentSpec::Net {
                    path: "runs/a".into(),
                    visits: 400,
                },
            ),
            (
                "runs/a/checkpoints/step-00000200@800",
                AgentSpec::Net {
                    path: "runs/a/checkpoints/step-00000200".into(),
                    visits: 800,
                },
            ),
            (
                "./run",
                AgentSpec::Net {
                    path: "./run".into(),
                    visits: DEFAULT_VISITS,
                },
            ),
        ];
        for (text, expected) in cases {
            let spec = AgentSpec::parse(text).unwrap();
            assert_eq!(spec, expected, "{text}");
            assert_eq!(AgentSpec::parse(&spec.to_string()).unwrap(), spec, "{text}");
        }
    }

    #[test]
    fn bad_specs_are_clear_errors() {
        let unknown = AgentSpec::parse("rnadom").unwrap_err();
        assert!(matches!(unknown, SpecError::Unknown(_)));
        assert!(unknown.to_string().contains("uct:N"));
        assert_eq!(AgentSpec::parse("  "), Err(SpecError::Empty));
        for (text, what) in [
            ("uct:", "playouts"),
            ("uct:0", "playouts"),
            ("uct:ten", "playouts"),
            ("alphabeta:0", "depth"),
            ("alphabeta:65", "depth"),
            ("alphabeta:-1", "depth"),
            ("alphabeta:xms", "time"),
            ("net:m.safetensors:0", "visits"),
            ("runs/a@", "visits"),
            ("runs/a@many", "visits"),
        ] {
            match AgentSpec::parse(text) {
                Err(SpecError::BadNumber { what: w, .. }) => assert_eq!(w, what, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        for text in ["policy:", "net:", "net::400"] {
            assert!(
                matches!(AgentSpec::parse(text), Err(SpecError::MissingPath(_))),
                "{text}"
            );
        }
    }
}
