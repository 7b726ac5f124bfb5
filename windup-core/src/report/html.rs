//! The self-contained HTML report (placeholder: being written).

use super::SuiteReport;

/// The run as one self-contained HTML file.
pub fn html(_report: &SuiteReport) -> std::io::Result<String> {
    Ok(String::new())
}
