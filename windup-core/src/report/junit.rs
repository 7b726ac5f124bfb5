//! JUnit XML (placeholder: being written).

use super::SuiteReport;

/// The run as JUnit XML.
pub fn junit(_report: &SuiteReport) -> String {
    String::new()
}
