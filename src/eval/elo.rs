//! Elo: the logistic model `E = 1 / (1 + 10^(-d/400))` between a rating difference `d` and
//! an expected score `E`; a head-to-head estimate with a 95% interval, and a
//! maximum-likelihood solver for many players.

use serde::{Deserialize, Serialize};

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

const K: f64 = std::f64::consts::LN_10 / 400.0;

/// Expected score of a player `diff` Elo above its opponent.
pub fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

/// The Elo difference that gives expected score `score` (±infinity at 1 and 0).
pub fn elo_of_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Wins, draws and losses of one player against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Wdl {
    /// Wins.
    pub wins: f64,
    /// Draws.
    pub draws: f64,
    /// Losses.
    pub losses: f64,
}

impl Wdl {
    /// Games counted.
    pub fn games(&self) -> f64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (½ with no games).
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0.0 {
            0.5
        } else {
            (self.wins + 0.5 * self.draws) / n
        }
    }

    /// The variance of one game's score (1, ½ or 0) around the mean.
    pub fn variance(&self) -> f64 {
        let n = self.games();
        if n == 0.0 {
            return 0.0;
        }
        let s = self.score();
        (self.wins * (1.0 - s).powi(2) + self.draws * (0.5 - s).powi(2) + self.losses * s * s) / n
    }

    /// Adds one game scored `score` (1, ½ or 0; anything else counts in proportion).
    pub fn add(&mut self, score: f64) {
        if score >= 1.0 {
            self.wins += 1.0;
        } else if score <= 0.0 {
            self.losses += 1.0;
        } else if score == 0.5 {
            self.draws += 1.0;
        } else {
            self.wins += score;
            self.losses += 1.0 - score;
        }
    }
}

/// An Elo estimate with its 95% interval (bounds may be infinite; JSON writes them as
/// `"+inf"` and `"-inf"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// The point estimate.
    #[serde(with = "maybe_infinite")]
    pub elo: f64,
    /// Lower bound of the 95% interval.
    #[serde(with = "maybe_infinite")]
    pub low: f64,
    /// Upper bound of the 95% interval.
    #[serde(with = "maybe_infinite")]
    pub high: f64,
}

/// A number that may be infinite, as JSON: finite numbers as numbers, the infinities as
/// the strings `"+inf"` and `"-inf"` (JSON has no infinity).
mod maybe_infinite {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, out: S) -> Result<S::Ok, S::Error> {
        match *x {
            x if x.is_finite() => out.serialize_f64(x),
            x if x > 0.0 => out.serialize_str("+inf"),
            _ => out.serialize_str("-inf"),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumberOrText {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<f64, D::Error> {
        match NumberOrText::deserialize(input)? {
            NumberOrText::Number(x) => Ok(x),
            NumberOrText::Text(t) if t == "+inf" => Ok(f64::INFINITY),
            NumberOrText::Text(t) if t == "-inf" => Ok(f64::NEG_INFINITY),
            NumberOrText::Text(t) => Err(D::Error::custom(format!(
                "'{t}' is not an Elo (a number, \"+inf\" or \"-inf\")"
            ))),
        }
    }
}

impl EloEstimate {
    /// Half the width of the interval (infinite when a bound is).
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// The Elo difference of a player with results `wdl` against one opponent, with a 95%
/// interval: a Wilson-style score interval on the mean score using the observed per-game
/// variance `v` of wins, draws and losses (`centre = (s + z²/2n) / (1 + z²/n)`,
/// `half = z sqrt(v/n + z²/4n²) / (1 + z²/n)`), mapped through the logistic curve. For many
/// games it is the normal interval `s ± z sqrt(v/n)`; unlike it, a clean sweep still gets a
/// finite lower bound.
pub fn head_to_head(wdl: &Wdl) -> EloEstimate {
    let n = wdl.games();
    let s = wdl.score();
    if n == 0.0 {
        return EloEstimate {
            elo: 0.0,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
    }
    let z2 = Z95 * Z95;
    let shrink = 1.0 + z2 / n;
    let centre = (s + z2 / (2.0 * n)) / shrink;
    let half = Z95 * (wdl.variance() / n + z2 / (4.0 * n * n)).sqrt() / shrink;
    EloEstimate {
        elo: elo_of_score(s),
        low: elo_of_score(centre - half),
        high: elo_of_score(centre + half),
    }
}

/// Games between two players: `score` is what `a` scored in `games` games against `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairGames {
    /// One player.
    pub a: usize,
    /// The other.
    pub b: usize,
    /// Games played.
    pub games: f64,
    /// `a`'s total score (wins + ½ draws).
    pub score: f64,
}

/// Why the solver found no ratings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EloError {
    /// A player index beyond the player count, or no players.
    #[error("bad input: {0}")]
    Input(String),
    /// Some players are not connected to the anchor by games.
    #[error("player {0} is not connected to the anchor by any chain of games")]
    Disconnected(usize),
    /// Perfect scores make some rating infinite; add a prior.
    #[error("the ratings have no finite maximum (a player won or lost every game); use a prior")]
    Unbounded,
}

/// Ratings from [`solve`]: Elo relative to the anchor (0) and 95% intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// Per player: the estimate (the anchor's is exactly 0 with a zero-width interval).
    pub players: Vec<EloEstimate>,
}

/// Maximum-likelihood Elo of `players` players from pairwise results (draws count as half a
/// win and half a loss), with `anchor` fixed at 0. `prior` adds that many virtual draws to
/// every pair that met, which keeps perfect scores finite (0 for the plain MLE). Intervals
/// are ±1.96 standard errors from the inverse of the observed information (relative to the
/// anchor). Newton's method; converges in a few iterations.
pub fn solve(
    players: usize,
    games: &[PairGames],
    anchor: usize,
    prior: f64,
) -> Result<Ratings, EloError> {
    if players == 0 || anchor >= players {
        return Err(EloError::Input(format!(
            "anchor {anchor} with {players} players"
        )));
    }
    let pairs = with_prior(checked_pairs(players, games)?, prior);
    check_connected(players, &pairs, anchor)?;
    // Free variables: every player but the anchor.
    let index: Vec<Option<usize>> = (0..players)
        .scan(0, |next, p| {
            Some(if p == anchor {
                None
            } else {
                *next += 1;
                Some(*next - 1)
            })
        })
        .collect();
    let m = players - 1;
    let mut r = vec![0.0; players];
    for _ in 0..200 {
        let (grad, info) = gradient_and_information(&r, &pairs, &index, m);
        let step = solve_linear(info, grad.clone()).ok_or(EloError::Unbounded)?;
        let mut largest: f64 = 0.0;
        for p in 0..players {
            if let Some(i) = index[p] {
                // Damped: at most 400 Elo per iteration keeps Newton stable far from the optimum.
                let s = step[i].clamp(-400.0, 400.0);
                r[p] += s;
                largest = largest.max(s.abs());
            }
        }
        if r.iter().any(|x| x.abs() > 20_000.0) {
            return Err(EloError::Unbounded);
        }
        if largest < 1e-9 {
            return with_intervals(&r, &pairs, &index);
        }
    }
    Err(EloError::Unbounded)
}

/// The pairs with games, after checking every pair names two players and a score within
/// its games.
fn checked_pairs(players: usize, games: &[PairGames]) -> Result<Vec<PairGames>, EloError> {
    let mut pairs = Vec::new();
    for g in games {
        if g.a >= players || g.b >= players || g.a == g.b {
            return Err(EloError::Input(format!("pair {}-{}", g.a, g.b)));
        }
        if !(g.games >= 0.0 && (0.0..=g.games).contains(&g.score)) {
            return Err(EloError::Input(format!(
                "score {} in {} games",
                g.score, g.games
            )));
        }
        if g.games > 0.0 {
            pairs.push(*g);
        }
    }
    Ok(pairs)
}

/// `pairs` plus `prior` virtual draws for every two players that met.
fn with_prior(mut pairs: Vec<PairGames>, prior: f64) -> Vec<PairGames> {
    if prior > 0.0 {
        let mut met: Vec<(usize, usize)> =
            pairs.iter().map(|g| (g.a.min(g.b), g.a.max(g.b))).collect();
        met.sort_unstable();
        met.dedup();
        pairs.extend(met.into_iter().map(|(a, b)| PairGames {
            a,
            b,
            games: prior,
            score: prior / 2.0,
        }));
    }
    pairs
}

/// The ratings `r` with 95% intervals from the inverse of the observed information.
fn with_intervals(
    r: &[f64],
    pairs: &[PairGames],
    index: &[Option<usize>],
) -> Result<Ratings, EloError> {
    let (_, info) = gradient_and_information(r, pairs, index, r.len() - 1);
    let cov = invert(info).ok_or(EloError::Unbounded)?;
    let players = (0..r.len())
        .map(|p| {
            let margin = index[p].map_or(0.0, |i| Z95 * cov[i][i].max(0.0).sqrt());
            EloEstimate {
                elo: r[p],
                low: r[p] - margin,
                high: r[p] + margin,
            }
        })
        .collect();
    Ok(Ratings { players })
}

/// The log-likelihood's gradient and the observed information (negative Hessian) over the
/// free players, in Elo units.
fn gradient_and_information(
    r: &[f64],
    pairs: &[PairGames],
    index: &[Option<usize>],
    m: usize,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut grad = vec![0.0; m];
    let mut info = vec![vec![0.0; m]; m];
    for g in pairs {
        let p = expected_score(r[g.a] - r[g.b]);
        let d = K * (g.score - g.games * p);
        let h = K * K * g.games * p * (1.0 - p);
        let (ia, ib) = (index[g.a], index[g.b]);
        if let Some(i) = ia {
            grad[i] += d;
            info[i][i] += h;
        }
        if let Some(j) = ib {
            grad[j] -= d;
            info[j][j] += h;
        }
        if let (Some(i), Some(j)) = (ia, ib) {
            info[i][j] -= h;
            info[j][i] -= h;
        }
    }
    (grad, info)
}

fn check_connected(players: usize, pairs: &[PairGames], anchor: usize) -> Result<(), EloError> {
    let mut reached = vec![false; players];
    reached[anchor] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for g in pairs {
            if reached[g.a] != reached[g.b] {
                reached[g.a] = true;
                reached[g.b] = true;
                changed = true;
            }
        }
    }
    match reached.iter().position(|&r| !r) {
        Some(p) => Err(EloError::Disconnected(p)),
        None => Ok(()),
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve_linear(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let (upper, lower) = a.split_at_mut(row);
            let (pivot_row, this_row) = (&upper[col], &mut lower[0]);
            let f = this_row[col] / pivot_row[col];
            for (x, p) in this_row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// The inverse of a square matrix, column by column; `None` if singular.
fn invert(a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv = vec![vec![0.0; n]; n];
    for c in 0..n {
        let mut e = vec![0.0; n];
        e[c] = 1.0;
        let col = solve_linear(a.clone(), e)?;
        for r in 0..n {
            inv[r][c] = col[r];
        }
    }
    Some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn logistic_curve_and_its_inverse() {
        assert_eq!(expected_score(0.0), 0.5);
        assert!(close(elo_of_score(0.75), 400.0 * 3f64.log10(), 1e-9));
        assert!(close(elo_of_score(expected_score(-237.0)), -237.0, 1e-9));
        assert_eq!(elo_of_score(1.0), f64::INFINITY);
        assert_eq!(elo_of_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn head_to_head_interval() {
        // 60 wins, 20 draws, 20 losses: score 0.7, per-game variance 0.16.
        let wdl = Wdl {
            wins: 60.0,
            draws: 20.0,
            losses: 20.0,
        };
        assert!(close(wdl.score(), 0.7, 1e-12));
        assert!(close(wdl.variance(), 0.16, 1e-12));
        let e = head_to_head(&wdl);
        assert!(close(e.elo, 147.19, 0.01));
        // Wilson-style bounds by hand: n = 100, z² = 3.8415.
        let z2 = Z95 * Z95;
        let centre = (0.7 + z2 / 200.0) / (1.0 + z2 / 100.0);
        let half = Z95 * (0.0016 + z2 / 40_000.0f64).sqrt() / (1.0 + z2 / 100.0);
        assert!(close(e.low, elo_of_score(centre - half), 1e-9));
        assert!(close(e.high, elo_of_score(centre + half), 1e-9));
        // Within 10 Elo of the plain normal interval s ± 1.96 * 0.04 at this size.
        assert!(close(e.low, elo_of_score(0.7 - Z95 * 0.04), 10.0));
        assert!(close(e.high, elo_of_score(0.7 + Z95 * 0.04), 10.0));
        // A clean sweep: infinite estimate and upper bound, finite lower bound.
        let e = head_to_head(&Wdl {
            wins: 40.0,
            ..Wdl::default()
        });
        assert_eq!((e.elo, e.high), (f64::INFINITY, f64::INFINITY));
        // centre - half = (1 + z²/2n - z²/2n) / (1 + z²/n).
        let low_score = 1.0 / (1.0 + z2 / 40.0);
        assert!(close(e.low, elo_of_score(low_score), 1e-9));
        assert!(e.low > 300.0 && e.low < 500.0, "{}", e.low);
    }

    #[test]
    fn solver_recovers_consistent_ratings() {
        // A beats B 3:1, B beats C 3:1, A beats C 9:1: exactly 0, -190.85, -381.70.
        let games = [
            PairGames {
                a: 0,
                b: 1,
                games: 40.0,
                score: 30.0,
            },
            PairGames {
                a: 1,
                b: 2,
                games: 40.0,
                score: 30.0,
            },
            PairGames {
                a: 2,
                b: 0,
                games: 50.0,
                score: 5.0,
            },
        ];
        let step = 400.0 * 3f64.log10();
        let ratings = solve(3, &games, 0, 0.0).unwrap();
        let elo: Vec<f64> = ratings.players.iter().map(|p| p.elo).collect();
        assert!(close(elo[0], 0.0, 1e-12));
        assert!(close(elo[1], -step, 1e-6), "{elo:?}");
        assert!(close(elo[2], -2.0 * step, 1e-6), "{elo:?}");
        // Anchoring elsewhere shifts every rating by the same amount.
        let shifted = solve(3, &games, 2, 0.0).unwrap();
        for (moved, &original) in shifted.players.iter().zip(&elo) {
            assert!(close(moved.elo, original + 2.0 * step, 1e-6));
        }
        assert_eq!(ratings.players[0].margin(), 0.0);
        assert!(ratings.players[2].margin() > ratings.players[1].margin() * 0.5);
    }

    #[test]
    fn solver_matches_head_to_head_and_its_interval() {
        // Two players: the MLE is the head-to-head Elo; without draws the information
        // interval is the delta-method interval of the score.
        let games = [PairGames {
            a: 1,
            b: 0,
            games: 100.0,
            score: 64.0,
        }];
        let r = solve(2, &games, 0, 0.0).unwrap().players[1];
        assert!(close(r.elo, elo_of_score(0.64), 1e-6));
        let slope = 1.0 / (K * 0.64 * 0.36); // d elo / d score
        let se = (0.64 * 0.36f64 / 100.0).sqrt() * slope;
        assert!(
            close(r.margin(), Z95 * se, 1e-6),
            "{} vs {}",
            r.margin(),
            Z95 * se
        );
    }

    #[test]
    fn solver_scores_match_expectations_on_inconsistent_results() {
        // A cycle (A>B>C>A) with unequal counts: at the MLE every player's actual score
        // equals its expected score.
        let games = [
            PairGames {
                a: 0,
                b: 1,
                games: 30.0,
                score: 20.0,
            },
            PairGames {
                a: 1,
                b: 2,
                games: 10.0,
                score: 7.0,
            },
            PairGames {
                a: 2,
                b: 0,
                games: 20.0,
                score: 11.5,
            },
        ];
        let r = solve(3, &games, 1, 0.0).unwrap();
        for p in 0..3 {
            let (mut actual, mut expected) = (0.0, 0.0);
            for g in &games {
                let e = expected_score(r.players[g.a].elo - r.players[g.b].elo);
                if g.a == p {
                    actual += g.score;
                    expected += g.games * e;
                } else if g.b == p {
                    actual += g.games - g.score;
                    expected += g.games * (1.0 - e);
                }
            }
            assert!(close(actual, expected, 1e-6), "player {p}");
        }
    }

    #[test]
    fn estimates_round_trip_through_json_with_infinite_bounds() {
        let e = EloEstimate {
            elo: 12.5,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
        };
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, r#"{"elo":12.5,"low":"-inf","high":"+inf"}"#);
        assert_eq!(serde_json::from_str::<EloEstimate>(&json).unwrap(), e);
        let bad = serde_json::from_str::<EloEstimate>(r#"{"elo":"x","low":0,"high":1}"#);
        assert!(bad.unwrap_err().to_string().contains("'x' is not an Elo"));
    }

    #[test]
    fn solver_errors_and_prior() {
        let sweep = [PairGames {
            a: 0,
            b: 1,
            games: 10.0,
            score: 10.0,
        }];
        assert_eq!(solve(2, &sweep, 0, 0.0), Err(EloError::Unbounded));
        let r = solve(2, &sweep, 1, 1.0).unwrap();
        // One virtual draw: 10.5 of 11.
        assert!(close(r.players[0].elo, elo_of_score(10.5 / 11.0), 1e-6));
        assert_eq!(solve(3, &sweep, 0, 1.0), Err(EloError::Disconnected(2)));
        assert!(matches!(solve(2, &sweep, 2, 0.0), Err(EloError::Input(_))));
    }
}
