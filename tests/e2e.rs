//! Windup's own scenarios (scenarios/*.yaml) against the demo shop, as tests: each scenario is a
//! trial of this harness. `cargo test --test e2e -- --list` lists them.

#[windup::main]
async fn setup() -> Result<windup::Setup, std::io::Error> {
    let shop = windup_shop::spawn(Default::default()).await?;
    Ok(windup::Setup::new(shop.url()).with_guard(shop))
}
