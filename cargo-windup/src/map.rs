//! `cargo windup map`: the site map as DOT and as an HTML page (windup-core's `map_view`).

use std::path::PathBuf;

use clap::Args;
use windup_core::engine::ledger::Ledger;
use windup_core::engine::sitemap::MapFile;
use windup_core::run::sitemap::{self, Crossings};

use crate::{CliError, SuiteArgs, project_settings, usage};

#[derive(Debug, Args)]
pub(crate) struct MapArgs {
    /// Where to write the DOT [default: .windup/sitemap.dot].
    #[arg(long, value_name = "PATH")]
    dot: Option<PathBuf>,
    /// Where to write the HTML page [default: .windup/sitemap.html].
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,
}

pub(crate) fn map(args: &MapArgs) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    let file = MapFile::of(&settings.root);
    let map = file.read().map_err(|e| usage(e.to_string()))?;
    if map.pages.is_empty() {
        println!(
            "The site map is empty: every run adds to it, so run the scenarios (cargo windup run) \
             or an audit first."
        );
        return Ok(());
    }
    let records = Ledger::new(&settings.root)
        .read()
        .map(|read| read.records)
        .unwrap_or_default();
    let crossings = Crossings::from_runs(&map, &records);
    let dir = settings.root.join(".windup");
    let dot = args.dot.clone().unwrap_or_else(|| dir.join("sitemap.dot"));
    let html = args
        .html
        .clone()
        .unwrap_or_else(|| dir.join("sitemap.html"));
    let title = format!(
        "Site map of {}",
        settings
            .root
            .file_name()
            .map_or_else(|| "this project".into(), |n| n.to_string_lossy())
    );
    for (path, text) in [
        (&dot, sitemap::dot(&map, &crossings)),
        (&html, sitemap::html(&map, &crossings, &title)),
    ] {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| usage(format!("cannot make {}: {e}", parent.display())))?;
        }
        std::fs::write(path, text)
            .map_err(|e| usage(format!("cannot write {}: {e}", path.display())))?;
    }
    println!(
        "{} pages, {} ways between them: wrote {} and {}",
        map.pages.len(),
        map.transitions.len(),
        dot.display(),
        html.display()
    );
    Ok(())
}
