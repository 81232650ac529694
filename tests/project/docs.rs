//! The documentation stays usable and the repository stands alone: README.md is a short
//! page (at most 200 lines), every relative link in README.md and docs/*.md points at a file
//! that exists (and, into a Markdown page, at a heading that exists), and nothing in the
//! repository cites the design notes and rule files that live outside it; the word table of
//! docs/architecture.md names code that exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The README's length limit: the rest belongs in docs/.
const README_MAX_LINES: usize = 200;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every docs/*.md, sorted.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let docs = root().join("docs");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap_or_else(|e| panic!("{}: {e}", docs.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    found.sort();
    pages.extend(found);
    pages
}

/// The text of a Markdown page outside fenced code blocks and inline code spans, one
/// entry per line (code replaced by spaces, so line numbers stay right).
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return String::new();
            }
            if fenced {
                return String::new();
            }
            let mut out = String::new();
            let mut in_code = false;
            for c in line.chars() {
                if c == '`' {
                    in_code = !in_code;
                    out.push(' ');
                } else {
                    out.push(if in_code { ' ' } else { c });
                }
            }
            out
        })
        .collect()
}

/// The targets of inline links and images (`[text](target)`, `![alt](target "title")`) and
/// of reference definitions (`[name]: target`), with their 1-based line numbers.
fn links(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (n, line) in prose_lines(text).iter().enumerate() {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push((target.trim_matches(['<', '>']).to_string(), n + 1));
            rest = &after[end..];
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            if let Some(at) = trimmed.find("]:") {
                let target = trimmed[at + 2..].split_whitespace().next().unwrap_or("");
                found.push((target.to_string(), n + 1));
            }
        }
    }
    found
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == ' ' || c == '-' || c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page's headings (repeats get `-1`, `-2`, ... as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let mut name = base.clone();
        let mut n = 0;
        while seen.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        seen.insert(name);
    }
    seen
}

/// Every relative link of `page` that points at nothing: (line, target, why).
fn broken_links(page: &Path) -> Vec<(usize, String, String)> {
    let text = read(page);
    let dir = page.parent().expect("a page is in a directory");
    let mut broken = Vec::new();
    for (target, line) in links(&text) {
        let external = target.contains("://") || target.starts_with("mailto:");
        if target.is_empty() || external {
            continue;
        }
        let (path, fragment) = match target.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            page.to_path_buf()
        } else if path.starts_with('/') {
            root().join(path.trim_start_matches('/'))
        } else {
            dir.join(path)
        };
        if !file.exists() {
            broken.push((line, target.clone(), "no such file".to_string()));
            continue;
        }
        let markdown = file.extension().is_some_and(|e| e == "md");
        if let (Some(fragment), true) = (fragment, markdown) {
            if !anchors(&read(&file)).contains(fragment) {
                broken.push((line, target.clone(), "no such heading".to_string()));
            }
        }
    }
    broken
}

#[test]
fn readme_is_short() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move detail into docs/"
    );
}

#[test]
fn relative_links_point_at_files_and_headings_that_exist() {
    let pages = pages();
    assert!(pages.len() > 1, "no docs/*.md found");
    let mut problems = Vec::new();
    for page in &pages {
        let name = page
            .strip_prefix(root())
            .unwrap_or(page)
            .display()
            .to_string();
        for (line, target, why) in broken_links(page) {
            problems.push(format!("{name}:{line}: ({target}): {why}"));
        }
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readme_links_every_docs_page() {
    let readme = read(&root().join("README.md"));
    let linked: BTreeSet<String> = links(&readme).into_iter().map(|(t, _)| t).collect();
    let missing: Vec<String> = pages()
        .iter()
        .skip(1)
        .map(|p| {
            format!(
                "docs/{}",
                p.file_name().expect("file name").to_string_lossy()
            )
        })
        .filter(|p| !linked.contains(p))
        .collect();
    assert!(missing.is_empty(), "README.md does not link {missing:?}");
}

/// Files of the repository that must not cite what lives outside it (the design notes and
/// the rule files kept beside the repository). The names are built with `concat!` so that
/// this file does not match itself.
#[test]
fn nothing_cites_files_outside_the_repository() {
    let patterns = [
        concat!("DESIGN", ".md"),
        concat!("CLARIFICATIONS", ".md"),
        concat!("STYLE", ".md"),
        concat!("../", "shared"),
        concat!("shared/", "rules"),
        concat!("shared ", "folder"),
    ];
    let mut files = vec![root().join("README.md"), root().join("build.rs")];
    for dir in [
        "src", "tests", "benches", "scripts", "configs", "deploy", "docs", ".ci",
    ] {
        collect_files(&root().join(dir), &mut files);
    }
    let mut hits = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for pattern in patterns {
                if line.contains(pattern) {
                    let name = file
                        .strip_prefix(root())
                        .unwrap_or(file)
                        .display()
                        .to_string();
                    hits.push(format!("{name}:{}: cites {pattern}", n + 1));
                }
            }
        }
    }
    assert!(
        files.len() > 50,
        "found only {} files to check",
        files.len()
    );
    assert!(
        hits.is_empty(),
        "cite the page under docs/ that holds it instead:\n{}",
        hits.join("\n")
    );
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn links_are_read_from_prose_and_checked() {
    let text = "# Title\n\nSee [a](a.md), ![b](img/b.png \"t\") and `[c](code.md)`.\n\
                ```\n[d](fenced.md)\n```\n[e]: https://example.com\n## Two words: `x`\n## Title\n";
    let found: Vec<(String, usize)> = links(text);
    let expected = [("a.md", 3), ("img/b.png", 3), ("https://example.com", 7)];
    assert_eq!(found, expected.map(|(t, n)| (t.to_string(), n)));
    let names: Vec<String> = anchors(text).into_iter().collect();
    assert_eq!(names, ["title", "title-1", "two-words-x"]);

    let dir = std::env::temp_dir().join(format!("checkers-zero-docs-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("other.md"), "# Other page\n## A section\n").expect("write");
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "[ok](other.md#a-section) [top](#here) [gone](missing.md)\n\
         [bad anchor](other.md#nope) [web](https://x.org/missing.md)\n# Here\n",
    )
    .expect("write");
    let broken = broken_links(&page);
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(
        broken,
        vec![
            (1, "missing.md".to_string(), "no such file".to_string()),
            (
                2,
                "other.md#nope".to_string(),
                "no such heading".to_string()
            ),
        ]
    );
}

/// The code names in docs/architecture.md's word table (its third column): each `src/`
/// file or folder it names exists, and each Rust name (`Foo`, `a::b::Foo`, `Foo::bar`) is
/// found in `src/` as a whole word (its last segment). Keys, commands and run files are
/// left out.
#[test]
fn the_word_table_names_code_that_exists() {
    let text = read(&root().join("docs/architecture.md"));
    let table = text
        .split("\n## Words\n")
        .nth(1)
        .expect("a `## Words` section");
    let table = &table[..table.find("\n## ").unwrap_or(table.len())];
    let mut files = Vec::new();
    collect_files(&root().join("src"), &mut files);
    let code: Vec<String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| read(p))
        .collect();
    let rows = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| word"));
    let mut unknown = Vec::new();
    for row in rows {
        let Some(names) = row.split(" | ").nth(2) else {
            continue;
        };
        for name in names.split('`').skip(1).step_by(2) {
            if !names_code_that_exists(name, &code) {
                unknown.push(name.to_string());
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "docs/architecture.md's word table names code that is not there: {unknown:?}"
    );
}

/// False when `name` is a `src/` path that does not exist, or a Rust name whose last
/// segment no source file holds as a whole word; true for anything else.
fn names_code_that_exists(name: &str, code: &[String]) -> bool {
    if name.ends_with(".rs") || name.ends_with('/') {
        return root().join("src").join(name).exists();
    }
    let rust_name = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':');
    if !rust_name {
        return true;
    }
    let last = name.rsplit("::").next().unwrap_or(name);
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.iter().any(|text| {
        text.match_indices(last).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + last.len()..].chars().next();
            !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
        })
    })
}

#[test]
fn the_word_check_tells_names_that_exist_from_those_that_do_not() {
    let code = vec!["pub struct ReplayWindow;\nfn step_if_allowed() {}".to_string()];
    assert!(names_code_that_exists("train::window::ReplayWindow", &code));
    assert!(names_code_that_exists("step_if_allowed", &code));
    assert!(!names_code_that_exists("Replay", &code));
    assert!(!names_code_that_exists("ResignWindow", &code));
    assert!(names_code_that_exists("[batching]", &code));
    assert!(names_code_that_exists("net/batcher.rs", &code));
    assert!(!names_code_that_exists("net/nothing.rs", &code));
}
