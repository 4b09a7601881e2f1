//! Every Markdown document that the code, shaders, tests, benches, examples, CI script and
//! `Cargo.toml` mention exists in the repository.
//!
//! Scans every text file under `src/`, `shaders/`, `tests/`, `benches/`, `examples/` and `.ci/`
//! (those present), and `Cargo.toml`, for tokens that look like a path to a Markdown document: a
//! run of path characters (`A-Z a-z 0-9 _ . - /`) ending in `.md` that is not followed by a
//! letter, digit or `_` (`docs/physics.md`, `../docs/cli.md`, `README.md`). Skipped: a bare
//! extension such as `".md"` or the glob `*.md` (nothing before `.md`), and web links (the token
//! starts with `//`, as after `https:`). Each token must name an existing file, resolved relative
//! to the repository root or to the directory of the file that mentions it, inside the
//! repository. A reference that does not resolve fails the test, which lists every such one with
//! its file and line.
//!
//! This also catches the design notes kept outside the repository (see [`EXTERNAL_NOTES`]):
//! readers of the repository cannot open them, so a comment citing one must cite the `docs/` page
//! that replaced it. Their names are built with `concat!` so that this file does not cite them.
//!
//! A few tests mention missing documents on purpose (the samples of `tests/docs_links.rs`);
//! [`ALLOWED`] lists exactly those
//! file–token pairs, each with its reason, rather than skipping whole files or every string
//! literal, so that everything else in those files is still checked.

use std::fs;
use std::path::{Component, Path, PathBuf};

/// The design notes that live outside the repository, by name.
const EXTERNAL_NOTES: [&str; 2] = [concat!("PHYSICS", ".md"), concat!("DESIGN", ".md")];

/// Directories scanned (recursively, when present) and single files scanned, from the root.
const SCANNED_DIRS: [&str; 6] = ["src", "shaders", "tests", "benches", "examples", ".ci"];
const SCANNED_FILES: [&str; 1] = ["Cargo.toml"];

/// References that are allowed not to resolve: (file, token as written, why).
const ALLOWED: &[(&str, &str, &str)] = &[
    // tests/docs_links.rs checks the user documentation's links; its self-test parses a sample
    // with deliberately broken and out-of-repository links, and it forbids the note names.
    (
        "tests/docs_links.rs",
        concat!("docs/no-such-page", ".md"),
        "deliberately broken link in the link checker's sample",
    ),
    (
        "tests/docs_links.rs",
        concat!("not/a/link", ".md"),
        "sample link inside inline code, which the link checker must skip",
    ),
    (
        "tests/docs_links.rs",
        concat!("also/not/a/link", ".md"),
        "sample link inside a code block, which the link checker must skip",
    ),
    (
        "tests/docs_links.rs",
        concat!("page", ".md"),
        "a scratch document the link checker's self-test resolves from",
    ),
];

/// A Markdown reference found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Ref {
    /// 1-based line.
    line: usize,
    /// The token as written, e.g. `docs/physics.md`.
    target: String,
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')
}

/// The Markdown references in `text`, in order.
fn md_refs(text: &str) -> Vec<Ref> {
    let mut refs = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut from = 0;
        while let Some(i) = line[from..].find(".md").map(|i| i + from) {
            let end = i + 3;
            from = end;
            // `.mdx`, `.md5`, `.md_x` are other names.
            if bytes
                .get(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                continue;
            }
            let start = line[..i]
                .char_indices()
                .rev()
                .take_while(|(_, c)| is_path_char(*c))
                .last()
                .map_or(i, |(j, _)| j);
            let target = &line[start..end];
            let name = target.rsplit('/').next().unwrap_or(target);
            if name == ".md" || target.starts_with("//") {
                continue;
            }
            refs.push(Ref {
                line: k + 1,
                target: target.to_string(),
            });
        }
    }
    refs
}

/// `path` with `.` and `..` resolved lexically; `None` if `..` climbs above its first component.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Why `target`, mentioned in `file` (both under `root`), does not resolve; `None` when it names
/// an existing file inside `root`, relative to `root` or to `file`'s directory.
fn check_ref(root: &Path, file: &Path, target: &str) -> Option<String> {
    let rel = target.trim_start_matches('/');
    let dir = file.parent().unwrap_or(root);
    let resolves = [root.join(rel), dir.join(target)]
        .iter()
        .any(|p| normalise(p).is_some_and(|p| p.starts_with(root) && p.is_file()));
    if resolves {
        return None;
    }
    let name = target.rsplit('/').next().unwrap_or(target);
    Some(if EXTERNAL_NOTES.contains(&name) {
        "cites a design note kept outside the repository; cite the docs/ page that replaced it \
         (docs/physics.md, docs/architecture.md, ...)"
            .to_string()
    } else {
        "no such file relative to the repository root or to this file's directory".to_string()
    })
}

/// `path` relative to `root`, with `/` separators.
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The broken references of `text`, the contents of `file`: `file:line: target: why`, less
/// those in [`ALLOWED`].
fn broken_refs(root: &Path, file: &Path, text: &str) -> Vec<String> {
    let name = relative(root, file);
    md_refs(text)
        .into_iter()
        .filter(|r| !ALLOWED.iter().any(|(f, t, _)| *f == name && *t == r.target))
        .filter_map(|r| {
            check_ref(root, file, &r.target)
                .map(|why| format!("{name}:{}: {}: {why}", r.line, r.target))
        })
        .collect()
}

/// Every file under `dir`, recursively, sorted.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("readable entry").path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files scanned, those present.
fn scanned_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for d in SCANNED_DIRS {
        files_under(&root.join(d), &mut files);
    }
    files.extend(
        SCANNED_FILES
            .iter()
            .map(|f| root.join(f))
            .filter(|p| p.is_file()),
    );
    files
}

#[test]
fn every_markdown_reference_in_the_sources_resolves() {
    let root = root();
    let files = scanned_files(&root);
    assert!(
        files.iter().any(|f| f.ends_with("main.rs")),
        "the scan found no sources under {}",
        root.display()
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        // Binary files (images) hold no references.
        let Ok(text) = fs::read_to_string(file) else {
            continue;
        };
        checked += md_refs(&text).len();
        broken.extend(broken_refs(&root, file, &text));
    }
    assert!(
        broken.is_empty(),
        "these references to Markdown documents do not resolve (cite a page that exists, e.g. \
         under docs/):\n  {}",
        broken.join("\n  ")
    );
    eprintln!(
        "checked {checked} Markdown references in {} files",
        files.len()
    );
}

#[test]
fn every_allowed_exception_is_still_needed() {
    let root = root();
    for (file, target, why) in ALLOWED {
        let path = root.join(file);
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{file} (allowed for {target}: {why}): {e}"));
        assert!(
            md_refs(&text).iter().any(|r| r.target == *target),
            "{file} no longer mentions {target}: remove it from ALLOWED"
        );
        assert!(
            check_ref(&root, &path, target).is_some(),
            "{file}: {target} now resolves: remove it from ALLOWED"
        );
    }
}

// The scanner itself: it must find what it is meant to find, or the test above proves nothing.
// The sample spells the extension `{md}` so that this file holds no broken reference.

const SAMPLE: &str = "\
//! See docs/physics{md} §2.1 and the guide docs/README{md}.
// A broken one: docs/no-such-page{md}, and an escape: ../../outside/notes{md}
/// Up from a file's directory: ../docs/cli{md}#options; README{md}.
let web = \"https://example.com/x{md}\"; let ext = \"{md}\"; let glob = \"docs/**/*{md}\";
let other = \"notes.mdx\"; let hash = \"a.md5\";
// The external notes: {physics} and {design}.
";

/// `text` with `{md}` spelled `.md` and the note placeholders filled in.
fn md(text: &str) -> String {
    text.replace("{md}", ".md")
        .replace("{physics}", EXTERNAL_NOTES[0])
        .replace("{design}", EXTERNAL_NOTES[1])
}

fn sample() -> String {
    md(SAMPLE)
}

#[test]
fn the_scanner_finds_references_and_skips_the_rest() {
    let refs: Vec<(usize, String)> = md_refs(&sample())
        .into_iter()
        .map(|r| (r.line, r.target))
        .collect();
    let want: Vec<(usize, String)> = [
        (1, "docs/physics{md}"),
        (1, "docs/README{md}"),
        (2, "docs/no-such-page{md}"),
        (2, "../../outside/notes{md}"),
        (3, "../docs/cli{md}"),
        (3, "README{md}"),
        (6, "{physics}"),
        (6, "{design}"),
    ]
    .into_iter()
    .map(|(l, t)| (l, md(t)))
    .collect();
    assert_eq!(refs, want);
}

#[test]
fn the_scanner_reports_broken_references_in_a_sample() {
    let root = root();
    // As if the sample were a file in src/ (so `../docs/cli.md` resolves from its directory).
    let file = root.join("src").join("sample.rs");
    let broken = broken_refs(&root, &file, &sample());
    let targets: Vec<&str> = broken
        .iter()
        .map(|b| b.split(": ").nth(1).expect("file:line: target: why"))
        .collect();
    let want = [
        "docs/no-such-page{md}",
        "../../outside/notes{md}",
        "{physics}",
        "{design}",
    ]
    .map(md);
    assert_eq!(targets, want, "{broken:#?}");
    assert!(broken[0].starts_with("src/sample.rs:2: "), "{broken:#?}");
    assert!(broken[2].contains("outside the repository"), "{broken:#?}");
}

#[test]
fn a_reference_resolves_from_the_root_or_the_file_directory_but_not_outside() {
    let root = root();
    let file = root.join("examples").join("some.toml");
    assert_eq!(check_ref(&root, &file, "docs/physics.md"), None);
    assert_eq!(check_ref(&root, &file, "README.md"), None); // examples/README.md
    assert_eq!(check_ref(&root, &file, "../docs/cli.md"), None);
    assert_eq!(check_ref(&root, &file, "/docs/cli.md"), None);
    assert!(check_ref(&root, &file, "docs").is_some(), "a directory");
    assert!(check_ref(&root, &file, &md("examples{md}")).is_some());
    assert!(
        check_ref(&root, &file, &md("../../../README{md}")).is_some(),
        "leaves the repository"
    );
}
