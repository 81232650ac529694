//! The one check type of every config section: the first key out of its range, named in
//! full (`train.batch_size`), and what is wrong with it.

/// A key whose value is not allowed, or an override that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("key `{key}`: {message}")]
pub struct KeyError {
    /// The full key, e.g. `search.visits` (an agent's override: `visits`).
    pub key: String,
    /// What is wrong, in words.
    pub message: String,
}

impl KeyError {
    /// The error of `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> KeyError {
        KeyError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// A section's check: `Ok` or its first bad key.
pub type Check = Result<(), KeyError>;

/// The first `(key, ok, message)` that is not ok, with `prefix` (e.g. `train.`) put before
/// its key.
pub fn first_failure(prefix: &str, checks: &[(&str, bool, &str)]) -> Check {
    match checks.iter().find(|(_, ok, _)| !ok) {
        Some((key, _, message)) => Err(KeyError::new(format!("{prefix}{key}"), *message)),
        None => Ok(()),
    }
}
