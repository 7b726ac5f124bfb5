//! Checkout: the form (with a one-time token per render) and placing the order.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;

use crate::Shop;
use crate::account::login_redirect;
use crate::bugs::Bug;
use crate::catalogue::money;
use crate::html::{self, Header, TotalsIds, esc};
use crate::orders::confirmation;
use crate::session::SessionId;
use crate::store::{COUNTRIES, Cart, CheckoutOutcome, ShippingDetails};

const EXPIRED: &str =
    "This checkout form has expired. Please review your order and place it again.";

#[derive(Debug, Default, Deserialize)]
pub struct CheckoutForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    address: String,
    #[serde(default)]
    country: String,
    #[serde(default)]
    terms: String,
    #[serde(default)]
    token: String,
}

impl CheckoutForm {
    fn details(&self) -> ShippingDetails {
        ShippingDetails {
            name: self.name.clone(),
            address: self.address.clone(),
            country: self.country.clone(),
            terms: self.terms == "yes",
        }
    }
}

fn today() -> String {
    time::OffsetDateTime::now_utc().date().to_string()
}

fn value_attr(value: &str) -> String {
    if value.is_empty() {
        String::new()
    } else {
        format!(r#" value="{}""#, esc(value))
    }
}

fn empty_cart_body(problems: &[&str], shop: &Shop) -> String {
    format!(
        r#"<h1>Checkout</h1>
{}<p class="empty">Your cart is empty</p>
<p><a href="/products">Browse products</a></p>"#,
        html::errors(shop.names, problems)
    )
}

fn form_body(
    shop: &Shop,
    cart: &Cart,
    token: &str,
    details: &ShippingDetails,
    problems: &[&str],
) -> String {
    let n = shop.names;
    let mut lines = String::new();
    for line in &cart.lines {
        let _ = writeln!(
            lines,
            "<tr><td>{} × {}</td><td>{}</td></tr>",
            esc(line.product.name),
            line.qty,
            money(line.total())
        );
    }
    let name_field = format!(
        r#"<div class="field"><label for="{id}">Full name</label><input id="{id}" name="name" autocomplete="name"{value}></div>"#,
        id = n.name_id,
        value = value_attr(&details.name),
    );
    let address_field = format!(
        r#"<div class="field"><label for="{id}">Address</label><input id="{id}" name="address"{value}></div>"#,
        id = n.address_id,
        value = value_attr(&details.address),
    );
    let (first, second) = if n.address_first {
        (address_field, name_field)
    } else {
        (name_field, address_field)
    };
    let options: String = COUNTRIES
        .iter()
        .map(|country| {
            let selected = if *country == details.country {
                " selected"
            } else {
                ""
            };
            format!(r#"<option value="{country}"{selected}>{country}</option>"#)
        })
        .collect();
    // Bug double-submit: the script is never told to lock the button.
    let lock = if shop.bugs.contains(Bug::DoubleSubmit) {
        ""
    } else {
        " data-lock-submit"
    };
    format!(
        r#"<h1>Checkout</h1>
<section class="order-summary">
<h2>Order summary</h2>
<table class="summary-table"><tbody>
{lines}</tbody></table>
<div class="totals">{totals}</div>
</section>
{errors}<form class="stacked checkout-form" method="post" action="/checkout"{lock}>
{first}
{second}
<div class="field"><label for="{country}">Country</label><select id="{country}" name="country">{options}</select></div>
<div class="field checkbox-field"><input type="checkbox" id="{terms}" name="terms" value="yes" class="{hidden}"{checked}><label for="{terms}" class="{checkbox_label}">I accept the terms</label></div>
<input type="hidden" name="token" value="{token}">
<button type="submit" data-testid="{place}">Place order</button>
</form>"#,
        totals = html::totals(
            &cart.totals(shop.bugs),
            &TotalsIds {
                subtotal: None,
                discount: None,
                total: n.checkout_total,
            }
        ),
        errors = html::errors(n, problems),
        country = n.country_id,
        terms = n.terms_id,
        hidden = n.hidden_class,
        checked = if details.terms { " checked" } else { "" },
        checkbox_label = n.checkbox_label_class,
        token = esc(token),
        place = n.place_order,
    )
}

/// The checkout page for the session's current cart, with a fresh token.
fn checkout_page(
    shop: &Shop,
    sid: &SessionId,
    status: StatusCode,
    details: &ShippingDetails,
    problems: &[&str],
) -> Response {
    let mut store = shop.lock();
    let session = store.session(&sid.0);
    let header: Header = shop.header(session);
    if session.user.is_none() {
        return login_redirect("/checkout").into_response();
    }
    let cart = session.cart.clone();
    if cart.is_empty() {
        drop(store);
        return html::respond(
            status,
            &header,
            "Checkout",
            &empty_cart_body(problems, shop),
        );
    }
    let token = store.issue_checkout_token(&sid.0);
    drop(store);
    let body = form_body(shop, &cart, &token, details, problems);
    html::respond(status, &header, "Checkout", &body)
}

pub async fn show(State(shop): State<Shop>, Extension(sid): Extension<SessionId>) -> Response {
    let details = ShippingDetails {
        country: COUNTRIES[0].to_string(),
        ..ShippingDetails::default()
    };
    checkout_page(&shop, &sid, StatusCode::OK, &details, &[])
}

pub async fn place(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<CheckoutForm>,
) -> Response {
    let details = form.details();
    let outcome = {
        let mut store = shop.lock();
        if store.session(&sid.0).user.is_none() {
            return login_redirect("/checkout").into_response();
        }
        store.place_order(&sid.0, &form.token, &details, shop.bugs, &today())
    };
    let invalid = StatusCode::UNPROCESSABLE_ENTITY;
    match outcome {
        CheckoutOutcome::Placed(id) if shop.bugs.contains(Bug::BackResubmit) => {
            // Bug: the confirmation is the POST's own response, so reloading it posts again.
            let mut store = shop.lock();
            let session = store.session(&sid.0);
            let header = shop.header(session);
            let user = session.user.clone().unwrap_or_default();
            let body = store
                .order_for(&user, id)
                .map(|order| confirmation(shop.names, order));
            drop(store);
            match body {
                Some(body) => (
                    StatusCode::OK,
                    Html(html::page(&header, &format!("Order #{id}"), &body)),
                )
                    .into_response(),
                None => html::not_found(&header, "Order not found"),
            }
        }
        CheckoutOutcome::Placed(id) | CheckoutOutcome::AlreadyPlaced(id) => {
            Redirect::to(&format!("/orders/{id}")).into_response()
        }
        CheckoutOutcome::Invalid(problems) => {
            checkout_page(&shop, &sid, invalid, &details, &problems)
        }
        CheckoutOutcome::Expired => checkout_page(&shop, &sid, invalid, &details, &[EXPIRED]),
        CheckoutOutcome::EmptyCart => {
            checkout_page(&shop, &sid, invalid, &details, &["Your cart is empty"])
        }
    }
}
