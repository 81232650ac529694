//! A learner readied without writing the run: the newest checkpoint that loads and its
//! replay window, or a fresh net. [`super::LearnerRole`] begins from one once it holds the
//! lease; a successor waiting for a killed learner's lease readies one meanwhile (a warm
//! standby), so that its takeover costs the lease's expiry, not a start.

use std::path::Path;
use std::time::Instant;

use super::publish::{find_newest, newest_candidate, Publisher, Resume};
use super::window;
use crate::config::RunConfig;
use crate::distributed::{DistError, WorkDir};
use crate::layout::checkpoint_name;
use crate::net::encode::Encode;
use crate::selfplay::diversity::GameDiversity;
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
    /// The window's games' openings and results.
    pub(super) diversity: GameDiversity,
}

impl<S: Encode> Readied<S> {
    /// Loads the newest checkpoint of the run at `store` that loads and rebuilds its window
    /// (or makes a fresh net), with its scratch files in `work_dir` (default: a temporary
    /// directory). Writes nothing to the run.
    pub fn prepare(
        store: &RunStore,
        config: RunConfig,
        work_dir: Option<&Path>,
    ) -> Result<Self, DistError> {
        Readied::prepare_in(store, config, WorkDir::new(work_dir, "learn")?)
    }

    fn prepare_in(store: &RunStore, config: RunConfig, work: WorkDir) -> Result<Self, DistError> {
        let publisher = Publisher::new(store, work.path());
        let mut diversity = GameDiversity::default();
        let (learner, resume) = match find_newest::<S>(store, &config, publisher.cache())? {
            Some((mut learner, resume)) => {
                window::rebuild(store, &mut learner, &mut diversity)?;
                (learner, Some(resume))
            }
            None => (Learner::<S>::new(config, None)?, None),
        };
        Ok(Readied {
            work,
            publisher,
            learner,
            resume,
            diversity,
        })
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
    pub fn fresh(self, store: &RunStore) -> Result<Self, DistError> {
        let loaded = self
            .resume
            .as_ref()
            .and_then(|r| r.candidates.first().copied());
        let newest = newest_candidate(store)?;
        if newest == loaded {
            return Ok(self);
        }
        let started = Instant::now();
        let ready = Readied::prepare_in(store, self.learner.config, self.work)?;
        eprintln!(
            "the run moved on to {} while this learner waited: readied again in {:.1} s",
            newest.map(checkpoint_name).unwrap_or_default(),
            started.elapsed().as_secs_f64()
        );
        Ok(ready)
    }
}
