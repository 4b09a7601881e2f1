//! `spheresim --help` and the help of every subcommand read as plain text: clap builds much of
//! it from the library's doc comments (the `ValueEnum` variants' and the arguments'), and those
//! must not leak rustdoc link syntax, module paths, citations by section or the names of design
//! notes kept outside the repository. Also checks that `completions` and `manpage` print what
//! they promise, and that `view` and `render` do not offer the event solver, which cannot draw.

use std::process::Command;

/// Every subcommand, as `spheresim <name> --help` takes it.
const SUBCOMMANDS: [&str; 9] = [
    "run",
    "scenes",
    "bench",
    "validate",
    "view",
    "render",
    "repose",
    "completions",
    "manpage",
];

/// Text that must not appear in any help: rustdoc links, paths, section citations, note names.
const FORBIDDEN: [&str; 5] = ["[`", "§", "PHYSICS", "DESIGN", "crate::"];

/// Runs the binary with `args`, asserts it succeeds and returns its standard output.
fn stdout_of(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(args)
        .output()
        .expect("spawn spheresim");
    assert!(
        out.status.success(),
        "spheresim {}: exit {:?}\nstderr:\n{}",
        args.join(" "),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The `--help` output of the top level (`sub = None`) or of a subcommand.
fn help(sub: Option<&str>) -> String {
    match sub {
        Some(s) => stdout_of(&[s, "--help"]),
        None => stdout_of(&["--help"]),
    }
}

/// The lines of `text` holding one of the forbidden strings, with the string.
fn forbidden_lines(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|line| {
            FORBIDDEN
                .iter()
                .filter(|f| line.contains(**f))
                .map(move |f| format!("{f:?} in: {}", line.trim()))
        })
        .collect()
}

/// The possible values clap lists for `flag` in a `--help` text (the lines `- name: help` or
/// `- name` under the flag, up to the next flag), or the bracketed `[possible values: ...]`.
fn possible_values(help: &str, flag: &str) -> Vec<String> {
    let lines: Vec<&str> = help.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(flag))
        .unwrap_or_else(|| panic!("{flag} not in the help:\n{help}"));
    let mut values = Vec::new();
    for (k, line) in lines[start..].iter().enumerate() {
        let t = line.trim();
        // The next option (`--x`, `-q, --quiet`) ends this one's text; `- name` is a value.
        if k > 0 && t.starts_with('-') && !t.starts_with("- ") {
            break;
        }
        if let Some(rest) = t.strip_prefix("- ") {
            let name = rest.split(':').next().unwrap_or(rest).trim();
            values.push(name.to_string());
        }
        if let Some(i) = t.find("[possible values: ") {
            let list = &t[i + "[possible values: ".len()..];
            let list = list.split(']').next().unwrap_or(list);
            values.extend(list.split(',').map(|v| v.trim().to_string()));
            break;
        }
    }
    values
}

#[test]
fn help_texts_are_plain() {
    let mut hits = Vec::new();
    for sub in std::iter::once(None).chain(SUBCOMMANDS.into_iter().map(Some)) {
        let text = help(sub);
        assert!(
            text.contains("Usage:"),
            "{sub:?}: no usage line in:\n{text}"
        );
        for h in forbidden_lines(&text) {
            hits.push(format!("spheresim {} --help: {h}", sub.unwrap_or("")));
        }
    }
    assert!(
        hits.is_empty(),
        "help texts show rustdoc syntax or cite documents:\n  {}",
        hits.join("\n  ")
    );
}

#[test]
fn the_top_level_help_lists_every_subcommand() {
    let text = help(None);
    for sub in SUBCOMMANDS {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().next() == Some(sub)),
            "`{sub}` missing from the top-level help:\n{text}"
        );
    }
}

#[test]
fn run_offers_every_backend_but_view_and_render_not_the_event_solver() {
    let run = possible_values(&help(Some("run")), "--backend");
    assert!(
        run.iter().any(|v| v == "event") && run.iter().any(|v| v == "cpu"),
        "run --backend should offer event and cpu, got {run:?}"
    );
    for sub in ["view", "render"] {
        let values = possible_values(&help(Some(sub)), "--backend");
        assert!(
            values.iter().any(|v| v == "gpu") && values.iter().any(|v| v == "cpu"),
            "{sub} --backend should offer gpu and cpu, got {values:?}"
        );
        assert!(
            !values.iter().any(|v| v == "event"),
            "{sub} --backend must not offer the event solver, got {values:?}"
        );
    }
}

#[test]
fn completions_print_a_script_naming_the_binary() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(
        script.contains("spheresim"),
        "bash completion script does not name spheresim:\n{script}"
    );
    assert!(
        script.contains("complete"),
        "not a bash completion script:\n{script}"
    );
}

#[test]
fn manpage_prints_roff() {
    let page = stdout_of(&["manpage"]);
    assert!(
        page.starts_with(".TH") || page.contains("\n.TH"),
        "manpage output is not roff (no .TH):\n{page}"
    );
    assert!(
        page.contains("spheresim"),
        "manpage does not name spheresim"
    );
    // The man page carries the same help texts.
    let hits = forbidden_lines(&page);
    assert!(hits.is_empty(), "man page:\n  {}", hits.join("\n  "));
}

// The helpers themselves, on fixed text.

#[test]
fn forbidden_lines_finds_each_forbidden_string() {
    let sample = "a [`crate::event`] link\nsee docs §2.1\nplain line\nPHYSICS notes\nDESIGN";
    let hits = forbidden_lines(sample);
    assert_eq!(hits.len(), 5, "{hits:?}");
    assert!(forbidden_lines("Usage: spheresim run [OPTIONS] <SCENE>").is_empty());
}

#[test]
fn possible_values_reads_both_help_layouts() {
    let long = "Options:\n      --backend <BACKEND>\n          Backend.\n\n          Possible \
                values:\n          - auto: The GPU\n          - cpu:  The CPU\n\n      --dt <DT>\n  \
                        - notme\n";
    assert_eq!(possible_values(long, "--backend"), ["auto", "cpu"]);
    let short = "      --up <UP>  Up [default: y] [possible values: x, y, z]\n      --x\n";
    assert_eq!(possible_values(short, "--up"), ["x", "y", "z"]);
}

/// The text clap prints for `flag` in a long `--help`: the flag's line and the lines under it,
/// up to the next flag.
fn flag_text(help: &str, flag: &str) -> String {
    let lines: Vec<&str> = help.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(flag))
        .unwrap_or_else(|| panic!("{flag} not in the help:\n{help}"));
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with("--") || l.trim_start().starts_with("-h"))
        .map_or(lines.len(), |k| start + 1 + k);
    lines[start..end].join("\n")
}

#[test]
fn run_help_names_the_final_csv_columns_the_file_has() {
    let text = flag_text(&help(Some("run")), "--final");
    let header = spheresim::output::CSV_HEADER;
    assert!(
        text.contains(header),
        "--final's help does not name the CSV's columns `{header}`:\n{text}"
    );
}

#[test]
fn run_help_names_the_hertz_laws_default_damping() {
    use clap::ValueEnum;
    let default = spheresim::scene::Damping::default()
        .to_possible_value()
        .expect("the default damping is listed");
    let name = default.get_name().to_lowercase();
    let text = help(Some("run"));
    let hertz = text
        .lines()
        .find(|l| l.trim_start().starts_with("- hertz:"))
        .unwrap_or_else(|| panic!("no `- hertz:` value in run --help:\n{text}"));
    assert!(
        hertz.to_lowercase().contains(&name),
        "the hertz law's help does not name its default damping `{name}`: {hertz}"
    );
}

#[test]
fn gravity_solver_help_names_the_scenes_that_default_to_the_tree() {
    use spheresim::scene::{GravitySolver, builtin};
    let text = flag_text(&help(Some("run")), "--gravity-solver");
    // Each scene at its default size (at most 10 000 spheres; building is O(N)).
    let tree: Vec<&str> = builtin::names()
        .into_iter()
        .filter(|name| {
            let scene = builtin::build(name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            scene.sim.gravity_solver == GravitySolver::Tree
        })
        .collect();
    assert!(!tree.is_empty(), "no built-in scene uses the tree");
    for name in tree {
        assert!(
            text.contains(name),
            "`{name}` sums gravity by the tree by default, but --gravity-solver's help does not \
             say so:\n{text}"
        );
    }
}
