//! The run location as an object store: one interface over a local directory (the default),
//! `s3://bucket/prefix`, `gs://…`, `az://…` and `http(s)://…` (the `object_store` crate).
//!
//! The roles of a distributed run (`learn`, `selfplay`, `evaluate`) share a run only through
//! this: whole-object puts (atomic on every backend: a reader sees the old object or the new
//! one, never part of one), gets, lists and deletes. Two conditional puts guard what must not
//! be written twice: [`RunStore::put_new`] writes only a name that does not exist yet, and
//! [`RunStore::get_versioned`] with [`RunStore::put_if`] is a compare-and-swap (the leases of
//! `crate::roles::lease`). Remote stores do both natively (S3, GCS, Azure; not
//! `http(s)://`); a local directory does them with a lock file beside the object.
//!
//! Credentials and endpoints come from the environment, as each backend's builder reads it
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`,
//! `AWS_ALLOW_HTTP` for S3 and S3-compatible servers; `GOOGLE_*` and `AZURE_*` likewise).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::TryStreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path as StorePath;
use object_store::prefix::PrefixStore;
use object_store::{
    ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, PutResult, RetryConfig,
    UpdateVersion,
};

/// Errors of the run store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The location is not a usable path or URL.
    #[error("run location {location:?}: {reason}")]
    Location {
        /// The location as given.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A request to the store failed.
    #[error("{location}/{key}: {source}")]
    Request {
        /// The run location.
        location: String,
        /// The object's key inside the run.
        key: String,
        /// The backend's error.
        source: object_store::Error,
    },
    /// [`RunStore::put_new`] found an object of that name.
    #[error("{location}/{key} exists already, and a run's objects are never overwritten")]
    Exists {
        /// The run location.
        location: String,
        /// The object's key inside the run.
        key: String,
    },
}

/// The folder of a local store's lock files ([`RunStore::put_if`]).
const LOCKS: &str = ".locks";

/// An object's version as [`RunStore::get_versioned`] read it: what [`RunStore::put_if`]
/// compares the stored object with. Only meaningful to the store that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(Tag);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tag {
    /// A remote store's e-tag and version (S3 and Azure match the e-tag, GCS the generation).
    Remote(UpdateVersion),
    /// A local file's contents, by length and hash.
    Local { len: u64, hash: u64 },
}

impl Version {
    /// The version of a local object holding `bytes`.
    fn local(bytes: &[u8]) -> Version {
        use std::hash::Hasher;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        hasher.write(bytes);
        Version(Tag::Local {
            len: bytes.len() as u64,
            hash: hasher.finish(),
        })
    }

    /// The version a remote store named.
    fn remote(e_tag: Option<String>, version: Option<String>) -> Version {
        Version(Tag::Remote(UpdateVersion { e_tag, version }))
    }
}

/// [`RunStore::put_if`] wrote nothing: the object was not at the expected version (another
/// writer changed, created or removed it since it was read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the object changed since it was read")]
pub struct Conflict;

/// Requests [`RunStore::get_many`] keeps in flight.
pub const CONCURRENT_GETS: usize = 16;

/// A run location: keys are `/`-separated paths relative to the run's root.
#[derive(Debug)]
pub struct RunStore {
    location: String,
    /// The directory, for a local store.
    local: Option<PathBuf>,
    store: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
}

impl RunStore {
    /// Opens `location`: a directory path (created if missing), a `file://` URL, or a URL of
    /// a store the `object_store` crate supports (`s3://bucket/prefix`, `gs://`, `az://`,
    /// `http(s)://`), configured from the environment.
    pub fn open(location: &str) -> Result<RunStore, StoreError> {
        RunStore::open_with(location, &[])
    }

    /// Like [`RunStore::open`], with settings that override the environment's, named as
    /// the environment variables are (e.g. `("AWS_ENDPOINT", "http://127.0.0.1:9000")`).
    pub fn open_with(
        location: &str,
        settings: &[(String, String)],
    ) -> Result<RunStore, StoreError> {
        RunStore::open_bounded(location, settings, None)
    }

    /// Like [`RunStore::open_with`]; with `bound`, every request, its retries included, ends
    /// within about `bound` on a remote store, and a local one does not wait for the disk
    /// (`fsync`): a lease's renewal must not outlast the time between renewals, so a
    /// request that hangs fails, and the next one starts afresh.
    pub fn open_bounded(
        location: &str,
        settings: &[(String, String)],
        bound: Option<Duration>,
    ) -> Result<RunStore, StoreError> {
        let bad = |reason: String| StoreError::Location {
            location: location.to_string(),
            reason,
        };
        if location.trim().is_empty() {
            return Err(bad("empty".into()));
        }
        let (local, store): (_, Arc<dyn ObjectStore>) = if location.contains("://") {
            let url = url::Url::parse(location).map_err(|e| bad(e.to_string()))?;
            if url.scheme() == "file" {
                let path = url
                    .to_file_path()
                    .map_err(|()| bad("not a local file URL".into()))?;
                (Some(path.clone()), local_store(&path, bound).map_err(bad)?)
            } else {
                (None, remote_store(&url, settings, bound).map_err(bad)?)
            }
        } else {
            let path = PathBuf::from(location);
            (Some(path.clone()), local_store(&path, bound).map_err(bad)?)
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("run-store")
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start the I/O runtime: {e}")))?;
        Ok(RunStore {
            location: location.trim_end_matches('/').to_string(),
            local,
            store,
            runtime,
        })
    }

    /// The location as opened (for messages).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The directory of a local store (`None` for a remote one): a key `k` is the file
    /// `dir/k`, so local readers and writers can use files in place instead of copies.
    pub fn local_dir(&self) -> Option<&Path> {
        self.local.as_deref()
    }

    fn error(&self, key: &str) -> impl FnOnce(object_store::Error) -> StoreError + '_ {
        let key = key.to_string();
        move |source| StoreError::Request {
            location: self.location.clone(),
            key,
            source,
        }
    }

    /// Writes the object `key` whole (replacing any object of that name, atomically).
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let path = StorePath::from(key);
        self.runtime
            .block_on(self.store.put(&path, PutPayload::from(bytes)))
            .map(|_| ())
            .map_err(self.error(key))
    }

    /// Writes the object `key` only if no object of that name exists; one that does is
    /// [`StoreError::Exists`] and is left as it was. Of writers racing for one name, exactly
    /// one succeeds (`PutMode::Create`: a hard link on a local directory, a conditional
    /// request on S3, GCS and Azure; `http(s)://` stores refuse it).
    pub fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        match self.put_mode(key, bytes, PutMode::Create) {
            Ok(_) => Ok(()),
            Err(object_store::Error::AlreadyExists { .. }) => Err(StoreError::Exists {
                location: self.location.clone(),
                key: key.to_string(),
            }),
            Err(e) => Err(self.error(key)(e)),
        }
    }

    /// One put of `bytes` at `key` in `mode`.
    fn put_mode(
        &self,
        key: &str,
        bytes: Vec<u8>,
        mode: PutMode,
    ) -> Result<PutResult, object_store::Error> {
        let path = StorePath::from(key);
        let payload = PutPayload::from(bytes);
        self.runtime
            .block_on(self.store.put_opts(&path, payload, PutOptions::from(mode)))
    }

    /// The object `key` and its version, for a later [`RunStore::put_if`], or `None` if
    /// there is none.
    pub fn get_versioned(&self, key: &str) -> Result<Option<(Vec<u8>, Version)>, StoreError> {
        let local = self.local.is_some();
        self.runtime
            .block_on(fetch_versioned(
                Arc::clone(&self.store),
                StorePath::from(key),
                local,
            ))
            .map_err(self.error(key))
    }

    /// Compare-and-swap: writes the object `key` only if it is at version `expected` (`None`:
    /// only if there is no such object), and returns the new version. Of writers racing from
    /// one version, exactly one succeeds; the others get `Ok(Err(Conflict))` and write
    /// nothing. Errors are the store's failures, never a lost race.
    ///
    /// Remote stores use `PutMode::Create` and `PutMode::Update` (S3's conditional writes,
    /// GCS generations, Azure e-tags). `object_store`'s local directory has no
    /// `PutMode::Update` (it answers `NotImplemented`), so a local directory takes a lock
    /// file instead (`put_if_local`).
    pub fn put_if(
        &self,
        key: &str,
        bytes: Vec<u8>,
        expected: Option<&Version>,
    ) -> Result<Result<Version, Conflict>, StoreError> {
        if let Some(dir) = self.local.as_deref() {
            return self.put_if_local(dir, key, bytes, expected);
        }
        let mode = match expected {
            None => PutMode::Create,
            Some(Version(Tag::Remote(version))) => PutMode::Update(version.clone()),
            Some(Version(Tag::Local { .. })) => return Ok(Err(Conflict)),
        };
        match self.put_mode(key, bytes, mode) {
            Ok(done) => Ok(Ok(Version::remote(done.e_tag, done.version))),
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. }
                | object_store::Error::NotFound { .. },
            ) => Ok(Err(Conflict)),
            Err(e) => Err(self.error(key)(e)),
        }
    }

    /// [`RunStore::put_if`] on a local directory. A version is the file's contents (length
    /// and hash), so a write that leaves them as they were is not a change. The read, compare
    /// and write run under an exclusive lock (`flock`) on the file `.locks/KEY#0` (apart from
    /// the objects, so that a run's folders hold only objects; listings skip it, as they
    /// skip `object_store`'s own staging files, for the `#`); the write is
    /// `object_store`'s staged file renamed over the object (or hard-linked, for a new one),
    /// so readers never take the lock. The system drops the lock when its process dies, so a
    /// killed writer never leaves a key locked. The guarantee holds among the processes that
    /// write the key through `put_if` on this directory (and on a network filesystem only
    /// where it supports `flock`); a plain [`RunStore::put`] or [`RunStore::delete`] of the
    /// key bypasses it.
    fn put_if_local(
        &self,
        dir: &Path,
        key: &str,
        bytes: Vec<u8>,
        expected: Option<&Version>,
    ) -> Result<Result<Version, Conflict>, StoreError> {
        let lock_path = dir.join(LOCKS).join(format!("{key}#0"));
        let _lock = lock_file(&lock_path).map_err(|e| {
            self.error(key)(object_store::Error::Generic {
                store: "run store",
                source: format!("cannot lock {}: {e}", lock_path.display()).into(),
            })
        })?;
        let current = self.get_versioned(key)?.map(|(_, version)| version);
        if current.as_ref() != expected {
            return Ok(Err(Conflict));
        }
        let version = Version::local(&bytes);
        let mode = match expected {
            None => PutMode::Create,
            Some(_) => PutMode::Overwrite,
        };
        match self.put_mode(key, bytes, mode) {
            Ok(_) => Ok(Ok(version)),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(Err(Conflict)),
            Err(e) => Err(self.error(key)(e)),
        }
    }

    /// The object `key`, or `None` if there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.runtime
            .block_on(fetch(Arc::clone(&self.store), StorePath::from(key)))
            .map_err(self.error(key))
    }

    /// The objects `keys`, in order (`None` for missing ones), fetched up to
    /// [`CONCURRENT_GETS`] at a time: on a remote store, latency, not bandwidth, bounds a
    /// one-at-a-time reader of small objects.
    pub fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
        self.each_key(keys, fetch)
    }

    /// `request` for each of `keys` (the store and the key's path), up to
    /// [`CONCURRENT_GETS`] at a time, the answers in order; the first error names its key.
    fn each_key<T, F, Fut>(&self, keys: &[String], request: F) -> Result<Vec<T>, StoreError>
    where
        F: Fn(Arc<dyn ObjectStore>, StorePath) -> Fut,
        Fut: std::future::Future<Output = Result<T, object_store::Error>>,
    {
        use futures::StreamExt;
        let one = |key: &String| {
            let answer = request(Arc::clone(&self.store), StorePath::from(key.as_str()));
            let key = key.clone();
            async move { answer.await.map_err(|e| (key, e)) }
        };
        let results: Vec<_> = self.runtime.block_on(
            futures::stream::iter(keys.iter().map(one))
                .buffered(CONCURRENT_GETS)
                .collect(),
        );
        results
            .into_iter()
            .map(|r| r.map_err(|(key, e)| self.error(&key)(e)))
            .collect()
    }

    /// The object `key` as UTF-8 text, or `None` if there is none.
    pub fn get_text(&self, key: &str) -> Result<Option<String>, StoreError> {
        self.get(key)?
            .map(|bytes| {
                String::from_utf8(bytes).map_err(|_| StoreError::Request {
                    location: self.location.clone(),
                    key: key.to_string(),
                    source: object_store::Error::Generic {
                        store: "run store",
                        source: "not UTF-8 text".into(),
                    },
                })
            })
            .transpose()
    }

    /// The keys of every object under `prefix` (a folder, without a trailing `/`), sorted.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let path = StorePath::from(prefix);
        let prefix_arg = (!prefix.is_empty()).then_some(&path);
        let mut keys: Vec<String> = self
            .runtime
            .block_on(
                self.store
                    .list(prefix_arg)
                    .map_ok(|meta| meta.location.to_string())
                    .try_collect(),
            )
            .map_err(self.error(prefix))?;
        keys.sort();
        Ok(keys)
    }

    /// Removes the object `key` (no error if it is missing).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = StorePath::from(key);
        match self.runtime.block_on(self.store.delete(&path)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(key)(e)),
        }
    }

    /// Removes the objects `keys` (no error for missing ones), up to [`CONCURRENT_GETS`] at
    /// a time, as [`RunStore::get_many`] reads them.
    pub fn delete_many(&self, keys: &[String]) -> Result<(), StoreError> {
        self.each_key(keys, |store, path| async move {
            match store.delete(&path).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e),
            }
        })?;
        Ok(())
    }
}

/// The object at `path`, or `None` if there is none.
async fn fetch(
    store: Arc<dyn ObjectStore>,
    path: StorePath,
) -> Result<Option<Vec<u8>>, object_store::Error> {
    match store.get(&path).await {
        Ok(found) => found.bytes().await.map(|b| Some(b.to_vec())),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The object at `path` and its version (a local store's: by its contents), or `None` if
/// there is none.
async fn fetch_versioned(
    store: Arc<dyn ObjectStore>,
    path: StorePath,
    local: bool,
) -> Result<Option<(Vec<u8>, Version)>, object_store::Error> {
    let found = match store.get(&path).await {
        Ok(found) => found,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let e_tag = found.meta.e_tag.clone();
    let remote_version = found.meta.version.clone();
    let bytes = found.bytes().await?.to_vec();
    let version = if local {
        Version::local(&bytes)
    } else {
        Version::remote(e_tag, remote_version)
    };
    Ok(Some((bytes, version)))
}

/// Opens (creating it and its folder if need be) and exclusively locks the file `path`,
/// waiting for the lock. The lock lasts until the file is dropped, or its process dies.
fn lock_file(path: &Path) -> std::io::Result<std::fs::File> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    file.lock()?;
    Ok(file)
}

/// A directory store; its writes reach the disk before they return (`fsync`), except on a
/// bounded store (a lease's renewals): a lease is worth nothing once its machine stops, and
/// a renewal must not wait on a busy disk past the time between renewals.
fn local_store(
    path: &std::path::Path,
    bound: Option<Duration>,
) -> Result<Arc<dyn ObjectStore>, String> {
    std::fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let store = LocalFileSystem::new_with_prefix(path)
        .map_err(|e| e.to_string())?
        .with_fsync(bound.is_none());
    Ok(Arc::new(store))
}

/// Applies the `settings` whose names parse as config keys of a builder (`AWS_ENDPOINT` →
/// `aws_endpoint`), as the builders' `from_env` does for the environment.
fn with_settings<B, K: std::str::FromStr>(
    builder: B,
    settings: &[(String, String)],
    prefix: &str,
    apply: impl Fn(B, K, &str) -> B,
) -> B {
    settings
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .filter_map(|(name, value)| Some((name.to_ascii_lowercase().parse::<K>().ok()?, value)))
        .fold(builder, |b, (key, value)| apply(b, key, value))
}

/// Client settings, named as environment variables under `prefix`, that end one try of a
/// request within `bound` (none without a bound).
fn bound_settings(prefix: &str, bound: Option<Duration>) -> Vec<(String, String)> {
    let Some(bound) = bound else {
        return Vec::new();
    };
    let ms = |d: Duration| format!("{}ms", d.as_millis().max(1));
    vec![
        (format!("{prefix}TIMEOUT"), ms(bound)),
        (
            format!("{prefix}CONNECT_TIMEOUT"),
            ms(bound.min(Duration::from_secs(5))),
        ),
        (format!("{prefix}POOL_IDLE_TIMEOUT"), ms(bound)),
    ]
}

/// The retries of a request: `object_store`'s (10 tries within 3 minutes), or with a bound
/// one more try within it.
fn retries_within(bound: Option<Duration>) -> RetryConfig {
    match bound {
        None => RetryConfig::default(),
        Some(bound) => RetryConfig {
            max_retries: 1,
            retry_timeout: bound,
            ..RetryConfig::default()
        },
    }
}

/// The builder `builder` with the `settings` and the bound's client settings whose names
/// start with `prefix`.
fn configured<B, K: std::str::FromStr>(
    builder: B,
    settings: &[(String, String)],
    prefix: &str,
    bound: Option<Duration>,
    apply: impl Fn(B, K, &str) -> B,
) -> B {
    let builder = with_settings(builder, settings, prefix, &apply);
    with_settings(builder, &bound_settings(prefix, bound), prefix, apply)
}

fn remote_store(
    url: &url::Url,
    settings: &[(String, String)],
    bound: Option<Duration>,
) -> Result<Arc<dyn ObjectStore>, String> {
    let prefix = StorePath::from_url_path(url.path()).map_err(|e| e.to_string())?;
    let retry = retries_within(bound);
    let base: Arc<dyn ObjectStore> = match url.scheme() {
        "s3" | "s3a" => Arc::new(
            configured(
                object_store::aws::AmazonS3Builder::from_env(),
                settings,
                "AWS_",
                bound,
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
            .with_retry(retry)
            .build()
            .map_err(|e| e.to_string())?,
        ),
        "gs" => Arc::new(
            configured(
                object_store::gcp::GoogleCloudStorageBuilder::from_env(),
                settings,
                "GOOGLE_",
                bound,
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
            .with_retry(retry)
            .build()
            .map_err(|e| e.to_string())?,
        ),
        "az" | "azure" | "abfs" | "abfss" => Arc::new(
            configured(
                object_store::azure::MicrosoftAzureBuilder::from_env(),
                settings,
                "AZURE_",
                bound,
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
            .with_retry(retry)
            .build()
            .map_err(|e| e.to_string())?,
        ),
        "http" | "https" => {
            let root = format!("{}://{}", url.scheme(), url.authority());
            Arc::new(
                object_store::http::HttpBuilder::new()
                    .with_url(root)
                    .build()
                    .map_err(|e| e.to_string())?,
            )
        }
        other => {
            return Err(format!(
                "unsupported scheme {other:?} (use a directory, file://, s3://, gs://, az:// or http(s)://)"
            ))
        }
    };
    Ok(if prefix.as_ref().is_empty() {
        base
    } else {
        Arc::new(PrefixStore::new(base, prefix))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An S3 endpoint on 127.0.0.1 that accepts connections and never answers.
    fn silent_s3() -> (std::net::TcpListener, Vec<(String, String)>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let env = [
            ("AWS_ACCESS_KEY_ID", "key"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ENDPOINT", endpoint.as_str()),
            ("AWS_ALLOW_HTTP", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        (listener, env)
    }

    #[test]
    fn a_bounded_store_gives_up_on_a_silent_server_within_its_bound() {
        let (_listener, env) = silent_s3();
        let bound = Duration::from_millis(500);
        let store = RunStore::open_bounded("s3://runs/x", &env, Some(bound)).unwrap();
        let started = std::time::Instant::now();
        let error = store.get("leases/learner.json").unwrap_err();
        let took = started.elapsed();
        // One try and one retry, each cut at the bound, with a backoff between.
        assert!(took < Duration::from_secs(5), "{took:?}: {error}");
        assert!(matches!(error, StoreError::Request { .. }), "{error}");
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cz-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn local_directory_round_trips_lists_and_deletes() {
        let dir = temp_dir("local");
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        assert_eq!(store.get("missing/key").unwrap(), None);
        store
            .put("games/a/00000001.jsonl", b"one".to_vec())
            .unwrap();
        store
            .put("games/a/00000000.jsonl", b"zero".to_vec())
            .unwrap();
        store.put("games/b/00000000.jsonl", b"b".to_vec()).unwrap();
        store.put("checkpoints/latest", b"step-1".to_vec()).unwrap();
        store.put("checkpoints/latest", b"step-2".to_vec()).unwrap();
        assert_eq!(
            store.get_text("checkpoints/latest").unwrap().as_deref(),
            Some("step-2")
        );
        assert_eq!(
            store.list("games").unwrap(),
            [
                "games/a/00000000.jsonl",
                "games/a/00000001.jsonl",
                "games/b/00000000.jsonl"
            ]
        );
        assert_eq!(store.list("nothing").unwrap(), Vec::<String>::new());
        store.delete("games/a/00000000.jsonl").unwrap();
        store.delete("games/a/00000000.jsonl").unwrap();
        assert_eq!(store.list("games/a").unwrap(), ["games/a/00000001.jsonl"]);
        // Several at once, a missing one among them.
        let many = ["games/a/00000001.jsonl", "games/a/00000009.jsonl"].map(String::from);
        store.delete_many(&many).unwrap();
        assert_eq!(store.list("games/a").unwrap(), Vec::<String>::new());
        // The objects are plain files under the directory.
        assert_eq!(
            std::fs::read(dir.join("games/b/00000000.jsonl")).unwrap(),
            b"b"
        );
        let via_url = RunStore::open(&format!("file://{}", dir.display())).unwrap();
        assert_eq!(
            via_url.get("games/b/00000000.jsonl").unwrap().unwrap(),
            b"b"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn put_new_never_overwrites() {
        let dir = temp_dir("put-new");
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        let key = "checkpoints/step-00000001/state.json";
        store.put_new(key, b"one".to_vec()).unwrap();
        let error = store.put_new(key, b"two".to_vec()).unwrap_err();
        assert!(matches!(error, StoreError::Exists { .. }), "{error}");
        let words = error.to_string();
        assert!(words.contains(key), "{words}");
        assert!(words.contains("exists already"), "{words}");
        assert!(words.contains("never overwritten"), "{words}");
        assert_eq!(store.get(key).unwrap().unwrap(), b"one");
        assert_eq!(store.list("checkpoints").unwrap(), [key]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn compare_and_swap_on_a_local_directory() {
        let dir = temp_dir("cas");
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        let key = "leases/learner.json";
        assert_eq!(store.get_versioned(key).unwrap(), None);
        let first = store.put_if(key, b"one".to_vec(), None).unwrap().unwrap();
        assert_eq!(
            store.put_if(key, b"other".to_vec(), None).unwrap(),
            Err(Conflict)
        );
        let (bytes, read) = store.get_versioned(key).unwrap().unwrap();
        assert_eq!(bytes, b"one");
        assert_eq!(read, first);
        let second = store
            .put_if(key, b"two".to_vec(), Some(&read))
            .unwrap()
            .unwrap();
        assert_eq!(
            store.put_if(key, b"stale".to_vec(), Some(&first)).unwrap(),
            Err(Conflict)
        );
        assert_eq!(store.get(key).unwrap().unwrap(), b"two");
        // The lock file beside the object is no object.
        assert_eq!(store.list("leases").unwrap(), [key]);
        store.delete(key).unwrap();
        assert_eq!(
            store.put_if(key, b"three".to_vec(), Some(&second)).unwrap(),
            Err(Conflict)
        );
        assert_eq!(store.get(key).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn racing_compare_and_swaps_lose_no_update() {
        let dir = temp_dir("cas-race");
        let key = "counter";
        let (threads, each) = (4, 20);
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let dir = dir.clone();
                std::thread::spawn(move || {
                    // Each its own store, as separate processes would be.
                    let store = RunStore::open(dir.to_str().unwrap()).unwrap();
                    for _ in 0..each {
                        loop {
                            let current = store.get_versioned(key).unwrap();
                            let (count, version) = match &current {
                                Some((bytes, version)) => {
                                    let text = String::from_utf8_lossy(bytes);
                                    (text.parse::<u64>().unwrap(), Some(version))
                                }
                                None => (0, None),
                            };
                            let next = (count + 1).to_string().into_bytes();
                            if store.put_if(key, next, version).unwrap().is_ok() {
                                break;
                            }
                        }
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        let total = (threads * each).to_string();
        assert_eq!(store.get_text(key).unwrap(), Some(total));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_locations_are_clear_errors() {
        for (location, expect) in [
            ("", "empty"),
            ("ftp://host/x", "unsupported scheme"),
            ("s3://", "run location"),
        ] {
            let error = RunStore::open(location).unwrap_err().to_string();
            assert!(error.contains(expect), "{location}: {error}");
        }
    }
}
