use std::time::{Duration, Instant};

use super::store::{Backoff, Store, config, is_lock_held};
use super::*;
use crate::model::plan::{Action, ActionKind, GeneratedBy, PLAN_VERSION, Postcondition};

fn plan(scenario_id: &str, task: &str) -> Plan {
    let mut goto = Action::new("a1", ActionKind::Goto);
    goto.url = Some("/products".to_owned());
    goto.expect = vec![Postcondition::TextVisible {
        text: "Rust mug".to_owned(),
    }];
    Plan {
        plan_version: PLAN_VERSION.to_owned(),
        scenario_id: scenario_id.to_owned(),
        task: task.to_owned(),
        start_url: "/".to_owned(),
        generated_by: GeneratedBy {
            planner: crate::model::plan::PlannerKind::Offline,
            provider: None,
            model: None,
            at: "2025-06-01T12:00:00Z".to_owned(),
        },
        actions: vec![goto],
    }
}

fn entry(scenario_id: &str, start_path: &str, task: &str) -> CacheEntry {
    CacheEntry::new(
        CacheKey::new(scenario_id, start_path),
        "hash-1",
        plan(scenario_id, task),
    )
}

fn cache() -> (tempfile::TempDir, PlanCache) {
    let root = tempfile::tempdir().expect("a temp dir");
    let cache = PlanCache::new(root.path());
    (root, cache)
}

/// Opens the store the way every cache operation does: Windup's lock, then sled's, waited for.
fn open_store(cache: &PlanCache) -> Store {
    Store::open(cache.dir(), true, Duration::from_secs(10))
        .expect("the store opens")
        .expect("a store, created when missing")
}

/// Opens sled alone, past Windup's lock — for the tests about what sled itself does — waiting
/// out the lingering threads of the operation before (sled lets go of its file lock a moment
/// after a `Db` is dropped).
fn open_sled(dir: &std::path::Path) -> sled::Result<sled::Db> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match config(dir).open() {
            Err(err) if is_lock_held(&err) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            opened => return opened,
        }
    }
}

/// Writes a raw value under an active key, as a damaged store would hold it.
fn put_raw(cache: &PlanCache, key: &CacheKey, value: &[u8]) {
    let store = open_store(cache);
    store
        .active
        .insert(keys::active(key), value)
        .expect("a raw insert");
    store.close().expect("a flush");
}

#[test]
fn a_saved_entry_is_found_again() {
    let (root, cache) = cache();
    assert_eq!(cache.dir(), root.path().join(".windup").join("cache"));
    let saved = entry("checkout", "/", "Buy a mug");
    cache.save(&saved).expect("save");
    let found = cache
        .lookup(&saved.key, "hash-1")
        .expect("lookup")
        .expect("a hit");
    assert_eq!(found, saved);
    assert_eq!(found.cache_version, CACHE_VERSION);
}

#[test]
fn saving_again_replaces_the_active_entry() {
    let (_root, cache) = cache();
    cache.save(&entry("checkout", "/", "first")).expect("save");
    cache.save(&entry("checkout", "/", "second")).expect("save");
    let all = cache.list().expect("list");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].plan.task, "second");
}

#[test]
fn an_edited_scenario_or_another_start_path_misses() {
    let (_root, cache) = cache();
    let saved = entry("checkout", "/", "Buy a mug");
    cache.save(&saved).expect("save");
    assert_eq!(cache.lookup(&saved.key, "hash-2").expect("lookup"), None);
    let elsewhere = CacheKey::new("checkout", "/cart");
    assert_eq!(cache.lookup(&elsewhere, "hash-1").expect("lookup"), None);
    let other = CacheKey::new("checkout-2", "/");
    assert_eq!(cache.lookup(&other, "hash-1").expect("lookup"), None);
}

#[test]
fn a_different_start_signature_misses_and_an_unknown_one_does_not() {
    let (_root, cache) = cache();
    let mut saved = entry("checkout", "/", "Buy a mug");
    saved.key.start_sig = Some("sig-a".to_owned());
    cache.save(&saved).expect("save");
    let mut key = CacheKey::new("checkout", "/");
    assert!(cache.lookup(&key, "hash-1").expect("lookup").is_some());
    key.start_sig = Some("sig-a".to_owned());
    assert!(cache.lookup(&key, "hash-1").expect("lookup").is_some());
    key.start_sig = Some("sig-b".to_owned());
    assert_eq!(cache.lookup(&key, "hash-1").expect("lookup"), None);
}

#[test]
fn a_run_records_the_start_signature_it_saw() {
    let (_root, cache) = cache();
    let mut saved = entry("checkout", "/", "Buy a mug");
    saved.key.start_sig = Some("sig-a".to_owned());
    cache.save(&saved).expect("save");
    let mut key = CacheKey::new("checkout", "/");
    cache
        .record_run(&key, true, "2025-06-01T12:00:00Z", 5)
        .expect("a run without a signature");
    let sig = |cache: &PlanCache| cache.get("checkout").expect("get")[0].key.start_sig.clone();
    assert_eq!(sig(&cache).as_deref(), Some("sig-a"));
    key.start_sig = Some("sig-b".to_owned());
    cache
        .record_run(&key, true, "2025-06-01T12:01:00Z", 5)
        .expect("a run that saw another start page");
    assert_eq!(sig(&cache).as_deref(), Some("sig-b"));
    assert_eq!(cache.get("checkout").expect("get")[0].stats.runs, 2);
}

#[test]
fn reading_a_cache_that_was_never_written_creates_nothing() {
    let (root, cache) = cache();
    let key = CacheKey::new("checkout", "/");
    assert_eq!(cache.lookup(&key, "hash-1").expect("lookup"), None);
    assert_eq!(cache.list().expect("list"), Vec::new());
    assert_eq!(cache.get("checkout").expect("get"), Vec::new());
    assert_eq!(cache.clear(None).expect("clear"), 0);
    assert!(!root.path().join(".windup").exists());
    let err = cache.record_run(&key, true, "2025-06-01T12:00:00Z", 5);
    assert!(
        matches!(err, Err(CacheError::NoActiveEntry { .. })),
        "{err:?}"
    );
    assert!(!root.path().join(".windup").exists());
}

#[test]
fn marking_stale_keeps_the_newest_five_as_evidence() {
    let (_root, cache) = cache();
    let key = CacheKey::new("checkout", "/");
    for generation in 0..7 {
        cache
            .save(&entry("checkout", "/", &format!("plan {generation}")))
            .expect("save");
        cache
            .mark_stale(&key, &format!("failure {generation}"))
            .expect("mark stale");
        assert_eq!(cache.lookup(&key, "hash-1").expect("lookup"), None);
    }
    let evidence = cache.get("checkout").expect("get");
    let seen: Vec<_> = evidence
        .iter()
        .map(|entry| {
            assert_eq!(entry.status, EntryStatus::Stale);
            (entry.plan.task.as_str(), entry.failure.as_deref())
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("plan 6", Some("failure 6")),
            ("plan 5", Some("failure 5")),
            ("plan 4", Some("failure 4")),
            ("plan 3", Some("failure 3")),
            ("plan 2", Some("failure 2")),
        ]
    );
    let err = cache.mark_stale(&key, "again");
    assert!(
        matches!(err, Err(CacheError::NoActiveEntry { .. })),
        "{err:?}"
    );
}

#[test]
fn stale_evidence_is_counted_per_scenario_and_a_new_plan_is_active_beside_it() {
    let (_root, cache) = cache();
    for path in ["/", "/cart", "/a", "/b", "/c", "/d"] {
        cache.save(&entry("checkout", path, path)).expect("save");
        cache
            .mark_stale(&CacheKey::new("checkout", path), "broke")
            .expect("mark stale");
    }
    cache
        .save(&entry("checkout", "/", "replanned"))
        .expect("save");
    cache.save(&entry("other", "/", "untouched")).expect("save");
    cache
        .mark_stale(&CacheKey::new("other", "/"), "broke")
        .expect("mark stale");
    let checkout = cache.get("checkout").expect("get");
    let seen: Vec<_> = checkout
        .iter()
        .map(|entry| (entry.status, entry.plan.task.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (EntryStatus::Active, "replanned"),
            (EntryStatus::Stale, "/d"),
            (EntryStatus::Stale, "/c"),
            (EntryStatus::Stale, "/b"),
            (EntryStatus::Stale, "/a"),
            (EntryStatus::Stale, "/cart"),
        ]
    );
    assert_eq!(cache.get("other").expect("get").len(), 1);
}

#[test]
fn record_run_counts_runs_and_passes() {
    let (_root, cache) = cache();
    let saved = entry("checkout", "/", "Buy a mug");
    cache.save(&saved).expect("save");
    cache
        .record_run(&saved.key, true, "2025-06-01T12:00:00Z", 1200)
        .expect("record");
    cache
        .record_run(&saved.key, false, "2025-06-02T08:30:00Z", 900)
        .expect("record");
    let found = cache
        .lookup(&saved.key, "hash-1")
        .expect("lookup")
        .expect("a hit");
    assert_eq!(
        found.stats,
        EntryStats {
            runs: 2,
            passes: 1,
            last_run: Some("2025-06-02T08:30:00Z".to_owned()),
            last_ms: Some(900),
        }
    );
    assert_eq!(found.plan, saved.plan);
}

#[test]
fn list_get_and_clear() {
    let (_root, cache) = cache();
    cache.save(&entry("b-search", "/", "search")).expect("save");
    cache
        .save(&entry("a-checkout", "/cart", "cart"))
        .expect("save");
    cache.save(&entry("a-checkout", "/", "home")).expect("save");
    cache
        .mark_stale(&CacheKey::new("a-checkout", "/cart"), "selector gone")
        .expect("mark stale");
    cache
        .save(&entry("a-checkout", "/cart", "cart 2"))
        .expect("save");
    // An id that is a prefix of another must not reach its entries.
    cache.save(&entry("a", "/", "short id")).expect("save");

    let listed: Vec<_> = cache
        .list()
        .expect("list")
        .into_iter()
        .map(|entry| (entry.key.scenario_id, entry.status, entry.plan.task))
        .collect();
    let row = |id: &str, status, task: &str| (id.to_owned(), status, task.to_owned());
    assert_eq!(
        listed,
        [
            row("a", EntryStatus::Active, "short id"),
            row("a-checkout", EntryStatus::Active, "home"),
            row("a-checkout", EntryStatus::Active, "cart 2"),
            row("a-checkout", EntryStatus::Stale, "cart"),
            row("b-search", EntryStatus::Active, "search"),
        ]
    );
    assert_eq!(cache.get("a").expect("get").len(), 1);
    assert_eq!(cache.get("a-checkout").expect("get").len(), 3);
    assert_eq!(cache.get("missing").expect("get"), Vec::new());

    assert_eq!(cache.clear(Some("a-checkout")).expect("clear"), 3);
    assert_eq!(cache.get("a-checkout").expect("get"), Vec::new());
    assert_eq!(cache.list().expect("list").len(), 2);
    assert_eq!(cache.clear(Some("a-checkout")).expect("clear"), 0);
    assert_eq!(cache.clear(None).expect("clear"), 2);
    assert_eq!(cache.list().expect("list"), Vec::new());
}

#[test]
fn a_corrupt_value_is_an_error_naming_its_key_and_clear_removes_it() {
    let (_root, cache) = cache();
    cache.save(&entry("checkout", "/", "fine")).expect("save");
    let key = CacheKey::new("broken", "/cart");
    put_raw(&cache, &key, b"{\"cache_version\":\"0.2\",\"key\":");

    let err = cache.lookup(&key, "hash-1").expect_err("corrupt");
    let CacheError::Corrupt {
        scenario_id,
        key: place,
        ..
    } = &err
    else {
        panic!("expected Corrupt, got {err:?}");
    };
    assert_eq!(scenario_id, "broken");
    assert_eq!(place, "\"broken\" at /cart");
    assert!(matches!(cache.list(), Err(CacheError::Corrupt { .. })));
    assert!(matches!(
        cache.record_run(&key, true, "2025-06-01T12:00:00Z", 1),
        Err(CacheError::Corrupt { .. })
    ));
    // The other scenario is still readable on its own.
    assert_eq!(cache.get("checkout").expect("get").len(), 1);

    assert_eq!(cache.clear(Some("broken")).expect("clear"), 1);
    assert_eq!(cache.list().expect("list").len(), 1);
}

#[test]
fn a_valid_json_value_that_is_not_an_entry_is_corrupt_too() {
    let (_root, cache) = cache();
    cache.save(&entry("checkout", "/", "fine")).expect("save");
    let key = CacheKey::new("checkout", "/");
    put_raw(
        &cache,
        &key,
        br#"{"cache_version":"0.2","key":{"scenario_id":3}}"#,
    );
    assert!(matches!(
        cache.lookup(&key, "hash-1"),
        Err(CacheError::Corrupt { .. })
    ));
    put_raw(&cache, &key, br#"[1, 2]"#);
    assert!(matches!(
        cache.lookup(&key, "hash-1"),
        Err(CacheError::Corrupt { .. })
    ));
    // Saving over it repairs it.
    cache.save(&entry("checkout", "/", "again")).expect("save");
    assert!(cache.lookup(&key, "hash-1").expect("lookup").is_some());
}

#[test]
fn an_entry_of_another_cache_version_is_a_miss_until_replaced() {
    let (_root, cache) = cache();
    let key = CacheKey::new("checkout", "/");
    put_raw(
        &cache,
        &key,
        br#"{"cache_version":"0.1","plan":"whatever"}"#,
    );
    assert_eq!(cache.lookup(&key, "hash-1").expect("lookup"), None);
    assert_eq!(cache.list().expect("list"), Vec::new());
    assert_eq!(cache.clear(None).expect("clear"), 1);
}

#[test]
fn the_stored_value_is_the_entry_json() {
    let (_root, cache) = cache();
    let mut saved = entry("checkout", "/", "Buy a mug");
    saved.stats.runs = 3;
    cache.save(&saved).expect("save");
    let store = open_store(&cache);
    let raw = store
        .active
        .get(keys::active(&saved.key))
        .expect("a read")
        .expect("a value");
    store.close().expect("closed");
    let value: Value = serde_json::from_slice(&raw).expect("JSON");
    insta::assert_json_snapshot!("stored_entry", value);
}

#[test]
fn a_held_store_is_waited_for_then_reported_busy() {
    let (_root, cache) = cache();
    cache
        .save(&entry("checkout", "/", "Buy a mug"))
        .expect("save");
    let held = open_sled(cache.dir()).expect("the store opens");
    // sled's error for a held lock is exactly what the retry recognises.
    let err = config(cache.dir())
        .open()
        .expect_err("a second open of a held store fails");
    assert!(is_lock_held(&err), "{err:?}");

    let waiting = cache.clone().with_lock_wait(Duration::from_millis(300));
    let started = Instant::now();
    let err = waiting
        .lookup(&CacheKey::new("checkout", "/"), "hash-1")
        .expect_err("busy");
    let waited = started.elapsed();
    assert!(matches!(err, CacheError::Busy { .. }), "{err:?}");
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");

    // Released a little later, the store is waited for and the lookup succeeds.
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        drop(held);
    });
    let found = cache
        .lookup(&CacheKey::new("checkout", "/"), "hash-1")
        .expect("lookup after the wait");
    assert!(found.is_some());
    releaser.join().expect("the releaser thread");
}

#[test]
fn other_open_errors_are_not_mistaken_for_the_lock() {
    let (root, _cache) = cache();
    let file = root.path().join("not-a-dir");
    std::fs::write(&file, "x").expect("a file");
    let err = config(&file.join("cache"))
        .open()
        .expect_err("cannot open under a file");
    assert!(!is_lock_held(&err), "{err:?}");
    let err = PlanCache::at(&file.join("cache"))
        .save(&entry("checkout", "/", "Buy a mug"))
        .expect_err("cannot create under a file");
    assert!(matches!(err, CacheError::Open { .. }), "{err:?}");
}

#[test]
fn the_backoff_doubles_to_its_cap_with_jitter_and_stops_at_the_deadline() {
    let start = Instant::now();
    let mut backoff = Backoff::new(start, Duration::from_secs(1), 42);
    let ceilings = [2, 4, 8, 16, 32, 64, 100, 100, 100];
    let mut now = start;
    for ceiling in ceilings {
        let ceiling = Duration::from_millis(ceiling);
        let pause = backoff.pause(now).expect("before the deadline");
        assert!(
            pause >= ceiling / 2 && pause <= ceiling,
            "{pause:?} for {ceiling:?}"
        );
        now += pause;
    }
    let near_end = start + Duration::from_millis(999);
    assert!(backoff.pause(near_end).expect("a last pause") <= Duration::from_millis(1));
    assert_eq!(backoff.pause(start + Duration::from_secs(1)), None);
    // Two seeds do not pause in step.
    let mut a = Backoff::new(start, Duration::from_secs(1), 1);
    let mut b = Backoff::new(start, Duration::from_secs(1), 2);
    let a: Vec<_> = (0..6).map(|_| a.pause(start)).collect();
    let b: Vec<_> = (0..6).map(|_| b.pause(start)).collect();
    assert_ne!(a, b);
}

#[test]
fn keys_of_one_scenario_share_a_prefix_no_other_id_has() {
    let short = keys::active(&CacheKey::new("a", "b/c"));
    let long = keys::active(&CacheKey::new("ab", "/c"));
    assert!(!long.starts_with(&keys::scenario("a")));
    assert!(short.starts_with(&keys::scenario("a")));
    assert_eq!(keys::split(&short).map(|(id, _)| id), Some("a".to_owned()));
    assert_eq!(keys::stale_seq(&keys::stale("a", 7)), Some(7));
    assert_eq!(keys::split(b"\x00\x00"), None);
}

#[test]
fn error_messages_name_the_store_and_the_next_step() {
    let dir = PathBuf::from("/project/.windup/cache");
    let busy = CacheError::Busy {
        dir: dir.clone(),
        waited: Duration::from_millis(30_012),
    };
    insta::assert_snapshot!("busy", busy);
    let corrupt = CacheError::Corrupt {
        dir: dir.clone(),
        scenario_id: "checkout".to_owned(),
        key: "\"checkout\" at /cart".to_owned(),
        message: "not JSON (EOF while parsing an object at line 1 column 12)".to_owned(),
    };
    insta::assert_snapshot!("corrupt", corrupt);
    let missing = CacheError::NoActiveEntry {
        dir,
        key: "\"checkout\" at /".to_owned(),
    };
    insta::assert_snapshot!("no_active_entry", missing);
}

#[test]
fn a_snapshot_left_unfinished_by_a_killed_process_does_not_break_the_store() {
    let (_root, cache) = cache();
    let saved = entry("checkout", "/", "Buy a mug");
    cache.save(&saved).expect("save");
    // What a process killed while sled writes its snapshot leaves behind.
    let leftover = cache.dir().join("snap.FFFFFFFFFFFFFFF0.generating");
    std::fs::write(&leftover, b"").expect("a leftover snapshot");
    let err = open_sled(cache.dir()).expect_err("sled 0.34 alone cannot open the store");
    assert!(matches!(err, sled::Error::Corruption { .. }), "{err:?}");

    let found = cache.lookup(&saved.key, "hash-1").expect("lookup");
    assert_eq!(found, Some(saved));
    assert!(!leftover.exists());
}

#[test]
fn large_plans_saved_over_and_over_leave_no_files_behind() {
    let (_root, cache) = cache();
    // About 160 KB of JSON: more than a page sled 0.34 keeps in its log by default.
    let large = |generation: usize| {
        let mut saved = entry("large", "/", &format!("plan {generation}"));
        let template = saved.plan.actions[0].clone();
        saved.plan.actions = (0..400)
            .map(|index| {
                let mut action = template.clone();
                action.id = format!("a{index}");
                action.value = Some(format!("{generation:>300}"));
                action
            })
            .collect();
        saved
    };
    for generation in 0..40 {
        cache.save(&large(generation)).expect("save");
    }
    let found = cache
        .lookup(&CacheKey::new("large", "/"), "hash-1")
        .expect("lookup")
        .expect("a hit");
    assert_eq!(found, large(39));
    let blobs = std::fs::read_dir(cache.dir().join("blobs")).expect("the blobs directory");
    assert_eq!(blobs.count(), 0, "no page went to a blob file");
    let log = std::fs::metadata(cache.dir().join("db"))
        .expect("the log")
        .len();
    assert!(log <= 16 << 20, "the log stays small: {log} bytes");
}

#[test]
fn a_store_created_with_sleds_default_segment_size_still_opens() {
    let (_root, cache) = cache();
    let saved = entry("checkout", "/", "Buy a mug");
    {
        let db = sled::Config::new()
            .path(cache.dir())
            .open()
            .expect("a store as sled creates it by default");
        let active = db.open_tree("active").expect("the active tree");
        active
            .insert(
                keys::active(&saved.key),
                serde_json::to_vec(&saved).expect("JSON"),
            )
            .expect("an insert");
        db.flush().expect("a flush");
    }
    let found = cache.lookup(&saved.key, "hash-1").expect("lookup");
    assert_eq!(found, Some(saved.clone()));
    cache
        .record_run(&saved.key, true, "2025-06-01T12:00:00Z", 7)
        .expect("record");
}

#[test]
fn a_store_held_by_another_windup_process_is_waited_for_then_reported_busy() {
    use std::os::fd::AsRawFd;

    let (_root, cache) = cache();
    let saved = entry("checkout", "/", "Buy a mug");
    cache.save(&saved).expect("save");
    let lock = std::fs::File::options()
        .write(true)
        .open(cache.dir().join("windup.lock"))
        .expect("the lock file");
    // SAFETY: flock only uses the descriptor, which `lock` keeps open.
    let locked = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(locked, 0, "the test takes the lock");

    let started = Instant::now();
    let err = cache
        .clone()
        .with_lock_wait(Duration::from_millis(200))
        .lookup(&saved.key, "hash-1")
        .expect_err("busy");
    assert!(matches!(err, CacheError::Busy { .. }), "{err:?}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(200), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");

    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        drop(lock);
    });
    let started = Instant::now();
    let found = cache
        .lookup(&saved.key, "hash-1")
        .expect("lookup after the wait");
    assert_eq!(found, Some(saved));
    assert!(started.elapsed() >= Duration::from_millis(50));
    releaser.join().expect("the releaser thread");
}
