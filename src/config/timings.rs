//! How often the roles of a run publish and look for each other's work: one struct, with a
//! preset for roles on separate machines (the defaults of `learn`, `selfplay` and
//! `evaluate`) and one for the three in one process (`train`), where a local store makes
//! small shards and frequent looks cheap.

/// The roles' timings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoleTimings {
    /// Self-play publishes a shard with this many games…
    pub games_per_shard: usize,
    /// …or once its first game is this many seconds old.
    pub shard_seconds: f64,
    /// On a stop, self-play lets the games in flight finish for up to this many seconds.
    pub drain_seconds: f64,
    /// Self-play waits this many minutes for the run's config and first checkpoint.
    pub selfplay_wait_minutes: f64,
    /// Self-play looks for a newer checkpoint this often (seconds).
    pub selfplay_poll_seconds: f64,
    /// The learner lists new shards this often (seconds).
    pub learner_poll_seconds: f64,
    /// The evaluation role waits this many minutes for the run's config.
    pub evaluation_wait_minutes: f64,
    /// The evaluation role looks for a due checkpoint this often (seconds).
    pub evaluation_poll_seconds: f64,
}

impl RoleTimings {
    /// Roles on separate machines over a remote store: the command-line defaults.
    pub const DISTRIBUTED: RoleTimings = RoleTimings {
        games_per_shard: 16,
        shard_seconds: 60.0,
        drain_seconds: 20.0,
        selfplay_wait_minutes: 30.0,
        selfplay_poll_seconds: 5.0,
        learner_poll_seconds: 1.0,
        evaluation_wait_minutes: 30.0,
        evaluation_poll_seconds: 10.0,
    };

    /// The three roles in one process (`train`): small shards published often, pointers
    /// looked at often; a stop ends the games in flight at once, as a time limit should.
    pub const LOCAL: RoleTimings = RoleTimings {
        games_per_shard: 16,
        shard_seconds: 1.0,
        drain_seconds: 0.0,
        selfplay_wait_minutes: 1.0,
        selfplay_poll_seconds: 0.25,
        learner_poll_seconds: 0.25,
        evaluation_wait_minutes: 1.0,
        evaluation_poll_seconds: 0.5,
    };
}
