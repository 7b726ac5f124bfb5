//! `windup-shop`: run the demo shop from the command line.

use std::net::Ipv4Addr;
use std::process::ExitCode;

use clap::Parser;
use windup_shop::{BugSet, Markup, ShopOptions};

/// The Windup demo shop: a small web shop with switchable seeded bugs.
#[derive(Debug, Parser)]
#[command(name = "windup-shop", version)]
struct Args {
    /// Port to listen on, on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Seeded bugs to switch on: none, all, or a comma list such as cart-total,search-xss.
    #[arg(long, default_value = "none")]
    bugs: BugSet,
    /// Page markup: standard, or renamed (same texts, different ids and test ids).
    #[arg(long, default_value = "standard")]
    markup: Markup,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let listener = match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).await {
        Ok(listener) => listener,
        Err(err) => {
            eprintln!(
                "windup-shop: cannot listen on 127.0.0.1:{}: {err}",
                args.port
            );
            return ExitCode::FAILURE;
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    println!("Windup shop listening on http://127.0.0.1:{port}");
    let opts = ShopOptions {
        bugs: args.bugs,
        markup: args.markup,
    };
    tokio::select! {
        served = windup_shop::serve(listener, opts) => {
            if let Err(err) = served {
                eprintln!("windup-shop: server stopped: {err}");
                return ExitCode::FAILURE;
            }
        }
        _ = tokio::signal::ctrl_c() => {}
    }
    ExitCode::SUCCESS
}
