//! A learner readied without writing the run: the newest checkpoint that loads and its
//! replay window, or a fresh net. [`super::LearnerRole`] begins from one once it holds the
//! lease; a successor waiting for a killed learner's lease readies one meanwhile (a warm
//! standby), and keeps taking in the shards self-play publishes while it waits, so that its
//! takeover costs the lease's expiry, not a start.

use std::path::Path;
use std::time::{Duration, Instant};

use super::intake::{Intake, IntakeTally};
use super::publish::{find_newest, newest_candidate, Publisher, Resume};
use super::rebuild;
use crate::config::RunConfig;
use crate::layout::checkpoint_name;
use crate::net::encode::Encode;
use crate::roles::{RoleError, WorkDir};
use crate::store::RunStore;
use crate::train::learner::Learner;

/// A learner ready to begin: model, optimizer, counters and window.
pub struct Readied<S: Encode> {
    /// The scratch directory (a remote store's checkpoints are fetched there).
    pub(super) work: WorkDir,
    pub(super) publisher: Publisher,
    pub(super) learner: Learner<S>,
    /// The checkpoint it resumes from; `None`: a fresh net.
    pub(super) resume: Option<Resume>,
    /// The shards taken in since the checkpoint (while waiting), and the window's games'
    /// openings and results.
    pub(super) intake: Intake,
    /// What was taken in while waiting, for the first iteration's metrics.
    pub(super) tally: IntakeTally,
    /// What the resume's window rebuild found (none for a fresh net).
    pub(super) rebuilt: Option<rebuild::Rebuilt>,
}

impl<S: Encode> Readied<S> {
    /// Loads the newest checkpoint of the run at `store` that loads and rebuilds its window
    /// (or makes a fresh net), with its scratch files in `work_dir` (default: a temporary
    /// directory); it will list new shards at most every `poll`. Writes nothing to the run.
    pub fn prepare(
        store: &RunStore,
        config: RunConfig,
        work_dir: Option<&Path>,
        poll: Duration,
    ) -> Result<Self, RoleError> {
        Readied::prepare_in(store, config, WorkDir::new(work_dir, "learn")?, poll)
    }

    fn prepare_in(
        store: &RunStore,
        config: RunConfig,
        work: WorkDir,
        poll: Duration,
    ) -> Result<Self, RoleError> {
        let publisher = Publisher::new(store, work.path());
        let mut intake = Intake::new(poll);
        let (learner, resume, rebuilt) = match find_newest::<S>(store, &config, publisher.cache())?
        {
            Some((mut learner, resume)) => {
                let rebuilt = rebuild::rebuild(store, &mut learner, &mut intake.diversity)?;
                (learner, Some(resume), Some(rebuilt))
            }
            None => (Learner::<S>::new(config, None)?, None, None),
        };
        Ok(Readied {
            work,
            publisher,
            learner,
            resume,
            intake,
            tally: IntakeTally::default(),
            rebuilt,
        })
    }

    /// Whether its intake would list the store now ([`Intake::due`]).
    pub fn due(&self) -> bool {
        self.intake.due()
    }

    /// Takes in the shards published since the last look (into the window; nothing is
    /// written: the checkpoint that records them comes once the lease is held).
    pub fn take_in(&mut self, store: &RunStore) -> Result<(), RoleError> {
        let tally = self.intake.take_in(store, &mut self.learner)?;
        self.tally.merge(&tally);
        Ok(())
    }

    /// The run's config.
    pub fn config(&self) -> &RunConfig {
        &self.learner.config
    }

    /// The training step it begins at.
    pub fn step(&self) -> u64 {
        self.learner.state.step
    }

    /// This learner, or one readied again if the run has a newer checkpoint than the one
    /// it loaded (its lease holder went on while this one waited).
    pub fn fresh(self, store: &RunStore) -> Result<Self, RoleError> {
        let loaded = self
            .resume
            .as_ref()
            .and_then(|r| r.candidates.first().copied());
        let newest = newest_candidate(store)?;
        if newest == loaded {
            return Ok(self);
        }
        let started = Instant::now();
        let poll = self.intake.poll();
        let ready = Readied::prepare_in(store, self.learner.config, self.work, poll)?;
        eprintln!(
            "the run moved on to {} while this learner waited: readied again in {:.1} s",
            newest.map(checkpoint_name).unwrap_or_default(),
            started.elapsed().as_secs_f64()
        );
        Ok(ready)
    }
}
