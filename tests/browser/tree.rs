//! The move tree of issue 61: Undo, Redo and a resignation never reorder the tree (its
//! HexDame game, Undo away from the line's end, Undo at the end of a game resigned against
//! the model); braces in a comment; a half-entered turn cancelled by a click and by Escape;
//! an Eximo drop said in the status line; a link pasted into the open tab, carrying a
//! variation; a HexDame link with an illegal turn. Each check fails on the page as it was
//! before tree.js (docs/web.md).

use checkers_zero::game::GameKind;
use serde_json::{json, Value};

use super::checks::{
    clicks_for, comment, cursor, key, open_page, people_only, play_turn, position, set_engine,
    tree_text,
};
use super::page::{wanted, Page};
use crate::common::web::position_with_turn;

/// Issue 61's HexDame game, both seats people.
const GAME: [&str; 6] = ["a4-b5", "i6-i5", "d2-e3", "i7-i6", "e3-f3", "f9-e9"];
/// Its variation, played two turns before the end.
const VARIATION: [&str; 2] = ["a3-a4", "f9-e9"];
/// The export's words for the third round with the variation in its place.
const EXPORTED: &str = "3. e3-f3 (3. a3-a4 f9-e9) 3... f9-e9";

pub async fn issue_61(page: &Page) {
    set_engine(page, false).await;
    if wanted("undo_redo_keep_the_tree") {
        undo_redo_keep_the_tree(page).await;
    }
    if wanted("undo_away_from_the_end") {
        undo_away_from_the_end(page).await;
    }
    if wanted("braces_in_a_comment") {
        braces_in_a_comment(page).await;
    }
    if wanted("links") {
        links(page).await;
    }
    if wanted("undo_a_resignation") {
        undo_a_resignation(page).await;
    }
    if wanted("cancel_a_turn") {
        cancel_a_turn(page).await;
    }
    if wanted("eximo_drop_said") {
        eximo_drop_said(page).await;
    }
    // The link's illegal turn, refused by the server (422), is logged by the browser.
    page.only_console_errors(
        "the move tree of issue 61",
        &["the server responded with a status of 4"],
    )
    .await;
}

fn line(turns: &[&str]) -> Vec<Value> {
    turns.iter().map(|t| json!(t)).collect()
}

/// Plays `turns` by clicks from the cursor.
async fn play(page: &Page, kind: GameKind, turns: &[&str]) {
    let turns: Vec<String> = turns.iter().map(|t| t.to_string()).collect();
    for clicks in clicks_for(kind, &position(page).await, &turns) {
        page.click_cells(&clicks).await;
    }
}

/// The exported game, its white space as single spaces (the text wraps at 78 characters).
async fn exported(page: &Page) -> String {
    page.click("#export-game").await;
    let text = page
        .js("return document.getElementById('game-text').value;")
        .await;
    let words: Vec<&str> = text.as_str().unwrap().split_whitespace().collect();
    words.join(" ")
}

async fn outcome(page: &Page) -> Value {
    page.js("return window.__cz.outcome;").await
}

/// A new HexDame game, both seats people: the issue's game, then (`variation`) from two
/// turns before its end the variation, the cursor at the variation's end.
async fn hexdame_game(page: &Page, variation: bool) {
    people_only(page, "hexdame", 2).await;
    play(page, GameKind::Hexdame, &GAME).await;
    if !variation {
        return;
    }
    key(page, "ArrowLeft").await;
    key(page, "ArrowLeft").await;
    play(page, GameKind::Hexdame, &VARIATION).await;
    let mut shown = line(&GAME[..4]);
    shown.extend(line(&VARIATION));
    assert_eq!(page.history().await, shown, "the variation");
}

/// HexDame, the issue's game and its variation: at `End` of the main line, Undo twice and
/// Redo twice leave the export as it was; between them the variation is not shown in the
/// main line's place.
async fn undo_redo_keep_the_tree(page: &Page) {
    hexdame_game(page, true).await;
    page.click("#back-to-game").await;
    key(page, "End").await;
    assert_eq!(page.history().await, line(&GAME), "the main line");
    let before = exported(page).await;
    assert!(before.contains(EXPORTED), "{before}");
    page.click("#undo").await;
    page.click("#undo").await;
    assert_eq!(
        page.history().await,
        line(&GAME[..4]),
        "two turns taken back, the variation not shown in their place"
    );
    assert_eq!(cursor(page).await, json!(4));
    page.click("#redo").await;
    page.click("#redo").await;
    assert_eq!(page.history().await, line(&GAME), "Redo twice");
    assert_eq!(exported(page).await, before, "the tree as it was");
}

/// Undo while viewing turn 2 is a step back: nothing is taken back.
async fn undo_away_from_the_end(page: &Page) {
    hexdame_game(page, false).await;
    key(page, "Home").await;
    key(page, "ArrowRight").await;
    key(page, "ArrowRight").await;
    page.click("#undo").await;
    assert_eq!(cursor(page).await, json!(1), "a step back");
    assert_eq!(page.history().await, line(&GAME), "nothing taken back");
    let redo = page
        .js("return document.getElementById('redo').disabled;")
        .await;
    assert_eq!(redo, json!(true), "nothing to redo");
}

/// A comment with braces comes back from export and import as written.
async fn braces_in_a_comment(page: &Page) {
    hexdame_game(page, true).await;
    comment(page, "see {this}").await;
    let text = exported(page).await;
    assert!(text.contains(r"{see \{this\}}"), "{text}");
    page.click("#import-game").await;
    let (tree, open) = tree_text(page).await;
    assert!(tree.contains("{see {this}}"), "{tree}");
    assert_eq!(open, 1, "the variation imported: {tree}");
}

/// A link to the variation, pasted into the open tab: the game, its variation and the
/// cursor's line. A HexDame link with an illegal third turn: HexDame up to turn 2, the
/// refused turn said in words.
async fn links(page: &Page) {
    hexdame_game(page, true).await;
    key(page, "ArrowLeft").await;
    page.click("#copy-link").await;
    let link = page
        .js("return document.getElementById('link-text').value;")
        .await;
    let link = link.as_str().unwrap().to_string();
    assert!(
        link.contains("&tree="),
        "the variations in the link: {link}"
    );
    let (home, fragment) = link.split_once('#').unwrap();
    people_only(page, "rematch", 2).await;
    let fragment = json!(format!("#{fragment}"));
    page.js(&format!("location.hash = {fragment};")).await;
    page.wait(
        "the pasted link's game",
        "document.getElementById('game').value === 'hexdame' && window.__cz.history.length === 7",
    )
    .await;
    let mut shown = line(&GAME[..4]);
    shown.extend(line(&VARIATION));
    assert_eq!(page.history().await, shown, "the link's line");
    assert_eq!(cursor(page).await, json!(5), "the link's cursor");
    assert_eq!(tree_text(page).await.1, 1, "the link's variation");
    let bad = format!("{home}#game=hexdame&turns=a4-b5,i6-i5,d2-d9");
    open_page(page, &bad).await;
    let game = page
        .js("return document.getElementById('game').value;")
        .await;
    assert_eq!(game, json!("hexdame"), "the link's game");
    assert_eq!(page.history().await, line(&GAME[..2]), "up to turn 2");
    let said = page.text("message").await;
    assert!(said.contains("turn 3 (d2-d9)"), "{said}");
    open_page(page, home).await;
    set_engine(page, false).await;
}

/// With the model at a seat, Undo at the end of a resigned game takes back the resignation
/// alone; Redo puts it back; Undo twice and Redo twice bring back the turns and it.
async fn undo_a_resignation(page: &Page) {
    page.setup("hexdame", &["person", "model"], None).await;
    for _ in 0..2 {
        page.wait("the person's turn", "!window.__cz.thinking")
            .await;
        let n = page.history().await.len();
        play_turn(page, GameKind::Hexdame, 0).await;
        let answered = format!(
            "window.__cz.history.length === {} && !window.__cz.thinking",
            n + 3
        );
        page.wait("the model's answer", &answered).await;
    }
    page.click("#resign").await;
    let before = page.history().await;
    let resigned = outcome(page).await;
    assert!(
        resigned.as_str().unwrap().contains("resigned"),
        "{resigned}"
    );
    page.click("#undo").await;
    assert_eq!(
        outcome(page).await,
        Value::Null,
        "the resignation taken back"
    );
    assert_eq!(page.history().await, before, "and no turn");
    page.click("#redo").await;
    assert_eq!(outcome(page).await, resigned, "the resignation put back");
    page.click("#undo").await;
    page.click("#undo").await;
    assert_eq!(page.history().await, before[..before.len() - 2].to_vec());
    page.click("#redo").await;
    page.click("#redo").await;
    assert_eq!(page.history().await, before, "the turns put back");
    assert_eq!(outcome(page).await, resigned, "and the resignation");
}

async fn selected(page: &Page) -> Value {
    page.js(
        "const s = document.querySelector('#board .cell.selected'); return s && s.dataset.cell;",
    )
    .await
}

/// A HexDame capture half entered: cancelled by a click on the selected piece (before and
/// during the capture) and by Escape; then entered whole.
async fn cancel_a_turn(page: &Page) {
    let (start, path) = position_with_turn(GameKind::Hexdame, |p| p.matches('x').count() >= 2);
    let clicks = clicks_for(GameKind::Hexdame, &start, std::slice::from_ref(&path)).remove(0);
    page.setup("hexdame", &["person", "person"], Some(&start))
        .await;
    let clickable = "return document.querySelectorAll('#board .cell.clickable').length;";
    let offered = page.js(clickable).await;
    page.click_cells(&clicks[..1]).await;
    assert_eq!(selected(page).await, json!(clicks[0]));
    page.click_cells(&clicks[..1]).await;
    assert_eq!(selected(page).await, Value::Null, "the same piece again");
    page.click_cells(&clicks[..2]).await;
    assert_eq!(selected(page).await, json!(clicks[1]), "mid-capture");
    page.click_cells(&clicks[1..2]).await;
    assert_eq!(
        selected(page).await,
        Value::Null,
        "the capturing piece again"
    );
    assert_eq!(
        page.js(clickable).await,
        offered,
        "every piece offered again"
    );
    page.click_cells(&clicks[..2]).await;
    key(page, "Escape").await;
    assert_eq!(selected(page).await, Value::Null, "Escape");
    assert_eq!(page.js(clickable).await, offered, "after Escape");
    page.click_cells(&clicks).await;
    assert_eq!(page.history().await, vec![json!(path)]);
}

/// Eximo: once a man reaches the last row, the status line says the drops are due.
async fn eximo_drop_said(page: &Page) {
    let (start, path) = position_with_turn(GameKind::Eximo, |p| p.contains('*'));
    let clicks = clicks_for(GameKind::Eximo, &start, std::slice::from_ref(&path)).remove(0);
    page.setup("eximo", &["person", "person"], Some(&start))
        .await;
    let first_drop = clicks.len() - path.matches('*').count();
    page.click_cells(&clicks[..first_drop]).await;
    let status = page.text("status").await;
    assert!(
        status.contains("drop is due") || status.contains("drops are due"),
        "{status}"
    );
    page.click_cells(&clicks[first_drop..]).await;
    assert_eq!(page.history().await, vec![json!(path)]);
    assert!(!page.text("status").await.contains("due"));
}
