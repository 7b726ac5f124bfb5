//! `cargo windup impact [REV | PATHS…]` and `cargo windup run --affected REV`: the scenarios a
//! change to the source affects (windup-core's `impact`).

use std::path::Path;

use clap::Args;
use windup_core::config::Settings;
use windup_core::engine::impact::{self, Change, Impact};

use crate::{CliError, SuiteArgs, project_settings, usage};

#[derive(Debug, Args)]
pub(crate) struct ImpactArgs {
    /// A git revision to compare the work tree with (default: HEAD, the uncommitted changes),
    /// or the changed files themselves.
    #[arg(value_name = "REV | PATHS")]
    changed: Vec<String>,
}

pub(crate) fn impact(args: &ImpactArgs) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    let changes = match args.changed.as_slice() {
        [] => since(&settings.root, "HEAD")?,
        [rev] if !settings.root.join(rev).exists() => since(&settings.root, rev)?,
        paths => impact::whole_files(paths),
    };
    let found = affected(&settings, &changes);
    print(&found, changes.len());
    Ok(())
}

/// The changes since `rev`, or why they cannot be read.
pub(crate) fn since(root: &Path, rev: &str) -> Result<Vec<Change>, CliError> {
    if !impact::is_revision(root, rev) {
        return Err(usage(format!(
            "{rev:?} is neither a git revision of {} nor a file there",
            root.display()
        )));
    }
    impact::changes_since(root, rev).map_err(|e| usage(e.to_string()))
}

/// What the changes affect, by the routes of a scan of the source as it is now.
pub(crate) fn affected(settings: &Settings, changes: &[Change]) -> Impact {
    let mut notes = Vec::new();
    let routes = crate::scan::routes_now(settings, &mut notes);
    let found = impact::for_project(settings, changes, &routes, &mut notes);
    for note in notes {
        eprintln!("windup: {note}");
    }
    found
}

fn print(found: &Impact, changed: usize) {
    if changed == 0 {
        println!("No file changed.");
        return;
    }
    for (page, files) in &found.pages {
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        println!("page {page} changed ({})", files.join(", "));
    }
    for (scenario, pages) in &found.scenarios {
        let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
        println!("{scenario}  (crosses {})", pages.join(", "));
    }
    if !found.unmapped.is_empty() {
        println!(
            "{} changed file(s) render no page the scan knows, and may affect any scenario: {}",
            found.unmapped.len(),
            found.unmapped.join(", ")
        );
    }
    println!(
        "{} scenario(s) affected by {} changed page(s) in {changed} changed file(s)",
        found.scenarios.len(),
        found.pages.len()
    );
}
