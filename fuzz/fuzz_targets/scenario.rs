//! The scenario reader: a whole scenario file, then each of its lines as an explicit step and as
//! an expectation.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use windup_core::model::steps::{Step, parse_expectation};
use windup_fuzz::{on_worker_stack, text};

fuzz_target!(|data: &[u8]| {
    let Some(input) = text(data) else { return };
    on_worker_stack(|| {
        let _ = windup_core::model::scenario::parse(
            input,
            Path::new("scenarios/fuzz.yaml"),
            Path::new("scenarios"),
        );
        for line in input.lines() {
            let _ = Step::parse(line, 1);
            let _ = parse_expectation(line);
        }
    });
});
