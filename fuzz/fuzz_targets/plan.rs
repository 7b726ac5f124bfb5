//! The plan readers: a plan file (a lockfile, a cache entry) and a model's output. A plan either
//! reader takes is written as a lockfile and must read back as the same plan.

#![no_main]

use libfuzzer_sys::fuzz_target;
use windup_core::model::plan::{Plan, Rules, parse_model_output};
use windup_fuzz::{on_worker_stack, text};

fuzz_target!(|data: &[u8]| {
    let Some(input) = text(data) else { return };
    on_worker_stack(|| {
        let rules = Rules::without_account();
        if let Ok(plan) = Plan::from_json_str(input, &rules) {
            reads_back(&plan, &rules);
        }
        let Ok(value) = serde_json::from_str(input) else {
            return;
        };
        if let Ok(plan) = parse_model_output(value, &rules) {
            reads_back(&plan, &rules);
        }
    });
});

fn reads_back(plan: &Plan, rules: &Rules) {
    let written = plan.to_json_pretty();
    match Plan::from_json_str(&written, rules) {
        Ok(read) => assert_eq!(&read, plan, "the plan read back differs:\n{written}"),
        Err(err) => panic!("a plan that was taken does not read back: {err}\n{written}"),
    }
}
