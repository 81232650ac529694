//! What the browser test checks, section by section (one page, one server).

use std::time::{Duration, Instant};

use checkers_zero::game::turns::parse_turn;
use checkers_zero::game::{GameKind, GameState, RulesConfig};
use checkers_zero::serve::clicks::clicks_for_turn;
use checkers_zero::with_game;
use serde_json::{json, Value};

use super::page::Page;
use crate::common::web::{position_with_turn, short_game};

/// The clicks that enter each of `paths`, played one after the other from `position`.
pub(super) fn clicks_for(kind: GameKind, position: &str, paths: &[String]) -> Vec<Vec<String>> {
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

pub(super) fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A whole short game by clicks in each game, the engine analysing every position.
pub async fn play_short_games(page: &Page) {
    page.set("engine-visits", "40").await;
    page.click("#engine-on").await;
    for (game, seats) in GAMES {
        let kind: GameKind = game.parse().unwrap();
        let (position, paths) = short_game(kind, 4);
        let clicks = clicks_for(kind, &position, &paths);
        page.setup(game, &vec!["person"; seats], Some(&position))
            .await;
        // Engine lines here too, each with its figures and turns.
        analysis_done(page).await;
        let lines = page
            .js("return [...document.querySelectorAll('#pv .engine-line')].map(l => [l.querySelector('.line-figures').textContent, l.querySelectorAll('.pv-turn').length]);")
            .await;
        let lines = lines.as_array().unwrap();
        assert!(!lines.is_empty(), "{game}: engine lines");
        assert!(
            lines
                .iter()
                .all(|l| l[0].as_str().unwrap().contains(" visits") && l[1].as_u64().unwrap() >= 1),
            "{game}: {lines:?}"
        );
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
        let words = outcome
            .as_str()
            .unwrap_or_else(|| panic!("{game}: over ({outcome})"));
        assert!(
            !words.contains("No") && words.contains(": "),
            "{game}: {words}"
        );
        let listed = page
            .js("return document.querySelectorAll('#moves td.mv').length;")
            .await;
        assert_eq!(listed, json!(paths.len()), "{game}: the move list");
        if game == "rematch3" {
            page.shot("play-rematch3").await;
        }
        page.no_console_errors(game).await;
    }
    page.click("#engine-on").await;
}

pub async fn multi_capture_drop_and_refusal(page: &Page) {
    // HexDame: a capture of two or more pieces, the capturing piece selected between jumps.
    let (position, path) = position_with_turn(GameKind::Hexdame, |p| p.matches('x').count() >= 2);
    let clicks = clicks_for(GameKind::Hexdame, &position, std::slice::from_ref(&path)).remove(0);
    page.setup("hexdame", &["person", "person"], Some(&position))
        .await;
    let paths = "return document.querySelectorAll('#board .path').length;";
    assert_eq!(
        page.js(paths).await,
        json!(0),
        "no paths before a piece is chosen"
    );
    page.click_cells(&clicks[..2]).await;
    let selected = page
        .js("return document.querySelector('#board .cell.selected').dataset.cell;")
        .await;
    assert_eq!(
        selected,
        json!(clicks[1]),
        "the capturing piece stays selected"
    );
    assert!(
        page.js(paths).await.as_u64().unwrap() > 0,
        "the selected piece's paths"
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
    let refused = strings(&all)
        .into_iter()
        .find(|c| !strings(&clickable).contains(c))
        .unwrap();
    page.click(&format!("#board-{refused}")).await;
    let message = page
        .js("const m = document.getElementById('message'); return [m.className, m.textContent];")
        .await;
    assert_eq!(message[0], json!("refused"), "{message}");
    assert!(message[1].as_str().unwrap().contains(&refused));
    assert!(page.history().await.is_empty());
}

/// The bugs of issue 34, each seen fixed.
pub async fn bugs(page: &Page) {
    // A model strength over the server's limit: said once in words, never re-sent, no
    // "thinking" beside it, and none of the model's pieces offered to click.
    page.setup("rematch", &["person", "person"], None).await;
    page.set("strength", "100001").await;
    page.set("seat-1", "model").await;
    page.wait("the refusal", "window.__cz.stalled !== null")
        .await;
    let sent = page.js("return window.__czSent();").await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        page.js("return window.__czSent();").await,
        sent,
        "no request loop"
    );
    let message = page.text("message").await;
    assert!(message.contains("at most 100,000 visits"), "{message}");
    assert!(!page.text("status").await.contains("thinking"));
    let clickable = page
        .js("return document.querySelectorAll('#board .cell.clickable').length;")
        .await;
    assert_eq!(clickable, json!(0), "the model's pieces are not offered");
    page.set("strength", "24").await;
    page.wait("the model's turn", "window.__cz.history.length === 2")
        .await;
    page.set("seat-1", "person").await;

    // The engine follows a change of game: no HexDame line over a ReMATCH board.
    page.set("engine-visits", "60").await;
    page.click("#engine-on").await;
    page.setup("hexdame", &["person", "person"], None).await;
    page.wait(
        "a HexDame analysis",
        "document.querySelectorAll('#pv button').length > 0",
    )
    .await;
    page.setup("rematch", &["person", "person"], None).await;
    page.wait(
        "a ReMATCH analysis",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
    let cells = page.js("return [...document.querySelectorAll('#pv button, #analysis-turns td:first-child')].map(b => b.textContent).join(' ');").await;
    let rematch_cells = page
        .js("return [...document.querySelectorAll('#board .cell')].map(c => c.dataset.cell);")
        .await;
    for cell in cells
        .as_str()
        .unwrap()
        .split([' ', '-', 'x', '*'])
        .filter(|c| !c.is_empty())
    {
        assert!(
            strings(&rematch_cells).contains(&cell.to_string()),
            "{cell} in {cells}"
        );
    }
    page.click("#engine-on").await;
    page.no_console_errors("the bugs").await;
}

/// WebDriver's key codes for the keys the page answers.
const LEFT: &str = "\u{E012}";
const RIGHT: &str = "\u{E014}";
const HOME: &str = "\u{E011}";
const END: &str = "\u{E010}";

/// The position at the cursor.
pub(super) async fn position(page: &Page) -> String {
    let position = page.js("return window.__cz.position;").await;
    position.as_str().unwrap().to_string()
}

/// Plays, by clicks at the cursor, the first legal turn that `moves` lists there: the turn.
async fn play_first_turn(page: &Page, kind: GameKind) -> String {
    let here = position(page).await;
    let turn = checkers_zero::rules_commands::moves(kind, Some(here.as_str()))
        .unwrap()
        .remove(0);
    let clicks = clicks_for(kind, &here, std::slice::from_ref(&turn)).remove(0);
    page.click_cells(&clicks).await;
    let history = page.history().await;
    assert_eq!(
        history.last(),
        Some(&json!(turn)),
        "{kind} from {here}: clicked {clicks:?}, played {history:?}"
    );
    turn
}

/// Every game with its number of seats.
const GAMES: [(&str, usize); 4] = [
    ("rematch", 2),
    ("rematch3", 3),
    ("hexdame", 2),
    ("eximo", 2),
];

/// A new game of `game` with a person at each of its `seats`: its kind.
pub(super) async fn people_only(page: &Page, game: &str, seats: usize) -> GameKind {
    page.setup(game, &vec!["person"; seats], None).await;
    game.parse().unwrap()
}

/// Opens `url` afresh (a page that only its fragment tells apart is loaded again).
pub(super) async fn open_page(page: &Page, url: &str) {
    page.client.goto("about:blank").await.unwrap();
    page.client.goto(url).await.unwrap();
    page.wait("the page", "document.body.dataset.ready === '1'")
        .await;
}

/// Plays, by clicks at the cursor, the `index`-th legal turn that `moves` lists there (the
/// last one when there are fewer): the turn.
pub(super) async fn play_turn(page: &Page, kind: GameKind, index: usize) -> String {
    let here = position(page).await;
    let mut turns = checkers_zero::rules_commands::moves(kind, Some(here.as_str())).unwrap();
    let turn = turns.remove(index.min(turns.len() - 1));
    let clicks = clicks_for(kind, &here, std::slice::from_ref(&turn)).remove(0);
    page.click_cells(&clicks).await;
    turn
}

/// The index, in `moves`' list at `position`, of a legal turn other than `not` after which
/// the side to move has two turns or more: where a variation can branch again.
fn branching_turn(kind: GameKind, position: &str, not: &Value) -> usize {
    let turns = checkers_zero::rules_commands::moves(kind, Some(position)).unwrap();
    let after = positions_after(kind, position, &turns);
    turns
        .iter()
        .zip(after)
        .position(|(turn, after)| {
            json!(turn) != *not
                && checkers_zero::rules_commands::moves(kind, Some(after.as_str()))
                    .is_ok_and(|next| next.len() >= 2)
        })
        .unwrap_or_else(|| panic!("{kind}: no turn at {position} that branches again"))
}

/// The position after each of `turns`, each played alone from `position`.
fn positions_after(kind: GameKind, position: &str, turns: &[String]) -> Vec<String> {
    with_game!(kind, S => {
        let state = S::from_notation(kind, position, RulesConfig::default()).unwrap();
        turns
            .iter()
            .map(|t| parse_turn(&state, t).unwrap().state.to_notation())
            .collect()
    })
}

/// The move tree's text, and how many variations it opens.
pub(super) async fn tree_text(page: &Page) -> (String, usize) {
    let text = page.text("tree").await;
    let open = text.matches('(').count();
    (text, open)
}

/// Writes a comment on the turn at the cursor, as typing does.
pub(super) async fn comment(page: &Page, words: &str) {
    let words = json!(words);
    page.js(&format!(
        "const c = document.getElementById('comment'); c.value = {words}; \
         c.dispatchEvent(new Event('input'));"
    ))
    .await;
}

/// The move tree in every game: a variation, one nested in it and a comment; the tree's
/// text; export and import with both; the nested variation deleted and the outer one
/// promoted; the tree kept while another game is shown; a link that opens the game.
pub async fn move_tree(page: &Page) {
    set_engine(page, false).await;
    for (game, seats) in GAMES {
        let kind = people_only(page, game, seats).await;
        let mut played = Vec::new();
        for _ in 0..3 {
            played.push(json!(play_turn(page, kind, 0).await));
        }
        assert_eq!(page.history().await, played, "{game}: the main line");
        // Back one turn, another answer: a variation; one more turn in it, then from the
        // variation's first position another answer again: a variation in the variation.
        key(page, "Home").await;
        key(page, "ArrowRight").await;
        let branch = branching_turn(kind, &position(page).await, &played[1]);
        let other = play_turn(page, kind, branch).await;
        play_turn(page, kind, 0).await;
        comment(page, "a sharp try").await;
        key(page, "ArrowLeft").await;
        let nested = play_turn(page, kind, 1).await;
        let (text, open) = tree_text(page).await;
        assert_eq!(
            open, 2,
            "{game}: two variations, one inside the other: {text}"
        );
        assert!(
            text.contains("{a sharp try}"),
            "{game}: the comment: {text}"
        );
        assert!(
            text.contains(&other) && text.contains(&nested),
            "{game}: {text}"
        );
        let shown = page
            .js("return !document.getElementById('variation').hidden;")
            .await;
        assert_eq!(shown, json!(true), "{game}: in a variation");
        if game == "rematch" {
            page.shot("move-tree").await;
        }
        // Export, then import into another game: the same tree.
        page.click("#export-game").await;
        let exported = page
            .js("return document.getElementById('game-text').value;")
            .await;
        let exported = exported.as_str().unwrap().to_string();
        assert_eq!(exported.matches('(').count(), 2, "{game}: {exported}");
        assert!(exported.contains("{a sharp try}"), "{game}: {exported}");
        let before = tree_text(page).await;
        page.setup("eximo", &["person", "person"], None).await;
        page.set("game-text", &exported).await;
        page.click("#import-game").await;
        page.wait(
            "the import",
            &format!("document.getElementById('game').value === '{game}'"),
        )
        .await;
        assert_eq!(
            page.history().await,
            played,
            "{game}: the imported main line"
        );
        let imported = tree_text(page).await;
        assert_eq!(imported.1, 2, "{game}: {imported:?} against {before:?}");
        assert!(imported.0.contains("{a sharp try}"), "{game}: {imported:?}");
        // Into the nested variation (its first turn), delete it; then promote the outer.
        page.click("#tree .tree-turn[data-depth='2']").await;
        page.click("#delete-variation").await;
        assert_eq!(tree_text(page).await.1, 1, "{game}: one variation left");
        let first_alt = page
            .js("return document.querySelector(\"#tree .tree-turn[data-depth='1']\").textContent;")
            .await;
        assert!(
            first_alt.as_str().unwrap().ends_with(&other),
            "{game}: {first_alt}"
        );
        page.click("#tree .tree-turn[data-depth='1']").await;
        page.click("#promote-variation").await;
        assert_eq!(page.history().await[1], json!(other), "{game}: promoted");
        let shown = page
            .js("return !document.getElementById('variation').hidden;")
            .await;
        assert_eq!(
            shown,
            json!(false),
            "{game}: the promoted line is the main line"
        );
        page.no_console_errors(game).await;
    }
    // The tree stays with its game while another is shown.
    let kept = (page.history().await, tree_text(page).await);
    page.set("game", "rematch").await;
    page.wait(
        "rematch",
        "document.getElementById('game').value === 'rematch'",
    )
    .await;
    page.set("game", "eximo").await;
    page.wait("eximo again", "window.__cz.history.length > 1")
        .await;
    assert_eq!(
        (page.history().await, tree_text(page).await),
        kept,
        "the kept tree"
    );
    // A link opens the page on the game at the cursor.
    key(page, "End").await;
    page.click("#copy-link").await;
    let link = page
        .js("return document.getElementById('link-text').value;")
        .await;
    let link = link.as_str().unwrap().to_string();
    assert!(link.contains("#game=eximo&start="), "{link}");
    let line = page.history().await;
    open_page(page, &link).await;
    assert_eq!(page.history().await, line, "the link's game");
    let game = page
        .js("return document.getElementById('game').value;")
        .await;
    assert_eq!(game, json!("eximo"));
    // A link to an unknown game is said in words over a new game.
    let bad = link.replace("game=eximo", "game=chess");
    open_page(page, &bad).await;
    let said = page.text("message").await;
    assert!(said.contains("unknown game 'chess'"), "{said}");
    let home = link.split('#').next().unwrap().to_string();
    open_page(page, &home).await;
}

/// The graph of the game in every game: a point per position once evaluated in the
/// background, graded turns counted per seat, a click on the graph goes to that turn.
pub async fn game_graph(page: &Page) {
    set_engine(page, false).await;
    for (game, seats) in GAMES {
        let kind = people_only(page, game, seats).await;
        for _ in 0..4 {
            play_turn(page, kind, 0).await;
        }
        page.click("#graph-on").await;
        page.wait(
            "the graph",
            "document.getElementById('graph-status').textContent.includes('(done)')",
        )
        .await;
        let points = page
            .js("return document.querySelector('#game-graph polyline').getAttribute('points').trim().split(/\\s+/).length;")
            .await;
        assert_eq!(points, json!(5), "{game}: a point per position");
        let status = page.text("graph-status").await;
        let board = page.js("return window.__cz.seats;").await;
        for seat in strings(&board) {
            let named = format!("{}{}", seat[..1].to_uppercase(), &seat[1..]);
            assert!(
                status.contains(&named),
                "{game}: {named} counted in {status}"
            );
        }
        page.click("#game-graph").await;
        assert_eq!(
            cursor(page).await,
            json!(2),
            "{game}: the middle of the graph"
        );
        if game == "hexdame" {
            page.js("document.getElementById('graph-box').scrollIntoView({block: 'center'});")
                .await;
            page.shot("game-graph").await;
        }
        page.click("#graph-on").await;
        page.no_console_errors(game).await;
    }
}

/// Drags from `from` to `to` on the Play board, as a mouse does: a press on one cell, a
/// release on the other.
async fn drag(page: &Page, from: &str, to: &str) {
    page.js(&format!(
        "const board = document.getElementById('board'); board.scrollIntoView(); \
         const at = c => {{ const r = document.getElementById('board-' + c).getBoundingClientRect(); \
           return {{clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true}}; }}; \
         board.dispatchEvent(new PointerEvent('pointerdown', at('{from}'))); \
         board.dispatchEvent(new PointerEvent('pointerup', at('{to}')));"
    ))
    .await;
    page.wait("the drag", "true").await;
}

/// Drag and drop enters a turn in every game: the first legal turn of one step.
pub async fn drag_and_drop(page: &Page) {
    set_engine(page, false).await;
    for (game, seats) in GAMES {
        let kind = people_only(page, game, seats).await;
        let here = position(page).await;
        let turns = checkers_zero::rules_commands::moves(kind, Some(here.as_str())).unwrap();
        let (turn, clicks) = turns
            .iter()
            .map(|t| {
                (
                    t.clone(),
                    clicks_for(kind, &here, std::slice::from_ref(t)).remove(0),
                )
            })
            .find(|(_, clicks)| clicks.len() == 2)
            .unwrap_or_else(|| panic!("{game}: a turn of one step"));
        drag(page, &clicks[0], &clicks[1]).await;
        page.wait("the turn", "window.__cz.history.length === 2")
            .await;
        assert_eq!(
            page.history().await,
            vec![json!(turn)],
            "{game}: dragged {clicks:?}"
        );
        page.no_console_errors(game).await;
    }
}

/// Chooses an item of the editor's palette (`""`: empty a cell) and clicks `cells` with it.
async fn place(page: &Page, item: &str, cells: &[&str]) {
    page.click(&format!("#edit-palette button[data-item='{item}']"))
        .await;
    for cell in cells {
        page.click(&format!("#board-{cell}")).await;
    }
}

/// The board editor in every game: pieces placed by clicks, the seat to move chosen, a
/// position the rules refuse said in words with the editor still open, and an accepted one
/// played from.
pub async fn board_editor(page: &Page) {
    set_engine(page, false).await;
    let start = "white a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W d5:O e3:W e4:W";
    for (game, seats) in [("rematch", 2), ("rematch3", 3)] {
        page.setup(game, &vec!["person"; seats], Some(start)).await;
        page.click("#edit-toggle").await;
        place(page, "", &["a1"]).await;
        page.click("#edit-use").await;
        let refused = page.text("edit-message").await;
        assert!(refused.contains("4 of each colour"), "{game}: {refused}");
        let open = page
            .js("return !document.getElementById('editor').hidden;")
            .await;
        assert_eq!(open, json!(true), "{game}: the editor stays open");
        place(page, "R", &["c3"]).await;
        if game == "rematch" {
            page.shot("editor").await;
        }
        page.click("#edit-use").await;
        let want = "white a2:R b1:R b2:R b4:O c3:R c4:O c5:O d2:W d3:W d5:O e3:W e4:W";
        assert_eq!(position(page).await, want, "{game}: the edited position");
        let open = page
            .js("return !document.getElementById('editor').hidden;")
            .await;
        assert_eq!(open, json!(false), "{game}: the editor closes");
        // The refusal's answer, logged by the browser as an error status.
        page.only_console_errors(game, &["the server responded with a status of 4"])
            .await;
    }
    for (game, seat, pieces, want) in [
        (
            "hexdame",
            "red",
            [("w", "c3"), ("r", "g7")],
            "red c3:w g7:r",
        ),
        (
            "eximo",
            "white",
            [("b", "d3"), ("w", "e6")],
            "white d3:b e6:w",
        ),
    ] {
        page.setup(game, &["person", "person"], None).await;
        page.click("#edit-toggle").await;
        page.click("#edit-empty").await;
        for (item, cell) in pieces {
            place(page, item, &[cell]).await;
        }
        page.set("edit-seat", seat).await;
        page.click("#edit-use").await;
        assert_eq!(position(page).await, want, "{game}: the edited position");
        page.no_console_errors(game).await;
    }
}

/// Ticks or unticks the Engine box by a click, unless it is so already.
pub(super) async fn set_engine(page: &Page, on: bool) {
    let ticked = page
        .js("return document.getElementById('engine-on').checked;")
        .await;
    if ticked != json!(on) {
        page.click("#engine-on").await;
    }
}

async fn analysis_done(page: &Page) {
    page.wait(
        "the analysis",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
}

/// The bugs of issue 47, each seen fixed (bug 4, Watch on a phone, in `phone`; the server's
/// side of bug 5 in tests/web_api.rs).
pub async fn bugs_of_issue_47(page: &Page) {
    set_engine(page, false).await;
    resign_then_analyse(page).await;
    failed_import_changes_nothing(page).await;
    rematch3_move_list(page).await;
    engine_visits_refused(page).await;
    arrow_labels_apart(page).await;
    keys_whatever_has_the_focus(page).await;
    hidden_tab_polls_less(page).await;
    heat_map(page).await;
    abandoned_model_move_stops(page).await;
    page.no_console_errors("the bugs of issue 47").await;
}

/// Bug 1: a resignation ends the line it was made in. A variation played from an earlier
/// position is not over; "Back to the game" brings the resignation back.
async fn resign_then_analyse(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    let start = position(page).await;
    let game = ["e4-e5".to_string(), "b1xe4".to_string()];
    for clicks in clicks_for(GameKind::Rematch, &start, &game) {
        page.click_cells(&clicks).await;
    }
    assert_eq!(page.history().await, vec![json!(game[0]), json!(game[1])]);
    page.click("#resign").await;
    let outcome = page.js("return window.__cz.outcome;").await;
    assert!(
        outcome.as_str().is_some_and(|o| o.contains("resigned")),
        "{outcome}"
    );
    page.click("#nav-prev").await;
    assert_eq!(cursor(page).await, json!(1));
    let here = position(page).await;
    let other = "a2-a3".to_string();
    let clicks = clicks_for(GameKind::Rematch, &here, std::slice::from_ref(&other)).remove(0);
    page.click_cells(&clicks).await;
    assert_eq!(page.history().await, vec![json!(game[0]), json!(other)]);
    let seen = page
        .js(
            "return [window.__cz.outcome, document.getElementById('status').textContent, \
             !document.getElementById('variation').hidden, \
             document.querySelectorAll('#board .cell.clickable').length, \
             document.getElementById('resign').disabled];",
        )
        .await;
    assert_eq!(seen[0], Value::Null, "the variation is not over: {seen}");
    assert!(
        !seen[1].as_str().unwrap().starts_with("Game over"),
        "the status: {seen}"
    );
    assert_eq!(seen[2], json!(true), "the variation is marked: {seen}");
    assert!(
        seen[3].as_u64().unwrap() > 0,
        "the Team's pieces can be clicked: {seen}"
    );
    assert_eq!(seen[4], json!(false), "Resign is offered: {seen}");
    page.click("#back-to-game").await;
    key(page, "End").await;
    assert_eq!(page.history().await, vec![json!(game[0]), json!(game[1])]);
    let outcome = page.js("return window.__cz.outcome;").await;
    assert!(
        outcome.as_str().is_some_and(|o| o.contains("resigned")),
        "back in the game, the resignation: {outcome}"
    );
}

/// Bug 2: an import that does not replay changes nothing: the game's turns, position,
/// cursor, game menu and board stay, also once Flip has redrawn the board.
async fn failed_import_changes_nothing(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    play_first_turn(page, GameKind::Rematch).await;
    let state = "return [window.__cz.history, window.__cz.position, window.__cz.cursor, \
                 document.getElementById('game').value, \
                 document.querySelectorAll('#board .cell').length];";
    let before = page.js(state).await;
    assert_eq!(before[4], json!(19), "a ReMATCH board: {before}");
    for (text, turn) in [
        ("[Game \"rematch\"]\n1. d2-c2 b2-c3", "turn 2 (b2-c3)"),
        ("[Game \"hexdame\"]\n1. zz-zz", "turn 1 (zz-zz)"),
    ] {
        page.set("game-text", text).await;
        page.click("#import-game").await;
        let needle = json!(turn);
        page.wait(
            "the refused import",
            &format!("document.getElementById('text-message').textContent.includes({needle})"),
        )
        .await;
        let message = page
            .js("const m = document.getElementById('text-message'); return [m.className, m.textContent];")
            .await;
        assert_eq!(message[0], json!("refused"), "{text}: {message}");
        assert!(
            message[1].as_str().unwrap().contains("unchanged"),
            "{text}: {message}"
        );
        assert_eq!(page.js(state).await, before, "{text}: the game stays");
        page.click("#flip").await;
        page.click("#flip").await;
        assert_eq!(
            page.js(state).await,
            before,
            "{text}: the game stays after Flip"
        );
    }
    // The browser logs the server's refusals of the turns (422) as errors.
    page.only_console_errors(
        "a failed import",
        &["the server responded with a status of 4"],
    )
    .await;
}

/// Bug 3: in rematch3 (turns White, Red, Orange, Red) a row of the move list is one turn of
/// each side, each seat in its own column (White, Orange, Red); export numbers the turns the
/// same way, and the exported game imports back.
async fn rematch3_move_list(page: &Page) {
    page.setup("rematch3", &["person"; 3], None).await;
    let mut turns = Vec::new();
    for _ in 0..4 {
        turns.push(play_first_turn(page, GameKind::Rematch3).await);
    }
    let rows_script = "return [...document.querySelectorAll('#moves tr')].map(r => \
                       [...r.cells].map(c => c.classList.contains('mv') ? \
                       `${c.dataset.seat}:${c.textContent}` : \
                       c.classList.contains('empty') ? '·' : c.textContent));";
    let rows = page.js(rows_script).await;
    let t = &turns;
    assert_eq!(
        rows,
        json!([
            [
                "1.",
                format!("white:{}", t[0]),
                "·",
                format!("red:{}", t[1])
            ],
            [
                "2.",
                "·",
                format!("orange:{}", t[2]),
                format!("red:{}", t[3])
            ],
        ]),
        "a row per round, a column per seat"
    );
    let tooltips = page
        .js(
            "return [...document.querySelectorAll('#moves td.mv')].every(c => \
             c.title.includes(c.textContent));",
        )
        .await;
    assert_eq!(tooltips, json!(true), "each turn's seat on hover");
    page.click("#export-game").await;
    let text = page
        .js("return document.getElementById('game-text').value;")
        .await;
    let text = text.as_str().unwrap().to_string();
    let numbered = format!("1. {} {} 2. {} {}", t[0], t[1], t[2], t[3]);
    assert!(text.contains(&numbered), "{numbered} not in {text}");
    page.setup("rematch", &["person", "person"], None).await;
    page.click("#import-game").await;
    page.wait("the import", "window.__cz.history.length === 5")
        .await;
    assert_eq!(
        page.history().await,
        turns.iter().map(|t| json!(t)).collect::<Vec<_>>(),
        "the exported game imported"
    );
    assert_eq!(
        page.js("return document.getElementById('game').value;")
            .await,
        json!("rematch3")
    );
    assert_eq!(page.js(rows_script).await, rows, "the same move list");
}

/// Bug 5 (the page): visits that are not a whole number from 1 to the server's limit are
/// refused in the engine's panel in words; the box keeps what was typed, nothing is sent and
/// nothing drawn, and the refusal goes with the next analysis.
async fn engine_visits_refused(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    page.set("engine-visits", "40").await;
    set_engine(page, true).await;
    analysis_done(page).await;
    for bad in ["1000000000", "100001", "0", "", "-5", "1.5"] {
        let sent = page.js("return window.__czSent();").await;
        page.set("engine-visits", bad).await;
        page.wait(
            "the refusal",
            "!document.getElementById('engine-message').hidden",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        let seen = page
            .js("const m = document.getElementById('engine-message'); \
                 return [m.hidden, m.textContent, document.getElementById('engine-visits').value, \
                 document.getElementById('message').textContent, \
                 document.querySelectorAll('#board .arrow').length, window.__czSent()];")
            .await;
        let words = seen[1].as_str().unwrap();
        assert!(
            words.contains("a whole number from 1 to 100,000"),
            "{bad:?}: {seen}"
        );
        assert!(
            !words.contains("invalid value") && !words.contains("u32"),
            "{bad:?}: {seen}"
        );
        assert_eq!(seen[2], json!(bad), "the box keeps {bad:?}: {seen}");
        assert_eq!(seen[3], json!(""), "{bad:?}: no game message: {seen}");
        assert_eq!(seen[4], json!(0), "{bad:?}: no arrows: {seen}");
        assert_eq!(seen[5], sent, "{bad:?}: nothing sent: {seen}");
    }
    page.set("engine-visits", "40").await;
    analysis_done(page).await;
    let message = page
        .js("const m = document.getElementById('engine-message'); return [m.hidden, m.textContent];")
        .await;
    assert_eq!(
        message,
        json!([true, ""]),
        "the refusal goes with the next analysis"
    );
    set_engine(page, false).await;
}

/// Bug 7: the shares of two turns that land on the same cell are side by side, not on top
/// of each other (drawn on a scratch board: d2-d3 and e3-d3, 35% each).
async fn arrow_labels_apart(page: &Page) {
    page.js(
        "window.__scratch = null;
         (async () => {
           const r = await fetch('/api/new', {method: 'POST',
             headers: {'content-type': 'application/json'}, body: JSON.stringify({game: 'rematch'})});
           const v = await r.json();
           const { drawBoard } = await import('/assets/board.js');
           const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
           svg.id = 'scratch';
           svg.setAttribute('class', 'board');
           document.body.appendChild(svg);
           drawBoard(svg, v.board, {arrows: [{turn: 'd2-d3', share: 0.35}, {turn: 'e3-d3', share: 0.35}]});
           const labels = [...svg.querySelectorAll('.arrow-label[data-cell=\"d3\"]')];
           window.__scratch = {texts: labels.map(t => t.textContent),
             boxes: labels.map(t => { const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; })};
           svg.remove();
         })().catch(e => { window.__scratch = {error: String(e)}; });",
    )
    .await;
    page.wait("the scratch board", "window.__scratch !== null")
        .await;
    let seen = page.js("return window.__scratch;").await;
    assert_eq!(seen["texts"], json!(["35%", "35%"]), "{seen}");
    let boxes: Vec<Vec<f64>> = seen["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            b.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    let (a, b) = (&boxes[0], &boxes[1]);
    assert!(a[2] > 0.0 && b[2] > 0.0, "labels drawn: {seen}");
    let apart =
        a[0] + a[2] <= b[0] || b[0] + b[2] <= a[0] || a[1] + a[3] <= b[1] || b[1] + b[3] <= a[1];
    assert!(apart, "the two labels overlap: {seen}");
}

/// Bug 8: ←/→/Home/End and F (flip) work whatever has the focus (the Engine box just ticked,
/// the game menu), but not in a text field; `__cz.flip` is the board's orientation.
async fn keys_whatever_has_the_focus(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    play_first_turn(page, GameKind::Rematch).await;
    play_first_turn(page, GameKind::Rematch).await;
    set_engine(page, false).await;
    page.set("engine-visits", "40").await;
    page.click("#engine-on").await;
    assert_eq!(
        page.js("return document.activeElement.id;").await,
        json!("engine-on"),
        "the Engine box has the focus"
    );
    for (keys, to) in [(LEFT, 1), (HOME, 0), (RIGHT, 1), (END, 2)] {
        page.press(keys).await;
        assert_eq!(
            cursor(page).await,
            json!(to),
            "{keys:?} from the Engine box"
        );
    }
    let flip = "return window.__cz.flip;";
    page.press("f").await;
    assert_eq!(page.js(flip).await, json!(true), "F flips the board");
    page.press("f").await;
    assert_eq!(page.js(flip).await, json!(false), "F flips it back");
    // In a text field the keys are the field's.
    page.js("document.getElementById('position-text').focus();")
        .await;
    page.press(LEFT).await;
    page.press("f").await;
    assert_eq!(cursor(page).await, json!(2), "← in the position's text");
    assert_eq!(
        page.js(flip).await,
        json!(false),
        "F in the position's text"
    );
    page.js("document.getElementById('position-text').value = window.__cz.position;")
        .await;
    // A menu keeps its choice, and the keys still move.
    key(page, "Home").await;
    page.js("document.getElementById('game').focus();").await;
    page.press(RIGHT).await;
    assert_eq!(cursor(page).await, json!(1), "→ from the game menu");
    assert_eq!(
        page.js("return document.getElementById('game').value;")
            .await,
        json!("rematch"),
        "the game menu keeps its choice"
    );
    set_engine(page, false).await;
}

/// Idle polling: while the page's tab is hidden the engine polls every 2 s, not every 0.3 s,
/// and it polls at once when the tab is shown again.
async fn hidden_tab_polls_less(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    page.set("engine-visits", "100000").await;
    set_engine(page, true).await;
    page.wait(
        "the analysis under way",
        "/^[0-9,]+ of [0-9,]+ visits, /.test(document.getElementById('analysis-progress').textContent)",
    )
    .await;
    let sent = page
        .js("Object.defineProperty(document, 'visibilityState', \
             {configurable: true, get: () => 'hidden'}); \
             document.dispatchEvent(new Event('visibilitychange')); return window.__czSent();")
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let later = page.js("return window.__czSent();").await;
    let polls = later.as_u64().unwrap() - sent.as_u64().unwrap();
    // Hidden: every 2 s after the poll already timed (visible: every 300 ms, about ten in
    // 3 s); a loaded machine's slow answers may let one more through.
    assert!(polls <= 4, "{polls} polls in 3 s with the tab hidden");
    let progress = page.text("analysis-progress").await;
    assert!(
        !progress.contains("(done)"),
        "the analysis still runs: {progress}"
    );
    let shown = Instant::now();
    let sent = page
        .js("Object.defineProperty(document, 'visibilityState', \
             {configurable: true, get: () => 'visible'}); const sent = window.__czSent(); \
             document.dispatchEvent(new Event('visibilitychange')); return sent;")
        .await
        .as_u64()
        .unwrap();
    while page.js("return window.__czSent();").await.as_u64().unwrap() <= sent {
        assert!(
            shown.elapsed() < Duration::from_secs(1),
            "no poll within 1 s of the tab being shown"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    eprintln!(
        "measured: the engine polled {:.0} ms after the tab was shown",
        shown.elapsed().as_secs_f64() * 1e3
    );
    page.js("delete document.visibilityState;").await;
    set_engine(page, false).await;
    page.set("engine-visits", "40").await;
}

/// The policy map: off by default; ticked, the analysis's priors shade cells of the board.
/// Bug 10: a new game while the model thinks aborts its request, and the server frees the
/// search's slot (measured and printed, not a timed assertion).
async fn abandoned_model_move_stops(page: &Page) {
    let running = "const x = new XMLHttpRequest(); x.open('GET', '/api/info', false); x.send(); \
                   return JSON.parse(x.responseText).searches_running;";
    page.setup("hexdame", &["person", "person"], None).await;
    page.set("strength", "100000").await;
    page.set("seat-0", "model").await;
    let started = Instant::now();
    while page.js(running).await != json!(1) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the model never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Back to a person first, so that the new game starts no search of its own.
    page.set("seat-0", "person").await;
    page.click("#new-game").await;
    let left = Instant::now();
    while page.js(running).await != json!(0) {
        assert!(
            left.elapsed() < Duration::from_secs(30),
            "the abandoned model move kept its search slot"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    eprintln!(
        "measured: the abandoned model move's slot was free {:.1} ms after New game",
        left.elapsed().as_secs_f64() * 1e3
    );
    page.set("strength", "24").await;
}

async fn heat_map(page: &Page) {
    page.setup("rematch", &["person", "person"], None).await;
    page.set("engine-visits", "40").await;
    set_engine(page, true).await;
    analysis_done(page).await;
    let heat =
        "return [...document.querySelectorAll('#board circle.heat')].map(c => c.dataset.cell);";
    assert_eq!(page.js(heat).await, json!([]), "off by default");
    page.click("#engine-heat").await;
    let cells = strings(&page.js(heat).await);
    let board = strings(
        &page
            .js("return [...document.querySelectorAll('#board .cell')].map(c => c.dataset.cell);")
            .await,
    );
    assert!(!cells.is_empty(), "the policy map is drawn");
    for cell in &cells {
        assert!(
            board.contains(cell),
            "{cell} of the policy map in {board:?}"
        );
    }
    page.shot("policy-map").await;
    page.click("#engine-heat").await;
    assert_eq!(page.js(heat).await, json!([]), "unticked, gone");
    set_engine(page, false).await;
}

/// Last move, eval bar and arrows, the move list by round, keyboard, a variation,
/// undo/redo, resign, export and import.
pub async fn board_features(page: &Page) {
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
    let last = page.js("return [...document.querySelectorAll('#board .cell.lastmove')].map(c => c.dataset.cell);").await;
    let answer = page.js("return window.__cz.history[2];").await;
    for cell in answer.as_str().unwrap().split(['-', 'x', '*']) {
        assert!(
            strings(&last).contains(&cell.to_string()),
            "{cell} of the last move in {last}"
        );
    }
    // Paired by round: one row, its number and two turns.
    let rows = page
        .js("return [...document.querySelectorAll('#moves tr')].map(r => r.cells.length);")
        .await;
    assert_eq!(rows, json!([3]));
    engine_on_board(page).await;
    navigation_and_variation(page).await;
    undo_redo_resign(page).await;
    export_import(page).await;
    page.no_console_errors("the board").await;
}

async fn engine_on_board(page: &Page) {
    page.set("engine-visits", "200").await;
    page.set("seat-0", "person").await;
    page.click("#engine-on").await;
    page.wait(
        "the analysis",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
    let arrows = page
        .js("return [...document.querySelectorAll('#board .arrow-label')].map(t => t.textContent);")
        .await;
    assert!(!strings(&arrows).is_empty(), "arrows");
    assert!(
        strings(&arrows).iter().all(|t| t.ends_with('%')),
        "{arrows}"
    );
    let bar = page
        .js("const b = document.getElementById('evalbar'); return [b.hidden, b.title];")
        .await;
    assert_eq!(bar[0], json!(false), "the eval bar shows");
    assert!(bar[1].as_str().unwrap().contains("win"), "{bar}");
    // The search's value, and the net's raw guess labelled as such (issue 61).
    let said = page.text("wdl").await;
    assert!(
        said.contains("the search's best turn") && said.contains("The net's raw guess, no search"),
        "{said}"
    );
    engine_lines(page).await;
    page.shot("play").await;
    // The eval bar from a fixed side.
    page.set("eval-side", "0").await;
    assert!(
        page.text("wdl").await.starts_with("For Red,"),
        "{}",
        page.text("wdl").await
    );
    page.set("eval-side", "mover").await;
}

/// Several engine lines (three unless asked), each with its W/D/L and visits once the
/// search is done; a count outside 1-10 refused in words. Checked at the game's start,
/// which has more than three turns whatever the model answered (after its answer the
/// person may have a single, forced capture).
async fn engine_lines(page: &Page) {
    key(page, "Home").await;
    page.wait(
        "three lines at the start",
        "document.getElementById('analysis-progress').textContent.includes('(done)') && \
         document.querySelectorAll('#pv .engine-line').length === 3",
    )
    .await;
    let figures = "return [...document.querySelectorAll('#pv .engine-line .line-figures')].map(f => f.textContent);";
    let lines = strings(&page.js(figures).await);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("W ") && l.contains(" visits")),
        "{lines:?}"
    );
    page.set("engine-lines", "2").await;
    page.wait(
        "two lines",
        "document.getElementById('analysis-progress').textContent.includes('(done)') && \
         document.querySelectorAll('#pv .engine-line').length === 2",
    )
    .await;
    page.set("engine-lines", "11").await;
    page.wait(
        "the refusal",
        "!document.getElementById('engine-message').hidden",
    )
    .await;
    let message = page.text("engine-message").await;
    assert!(
        message.contains("the lines must be a whole number from 1 to 10; 11 is not"),
        "{message}"
    );
    page.set("engine-lines", "3").await;
    page.wait(
        "three lines",
        "document.getElementById('analysis-progress').textContent.includes('(done)') && \
         document.querySelectorAll('#pv .engine-line').length === 3",
    )
    .await;
    key(page, "End").await;
    page.wait(
        "the analysis after the model's answer",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
}

pub(super) async fn key(page: &Page, key: &str) {
    page.js(&format!(
        "document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}'}}));"
    ))
    .await;
    page.wait(key, "true").await;
}

pub(super) async fn cursor(page: &Page) -> Value {
    page.js("return window.__cz.cursor;").await
}

async fn navigation_and_variation(page: &Page) {
    key(page, "Home").await;
    assert_eq!(cursor(page).await, json!(0));
    key(page, "ArrowRight").await;
    assert_eq!(cursor(page).await, json!(1));
    key(page, "End").await;
    assert_eq!(cursor(page).await, json!(2));
    key(page, "ArrowLeft").await;
    assert_eq!(cursor(page).await, json!(1));
    page.click("#moves td.mv[data-index='2']").await;
    assert_eq!(cursor(page).await, json!(2));
    // From the position after the first turn, another answer: a variation.
    page.click("#moves td.mv[data-index='1']").await;
    let game = page.history().await;
    let position = page.js("return window.__cz.position;").await;
    let position = position.as_str().unwrap();
    let other = checkers_zero::rules_commands::moves(GameKind::Rematch, Some(position))
        .unwrap()
        .into_iter()
        .find(|t| json!(t) != game[1])
        .unwrap();
    let clicks = clicks_for(GameKind::Rematch, position, std::slice::from_ref(&other)).remove(0);
    page.click_cells(&clicks).await;
    assert_eq!(page.history().await, vec![game[0].clone(), json!(other)]);
    let shown = page
        .js("return !document.getElementById('variation').hidden;")
        .await;
    assert_eq!(shown, json!(true), "the variation is marked");
    page.wait(
        "the analysis",
        "document.getElementById('analysis-progress').textContent.includes('(done)')",
    )
    .await;
    page.shot("analyse").await;
    page.click("#back-to-game").await;
    assert_eq!(page.history().await, game, "back to the game");
    page.click("#engine-on").await;
}

async fn undo_redo_resign(page: &Page) {
    page.set("seat-0", "model").await;
    key(page, "End").await;
    let before = page.history().await;
    page.click("#undo").await;
    assert_eq!(
        page.history().await.len(),
        before.len() - 2,
        "back to the person's turn"
    );
    page.click("#redo").await;
    assert_eq!(page.history().await, before);
    page.click("#resign").await;
    let outcome = page.js("return window.__cz.outcome;").await;
    assert!(outcome.as_str().unwrap().contains("resigned"), "{outcome}");
}

async fn export_import(page: &Page) {
    page.click("#export-game").await;
    let text = page
        .js("return document.getElementById('game-text').value;")
        .await;
    let text = text.as_str().unwrap().to_string();
    for needed in [
        "[Game \"rematch\"]",
        "[Red \"the model",
        "[Team \"a person\"]",
        "[Result \"",
        "resigned",
        "[Date \"",
        "1. ",
    ] {
        assert!(text.contains(needed), "{needed} not in {text}");
    }
    let game = page.history().await;
    page.setup("hexdame", &["person", "person"], None).await;
    page.click("#import-game").await;
    page.wait("the import", "window.__cz.history.length > 1")
        .await;
    assert_eq!(page.history().await, game, "the imported game");
    assert_eq!(
        page.js("return document.getElementById('game').value;")
            .await,
        json!("rematch")
    );
}

/// Cell names over pieces, stack badges, the colour due, paths of the selected piece only.
pub async fn readable_boards(page: &Page) {
    let stack = "red a1:R a2:R b1:R b4:O c3:RWO c4:O c5:O d2:W d3:W e3:W team=orange";
    page.setup("rematch", &["person", "person"], Some(stack))
        .await;
    let badge = page
        .js("return [...document.querySelectorAll('#board .badge-text')].map(t => t.textContent);")
        .await;
    assert_eq!(badge, json!(["3"]), "the stack's height on a badge");
    let fits = page.js("const p = document.querySelector('#board [data-piece=c3]').getBBox(); const c = document.getElementById('board-c3').getBBox(); return p.width <= c.width && p.height <= c.height;").await;
    assert_eq!(fits, json!(true), "the stack fits its cell");
    let names = page.js("const t = [...document.getElementById('board').children].slice(-19); return t.every(e => e.classList.contains('name'));").await;
    assert_eq!(names, json!(true), "cell names drawn over the pieces");
    let status = page.text("status").await;
    assert!(status.contains("then Orange for the Team"), "{status}");
    page.shot("stacks").await;
    page.no_console_errors("the boards").await;
}

pub async fn watch(page: &Page) {
    page.click("nav button[data-view=watch]").await;
    page.wait("the replay", "document.getElementById('watch-info').textContent.includes('wins') || document.getElementById('watch-info').textContent.includes('Draw')").await;
    let info = page.text("watch-info").await;
    assert!(
        !info.contains(" - ") && !info.contains("NoPieces"),
        "{info}"
    );
    let moves = page
        .js("return document.querySelectorAll('#watch-moves td.mv').length;")
        .await;
    assert!(moves.as_u64().unwrap() > 2, "the move list");
    // A column per seat, as in Play (issue 47, bug 3): every turn names its seat.
    let seats = page
        .js(
            "return [...document.querySelectorAll('#watch-moves td.mv')].every(c => \
             ['red', 'team'].includes(c.dataset.seat));",
        )
        .await;
    assert_eq!(seats, json!(true), "Watch's turns carry their seats");
    // The file's games listed with their results in words; a click shows that game.
    let rows = page
        .js("return [...document.querySelectorAll('#watch-games tr.watch-game')].map(r => r.cells[1].textContent);")
        .await;
    let results = strings(&rows);
    assert_eq!(results.len(), 2, "{rows}");
    assert!(
        results
            .iter()
            .all(|r| r.contains("wins") || r.starts_with("Draw")),
        "{rows}"
    );
    page.click("#watch-games tr.watch-game[data-index='1']")
        .await;
    page.wait(
        "game 1",
        "document.getElementById('watch-info').textContent.includes('game 1 ')",
    )
    .await;
    // Game 999 of a file of two: said in words, the game shown stays.
    page.set("watch-index", "999").await;
    page.wait(
        "the refusal",
        "document.getElementById('watch-info').textContent.includes('holds 2 games')",
    )
    .await;
    page.set("watch-index", "0").await;
    page.wait(
        "game 0",
        "document.getElementById('watch-info').textContent.includes('game 0')",
    )
    .await;
    page.set("watch-speed", "250").await;
    page.click("#watch-autoplay").await;
    page.wait(
        "autoplay",
        "document.getElementById('watch-turn').textContent.startsWith('Turn 3 ')",
    )
    .await;
    page.click("#watch-autoplay").await;
    let chart = page
        .js("return document.querySelectorAll('#watch-values canvas').length;")
        .await;
    assert!(chart.as_u64().unwrap() > 0, "the value graph");
    page.click("#watch-moves td.mv[data-index='5']").await;
    page.shot("watch").await;
    page.click("#watch-open").await;
    page.wait("the game in analysis", "window.__cz.cursor === 5 && !document.getElementById('view-play').classList.contains('hidden')").await;
    page.no_console_errors("watch").await;
}

pub async fn dashboard(page: &Page) {
    page.click("nav button[data-view=dashboard]").await;
    page.wait(
        "the charts",
        "document.querySelectorAll('#checkpoints tbody tr').length === 2",
    )
    .await;
    let runs = page
        .js("return document.getElementById('dash-run').options.length;")
        .await;
    assert_eq!(runs, json!(1), "no phantom run");
    let topics = page
        .js("return [...document.querySelectorAll('.chart-group')].map(g => g.dataset.topic);")
        .await;
    assert_eq!(
        topics,
        json!([
            "Losses",
            "Strength",
            "Throughput",
            "Self-play",
            "Self-play diversity"
        ])
    );
    let titles = strings(&page.js("return [...document.querySelectorAll('#charts .chart')].map(s => s.dataset.title);").await);
    for needed in [
        "Losses",
        "Learning rate",
        "Elo by step (95% interval)",
        "Results by side",
        "Self-play positions a second",
    ] {
        assert!(
            titles.contains(&needed.to_string()),
            "{needed} not in {titles:?}"
        );
    }
    let series = page.js("return document.querySelector('.chart[data-title=\"Results by side\"]').dataset.series;").await;
    assert_eq!(series, json!("wins of Red|wins of Team|draws"));
    let series = page.js("return document.querySelector('.chart[data-title=\"Distinct openings per 1,000 games\"]').dataset.series;").await;
    assert_eq!(series, json!("2 turns|4 turns|6 turns|8 turns"));
    let series = page
        .js("return document.querySelector('.chart[data-title=\"How games end\"]').dataset.series;")
        .await;
    // No played-through game yet: false resignations have no value and no line.
    assert_eq!(series, json!("draws|resigned"));
    // Axes say their units.
    let units = page.js("return ['Losses', 'How games end'].map(t => { const c = document.querySelector(`.chart[data-title=\"${t}\"]`).chart; return [c.axes[0].label, c.axes[1].label]; });").await;
    assert_eq!(
        units,
        json!([["training step", "nats"], ["training step", "share"]])
    );
    // A constant learning rate (0.02) on an axis around its value, not -1..1.
    let axis = page.js("const y = document.querySelector('.chart[data-title=\"Learning rate\"]').chart.scales.y; return [y.min, y.max];").await;
    let (low, high) = (axis[0].as_f64().unwrap(), axis[1].as_f64().unwrap());
    assert!(
        low > 0.0 && high < 0.05 && low < 0.02 && high > 0.02,
        "{axis}"
    );
    // The precision choice is words, never a chart of one dot.
    assert!(
        !titles
            .iter()
            .any(|t| t.to_lowercase().contains("choice") || t.contains("bf16")),
        "{titles:?}"
    );
    let facts = page.text("dash-facts").await;
    assert!(facts.contains("Precision: f32"), "{facts}");
    page.client.set_window_size(1280, 1500).await.unwrap();
    page.wait("the resized charts", "true").await;
    page.shot("dashboard").await;
    page.client.set_window_size(1280, 860).await.unwrap();
    page.no_console_errors("the dashboard").await;
}

/// At 390 px: no sideways scrolling, the board first and the controls below it.
pub async fn phone(page: &Page) {
    page.client.set_window_size(390, 844).await.unwrap();
    page.click("nav button[data-view=play]").await;
    let layout = page.js("const b = document.getElementById('board').getBoundingClientRect(); const s = document.querySelector('#view-play .side').getBoundingClientRect(); return [document.documentElement.scrollWidth, window.innerWidth, b.bottom <= s.top + 1, b.width];").await;
    assert!(
        layout[0].as_f64() <= layout[1].as_f64(),
        "no sideways scroll: {layout}"
    );
    assert_eq!(layout[2], json!(true), "the board first: {layout}");
    assert!(
        layout[3].as_f64().unwrap() > 300.0,
        "the board fills the width: {layout}"
    );
    page.shot("phone").await;
    // The engine's figures right under the board, not below every control.
    page.set("engine-visits", "40").await;
    set_engine(page, true).await;
    analysis_done(page).await;
    let gap = page
        .js(
            "const b = document.getElementById('board').getBoundingClientRect(); \
             const p = document.getElementById('engine-panel').getBoundingClientRect(); \
             return [p.top - b.bottom, document.documentElement.scrollWidth, window.innerWidth];",
        )
        .await;
    assert!(
        gap[0].as_f64().unwrap() < 120.0,
        "the engine under the board: {gap}"
    );
    assert!(
        gap[1].as_f64() <= gap[2].as_f64(),
        "no sideways scroll: {gap}"
    );
    page.shot("phone-engine").await;
    set_engine(page, false).await;
    // Watch (issue 47, bug 4): a long file path does not widen the page; each file goes by
    // the shortest name that tells it apart, its whole path on hover.
    page.click("nav button[data-view=watch]").await;
    page.wait("the replay", "document.getElementById('watch-info').textContent.includes('wins') || document.getElementById('watch-info').textContent.includes('Draw')").await;
    let watch = page
        .js("const f = document.getElementById('watch-file'); \
             return [document.documentElement.scrollWidth, window.innerWidth, \
             f.getBoundingClientRect().right, [...f.options].map(o => o.textContent), \
             [...f.options].map(o => o.title)];")
        .await;
    let width = watch[1].as_f64().unwrap();
    assert!(
        watch[0].as_f64().unwrap() <= width,
        "no sideways scroll in Watch: {watch}"
    );
    assert!(
        watch[2].as_f64().unwrap() <= width,
        "the file menu fits: {watch}"
    );
    let names = strings(&watch[3]);
    assert!(
        names.len() >= 2 && names.iter().all(|n| !n.contains('/')),
        "short file names: {watch}"
    );
    assert!(
        strings(&watch[4]).iter().any(|t| t
            .ends_with("selfplay-worker-with-a-long-name-0001/games-2026-11-27T23-50-00.jsonl")),
        "the whole path on hover: {watch}"
    );
    page.shot("phone-watch").await;
    page.click("nav button[data-view=play]").await;
    page.client.set_window_size(1280, 860).await.unwrap();
}
