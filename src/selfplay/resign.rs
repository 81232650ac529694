//! Resignation, and its calibration from the games played through with resignation off.
//!
//! A side resigns when its last `consecutive` full-search root values all lie below its
//! threshold, i.e. when the largest of them does. Fast (playout-capped) searches never
//! count: their values are too noisy to end a game on.
//!
//! In a played-through game every side gets a *resign score*: the lowest, over the game, of
//! that largest of its last values. The side would have resigned under any threshold above its score,
//! and the resignation is false if the side then did not lose. With calibration on, each
//! side's threshold is the highest one (up to the configured `threshold`) at which at most
//! `max_false_rate` of the would-be resignations in the recent played-through games were
//! false, measured on at least `min_samples` of them; with too few samples the configured
//! threshold stays, and a side whose false rate is too high even at the lowest candidate
//! does not resign at all. This is the practice of Leela Zero and KataGo, done per side
//! because the sides of these games are not alike (docs/training.md).

use std::collections::VecDeque;

use crate::config::selfplay::SelfPlayConfig;

/// How resignation works (from `[selfplay]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResignSettings {
    /// Full-search values in a row below the threshold that make a side resign (0: never).
    pub consecutive: u32,
    /// The threshold: fixed, or the ceiling of the calibrated one.
    pub threshold: f32,
    /// Calibrate each side's threshold from the played-through games.
    pub calibrate: bool,
    /// Largest share of false resignations calibration allows.
    pub max_false_rate: f32,
    /// Would-be resignations needed before a threshold is trusted.
    pub min_samples: usize,
    /// Played-through games per side remembered for calibration.
    pub history: usize,
}

impl ResignSettings {
    /// The resignation keys of `[selfplay]`.
    pub fn of(s: &SelfPlayConfig) -> ResignSettings {
        ResignSettings {
            consecutive: s.resign_consecutive,
            threshold: s.resign_threshold,
            calibrate: s.resign_calibrate,
            max_false_rate: s.resign_false_rate,
            min_samples: s.resign_min_samples,
            history: s.resign_history,
        }
    }
}

/// The lowest threshold calibration considers; below it a side does not resign.
const LOWEST_THRESHOLD: f32 = -0.995;
/// Step between the thresholds calibration tries.
const THRESHOLD_STEP: f32 = 0.005;

/// One side's recent full-search values during a game, and its resign score so far.
#[derive(Clone, Debug)]
pub struct ResignStreak {
    values: VecDeque<f32>,
    len: usize,
    score: Option<f32>,
}

impl ResignStreak {
    /// An empty streak, of the last `consecutive` values.
    pub fn new(consecutive: u32) -> ResignStreak {
        ResignStreak {
            values: VecDeque::with_capacity(consecutive as usize),
            len: consecutive as usize,
            score: None,
        }
    }

    /// Adds a full search's root value; returns the largest of the last `consecutive`
    /// values once there are that many (the side resigns when it is below its threshold).
    pub fn push(&mut self, value: f32) -> Option<f32> {
        if self.len == 0 {
            return None;
        }
        if self.values.len() == self.len {
            self.values.pop_front();
        }
        self.values.push_back(value);
        if self.values.len() < self.len {
            return None;
        }
        let max = self.values.iter().copied().fold(f32::MIN, f32::max);
        self.score = Some(self.score.map_or(max, |s| s.min(max)));
        Some(max)
    }

    /// The lowest largest-of-the-last-values seen: any threshold above it would have resigned.
    pub fn score(&self) -> Option<f32> {
        self.score
    }
}

/// Per-side thresholds, calibrated from played-through games.
#[derive(Clone, Debug)]
pub struct ResignCalibrator {
    settings: ResignSettings,
    /// Per side: (resign score, lost) of recent played-through games where it had a score.
    observed: [VecDeque<(f32, bool)>; 2],
    thresholds: [Option<f32>; 2],
}

/// What calibration currently says about one side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideResign {
    /// The threshold in use (`None`: this side does not resign).
    pub threshold: Option<f32>,
    /// Played-through games remembered where the side had a resign score.
    pub samples: usize,
    /// Of them, those that would have resigned at the threshold...
    pub would_resign: usize,
    /// ...and did not lose.
    pub false_resign: usize,
}

impl ResignCalibrator {
    /// Thresholds start at the configured one.
    pub fn new(settings: ResignSettings) -> ResignCalibrator {
        let start = (settings.consecutive > 0).then_some(settings.threshold);
        ResignCalibrator {
            settings,
            observed: [VecDeque::new(), VecDeque::new()],
            thresholds: [start; 2],
        }
    }

    /// Side `side`'s threshold now (`None`: it does not resign).
    pub fn threshold(&self, side: usize) -> Option<f32> {
        self.thresholds[side]
    }

    /// Takes in a played-through game: `score` is the side's resign score (`None` if it
    /// never had `consecutive` values), `lost` whether it lost.
    pub fn observe(&mut self, side: usize, score: Option<f32>, lost: bool) {
        let Some(score) = score else { return };
        let seen = &mut self.observed[side];
        seen.push_back((score, lost));
        while seen.len() > self.settings.history.max(1) {
            seen.pop_front();
        }
        if self.settings.calibrate && self.settings.consecutive > 0 {
            self.thresholds[side] = calibrated_threshold(
                seen.make_contiguous(),
                &self.settings,
                self.thresholds[side],
            );
        }
    }

    /// The state of side `side`, for metrics.
    pub fn side(&self, side: usize) -> SideResign {
        let threshold = self.thresholds[side];
        let seen = &self.observed[side];
        let would: Vec<&(f32, bool)> = match threshold {
            Some(t) => seen.iter().filter(|(score, _)| *score < t).collect(),
            None => Vec::new(),
        };
        SideResign {
            threshold,
            samples: seen.len(),
            would_resign: would.len(),
            false_resign: would.iter().filter(|(_, lost)| !lost).count(),
        }
    }
}

/// The highest candidate threshold (up to the configured one) whose would-be resignations
/// number at least `min_samples` and are false at most `max_false_rate` of the time.
/// `current` stays while no candidate has enough samples; `None` when every candidate with
/// enough samples is too often false.
fn calibrated_threshold(
    observed: &[(f32, bool)],
    settings: &ResignSettings,
    current: Option<f32>,
) -> Option<f32> {
    let mut any_measured = false;
    let mut t = settings.threshold;
    while t >= LOWEST_THRESHOLD {
        let (mut would, mut wrong) = (0usize, 0usize);
        for &(score, lost) in observed {
            if score < t {
                would += 1;
                wrong += usize::from(!lost);
            }
        }
        if would >= settings.min_samples.max(1) {
            any_measured = true;
            if wrong as f32 <= settings.max_false_rate * would as f32 {
                return Some(t);
            }
        }
        t -= THRESHOLD_STEP;
    }
    if any_measured {
        None
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(calibrate: bool) -> ResignSettings {
        ResignSettings {
            consecutive: 3,
            threshold: -0.8,
            calibrate,
            max_false_rate: 0.05,
            min_samples: 10,
            history: 1000,
        }
    }

    #[test]
    fn a_streak_resigns_on_the_largest_of_the_last_values_and_keeps_the_lowest_score() {
        let mut w = ResignStreak::new(3);
        assert_eq!(w.push(-0.95), None);
        assert_eq!(w.push(-0.99), None);
        assert_eq!(w.push(-0.97), Some(-0.95));
        assert_eq!(w.push(-0.5), Some(-0.5));
        assert_eq!(w.score(), Some(-0.95));
        assert_eq!(ResignStreak::new(0).push(-1.0), None);
    }

    #[test]
    fn fixed_threshold_ignores_the_played_through_games() {
        let mut c = ResignCalibrator::new(settings(false));
        for _ in 0..50 {
            c.observe(0, Some(-0.9), false);
        }
        assert_eq!(c.threshold(0), Some(-0.8));
        let s = c.side(0);
        assert_eq!((s.samples, s.would_resign, s.false_resign), (50, 50, 50));
    }

    #[test]
    fn calibration_lowers_the_threshold_below_the_false_resignations() {
        let mut c = ResignCalibrator::new(settings(true));
        // Scores down to -0.9 came back (not lost); below -0.95 they were all lost.
        for i in 0..40 {
            c.observe(1, Some(-0.85 - 0.001 * i as f32), false);
            c.observe(1, Some(-0.96 - 0.001 * i as f32), true);
        }
        let t = c.threshold(1).expect("resigns");
        assert!(t < -0.885 && t > -0.97, "{t}");
        let s = c.side(1);
        assert!(s.false_resign as f32 <= 0.05 * s.would_resign as f32);
        assert!(s.would_resign >= 10);
        // The other side saw nothing: it keeps the configured threshold.
        assert_eq!(c.threshold(0), Some(-0.8));
    }

    #[test]
    fn a_side_whose_resignations_are_always_false_stops_resigning() {
        let mut c = ResignCalibrator::new(settings(true));
        for _ in 0..20 {
            c.observe(0, Some(-0.999), false);
        }
        assert_eq!(c.threshold(0), None);
    }

    #[test]
    fn too_few_samples_keep_the_configured_threshold() {
        let mut c = ResignCalibrator::new(settings(true));
        for _ in 0..5 {
            c.observe(0, Some(-0.9), false);
        }
        assert_eq!(c.threshold(0), Some(-0.8));
        c.observe(0, None, false);
        assert_eq!(c.side(0).samples, 5);
    }

    #[test]
    fn resignation_off_never_resigns() {
        let c = ResignCalibrator::new(ResignSettings {
            consecutive: 0,
            ..settings(true)
        });
        assert_eq!(c.threshold(0), None);
    }
}
