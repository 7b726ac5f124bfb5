//! The session pool a suite's workers share.

use std::sync::Mutex;

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::browser::{Browser, BrowserError, Session};
use crate::engine::planner::llm::RunSpend;

/// What a suite's workers share: browser sessions, at most `size` at once, each reused (and
/// reset) from one scenario to the next; and what the run's model calls have spent.
#[derive(Debug)]
pub struct SessionPool {
    browser: Browser,
    idle: Mutex<Vec<Session>>,
    permits: Semaphore,
    size: usize,
    spend: RunSpend,
}

impl SessionPool {
    pub fn new(browser: Browser, size: usize) -> Self {
        Self {
            browser,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(size.max(1)),
            size: size.max(1),
            spend: RunSpend::default(),
        }
    }

    /// How many sessions may be out at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// What this run's model calls have spent, against `max_calls_per_run` and
    /// `max_usd_per_run`.
    pub fn spend(&self) -> &RunSpend {
        &self.spend
    }

    /// A session to run one scenario on: an idle one reset, or a new one.
    pub async fn acquire(&self) -> Result<PooledSession<'_>, BrowserError> {
        let permit = self
            .permits
            .acquire()
            .await
            .expect("the pool's semaphore is never closed");
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let session = match idle {
            Some(session) => match session.reset().await {
                Ok(()) => session,
                // A session that cannot be reset is replaced, not reused.
                Err(_) => self.browser.new_session().await?,
            },
            None => self.browser.new_session().await?,
        };
        Ok(PooledSession {
            pool: self,
            session: Some(session),
            _permit: permit,
        })
    }

    /// Closes every idle session.
    pub async fn close(&self) {
        let sessions = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        for session in sessions {
            let _ = session.close().await;
        }
    }
}

/// A session on loan from the pool; it goes back when dropped (or is dropped with it when it
/// is known to be broken).
pub struct PooledSession<'a> {
    pool: &'a SessionPool,
    session: Option<Session>,
    _permit: SemaphorePermit<'a>,
}

impl PooledSession<'_> {
    pub fn session(&self) -> &Session {
        self.session.as_ref().expect("present until drop")
    }

    /// Drops the session instead of returning it: its browser is gone.
    pub fn discard(mut self) {
        self.session.take();
    }
}

impl Drop for PooledSession<'_> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.pool
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(session);
        }
    }
}
