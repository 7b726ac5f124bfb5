//! Where a problem is in a file, rendered the way compilers do: `path:line:column: message`, then
//! what to do about it. Scenario, invariant and configuration errors all read this way.

use std::fmt;
use std::path::Path;

/// The compiler-style rendering shared by scenario and configuration errors.
pub(crate) fn located(
    path: &Path,
    line: usize,
    column: usize,
    message: &str,
    hint: &str,
) -> String {
    Located {
        path,
        line,
        column,
        message,
        hint,
    }
    .to_string()
}

/// `path:line:column: message` then `  hint: …`.
struct Located<'a> {
    path: &'a Path,
    line: usize,
    column: usize,
    message: &'a str,
    hint: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\n  hint: {}", self.hint)?;
        }
        Ok(())
    }
}
