//! The models shipped with the project: one export per game under `models/GAME/`
//! (`model.pt`, `model.json` and a README naming its run), used wherever a command needs a
//! model and none is given (`serve`, `play`, `engine`, the `shipped` agent of `match`).
//!
//! Where they are looked for, first found wins: `$CHECKERS_ZERO_MODELS/GAME`, then
//! `models/GAME` in the working directory, then beside the program (`models/GAME` two and
//! three folders above it, which is the repository from `target/release/`).

use std::path::{Path, PathBuf};

use crate::game::GameKind;
use crate::layout::META_FILE;

/// The folder of the shipped models inside the repository.
pub const MODELS_DIR: &str = "models";

/// The places a shipped model of `kind` is looked for, in order.
pub fn candidates(kind: GameKind) -> Vec<PathBuf> {
    let game = kind.to_string();
    let mut places = Vec::new();
    if let Some(dir) = std::env::var_os("CHECKERS_ZERO_MODELS").filter(|d| !d.is_empty()) {
        places.push(PathBuf::from(dir).join(&game));
    }
    places.push(Path::new(MODELS_DIR).join(&game));
    if let Ok(exe) = std::env::current_exe() {
        for up in exe.ancestors().skip(2).take(2) {
            places.push(up.join(MODELS_DIR).join(&game));
        }
    }
    places
}

/// The shipped model of `kind`: the first candidate folder holding an export.
pub fn shipped_model(kind: GameKind) -> Option<PathBuf> {
    candidates(kind)
        .into_iter()
        .find(|dir| dir.join(META_FILE).is_file())
}

/// The shipped model of `kind`, or why there is none, in words.
pub fn require_shipped(kind: GameKind) -> Result<PathBuf, String> {
    shipped_model(kind).ok_or_else(|| missing(kind, &candidates(kind)))
}

/// Why there is no shipped model of `kind`, naming the `places` looked in.
fn missing(kind: GameKind, places: &[PathBuf]) -> String {
    let looked: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
    format!(
        "no model was given and no shipped {kind} model was found (looked in {}); \
         give one with --model, or train and export one (docs/export.md)",
        looked.join(", ")
    )
}

/// One line saying that the shipped model of `kind` at `dir` is used.
pub fn say_shipped(kind: GameKind, dir: &Path) -> String {
    format!(
        "no model given: playing the shipped {kind} model {} (its README says how it was trained)",
        dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_folder_named_by_the_environment_comes_first_and_a_missing_one_is_said() {
        let root = std::env::temp_dir().join(format!("cz-models-{}", std::process::id()));
        let dir = root.join("eximo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(META_FILE), "{}").unwrap();
        // The only test that sets this variable.
        std::env::set_var("CHECKERS_ZERO_MODELS", &root);
        assert_eq!(shipped_model(GameKind::Eximo), Some(dir.clone()));
        assert_eq!(candidates(GameKind::Hexdame)[0], root.join("hexdame"));
        std::fs::remove_file(dir.join(META_FILE)).unwrap();
        let found = shipped_model(GameKind::Eximo);
        std::env::remove_var("CHECKERS_ZERO_MODELS");
        assert_ne!(found, Some(dir), "a folder without model.json is no model");
        let message = missing(GameKind::Eximo, &[root.join("eximo")]);
        assert!(message.contains("no shipped eximo model"), "{message}");
        assert!(message.contains(&root.join("eximo").display().to_string()));
        let _ = std::fs::remove_dir_all(&root);
    }
}
