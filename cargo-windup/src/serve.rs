//! `cargo windup serve`: the audit's HTTP API and dashboard (windup-core's `server`).

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;
use windup_core::front::server::{ServeError, ServeOptions, Server};
use windup_core::model::secret::SecretValue;

use crate::{CliError, SuiteArgs, project_settings, usage};

/// The variable the token is read from.
const TOKEN_ENV: &str = "WINDUP_SERVE_TOKEN";

/// What `cargo windup serve --help` says before the arguments.
pub(crate) const LONG_ABOUT: &str = "Serve the audit's HTTP API and its live dashboard.

Open the printed address for the dashboard: start an audit, watch it explore, attack and
prove findings, download their regression tests. Every audit is kept in .windup/audits.sqlite,
so a refresh, a second tab or a restart of the server shows the same thing.

It binds to 127.0.0.1:7357 by default. Binding anywhere else needs a token in
WINDUP_SERVE_TOKEN, sent by every client as `Authorization: Bearer TOKEN`. Only the origins
allowed may be audited: base_url of windup.toml and each --allow-target. See docs/server.md.

Ctrl-C stops every audit (their browsers closed) and the server, giving open connections
--grace to finish; a second Ctrl-C quits at once.";

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Where to listen: an address and port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7357")]
    bind: SocketAddr,
    /// An origin that may be audited besides base_url's (http://127.0.0.1:4000); repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_target: Vec<String>,
    /// Audits run at once; the others wait, queued.
    #[arg(long, value_name = "N", default_value_t = 1)]
    max_audits: usize,
    /// Audits that may wait for a turn; past them a new one is refused (429).
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_queued: usize,
    /// Once Ctrl-C is pressed, how long open connections get to finish their answer (2s, 500ms).
    #[arg(long, value_name = "TIME", default_value = "2s", value_parser = humantime::parse_duration)]
    grace: Duration,
    /// Show the audits' browser windows.
    #[arg(long)]
    headed: bool,
}

pub(crate) async fn serve(args: ServeArgs) -> Result<(), CliError> {
    let suite = SuiteArgs {
        headed: args.headed,
        ..SuiteArgs::default()
    };
    let settings = project_settings(&suite)?;
    let mut options = ServeOptions::new(settings);
    options.bind = args.bind;
    options.max_running = args.max_audits.max(1);
    options.max_queued = args.max_queued;
    options.grace = args.grace;
    // For work on the dashboard itself: its files read from a directory, no rebuild needed.
    options.assets_dir = std::env::var_os("WINDUP_DASHBOARD_DIR").map(std::path::PathBuf::from);
    options.token = std::env::var(TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty())
        .map(|t| SecretValue::new(t.trim()));
    for origin in &args.allow_target {
        if !options.targets.allow(origin) {
            return Err(usage(format!(
                "--allow-target {origin:?} is not an http(s) origin; write one like \
                 http://127.0.0.1:4000"
            )));
        }
    }
    // Ctrl-C is caught from before the address is printed: a press that follows the line at
    // once stops the server as any other does, instead of killing it outright.
    let mut interrupts =
        Interrupts::listen().map_err(|e| usage(format!("cannot catch Ctrl-C: {e}")))?;
    let server = Server::bind(options.clone()).await.map_err(from_serve)?;
    let address = server.local_addr();
    println!("windup: the dashboard is at http://{address}/");
    if options.targets.origins().is_empty() {
        println!(
            "windup: no target may be audited yet: set base_url in windup.toml or pass \
             --allow-target"
        );
    } else {
        println!(
            "windup: it may audit {}",
            options.targets.origins().join(", ")
        );
    }
    let stop = async move {
        interrupts.next().await;
        eprintln!("windup: stopping the audits and the server (Ctrl-C again to quit at once)");
        // A second Ctrl-C does not wait for anything. The drivers' watchdogs end the browsers.
        tokio::spawn(async move {
            interrupts.next().await;
            eprintln!("windup: quitting now");
            std::process::exit(130);
        });
    };
    server.serve(stop).await.map_err(from_serve)?;
    // Leave a moment for the last log lines of stopped audits.
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(())
}

/// Ctrl-C, as one listener for the whole run: a second press that comes before anyone waits for
/// it is still seen.
struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    fn listen() -> std::io::Result<Interrupts> {
        Ok(Interrupts {
            #[cfg(unix)]
            signal: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?,
        })
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        self.signal.recv().await;
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn from_serve(err: ServeError) -> CliError {
    CliError::Usage(err.to_string())
}
