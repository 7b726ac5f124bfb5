//! The server's audits: each is recorded `queued` when asked for, runs when a slot is free
//! (`max_running` at once), and tells a watch channel each time it stores an event, so that
//! streams know to read the store again. A stop before its turn keeps it from starting; a stop
//! while it runs ends it at its next step, its browser closed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use crate::run::audit::{AuditError, AuditRun};
use crate::run::events::RunEvent;
use crate::store::{AuditStore, NewRun, RunId, RunStatus, StoreError};

/// One audit the server knows while it is queued or running.
#[derive(Debug)]
pub(super) struct Live {
    pub(super) stop: Arc<AtomicBool>,
    /// How many events it has told; streams wait for it to change.
    pub(super) told: watch::Sender<u64>,
    /// Streams open on it.
    pub(super) subscribers: AtomicUsize,
}

/// Why an audit was not taken.
#[derive(Debug)]
pub(super) enum StartError {
    /// As many audits run and wait already as the server takes.
    Full,
    Store(StoreError),
}

/// The audits of one server.
pub(super) struct Runs {
    store: Arc<AuditStore>,
    slots: Arc<Semaphore>,
    /// Audits running and waiting at most, together.
    capacity: usize,
    live: Arc<Mutex<HashMap<RunId, Arc<Live>>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

type LiveMap = Arc<Mutex<HashMap<RunId, Arc<Live>>>>;

/// What a stop did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stopped {
    /// It had not started: it never will.
    BeforeItStarted,
    /// It runs: it stops at its next step.
    Stopping,
    /// It had ended already, with this status.
    AlreadyOver(RunStatus),
}

impl Runs {
    pub(super) fn new(store: Arc<AuditStore>, max_running: usize, max_queued: usize) -> Self {
        Runs {
            store,
            slots: Arc::new(Semaphore::new(max_running.max(1))),
            capacity: max_running.max(1) + max_queued,
            live: Arc::new(Mutex::new(HashMap::new())),
            tasks: Mutex::new(Vec::new()),
        }
    }

    fn live_map(&self) -> MutexGuard<'_, HashMap<RunId, Arc<Live>>> {
        lock(&self.live)
    }

    /// The audit, while the server runs or queues it.
    pub(super) fn live(&self, run: &RunId) -> Option<Arc<Live>> {
        self.live_map().get(run).cloned()
    }

    /// Records the audit `queued` and starts it when a slot is free; refused, recording
    /// nothing, when the queue is full.
    pub(super) fn start(&self, new: &NewRun, audit: AuditRun) -> Result<RunId, StartError> {
        let live = Arc::new(Live {
            stop: audit.stop_flag(),
            told: watch::channel(0).0,
            subscribers: AtomicUsize::new(0),
        });
        let run = {
            // Counted and recorded under one lock, so that two requests cannot both take the
            // last place.
            let mut map = self.live_map();
            if map.len() >= self.capacity {
                return Err(StartError::Full);
            }
            let run = self.store.queue_run(new).map_err(StartError::Store)?;
            map.insert(run, Arc::clone(&live));
            run
        };
        let text = if self.slots.available_permits() == 0 {
            "Queued: it starts when a running audit ends.".to_owned()
        } else {
            "Queued: starting now.".to_owned()
        };
        self.tell(
            &run,
            &live,
            &RunEvent::Reasoning {
                run_id: run.to_string(),
                text,
            },
        );
        let store = Arc::clone(&self.store);
        let slots = Arc::clone(&self.slots);
        let map = Arc::clone(&self.live);
        let task = tokio::spawn(async move {
            turn(store, slots, run, Arc::clone(&live), audit).await;
            lock(&map).remove(&run);
            // Streams waiting on it look at the store once more, and find it over.
            live.told.send_modify(|n| *n += 1);
        });
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
        Ok(run)
    }

    fn tell(&self, run: &RunId, live: &Live, event: &RunEvent) {
        tell(&self.store, run, live, event);
    }

    /// Stops an audit: a queued one never starts, a running one stops at its next step.
    pub(super) fn stop(&self, run: &RunId) -> Result<Stopped, StoreError> {
        let Some(live) = self.live(run) else {
            let status = self
                .store
                .run(run)?
                .map(|report| report.summary.status)
                .ok_or_else(|| StoreError::UnknownRun {
                    path: self.store.path().to_owned(),
                    run: run.to_string(),
                })?;
            return Ok(Stopped::AlreadyOver(status));
        };
        live.stop.store(true, Ordering::SeqCst);
        if self.store.stop_queued(run)? {
            done_before_start(&self.store, run, &live);
            return Ok(Stopped::BeforeItStarted);
        }
        Ok(Stopped::Stopping)
    }

    /// Stops every audit and waits for each to end, its browser closed.
    pub(super) async fn stop_all(&self) {
        let runs: Vec<RunId> = self.live_map().keys().copied().collect();
        for run in runs {
            let _ = self.stop(&run);
        }
        let tasks: Vec<JoinHandle<()>> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        for task in tasks {
            let _ = task.await;
        }
    }
}

fn lock(map: &LiveMap) -> MutexGuard<'_, HashMap<RunId, Arc<Live>>> {
    map.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Stores an event in the run's stream and wakes its streams.
fn tell(store: &AuditStore, run: &RunId, live: &Live, event: &RunEvent) {
    if store
        .append_event(run, event.name(), &event.to_json())
        .is_ok()
    {
        live.told.send_modify(|n| *n += 1);
    }
}

/// The `done` of a run stopped before it started, so that its streams end.
fn done_before_start(store: &AuditStore, run: &RunId, live: &Live) {
    tell(
        store,
        run,
        live,
        &RunEvent::AuditDone {
            run_id: run.to_string(),
            status: RunStatus::Stopped.as_str().to_owned(),
            runtime_ms: 0,
            findings: 0,
            actions: 0,
            attacks: 0,
            pages_explored: 0,
            unconfirmed: 0,
            stopped_by: "stopped".to_owned(),
            code: Default::default(),
        },
    );
}

/// Waits for a slot, then runs the audit on a thread of its own (the engine's future need not
/// be `Send`), telling the live streams of each event it stores.
async fn turn(
    store: Arc<AuditStore>,
    slots: Arc<Semaphore>,
    run: RunId,
    live: Arc<Live>,
    audit: AuditRun,
) {
    let Ok(_slot) = slots.acquire_owned().await else {
        return;
    };
    let started = match store.start_run(&run) {
        Ok(started) => started && !live.stop.load(Ordering::SeqCst),
        Err(_) => false,
    };
    if !started {
        // Stopped while it waited: its `done` is told by the stop.
        let _ = store.stop_queued(&run);
        return;
    }
    let woken = Arc::clone(&live);
    let audit = audit
        .in_run(run)
        .reporter(move |_: &RunEvent| woken.told.send_modify(|n| *n += 1));
    let handle = tokio::runtime::Handle::current();
    let ran = tokio::task::spawn_blocking(move || handle.block_on(audit.run())).await;
    let failure = match ran {
        // Told and stored as failed by the run itself.
        Ok(Ok(_) | Err(AuditError::Unusable { .. })) => None,
        Ok(Err(err)) => Some(err.to_string()),
        Err(panic) => Some(format!("the audit ended abruptly: {panic}")),
    };
    if let Some(message) = failure {
        let event = RunEvent::AuditFailed {
            run_id: run.to_string(),
            message,
            at: crate::engine::ledger::started_at(OffsetDateTime::now_utc()),
        };
        tell(&store, &run, &live, &event);
        let _ = store.finish_run(&run, RunStatus::Failed, 0);
    }
}
