//! The precision check done where the net serves (`precision = "auto"`): the start-up probe
//! ([`super::precision`]) times the net alone, but the caller's own threads (a match's
//! searches, self-play's workers) share the cores with it, and that can turn the
//! comparison around. So for its first batches the batcher alternates fp32 and bf16
//! within each batch-size band, times them under the load it really has, and each band then
//! keeps the precision that served a position faster. The probe's choice serves every band
//! until the check has decided it.

/// Timed batches per precision and band before a band is decided.
pub const CHECK_BATCHES: u32 = 6;
/// A precision this many times slower per position than the other after
/// [`EARLY_BATCHES`] batches each is dropped at once (emulated bf16 can be ~17x slower).
const EARLY_RATIO: f64 = 3.0;
/// Batches each before [`EARLY_RATIO`] may decide a band.
const EARLY_BATCHES: u32 = 2;

/// One precision's timings in one band.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    /// Batches seen (the first is a warm-up and not timed).
    seen: u32,
    /// Timed batches.
    batches: u32,
    positions: u64,
    seconds: f64,
}

impl Tally {
    fn per_position(&self) -> f64 {
        self.seconds / self.positions.max(1) as f64
    }
}

/// The in-place check of one batcher.
#[derive(Clone, Debug)]
pub struct InPlaceCheck {
    /// Upper bounds of the bands, ascending (a batch of `n` falls in the first bound >= n).
    bounds: Vec<usize>,
    /// The probe's choice per band: bf16?
    start: Vec<bool>,
    /// Per band: fp32 and bf16 timings.
    tallies: Vec<[Tally; 2]>,
    /// Per band: the decision (bf16?) once made.
    decided: Vec<Option<bool>>,
}

/// A band decided by the check, to report.
#[derive(Clone, Debug, PartialEq)]
pub struct BandDecision {
    /// The batch sizes of the band.
    pub batches: (usize, usize),
    /// Whether the band runs in bf16.
    pub bf16: bool,
    /// Whether that differs from the probe's choice.
    pub changed: bool,
    /// fp32 seconds per position over bf16 seconds per position.
    pub bf16_speedup: f64,
}

impl InPlaceCheck {
    /// A check over the bands ending at `bounds` (ascending), starting from the probe's
    /// choice: bf16 from `bf16_from` positions on. `probe_speedups` (bf16 over fp32 at each
    /// bound, as probed; may be empty) settles at once the bands where the probe's margin
    /// is so wide (over [`EARLY_RATIO`] either way) that no load could turn it around.
    pub fn new(bounds: &[usize], bf16_from: Option<usize>, probe_speedups: &[f64]) -> InPlaceCheck {
        let start: Vec<bool> = bounds
            .iter()
            .map(|&b| bf16_from.is_some_and(|from| b >= from))
            .collect();
        let decided = start
            .iter()
            .enumerate()
            .map(|(i, &bf16)| {
                let clear = probe_speedups
                    .get(i)
                    .is_some_and(|r| !(1.0 / EARLY_RATIO..=EARLY_RATIO).contains(r));
                clear.then_some(bf16)
            })
            .collect();
        InPlaceCheck {
            bounds: bounds.to_vec(),
            start,
            tallies: vec![[Tally::default(); 2]; bounds.len()],
            decided,
        }
    }

    fn band(&self, batch: usize) -> usize {
        self.bounds
            .iter()
            .position(|&b| batch <= b)
            .unwrap_or(self.bounds.len().saturating_sub(1))
    }

    /// Whether to run a batch of `batch` positions in bf16 now.
    pub fn bf16_for(&self, batch: usize) -> bool {
        let band = self.band(batch);
        if let Some(bf16) = self.decided.get(band).copied().flatten() {
            return bf16;
        }
        match self.tallies.get(band) {
            Some([fp32, bf16]) if fp32.seen != bf16.seen => fp32.seen > bf16.seen,
            _ => self.start.get(band).copied().unwrap_or(false),
        }
    }

    /// Whether some decided band runs in bf16 (or, with `false`, in fp32).
    pub fn uses(&self, bf16: bool) -> bool {
        self.decided.contains(&Some(bf16))
    }

    /// Whether every band is decided (nothing is alternated any more).
    pub fn done(&self) -> bool {
        self.decided.iter().all(Option::is_some)
    }

    /// The decisions in one line: the batch sizes each precision serves, and how many
    /// bands differ from the probe's choice.
    pub fn summary(&self) -> String {
        let mut bands: [Vec<String>; 2] = [Vec::new(), Vec::new()];
        let mut low = 1;
        for (&high, decided) in self.bounds.iter().zip(&self.decided) {
            if let Some(bf16) = decided {
                bands[usize::from(*bf16)].push(format!("{low}-{high}"));
            }
            low = high + 1;
        }
        let changed = (self.decided.iter().zip(&self.start))
            .filter(|(d, s)| d.is_some_and(|d| d != **s))
            .count();
        let list = |b: &Vec<String>| {
            if b.is_empty() {
                "none".to_string()
            } else {
                b.join(", ")
            }
        };
        format!(
            "precision checked under this process's load: fp32 for batches {}, bf16 for {} \
             ({changed} of {} bands changed from the start-up probe; later checks in this \
             process are not printed)",
            list(&bands[0]),
            list(&bands[1]),
            self.bounds.len()
        )
    }

    /// Takes in a batch of `batch` positions run in bf16 (or fp32) in `seconds`; returns the
    /// band's decision when this batch settles it.
    pub fn add_timing(&mut self, batch: usize, bf16: bool, seconds: f64) -> Option<BandDecision> {
        let band = self.band(batch);
        if self.decided.get(band).copied().flatten().is_some() || band >= self.tallies.len() {
            return None;
        }
        let tally = &mut self.tallies[band][usize::from(bf16)];
        tally.seen += 1;
        if tally.seen > 1 {
            tally.batches += 1;
            tally.positions += batch as u64;
            tally.seconds += seconds;
        }
        let [fp32, bf16] = self.tallies[band];
        let speedup = fp32.per_position() / bf16.per_position().max(1e-12);
        let both = fp32.batches.min(bf16.batches);
        let clear = both >= EARLY_BATCHES && !(1.0 / EARLY_RATIO..=EARLY_RATIO).contains(&speedup);
        if both < CHECK_BATCHES && !clear {
            return None;
        }
        let choice = speedup > 1.0;
        self.decided[band] = Some(choice);
        let low = if band == 0 {
            1
        } else {
            self.bounds[band - 1] + 1
        };
        Some(BandDecision {
            batches: (low, self.bounds[band]),
            bf16: choice,
            changed: choice != self.start[band],
            bf16_speedup: speedup,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds batches of `batch` positions until the band is decided, timing fp32 and bf16
    /// batches at `fp32` and `bf16` seconds per position.
    fn run(check: &mut InPlaceCheck, batch: usize, fp32: f64, bf16: f64) -> BandDecision {
        for _ in 0..100 {
            let use_bf16 = check.bf16_for(batch);
            let per = if use_bf16 { bf16 } else { fp32 };
            if let Some(decision) = check.add_timing(batch, use_bf16, per * batch as f64) {
                return decision;
            }
        }
        panic!("the band was never decided");
    }

    #[test]
    fn a_band_keeps_the_precision_faster_in_place_and_says_when_the_probe_was_wrong() {
        // The probe said bf16 from 16 on; in place fp32 wins at 2-4 and bf16 at 5-16.
        let mut check = InPlaceCheck::new(&[1, 4, 16], Some(16), &[]);
        assert!(!check.bf16_for(3));
        let small = run(&mut check, 3, 1.0, 1.2);
        assert_eq!(
            (small.batches, small.bf16, small.changed),
            ((2, 4), false, false)
        );
        let middle = run(&mut check, 10, 1.0, 0.6);
        assert_eq!(
            (middle.batches, middle.bf16, middle.changed),
            ((5, 16), true, false)
        );
        assert!((middle.bf16_speedup - 1.0 / 0.6).abs() < 1e-9);
        let one = run(&mut check, 1, 1.0, 0.5);
        assert!(one.bf16 && one.changed, "{one:?}");
        assert!(check.done());
        assert!(check.bf16_for(1) && !check.bf16_for(4) && check.bf16_for(16));
    }

    #[test]
    fn both_precisions_are_timed_alike_before_deciding() {
        let mut check = InPlaceCheck::new(&[8], None, &[1.1]);
        let mut ran = [0u32; 2];
        while !check.done() {
            let bf16 = check.bf16_for(8);
            ran[usize::from(bf16)] += 1;
            check.add_timing(8, bf16, if bf16 { 0.9 } else { 1.0 });
        }
        // A warm-up each, then CHECK_BATCHES timed each.
        assert_eq!(ran, [CHECK_BATCHES + 1; 2]);
        assert!(check.bf16_for(8));
    }

    #[test]
    fn a_far_slower_precision_is_dropped_early() {
        let mut check = InPlaceCheck::new(&[128], Some(1), &[]);
        let decision = run(&mut check, 100, 1.0, 17.0);
        assert!(!decision.bf16 && decision.changed);
        let timed: u32 = check.tallies[0].iter().map(|t| t.batches).sum();
        assert_eq!(timed, 2 * EARLY_BATCHES);
    }

    #[test]
    fn bands_the_probe_settled_by_a_wide_margin_are_not_checked() {
        // Emulated bf16: the probe measured it 10x slower at batch 1 and 20x at 64.
        let check = InPlaceCheck::new(&[1, 16, 64], None, &[0.1, 0.5, 0.05]);
        assert!(!check.bf16_for(1) && !check.bf16_for(64));
        assert!(!check.done(), "16 is within reach of the load: checked");
        assert!(!check.uses(true) && check.uses(false));
        let native = InPlaceCheck::new(&[1, 128], Some(1), &[4.0, 5.0]);
        assert!(native.done() && native.bf16_for(1) && native.bf16_for(100));
    }

    #[test]
    fn batches_beyond_the_last_bound_count_in_the_last_band() {
        let mut check = InPlaceCheck::new(&[1, 4], None, &[]);
        let decision = run(&mut check, 9, 1.0, 0.5);
        assert_eq!(decision.batches, (2, 4));
    }
}
