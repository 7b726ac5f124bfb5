//! The session pool a suite's workers share.

use std::sync::Mutex;

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::browser::{Browser, BrowserError, Protocol, Session};
use crate::engine::planner::llm::RunSpend;

/// What a suite's workers share: browser sessions, at most `size` at once, each reused (and
/// reset) from one scenario to the next; and what the run's model calls have spent.
#[derive(Debug)]
pub struct SessionPool {
    browser: Browser,
    idle: Mutex<Vec<Session>>,
    /// The session [`SessionPool::warm`] opened, not used yet: it needs no reset.
    fresh: Mutex<Option<Session>>,
    permits: Semaphore,
    size: usize,
    spend: RunSpend,
}

impl SessionPool {
    pub fn new(browser: Browser, size: usize) -> Self {
        Self {
            browser,
            idle: Mutex::new(Vec::new()),
            fresh: Mutex::new(None),
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

    /// Opens the first session now, to know the protocol the sessions speak before any scenario
    /// runs; it waits idle for the first worker. `None` when it does not open: the scenario that
    /// would have had it says why.
    pub async fn warm(&self) -> Option<Protocol> {
        let session = self.browser.new_session().await.ok()?;
        let protocol = session.protocol();
        *self.fresh.lock().unwrap_or_else(|p| p.into_inner()) = Some(session);
        Some(protocol)
    }

    /// A session to run one scenario on: an idle one reset, or a new one.
    pub async fn acquire(&self) -> Result<PooledSession<'_>, BrowserError> {
        let permit = self
            .permits
            .acquire()
            .await
            .expect("the pool's semaphore is never closed");
        let fresh = self.fresh.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(session) = fresh {
            return Ok(PooledSession {
                pool: self,
                session: Some(session),
                _permit: permit,
            });
        }
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
        let fresh = self.fresh.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut sessions =
            std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        sessions.extend(fresh);
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
