//! `cargo windup scan`: the routes the source declares, merged into the site map
//! (windup-core's `scan`).

use std::path::PathBuf;

use clap::Args;
use windup_core::config::Settings;
use windup_core::engine::scan::{self, ScanError, ScanOptions};
use windup_core::model::sitemap::Route;

use crate::{CliError, SuiteArgs, project_settings, usage};

#[derive(Debug, Args)]
pub(crate) struct ScanArgs {
    /// The app to scan, when the project holds several (its directory, relative to here).
    #[arg(long, value_name = "PATH")]
    app: Option<PathBuf>,
    /// Ask no model about files the conventions cannot resolve.
    #[arg(long)]
    no_model: bool,
}

pub(crate) async fn scan(args: &ScanArgs) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    let options = ScanOptions {
        app: args.app.clone(),
    };
    let scanned = scan::scan_project(&settings, &options, !args.no_model)
        .await
        .map_err(|e| usage(e.to_string()))?;
    let found = &scanned.scan;
    let frameworks: Vec<String> = found.frameworks.iter().map(ToString::to_string).collect();
    let app = if found.app.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        found.app.display().to_string()
    };
    println!(
        "Scanned {app} ({}): {} files, {} routes",
        if frameworks.is_empty() {
            "no routing found".to_owned()
        } else {
            frameworks.join(", ")
        },
        found.files,
        found.routes.len()
    );
    if found.apps.len() > 1 {
        let apps: Vec<String> = found.apps.iter().map(|a| a.display().to_string()).collect();
        println!(
            "  ({} apps in this project: {}; each is scanned on its own)",
            apps.len(),
            apps.join(", ")
        );
    }
    for route in &found.routes {
        match route.lines {
            Some([first, last]) => println!("  {}  {}:{first}-{last}", route.pattern, route.file),
            None => println!("  {}  {}", route.pattern, route.file),
        }
    }
    for unresolved in &found.unresolved {
        println!("  unresolved: {}: {}", unresolved.file, unresolved.why);
    }
    let assisted = &scanned.assisted;
    if !assisted.calls.is_empty() || assisted.remembered > 0 {
        let cost: f64 = assisted.calls.iter().filter_map(|(_, c)| *c).sum();
        println!(
            "Model assist: {} route(s) read; {} call(s), ${cost:.4}; {} file(s) remembered",
            assisted.routes.len(),
            assisted.calls.len(),
            assisted.remembered
        );
    }
    for note in &assisted.notes {
        eprintln!("windup: {note}");
    }
    println!(
        "Site map: {} new, {} renewed, {} gone stale{}",
        scanned.new.len(),
        scanned.renewed,
        scanned.stale.len(),
        if scanned.stale.is_empty() {
            String::new()
        } else {
            format!(" ({})", scanned.stale.join(", "))
        }
    );
    Ok(())
}

/// The routes of the source as it is now, for impact: a fresh scan (conventions only, no
/// model); when there is nothing to scan, the last scan's routes from the site map.
pub(crate) fn routes_now(settings: &Settings, notes: &mut Vec<String>) -> Vec<Route> {
    match scan::scan(&settings.root, &ScanOptions::default()) {
        Ok(found) => found.routes,
        Err(err) => {
            if !matches!(err, ScanError::NoApp { .. }) {
                notes.push(format!(
                    "{err}; using the last scan's routes from the site map"
                ));
            }
            match windup_core::engine::sitemap::MapFile::of(&settings.root).read() {
                Ok(map) => windup_core::engine::impact::routes_in_map(&map),
                Err(e) => {
                    notes.push(e.to_string());
                    Vec::new()
                }
            }
        }
    }
}
