//! The import order of the crate's top-level modules (`docs/architecture.md`): imports point
//! down `game <- config <- net <- train <- search <- selfplay <- metrics <- export <- eval <- bench <-
//! roles <- serve <- learning_bench <- cli`, never up, and `util`, `store` and `layout` are leaves anyone may use. Read from
//! the `crate::<module>` paths (and `super::` paths that reach the crate root) in
//! `src/**/*.rs`, leaving out comments, string and char literals and `#[cfg(test)]` items.
//! A failure names the file and line of every offending use.
//!
//! Inside every folder of `src/` the sibling modules (the files and sub-folders beside each
//! other) must not form a cycle either: read from `crate::`, `super::` and `self::` paths
//! resolved to where they point (`src_folders_have_no_import_cycles`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The ranked modules, lowest first: a module may use the modules ranked below it and the
/// leaves. `config` (the run's settings) sits on the ground floor, and `train` (the learner,
/// which sees only samples) just above `net`. A new top-level module must be given its
/// place here.
const ORDER: &[&str] = &[
    "game",
    "config",
    "net",
    "train",
    "search",
    "selfplay",
    "metrics",
    "export",
    "eval",
    "bench",
    "roles",
    "serve",
    "learning_bench",
    "rules_commands",
];

/// Modules anyone may use; they use no module but each other.
const LEAVES: &[&str] = &["util", "store", "layout"];

/// Where a use was found.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    file: String,
    line: usize,
}

/// Edges between top-level modules, each with every place it is used.
type Edges = BTreeMap<(String, String), Vec<Place>>;

/// Blanks comments, string/char literals (newlines kept, so line numbers stay right).
fn strip_code(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, i) {
            let start = i;
            i += 2 + hashes + usize::from(chars[i] == 'b');
            let closing: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            while i < chars.len() && !chars[i..].starts_with(&closing) {
                i += 1;
            }
            i = (i + closing.len()).min(chars.len());
            chars[start..i].iter().for_each(|&c| blank(&mut out, c));
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '\'' && is_char_literal(&chars, i) {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
            if i < chars.len() {
                blank(&mut out, '\'');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// If a raw string (`r"`, `r#"`, `br"`...) starts at `i` (not inside an identifier), the
/// number of its hashes.
fn raw_string_start(chars: &[char], i: usize) -> Option<usize> {
    if i > 0 && is_ident_char(chars[i - 1]) {
        return None;
    }
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    (chars.get(j + hashes) == Some(&'"')).then_some(hashes)
}

/// Whether the `'` at `i` opens a char literal (`'a'`, `'\n'`, `'"'`) rather than a
/// lifetime or label (`'a`, `'static`).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Blanks every item marked `#[cfg(test)]` (a `mod tests { ... }`, a function, a `use`).
fn strip_test_items(code: &str) -> String {
    let mut chars: Vec<char> = code.chars().collect();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= chars.len() {
        if chars[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + marker.len();
        let mut depth = 0usize;
        while j < chars.len() {
            match chars[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        j += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let end = j.min(chars.len());
        for c in &mut chars[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = j;
    }
    chars.into_iter().collect()
}

/// The modules a file's code names from the crate root, with line numbers: `crate::x`,
/// `$crate::x`, `crate::{x, y::z}`, and `super::` chains that climb above the file's
/// top-level module (`depth` is how deep the file's module is: 1 for `src/x.rs` and
/// `src/x/mod.rs`, 2 for `src/x/y.rs`).
fn root_paths(code: &str, depth: usize) -> Vec<(String, usize)> {
    // A made-up module path `depth` deep, of a name no path can contain.
    let me = vec!["<file>".to_string(); depth];
    resolved_paths(code, &me)
        .into_iter()
        .filter(|(path, _)| path.first() != me.first())
        .filter_map(|(path, line)| Some((path.into_iter().next()?, line)))
        .fold(Vec::new(), |mut heads, head| {
            // `crate::game::{A, B}` names `game` once.
            if heads.last() != Some(&head) {
                heads.push(head);
            }
            heads
        })
}

/// The index after `::` (spaces allowed around it) if it follows at `i`.
fn matches_sep(chars: &[char], mut i: usize) -> Option<usize> {
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    (chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':')).then_some(i + 2)
}

/// Names of the `#[macro_export]` macros a file defines (`crate::name` refers to them).
fn exported_macros(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[macro_export]") {
        rest = &rest[at + "#[macro_export]".len()..];
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix("macro_rules!") {
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|&c| is_ident_char(c))
                .collect();
            names.push(name);
        }
    }
    names
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A parsed crate: its top-level modules and the edges between them.
struct Graph {
    modules: BTreeSet<String>,
    edges: Edges,
}

/// Reads the edges between the top-level modules of the crate whose sources are `files`
/// (paths relative to `src/`, with their text). `main.rs` and `lib.rs` are the roots, not
/// modules.
fn graph(files: &[(String, String)]) -> Graph {
    let top = |rel: &str| -> Option<String> {
        let first = rel.split('/').next()?;
        let name = first.strip_suffix(".rs").unwrap_or(first);
        (name != "main" && name != "lib").then(|| name.to_string())
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|(rel, _)| top(rel)).collect();
    let stripped: Vec<(String, String)> = files
        .iter()
        .map(|(rel, text)| (rel.clone(), strip_test_items(&strip_code(text))))
        .collect();
    let mut macros: BTreeMap<String, String> = BTreeMap::new();
    for (rel, code) in &stripped {
        if let Some(me) = top(rel) {
            for name in exported_macros(code) {
                macros.insert(name, me.clone());
            }
        }
    }
    let mut edges = Edges::new();
    for (rel, code) in &stripped {
        let Some(me) = top(rel) else { continue };
        // How deep the file's module is: `src/x.rs` and `src/x/mod.rs` are 1, `src/x/y.rs` 2.
        let parts: Vec<&str> = rel.split('/').collect();
        let depth = parts.len() - usize::from(parts.len() > 1 && parts.last() == Some(&"mod.rs"));
        for (name, line) in root_paths(code, depth) {
            let target = if modules.contains(&name) {
                name
            } else if let Some(owner) = macros.get(&name) {
                owner.clone()
            } else {
                continue;
            };
            if target != me {
                let place = Place {
                    file: format!("src/{rel}"),
                    line,
                };
                edges.entry((me.clone(), target)).or_default().push(place);
            }
        }
    }
    Graph { modules, edges }
}

/// The places of a use, the first few of them.
fn places(list: &[Place]) -> String {
    let shown: Vec<String> = list
        .iter()
        .take(4)
        .map(|p| format!("{}:{}", p.file, p.line))
        .collect();
    let more = list.len().saturating_sub(shown.len());
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{}{tail}", shown.join(", "))
}

/// Why the edge `from -> to` breaks the order, if it does.
fn breach(from: &str, to: &str) -> Option<String> {
    let rank = |m: &str| ORDER.iter().position(|&o| o == m);
    let leaf = |m: &str| LEAVES.contains(&m);
    if leaf(to) {
        return None;
    }
    match (rank(from), rank(to)) {
        (_, None) => None,
        (None, Some(_)) if leaf(from) => Some(format!(
            "`{from}` is a leaf module and may use only other leaves"
        )),
        (Some(a), Some(b)) if b > a => Some(format!("`{to}` comes after `{from}` in the order")),
        _ => None,
    }
}

/// Every breach of the order and every cycle, one line each (empty when all is well).
fn problems(graph: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for m in &graph.modules {
        if !ORDER.contains(&m.as_str()) && !LEAVES.contains(&m.as_str()) {
            out.push(format!(
                "module `{m}` has no place in the import order: add it to ORDER or LEAVES in \
                 tests/project/imports.rs and to docs/architecture.md"
            ));
        }
    }
    for ((from, to), list) in &graph.edges {
        if let Some(why) = breach(from, to) {
            out.push(format!(
                "{from} -> {to} goes up the import order ({why}): {}",
                places(list)
            ));
        }
    }
    for cycle in cycles(graph) {
        // The edges to cut: those of the cycle that go up the order (all of them when none
        // does, as between leaves).
        let inner: Vec<(&(String, String), &Vec<Place>)> = graph
            .edges
            .iter()
            .filter(|((a, b), _)| cycle.contains(a) && cycle.contains(b))
            .collect();
        let up: Vec<_> = inner
            .iter()
            .filter(|((a, b), _)| breach(a, b).is_some())
            .collect();
        let shown: Vec<String> = if up.is_empty() {
            inner.iter().collect()
        } else {
            up
        }
        .iter()
        .map(|((a, b), list)| format!("{a} -> {b} at {}", places(list)))
        .collect();
        out.push(format!(
            "cycle {}: {}",
            cycle.join(" <-> "),
            shown.join("; ")
        ));
    }
    out
}

/// The groups of modules that reach each other (strongly connected, more than one module).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let names: Vec<&String> = graph.modules.iter().collect();
    let n = names.len();
    let index = |m: &String| names.iter().position(|x| *x == m);
    let mut reach = vec![vec![false; n]; n];
    for (a, b) in graph.edges.keys() {
        if let (Some(i), Some(j)) = (index(a), index(b)) {
            reach[i][j] = true;
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                reach[i][j] = reach[i][j] || (reach[i][k] && reach[k][j]);
            }
        }
    }
    let mut seen = vec![false; n];
    let mut groups = Vec::new();
    for i in 0..n {
        if seen[i] || !reach[i][i] {
            continue;
        }
        let group: Vec<String> = (0..n)
            .filter(|&j| reach[i][j] && reach[j][i])
            .inspect(|&j| seen[j] = true)
            .map(|j| names[j].clone())
            .collect();
        groups.push(group);
    }
    groups
}

fn sources(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(rel, text)| (rel.to_string(), text.to_string()))
        .collect()
}

/// The crate's sources: paths relative to `src/`, with their text.
fn src_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    rust_files(&src)
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (rel, text)
        })
        .collect()
}

#[test]
fn src_imports_run_one_way() {
    let files = src_files();
    let graph = graph(&files);
    assert!(
        graph.modules.contains("game") && graph.edges.contains_key(&("net".into(), "game".into())),
        "the parser found no net -> game edge: it reads nothing"
    );
    let found = problems(&graph);
    assert!(
        found.is_empty(),
        "import order broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn paths_are_read_from_code_only() {
    let text = r#"
// use crate::train;  a comment
/* crate::eval in a /* nested */ block comment */
const S: &str = "crate::roles";
const R: &str = r"crate::store";
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { x }
use crate::{game::{GameKind, GameState}, util::write_atomic,
    search};
fn g() { let _ = crate::selfplay::record::read_records; }
#[cfg(test)]
mod tests {
    use crate::cli;
}
fn h() { crate :: layout::x(); }
"#;
    let graph = graph(&sources(&[
        ("net/model.rs", text),
        ("game/mod.rs", ""),
        ("util.rs", ""),
    ]));
    let edges: Vec<(String, usize)> = graph
        .edges
        .iter()
        .flat_map(|((_, to), list)| list.iter().map(move |p| (to.clone(), p.line)))
        .collect();
    // Only names that are top-level modules (here game, util) count; the others are not in
    // the file list of this made-up crate.
    assert_eq!(
        edges,
        vec![("game".to_string(), 8), ("util".to_string(), 8)]
    );
    let heads = root_paths(&strip_test_items(&strip_code(text)), 2);
    let names: Vec<&str> = heads.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["game", "util", "search", "selfplay", "layout"]);
}

#[test]
fn super_paths_that_reach_the_root_count() {
    let code = "use super::net::X; use super::super::game::Y; use super::z;";
    let names = |depth| -> Vec<String> {
        root_paths(code, depth)
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    };
    assert_eq!(names(1), ["net", "game", "z"]); // src/x.rs: super is the crate root
    assert_eq!(names(2), ["game"]); // src/x/y.rs: super is x, super::super the root
}

#[test]
fn exported_macros_count_as_their_module() {
    let graph = graph(&sources(&[
        (
            "game/mod.rs",
            "#[macro_export]\nmacro_rules! with_game { () => { $crate::game::X } }",
        ),
        ("search/mod.rs", "use crate::with_game;"),
    ]));
    assert!(graph.edges.contains_key(&("search".into(), "game".into())));
    assert!(!graph.edges.contains_key(&("game".into(), "game".into())));
}

#[test]
fn upward_edges_cycles_and_unknown_modules_are_reported() {
    let graph = graph(&sources(&[
        ("net/mod.rs", "use crate::search::Tree;"),
        ("search/mcts.rs", "\n\nuse crate::net::Net;"),
        ("util.rs", "use crate::game::GameKind;"),
        ("game/mod.rs", ""),
        ("extra.rs", "use crate::util::write_atomic;"),
        (
            "train/run.rs",
            "use crate::net::x; use crate::config::y; use crate::layout::z;",
        ),
        ("eval/mod.rs", "use crate::export::y;"),
        ("export/mod.rs", "use crate::eval::x;"),
    ]));
    let found = problems(&graph).join("\n");
    assert!(
        found.contains("net -> search goes up the import order"),
        "{found}"
    );
    assert!(found.contains("src/net/mod.rs:1"), "{found}");
    assert!(
        found.contains("util -> game goes up the import order (`util` is a leaf"),
        "{found}"
    );
    assert!(found.contains("export -> eval goes up"), "{found}");
    assert!(found.contains("cycle net <-> search"), "{found}");
    assert!(
        found.contains("cycle net <-> search: net -> search at src/net/mod.rs:1"),
        "{found}"
    );
    assert!(
        !found.contains("search -> net"),
        "edges down the order are not listed: {found}"
    );
    assert!(found.contains("cycle eval <-> export"), "{found}");
    assert!(found.contains("module `extra` has no place"), "{found}");
    assert!(
        !found.contains("train ->"),
        "train may use net, config and leaves: {found}"
    );
    assert!(!found.contains("eval -> export goes up"), "{found}");
    assert_eq!(problems(&graph).len(), 6, "{found}");
}

/// The module path of a file relative to `src/`: `search/run.rs` is `search::run`,
/// `search/mod.rs` is `search`, `lib.rs` and `main.rs` the crate root.
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    let last = parts.pop().unwrap_or_default();
    let name = last.strip_suffix(".rs").unwrap_or(&last);
    let root = parts.is_empty() && (name == "lib" || name == "main");
    if name != "mod" && !root {
        parts.push(name.to_string());
    }
    parts
}

/// The identifier chains a path names from `i` on (`a::b::{c::d, e}` gives `a b c d` and
/// `a b e`), with their line numbers.
fn chains_at(chars: &[char], i: usize) -> Vec<(Vec<String>, usize)> {
    let line_at = |k: usize| chars[..k].iter().filter(|&&c| c == '\n').count() + 1;
    let mut chain = Vec::new();
    let mut first = None;
    let mut k = i;
    loop {
        while k < chars.len() && chars[k].is_whitespace() {
            k += 1;
        }
        if chars.get(k) == Some(&'{') {
            let mut out = Vec::new();
            let mut depth = 0usize;
            let mut item = k + 1;
            for j in k..chars.len() {
                match chars[j] {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        for (tail, line) in chains_at(chars, item) {
                            out.push(([chain.clone(), tail].concat(), line));
                        }
                        item = j + 1;
                        if chars[j] == '}' {
                            break;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return out;
        }
        let ident: String = chars[k..]
            .iter()
            .take_while(|&&c| is_ident_char(c))
            .collect();
        if ident.is_empty() {
            break;
        }
        first.get_or_insert(k);
        chain.push(ident.clone());
        match matches_sep(chars, k + ident.chars().count()) {
            Some(after) => k = after,
            None => break,
        }
    }
    match first {
        Some(at) => vec![(chain, line_at(at))],
        None => vec![],
    }
}

/// Every path in `code` (of the module `me`) that starts at `crate::`, `super::` or
/// `self::`, resolved to the module path it names, with its line.
fn resolved_paths(code: &str, me: &[String]) -> Vec<(Vec<String>, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident_char(chars[i]) || (i > 0 && is_ident_char(chars[i - 1])) {
            i += 1;
            continue;
        }
        let word: String = chars[i..]
            .iter()
            .take_while(|&&c| is_ident_char(c))
            .collect();
        let mut base: Option<Vec<String>> = match word.as_str() {
            "crate" => Some(Vec::new()),
            "self" => Some(me.to_vec()),
            "super" => Some(me[..me.len().saturating_sub(1)].to_vec()),
            _ => None,
        };
        let mut j = i + word.chars().count();
        let mut after = base.as_ref().and_then(|_| matches_sep(&chars, j));
        while let (Some(k), Some(b)) = (after, base.as_mut()) {
            let next: String = chars[k..]
                .iter()
                .take_while(|&&c| is_ident_char(c))
                .collect();
            if next != "super" {
                break;
            }
            b.pop();
            j = k + next.len();
            after = matches_sep(&chars, j);
        }
        if let (Some(k), Some(b)) = (after, base) {
            for (chain, line) in chains_at(&chars, k) {
                found.push(([b.clone(), chain].concat(), line));
            }
            j = k;
        }
        i = j.max(i + 1);
    }
    found
}

/// Per folder of the crate (`search`, `eval/probe`), the graph of its sibling modules: an
/// edge `a -> b` when code in `a` (or below it) names `b` (or something in it).
fn folder_graphs(files: &[(String, String)]) -> BTreeMap<String, Graph> {
    let paths: Vec<Vec<String>> = files.iter().map(|(rel, _)| module_path(rel)).collect();
    let mut graphs: BTreeMap<String, Graph> = BTreeMap::new();
    for path in &paths {
        for k in 1..path.len() {
            let graph = graphs.entry(path[..k].join("/")).or_insert_with(|| Graph {
                modules: BTreeSet::new(),
                edges: Edges::new(),
            });
            graph.modules.insert(path[k].clone());
        }
    }
    for ((rel, text), me) in files.iter().zip(&paths) {
        let code = strip_test_items(&strip_code(text));
        for (target, line) in resolved_paths(&code, me) {
            for k in 1..me.len() {
                let Some(graph) = graphs.get_mut(&me[..k].join("/")) else {
                    continue;
                };
                let sibling = target.get(k).filter(|t| graph.modules.contains(*t));
                if let Some(to) = sibling.filter(|t| target[..k] == me[..k] && **t != me[k]) {
                    let place = Place {
                        file: format!("src/{rel}"),
                        line,
                    };
                    let edge = (me[k].clone(), to.clone());
                    let list = graph.edges.entry(edge).or_default();
                    if list.last() != Some(&place) {
                        list.push(place);
                    }
                }
            }
        }
    }
    graphs
}

/// Every cycle inside a folder, one line each with its edges.
fn folder_cycles(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (folder, graph) in folder_graphs(files) {
        for cycle in cycles(&graph) {
            let edges: Vec<String> = graph
                .edges
                .iter()
                .filter(|((a, b), _)| cycle.contains(a) && cycle.contains(b))
                .map(|((a, b), list)| format!("{a} -> {b} at {}", places(list)))
                .collect();
            out.push(format!(
                "cycle in {folder}/: {}: {}",
                cycle.join(" <-> "),
                edges.join("; ")
            ));
        }
    }
    out
}

#[test]
fn src_folders_have_no_import_cycles() {
    let files = src_files();
    let graphs = folder_graphs(&files);
    let search = graphs.get("search").expect("a search folder");
    assert!(
        search
            .edges
            .contains_key(&("run".to_string(), "tree".to_string())),
        "the parser found no run -> tree edge in search/: it reads nothing"
    );
    let found = folder_cycles(&files);
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn a_cycle_inside_a_folder_is_found_at_any_depth() {
    let files = sources(&[
        ("search/mod.rs", "pub mod a; pub mod b; pub mod c;"),
        ("search/a.rs", "use super::b::X;"),
        ("search/b.rs", "\nuse crate::search::{c::Z, a::Y};"),
        ("search/c.rs", "use crate::game::G; use self::inner::Q;"),
        ("eval/probe/x.rs", "use super::super::probe::y::T;"),
        ("eval/probe/y.rs", "use crate::eval::{probe::{x::U}};"),
        ("eval/z.rs", "use super::probe::x::V;"),
    ]);
    let found = folder_cycles(&files).join("\n");
    assert!(
        found.contains(
            "cycle in search/: a <-> b: a -> b at src/search/a.rs:1; b -> a at src/search/b.rs:2"
        ),
        "{found}"
    );
    assert!(found.contains("cycle in eval/probe/: x <-> y"), "{found}");
    assert_eq!(folder_cycles(&files).len(), 2, "{found}");
    let graphs = folder_graphs(&files);
    assert!(graphs["search"]
        .edges
        .contains_key(&("b".into(), "c".into())));
    assert!(graphs["eval"]
        .edges
        .contains_key(&("z".into(), "probe".into())));
}
