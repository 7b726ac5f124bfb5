//! `cargo windup new "instruction"`: a scenario drafted for review (windup-core's `authoring`).

use clap::Args;
use windup_core::engine::authoring::{self, DraftedBy, NewScenario};

use crate::{CliError, SuiteArgs, project_settings, usage};

#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// What the scenario should do, in your words. A password or token typed here is moved to
    /// .env.local and referred to as account.KEY; it never reaches the file or the output.
    instruction: String,
    /// The file's name under scenarios/, without .yaml [default: from the task].
    #[arg(long)]
    name: Option<String>,
    /// Write a scaffold from the site map, even when a model is configured.
    #[arg(long)]
    no_model: bool,
}

pub(crate) async fn new(args: NewArgs) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    if let Some(name) = &args.name
        && (name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.'))
    {
        return Err(usage(format!(
            "--name {name:?}: a file name under scenarios/, without a directory or .yaml"
        )));
    }
    let request = NewScenario {
        instruction: args.instruction,
        name: args.name,
        no_model: args.no_model,
    };
    let authored = authoring::author(&settings, &request)
        .await
        .map_err(|e| usage(e.to_string()))?;
    for note in &authored.notes {
        eprintln!("windup: {note}; wrote a scaffold instead");
    }
    let path = authored
        .path
        .strip_prefix(&settings.root)
        .unwrap_or(&authored.path);
    let by = match authored.by {
        DraftedBy::Model => "drafted by the model from the site map",
        DraftedBy::Scaffold => "a scaffold from the site map, to finish",
    };
    println!("Wrote {} ({by}).", path.display());
    if !authored.stored.is_empty() {
        let account = authored.account.as_deref().unwrap_or("default");
        println!(
            "Moved what the instruction typed out of it: {} in .env.local{}, [accounts.{account}] \
             in windup.toml{}; the scenario says account.KEY.",
            authored.stored.join(", "),
            if authored.ignored {
                " (added to .gitignore)"
            } else {
                ""
            },
            if authored.mapped {
                " maps to it"
            } else {
                " already mapped it"
            },
        );
    }
    let cost: f64 = authored.calls.iter().filter_map(|(_, cost)| *cost).sum();
    if !authored.calls.is_empty() {
        println!("{} model call(s), ${cost:.4}.", authored.calls.len());
    }
    let id = authored
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!("Review it, then run it: cargo windup run {id}");
    Ok(())
}
