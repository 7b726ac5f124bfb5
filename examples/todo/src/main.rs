//! `windup-todo`: run the demo to-do list from the command line.

use std::net::Ipv4Addr;
use std::process::ExitCode;

use clap::Parser;
use windup_todo::{BugSet, TodoOptions};

/// The Windup demo to-do list: a TodoMVC-style app with switchable seeded bugs.
#[derive(Debug, Parser)]
#[command(name = "windup-todo", version)]
struct Args {
    /// Port to listen on, on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8081)]
    port: u16,
    /// Seeded bugs to switch on: none, all, or a comma list such as title-xss,long-title-500.
    #[arg(long, default_value = "none")]
    bugs: BugSet,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!(
                "windup-todo: cannot listen on 127.0.0.1:{}: {err}",
                args.port
            );
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    println!(
        "Windup todo listening on http://127.0.0.1:{port} (bugs: {})",
        args.bugs
    );
    let opts = TodoOptions { bugs: args.bugs };
    tokio::select! {
        served = windup_todo::serve(listener, opts) => {
            if let Err(err) = served {
                eprintln!("windup-todo: server stopped: {err}");
                return ExitCode::FAILURE;
            }
        }
        _ = tokio::signal::ctrl_c() => {}
    }
    ExitCode::SUCCESS
}
