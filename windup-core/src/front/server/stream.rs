//! One subscriber's stream: the events the store holds after the `seq` it asked from, then
//! each event as the audit stores it. Everything sent is read from the store, in `seq` order,
//! so the stream has no gap and no duplicate however late the subscriber comes; the live side
//! only says when to read again.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, close_code};
use serde_json::Value;

use super::app::App;
use super::runs::Live;
use crate::store::{RunId, RunStatus, StoredEvent};

/// Events read from the store at once.
const PAGE: usize = 256;

/// A place among a live run's subscribers, given back when the stream ends.
pub(super) struct Seat(Arc<Live>);

impl Seat {
    /// A place, unless `max` are taken.
    pub(super) fn take(live: Arc<Live>, max: usize) -> Option<Seat> {
        let taken = live
            .subscribers
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            });
        taken.ok().map(|_| Seat(live))
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.subscribers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The text frame of one event: the event's JSON with its `seq` and the time it was stored.
fn frame(event: &StoredEvent) -> String {
    let mut value: Value = serde_json::from_str(&event.json).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.insert("seq".to_owned(), Value::from(event.seq));
        fields.insert("at".to_owned(), Value::from(event.at.clone()));
    }
    value.to_string()
}

/// Sends what the store holds after `after`; the last `seq` sent. `None` when the subscriber
/// is gone or the store cannot be read.
async fn catch_up(
    app: &Arc<App>,
    run: RunId,
    mut after: u64,
    socket: &mut WebSocket,
) -> Option<u64> {
    loop {
        let store = Arc::clone(&app.store);
        let page = tokio::task::spawn_blocking(move || store.events_since(&run, after, PAGE))
            .await
            .ok()?
            .ok()?;
        for event in &page {
            socket.send(Message::Text(frame(event).into())).await.ok()?;
            after = event.seq;
        }
        if page.len() < PAGE {
            return Some(after);
        }
    }
}

/// Follows a run until it ends (then closes the stream normally), the subscriber leaves, or the
/// server stops.
pub(super) async fn follow(
    app: Arc<App>,
    run: RunId,
    after: u64,
    seat: Option<Seat>,
    mut socket: WebSocket,
) {
    // Watch before reading, so that whatever is stored after the read wakes the stream.
    let mut told = seat.as_ref().map(|seat| seat.0.told.subscribe());
    let mut closing = app.closing.subscribe();
    let mut last = after;
    loop {
        let Some(sent) = catch_up(&app, run, last, &mut socket).await else {
            return;
        };
        last = sent;
        if over(&app, run).await {
            // What was stored between the read and the run's end, then the close.
            if catch_up(&app, run, last, &mut socket).await.is_some() {
                close(&mut socket, close_code::NORMAL, "the audit is over").await;
            }
            return;
        }
        let woken = async {
            match told.as_mut() {
                Some(watch) => watch.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            live = woken => {
                if !live {
                    told = None;
                }
            }
            message = socket.recv() => match message {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                // Pings are answered by the socket itself; anything else is ignored.
                Some(Ok(_)) => {}
            },
            _ = closing.changed() => {
                close(&mut socket, close_code::AWAY, "the server is stopping").await;
                return;
            }
            // A run another process writes (a `cargo windup audit` beside the server) tells
            // this one nothing: its store is read again now and then.
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// Whether the run has ended: this server no longer runs it, and the store says it is over.
async fn over(app: &Arc<App>, run: RunId) -> bool {
    if app.runs.live(&run).is_some() {
        return false;
    }
    let store = Arc::clone(&app.store);
    match tokio::task::spawn_blocking(move || store.status(&run)).await {
        Ok(Ok(Some(status))) => !matches!(status, RunStatus::Queued | RunStatus::Running),
        _ => true,
    }
}

/// Closes the stream: 1000 once the run is over, 1001 when the server goes away mid-run (a
/// client reconnects then, from its last `seq`).
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = socket.send(Message::Close(Some(frame))).await;
}
