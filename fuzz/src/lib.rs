//! What the fuzz targets share. The bug they hunt first is a stack overflow on a server's
//! worker: an input nested deep enough takes a recursive parser or evaluator past its thread's
//! stack, and the process aborts. So every target runs the code under test on a thread with the
//! stack of a tokio worker, not on libFuzzer's main thread, whose stack is the system's 8 MiB.

/// The stack of a tokio worker thread (tokio's default `thread_stack_size`).
pub const WORKER_STACK: usize = 2 << 20;

/// Runs `test` on a fresh thread with a worker's stack and returns what it returns.
pub fn on_worker_stack<T: Send>(test: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("fuzz-worker".to_owned())
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, test)
            .expect("the machine can start a thread");
        // libfuzzer-sys's panic hook has aborted already; this is for a hook someone removed.
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The input as text, or `None` when it is not UTF-8: every reader under test takes `&str`.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
