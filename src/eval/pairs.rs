//! Paired games and the pentanomial model. A *pair* is two games from the same opening with
//! the seats swapped; it scores 0, ½, 1, 1½ or 2 points for the candidate, and a match on an
//! opening suite is summarised by the counts of those five outcomes (the *pentanomial*).
//! Scoring pairs rather than games removes most of the opening's bias from the variance:
//! an opening that favours one seat gives a win and a loss, one pair scoring 1, not two
//! games far from the mean.
//!
//! **Scale.** As fishtest does, a pair's score is divided by 2 into `a_k = k / 4`
//! (k = 0..4), the mean score per game of the pair. With `N` pairs, counts `n_k` and
//! frequencies `p_k = n_k / N` (a count of 0 is replaced by 0.001, fishtest's
//! regularisation, so that a one-sided record keeps a finite likelihood):
//!
//! - mean score `s = Σ p_k a_k`, per-pair variance `v = Σ p_k (a_k - s)²`;
//! - **Elo** `elo(s)` with the 95% interval `elo(s ± 1.96 sqrt(v / N))`, where
//!   `elo(x) = -400 log10(1/x - 1)` (fishtest's `get_elo` on the pentanomial);
//! - **LLR** of the logistic GSPRT on pairs (fishtest's `LLR_logistic`), H0 `s = s0`
//!   against H1 `s = s1` with `s_i = 1 / (1 + 10^(-elo_i / 400))`: for each hypothesis
//!   the maximum-likelihood distribution with mean `s_i` is
//!   `q_k = p_k / (1 + x (a_k - s_i))`, with `x` the root of the secular equation
//!   `Σ p_k (a_k - s_i) / (1 + x (a_k - s_i)) = 0` in `(-1 / max(a_k - s_i), -1 / min(a_k - s_i))`
//!   (found by bisection; the left side falls with `x`), and
//!   `LLR = N Σ p_k ln(q1_k / q0_k)`. For many pairs it approaches the normal
//!   approximation `N (s1 - s0) (2 s - s0 - s1) / (2 v)`, the trinomial test's formula on
//!   pairs. The decision bounds are Wald's, as for games ([`super::sprt::Sprt::bounds`]).
//!
//! \[project\] A 3-seat game groups its games by *rotation* instead ([`Rotations`]: the 3
//! games of one opening, the candidate in each seat once), nine outcomes `a_k = k / 8`;
//! the same statistics ([`Grouped`]) hold for any number of outcomes.

use serde::{Deserialize, Serialize};

use super::elo::{elo_of_score, expected_score, EloEstimate, Z95};

/// Fishtest's stand-in for an outcome never seen (in pairs), so that logarithms stay finite.
const REGULARISE: f64 = 1e-3;

/// A record of groups of games (a pair, a rotation) by the candidate's outcome: outcome `k`
/// of `K` scores `a_k = k / (K - 1)` per game, the module documentation's model. The
/// statistics are the same for every group size.
pub trait Grouped {
    /// Groups per outcome.
    fn counts(&self) -> &[u64];

    /// Groups counted.
    fn groups(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// Mean score per game (½ with no groups).
    fn score(&self) -> f64 {
        if self.groups() == 0 {
            return 0.5;
        }
        mean(&frequencies(self.counts()).1)
    }

    /// The variance of one group's score per game around the mean.
    fn variance(&self) -> f64 {
        if self.groups() == 0 {
            return 0.0;
        }
        let p = frequencies(self.counts()).1;
        let s = mean(&p);
        let len = p.len();
        p.iter()
            .enumerate()
            .map(|(k, p)| p * (value(k, len) - s).powi(2))
            .sum()
    }

    /// Elo of the candidate with the 95% interval from the groups' variance (`None` with
    /// no groups).
    fn elo(&self) -> Option<EloEstimate> {
        let n = self.groups();
        if n == 0 {
            return None;
        }
        let s = self.score();
        let half = Z95 * (self.variance() / n as f64).sqrt();
        Some(EloEstimate {
            elo: elo_of_score(s),
            low: elo_of_score(s - half),
            high: elo_of_score(s + half),
        })
    }

    /// The log-likelihood ratio of H1 "the candidate is `elo1` stronger" against H0
    /// "`elo0` stronger" (the module documentation's formula); 0 with no groups.
    fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.groups() == 0 {
            return 0.0;
        }
        let (n, p) = frequencies(self.counts());
        n * llr_per_group(&p, expected_score(elo0), expected_score(elo1))
    }
}

/// Counts of the five outcomes of pairs: `counts[k]` pairs scored `k / 2` points (0, ½, 1,
/// 1½, 2) for the candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Pairs per outcome, by the candidate's points times 2.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// The record of the given counts (pairs scoring 0, ½, 1, 1½, 2).
    pub fn new(counts: [u64; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// Adds a pair in which the candidate scored `first` and `second` (each 0, ½ or 1).
    pub fn add(&mut self, first: f64, second: f64) {
        let halves = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[halves] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.groups()
    }
}

impl Grouped for Pentanomial {
    fn counts(&self) -> &[u64] {
        &self.counts
    }
}

/// \[project\] Rotations of a 3-seat game (3-player ReMATCH): the 3 games of one opening in
/// which the candidate plays each seat once, against the same two opponents. The candidate's
/// points over them (a Red win 1, a Team win ½ to each member, a draw ½ to Red and ¼ to each
/// member) run from 0 to 2 in quarters, 1 when all three are equal (each game hands out one
/// point, and each agent plays every role once); `counts[k]` rotations scored `k / 4`
/// points, so outcome `k` scores `k / 8` per game, ½ at equal strength, as a pair's does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rotations {
    /// Rotations per outcome, by the candidate's points times 4.
    pub counts: [u64; 9],
}

impl Rotations {
    /// Adds a rotation in which the candidate scored `points` (0 to 2) over its 3 games.
    pub fn add(&mut self, points: f64) {
        let quarters = (points * 4.0).round().clamp(0.0, 8.0) as usize;
        self.counts[quarters] += 1;
    }
}

impl Grouped for Rotations {
    fn counts(&self) -> &[u64] {
        &self.counts
    }
}

/// The score per game of outcome `k` of `len`: `k / (len - 1)`.
fn value(k: usize, len: usize) -> f64 {
    k as f64 / (len - 1) as f64
}

/// The regularised frequencies of `counts` (zero counts as [`REGULARISE`]) and their total.
fn frequencies(counts: &[u64]) -> (f64, Vec<f64>) {
    let counts: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { REGULARISE } else { c as f64 })
        .collect();
    let total: f64 = counts.iter().sum();
    (total, counts.iter().map(|c| c / total).collect())
}

fn mean(p: &[f64]) -> f64 {
    p.iter()
        .enumerate()
        .map(|(k, q)| q * value(k, p.len()))
        .sum()
}

/// `Σ p_k ln(q1_k / q0_k)` for the frequencies `p` (summing to 1; outcomes of frequency 0
/// add nothing).
fn llr_per_group(p: &[f64], s0: f64, s1: f64) -> f64 {
    let q0 = constrained_mle(p, s0);
    let q1 = constrained_mle(p, s1);
    (0..p.len())
        .filter(|&k| p[k] > 0.0)
        .map(|k| p[k] * (q1[k] / q0[k]).ln())
        .sum()
}

/// The distribution of largest likelihood for the frequencies `p` among those with mean
/// `s` (0 < s < 1): `q_k = p_k / (1 + x (a_k - s))` with `x` the root of the secular
/// equation, by bisection.
fn constrained_mle(p: &[f64], s: f64) -> Vec<f64> {
    let d: Vec<f64> = (0..p.len()).map(|k| value(k, p.len()) - s).collect();
    let secular = |x: f64| -> f64 { (0..p.len()).map(|k| p[k] * d[k] / (1.0 + x * d[k])).sum() };
    let (max, min) = (d[p.len() - 1], d[0]);
    // The open interval where every 1 + x d_k stays positive.
    let (mut low, mut high) = (-1.0 / max, -1.0 / min);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high {
            break;
        }
        if secular(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let x = 0.5 * (low + high);
    (0..p.len()).map(|k| p[k] / (1.0 + x * d[k])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn pairs_are_counted_by_points() {
        let mut p = Pentanomial::default();
        for (a, b) in [
            (0.0, 0.0),
            (0.5, 0.0),
            (1.0, 0.0),
            (0.5, 0.5),
            (1.0, 0.5),
            (1.0, 1.0),
        ] {
            p.add(a, b);
        }
        assert_eq!(p.counts, [1, 1, 2, 1, 1]);
        assert_eq!(p.pairs(), 6);
    }

    #[test]
    fn mean_variance_and_elo_by_hand() {
        // 10 pairs: 1 x 0, 2 x ¼, 4 x ½, 2 x ¾, 1 x 1: s = ½, v = (2·½² + 4·¼²) / 10.
        let p = Pentanomial::new([1, 2, 4, 2, 1]);
        assert!(close(p.score(), 0.5, 1e-12));
        let v = (2.0 * 0.25 + 4.0 * 0.0625) / 10.0;
        assert!(close(p.variance(), v, 1e-12));
        let e = p.elo().unwrap();
        assert!(close(e.elo, 0.0, 1e-9));
        let half = Z95 * (v / 10.0).sqrt();
        assert!(close(
            e.high,
            -400.0 * (1.0 / (0.5 + half) - 1.0).log10(),
            1e-9
        ));
        assert!(
            close(e.low, -e.high, 1e-9),
            "symmetric results: a symmetric interval"
        );
        // An uneven record, 3 x ½, 5 x 1, 2 x 1½ points: the empty 0 and 2 count 0.001 each.
        let p = Pentanomial::new([0, 3, 5, 2, 0]);
        let (w0, w) = (REGULARISE, 10.0 + 2.0 * REGULARISE);
        let s = (3.0 * 0.25 + 5.0 * 0.5 + 2.0 * 0.75 + w0 * 1.0) / w;
        assert!(close(p.score(), s, 1e-12));
        assert!(close(p.elo().unwrap().elo, elo_of_score(s), 1e-9));
        assert!(p.elo().unwrap().elo < 0.0);
        assert_eq!(Pentanomial::default().elo(), None);
    }

    #[test]
    fn llr_matches_the_two_point_closed_form() {
        // Mass only at 0 and 1: the MLE with mean s is (1 - s, s) exactly.
        let p = [0.4, 0.0, 0.0, 0.0, 0.6];
        let (s0, s1) = (0.5, expected_score(30.0));
        let expected = 0.6 * (s1 / s0).ln() + 0.4 * ((1.0 - s1) / (1.0 - s0)).ln();
        assert!(close(llr_per_group(&p, s0, s1), expected, 1e-9));
        // And with fishtest's regularisation of the three empty outcomes, nearly so.
        let llr = Pentanomial::new([40, 0, 0, 0, 60]).llr(0.0, 30.0);
        assert!(close(llr, 100.0 * expected, 0.01), "{llr}");
    }

    #[test]
    fn llr_approaches_the_normal_approximation() {
        let p = Pentanomial::new([30, 200, 500, 230, 40]);
        let (s0, s1) = (0.5, expected_score(5.0));
        let (n, s, v) = (1000.0, p.score(), p.variance());
        let normal = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * v);
        let llr = p.llr(0.0, 5.0);
        assert!(close(llr, normal, 0.02 * normal.abs()), "{llr} vs {normal}");
        // The MLE distributions have the hypothesised means and sum to 1.
        let (_, freq) = frequencies(&p.counts);
        for s in [s0, s1, 0.3, 0.9] {
            let q = constrained_mle(&freq, s);
            assert!(close(q.iter().sum::<f64>(), 1.0, 1e-9));
            assert!(close(mean(&q), s, 1e-9));
        }
    }

    #[test]
    fn rotations_are_counted_by_quarter_points_and_scored_per_game() {
        let mut r = Rotations::default();
        // 2 (all won), 1 (even), 0.75, 0 (all lost) points over the three games.
        for points in [2.0, 1.0, 1.0, 0.75, 0.0] {
            r.add(points);
        }
        assert_eq!(r.counts, [1, 0, 0, 1, 2, 0, 0, 0, 1]);
        assert_eq!(r.groups(), 5);
        // Per game: (1 + 3/8 + 2 x 1/2 + 0) / 5 with the empty outcomes at 0.001 each.
        let w = 5.0 + 5.0 * REGULARISE;
        let empty = REGULARISE * (1.0 + 2.0 + 5.0 + 6.0 + 7.0) / 8.0;
        assert!(close(r.score(), (1.0 + 0.375 + 1.0 + empty) / w, 1e-12));
        // Even rotations (1 point each) are even, and lean to H0 = 0.
        let even = Rotations {
            counts: [0, 0, 2, 5, 20, 5, 2, 0, 0],
        };
        assert!(close(even.elo().unwrap().elo, 0.0, 1e-9));
        assert!(even.llr(0.0, 30.0) < 0.0);
        // A candidate that takes 1.5 points a rotation is far above even.
        let strong = Rotations {
            counts: [0, 0, 0, 2, 4, 10, 20, 10, 4],
        };
        assert!(strong.elo().unwrap().low > 0.0);
        assert!(strong.llr(0.0, 30.0) > 2.94);
    }

    #[test]
    fn symmetric_results_are_even() {
        let p = Pentanomial::new([5, 10, 20, 10, 5]);
        assert!(close(p.elo().unwrap().elo, 0.0, 1e-9));
        assert!(p.llr(0.0, 30.0) < 0.0, "even results lean to H0 = 0");
        assert!(close(p.llr(-30.0, 30.0), 0.0, 1e-9));
    }
}
