//! The learner's one progress line: the step and iteration, the rates (positions, steps and
//! games per second), the last loss, the window and the time left. On a terminal it rewrites
//! itself in place; in a log (stderr not a terminal) it is printed every `every` iterations
//! and once at the end. Other lines (an evaluation's summary) go above it.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::limits::StepLimits;

/// Where the learner is, for the progress line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    /// The training step.
    pub step: u64,
    /// Steps per iteration.
    pub steps_per_iteration: u64,
    /// Positions played by self-play in this process, else taken in, this invocation.
    pub positions: u64,
    /// Games played or taken in this invocation.
    pub games: u64,
    /// The newest step's loss.
    pub loss: Option<f64>,
    /// Samples in the replay window.
    pub window: usize,
}

/// Prints lines above the progress line (or to stderr without one); cheap to clone, for
/// other threads.
#[derive(Clone, Debug)]
pub struct Printer {
    bar: Option<ProgressBar>,
}

impl Printer {
    /// Prints `line` above the progress line.
    pub fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

/// The progress line of one `train` or `learn` invocation.
#[derive(Debug)]
pub struct Progress {
    printer: Printer,
    every: u64,
    iterations: u64,
    printed_at: Option<u64>,
    limits: StepLimits,
    started: Instant,
    start_step: u64,
}

impl Progress {
    /// The line of an invocation starting at `start_step` under `limits`: rewritten in place
    /// when `terminal`, else printed every `every` iterations (at least 1).
    pub fn new(terminal: bool, every: u64, limits: StepLimits, start_step: u64) -> Progress {
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            // Cut to the terminal's width rather than wrapped.
            bar.set_style(ProgressStyle::with_template("{wide_msg}").expect("valid template"));
            bar
        });
        Progress {
            printer: Printer { bar },
            every: every.max(1),
            iterations: 0,
            printed_at: None,
            limits,
            started: Instant::now(),
            start_step,
        }
    }

    /// A printer of lines above this one.
    pub fn printer(&self) -> Printer {
        self.printer.clone()
    }

    /// Shows where the learner is now (on a terminal).
    pub fn update(&self, at: &Snapshot) {
        if let Some(bar) = &self.printer.bar {
            bar.set_message(self.line(at));
        }
    }

    /// Counts a finished iteration; in a log, prints the line every `every` of them.
    pub fn iteration(&mut self, at: &Snapshot) {
        self.iterations += 1;
        self.update(at);
        if self.printer.bar.is_none() && self.iterations.is_multiple_of(self.every) {
            eprintln!("{}", self.line(at));
            self.printed_at = Some(at.step);
        }
    }

    /// The end: clears the line on a terminal; in a log, prints it unless it was just printed.
    pub fn finish(&self, at: &Snapshot) {
        match &self.printer.bar {
            Some(bar) => {
                bar.finish_and_clear();
                eprintln!("{}", self.line(at));
            }
            None if self.printed_at != Some(at.step) => eprintln!("{}", self.line(at)),
            None => {}
        }
    }

    /// The line itself.
    pub fn line(&self, at: &Snapshot) -> String {
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let steps_per_s = at.step.saturating_sub(self.start_step) as f64 / seconds;
        let target = self
            .limits
            .target
            .map_or(String::new(), |t| format!("/{t}"));
        let loss = at.loss.map_or("-".into(), |l| format!("{l:.3}"));
        let eta = self
            .limits
            .time_left(at.step, steps_per_s)
            .map_or(String::new(), |left| format!(", ETA {}", clock(left)));
        format!(
            "step {}{target} (iter {}) | {}{eta} | {:.0} pos/s, {steps_per_s:.1} steps/s, {} \
             games | loss {loss} | window {}",
            at.step,
            at.step / at.steps_per_iteration.max(1),
            clock(self.started.elapsed()),
            at.positions as f64 / seconds,
            at.games,
            at.window,
        )
    }
}

/// A duration as `1h02m`, `4m05s` or `12s`.
pub fn clock(duration: Duration) -> String {
    let s = duration.as_secs();
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_clock_times() {
        assert_eq!(clock(Duration::from_secs(12)), "12s");
        assert_eq!(clock(Duration::from_secs(245)), "4m05s");
        assert_eq!(clock(Duration::from_secs(3720)), "1h02m");
    }
}
