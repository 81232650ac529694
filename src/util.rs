//! Small shared helpers: atomic file writes, per-game seeds, the process's CPU time.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temp file in the same folder, flushed to disk,
/// then renamed over `path`. Readers see the old file or the new one, never a torn write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(name);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The seed of game number `index` of a run seeded with `seed` (SplitMix64 of both).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// CPU seconds this process has used so far, user and system, over all its threads (`None`
/// where the system does not tell).
pub fn process_cpu_seconds() -> Option<f64> {
    use nix::sys::resource::{getrusage, UsageWho};
    use nix::sys::time::{TimeVal, TimeValLike};
    let usage = getrusage(UsageWho::RUSAGE_SELF).ok()?;
    let seconds = |t: TimeVal| t.num_microseconds() as f64 / 1e6;
    Some(seconds(usage.user_time()) + seconds(usage.system_time()))
}

/// This process's resident memory now and at its peak, KiB (`VmRSS`, `VmHWM` of
/// `/proc/self/status`; `None` where the system does not tell).
pub fn process_memory_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Bytes of the files under `dir`, walked through (links not followed). Files that vanish
/// during the walk (retention thinning) are not counted.
pub fn dir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            total += dir_bytes(&entry.path()).unwrap_or(0);
        } else if kind.is_file() {
            total += entry.metadata().map_or(0, |m| m.len());
        }
    }
    Ok(total)
}

/// Removes the scratch folders `PREFIX-ROLE-PID-MILLIS-N` (a role's [work directory]) in
/// `dir` whose process is gone: a role killed before it could remove its own. Reads
/// `/proc` (Linux); elsewhere it removes nothing. Returns how many it removed.
///
/// [work directory]: crate::roles::WorkDir
pub fn sweep_stale_work_dirs(dir: &Path, prefix: &str) -> usize {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let fields: Vec<&str> = rest.rsplitn(4, '-').collect();
        let numeric = fields.len() == 4 && fields[..3].iter().all(|f| f.parse::<u64>().is_ok());
        if numeric && !proc.join(fields[2]).exists() && entry.path().is_dir() {
            removed += usize::from(std::fs::remove_dir_all(entry.path()).is_ok());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("cz-util-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.txt");
        super::write_atomic(&path, b"one").unwrap();
        super::write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_process_cpu_time_grows_with_work() {
        let before = super::process_cpu_seconds().unwrap();
        let mut x = 1u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 50 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = super::process_cpu_seconds().unwrap();
        assert!(after > before, "{before} -> {after}");
    }

    #[test]
    fn memory_is_read_and_the_peak_is_at_least_now() {
        let (now, peak) = super::process_memory_kib().unwrap();
        assert!(now > 0 && peak >= now, "{now} {peak}");
    }

    #[test]
    fn dir_bytes_counts_nested_files() {
        let dir = std::env::temp_dir().join(format!("cz-util-bytes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("x"), [0u8; 10]).unwrap();
        std::fs::write(dir.join("a/b/y"), [0u8; 32]).unwrap();
        assert_eq!(super::dir_bytes(&dir).unwrap(), 42);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn work_dirs_of_gone_processes_are_swept_and_live_ones_kept() {
        let dir = std::env::temp_dir().join(format!("cz-util-sweep-{}", std::process::id()));
        let me = std::process::id();
        // No process has a pid this large (Linux caps pids at 2^22).
        let gone = dir.join("cz-work-learn-999999999-1795923399209-0");
        let live = dir.join(format!("cz-work-learn-{me}-1795923399209-0"));
        let other = dir.join("cz-work-notes");
        for d in [&gone, &live, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        let removed = super::sweep_stale_work_dirs(&dir, "cz-work-");
        if std::path::Path::new("/proc/self").exists() {
            assert_eq!(removed, 1);
            assert!(!gone.exists());
        }
        assert!(live.exists() && other.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
