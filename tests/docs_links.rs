//! Every relative link in the user documentation points at a file or directory that exists.
//!
//! Scans `README.md`, every `docs/**/*.md` and `examples/README.md` (when present) for Markdown
//! links `[text](target)`, images `![alt](target)` and reference definitions `[label]: target`,
//! outside fenced code blocks and inline code spans. Web and mail links (`http:`, `https:`,
//! `mailto:`) and pure `#anchor` links are skipped; `#anchor` and `?query` are cut from the rest,
//! which is resolved relative to the file holding the link (a leading `/` means the repository
//! root, as on GitHub). A target that does not exist, or that leaves the repository, fails the
//! test, which lists every such link with its file and line.
//!
//! The documents must also not cite the two design notes kept outside the repository (their
//! names are built with `concat!` below, so this file does not cite them either): readers of
//! the repository cannot open them.

use std::fs;
use std::path::{Component, Path, PathBuf};

/// One link found in a Markdown text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Link {
    /// 1-based line of the link's target.
    line: usize,
    /// The target as written (title and angle brackets removed).
    target: String,
}

/// The Markdown text with fenced code blocks and inline code spans blanked out (replaced by
/// spaces, line ends kept), so that links are looked for only in prose.
fn strip_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(char, usize)> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| trimmed.chars().take_while(|c| *c == m).count());
        match fence {
            Some((m, n)) => {
                if marker == Some(m) && run >= n && trimmed[run..].trim().is_empty() {
                    fence = None;
                }
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None if run >= 3 => {
                fence = Some((marker.unwrap(), run));
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None => out.push_str(&blank_code_spans(line)),
        }
    }
    out
}

/// One line with its inline code spans (`` `x` ``, ``` ``x`` ```) replaced by spaces.
fn blank_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i..].iter().take_while(|c| **c == '`').count();
        // Look for a closing run of exactly n backticks.
        let mut j = i + n;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = chars[j..].iter().take_while(|c| **c == '`').count();
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.extend(std::iter::repeat_n(' ', end - i));
                i = end;
            }
            None => {
                // An unmatched run is literal text.
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// Every inline link, image and reference definition in `text`, in order.
fn extract_links(text: &str) -> Vec<Link> {
    let prose = strip_code(text);
    let chars: Vec<char> = prose.chars().collect();
    let line_of = |pos: usize| 1 + chars[..pos].iter().filter(|c| **c == '\n').count();
    let mut links = Vec::new();

    // Inline links and images: `](` followed by a target up to the balancing `)`.
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] == ']' && chars[i + 1] == '(' {
            let start = i + 2;
            let mut depth = 1;
            let mut j = start;
            while j < chars.len() && chars[j] != '\n' {
                match chars[j] {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if j < chars.len() && chars[j] == ')' {
                let inner: String = chars[start..j].iter().collect();
                if let Some(target) = link_target(&inner) {
                    links.push(Link {
                        line: line_of(start),
                        target,
                    });
                }
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }

    // Reference definitions: `[label]: target` at the start of a line.
    for (k, line) in prose.lines().enumerate() {
        let t = line.trim_start();
        if !t.starts_with('[') || t.starts_with("[^") {
            continue;
        }
        let Some(close) = t.find("]:") else {
            continue;
        };
        if let Some(target) = link_target(&t[close + 2..]) {
            links.push(Link {
                line: k + 1,
                target,
            });
        }
    }
    links.sort_by_key(|l| l.line);
    links
}

/// The destination inside `( … )`: angle brackets removed, an optional title dropped.
fn link_target(inner: &str) -> Option<String> {
    let inner = inner.trim();
    let target = if let Some(rest) = inner.strip_prefix('<') {
        rest.split('>').next().unwrap_or("")
    } else {
        inner.split_whitespace().next().unwrap_or("")
    };
    (!target.is_empty()).then(|| target.to_string())
}

/// Whether `target` is checked: not a web or mail link and not a pure anchor.
fn is_local(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    !(lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:")
        || target.starts_with('#'))
}

/// `target` without `#anchor` or `?query`, with `%20` decoded.
fn link_path(target: &str) -> String {
    let end = target.find(['#', '?']).unwrap_or(target.len());
    target[..end].replace("%20", " ")
}

/// `path` with `.` and `..` components folded (no file system access).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Why the link `target` in the file `doc` (a path under `root`) is broken, or `None` when it
/// resolves to an existing file or directory inside `root`.
fn check_link(root: &Path, doc: &Path, target: &str) -> Option<String> {
    if !is_local(target) {
        return None;
    }
    let rel = link_path(target);
    if rel.is_empty() {
        return None;
    }
    let base = if let Some(from_root) = rel.strip_prefix('/') {
        root.join(from_root)
    } else {
        doc.parent().unwrap_or(root).join(&rel)
    };
    let resolved = normalise(&base);
    if !resolved.starts_with(normalise(root)) {
        return Some(format!(
            "points outside the repository ({})",
            resolved.display()
        ));
    }
    if !resolved.exists() {
        let shown = resolved.strip_prefix(normalise(root)).unwrap_or(&resolved);
        return Some(format!("{} does not exist", shown.display()));
    }
    None
}

/// `README.md`, every `docs/**/*.md` and `examples/README.md` under `root`, the ones present.
fn documents(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut docs = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut docs);
    let examples = root.join("examples").join("README.md");
    if examples.is_file() {
        docs.push(examples);
    }
    docs
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn relative<'a>(root: &Path, p: &'a Path) -> std::borrow::Cow<'a, str> {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy()
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = root();
    let docs = documents(&root);
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = fs::read_to_string(doc)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", doc.display()));
        for link in extract_links(&text) {
            if is_local(&link.target) {
                checked += 1;
            }
            if let Some(why) = check_link(&root, doc, &link.target) {
                broken.push(format!(
                    "{}:{}: ({}) {why}",
                    relative(&root, doc),
                    link.line,
                    link.target
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken link(s) in {} Markdown files:\n  {}",
        broken.len(),
        docs.len(),
        broken.join("\n  ")
    );
    eprintln!(
        "checked {checked} relative links in {} Markdown files",
        docs.len()
    );
}

#[test]
fn the_docs_do_not_cite_the_design_notes_outside_the_repository() {
    let root = root();
    let mut hits = Vec::new();
    for doc in documents(&root) {
        let text = fs::read_to_string(&doc).expect("readable");
        for (k, line) in text.lines().enumerate() {
            for name in [concat!("PHYSICS", ".md"), concat!("DESIGN", ".md")] {
                if line.contains(name) {
                    hits.push(format!("{}:{}: {name}", relative(&root, &doc), k + 1));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "these lines cite design notes that are not in the repository (use docs/physics.md or \
         docs/architecture.md):\n  {}",
        hits.join("\n  ")
    );
}

// The checker itself: it must find what it is meant to find, or the test above proves nothing.

const SAMPLE: &str = "\
# Title

See [the guide](docs/README.md) and [a missing page](docs/no-such-page.md#part).
![picture](benches/wall-break.png \"a title\")
[web](https://example.com/x.md), [mail](mailto:a@b.c), [anchor](#title).
`[in code](not/a/link.md)` is code, and so is this block:

```sh
echo [x](also/not/a/link.md)
```

[ref]: <src/main.rs> \"reference definition\"
[nested (parens)](Cargo.toml) and [dir](tests/)
";

#[test]
fn extractor_finds_links_and_skips_code() {
    let targets: Vec<(usize, String)> = extract_links(SAMPLE)
        .into_iter()
        .map(|l| (l.line, l.target))
        .collect();
    let expect = [
        (3, "docs/README.md"),
        (3, "docs/no-such-page.md#part"),
        (4, "benches/wall-break.png"),
        (5, "https://example.com/x.md"),
        (5, "mailto:a@b.c"),
        (5, "#title"),
        (12, "src/main.rs"),
        (13, "Cargo.toml"),
        (13, "tests/"),
    ];
    let expect: Vec<(usize, String)> = expect.iter().map(|(l, t)| (*l, t.to_string())).collect();
    assert_eq!(targets, expect);
}

#[test]
fn checker_reports_the_broken_link_and_only_it() {
    let root = root();
    // As if SAMPLE were the repository's README.md.
    let doc = root.join("README.md");
    let broken: Vec<String> = extract_links(SAMPLE)
        .into_iter()
        .filter(|l| check_link(&root, &doc, &l.target).is_some())
        .map(|l| l.target)
        .collect();
    assert_eq!(broken, ["docs/no-such-page.md#part"]);
}

#[test]
fn checker_resolves_relative_to_the_linking_file_and_stays_inside() {
    let root = root();
    let doc = root.join("docs").join("page.md");
    assert_eq!(check_link(&root, &doc, "../Cargo.toml"), None);
    assert_eq!(check_link(&root, &doc, "/Cargo.toml"), None);
    assert!(check_link(&root, &doc, "Cargo.toml").is_some());
    assert!(check_link(&root, &doc, concat!("../../outside/page", ".md")).is_some());
    assert_eq!(check_link(&root, &doc, "#anchor"), None);
}
