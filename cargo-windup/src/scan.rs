//! `cargo windup scan`: the routes the source declares, merged into the site map
//! (windup-core's `scan`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use windup_core::config::Settings;
use windup_core::engine::scan::{self, ScanOptions, Scanned};
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
    /// Merge what could be read into the site map even when a source file does not parse
    /// (exit 0); without it such a scan leaves the map as it was and exits 7.
    #[arg(long)]
    keep_going: bool,
    /// How to print the scan: text for a person, or one JSON object (docs/sitemap.md#json).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

pub(crate) async fn scan(args: &ScanArgs) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    let options = ScanOptions {
        app: args.app.clone(),
        keep_going: args.keep_going,
    };
    let scanned = scan::scan_project(&settings, &options, !args.no_model)
        .await
        .map_err(|e| usage(e.to_string()))?;
    match args.format {
        Format::Text => print_text(&scanned),
        Format::Json => println!("{}", json(&scanned)),
    }
    let broken = &scanned.scan.parse_errors;
    if broken.is_empty() || args.keep_going {
        return Ok(());
    }
    Err(CliError::Unparsed(format!(
        "{} source file(s) do not parse: {}; the site map was not updated. Fix the file, or pass \
         --keep-going to merge what could be read",
        broken.len(),
        broken
            .iter()
            .map(|e| format!("{}:{}:{}", e.file, e.line, e.column))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The scan as one JSON object: what it read, what it could not, and what the map took.
fn json(scanned: &Scanned) -> String {
    let found = &scanned.scan;
    let value = serde_json::json!({
        "app": found.app.display().to_string(),
        "apps": found.apps.iter().map(|a| a.display().to_string()).collect::<Vec<_>>(),
        "conventions": found.conventions,
        "files": found.files,
        "routes": found.routes,
        "unresolved": found.unresolved,
        "parse_errors": found.parse_errors,
        "site_map": {
            "merged": scanned.merged,
            "new": scanned.new,
            "renewed": scanned.renewed,
            "stale": scanned.stale,
        },
        "model_assist": {
            "routes": scanned.assisted.routes.iter().map(|r| &r.pattern).collect::<Vec<_>>(),
            "calls": scanned.assisted.calls.len(),
            "remembered": scanned.assisted.remembered,
            "notes": scanned.assisted.notes,
        },
    });
    serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

fn print_text(scanned: &Scanned) {
    let found = &scanned.scan;
    let conventions: Vec<String> = found
        .conventions
        .iter()
        .map(|c| format!("{}: {}", c.framework, c.why))
        .collect();
    let app = if found.app.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        found.app.display().to_string()
    };
    println!(
        "Scanned {app} ({}): {} files, {} routes",
        if conventions.is_empty() {
            "no routing conventions apply".to_owned()
        } else {
            conventions.join("; ")
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
    print_found(found);
    print_merged(scanned);
}

/// Each route, then what could not be read: unresolved routes, files that do not parse.
fn print_found(found: &scan::Scan) {
    for route in &found.routes {
        let partial = if route.provenance.partial {
            "  (partial: its file does not parse)"
        } else {
            ""
        };
        match route.lines {
            Some([first, last]) => {
                println!(
                    "  {}  {}:{first}-{last}{partial}",
                    route.pattern, route.file
                )
            }
            None => println!("  {}  {}{partial}", route.pattern, route.file),
        }
    }
    for unresolved in &found.unresolved {
        println!(
            "  unresolved: {}:{}: {}",
            unresolved.file, unresolved.line, unresolved.why
        );
    }
    for error in &found.parse_errors {
        eprintln!(
            "error: {}:{}:{}: does not parse: {}",
            error.file, error.line, error.column, error.what
        );
    }
}

/// What the model assist read, and what the site map took.
fn print_merged(scanned: &Scanned) {
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
    if !scanned.merged {
        return;
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
}

/// The routes of the source as it is now, for impact: a fresh scan (conventions only, no
/// model) of every app of the project; when there is nothing to scan, the last scans' routes
/// from the site map.
pub(crate) fn routes_now(settings: &Settings, notes: &mut Vec<String>) -> Vec<Route> {
    let apps = scan::find_apps(&settings.root);
    if apps.is_empty() {
        return routes_in_map(settings, notes);
    }
    let mut routes = Vec::new();
    for app in apps {
        let options = ScanOptions {
            app: Some(app.dir.clone()),
            keep_going: true,
        };
        match scan::scan(&settings.root, &options) {
            Ok(found) => {
                for error in &found.parse_errors {
                    notes.push(format!(
                        "{}:{}:{} does not parse ({}): its routes may be missing",
                        error.file, error.line, error.column, error.what
                    ));
                }
                routes.extend(found.routes);
            }
            Err(err) => {
                notes.push(format!(
                    "{err}; using the last scans' routes from the site map"
                ));
                return routes_in_map(settings, notes);
            }
        }
    }
    routes
}

fn routes_in_map(settings: &Settings, notes: &mut Vec<String>) -> Vec<Route> {
    match windup_core::engine::sitemap::MapFile::of(&settings.root).read() {
        Ok(map) => windup_core::engine::impact::routes_in_map(&map),
        Err(e) => {
            notes.push(e.to_string());
            Vec::new()
        }
    }
}
