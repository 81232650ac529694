//! The sequential probability ratio test on a match's wins, draws and losses: H0 "the
//! candidate is `elo0` stronger" against H1 "it is `elo1` stronger", with error rates
//! `alpha` (accepting H1 when H0 holds) and `beta` (accepting H0 when H1 holds).
//!
//! The log-likelihood ratio is the generalised SPRT's normal approximation (as used by
//! chess-engine testing frameworks): with `N` games of mean score `s` and per-game score
//! variance `v`, and `s0`, `s1` the expected scores at `elo0`, `elo1`,
//! `LLR = N (s1 - s0) (2 s - s0 - s1) / (2 v)`. The test stops when the LLR leaves
//! `(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))`. \[project\] The statistics include one
//! virtual win, draw and loss: one-sided early results (all wins) then have a finite
//! variance and can still decide the test, but not after a handful of games (where the
//! normal approximation with the observed variance overstates the evidence).
//!
//! On an opening suite the test runs on pairs of games instead ([`Sprt::llr_groups`]): the
//! logistic GSPRT on the pentanomial, with the same bounds (formula in [`super::pairs`]); a
//! 3-seat game runs it on rotations.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::elo::{expected_score, Wdl};
use super::pairs::Grouped;

/// The test's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1 (greater than `elo0`).
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// The test's state after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// Not decided yet.
    Continue,
    /// H0 accepted: the candidate is not `elo1` stronger.
    AcceptH0,
    /// H1 accepted: the candidate is stronger by `elo1` or more.
    AcceptH1,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::Continue => "undecided",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        })
    }
}

/// A malformed `--sprt` argument.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("bad SPRT '{text}': {reason} (expected elo0,elo1,alpha,beta, e.g. 0,10,0.05,0.05)")]
pub struct SprtError {
    text: String,
    reason: String,
}

impl Sprt {
    /// Checks the parameters: `elo0 < elo1`, both finite, `alpha`, `beta` in (0, ½).
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        let error = |reason: &str| SprtError {
            text: format!("{elo0},{elo1},{alpha},{beta}"),
            reason: reason.into(),
        };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(error("elo0 must be below elo1"));
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(error("alpha and beta must be in (0, 0.5)"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower and upper LLR bounds: `ln(beta / (1 - alpha))`, `ln((1 - beta) / alpha)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of H1 against H0 for the candidate's results `wdl`.
    pub fn llr(&self, wdl: &Wdl) -> f64 {
        let stats = Wdl {
            wins: wdl.wins + 1.0,
            draws: wdl.draws + 1.0,
            losses: wdl.losses + 1.0,
        };
        let (n, s, v) = (stats.games(), stats.score(), stats.variance());
        if v <= 0.0 {
            return 0.0;
        }
        let s0 = expected_score(self.elo0);
        let s1 = expected_score(self.elo1);
        n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * v)
    }

    /// The decision for the candidate's results `wdl`.
    pub fn decide(&self, wdl: &Wdl) -> SprtDecision {
        self.decision(self.llr(wdl))
    }

    /// The log-likelihood ratio of H1 against H0 for the candidate's groups of games (pairs
    /// or rotations): the logistic GSPRT on their outcomes ([`Grouped::llr`]).
    pub fn llr_groups(&self, groups: &impl Grouped) -> f64 {
        groups.llr(self.elo0, self.elo1)
    }

    /// The decision for the candidate's groups of games (the same bounds as for games).
    pub fn decide_groups(&self, groups: &impl Grouped) -> SprtDecision {
        self.decision(self.llr_groups(groups))
    }

    /// The decision at log-likelihood ratio `llr`.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        let (low, high) = self.bounds();
        if llr >= high {
            SprtDecision::AcceptH1
        } else if llr <= low {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

impl FromStr for Sprt {
    type Err = SprtError;
    /// Parses `elo0,elo1,alpha,beta`.
    fn from_str(text: &str) -> Result<Sprt, SprtError> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let error = |reason: String| SprtError {
            text: text.to_string(),
            reason,
        };
        if parts.len() != 4 {
            return Err(error(format!("{} values", parts.len())));
        }
        let mut v = [0.0; 4];
        for (slot, part) in v.iter_mut().zip(&parts) {
            *slot = part
                .parse()
                .map_err(|_| error(format!("'{part}' is not a number")))?;
        }
        Sprt::new(v[0], v[1], v[2], v[3]).map_err(|e| error(e.reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::pairs::Pentanomial;

    fn wdl(wins: f64, draws: f64, losses: f64) -> Wdl {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn bounds_are_walds() {
        let t: Sprt = "0,10,0.05,0.05".parse().unwrap();
        let (low, high) = t.bounds();
        assert!((low - (-2.944_438_979)).abs() < 1e-8);
        assert!((high - 2.944_438_979).abs() < 1e-8);
        let t = Sprt::new(-5.0, 5.0, 0.01, 0.1).unwrap();
        let (low, high) = t.bounds();
        assert!((low - (0.1f64 / 0.99).ln()).abs() < 1e-12);
        assert!((high - 90f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn llr_by_hand() {
        // 29 wins, 39 draws, 29 losses (+1 virtual each): s = 0.5, v = 60 * 0.25 / 100.
        let t = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        let s0 = 0.5;
        let s1 = 1.0 / (1.0 + 10f64.powf(-20.0 / 400.0));
        let expected = 100.0 * (s1 - s0) * (1.0 - s0 - s1) / (2.0 * 0.15);
        assert!((t.llr(&wdl(29.0, 39.0, 29.0)) - expected).abs() < 1e-12);
        assert!(
            expected < 0.0,
            "an even score leans to H0 when elo1 > 0 = elo0"
        );
    }

    #[test]
    fn decisions_cross_the_bounds() {
        let t = Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap();
        let (low, high) = t.bounds();
        // A strong candidate: 70% wins. Find the first N where H1 is accepted.
        let mut first = None;
        for n in 1..2000 {
            let n = n as f64;
            let w = wdl((0.7 * n).round(), 0.0, n - (0.7 * n).round());
            let llr = t.llr(&w);
            match t.decide(&w) {
                SprtDecision::AcceptH1 => {
                    assert!(llr >= high);
                    first = Some(n);
                    break;
                }
                SprtDecision::AcceptH0 => panic!("a 70% scorer is not H0 at n={n}"),
                SprtDecision::Continue => assert!(llr > low && llr < high),
            }
        }
        let first = first.expect("decided");
        assert!(first > 5.0 && first < 200.0, "{first}");
        // An even candidate is eventually H0.
        assert_eq!(t.decide(&wdl(500.0, 0.0, 500.0)), SprtDecision::AcceptH0);
        assert_eq!(t.decide(&wdl(1.0, 0.0, 1.0)), SprtDecision::Continue);
        // All wins (finite thanks to the virtual results) decide too, but not at once.
        assert_eq!(t.decide(&wdl(40.0, 0.0, 0.0)), SprtDecision::AcceptH1);
        assert_eq!(t.decide(&wdl(4.0, 0.0, 0.0)), SprtDecision::Continue);
    }

    #[test]
    fn pair_records_decide() {
        let t = Sprt::new(0.0, 30.0, 0.05, 0.05).unwrap();
        let first = |counts: fn(u64) -> [u64; 5], want: SprtDecision| {
            (1..1000)
                .find(|&n| t.decide_groups(&Pentanomial::new(counts(n))) != SprtDecision::Continue)
                .map(|n| (n, t.decide_groups(&Pentanomial::new(counts(n))) == want))
        };
        // All pairs won twice: H1 after enough pairs (about ln(19) / ln(s1 / ½) = 36), not
        // at once; all lost twice: H0 sooner (a loss is a stronger hint against H1).
        let (n, right) = first(|n| [0, 0, 0, 0, n], SprtDecision::AcceptH1).unwrap();
        assert!(right && (30..=40).contains(&n), "{n}");
        let (n, right) = first(|n| [n, 0, 0, 0, 0], SprtDecision::AcceptH0).unwrap();
        assert!(right && (2..=40).contains(&n), "{n}");
        // Even pairs (every pair a win and a loss) accept H0 = 0 eventually.
        let (_, right) = first(|n| [0, 0, n, 0, 0], SprtDecision::AcceptH0).unwrap();
        assert!(right);
        assert_eq!(
            t.llr_groups(&Pentanomial::new([3, 1, 0, 2, 7])),
            Pentanomial::new([3, 1, 0, 2, 7]).llr(0.0, 30.0)
        );
    }

    /// Rotations of a toy 3-player game: Red wins 60%, draws 6%, the Team 34% between equal
    /// agents; the candidate shifts `edge` from the other side to its own (as a Team member
    /// its share of a Team win is ½). Returns its points over one rotation.
    fn toy_rotation(rng: &mut impl rand::Rng, edge: f64) -> f64 {
        let game = |rng: &mut dyn rand::RngCore, red: f64| -> (f64, f64) {
            let u: f64 = rand::Rng::gen(rng);
            match u {
                u if u < red => (1.0, 0.0),
                u if u < red + 0.06 => (0.5, 0.25),
                _ => (0.0, 0.5),
            }
        };
        let as_red = game(rng, 0.6 + edge).0;
        let as_team: f64 = (0..2).map(|_| game(rng, 0.6 - edge).1).sum();
        as_red + as_team
    }

    #[test]
    fn the_rotation_sprt_keeps_its_error_rates_on_a_toy_game() {
        use rand::SeedableRng;
        let t = Sprt::new(0.0, 30.0, 0.05, 0.05).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        // The share of trials that accept H1 (each up to 600 rotations).
        let mut accept_h1 = |edge: f64, trials: usize| -> f64 {
            let mut h1 = 0;
            for _ in 0..trials {
                let mut r = crate::eval::pairs::Rotations::default();
                for _ in 0..600 {
                    r.add(toy_rotation(&mut rng, edge));
                    match t.decide_groups(&r) {
                        SprtDecision::Continue => continue,
                        d => {
                            h1 += usize::from(d == SprtDecision::AcceptH1);
                            break;
                        }
                    }
                }
            }
            h1 as f64 / trials as f64
        };
        // Equal agents: H1 about as rarely as alpha (5%) allows.
        let equal = accept_h1(0.0, 200);
        assert!(equal <= 0.1, "H1 accepted in {equal} of equal trials");
        // A candidate worth 0.2 points a rotation (0.6 a game, about +70 Elo): H1 nearly
        // always.
        let strong = accept_h1(0.1, 100);
        assert!(
            strong >= 0.9,
            "H1 accepted in only {strong} of strong trials"
        );
    }

    #[test]
    fn bad_parameters_are_errors() {
        for text in [
            "0,10,0.05",
            "10,0,0.05,0.05",
            "0,10,0,0.05",
            "0,10,0.05,x",
            "",
        ] {
            assert!(text.parse::<Sprt>().is_err(), "{text}");
        }
    }
}
