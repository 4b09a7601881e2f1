//! The front page and the scene reference name everything the program offers: every subcommand
//! in README.md's subcommand table and every built-in scene in docs/scene-files.md's table of
//! built-in scenes, and nothing that is not there. Both lists come from the code: the
//! subcommands from the binary's `--help` (clap's command definition prints them), the scenes
//! from the built-in scene registry (`spheresim::scene::builtin::names`). README.md's first
//! screen also holds its two commands, the main run and the tests.

use std::path::Path;
use std::process::Command;

/// Lines of README.md a reader sees before scrolling (a laptop terminal or browser window).
const FIRST_SCREEN_LINES: usize = 40;

/// The two commands README.md's first screen must show (the second is CI's test command).
const TWO_COMMANDS: [&str; 2] = ["cargo run --release -- run wall-break", "cargo test"];

/// A file of the repository as text.
fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The subcommands listed under `Commands:` in a clap `--help` text, without clap's own `help`.
fn help_subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// The rows of the first Markdown table under the heading line `heading` (up to the next
/// heading), each as its cells, trimmed; the header and the `---` rule are left out.
fn table_rows(markdown: &str, heading: &str) -> Vec<Vec<String>> {
    let section: Vec<&str> = markdown
        .lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with('#'))
        .collect();
    section
        .iter()
        .skip_while(|l| !l.trim_start().starts_with('|'))
        .take_while(|l| l.trim_start().starts_with('|'))
        .skip(2)
        .map(|l| {
            let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
            inner.split('|').map(|c| c.trim().to_string()).collect()
        })
        .collect()
}

/// The first cells of `rows` whose first cell starts with `` `prefix `` (a code span), as the
/// word that follows the prefix: `` `spheresim run SCENE` `` with prefix `spheresim ` gives `run`.
fn first_words(rows: &[Vec<String>], prefix: &str) -> Vec<String> {
    rows.iter()
        .filter_map(|r| r.first())
        .filter_map(|c| c.strip_prefix('`'))
        .filter_map(|c| c.strip_prefix(prefix))
        .filter_map(|c| c.split([' ', '`']).next())
        .map(str::to_string)
        .collect()
}

/// `expected` names missing from `found`, and `found` names not in `expected`.
fn differences(expected: &[String], found: &[String]) -> (Vec<String>, Vec<String>) {
    let missing = expected
        .iter()
        .filter(|e| !found.contains(e))
        .cloned()
        .collect();
    let extra = found
        .iter()
        .filter(|f| !expected.contains(f))
        .cloned()
        .collect();
    (missing, extra)
}

#[test]
fn readme_lists_every_subcommand() {
    let out = Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .arg("--help")
        .output()
        .expect("spawn spheresim");
    assert!(out.status.success(), "spheresim --help failed");
    let subcommands = help_subcommands(&String::from_utf8_lossy(&out.stdout));
    assert!(
        subcommands.len() >= 2,
        "no subcommands read from --help: {subcommands:?}"
    );
    let rows = table_rows(&read("README.md"), "## Subcommands");
    let listed = first_words(&rows, "spheresim ");
    let (missing, extra) = differences(&subcommands, &listed);
    assert!(
        missing.is_empty() && extra.is_empty(),
        "README.md's subcommand table: missing {missing:?}, not a subcommand {extra:?}"
    );
}

#[test]
fn scene_files_doc_lists_every_builtin_scene() {
    let scenes: Vec<String> = spheresim::scene::builtin::names()
        .into_iter()
        .map(str::to_string)
        .collect();
    let rows = table_rows(&read("docs/scene-files.md"), "## Built-in scenes");
    let listed = first_words(&rows, "");
    let (missing, extra) = differences(&scenes, &listed);
    assert!(
        missing.is_empty() && extra.is_empty(),
        "docs/scene-files.md's built-in scenes: missing {missing:?}, not a built-in scene \
         {extra:?}"
    );
}

#[test]
fn readme_first_screen_holds_the_two_commands() {
    let readme = read("README.md");
    let first: Vec<&str> = readme.lines().take(FIRST_SCREEN_LINES).collect();
    for cmd in TWO_COMMANDS {
        assert!(
            first.iter().any(|l| l.trim() == cmd),
            "`{cmd}` is not on a line of its own within README.md's first {FIRST_SCREEN_LINES} \
             lines"
        );
    }
}

// The helpers themselves, on fixed text.

#[test]
fn help_subcommands_reads_the_commands_section() {
    let help = "About\n\nUsage: x <COMMAND>\n\nCommands:\n  run    Run it\n  scenes  List\n  \
                help   Print this\n\nOptions:\n  -h, --help  Print help\n";
    assert_eq!(help_subcommands(help), ["run", "scenes"]);
    assert!(help_subcommands("Usage: x\n").is_empty());
}

#[test]
fn table_rows_and_first_words_read_the_table_under_a_heading() {
    let md = "# T\n\n| a | b |\n| --- | --- |\n| `no` | x |\n\n## Wanted\n\nText.\n\n| name | \
              what |\n| --- | --- |\n| `spheresim run SCENE` | runs |\n| `spheresim scenes` | \
              lists |\n| plain | row |\n\nAfter.\n\n| `spheresim later` | other table |\n\n## \
              Next\n\n| `spheresim next` | x |\n";
    let rows = table_rows(md, "## Wanted");
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(first_words(&rows, "spheresim "), ["run", "scenes"]);
    assert_eq!(first_words(&rows, ""), ["spheresim", "spheresim"]);
    assert!(table_rows(md, "## Missing").is_empty());
}

#[test]
fn differences_reports_both_ways() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let (missing, extra) = differences(&s(&["a", "b", "c"]), &s(&["a", "d"]));
    assert_eq!(missing, ["b", "c"]);
    assert_eq!(extra, ["d"]);
}
