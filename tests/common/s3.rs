//! A real S3-compatible server for tests: `s3s-fs` (installed by `scripts/setup` and linked as
//! `.tools/s3s-fs`, or named by `$CHECKERS_ZERO_S3S_FS`) on a free loopback port, serving a
//! fresh temporary directory. Tests that need it call [`server_or_skip`], which returns `None`
//! (after saying why on stderr) where the server is not installed, and fails under `CI=true`.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Environment variable naming an `s3s-fs` binary to use instead of `.tools/s3s-fs`.
pub const BINARY_VAR: &str = "CHECKERS_ZERO_S3S_FS";
/// Access key the server accepts.
pub const ACCESS_KEY: &str = "checkers-zero-test";
/// Secret key the server accepts.
pub const SECRET_KEY: &str = "checkers-zero-test-secret";
/// Region the clients sign for (s3s-fs accepts any).
pub const REGION: &str = "us-east-1";

/// How long the server may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts with a new port when the server exits at start (the port was taken meanwhile).
const START_ATTEMPTS: usize = 3;

/// A running `s3s-fs` on `127.0.0.1`, killed and its data removed on drop.
pub struct S3Server {
    child: Child,
    port: u16,
    /// Temporary directory: `data/` is the server's root, `server.log` its output.
    base: PathBuf,
}

impl S3Server {
    /// Starts the server on a free loopback port with a fresh empty root. `Err` says why it
    /// could not (binary missing, server exited, did not accept connections in time).
    pub fn start() -> Result<S3Server, String> {
        let binary = binary()?;
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let base = super::fresh_dir(&format!("s3-{}", COUNT.fetch_add(1, Ordering::Relaxed)));
        let mut last_error = String::new();
        for _ in 0..START_ATTEMPTS {
            match start_in(&binary, &base, None) {
                Ok((child, port)) => return Ok(S3Server { child, port, base }),
                Err(e) => last_error = e,
            }
        }
        let _ = std::fs::remove_dir_all(&base);
        Err(last_error)
    }

    /// Stops the server (a store outage); its data stays.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again after [`S3Server::stop`], on the same port and data.
    pub fn restart(&mut self) -> Result<(), String> {
        let (child, _) = start_in(&binary()?, &self.base, Some(self.port))?;
        self.child = child;
        Ok(())
    }

    /// The server's URL, `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates an empty bucket `name` (s3s-fs keeps a bucket as a directory of its root).
    pub fn create_bucket(&self, name: &str) {
        std::fs::create_dir(self.base.join("data").join(name)).expect("bucket directory");
    }

    /// The directory s3s-fs keeps bucket `name`'s objects in, a file per key (a test reads
    /// the objects there without loading the server).
    pub fn bucket_dir(&self, name: &str) -> PathBuf {
        self.base.join("data").join(name)
    }

    /// The variables a child process needs for `AmazonS3Builder::from_env()` to reach this
    /// server ([`client_env`]).
    pub fn env(&self) -> Vec<(String, String)> {
        client_env(&self.endpoint())
    }
}

/// The variables a child process needs for `AmazonS3Builder::from_env()` to reach an S3
/// server at `endpoint` (path-style requests over plain HTTP, this module's keys). The
/// bucket is not included.
pub fn client_env(endpoint: &str) -> Vec<(String, String)> {
    [
        ("AWS_ACCESS_KEY_ID", ACCESS_KEY),
        ("AWS_SECRET_ACCESS_KEY", SECRET_KEY),
        ("AWS_REGION", REGION),
        ("AWS_ENDPOINT", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "false"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// Starts a server, or where no `s3s-fs` is installed fails under `CI=true` and otherwise
/// returns `None` after printing `SKIPPED: ...` on stderr. An installed server that fails to
/// start fails the test.
pub fn server_or_skip() -> Option<S3Server> {
    if let Err(reason) = binary() {
        super::missing_tool("s3s-fs (an S3-compatible server)", &reason);
        return None;
    }
    Some(S3Server::start().unwrap_or_else(|e| panic!("S3 server: {e}")))
}

/// The `s3s-fs` binary: `$CHECKERS_ZERO_S3S_FS`, else `<repo>/.tools/s3s-fs`.
fn binary() -> Result<PathBuf, String> {
    let (path, source) = match std::env::var_os(BINARY_VAR) {
        Some(p) if !p.is_empty() => (PathBuf::from(p), format!("${BINARY_VAR}")),
        _ => (
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/s3s-fs"),
            "the project".to_string(),
        ),
    };
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("s3s-fs not found at {} ({source})", path.display()))
    }
}

/// A port that was free a moment ago on 127.0.0.1.
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| e.to_string())?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// One attempt: spawns the server on `port` (a fresh one, with an empty root, when `None`;
/// else on the data there) and waits until it accepts connections.
fn start_in(binary: &Path, base: &Path, port: Option<u16>) -> Result<(Child, u16), String> {
    let root = base.join("data");
    if port.is_none() {
        let _ = std::fs::remove_dir_all(&root);
    }
    std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let log_path = base.join("server.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| e.to_string())?;
    let port = match port {
        Some(port) => port,
        None => free_port()?,
    };
    let mut child = Command::new(binary)
        .args(["--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
        .arg(&root)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            return Err(format!("s3s-fs exited at start ({status}) {}", log.trim()));
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok((child, port));
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "s3s-fs did not accept connections on {addr} within {START_TIMEOUT:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
