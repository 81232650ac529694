//! The search settings (`[search]` of a run config, `search` of an export's `model.json`,
//! `key=value` overrides in agent specs): one struct, its defaults in one place, its ranges
//! checked on load naming the key. The tree's and the roots' settings are built from it in
//! [`crate::search::setup`] and have no defaults of their own.

use serde::{Deserialize, Serialize};

use super::check::{first_failure, Check, KeyError};

/// Which root search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// Gumbel root (sequential halving, completed-Q policy target): good with few visits.
    #[default]
    Gumbel,
    /// PUCT from the root down; visit counts are the policy target.
    Puct,
}

impl std::fmt::Display for SearchKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SearchKind::Gumbel => "gumbel",
            SearchKind::Puct => "puct",
        })
    }
}

/// Search settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// `gumbel` or `puct` (below a Gumbel root the search is PUCT too).
    pub kind: SearchKind,
    /// Root visits per searched step (self-play: of a full search, the one that makes a
    /// training sample).
    pub visits: u32,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at its parent's value minus this
    /// times the square root of the prior mass already visited.
    pub fpu_reduction: f32,
    /// PUCT: Dirichlet noise concentration at the root of self-play's full searches (0:
    /// none). Agents (match, play, engine) never add noise.
    pub dirichlet_alpha: f32,
    /// PUCT: share of the root prior replaced by that noise.
    pub dirichlet_fraction: f32,
    /// Gumbel: root steps considered (k of Gumbel-top-k).
    pub considered: usize,
    /// Gumbel: σ's visit offset, σ(q) = (c_visit + max visits) · c_scale · q.
    pub c_visit: f32,
    /// Gumbel: σ's scale (with `q_rescale`, mctx's `value_scale`, 0.1 there).
    pub c_scale: f32,
    /// Gumbel: the completed Q-values of the root's steps rescaled by their min and max to
    /// [0, 1] before σ, and unvisited steps valued by the mix of the net's raw value at the
    /// root (mctx's `qtransform_completed_by_mix_value`); off: Q mapped from [-1, 1] to
    /// [0, 1] and the mix taken from the root's mean value.
    #[serde(skip_serializing_if = "is_false")]
    pub q_rescale: bool,
    /// Gumbel: the scale of the Gumbel noise added to the root's log priors (mctx's
    /// `gumbel_scale`). 1 in self-play, where it explores; agents play with
    /// [`SearchConfig::for_play`], which sets it to 0 so that play is deterministic.
    #[serde(skip_serializing_if = "is_one")]
    pub gumbel_scale: f32,
    /// PUCT: KataGo's forced playouts at the root of self-play's full searches, `k` of
    /// `sqrt(k · P · N)` visits forced on each root step, with the policy target pruned of
    /// them (0: off; KataGo uses 2).
    #[serde(skip_serializing_if = "is_zero")]
    pub forced_playouts: f32,
    /// Proven values climb the tree (MCTS-solver): a proven win is played, a proven loss
    /// avoided, and a proven node costs no more net calls.
    #[serde(skip_serializing_if = "is_false")]
    pub solver: bool,
    /// Random playouts run from every leaf the net evaluates, their mean result mixed into
    /// the net's value (AlphaGo's mixed leaf evaluation; 0: off, the net's value alone).
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub rollouts: u32,
    /// With `rollouts`: the playouts' share λ of the leaf value, (1 − λ) · net + λ · mean.
    #[serde(skip_serializing_if = "is_half")]
    pub rollout_weight: f32,
    /// Self-play: KataGo's root policy temperature, the root's priors raised to 1/T (and
    /// normalised) at the start of every self-play search, T > 1 flattening them (1: off).
    /// Agents never temper.
    #[serde(skip_serializing_if = "is_one")]
    pub root_policy_temperature: f32,
}

fn is_zero_u32(x: &u32) -> bool {
    *x == 0
}

fn is_half(x: &f32) -> bool {
    *x == 0.5
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

fn is_one(x: &f32) -> bool {
    *x == 1.0
}

fn is_false(x: &bool) -> bool {
    !*x
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            kind: SearchKind::Gumbel,
            visits: 100,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.25,
            considered: 8,
            c_visit: 50.0,
            c_scale: 1.0,
            q_rescale: false,
            gumbel_scale: 1.0,
            forced_playouts: 0.0,
            solver: false,
            rollouts: 0,
            rollout_weight: 0.5,
            root_policy_temperature: 1.0,
        }
    }
}

impl SearchConfig {
    /// Checks every value's range; `prefix` (e.g. `search.`) is put before the key named.
    pub fn check(&self, prefix: &str) -> Check {
        let unit = |v: f32| (0.0..=1.0).contains(&v);
        let checks: [(&str, bool, &str); 13] = [
            (
                "visits",
                (1..=1_000_000).contains(&self.visits),
                "must be 1..=1000000",
            ),
            ("c_puct", self.c_puct > 0.0, "must be positive"),
            ("fpu_reduction", self.fpu_reduction >= 0.0, "must be >= 0"),
            (
                "dirichlet_alpha",
                self.dirichlet_alpha >= 0.0,
                "must be >= 0",
            ),
            (
                "dirichlet_fraction",
                unit(self.dirichlet_fraction),
                "must be in [0, 1]",
            ),
            ("considered", self.considered >= 2, "must be at least 2"),
            ("c_visit", self.c_visit >= 0.0, "must be >= 0"),
            ("c_scale", self.c_scale > 0.0, "must be positive"),
            ("gumbel_scale", self.gumbel_scale >= 0.0, "must be >= 0"),
            (
                "forced_playouts",
                self.forced_playouts == 0.0
                    || (self.forced_playouts > 0.0 && self.kind == SearchKind::Puct),
                "must be >= 0, and 0 unless kind = \"puct\"",
            ),
            ("rollouts", self.rollouts <= 64, "must be 0..=64"),
            (
                "root_policy_temperature",
                (0.1..=10.0).contains(&self.root_policy_temperature),
                "must be in [0.1, 10]",
            ),
            (
                "rollout_weight",
                unit(self.rollout_weight),
                "must be in [0, 1]",
            ),
        ];
        first_failure(prefix, &checks)
    }

    /// These settings as an agent plays them (match, ratings, play, engine, serve, Python):
    /// no root noise of any kind (Gumbel scale 0, no Dirichlet share, no forced playouts),
    /// so that play is deterministic given the position. Overrides in an agent's spec apply
    /// after this, so `gumbel_scale=1` brings the noise back.
    pub fn for_play(&self) -> SearchConfig {
        SearchConfig {
            gumbel_scale: 0.0,
            dirichlet_fraction: 0.0,
            forced_playouts: 0.0,
            root_policy_temperature: 1.0,
            ..self.clone()
        }
    }

    /// Every setting as `key=value`, space separated, in a fixed order (match headers).
    pub fn describe(&self) -> String {
        format!(
            "kind={} visits={} c_puct={} fpu_reduction={} considered={} c_visit={} \
             c_scale={} q_rescale={} gumbel_scale={} dirichlet_alpha={} \
             dirichlet_fraction={} forced_playouts={} solver={} rollouts={} \
             rollout_weight={} root_policy_temperature={}",
            self.kind,
            self.visits,
            self.c_puct,
            self.fpu_reduction,
            self.considered,
            self.c_visit,
            self.c_scale,
            self.q_rescale,
            self.gumbel_scale,
            self.dirichlet_alpha,
            self.dirichlet_fraction,
            self.forced_playouts,
            self.solver,
            self.rollouts,
            self.rollout_weight,
            self.root_policy_temperature
        )
    }
    /// These settings with `overrides` applied over them, checked.
    pub fn with(&self, overrides: &SearchOverrides) -> Result<SearchConfig, KeyError> {
        let mut table = match toml::Value::try_from(self) {
            Ok(toml::Value::Table(table)) => table,
            _ => unreachable!("a search config serialises to a table"),
        };
        for (key, text) in &overrides.0 {
            let value = if let Ok(n) = text.parse::<i64>() {
                toml::Value::Integer(n)
            } else if let Ok(x) = text.parse::<f64>() {
                toml::Value::Float(x)
            } else if let Ok(b) = text.parse::<bool>() {
                toml::Value::Boolean(b)
            } else {
                toml::Value::String(text.clone())
            };
            table.insert(key.clone(), value);
        }
        let config: SearchConfig = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| KeyError::new(overrides.keys(), e.message().trim()))?;
        config.check("")?;
        Ok(config)
    }
}

/// Search settings named on the command line, `key=value` separated by commas (e.g.
/// `visits=200,kind=gumbel`; `search` is another name for `kind`), applied over a base
/// [`SearchConfig`] with [`SearchConfig::with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchOverrides(Vec<(String, String)>);

impl SearchOverrides {
    /// Parses `key=value,...`, checking each key and value against the default settings.
    pub fn parse(text: &str) -> Result<SearchOverrides, KeyError> {
        let mut pairs = Vec::new();
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(KeyError::new(item, "expected key=value"));
            };
            let key = match key.trim() {
                "search" => "kind",
                "k" => "considered",
                other => other,
            };
            pairs.push((key.to_string(), value.trim().to_string()));
        }
        let overrides = SearchOverrides(pairs);
        SearchConfig::default().with(&overrides)?;
        Ok(overrides)
    }

    /// Only the root visits.
    pub fn visits(visits: u32) -> SearchOverrides {
        SearchOverrides(vec![("visits".into(), visits.to_string())])
    }

    /// The visits when they are all that is overridden.
    pub fn only_visits(&self) -> Option<u32> {
        match self.0.as_slice() {
            [(key, value)] if key == "visits" => value.parse().ok(),
            _ => None,
        }
    }

    /// These overrides and, when `value` is given, `key` set to it (checked when applied,
    /// like a parsed one).
    pub fn and(mut self, key: &str, value: Option<impl std::fmt::Display>) -> SearchOverrides {
        if let Some(value) = value {
            self.0.push((key.to_string(), value.to_string()));
        }
        self
    }

    /// True when nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn keys(&self) -> String {
        let keys: Vec<&str> = self.0.iter().map(|(k, _)| k.as_str()).collect();
        keys.join(",")
    }
}

/// `key=value,...`, which parses back to the same overrides.
impl std::fmt::Display for SearchOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let items: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.write_str(&items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_by_name_and_bad_ones_name_the_key() {
        let o = SearchOverrides::parse("visits=200,search=puct,c_scale=0.5").unwrap();
        let c = SearchConfig::default().with(&o).unwrap();
        assert_eq!((c.visits, c.kind, c.c_scale), (200, SearchKind::Puct, 0.5));
        assert_eq!(SearchOverrides::parse(&o.to_string()).unwrap(), o);
        let built = SearchOverrides::default()
            .and("visits", Some(200))
            .and("c_puct", None::<f32>)
            .and("kind", Some("puct"))
            .and("c_scale", Some(0.5));
        assert_eq!(SearchConfig::default().with(&built).unwrap(), c);
        for (text, key) in [
            ("visits=0", "visits"),
            ("c_scale=0", "c_scale"),
            ("kind=mcts", "kind"),
            ("vists=3", "vists"),
            ("visits", "visits"),
        ] {
            let e = SearchOverrides::parse(text).unwrap_err();
            assert!(e.to_string().contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn the_default_passes_its_own_checks() {
        SearchConfig::default().check("search.").unwrap();
        let bad = SearchConfig {
            considered: 1,
            ..SearchConfig::default()
        };
        assert_eq!(bad.check("search.").unwrap_err().key, "search.considered");
        // Forced playouts are PUCT's: with the Gumbel root they are an error, not ignored.
        let forced = SearchOverrides::parse("kind=puct,forced_playouts=2").unwrap();
        let puct = SearchConfig::default().with(&forced).unwrap();
        assert_eq!((puct.kind, puct.forced_playouts), (SearchKind::Puct, 2.0));
        for text in ["forced_playouts=2", "kind=puct,forced_playouts=-1"] {
            let e = SearchOverrides::parse(text).unwrap_err();
            assert!(e.to_string().contains("forced_playouts"), "{text}: {e}");
        }
        // Off, the key stays out of what is written (a model's `model.json`).
        let text = toml::to_string(&SearchConfig::default()).unwrap();
        assert!(!text.contains("forced_playouts"), "{text}");
        assert!(toml::to_string(&puct)
            .unwrap()
            .contains("forced_playouts = 2"));
    }
}
