//! The web page in a real browser: Chromium driven over WebDriver (chromedriver), one server
//! and one browser for every check. Plays a whole short game by clicks in each game with the
//! engine on, enters a multi-capture and an Eximo drop, sees an illegal click refused; the
//! fixed bugs (a model strength over the limit, the engine after a change of game, a game
//! number past the end of a file in Watch); the bugs of issue 47 (resign then a variation, a
//! failed import that changes nothing, the rematch3 move list and export by round with a
//! column per seat, engine visits refused in words, arrow labels side by side, keys whatever
//! has the focus and F to flip, less polling in a hidden tab, the policy map); the board
//! (last move, eval bar, arrows, move list by round, keyboard, a variation, undo/redo,
//! resign, export and import, stack badges, names, the colour due); engine lines; in every
//! game the move tree (nested variations, a comment, promote, delete, export and import,
//! kept across game switches, a link), the move tree of issue 61 (Undo/Redo and a
//! resignation that never reorder it, a turn cancelled, an Eximo drop said, links pasted,
//! with variations and with an illegal turn), the graph of the game, drag and drop and the
//! board editor; Watch with its games and results; the dashboard; the phone layout at 390 px
//! (Watch too, with a long file path, and the engine under the board), where the short
//! games, the bugs of issue 47, the move tree, the graph, drag and drop and the editor run
//! again; and no error in the browser's console. Screenshots go to `$CZ_WEB_SCREENSHOTS` when set (`docs/web`),
//! else the test's temporary folder. `CZ_WEB_ONLY=name,...` runs only the checks of those
//! names (their functions': `graph`, `undo_redo_keep_the_tree`), e.g. against the page's
//! files before a fix (`CZ_WEB_ASSETS`). Without chromium and chromedriver (`scripts/setup`
//! installs them) the test prints SKIPPED, and fails under `CI=true`.

mod browser;
mod common;

use std::net::SocketAddr;
use std::path::PathBuf;

use browser::page::{browser, driver, wanted, Page};
use browser::{checks, figures, tree};
use checkers_zero::game::GameKind;
use checkers_zero::layout;
use checkers_zero::serve::{ServeConfig, ServeOptions};
use common::web::{games_file, GAMES_FILE, SOLO_FILE};

/// Says why the browser tests cannot run: a failure under CI, else a skip.
fn cannot_run(why: &str) {
    common::missing_tool("Chromium (chromium and chromium-driver)", why);
}

/// Runs `body` on the page served at the address `serve` returns, in one browser session
/// (the page loaded and ready); without a browser, says so ([`cannot_run`]).
fn with_page<F, Fut>(serve: impl FnOnce() -> SocketAddr, body: F)
where
    F: FnOnce(Page) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let (_driver, port) = match driver() {
        Ok(d) => d,
        Err(why) => return cannot_run(&why),
    };
    let addr = serve();
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
            Err(why) => return cannot_run(&why),
        };
        client.goto(&format!("http://{addr}/")).await.unwrap();
        let page = Page { client, shots };
        page.wait("the page", "document.body.dataset.ready === '1'")
            .await;
        body(page).await;
    });
}

fn server() -> SocketAddr {
    let run = common::fresh_dir("web-browser");
    common::web::tiny_run(&run);
    // The same games under a long path, as a distributed run's workers name their files.
    common::web::long_named_games(&run);
    // A distributed run's learner folder is part of the run, not a run of its own.
    common::web::empty_learner_log(&run);
    serve_run(run, Vec::new())
}

#[test]
fn the_page_in_a_real_browser() {
    with_page(server, |page| async move {
        if wanted("play_short_games") {
            checks::play_short_games(&page).await;
        }
        if wanted("multi_capture_drop_and_refusal") {
            checks::multi_capture_drop_and_refusal(&page).await;
        }
        if wanted("bugs") {
            checks::bugs(&page).await;
        }
        if wanted("bugs_of_issue_47") {
            checks::bugs_of_issue_47(&page).await;
        }
        if wanted("board_features") {
            checks::board_features(&page).await;
        }
        if wanted("move_tree") {
            checks::move_tree(&page).await;
        }
        tree::issue_61(&page).await;
        if wanted("game_graph") {
            checks::game_graph(&page).await;
        }
        if wanted("drag_and_drop") {
            checks::drag_and_drop(&page).await;
        }
        if wanted("board_editor") {
            checks::board_editor(&page).await;
        }
        if wanted("readable_boards") {
            checks::readable_boards(&page).await;
        }
        if wanted("watch") {
            checks::watch(&page).await;
        }
        if wanted("dashboard") {
            checks::dashboard(&page).await;
        }
        if wanted("phone") {
            checks::phone(&page).await;
        }
        // The new parts again at a phone's width.
        page.client.set_window_size(390, 844).await.unwrap();
        if wanted("play_short_games") {
            checks::play_short_games(&page).await;
        }
        if wanted("bugs_of_issue_47") {
            checks::bugs_of_issue_47(&page).await;
        }
        if wanted("move_tree") {
            checks::move_tree(&page).await;
        }
        tree::issue_61(&page).await;
        if wanted("game_graph") {
            checks::game_graph(&page).await;
        }
        if wanted("drag_and_drop") {
            checks::drag_and_drop(&page).await;
        }
        if wanted("board_editor") {
            checks::board_editor(&page).await;
        }
        page.client.set_window_size(1280, 860).await.unwrap();
        page.no_console_errors("the whole run").await;
        page.client.close().await.unwrap();
    });
}

/// A server with a tiny net for every game, over a run whose files show the bugs of issue
/// 61's item 4: a hidden `.locks` folder, a file of one self-play game that names no agents,
/// the precision record at step 0 with a number in it, and learning rates of 0.001 and
/// 7.5e-4.
fn server_with_models() -> SocketAddr {
    let run = common::fresh_dir("web-figures");
    common::web::tiny_run(&run);
    std::fs::create_dir_all(run.join(".locks").join(layout::GAMES)).unwrap();
    let shard = run.join(games_file(GAMES_FILE));
    let mut solo = checkers_zero::selfplay::record::read_records(&shard).unwrap();
    solo.truncate(1);
    solo[0].agents.clear();
    let solo_file = run.join(games_file(SOLO_FILE));
    checkers_zero::selfplay::record::write_records(&solo_file, &solo).unwrap();
    let mut metrics = String::from(
        "{\"type\": \"precision\", \"step\": 0, \"bf16_from\": 4, \"choice\": \"bf16 from batch 4\", \"reason\": \"measured\"}\n",
    );
    for (step, rate) in [(10, 0.001), (20, 0.00075), (30, 0.0005)] {
        metrics.push_str(&format!(
            "{{\"type\": \"train\", \"step\": {step}, \"total_loss\": 2.0, \"learning_rate\": {rate}, \"grad_norm\": 1.5}}\n"
        ));
    }
    std::fs::write(run.join(layout::METRICS_FILE), metrics).unwrap();
    let models = GameKind::ALL
        .iter()
        .map(|&kind| {
            let dir = common::fresh_dir(&format!("web-figures-{}", kind.name()));
            std::fs::write(
                dir.join(layout::CONFIG),
                format!("game = \"{}\"\n", kind.name()),
            )
            .unwrap();
            common::web::write_checkpoint(&dir, kind, 1)
        })
        .collect();
    serve_run(run, models)
}

/// Serves `run` with `models` at 24 visits by default, no shipped models, in the background.
fn serve_run(run: PathBuf, models: Vec<PathBuf>) -> SocketAddr {
    let options = ServeOptions {
        models,
        run_dir: Some(run),
        config: ServeConfig {
            default_visits: 24,
            ..ServeConfig::default()
        },
        shipped: false,
    };
    common::web::serve_in_background(options)
}

/// Issue 61's figures (tests/browser/figures.rs) at 1280 and 390 px in all four games.
#[test]
fn the_figures_of_issue_61_in_a_real_browser() {
    with_page(server_with_models, |page| async move {
        figures::issue_61(&page).await;
        page.client.set_window_size(390, 844).await.unwrap();
        // A fresh page: nothing kept from the first size (the graph's positions).
        page.client.refresh().await.unwrap();
        page.wait("the page", "document.body.dataset.ready === '1'")
            .await;
        figures::issue_61(&page).await;
        page.client.set_window_size(1280, 860).await.unwrap();
        page.client.close().await.unwrap();
    });
}
