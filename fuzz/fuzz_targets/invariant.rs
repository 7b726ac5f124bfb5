//! The invariants file reader (`invariants/*.yaml`), and each predicate it takes checked against
//! an empty page.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use windup_core::model::invariant::Observation;
use windup_fuzz::{on_worker_stack, text};

fuzz_target!(|data: &[u8]| {
    let Some(input) = text(data) else { return };
    on_worker_stack(|| {
        let Ok(invariants) =
            windup_core::model::invariant::parse(input, Path::new("invariants/fuzz.yaml"))
        else {
            return;
        };
        let page = Observation::default();
        for invariant in invariants {
            let predicates = std::iter::once(&invariant.predicate).chain(&invariant.when);
            for predicate in predicates {
                let _ = predicate.check(&page, Some(&page), None);
            }
        }
    });
});
