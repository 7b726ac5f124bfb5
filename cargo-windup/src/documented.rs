//! docs/cli.md against the command line itself: every command and flag the page lists is one
//! clap defines, and every one clap defines (and does not hide) is on the page. A release then
//! never documents a flag it lacks, or ships one it does not document.

use std::collections::{BTreeMap, BTreeSet};

use clap::CommandFactory;

/// What a page or the command line holds: each command's path (`audit show`) with its flags
/// (`--seed`, `-j`).
type Flags = BTreeMap<String, BTreeSet<String>>;

/// The commands and flags the page lists: the first column of its command table, and the flag
/// tables of each `## \`cargo windup NAME\`` section.
fn on_the_page(page: &str, known: &Flags) -> Flags {
    let mut listed = Flags::new();
    let mut section: Option<String> = None;
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("## `cargo windup ") {
            section = title.strip_suffix('`').map(str::to_owned);
            continue;
        }
        if line.starts_with("## ") {
            section = None;
        }
        let Some(cell) = first_cell(line) else {
            continue;
        };
        if let Some(usage) = cell.strip_prefix("cargo windup ") {
            let mut parent: Option<String> = None;
            for alternative in alternatives(usage) {
                let path = command_path(&alternative, parent.as_deref(), known);
                parent.get_or_insert_with(|| path.split(' ').next().unwrap_or("").to_owned());
                listed
                    .entry(path)
                    .or_default()
                    .extend(flags_in(&alternative));
            }
        } else if let Some(command) = &section
            && cell.starts_with('-')
        {
            listed
                .entry(command.clone())
                .or_default()
                .extend(flags_in(cell));
        }
    }
    listed
}

/// The text of a table row's first cell, between backticks: `| \`--seed N\` | 1 | …`.
fn first_cell(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("| `")?;
    let end = rest.find("` |")?;
    Some(&rest[..end])
}

/// A usage split at its alternatives: `cache ls \| show SCENARIO` is two, while a `\|` within
/// brackets (`[--format text\|json]`) is one flag's values.
fn alternatives(usage: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0usize;
    let mut rest = usage;
    while let Some(c) = rest.chars().next() {
        if depth == 0 && rest.starts_with("\\|") {
            parts.push(String::new());
            rest = &rest[2..];
            continue;
        }
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    parts.into_iter().map(|p| p.trim().to_owned()).collect()
}

/// The command a usage names: its leading words while each is a command of the one before
/// (`audit show ID` is `audit show`; `audit URL` is `audit`), under `parent` when the usage is an
/// alternative of an earlier one (`show SCENARIO` after `cache ls`).
fn command_path(usage: &str, parent: Option<&str>, known: &Flags) -> String {
    let mut path: Vec<String> = parent.map(str::to_owned).into_iter().collect();
    for word in usage.split_whitespace() {
        let mut longer = path.clone();
        longer.push(word.to_owned());
        if known.contains_key(&longer.join(" ")) {
            path = longer;
        } else {
            break;
        }
    }
    if path.is_empty() {
        // A command the line does not know: named as written, for the comparison to report.
        return usage.split_whitespace().next().unwrap_or("").to_owned();
    }
    path.join(" ")
}

/// The flags a usage or a flag cell names: `--word-word` and `-j`.
fn flags_in(text: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices('-') {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-') {
            continue;
        }
        let tail = &text[at..];
        let name_len = tail
            .bytes()
            .skip(1)
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
            .count();
        let flag = &tail[..1 + name_len];
        let long = flag.starts_with("--") && flag.len() > 2;
        let short = !flag.starts_with("--") && flag.len() == 2;
        if long || short {
            flags.insert(flag.to_owned());
        }
    }
    flags
}

/// Every command of the line (by path, the top level left out) with the flags it takes, hidden
/// ones and `--help` left out. An argument's long and short forms are both listed; either on the
/// page documents it.
fn on_the_line() -> (Flags, BTreeMap<String, Vec<BTreeSet<String>>>) {
    let mut flags = Flags::new();
    let mut arguments = BTreeMap::new();
    let root = crate::Cli::command();
    let mut todo: Vec<(String, clap::Command)> = root
        .get_subcommands()
        .map(|c| (c.get_name().to_owned(), c.clone()))
        .collect();
    while let Some((path, command)) = todo.pop() {
        if command.is_hide_set() || command.get_name() == "help" {
            continue;
        }
        let mut forms = Vec::new();
        for arg in command.get_arguments() {
            if arg.is_hide_set() || arg.is_positional() || arg.get_id() == "help" {
                continue;
            }
            let mut names = BTreeSet::new();
            names.extend(arg.get_long().map(|l| format!("--{l}")));
            names.extend(arg.get_short().map(|s| format!("-{s}")));
            forms.push(names);
        }
        flags.insert(path.clone(), forms.iter().flatten().cloned().collect());
        arguments.insert(path.clone(), forms);
        todo.extend(
            command
                .get_subcommands()
                .map(|c| (format!("{path} {}", c.get_name()), c.clone())),
        );
    }
    (flags, arguments)
}

/// What differs between the page and the line, a line each; empty when they agree.
fn differences(page: &str) -> Vec<String> {
    let (line, arguments) = on_the_line();
    let listed = on_the_page(page, &line);
    let mut out = Vec::new();
    for (path, flags) in &listed {
        let Some(defined) = line.get(path) else {
            out.push(format!(
                "docs/cli.md lists `cargo windup {path}`, which the CLI lacks"
            ));
            continue;
        };
        for flag in flags.difference(defined) {
            out.push(format!(
                "docs/cli.md lists `{flag}` for `cargo windup {path}`, which it does not take"
            ));
        }
    }
    for (path, forms) in &arguments {
        let documented = |p: &str| {
            listed
                .keys()
                .any(|l| l == p || l.starts_with(&format!("{p} ")))
        };
        if !documented(path) {
            out.push(format!("`cargo windup {path}` is not in docs/cli.md"));
            continue;
        }
        let on_page = listed.get(path).cloned().unwrap_or_default();
        for names in forms {
            if names.is_disjoint(&on_page) {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                out.push(format!(
                    "`cargo windup {path}` takes `{}`, which docs/cli.md does not list",
                    names.join("`/`")
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md");
        std::fs::read_to_string(path).expect("docs/cli.md is readable")
    }

    #[test]
    fn every_command_and_flag_on_the_page_is_the_command_lines_and_back() {
        let differences = differences(&page());
        assert!(differences.is_empty(), "{}", differences.join("\n"));
    }

    #[test]
    fn a_flag_left_off_the_page_or_one_the_line_lacks_is_named() {
        let page = page();
        let without = page.replace(" [--no-coverage]", "");
        assert!(
            without != page,
            "the audit row lists --no-coverage, as this test expects"
        );
        let cut = without.replace("| `--no-coverage` |", "| dropped |");
        assert_eq!(
            differences(&cut),
            ["`cargo windup audit` takes `--no-coverage`, which docs/cli.md does not list"]
        );
        let invented = page.replace("[--no-tests]", "[--no-tests] [--loud]");
        assert_eq!(
            differences(&invented),
            ["docs/cli.md lists `--loud` for `cargo windup audit`, which it does not take"]
        );
        let gone = format!("{page}\n| `cargo windup frobnicate` | nothing |\n");
        assert_eq!(
            differences(&gone),
            ["docs/cli.md lists `cargo windup frobnicate`, which the CLI lacks"]
        );
    }

    #[test]
    fn usages_split_at_their_alternatives_and_name_their_flags() {
        assert_eq!(
            alternatives("cache ls \\| show SCENARIO \\| clear [SCENARIO]"),
            ["cache ls", "show SCENARIO", "clear [SCENARIO]"]
        );
        assert_eq!(
            alternatives("scan [--format text\\|json] [--app PATH]"),
            ["scan [--format text\\|json] [--app PATH]"]
        );
        assert_eq!(
            flags_in("run [FILTER] [-j N] [--base-url URL] [--report KIND=PATH,…] walk-length"),
            ["--base-url", "--report", "-j"]
                .into_iter()
                .map(str::to_owned)
                .collect::<BTreeSet<_>>()
        );
    }
}
