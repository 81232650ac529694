//! Agent specs: how the command line names an agent.
//!
//! | spec | agent |
//! | --- | --- |
//! | `random` | uniformly random legal steps |
//! | `uct:N` | UCT with random playouts, `N` playouts per step |
//! | `alphabeta:D` / `alphabeta:Nms` | alpha-beta on material, `D` whole turns deep / `N` ms per step |
//! | `policy:PATH` | the net's most probable step, no search |
//! | `net:PATH` / `net:PATH:V` / `net:PATH:KEY=VALUE,...` / `PATH` / `PATH@V` | net + search, `V` visits per step |
//! | `export:DIR` / `export:DIR:V` / `export:DIR:KEY=VALUE,...` (or `DIR`, `DIR@V` for an export directory) | an exported TorchScript model + search |
//! | `shipped` / `shipped:V` / `shipped:KEY=VALUE,...` | the game's shipped model (`models/GAME`) + search; where the game is known ([`AgentSpec::parse_for`]) |
//!
//! A net agent searches with the `[search]` of its checkpoint's run (for a model outside a
//! run, the match's settings: in `match` the defaults of [`SearchConfig`]), an exported or
//! shipped one with those in its `model.json`, both as agents play them
//! ([`SearchConfig::for_play`]); `KEY=VALUE` pairs override them by name, e.g.
//! `net:runs/a:visits=200,search=gumbel` (keys of `[search]`; `search` is another name for
//! `kind`, `k` for `considered`). `V` alone is `visits=V`; `PATH@` takes either tail.
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

use crate::config::check::KeyError;
#[cfg(doc)]
use crate::config::search::SearchConfig;
use crate::config::search::SearchOverrides;
use crate::layout::is_export_dir;
use crate::search::run::Budget;

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
    /// An exported model (`checkers-zero export`; also `shipped`) + search.
    Exported {
        /// The export directory (`model.pt` and `model.json`).
        dir: PathBuf,
        /// Search settings over the export's own.
        search: SearchOverrides,
    },
    /// Net + search.
    Net {
        /// Checkpoint directory, run directory or weights file.
        path: PathBuf,
        /// Search settings over its run's (the match's for a model outside a run).
        search: SearchOverrides,
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
         policy:PATH, net:PATH[:VISITS|:KEY=VALUE,...], export:DIR[:VISITS|:KEY=VALUE,...], \
         PATH[@VISITS] or (in match) shipped[:VISITS]"
    )]
    Unknown(String),
    /// A search setting that does not parse or is out of range.
    #[error("agent '{spec}': {source}")]
    BadSearch {
        /// The whole spec.
        spec: String,
        /// What is wrong.
        source: KeyError,
    },
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
    /// The shipped model, where no game says which, or where the game has none.
    #[error("agent '{spec}': {reason}")]
    Shipped {
        /// The whole spec.
        spec: String,
        /// Why it cannot be had.
        reason: String,
    },
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

/// Search overrides from `text`: visits alone (`400`) or `KEY=VALUE,...`; none when absent.
fn overrides(spec: &str, text: Option<&str>) -> Result<SearchOverrides, SpecError> {
    match text {
        None => Ok(SearchOverrides::default()),
        Some(t) if t.contains('=') => {
            SearchOverrides::parse(t).map_err(|source| SpecError::BadSearch {
                spec: spec.to_string(),
                source,
            })
        }
        Some(t) => number(spec, t, "visits", "1..=1000000", |n| {
            (1..=1_000_000).contains(&n)
        })
        .map(SearchOverrides::visits),
    }
}

fn model_path(spec: &str, text: &str) -> Result<PathBuf, SpecError> {
    if text.is_empty() {
        return Err(SpecError::MissingPath(spec.to_string()));
    }
    Ok(PathBuf::from(text))
}

/// A net or exported agent at `path` with the search overrides `tail`; an export when
/// `export` is set or `path` is an export directory.
fn searching_agent(
    spec: &str,
    path: &str,
    tail: Option<&str>,
    export: bool,
) -> Result<AgentSpec, SpecError> {
    let search = overrides(spec, tail)?;
    if export || is_export_dir(Path::new(path)) {
        return Ok(AgentSpec::Exported {
            dir: PathBuf::from(path),
            search,
        });
    }
    Ok(AgentSpec::Net {
        path: model_path(spec, path)?,
        search,
    })
}

fn looks_like_path(text: &str) -> bool {
    text.contains('/') || text.ends_with(".safetensors") || Path::new(text).exists()
}

impl AgentSpec {
    /// Parses a spec for a match of `kind`: as [`AgentSpec::parse`], and `shipped[:...]` is
    /// the game's shipped model, an export agent.
    pub fn parse_for(text: &str, kind: crate::game::GameKind) -> Result<AgentSpec, SpecError> {
        let spec = text.trim();
        let tail = match spec.split_once(':') {
            Some(("shipped", tail)) => Some(tail),
            None if spec == "shipped" => None,
            _ => return AgentSpec::parse(text),
        };
        let dir =
            crate::export::shipped::require_shipped(kind).map_err(|reason| SpecError::Shipped {
                spec: spec.to_string(),
                reason,
            })?;
        Ok(AgentSpec::Exported {
            dir,
            search: overrides(spec, tail)?,
        })
    }

    /// Parses a spec (see the module documentation for the forms).
    pub fn parse(text: &str) -> Result<AgentSpec, SpecError> {
        let spec = text.trim();
        if spec.is_empty() {
            return Err(SpecError::Empty);
        }
        if spec == "shipped" || spec.starts_with("shipped:") {
            return Err(SpecError::Shipped {
                spec: spec.to_string(),
                reason: "the shipped model is the game's: name it where a game is given \
                         (`match --game`), or name the export (`export:models/GAME`)"
                    .into(),
            });
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
                // net:PATH, net:PATH:VISITS or net:PATH:KEY=VALUE,... (after the last `:`).
                let (path, tail) = match rest.rsplit_once(':') {
                    Some((path, t))
                        if t.contains('=')
                            || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())) =>
                    {
                        (path, Some(t))
                    }
                    _ => (rest, None),
                };
                if head == "export" && path.is_empty() {
                    return Err(SpecError::Unknown(spec.to_string()));
                }
                searching_agent(spec, path, tail, head == "export")
            }
            _ => {
                let (path, budget) = match spec.rsplit_once('@') {
                    Some((path, v)) => (path, Some(v)),
                    None => (spec, None),
                };
                if !looks_like_path(path) {
                    return Err(SpecError::Unknown(spec.to_string()));
                }
                searching_agent(spec, path, budget, false)
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

/// `PREFIX:PATH`, then `:V` when only the visits are overridden, else `:KEY=VALUE,...`.
fn write_searching(
    f: &mut fmt::Formatter<'_>,
    prefix: &str,
    path: &Path,
    search: &SearchOverrides,
) -> fmt::Result {
    write!(f, "{prefix}:{}", path.display())?;
    match search.only_visits() {
        _ if search.is_empty() => Ok(()),
        Some(visits) => write!(f, ":{visits}"),
        None => write!(f, ":{search}"),
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
            AgentSpec::Net { path, search } => write_searching(f, "net", path, search),
            AgentSpec::Exported { dir, search } => write_searching(f, "export", dir, search),
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
                    search: SearchOverrides::default(),
                },
            ),
            (
                "net:runs/a:400",
                AgentSpec::Net {
                    path: "runs/a".into(),
                    search: SearchOverrides::visits(400),
                },
            ),
            (
                "net:runs/a:visits=200,search=gumbel",
                AgentSpec::Net {
                    path: "runs/a".into(),
                    search: SearchOverrides::parse("visits=200,kind=gumbel").unwrap(),
                },
            ),
            (
                "export:out/model:c_puct=2",
                AgentSpec::Exported {
                    dir: "out/model".into(),
                    search: SearchOverrides::parse("c_puct=2").unwrap(),
                },
            ),
            (
                "runs/a/checkpoints/step-00000200@800",
                AgentSpec::Net {
                    path: "runs/a/checkpoints/step-00000200".into(),
                    search: SearchOverrides::visits(800),
                },
            ),
            (
                "./run",
                AgentSpec::Net {
                    path: "./run".into(),
                    search: SearchOverrides::default(),
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
        for text in [
            "net:runs/a:visits=0",
            "net:runs/a:search=mcts",
            "runs/a@vists=3",
        ] {
            let e = AgentSpec::parse(text).unwrap_err();
            assert!(matches!(e, SpecError::BadSearch { .. }), "{text}: {e:?}");
        }
        for text in ["policy:", "net:", "net::400"] {
            assert!(
                matches!(AgentSpec::parse(text), Err(SpecError::MissingPath(_))),
                "{text}"
            );
        }
    }
}
