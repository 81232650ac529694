//! `serve --store URL`: a local copy of a distributed run's store, kept fresh, that the
//! server reads as its run directory. Game shards and checkpoint files never change once
//! written, so each is fetched once; metrics, ratings and the `latest` pointer are fetched
//! again at every refresh. Optimizer states are left out (the page needs no optimizer).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::layout;
use crate::selfplay::record::is_record_file;
use crate::store::RunStore;
use crate::util::write_atomic;

/// Objects fetched again at every refresh (they are replaced as the run goes on).
const CHANGING: [&str; 6] = [
    layout::CONFIG,
    layout::LATEST,
    layout::LEARNER_METRICS,
    layout::EVALUATION_METRICS,
    layout::METRICS_FILE,
    layout::RATINGS_CSV,
];

/// Whether a key is worth copying, and whether it must be fetched again each time.
fn wanted(key: &str) -> Option<bool> {
    if CHANGING.contains(&key) {
        return Some(true);
    }
    let checkpoint_file = layout::parse_checkpoint_key(key).map(|(_, file)| file);
    let once = is_record_file(Path::new(key))
        || checkpoint_file
            .is_some_and(|f| layout::MODEL_FILES.contains(&f) || f == layout::STATE_FILE);
    once.then_some(false)
}

/// The local path of `key` under `dir`, if the key is a plain relative path.
fn local_path(dir: &Path, key: &str) -> Option<PathBuf> {
    let rel = Path::new(key);
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| dir.join(rel))
}

/// Copies what changed since the last call from `store` into `dir`; returns how many
/// objects were fetched.
pub fn refresh(store: &RunStore, dir: &Path) -> Result<usize, String> {
    let keys = store.list("").map_err(|e| e.to_string())?;
    let mut fetch = Vec::new();
    for key in keys {
        let (Some(again), Some(path)) = (wanted(&key), local_path(dir, &key)) else {
            continue;
        };
        if again || !path.exists() {
            fetch.push((key, path));
        }
    }
    let names: Vec<String> = fetch.iter().map(|(k, _)| k.clone()).collect();
    let objects = store.get_many(&names).map_err(|e| e.to_string())?;
    let mut fetched = 0;
    for ((_, path), bytes) in fetch.iter().zip(objects) {
        let Some(bytes) = bytes else { continue };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        write_atomic(path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        fetched += 1;
    }
    Ok(fetched)
}

/// Opens `location`, copies it into `dir` once, then keeps refreshing it every `period`
/// on a thread of its own (failures are printed and retried at the next refresh).
pub fn start(location: &str, dir: &Path, period: Duration) -> Result<(), String> {
    let store = RunStore::open(location).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    refresh(&store, dir)?;
    let dir = dir.to_path_buf();
    std::thread::spawn(move || loop {
        std::thread::sleep(period);
        if let Err(e) = refresh(&store, &dir) {
            eprintln!("serve: refreshing from {}: {e}", store.location());
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_what_the_page_reads_and_nothing_outside() {
        let root = std::env::temp_dir().join(format!("cz-mirror-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = RunStore::open(root.join("store").to_str().unwrap()).unwrap();
        store
            .put("learner/metrics.jsonl", b"{\"step\":1}\n".to_vec())
            .unwrap();
        store
            .put("games/w-1/00000001.jsonl", b"{}\n".to_vec())
            .unwrap();
        store
            .put("games/w-1/00000002.jsonl.gz", vec![0x1f, 0x8b])
            .unwrap();
        store
            .put("checkpoints/step-00000001/optimizer.safetensors", vec![1])
            .unwrap();
        store
            .put("checkpoints/step-00000001/state.json", b"{}".to_vec())
            .unwrap();
        let local = root.join("local");
        std::fs::create_dir_all(&local).unwrap();
        assert_eq!(refresh(&store, &local).unwrap(), 4);
        assert!(local.join("games/w-1/00000001.jsonl").is_file());
        assert!(local.join("games/w-1/00000002.jsonl.gz").is_file());
        assert!(!local
            .join("checkpoints/step-00000001/optimizer.safetensors")
            .exists());
        // Immutable objects are fetched once; changing ones again.
        store
            .put("learner/metrics.jsonl", b"{\"step\":2}\n".to_vec())
            .unwrap();
        assert_eq!(refresh(&store, &local).unwrap(), 1);
        let text = std::fs::read_to_string(local.join("learner/metrics.jsonl")).unwrap();
        assert!(text.contains("\"step\":2"));
        assert_eq!(local_path(&local, "../x.jsonl"), None);
        assert_eq!(local_path(&local, "/etc/x.jsonl"), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
