//! The same scenarios as tests/e2e.rs, replayed in Firefox from the same plans: a plan made in
//! one browser replays unchanged in the other. `cargo test --test e2e_firefox -- --list`.

#[windup::main]
async fn setup() -> Result<windup::Setup, std::io::Error> {
    let shop = windup_shop::spawn(Default::default()).await?;
    Ok(windup::Setup::new(shop.url())
        .in_browser(windup_core::browser::BrowserKind::Firefox)
        .with_guard(shop))
}
