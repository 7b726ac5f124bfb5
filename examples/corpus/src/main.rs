//! `windup-corpus`: serve an app of the audit's corpus, with its bugs on or off.

use std::net::Ipv4Addr;
use std::process::ExitCode;

use clap::Parser;

/// Serve an app of Windup's audit corpus on 127.0.0.1.
#[derive(Debug, Parser)]
#[command(name = "windup-corpus", version)]
struct Args {
    /// The app (a folder of examples/corpus); `list` lists them with their bugs.
    app: String,
    /// Bugs to switch on: none, all, or a comma list of the app's bug ids.
    #[arg(long, default_value = "none")]
    bugs: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8090)]
    port: u16,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if args.app == "list" {
        return match windup_corpus::apps() {
            Ok(apps) => {
                for app in apps {
                    println!("{} ({})", app.name, app.framework);
                    for bug in app.bugs {
                        println!("  {} -> {}: {}", bug.id, bug.invariant, bug.reach);
                    }
                }
                ExitCode::SUCCESS
            }
            Err(err) => fail(&err.to_string()),
        };
    }
    let app = match windup_corpus::app(&args.app) {
        Ok(app) => app,
        Err(err) => return fail(&err.to_string()),
    };
    let bugs = match args.bugs.as_str() {
        "none" => Vec::new(),
        "all" => app.all_bugs(),
        list => match app.bugs_named(&list.split(',').map(str::trim).collect::<Vec<_>>()) {
            Ok(bugs) => bugs,
            Err(err) => return fail(&err.to_string()),
        },
    };
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).await {
        Ok(listener) => listener,
        Err(err) => return fail(&format!("cannot listen on 127.0.0.1:{}: {err}", args.port)),
    };
    let site = match windup_corpus::serve_on(listener, &app, &bugs) {
        Ok(site) => site,
        Err(err) => return fail(&err.to_string()),
    };
    println!(
        "{} on {} (bugs: {})",
        app.name,
        site.url(),
        if bugs.is_empty() {
            "none".to_owned()
        } else {
            bugs.join(",")
        }
    );
    let _ = tokio::signal::ctrl_c().await;
    site.stop().await;
    ExitCode::SUCCESS
}

fn fail(message: &str) -> ExitCode {
    eprintln!("windup-corpus: {message}");
    ExitCode::from(2)
}
