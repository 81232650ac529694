//! The web page in a real browser: Chromium driven over WebDriver (chromedriver). Plays a
//! whole short game by clicks in each game, enters a multi-capture and an Eximo drop, sees an
//! illegal click refused, has the model answer, runs an analysis, replays a self-play game and
//! opens the dashboard of a tiny run; takes a screenshot of each view (into
//! `$CZ_WEB_SCREENSHOTS` when set, e.g. `docs/web`, else the test's temporary folder).
//! Without chromium and chromedriver (`scripts/setup` installs them) the test prints SKIPPED.

mod common;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use checkers_zero::game::turns::parse_turn;
use checkers_zero::game::{GameKind, GameState, RulesConfig};
use checkers_zero::serve::clicks::clicks_for_turn;
use checkers_zero::serve::{serve_in_background, ServeConfig, ServeOptions};
use checkers_zero::with_game;
use common::web::{position_with_turn, short_game};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// chromedriver, killed when dropped.
struct Driver(Child);

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
fn driver() -> Result<(Driver, u16), String> {
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

async fn browser(port: u16) -> Result<Client, String> {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox",
            "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,860"]}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .map_err(|e| format!("chromium does not start under chromedriver: {e}"))
}

/// The clicks that enter each of `paths`, played one after the other from `position`.
fn clicks_for(kind: GameKind, position: &str, paths: &[String]) -> Vec<Vec<String>> {
    with_game!(kind, S => {
        let mut state = S::from_notation(kind, position, RulesConfig::default()).unwrap();
        paths
            .iter()
            .map(|path| {
                let turn = parse_turn(&state, path).unwrap();
                let clicks = clicks_for_turn(&state, &turn.steps).unwrap();
                state = turn.state;
                clicks
            })
            .collect()
    })
}

struct Page {
    client: Client,
    shots: PathBuf,
}

impl Page {
    async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    /// Waits until `script` returns true (and no request is in flight).
    async fn wait(&self, what: &str, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
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

    async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
        self.wait(css, "true").await;
    }

    async fn history(&self) -> Vec<Value> {
        self.js("return window.__cz.history.slice(1);")
            .await
            .as_array()
            .unwrap()
            .clone()
    }

    /// Chooses the game and who plays each seat, and loads `position` (or the start).
    async fn setup(&self, game: &str, seats: &[&str], position: Option<&str>) {
        self.js(&format!(
            "const g = document.getElementById('game'); g.value = '{game}'; \
             g.dispatchEvent(new Event('change'));"
        ))
        .await;
        self.wait(
            "the new game",
            &format!(
                "window.__cz && document.getElementById('seat-controls').children.length === {}",
                seats.len()
            ),
        )
        .await;
        for (i, who) in seats.iter().enumerate() {
            self.js(&format!(
                "const s = document.getElementById('seat-{i}'); s.value = '{who}'; \
                 s.dispatchEvent(new Event('change'));"
            ))
            .await;
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
                self.wait("the position", &format!("window.__cz.position === {text}"))
                    .await;
            }
            None => self.click("#new-game").await,
        }
        if seats.iter().all(|s| *s == "person") {
            self.wait("a fresh game", "window.__cz.history.length === 1")
                .await;
        }
    }

    async fn click_cells(&self, cells: &[String]) {
        for cell in cells {
            self.click(&format!("#board-{cell}")).await;
        }
    }

    async fn shot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        std::fs::create_dir_all(&self.shots).unwrap();
        std::fs::write(self.shots.join(format!("{name}.png")), png).unwrap();
    }
}

async fn play_short_games(page: &Page) {
    for (game, seats) in [
        ("rematch", 2),
        ("rematch3", 3),
        ("hexdame", 2),
        ("eximo", 2),
    ] {
        let kind: GameKind = game.parse().unwrap();
        let (position, paths) = short_game(kind, 4);
        let clicks = clicks_for(kind, &position, &paths);
        page.setup(game, &vec!["person"; seats], Some(&position))
            .await;
        for (path, clicks) in paths.iter().zip(&clicks) {
            page.click_cells(clicks).await;
            let history = page.history().await;
            assert_eq!(
                history.last(),
                Some(&json!(path)),
                "{game} from {position}, turns {paths:?}: clicked {clicks:?}, played {history:?}"
            );
        }
        let outcome = page.js("return window.__cz.outcome;").await;
        assert!(outcome.is_string(), "{game}: the game is over ({outcome})");
        let listed = page
            .js("return document.querySelectorAll('#moves li').length;")
            .await;
        assert_eq!(listed, json!(paths.len()), "{game}: the move list");
        if game == "rematch3" {
            page.shot("play-rematch3").await;
        }
    }
}

async fn multi_capture_drop_and_refusal(page: &Page) {
    // HexDame: a capture of two or more pieces, the capturing piece selected between jumps.
    let (position, path) = position_with_turn(GameKind::Hexdame, |p| p.matches('x').count() >= 2);
    let clicks = clicks_for(GameKind::Hexdame, &position, std::slice::from_ref(&path)).remove(0);
    page.setup("hexdame", &["person", "person"], Some(&position))
        .await;
    page.click_cells(&clicks[..2]).await;
    let selected = page
        .js("return document.querySelector('#board .cell.selected').dataset.cell;")
        .await;
    assert_eq!(
        selected,
        json!(clicks[1]),
        "the capturing piece stays selected"
    );
    let targets = page.js("return [...document.querySelectorAll('#board .cell.target')].map(c => c.dataset.cell);").await;
    assert!(targets.as_array().unwrap().contains(&json!(clicks[2])));
    page.shot("multi-capture").await;
    page.click_cells(&clicks[2..]).await;
    assert_eq!(page.history().await, vec![json!(path)]);

    // Eximo: a man reaches the last row, then its side drops men by clicks.
    let (position, path) = position_with_turn(GameKind::Eximo, |p| p.contains('*'));
    let clicks = clicks_for(GameKind::Eximo, &position, std::slice::from_ref(&path)).remove(0);
    page.setup("eximo", &["person", "person"], Some(&position))
        .await;
    page.click_cells(&clicks).await;
    assert_eq!(page.history().await, vec![json!(path)]);
    // A click on a cell that is no legal choice is refused and changes nothing.
    page.setup("rematch", &["person", "person"], None).await;
    let clickable = page.js("return [...document.querySelectorAll('#board .cell.clickable')].map(c => c.dataset.cell);").await;
    let all = page
        .js("return [...document.querySelectorAll('#board .cell')].map(c => c.dataset.cell);")
        .await;
    let refused = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| !clickable.as_array().unwrap().contains(c))
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    page.click(&format!("#board-{refused}")).await;
    let message = page
        .js("const m = document.getElementById('message'); return [m.className, m.textContent];")
        .await;
    assert_eq!(message[0], json!("refused"), "{message}");
    assert!(message[1].as_str().unwrap().contains(&refused));
    assert!(page.history().await.is_empty());
    assert_eq!(
        page.js("return document.querySelectorAll('#board .cell.selected').length;")
            .await,
        json!(0)
    );
}

async fn model_answers_then_analysis(page: &Page) {
    // The Team (seat 1) moves first in ReMATCH: a person plays it, the model plays Red.
    page.setup("rematch", &["model", "person"], None).await;
    let first = page
        .js("return document.querySelector('#board .cell.clickable').dataset.cell;")
        .await;
    page.click(&format!("#board-{}", first.as_str().unwrap()))
        .await;
    let target = page
        .js("return document.querySelector('#board .cell.target').dataset.cell;")
        .await;
    page.click(&format!("#board-{}", target.as_str().unwrap()))
        .await;
    page.wait("the model's answer", "window.__cz.history.length === 3")
        .await;
    page.shot("play").await;
    // Analyse the start, where the Team has many turns to choose from.
    page.click("#new-game").await;
    page.wait("the model's first turn", "window.__cz.history.length === 1")
        .await;

    page.click("nav button[data-view=analyse]").await;
    page.js("document.getElementById('analysis-visits').value = 120;")
        .await;
    page.click("#analyse-start").await;
    page.wait(
        "the analysis",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
    let rows = page
        .js("return document.querySelectorAll('#analysis-turns tbody tr').length;")
        .await;
    assert!(rows.as_u64().unwrap() > 0);
    let wdl = page
        .js("return document.getElementById('wdl').textContent;")
        .await;
    assert!(wdl.as_str().unwrap().contains("W/D/L"), "{wdl}");
    let heat = page
        .js("return document.querySelectorAll('#analysis-board .heat').length;")
        .await;
    assert!(heat.as_u64().unwrap() > 0, "the policy heat map");
    page.shot("analyse").await;
}

async fn watch_and_dashboard(page: &Page) {
    page.click("nav button[data-view=watch]").await;
    page.wait("the replay", "document.getElementById('watch-info').textContent.includes('wins') || document.getElementById('watch-info').textContent.includes('draw')").await;
    page.js("const s = document.getElementById('watch-slider'); s.value = Math.floor(s.max / 2); s.dispatchEvent(new Event('input'));").await;
    let turn = page
        .js("return document.getElementById('watch-turn').textContent;")
        .await;
    assert!(turn.as_str().unwrap().starts_with("turn "), "{turn}");
    let graph = page
        .js("return document.querySelectorAll('#watch-values polyline').length;")
        .await;
    assert_eq!(graph, json!(1), "the value graph");
    page.shot("watch").await;

    page.click("nav button[data-view=dashboard]").await;
    page.wait(
        "the charts",
        "document.querySelectorAll('#checkpoints tbody tr').length === 2",
    )
    .await;
    let titles = page
        .js("return [...document.querySelectorAll('#charts svg')].map(s => s.dataset.title);")
        .await;
    let titles: Vec<&str> = titles
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for needed in [
        "train: total_loss",
        "train: policy_entropy",
        "selfplay: mean_game_steps",
        "selfplay: wins_side0",
        "selfplay: positions_per_s",
        "Elo by step",
    ] {
        assert!(titles.contains(&needed), "{needed} not in {titles:?}");
    }
    page.shot("dashboard").await;
}

#[test]
fn the_page_in_a_real_browser() {
    let (_driver, port) = match driver() {
        Ok(d) => d,
        Err(why) => {
            common::missing_tool("Chromium (chromium and chromium-driver)", &why);
            return;
        }
    };
    let run = common::fresh_dir("web-browser");
    common::web::tiny_run(&run);
    let options = ServeOptions {
        models: Vec::new(),
        run_dir: Some(run),
        config: ServeConfig {
            default_visits: 24,
            ..ServeConfig::default()
        },
    };
    let addr: SocketAddr = serve_in_background(options).unwrap().addr;
    let shots = std::env::var_os("CZ_WEB_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = match browser(port).await {
            Ok(c) => c,
            Err(why) => {
                common::missing_tool("Chromium (chromium and chromium-driver)", &why);
                return;
            }
        };
        client.goto(&format!("http://{addr}/")).await.unwrap();
        let page = Page { client, shots };
        page.wait("the page", "document.body.dataset.ready === '1'")
            .await;
        play_short_games(&page).await;
        multi_capture_drop_and_refusal(&page).await;
        model_answers_then_analysis(&page).await;
        watch_and_dashboard(&page).await;
        page.client.close().await.unwrap();
    });
}
