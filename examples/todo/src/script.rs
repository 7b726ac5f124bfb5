//! The page's script, with each client-side seeded bug rendered in or out.
//!
//! `static/todo.js` marks every place a bug changes with marker lines:
//!
//! ```text
//! //> bug NAME
//! ...the buggy lines...
//! //> else
//! ...the correct lines...
//! //> end
//! ```
//!
//! The server keeps one branch and drops the markers, so the script a browser receives reads
//! like ordinary code, with no flag saying which mistakes it carries.

use crate::bugs::{Bug, BugSet};

/// The script as written, markers included.
pub const SOURCE: &str = include_str!("../static/todo.js");

const MARKER: &str = "//>";

/// What a marker line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker<'a> {
    Bug(&'a str),
    Else,
    End,
}

fn marker(line: &str) -> Option<Marker<'_>> {
    let rest = line.trim().strip_prefix(MARKER)?.trim();
    match rest {
        "else" => Some(Marker::Else),
        "end" => Some(Marker::End),
        _ => rest
            .strip_prefix("bug ")
            .map(|name| Marker::Bug(name.trim())),
    }
}

/// Which branch of a block the lines being read belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Branch {
    Outside,
    Buggy { on: bool },
    Correct { on: bool },
}

/// `source` with, for each marked block, the buggy lines when `bugs` has the block's bug and
/// the correct lines otherwise. A name that is no bug counts as off.
pub fn render(source: &str, bugs: BugSet) -> String {
    let mut out = String::with_capacity(source.len());
    let mut branch = Branch::Outside;
    for line in source.split_inclusive('\n') {
        branch = match (marker(line), branch) {
            (Some(Marker::Bug(name)), _) => Branch::Buggy {
                on: name.parse::<Bug>().is_ok_and(|bug| bugs.contains(bug)),
            },
            (Some(Marker::Else), Branch::Buggy { on }) => Branch::Correct { on },
            (Some(Marker::End), _) => Branch::Outside,
            (Some(Marker::Else), other) => other,
            (None, current) => {
                let keep = match current {
                    Branch::Outside => true,
                    Branch::Buggy { on } => on,
                    Branch::Correct { on } => !on,
                };
                if keep {
                    out.push_str(line);
                }
                current
            }
        };
    }
    out
}

/// The script for `bugs`: only the bugs that live in the script change it.
pub fn for_bugs(bugs: BugSet) -> String {
    render(SOURCE, bugs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bug names of the blocks in `source`, in order, checking the blocks are well formed.
    fn blocks(source: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut open: Option<(String, bool)> = None;
        for (number, line) in source.lines().enumerate() {
            let at = number + 1;
            match (marker(line), open.take()) {
                (Some(Marker::Bug(name)), None) => open = Some((name.to_string(), false)),
                (Some(Marker::Else), Some((name, false))) => open = Some((name, true)),
                (Some(Marker::End), Some((name, true))) => names.push(name),
                (Some(found), state) => panic!("line {at}: {found:?} inside {state:?}"),
                (None, state) => {
                    assert!(
                        !line.contains(MARKER),
                        "line {at}: malformed marker {line:?}"
                    );
                    open = state;
                }
            }
        }
        assert_eq!(open, None, "a block is not closed");
        names
    }

    #[test]
    fn the_script_marks_each_script_bug_and_nothing_else() {
        let names = blocks(SOURCE);
        for name in &names {
            let bug: Bug = name.parse().unwrap_or_else(|e| panic!("{e}"));
            assert!(bug.in_script(), "{bug} is not a script bug");
        }
        for bug in Bug::ALL.into_iter().filter(|bug| bug.in_script()) {
            assert!(names.iter().any(|n| n == bug.name()), "{bug} has no block");
        }
    }

    #[test]
    fn rendering_keeps_one_branch_and_drops_the_markers() {
        let source = "a\n  //> bug title-xss\n  x.innerHTML = t;\n  //> else\n  x.textContent = t;\n  //> end\nb\n";
        assert_eq!(
            render(source, BugSet::none()),
            "a\n  x.textContent = t;\nb\n"
        );
        assert_eq!(
            render(source, Bug::TitleXss.into()),
            "a\n  x.innerHTML = t;\nb\n"
        );
        assert_eq!(
            render(source, Bug::CounterCountsAll.into()),
            render(source, BugSet::none())
        );
        let unknown = "//> bug no-such-bug\nbad\n//> else\ngood\n//> end\n";
        assert_eq!(render(unknown, BugSet::all()), "good\n");
    }

    #[test]
    fn no_rendered_script_carries_a_marker_or_a_bug_name() {
        for bugs in std::iter::once(BugSet::all())
            .chain(std::iter::once(BugSet::none()))
            .chain(Bug::ALL.map(BugSet::from))
        {
            let script = for_bugs(bugs);
            assert!(!script.contains(MARKER), "{bugs}");
            for bug in Bug::ALL {
                assert!(!script.contains(bug.name()), "{bugs} names {bug}");
            }
        }
    }

    #[test]
    fn each_script_bug_changes_the_script_and_the_server_bug_does_not() {
        let correct = for_bugs(BugSet::none());
        for bug in Bug::ALL {
            let script = for_bugs(bug.into());
            assert_eq!(script != correct, bug.in_script(), "{bug}");
        }
    }
}
