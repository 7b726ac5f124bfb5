//! Windup's page scripts: each is the shared helpers (`js/common.js`, and for the scripts that
//! write selectors `js/selectors.js`) followed by its own part. Every WebDriver script call sends
//! and compiles the whole text, so each is made compact once — comment lines and indentation
//! dropped — and kept.

use std::sync::LazyLock;

const COMMON: &str = include_str!("js/common.js");
const SELECTORS: &str = include_str!("js/selectors.js");

/// The shared helpers and `own`, compact.
pub(crate) fn with_helpers(own: &str) -> String {
    compact(&format!("{COMMON}\n{own}"))
}

/// The shared helpers, the selector helpers and `own`, compact.
pub(crate) fn with_selectors(own: &str) -> String {
    compact(&format!("{COMMON}\n{SELECTORS}\n{own}"))
}

/// The script that tells what the page just opened is, given a browser's expression for its own
/// error page (the network error code, else `null`). Arguments: the path of the page last
/// recorded (see `pageAfter`). Answers { error, href, status } (`status`: Navigation Timing's
/// `responseStatus`) and, for a page that opened, what `pageAfter` tells of it, so that
/// recording the first page needs no script of its own.
pub(crate) fn opened(error_page: &str) -> String {
    with_selectors(&format!(
        "{}\nconst [known] = arguments;\nconst error = {error_page};\n\
         if (error) return {{ error, href: location.href, status: null }};\n\
         const nav = performance.getEntriesByType('navigation')[0];\n\
         return {{ error: null, status: nav && nav.responseStatus ? nav.responseStatus : null, \
         ...pageAfter(known) }};",
        include_str!("js/structure.js")
    ))
}

/// A script made once, the first time it is used.
pub(crate) type Script = LazyLock<String>;

/// Drops whole-line comments, blank lines and indentation. Safe for Windup's scripts, which keep
/// no multi-line string literals (a test checks it).
pub(crate) fn compact(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[(&str, &str)] = &[
        ("common.js", COMMON),
        ("selectors.js", SELECTORS),
        ("gate.js", include_str!("js/gate.js")),
        ("verify.js", include_str!("js/verify.js")),
        ("resolve.js", include_str!("js/resolve.js")),
        ("snapshot.js", include_str!("js/snapshot.js")),
        ("structure.js", include_str!("js/structure.js")),
        ("digest.js", include_str!("js/digest.js")),
        ("observer.js", include_str!("js/observer.js")),
        ("observe.js", include_str!("js/observe.js")),
        ("shown.js", include_str!("js/shown.js")),
        ("after_click.js", include_str!("js/after_click.js")),
    ];

    #[test]
    fn no_script_has_a_string_that_spans_lines() {
        for (name, source) in ALL {
            for (number, line) in source.lines().enumerate() {
                let code = line.split("//").next().unwrap_or(line);
                let ticks = code.matches('`').count();
                assert!(
                    ticks % 2 == 0,
                    "{name}:{}: a template literal spans lines",
                    number + 1
                );
            }
        }
    }

    #[test]
    fn compact_keeps_code_and_drops_comments() {
        assert_eq!(
            compact("// a comment\n  const a = 1; // kept\n\n    if (a) {\n  }\n"),
            "const a = 1; // kept\nif (a) {\n}\n"
        );
    }
}
