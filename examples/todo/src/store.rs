//! The list's in-memory state: one to-do list per visitor session, and the rules (including
//! the server-side seeded bug) that change it. Both the lists and the sessions are bounded.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::bugs::{Bug, BugSet};

/// The longest title accepted, in characters, after trimming.
pub const MAX_TITLE_CHARS: usize = 200;
/// The most items one session's list holds.
pub const MAX_TODOS: usize = 500;
/// The most sessions kept; creating one more forgets the least recently used.
pub const MAX_SESSIONS: usize = 1000;
/// The width of the title column the `long-title-500` bug stores into.
const BUGGY_COLUMN_CHARS: usize = 100;

/// One item of a list, as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Todo {
    pub id: u64,
    pub title: String,
    pub completed: bool,
}

/// Why a change to a list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TodoError {
    #[error("A to-do needs a title")]
    EmptyTitle,
    #[error("A title can have at most {MAX_TITLE_CHARS} characters")]
    TitleTooLong,
    #[error("The list is full: it holds at most {MAX_TODOS} items")]
    ListFull,
    #[error("No such to-do")]
    NotFound,
    /// What the `long-title-500` bug's too narrow column does to a write.
    #[error("value too long for column \"title\" (at most {BUGGY_COLUMN_CHARS} characters)")]
    ColumnTooNarrow,
}

/// A change to one item; what is absent stays as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub title: Option<String>,
    pub completed: Option<bool>,
}

/// Whether a title is trimmed of `c`: white space as Unicode defines it (Rust's `trim`) or as
/// JavaScript's `String.prototype.trim` does, which adds U+FEFF. Taking both, a stored title
/// never looks blank to either definition; the page's script uses the same set.
fn is_trimmed(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// The trimmed title, if the list may store it.
fn accepted_title(raw: &str, bugs: BugSet) -> Result<String, TodoError> {
    let title = raw.trim_matches(is_trimmed);
    let chars = title.chars().count();
    if chars == 0 {
        return Err(TodoError::EmptyTitle);
    }
    if chars > MAX_TITLE_CHARS {
        return Err(TodoError::TitleTooLong);
    }
    if bugs.contains(Bug::LongTitle500) && chars > BUGGY_COLUMN_CHARS {
        return Err(TodoError::ColumnTooNarrow);
    }
    Ok(title.to_string())
}

/// One visitor's list.
#[derive(Debug, Default)]
pub struct TodoList {
    todos: Vec<Todo>,
    next_id: u64,
    last_used: u64,
}

impl TodoList {
    /// The items, oldest first.
    pub fn todos(&self) -> &[Todo] {
        &self.todos
    }

    pub fn add(&mut self, title: &str, bugs: BugSet) -> Result<Todo, TodoError> {
        let title = accepted_title(title, bugs)?;
        if self.todos.len() >= MAX_TODOS {
            return Err(TodoError::ListFull);
        }
        self.next_id += 1;
        let todo = Todo {
            id: self.next_id,
            title,
            completed: false,
        };
        self.todos.push(todo.clone());
        Ok(todo)
    }

    /// Applies `change` to item `id` whole, or not at all.
    pub fn update(&mut self, id: u64, change: Change, bugs: BugSet) -> Result<Todo, TodoError> {
        let title = change
            .title
            .as_deref()
            .map(|raw| accepted_title(raw, bugs))
            .transpose()?;
        let todo = self
            .todos
            .iter_mut()
            .find(|todo| todo.id == id)
            .ok_or(TodoError::NotFound)?;
        if let Some(title) = title {
            todo.title = title;
        }
        if let Some(completed) = change.completed {
            todo.completed = completed;
        }
        Ok(todo.clone())
    }

    pub fn remove(&mut self, id: u64) -> Result<(), TodoError> {
        let before = self.todos.len();
        self.todos.retain(|todo| todo.id != id);
        if self.todos.len() == before {
            return Err(TodoError::NotFound);
        }
        Ok(())
    }

    /// Marks every item completed or not.
    pub fn set_all(&mut self, completed: bool) {
        for todo in &mut self.todos {
            todo.completed = completed;
        }
    }

    pub fn clear_completed(&mut self) {
        self.todos.retain(|todo| !todo.completed);
    }
}

/// Every session's list, behind one mutex.
#[derive(Debug)]
pub struct Store {
    sessions: HashMap<String, TodoList>,
    max_sessions: usize,
    /// A logical clock: bumped on every visit, it orders sessions by last use.
    clock: u64,
    started_nanos: u128,
    hasher: RandomState,
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Store {
    pub fn new() -> Self {
        Store::with_max_sessions(MAX_SESSIONS)
    }

    /// A store that keeps at most `max_sessions` sessions (at least one).
    pub fn with_max_sessions(max_sessions: usize) -> Self {
        let started_nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        Store {
            sessions: HashMap::new(),
            max_sessions: max_sessions.max(1),
            clock: 0,
            started_nanos,
            hasher: RandomState::new(),
        }
    }

    /// Returns the id of the session named by `cookie`, creating one when there is none (or
    /// it is unknown, or was forgotten); the flag says whether it was created.
    pub fn ensure_session(&mut self, cookie: Option<&str>) -> (String, bool) {
        self.clock += 1;
        if let Some((id, list)) = cookie.and_then(|id| Some((id, self.sessions.get_mut(id)?))) {
            list.last_used = self.clock;
            return (id.to_string(), false);
        }
        if self.sessions.len() >= self.max_sessions {
            self.forget_least_recently_used();
        }
        let id = self.new_session_id();
        let list = TodoList {
            last_used: self.clock,
            ..TodoList::default()
        };
        self.sessions.insert(id.clone(), list);
        (id, true)
    }

    fn forget_least_recently_used(&mut self) {
        let oldest = self
            .sessions
            .iter()
            .min_by_key(|(_, list)| list.last_used)
            .map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            self.sessions.remove(&id);
        }
    }

    /// An id nobody can guess from another one.
    fn new_session_id(&self) -> String {
        let high = self.hasher.hash_one((self.started_nanos, self.clock, 0u8));
        let low = self.hasher.hash_one((self.started_nanos, self.clock, 1u8));
        format!("{high:016x}{low:016x}")
    }

    /// The list of session `id`; a missing one (never expected behind the session layer)
    /// starts empty.
    pub fn list(&mut self, id: &str) -> &mut TodoList {
        self.sessions.entry(id.to_string()).or_default()
    }

    #[cfg(test)]
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_trimmed_and_bounded() {
        let mut list = TodoList::default();
        let todo = list.add("  Buy milk \t", BugSet::none()).unwrap();
        assert_eq!(todo.title, "Buy milk");
        assert_eq!(todo.id, 1);
        assert!(!todo.completed);
        assert_eq!(
            list.add(" \u{a0}\u{feff} ", BugSet::none()),
            Err(TodoError::EmptyTitle)
        );
        assert_eq!(
            list.add("\u{85}\u{3000}", BugSet::none()),
            Err(TodoError::EmptyTitle)
        );
        let longest = "é".repeat(MAX_TITLE_CHARS);
        assert_eq!(list.add(&longest, BugSet::none()).unwrap().title, longest);
        let too_long = "x".repeat(MAX_TITLE_CHARS + 1);
        assert_eq!(
            list.add(&too_long, BugSet::none()),
            Err(TodoError::TitleTooLong)
        );
        assert_eq!(list.todos().len(), 2);
    }

    #[test]
    fn long_title_bug_refuses_more_than_a_hundred_characters() {
        let bug = BugSet::from(Bug::LongTitle500);
        let mut list = TodoList::default();
        assert!(list.add(&"a".repeat(100), bug).is_ok());
        assert_eq!(
            list.add(&"a".repeat(101), bug),
            Err(TodoError::ColumnTooNarrow)
        );
        assert_eq!(
            list.add(&"a".repeat(201), bug),
            Err(TodoError::TitleTooLong),
            "validation still comes first"
        );
        let id = list.todos()[0].id;
        let rename = Change {
            title: Some("b".repeat(150)),
            completed: Some(true),
        };
        assert_eq!(
            list.update(id, rename.clone(), bug),
            Err(TodoError::ColumnTooNarrow)
        );
        assert!(
            !list.todos()[0].completed,
            "a refused change changes nothing"
        );
        assert_eq!(
            list.update(id, rename, BugSet::none()).unwrap().title.len(),
            150
        );
    }

    #[test]
    fn updates_removals_and_clearing() {
        let mut list = TodoList::default();
        for title in ["one", "two", "three"] {
            list.add(title, BugSet::none()).unwrap();
        }
        let done = Change {
            completed: Some(true),
            ..Change::default()
        };
        assert!(
            list.update(2, done.clone(), BugSet::none())
                .unwrap()
                .completed
        );
        assert_eq!(
            list.update(9, done, BugSet::none()),
            Err(TodoError::NotFound)
        );
        list.clear_completed();
        let titles: Vec<&str> = list.todos().iter().map(|t| t.title.as_str()).collect();
        assert_eq!(titles, ["one", "three"]);
        list.remove(1).unwrap();
        assert_eq!(list.remove(1), Err(TodoError::NotFound));
        list.set_all(true);
        assert!(list.todos().iter().all(|t| t.completed));
        assert_eq!(
            list.add("four", BugSet::none()).unwrap().id,
            4,
            "ids are not reused"
        );
    }

    #[test]
    fn a_list_holds_a_bounded_number_of_items() {
        let mut list = TodoList::default();
        for i in 0..MAX_TODOS {
            list.add(&format!("item {i}"), BugSet::none()).unwrap();
        }
        assert_eq!(
            list.add("one more", BugSet::none()),
            Err(TodoError::ListFull)
        );
        list.remove(1).unwrap();
        assert!(list.add("one more", BugSet::none()).is_ok());
    }

    #[test]
    fn sessions_are_bounded_and_the_least_recently_used_goes_first() {
        let mut store = Store::with_max_sessions(2);
        let (a, created) = store.ensure_session(None);
        assert!(created);
        assert_eq!(a.len(), 32);
        let (b, _) = store.ensure_session(Some("unknown"));
        assert_ne!(a, b);
        assert_eq!(store.ensure_session(Some(&a)), (a.clone(), false));
        let (c, created) = store.ensure_session(None);
        assert!(created);
        assert_eq!(store.session_count(), 2);
        assert_eq!(store.ensure_session(Some(&a)), (a.clone(), false));
        assert_eq!(store.ensure_session(Some(&c)), (c.clone(), false));
        let (again, created) = store.ensure_session(Some(&b));
        assert!(created, "b was forgotten");
        assert_ne!(again, b);
    }
}
