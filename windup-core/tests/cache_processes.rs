//! The plan cache shared by many processes at once, and killed processes in the middle of
//! saves. Each test re-runs this test binary as its child processes: when `CHILD_ENV` is set,
//! the test function is the child.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use windup_core::engine::cache::{CacheEntry, CacheKey, EntryStatus, PlanCache, STALE_KEPT};
use windup_core::model::plan::{
    Action, ActionKind, GeneratedBy, PLAN_VERSION, Plan, Postcondition,
};

const CHILD_ENV: &str = "WINDUP_CACHE_CHILD";
const DIR_ENV: &str = "WINDUP_CACHE_DIR";
const WORKER_ENV: &str = "WINDUP_CACHE_WORKER";
const START_ENV: &str = "WINDUP_CACHE_START_AT_MS";
const ROUND_ENV: &str = "WINDUP_CACHE_ROUND";

const WORKERS: usize = 8;
const ITERATIONS: u64 = 30;
const KILL_ROUNDS: u64 = 25;
const SHARED: &str = "shared";
const HASH: &str = "scenario-hash";

/// A child process that is killed and reaped however the test ends.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this test binary as a child that runs only `test`, with `env` set.
fn spawn_child(test: &str, env: &[(&str, String)]) -> Reaped {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, test)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in env {
        command.env(name, value);
    }
    Reaped(command.spawn().expect("the child test starts"))
}

/// Reads the child's stdout on a thread: each line as it arrives.
fn lines_of(child: &mut Reaped) -> mpsc::Receiver<String> {
    let stdout = child.0.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// What the child reported with `windup-cache NAME=VALUE` (libtest may print before it).
fn reported<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let (_, rest) = line.split_once("windup-cache ")?;
    rest.strip_prefix(name)?.strip_prefix('=')
}

fn is_child(test: &str) -> bool {
    std::env::var(CHILD_ENV).is_ok_and(|child| child == test)
}

fn env_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("the parent sets {name}"))
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

/// Waits until a wall-clock instant the parent chose, so children start together.
fn wait_for_start() {
    let start: u64 = env_var(START_ENV).parse().expect("a start time");
    let now = unix_ms();
    if start > now {
        std::thread::sleep(Duration::from_millis(start - now));
    }
}

/// FNV-1a, to give every saved plan a checksum of its own actions.
fn checksum(actions: &[Action]) -> u64 {
    let json = serde_json::to_vec(actions).expect("actions serialize");
    json.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A plan whose task names its writer and generation and carries its actions' checksum;
/// `actions` sets its size (a hundred actions is about 25 KB of JSON).
fn tagged_plan(scenario_id: &str, tag: &str, actions: usize) -> Plan {
    let actions: Vec<Action> = (0..actions)
        .map(|index| {
            let mut fill = Action::new(format!("a{index}"), ActionKind::Fill);
            fill.value = Some(format!("{tag}/{index}"));
            fill.target = Some(windup_core::model::plan::Target {
                frames: Vec::new(),
                selector: format!("form#checkout [data-testid=\"field-{index}\"] > input.text"),
                identity: windup_core::model::plan::Identity {
                    tag: "input".to_owned(),
                    role: Some("textbox".to_owned()),
                    name: Some(format!("Field number {index} of the checkout form")),
                    label: None,
                    within: None,
                },
            });
            fill.expect = vec![Postcondition::InputValue {
                frames: Vec::new(),
                selector: format!("[data-testid=\"field-{index}\"] input"),
                value: format!("{tag}/{index}"),
            }];
            fill
        })
        .collect();
    Plan {
        plan_version: PLAN_VERSION.to_owned(),
        scenario_id: scenario_id.to_owned(),
        task: format!("{tag} sum={:016x}", checksum(&actions)),
        start_url: "/".to_owned(),
        generated_by: GeneratedBy {
            planner: windup_core::model::plan::PlannerKind::Hand,
            provider: None,
            model: None,
            at: "2025-06-01T12:00:00Z".to_owned(),
        },
        actions,
    }
}

/// Checks that a stored plan is whole: its actions are the ones its task names. Returns the
/// tag it was saved with.
fn whole_tag(entry: &CacheEntry) -> String {
    let plan = &entry.plan;
    let (tag, sum) = plan
        .task
        .split_once(" sum=")
        .unwrap_or_else(|| panic!("a tagged task, got {:?}", plan.task));
    assert_eq!(
        sum,
        format!("{:016x}", checksum(&plan.actions)),
        "the actions of {tag} are the ones it was saved with"
    );
    for (index, action) in plan.actions.iter().enumerate() {
        assert_eq!(
            action.value.as_deref(),
            Some(format!("{tag}/{index}").as_str())
        );
    }
    assert_eq!(plan.scenario_id, entry.key.scenario_id);
    tag.to_owned()
}

#[test]
fn eight_processes_share_one_store_without_lock_errors_or_lost_runs() {
    const TEST: &str = "eight_processes_share_one_store_without_lock_errors_or_lost_runs";
    if is_child(TEST) {
        let cache = PlanCache::at(Path::new(&env_var(DIR_ENV)));
        let worker = env_var(WORKER_ENV);
        let own = CacheKey::new(format!("worker-{worker}"), "/");
        let shared = CacheKey::new(SHARED, "/");
        wait_for_start();
        let started = Instant::now();
        let mut slowest = Duration::ZERO;
        let mut timed = |op: &mut dyn FnMut()| {
            let at = Instant::now();
            op();
            slowest = slowest.max(at.elapsed());
        };
        for generation in 0..ITERATIONS {
            let tag = format!("worker-{worker}/{generation}");
            let plan = tagged_plan(&own.scenario_id, &tag, 20 + generation as usize);
            timed(&mut || {
                cache
                    .save(&CacheEntry::new(own.clone(), HASH, plan.clone()))
                    .expect("save");
            });
            timed(&mut || {
                let found = cache.lookup(&own, HASH).expect("lookup").expect("own hit");
                assert_eq!(whole_tag(&found), tag);
            });
            timed(&mut || {
                cache
                    .record_run(&own, true, "2025-06-01T12:00:00Z", generation)
                    .expect("record own run");
            });
            timed(&mut || {
                let found = cache
                    .lookup(&shared, HASH)
                    .expect("lookup")
                    .expect("shared hit");
                whole_tag(&found);
            });
            timed(&mut || {
                cache
                    .record_run(&shared, generation % 2 == 0, "2025-06-01T12:00:00Z", 1)
                    .expect("record shared run");
            });
        }
        println!(
            "windup-cache timing={}/{}",
            started.elapsed().as_millis(),
            slowest.as_millis()
        );
        return;
    }

    let dir = tempfile::tempdir().expect("a temp dir");
    let store = dir.path().join("cache");
    let cache = PlanCache::at(&store);
    let shared = CacheKey::new(SHARED, "/");
    cache
        .save(&CacheEntry::new(
            shared.clone(),
            HASH,
            tagged_plan(SHARED, "shared", 40),
        ))
        .expect("the shared entry is saved");

    let started = Instant::now();
    let start_at = (unix_ms() + 500).to_string();
    let mut children: Vec<_> = (0..WORKERS)
        .map(|worker| {
            let mut child = spawn_child(
                TEST,
                &[
                    (DIR_ENV, store.display().to_string()),
                    (WORKER_ENV, worker.to_string()),
                    (START_ENV, start_at.clone()),
                ],
            );
            let lines = lines_of(&mut child);
            (child, lines)
        })
        .collect();
    let mut timings = Vec::new();
    for (worker, (child, lines)) in children.iter_mut().enumerate() {
        let status = child.0.wait().expect("reap the worker");
        assert!(status.success(), "worker {worker} failed: {status}");
        let timing = lines
            .iter()
            .find_map(|line| reported(&line, "timing").map(str::to_owned))
            .unwrap_or_else(|| panic!("worker {worker} reported no timing"));
        timings.push(timing);
    }
    println!(
        "8 workers x {ITERATIONS} iterations: {:?} in all; per worker total/slowest op ms: {timings:?}",
        started.elapsed()
    );

    let entries = cache.list().expect("the store lists");
    assert_eq!(entries.len(), WORKERS + 1, "{entries:#?}");
    for worker in 0..WORKERS {
        let key = CacheKey::new(format!("worker-{worker}"), "/");
        let found = cache.lookup(&key, HASH).expect("lookup").expect("a hit");
        assert_eq!(
            whole_tag(&found),
            format!("worker-{worker}/{}", ITERATIONS - 1)
        );
        assert_eq!(found.stats.runs, 1, "each save starts the stats afresh");
    }
    let found = cache.lookup(&shared, HASH).expect("lookup").expect("a hit");
    whole_tag(&found);
    assert_eq!(
        found.stats.runs,
        WORKERS as u64 * ITERATIONS,
        "no run was lost"
    );
    assert_eq!(found.stats.passes, WORKERS as u64 * ITERATIONS / 2);
}

#[test]
fn eight_processes_create_a_new_store_at_once() {
    const TEST: &str = "eight_processes_create_a_new_store_at_once";
    if is_child(TEST) {
        let cache = PlanCache::at(Path::new(&env_var(DIR_ENV)));
        let worker = env_var(WORKER_ENV);
        let key = CacheKey::new(format!("worker-{worker}"), "/");
        wait_for_start();
        let plan = tagged_plan(&key.scenario_id, &format!("worker-{worker}"), 5);
        cache
            .save(&CacheEntry::new(key, HASH, plan))
            .expect("save into a new store");
        return;
    }

    let dir = tempfile::tempdir().expect("a temp dir");
    let store = dir.path().join(".windup").join("cache");
    let start_at = (unix_ms() + 400).to_string();
    let mut children: Vec<_> = (0..WORKERS)
        .map(|worker| {
            spawn_child(
                TEST,
                &[
                    (DIR_ENV, store.display().to_string()),
                    (WORKER_ENV, worker.to_string()),
                    (START_ENV, start_at.clone()),
                ],
            )
        })
        .collect();
    for (worker, child) in children.iter_mut().enumerate() {
        let status = child.0.wait().expect("reap the worker");
        assert!(status.success(), "worker {worker} failed: {status}");
    }
    let ids: BTreeSet<_> = PlanCache::at(&store)
        .list()
        .expect("the store lists")
        .iter()
        .map(|entry| {
            whole_tag(entry);
            entry.key.scenario_id.clone()
        })
        .collect();
    let expected: BTreeSet<_> = (0..WORKERS)
        .map(|worker| format!("worker-{worker}"))
        .collect();
    assert_eq!(ids, expected);
    let leftovers: Vec<PathBuf> = std::fs::read_dir(dir.path().join(".windup"))
        .expect("the .windup directory")
        .map(|item| item.expect("an entry").path())
        .filter(|path| path != &store)
        .collect();
    assert_eq!(
        leftovers,
        Vec::<PathBuf>::new(),
        "no half-created store is left"
    );
}

/// The keys the killed saver writes: plain saves of three sizes (up to about 100 KB of JSON),
/// and one it saves, records a run of and marks stale each generation.
const SAVED: [(&str, usize); 3] = [("small", 3), ("medium", 60), ("large", 400)];
const FLIPPED: &str = "flipped";

#[test]
fn a_process_killed_during_saves_leaves_every_entry_whole() {
    const TEST: &str = "a_process_killed_during_saves_leaves_every_entry_whole";
    if is_child(TEST) {
        let cache = PlanCache::at(Path::new(&env_var(DIR_ENV)));
        let round = env_var(ROUND_ENV);
        println!("windup-cache ready=1");
        for generation in 0.. {
            for (id, size) in SAVED {
                let tag = format!("{id}/{round}/{generation}");
                let entry =
                    CacheEntry::new(CacheKey::new(id, "/"), HASH, tagged_plan(id, &tag, size));
                cache.save(&entry).expect("save");
                println!("windup-cache saved={id} {generation}");
            }
            let flipped = CacheKey::new(FLIPPED, "/");
            let tag = format!("{FLIPPED}/{round}/{generation}");
            cache
                .save(&CacheEntry::new(
                    flipped.clone(),
                    HASH,
                    tagged_plan(FLIPPED, &tag, 40),
                ))
                .expect("save");
            cache
                .record_run(&flipped, false, "2025-06-01T12:00:00Z", generation)
                .expect("record run");
            cache.mark_stale(&flipped, &tag).expect("mark stale");
        }
        return;
    }

    let dir = tempfile::tempdir().expect("a temp dir");
    let store = dir.path().join("cache");
    let cache = PlanCache::at(&store);
    let mut seed = u64::from(std::process::id()) ^ unix_ms();
    let mut random = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    // More rounds for a soak run: WINDUP_CACHE_KILL_ROUNDS=500.
    let rounds = std::env::var("WINDUP_CACHE_KILL_ROUNDS")
        .ok()
        .and_then(|rounds| rounds.parse().ok())
        .unwrap_or(KILL_ROUNDS);
    let started = Instant::now();
    let mut saves_seen = 0;
    let mut reopen_slowest = Duration::ZERO;
    for round in 0..rounds {
        let mut child = spawn_child(
            TEST,
            &[
                (DIR_ENV, store.display().to_string()),
                (ROUND_ENV, round.to_string()),
            ],
        );
        let lines = lines_of(&mut child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .is_ok_and(|line| reported(&line, "ready").is_some())
        {
            assert!(
                Instant::now() < deadline,
                "round {round}: the saver never started"
            );
        }
        std::thread::sleep(Duration::from_millis(3 + random(200)));
        child.0.kill().expect("SIGKILL the saver");
        let status = child.0.wait().expect("reap the saver");
        // Anything but our SIGKILL means a cache operation failed in the saver.
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "round {round}: the saver {status}"
        );
        // The last generation of each key whose save returned before the kill.
        let mut completed: BTreeMap<String, u64> = BTreeMap::new();
        for line in lines.iter() {
            if let Some((id, generation)) =
                reported(&line, "saved").and_then(|saved| saved.split_once(' '))
            {
                completed.insert(id.to_owned(), generation.parse().expect("a generation"));
                saves_seen += 1;
            }
        }

        let reopened = Instant::now();
        let entries = match cache.list() {
            Ok(entries) => entries,
            Err(err) => {
                // Keep the damaged store as evidence.
                let kept = dir.keep();
                panic!(
                    "round {round}: the store must open and read: {err:?}\n  the store is kept at {}",
                    kept.display()
                );
            }
        };
        reopen_slowest = reopen_slowest.max(reopened.elapsed());
        let mut stale = 0;
        for entry in &entries {
            let tag = whole_tag(entry);
            let mut parts = tag.split('/');
            let (id, saved_round, generation) = (
                parts.next().expect("an id"),
                parts
                    .next()
                    .and_then(|r| r.parse::<u64>().ok())
                    .expect("a round"),
                parts
                    .next()
                    .and_then(|g| g.parse::<u64>().ok())
                    .expect("a generation"),
            );
            assert!(saved_round <= round, "{tag}");
            if entry.key.scenario_id == FLIPPED {
                if entry.status == EntryStatus::Stale {
                    stale += 1;
                    assert_eq!(entry.failure.as_deref(), Some(tag.as_str()));
                }
                continue;
            }
            assert_eq!(entry.status, EntryStatus::Active);
            if saved_round == round {
                // Old or new: the last completed save, or the one that was cut off.
                let done = completed.get(id).copied();
                let newest_possible = done.map_or(0, |done| done + 1);
                assert!(
                    done.is_none_or(|done| generation >= done) && generation <= newest_possible,
                    "round {round}: {id} holds generation {generation}, completed {done:?}"
                );
            } else if let Some(done) = completed.get(id) {
                panic!("round {round}: {id} completed generation {done} yet holds {tag}");
            }
        }
        assert!(stale <= STALE_KEPT, "round {round}: {stale} stale entries");
    }
    let blobs = std::fs::read_dir(store.join("blobs")).map_or(0, Iterator::count);
    println!(
        "{rounds} kill rounds in {:?}; {saves_seen} saves completed before the kills; \
         slowest reopen {reopen_slowest:?}; {blobs} sled blob files",
        started.elapsed(),
    );
    assert!(saves_seen > 0, "the saver saved before being killed");
}
