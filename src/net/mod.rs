//! The neural net. Its modules:
//!
//! - [`model`]: the residual tower with policy and W/D/L heads; [`encode`]: each game's
//!   input planes, policy indexing and symmetries;
//! - [`backend`]: the one interface to whatever runs the net; its two backends, the
//!   [`batcher`] (many searches' leaves in one forward pass) and [`torchscript`];
//! - [`net_eval`]: the bridge search evaluates positions through;
//! - [`inference`]: the net's inference form; [`forward`]: the forward pass the batcher's
//!   streams run; [`cuda`]: CUDA streams and graphs through `cuda_shim.cpp`;
//! - [`precision`]: the precision by measurement; [`in_place`]: that check where the net
//!   serves; [`peak`]: this machine's peak GFLOP/s;
//! - [`device`], [`threads`] and [`args`]: where it runs, with how many threads, and the
//!   command-line flags for both.

pub mod args;
pub mod backend;
pub mod batcher;
pub mod cuda;
pub mod device;
pub mod encode;
pub mod forward;
pub mod in_place;
pub mod inference;
pub mod model;
pub mod net_eval;
pub mod peak;
pub mod precision;
pub mod threads;
pub mod torchscript;

use std::path::{Path, PathBuf};

/// Prepares libtorch's thread runtime; call first thing in a process, before any tensor
/// exists. OpenMP threads otherwise spin after each parallel region and take the cores that
/// self-play threads and the batcher's own bookkeeping need (see the inference benchmark
/// in `docs/benchmarks.md` for the measured effect). A value already set in the environment
/// wins.
pub fn init_torch_runtime() {
    if std::env::var_os("OMP_WAIT_POLICY").is_none() {
        // Single-threaded at this point: nothing reads the environment concurrently.
        std::env::set_var("OMP_WAIT_POLICY", "PASSIVE");
    }
}

/// Everything that can go wrong building, saving, loading or running a model.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The metadata (`model.json`) is missing fields or malformed.
    #[error("model metadata {path} is unreadable: {reason}")]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The weights file is missing, corrupted or does not fit the metadata.
    #[error("model weights {path} cannot be loaded: {reason}")]
    Weights {
        /// The weights file.
        path: PathBuf,
        /// What libtorch said.
        reason: String,
    },
    /// A model trained on another version of its game's input encoding: it would read
    /// this program's inputs wrongly, so it is refused rather than played.
    #[error(
        "model mismatch: encoding version is {found}, expected {expected}: the model was \
         trained on other inputs (see docs/encoding.md) and would misread these; retrain it, \
         or play it with the program version that trained it"
    )]
    Encoding {
        /// The version this program writes.
        expected: u32,
        /// The version the model was trained on.
        found: u32,
    },
    /// A model made for another game or shape.
    #[error("model mismatch: {what} is {found}, expected {expected}")]
    Mismatch {
        /// The property that differs.
        what: &'static str,
        /// What the caller needs.
        expected: String,
        /// What the file has.
        found: String,
    },
    /// Sizes that cannot make a model.
    #[error("bad model shape: {0}")]
    Shape(String),
    /// An error from libtorch.
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    /// A device that cannot be used here.
    #[error("{0}")]
    Device(String),
    /// The batcher thread has stopped.
    #[error("the net's batcher has shut down")]
    BatcherGone,
    /// A thread the net's work needs could not start, or failed.
    #[error("{0}")]
    Thread(String),
    /// A person stopped the search (not a failure of the net).
    #[error("the search was stopped")]
    Stopped,
}

impl NetError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> NetError {
        NetError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The same error again, of the same kind and message (one failed forward pass answers
    /// every job in it).
    pub fn duplicate(&self) -> NetError {
        match self {
            NetError::Io { path, source } => NetError::Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            NetError::Metadata { path, reason } => NetError::Metadata {
                path: path.clone(),
                reason: reason.clone(),
            },
            NetError::Weights { path, reason } => NetError::Weights {
                path: path.clone(),
                reason: reason.clone(),
            },
            NetError::Mismatch {
                what,
                expected,
                found,
            } => NetError::Mismatch {
                what,
                expected: expected.clone(),
                found: found.clone(),
            },
            NetError::Encoding { expected, found } => NetError::Encoding {
                expected: *expected,
                found: *found,
            },
            NetError::Shape(message) => NetError::Shape(message.clone()),
            NetError::Device(message) => NetError::Device(message.clone()),
            NetError::Torch(error) => NetError::Torch(tch::TchError::Torch(error.to_string())),
            NetError::BatcherGone => NetError::BatcherGone,
            NetError::Thread(message) => NetError::Thread(message.clone()),
            NetError::Stopped => NetError::Stopped,
        }
    }
}
