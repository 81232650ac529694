//! Chromium under chromedriver, and the page as a test drives it: scripts, waits, clicks,
//! screenshots and the browser console.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// chromedriver, killed when dropped.
pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| PathBuf::from(d).join(name))
        .find(|p| p.is_file())
}

/// Starts chromedriver, or says why the browser tests cannot run.
pub fn driver() -> Result<(Driver, u16), String> {
    let chromedriver = on_path("chromedriver").ok_or("no chromedriver on PATH")?;
    on_path("chromium").ok_or("no chromium on PATH")?;
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let child = Command::new(chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("chromedriver does not start: {e}"))?;
    let driver = Driver(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err("chromedriver did not listen within 20 s".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((driver, port))
}

/// Chromium in a 1280x860 window, its console kept for [`Page::no_console_errors`].
pub async fn browser(port: u16) -> Result<Client, String> {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,860"]}),
    );
    caps.insert("goog:loggingPrefs".into(), json!({"browser": "ALL"}));
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .map_err(|e| format!("chromium does not start under chromedriver: {e}"))
}

/// chromedriver's browser log (the console): entries since the last call.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or("")))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({"type": "browser"}).to_string()),
        )
    }
}

/// The page under test and where its screenshots go.
pub struct Page {
    pub client: Client,
    pub shots: PathBuf,
}

impl Page {
    pub async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    /// Waits until `script` returns true (and no request is in flight).
    pub async fn wait(&self, what: &str, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let check =
            format!("return window.__czPending && window.__czPending() === 0 && ({script});");
        while self.js(&check).await != json!(true) {
            if Instant::now() > deadline {
                let page = self.js("return [window.__cz, document.getElementById('status').textContent, document.getElementById('message').textContent];").await;
                panic!("timed out waiting for {what}: {page}");
            }
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    /// Clicks the element `css` names (again if the page redrew it in between, as the
    /// engine's updates do), then waits for the page to settle.
    pub async fn click(&self, css: &str) {
        for attempt in 0.. {
            let element = self
                .client
                .find(Locator::Css(css))
                .await
                .unwrap_or_else(|e| panic!("{css}: {e}"));
            match element.click().await {
                Ok(()) => break,
                Err(e) if attempt < 10 && e.to_string().contains("stale") => continue,
                Err(e) => panic!("click {css}: {e}"),
            }
        }
        self.wait(css, "true").await;
    }

    /// The turns played up to the end of the line.
    pub async fn history(&self) -> Vec<Value> {
        self.js("return window.__cz.history.slice(1);")
            .await
            .as_array()
            .unwrap()
            .clone()
    }

    /// Sets a form control's value and fires its change event.
    pub async fn set(&self, id: &str, value: &str) {
        let value = json!(value);
        self.js(&format!(
            "const e = document.getElementById('{id}'); e.value = {value}; \
             e.dispatchEvent(new Event('change'));"
        ))
        .await;
    }

    /// The text of an element.
    pub async fn text(&self, id: &str) -> String {
        let v = self
            .js(&format!(
                "return document.getElementById('{id}').textContent;"
            ))
            .await;
        v.as_str().unwrap_or_default().to_string()
    }

    /// Chooses the game and who plays each seat, and loads `position` (or the start).
    pub async fn setup(&self, game: &str, seats: &[&str], position: Option<&str>) {
        self.set("game", game).await;
        let n = seats.len();
        self.wait(
            "the new game",
            &format!(
                "window.__cz && document.getElementById('seat-controls').children.length === {n}"
            ),
        )
        .await;
        for (i, who) in seats.iter().enumerate() {
            self.set(&format!("seat-{i}"), who).await;
        }
        // A model seat may have moved while the seats were being chosen: start afresh.
        match position {
            Some(p) => {
                let text = json!(p);
                self.js(&format!(
                    "document.getElementById('position-text').value = {text};"
                ))
                .await;
                self.click("#load-position").await;
                self.wait(
                    &format!("the position {text}"),
                    &format!("window.__cz.position === {text}"),
                )
                .await;
            }
            None => self.click("#new-game").await,
        }
        if seats.iter().all(|s| *s == "person") {
            self.wait("a fresh game", "window.__cz.history.length === 1")
                .await;
        }
    }

    pub async fn click_cells(&self, cells: &[String]) {
        for cell in cells {
            self.click(&format!("#board-{cell}")).await;
        }
    }

    /// A screenshot `name.png`; at a phone's width (under 700 px) `name-phone.png`, unless
    /// the name says so already.
    pub async fn shot(&self, name: &str) {
        let narrow = self.js("return window.innerWidth < 700;").await == json!(true);
        let name = if narrow && !name.starts_with("phone") {
            format!("{name}-phone")
        } else {
            name.to_string()
        };
        let png = self.client.screenshot().await.unwrap();
        std::fs::create_dir_all(&self.shots).unwrap();
        std::fs::write(self.shots.join(format!("{name}.png")), png).unwrap();
    }

    /// Fails with the console's errors since the last look, if any.
    pub async fn no_console_errors(&self, during: &str) {
        self.only_console_errors(during, &[]).await;
    }

    /// Fails with the console's errors since the last look but those whose message holds
    /// one of `expected` (the browser logs each answer with an error status that a check
    /// asked for on purpose: "the server responded with a status of 422").
    pub async fn only_console_errors(&self, during: &str, expected: &[&str]) {
        let log = self.client.issue_cmd(BrowserLog).await.unwrap();
        let errors: Vec<&Value> = log
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["level"] == json!("SEVERE"))
                    .filter(|e| {
                        let message = e["message"].as_str().unwrap_or_default();
                        !expected.iter().any(|x| message.contains(*x))
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            errors.is_empty(),
            "console errors during {during}: {errors:?}"
        );
    }

    /// Sends `keys` (WebDriver's key codes: "\u{E012}" is ←) to the element that has the
    /// focus, as a person typing would, then waits for the page to settle.
    pub async fn press(&self, keys: &str) {
        let focused = self.client.active_element().await.unwrap();
        focused
            .send_keys(keys)
            .await
            .unwrap_or_else(|e| panic!("keys {keys:?}: {e}"));
        self.wait("the keys", "true").await;
    }
}

/// Whether the check `name` (its function's name) runs: every check, unless
/// `CZ_WEB_ONLY` names some, comma-separated (`CZ_WEB_ONLY=graph,watch`), to run a check
/// alone, e.g. against the page's files before a fix (`CZ_WEB_ASSETS`, docs/web.md).
pub fn wanted(name: &str) -> bool {
    match std::env::var("CZ_WEB_ONLY") {
        Ok(only) if !only.trim().is_empty() => only.split(',').any(|n| n.trim() == name),
        _ => true,
    }
}
