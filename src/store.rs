//! The run location as an object store: one interface over a local directory (the default),
//! `s3://bucket/prefix`, `gs://…`, `az://…` and `http(s)://…` (the `object_store` crate).
//!
//! The roles of a distributed run (`learn`, `selfplay`, `evaluate`) share a run only through
//! this: whole-object puts (atomic on every backend: a reader sees the old object or the new
//! one, never part of one), gets, lists and deletes. No step needs a lock: every object has
//! exactly one writer (see `crate::distributed`).
//!
//! Credentials and endpoints come from the environment, as each backend's builder reads it
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`,
//! `AWS_ALLOW_HTTP` for S3 and S3-compatible servers; `GOOGLE_*` and `AZURE_*` likewise).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::TryStreamExt;
use object_store::local::LocalFileSystem;
use object_store::path::Path as StorePath;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

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
}

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
                (Some(path.clone()), local_store(&path).map_err(bad)?)
            } else {
                (None, remote_store(&url, settings).map_err(bad)?)
            }
        } else {
            let path = PathBuf::from(location);
            (Some(path.clone()), local_store(&path).map_err(bad)?)
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
        use futures::StreamExt;
        let one = |key: &String| {
            let request = fetch(Arc::clone(&self.store), StorePath::from(key.as_str()));
            let key = key.clone();
            async move { request.await.map_err(|e| (key, e)) }
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

fn local_store(path: &std::path::Path) -> Result<Arc<dyn ObjectStore>, String> {
    std::fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let store = LocalFileSystem::new_with_prefix(path)
        .map_err(|e| e.to_string())?
        .with_fsync(true);
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

fn remote_store(
    url: &url::Url,
    settings: &[(String, String)],
) -> Result<Arc<dyn ObjectStore>, String> {
    let prefix = StorePath::from_url_path(url.path()).map_err(|e| e.to_string())?;
    let base: Arc<dyn ObjectStore> = match url.scheme() {
        "s3" | "s3a" => Arc::new(
            with_settings(
                object_store::aws::AmazonS3Builder::from_env(),
                settings,
                "AWS_",
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
                .build()
                .map_err(|e| e.to_string())?,
        ),
        "gs" => Arc::new(
            with_settings(
                object_store::gcp::GoogleCloudStorageBuilder::from_env(),
                settings,
                "GOOGLE_",
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
                .build()
                .map_err(|e| e.to_string())?,
        ),
        "az" | "azure" | "abfs" | "abfss" => Arc::new(
            with_settings(
                object_store::azure::MicrosoftAzureBuilder::from_env(),
                settings,
                "AZURE_",
                |b, k, v| b.with_config(k, v),
            )
            .with_url(url.as_str())
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
