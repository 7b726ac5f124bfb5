//! The order confirmation page and the order history.

use std::fmt::Write as _;

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::Shop;
use crate::account::login_redirect;
use crate::catalogue::money;
use crate::html::{self, TotalsIds, esc};
use crate::markup::Names;
use crate::session::SessionId;
use crate::store::Order;

/// The confirmation page body for `order`.
pub fn confirmation(names: &Names, order: &Order) -> String {
    let mut rows = String::new();
    for line in &order.lines {
        let _ = writeln!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(line.product.name),
            line.qty,
            money(line.product.price),
            money(line.total()),
        );
    }
    format!(
        r#"<h1>Thank you for your order</h1>
<p>Order <span data-testid="{number_id}">#{id}</span></p>
<p class="muted">Placed on {date}, shipping to {name}, {address}, {country}.</p>
<table class="order-table">
<thead><tr><th scope="col">Product</th><th scope="col">Quantity</th><th scope="col">Price</th><th scope="col">Total</th></tr></thead>
<tbody>
{rows}</tbody>
</table>
<div class="totals">{totals}</div>
<p><a href="/orders">View your orders</a></p>"#,
        number_id = names.order_number,
        id = order.id,
        date = esc(&order.placed_on),
        name = esc(&order.name),
        address = esc(&order.address),
        country = esc(&order.country),
        totals = html::totals(
            &order.totals,
            &TotalsIds {
                subtotal: None,
                discount: None,
                total: names.order_total,
            }
        ),
    )
}

pub async fn show(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Path(id): Path<String>,
) -> Response {
    let mut store = shop.lock();
    let session = store.session(&sid.0);
    let header = shop.header(session);
    let user = session.user.clone().unwrap_or_default();
    let order = id
        .parse()
        .ok()
        .and_then(|id| store.order_for(&user, id))
        .cloned();
    drop(store);
    match order {
        Some(order) => {
            let body = confirmation(shop.names, &order);
            html::respond(
                StatusCode::OK,
                &header,
                &format!("Order #{}", order.id),
                &body,
            )
        }
        None => html::not_found(&header, "Order not found"),
    }
}

pub async fn list(State(shop): State<Shop>, Extension(sid): Extension<SessionId>) -> Response {
    let n = shop.names;
    let mut store = shop.lock();
    let session = store.session(&sid.0);
    let header = shop.header(session);
    let Some(user) = session.user.clone() else {
        return login_redirect("/orders").into_response();
    };
    let mut rows = String::new();
    for order in store.orders_of(&user) {
        let _ = writeln!(
            rows,
            r#"<tr data-testid="{prefix}{id}"><td>#{id}</td><td>{date}</td><td>{total}</td><td><a href="/orders/{id}">View</a></td></tr>"#,
            prefix = n.order_row_prefix,
            id = order.id,
            date = esc(&order.placed_on),
            total = money(order.totals.total),
        );
    }
    drop(store);
    let body = if rows.is_empty() {
        r#"<h1>Your orders</h1>
<p class="empty">You have no orders yet</p>
<p><a href="/products">Browse products</a></p>"#
            .to_string()
    } else {
        format!(
            r#"<h1>Your orders</h1>
<table class="orders-table">
<thead><tr><th scope="col">Order</th><th scope="col">Date</th><th scope="col">Total</th><th scope="col"><span class="{hidden}">Details</span></th></tr></thead>
<tbody>
{rows}</tbody>
</table>"#,
            hidden = n.hidden_class,
        )
    };
    html::respond(StatusCode::OK, &header, "Your orders", &body)
}
