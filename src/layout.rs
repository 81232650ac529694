//! Where a run's and an export's files live: checkpoint directories and their `latest`
//! pointer, model weights and state, and the export directory's files. Training, evaluation
//! and export all read this one layout.

use std::path::{Path, PathBuf};

/// The TorchScript file of an export directory.
pub const TORCHSCRIPT_FILE: &str = "model.pt";
/// The metadata file of an export directory.
pub const META_FILE: &str = "model.json";

/// True for a directory written by `checkers-zero export`.
pub fn is_export_dir(path: &Path) -> bool {
    path.join(META_FILE).is_file() && path.join(TORCHSCRIPT_FILE).is_file()
}

/// Where a model path leads: the weights file, and the training step when it is a
/// checkpoint (from its `state.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedModel {
    /// The `.safetensors` weights file (metadata beside it).
    pub weights: PathBuf,
    /// The checkpoint's training step, when known.
    pub step: Option<u64>,
}

/// Finds the weights behind a model path: a weights file, a checkpoint directory (its
/// `model.safetensors`), or a run directory (the checkpoint named in
/// `checkpoints/latest`). Errors name what was looked for.
pub fn resolve_model(path: &Path) -> Result<ResolvedModel, String> {
    if path.is_file() {
        let step = path.parent().and_then(checkpoint_step);
        return Ok(ResolvedModel {
            weights: path.to_path_buf(),
            step,
        });
    }
    if !path.is_dir() {
        return Err(format!("{} does not exist", path.display()));
    }
    let weights = path.join("model.safetensors");
    if weights.is_file() {
        return Ok(ResolvedModel {
            weights,
            step: checkpoint_step(path),
        });
    }
    let latest = path.join("checkpoints").join("latest");
    if let Ok(name) = std::fs::read_to_string(&latest) {
        let dir = path.join("checkpoints").join(name.trim());
        let weights = dir.join("model.safetensors");
        if weights.is_file() {
            return Ok(ResolvedModel {
                weights,
                step: checkpoint_step(&dir),
            });
        }
        return Err(format!(
            "{} names {}, which holds no model.safetensors",
            latest.display(),
            dir.display()
        ));
    }
    Err(format!(
        "{} holds neither model.safetensors nor checkpoints/latest",
        path.display()
    ))
}

/// The run directory a weights file belongs to, when it lies in a run's checkpoint
/// directory (`RUN/checkpoints/step-N/model.safetensors`) and the run records its config.
pub fn run_dir_of_weights(weights: &Path) -> Option<PathBuf> {
    let checkpoints = weights.parent()?.parent()?;
    if checkpoints.file_name()? != "checkpoints" {
        return None;
    }
    let run = checkpoints.parent()?;
    run.join("config.toml").is_file().then(|| run.to_path_buf())
}

/// The `step` of a checkpoint directory's `state.json`, if it has one.
pub fn checkpoint_step(dir: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join("state.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("step")?.as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_checkpoint_run_and_file_paths() {
        let root = std::env::temp_dir().join(format!("cz-spec-{}", std::process::id()));
        let ckpt = root.join("checkpoints").join("step-00000200");
        std::fs::create_dir_all(&ckpt).unwrap();
        std::fs::write(ckpt.join("model.safetensors"), b"x").unwrap();
        std::fs::write(
            ckpt.join("state.json"),
            br#"{"step": 200, "elapsed_s": 1.5}"#,
        )
        .unwrap();
        std::fs::write(root.join("checkpoints").join("latest"), b"step-00000200").unwrap();
        let expected = ResolvedModel {
            weights: ckpt.join("model.safetensors"),
            step: Some(200),
        };
        assert_eq!(resolve_model(&root).unwrap(), expected);
        assert_eq!(resolve_model(&ckpt).unwrap(), expected);
        assert_eq!(
            resolve_model(&ckpt.join("model.safetensors")).unwrap(),
            expected
        );
        // The run of a checkpoint's weights: only once the run records its config.
        assert_eq!(run_dir_of_weights(&expected.weights), None);
        std::fs::write(root.join("config.toml"), b"").unwrap();
        assert_eq!(run_dir_of_weights(&expected.weights), Some(root.clone()));
        assert_eq!(run_dir_of_weights(&root.join("model.safetensors")), None);
        assert!(resolve_model(&root.join("nope"))
            .unwrap_err()
            .contains("does not exist"));
        assert!(resolve_model(&root.join("checkpoints"))
            .unwrap_err()
            .contains("neither"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
