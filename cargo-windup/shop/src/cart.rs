//! The cart page and the forms that change the cart, including the coupon API the page's
//! script calls.

use std::fmt::Write as _;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form, Json};
use serde::Deserialize;

use crate::Shop;
use crate::catalogue::{money, product};
use crate::html::{self, TotalsIds, esc};
use crate::markup::Names;
use crate::session::SessionId;
use crate::store::{Cart, Totals};

/// How long the coupon API pretends to ask a slow backend.
const COUPON_CHECK_DELAY: Duration = Duration::from_millis(800);

#[derive(Debug, Default, Deserialize)]
pub struct LineForm {
    #[serde(default)]
    slug: String,
    #[serde(default)]
    qty: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct CouponForm {
    #[serde(default)]
    code: String,
}

fn parse_quantity(raw: &str) -> Option<i64> {
    raw.trim().parse().ok()
}

fn totals_block(names: &Names, totals: &Totals) -> String {
    html::totals(
        totals,
        &TotalsIds {
            subtotal: Some(names.cart_subtotal),
            discount: Some(names.cart_discount),
            total: names.cart_total,
        },
    )
}

fn cart_body(shop: &Shop, cart: &Cart, status: &str) -> String {
    let n = shop.names;
    if cart.is_empty() {
        return r#"<h1>Your cart</h1>
<p class="empty">Your cart is empty</p>
<p><a href="/products">Browse products</a></p>"#
            .to_string();
    }
    let mut rows = String::new();
    for line in &cart.lines {
        let p = line.product;
        let slug = p.slug;
        let name = esc(p.name);
        let _ = write!(
            rows,
            r#"<tr data-testid="{row}{slug}">
<td><a href="/products/{slug}">{name}</a></td>
<td>{price}</td>
<td><form class="inline" method="post" action="/cart/update"><input type="hidden" name="slug" value="{slug}"><label for="{qty}{slug}">Quantity for {name}</label><input id="{qty}{slug}" name="qty" type="number" value="{n_items}"><button type="submit">Update</button></form></td>
<td data-testid="{line_total}{slug}">{total}</td>
<td><form class="inline" method="post" action="/cart/remove"><input type="hidden" name="slug" value="{slug}"><button type="submit" class="link-button">Remove</button></form></td>
</tr>
"#,
            row = n.cart_line_prefix,
            price = money(p.price),
            qty = n.qty_prefix,
            n_items = line.qty,
            line_total = n.line_total_prefix,
            total = money(line.total()),
        );
    }
    format!(
        r#"<h1>Your cart</h1>
<table class="cart-table">
<thead><tr><th scope="col">Product</th><th scope="col">Price</th><th scope="col">Quantity</th><th scope="col">Total</th><th scope="col"><span class="{hidden}">Actions</span></th></tr></thead>
<tbody>
{rows}</tbody>
</table>
<div class="cart-summary">
<div class="totals" data-js="cart-totals">{totals}</div>
<form class="coupon-form" method="post" action="/cart/coupon" data-js="coupon-form" data-status="{status_id}" data-overlay="{overlay}"><label for="{coupon}">Coupon code</label><input id="{coupon}" name="code"><button type="submit">Apply coupon</button></form>
<p id="{status_id}" data-testid="{status_id}" role="status">{status}</p>
<a href="/checkout" class="{button}" data-testid="{checkout}">Proceed to checkout</a>
</div>"#,
        hidden = n.hidden_class,
        totals = totals_block(n, &cart.totals(shop.bugs)),
        status_id = n.coupon_status,
        overlay = n.busy_overlay,
        coupon = n.coupon_id,
        status = esc(status),
        button = n.button_class,
        checkout = n.checkout_button,
    )
}

pub async fn show(State(shop): State<Shop>, Extension(sid): Extension<SessionId>) -> Response {
    let (header, cart, status) = {
        let mut store = shop.lock();
        let session = store.session(&sid.0);
        let status = session.coupon_flash.take().unwrap_or_default();
        (shop.header(session), session.cart.clone(), status)
    };
    let body = cart_body(&shop, &cart, &status);
    html::respond(StatusCode::OK, &header, "Your cart", &body)
}

pub async fn add(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<LineForm>,
) -> Response {
    let mut store = shop.lock();
    let session = store.session(&sid.0);
    let Some(product) = product(form.slug.trim()) else {
        let header = shop.header(session);
        drop(store);
        return html::not_found(&header, "Product not found");
    };
    if !product.in_stock {
        return Redirect::to(&format!("/products/{}", product.slug)).into_response();
    }
    let qty = parse_quantity(&form.qty).unwrap_or(1);
    session.cart.add(product, qty, shop.bugs);
    Redirect::to("/cart").into_response()
}

pub async fn update(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<LineForm>,
) -> Redirect {
    if let Some(qty) = parse_quantity(&form.qty) {
        let mut store = shop.lock();
        store
            .session(&sid.0)
            .cart
            .update(form.slug.trim(), qty, shop.bugs);
    }
    Redirect::to("/cart")
}

pub async fn remove(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<LineForm>,
) -> Redirect {
    shop.lock().session(&sid.0).cart.remove(form.slug.trim());
    Redirect::to("/cart")
}

fn apply_coupon(shop: &Shop, sid: &SessionId, code: &str) -> (bool, String, Totals) {
    let mut store = shop.lock();
    let cart = &mut store.session(&sid.0).cart;
    let (ok, message) = match cart.apply_coupon(code, shop.bugs) {
        Ok(coupon) => (true, format!("Coupon {} applied", coupon.code())),
        Err(message) => (false, message),
    };
    (ok, message, cart.totals(shop.bugs))
}

/// The coupon form without JavaScript: apply, then show the message on the cart page.
pub async fn coupon(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<CouponForm>,
) -> Redirect {
    let (_, message, _) = apply_coupon(&shop, &sid, &form.code);
    shop.lock().session(&sid.0).coupon_flash = Some(message);
    Redirect::to("/cart")
}

/// The coupon form's script endpoint: answers with the new totals after a slow check.
pub async fn coupon_api(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<CouponForm>,
) -> Json<serde_json::Value> {
    tokio::time::sleep(COUPON_CHECK_DELAY).await;
    let (ok, message, totals) = apply_coupon(&shop, &sid, &form.code);
    Json(serde_json::json!({
        "ok": ok,
        "message": message,
        "codes": totals.codes,
        "subtotal": money(totals.subtotal),
        "discount": money(totals.discount),
        "total": money(totals.total),
        "totals_html": totals_block(shop.names, &totals),
    }))
}
