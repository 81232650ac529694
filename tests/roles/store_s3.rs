//! What the run location's design relies on, checked against a real S3-compatible server
//! (`s3s-fs` on loopback, see `tests/common/s3.rs`) through `object_store`'s S3 client:
//! round trips, listing under a prefix, overwrite, NotFound, delete and conditional puts.
//! Skipped with a message where the server is not installed (a failure under `CI=true`).

use crate::common;

use common::s3::{server_or_skip, S3Server};
use futures::TryStreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

const BUCKET: &str = "runs";

/// A client for `bucket` configured only from the variables the server hands to children,
/// parsed the way `AmazonS3Builder::from_env` does (the test's own environment is untouched).
fn store(server: &S3Server, bucket: &str) -> AmazonS3 {
    let mut builder = AmazonS3Builder::new().with_bucket_name(bucket);
    for (key, value) in server.env() {
        let key = key
            .to_ascii_lowercase()
            .parse()
            .expect("known AWS_ variable");
        builder = builder.with_config(key, value);
    }
    builder.build().expect("S3 client")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn get_bytes(store: &AmazonS3, path: &Path) -> object_store::Result<Vec<u8>> {
    Ok(store.get(path).await?.bytes().await?.to_vec())
}

/// Sorted paths and sizes of everything under `prefix`.
async fn listing(store: &AmazonS3, prefix: &str) -> Vec<(String, u64)> {
    let mut all: Vec<(String, u64)> = store
        .list(Some(&Path::from(prefix)))
        .map_ok(|meta| (meta.location.to_string(), meta.size))
        .try_collect()
        .await
        .expect("list");
    all.sort();
    all
}

#[test]
fn object_store_flow_against_s3s_fs() {
    let Some(server) = server_or_skip() else {
        return;
    };
    server.create_bucket(BUCKET);
    let store = store(&server, BUCKET);
    runtime().block_on(async {
        // Put then get round-trips arbitrary bytes, including an empty object.
        let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let model = Path::from("run1/models/000003.ot");
        store.put(&model, bytes.clone().into()).await.unwrap();
        assert_eq!(get_bytes(&store, &model).await.unwrap(), bytes);
        let empty = Path::from("run1/empty");
        store.put(&empty, PutPayload::default()).await.unwrap();
        assert!(get_bytes(&store, &empty).await.unwrap().is_empty());
        assert_eq!(store.head(&model).await.unwrap().size, bytes.len() as u64);

        // Listing a prefix gives exactly the objects under it, not a sibling with a longer name.
        let mut expected = Vec::new();
        for i in 0..20u64 {
            let key = format!("run1/games/{i:05}.bin");
            let body = vec![i as u8; i as usize + 1];
            store
                .put(&Path::from(key.as_str()), body.into())
                .await
                .unwrap();
            expected.push((key, i + 1));
        }
        store
            .put(&Path::from("run1/games2/x"), "y".into())
            .await
            .unwrap();
        store
            .put(&Path::from("run2/games/00000.bin"), "z".into())
            .await
            .unwrap();
        assert_eq!(listing(&store, "run1/games").await, expected);
        assert_eq!(listing(&store, "run1").await.len(), 20 + 3);
        let top = store
            .list_with_delimiter(Some(&Path::from("run1")))
            .await
            .unwrap();
        let dirs: Vec<String> = top.common_prefixes.iter().map(|p| p.to_string()).collect();
        assert_eq!(dirs, ["run1/games", "run1/games2", "run1/models"]);
        let files: Vec<String> = top.objects.iter().map(|o| o.location.to_string()).collect();
        assert_eq!(files, ["run1/empty"]);

        // Overwrite replaces the whole object and gives a new ETag.
        let state = Path::from("run1/state.json");
        let first = store.put(&state, "{\"step\":1}".into()).await.unwrap();
        let second = store.put(&state, "{\"step\":22}".into()).await.unwrap();
        assert_eq!(get_bytes(&store, &state).await.unwrap(), b"{\"step\":22}");
        assert!(second.e_tag.is_some());
        assert_ne!(first.e_tag, second.e_tag);

        // A missing key is NotFound for head and get.
        let missing = Path::from("run1/models/999999.ot");
        let err = store.head(&missing).await.unwrap_err();
        assert!(matches!(err, object_store::Error::NotFound { .. }), "{err}");
        let err = store.get(&missing).await.unwrap_err();
        assert!(matches!(err, object_store::Error::NotFound { .. }), "{err}");

        // Delete removes the object from get and from listings.
        store.delete(&expected[0].0.as_str().into()).await.unwrap();
        let err = store
            .head(&expected[0].0.as_str().into())
            .await
            .unwrap_err();
        assert!(matches!(err, object_store::Error::NotFound { .. }), "{err}");
        assert_eq!(listing(&store, "run1/games").await, expected[1..]);

        // Conditional puts: create-if-absent, and update only from the version read.
        let lock = Path::from("run1/lock");
        let create = PutOptions::from(PutMode::Create);
        let made = store
            .put_opts(&lock, "a".into(), create.clone())
            .await
            .unwrap();
        let err = store.put_opts(&lock, "b".into(), create).await.unwrap_err();
        assert!(
            matches!(err, object_store::Error::AlreadyExists { .. }),
            "{err}"
        );
        let read = store.get(&lock).await.unwrap().meta;
        assert_eq!(read.e_tag, made.e_tag, "get reports the ETag put returned");
        let current = UpdateVersion {
            e_tag: read.e_tag,
            version: read.version,
        };
        store
            .put_opts(&lock, "c".into(), PutMode::Update(current.clone()).into())
            .await
            .unwrap();
        let err = store
            .put_opts(&lock, "d".into(), PutMode::Update(current).into())
            .await
            .unwrap_err();
        assert!(
            matches!(err, object_store::Error::Precondition { .. }),
            "{err}"
        );
        assert_eq!(get_bytes(&store, &lock).await.unwrap(), b"c");
    });
}

#[test]
fn missing_bucket_is_an_error_not_a_panic() {
    let Some(server) = server_or_skip() else {
        return;
    };
    let store = store(&server, "no-such-bucket");
    runtime().block_on(async {
        let err = store.list(None).try_collect::<Vec<_>>().await.unwrap_err();
        assert!(err.to_string().contains("NoSuchBucket"), "{err}");
        let err = store.head(&Path::from("x")).await.unwrap_err();
        assert!(matches!(err, object_store::Error::NotFound { .. }), "{err}");
    });
}

#[test]
fn a_missing_tool_fails_under_ci_naming_it_and_is_skipped_elsewhere() {
    let failure = common::missing_tool_verdict("s3s-fs", "no .tools/s3s-fs", true).unwrap();
    assert!(
        failure.starts_with("s3s-fs is missing (no .tools/s3s-fs)"),
        "{failure}"
    );
    assert!(failure.contains("CI=true"), "{failure}");
    assert_eq!(
        common::missing_tool_verdict("s3s-fs", "no .tools/s3s-fs", false),
        None
    );
}
