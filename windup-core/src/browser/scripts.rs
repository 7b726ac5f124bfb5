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

/// The helpers every script starts with, kept in the page once: over BiDi a session installs them
/// in each document (a preload script, and on first use in a document that began before it), and
/// a script then sends only its own part, which takes the helpers from the page. A call that
/// sends and compiles 25 KB of helpers costs about 12 ms in Chromium over BiDi; its own part,
/// a few.
pub(crate) struct Library {
    /// The page's property that holds the helpers (named after their text, so that another
    /// version of Windup in the same page never takes these).
    pub key: String,
    /// The statements that install them in a page.
    pub install: String,
    /// Each prefix a script may start with (longest first), and the names it declares.
    parts: Vec<(String, Vec<&'static str>)>,
}

/// The one library.
pub(crate) static LIBRARY: LazyLock<Library> = LazyLock::new(|| {
    const STRUCTURE: &str = include_str!("js/structure.js");
    let sources = [COMMON, SELECTORS, STRUCTURE];
    let mut parts = Vec::new();
    for end in (1..=sources.len()).rev() {
        let text = compact(&sources[..end].join("\n"));
        let names: Vec<&str> = sources[..end].iter().flat_map(|s| declared(s)).collect();
        parts.push((text, names));
    }
    let (full, names) = &parts[0];
    let digest: String = sha2::Digest::finalize(sha2::Digest::chain_update(
        <sha2::Sha256 as sha2::Digest>::new(),
        full.as_bytes(),
    ))
    .iter()
    .take(6)
    .map(|b| format!("{b:02x}"))
    .collect();
    let key = format!("__windup_{digest}");
    let install = format!(
        "if (!Object.prototype.hasOwnProperty.call(window, '{key}')) \
         Object.defineProperty(window, '{key}', {{ configurable: true, value: function () {{\n\
         {full}return {{ {} }};\n}} }});",
        names.join(", ")
    );
    Library {
        key,
        install,
        parts,
    }
});

impl Library {
    /// `script` with the helpers it starts with taken from the page instead, as a function body
    /// that reads `arguments` as the script does; `async` when its last argument is the callback.
    /// Where the page has no helpers, the body answers [`Library::missing`]. None when the
    /// script does not start with the helpers.
    pub(crate) fn slim(&self, script: &str, callback: bool) -> Option<String> {
        let (prefix, names) = self.parts.iter().find(|(p, _)| script.starts_with(p))?;
        let own = &script[prefix.len()..];
        let missing = self.missing();
        let answer = if callback {
            format!("arguments[arguments.length - 1]('{missing}'); return;")
        } else {
            format!("return '{missing}';")
        };
        Some(format!(
            "const windupHelpers = window['{key}'];\nif (!windupHelpers) {{ {answer} }}\n\
             const {{ {} }} = windupHelpers();\n{own}",
            names.join(", "),
            key = self.key,
        ))
    }

    /// What a slim script answers in a page without the helpers.
    pub(crate) fn missing(&self) -> String {
        format!("{}:missing", self.key)
    }
}

/// The names a script part declares at its top level (`const NAME`, `function NAME`).
fn declared(source: &str) -> Vec<&str> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("const ")
                .or_else(|| line.strip_prefix("function "))?;
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(rest.len());
            Some(&rest[..end]).filter(|name| !name.is_empty())
        })
        .collect()
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
    fn a_script_sends_only_its_own_part_where_the_page_keeps_the_helpers() {
        let library = &*LIBRARY;
        let gate = with_helpers("return W.describe(arguments[0]);");
        let slim = library
            .slim(&gate, false)
            .expect("the gate starts with the helpers");
        assert!(slim.len() < 500, "{slim}");
        assert!(slim.contains("const { W, CONTROLS,"), "{slim}");
        assert!(
            slim.ends_with("return W.describe(arguments[0]);\n"),
            "{slim}"
        );
        // A script with the selector helpers takes those too; one without, not.
        let with_more = with_selectors("return selectors(arguments[0]);");
        assert!(
            library
                .slim(&with_more, false)
                .unwrap()
                .contains(", quote, ")
        );
        assert!(!slim.contains("quote"));
        assert!(library.slim("return 1;", false).is_none());
        // The install declares every name any script takes.
        for name in ["W", "role", "accessibleName", "quote", "box", "pageAfter"] {
            assert!(
                library.install.contains(&format!(" {name},"))
                    || library.install.contains(&format!(" {name} }}")),
                "{name}"
            );
        }
        assert_eq!(
            declared("const A = 1;\n  const inner = 2;\nfunction f(x) {}\n"),
            ["A", "f"]
        );
    }

    #[test]
    fn compact_keeps_code_and_drops_comments() {
        assert_eq!(
            compact("// a comment\n  const a = 1; // kept\n\n    if (a) {\n  }\n"),
            "const a = 1; // kept\nif (a) {\n}\n"
        );
    }
}
