// Lit Notes: a notes app of two Lit web components, each with an open shadow root.
//
// <notes-app> holds the composer (a text field, a character counter, an Add button), the
// All / Pinned filters (hash routing: "#/" and "#/pinned"), a summary and the list; each note is
// a <note-item> with a pin toggle (a visually hidden checkbox behind a styled <label>) and a
// delete button that only shows while the note is hovered.
//
// Rules the app keeps: a note is stored trimmed, a blank note is refused, a note is at most 140
// characters; notes (with their pins) persist in localStorage, and the note being written (the
// draft) persists in sessionStorage, so it survives a filter change, back/forward and a reload;
// Escape discards the draft.
//
// Seeded bugs, switched on at run time by window.__BUGS__ (site/bugs.js):
//   filter-drops-draft  - changing the filter throws the draft away
//   escape-keeps-count  - Escape empties the draft but the counter keeps its old number
//   pin-not-saved       - the pin is not written to localStorage, so a reload unpins every note
//   forward-keeps-filter - the browser's Forward button leaves the list on the filter it was on
import { LitElement, html, css } from 'lit';
import { live } from 'lit/directives/live.js';
import { repeat } from 'lit/directives/repeat.js';

const bug = (id) => (window.__BUGS__ || []).includes(id);

const NOTES_KEY = 'lit-notes.notes';
const DRAFT_KEY = 'lit-notes.draft';
const MAX = 140;

// Characters as a person counts them (code points, not UTF-16 units).
const length = (text) => [...text].length;

function loadNotes() {
  try {
    const list = JSON.parse(localStorage.getItem(NOTES_KEY) || '[]');
    if (!Array.isArray(list)) return [];
    return list
      .filter((n) => n && typeof n.text === 'string' && n.text.trim() !== '' && Number.isInteger(n.id))
      .map((n) => ({ id: n.id, text: n.text, pinned: n.pinned === true }));
  } catch (e) {
    return [];
  }
}

function saveNotes(notes) {
  // The bug: the serializer was written before pins existed and never learnt about them.
  const stored = bug('pin-not-saved')
    ? notes.map(({ id, text }) => ({ id, text }))
    : notes.map(({ id, text, pinned }) => ({ id, text, pinned }));
  try {
    localStorage.setItem(NOTES_KEY, JSON.stringify(stored));
  } catch (e) {
    /* storage full or refused: the notes stay in memory */
  }
}

function loadDraft() {
  try {
    const draft = sessionStorage.getItem(DRAFT_KEY) || '';
    return [...draft].slice(0, MAX).join('');
  } catch (e) {
    return '';
  }
}

function saveDraft(draft) {
  try {
    sessionStorage.setItem(DRAFT_KEY, draft);
  } catch (e) {
    /* ignored */
  }
}

const filterOf = (hash) => (hash === '#/pinned' ? 'pinned' : 'all');

class NoteItem extends LitElement {
  static properties = { note: { attribute: false } };

  static styles = css`
    :host { display: block; }
    .note {
      position: relative; display: flex; align-items: flex-start; gap: 10px;
      background: #fffdf5; border: 1px solid #e4dcc4; border-radius: 8px; padding: 10px 12px;
      box-shadow: 0 1px 2px rgba(0, 0, 0, 0.06);
    }
    .note.pinned { border-color: #d9a400; background: #fff8d8; }
    .text { flex: 1; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.4; }
    /* The checkbox is visually hidden; a person clicks its styled label. */
    .pin-box {
      position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
      overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
    }
    .pin {
      cursor: pointer; user-select: none; font-size: 13px; padding: 2px 8px; border-radius: 12px;
      border: 1px solid #c9bf9f; color: #6b5f3a; background: #fff; white-space: nowrap;
    }
    .pin-box:checked + .pin { background: #d9a400; border-color: #d9a400; color: #fff; }
    .pin-box:focus-visible + .pin { outline: 2px solid #3b6fd8; outline-offset: 2px; }
    /* Shown only while the note is hovered. */
    .delete {
      visibility: hidden; border: 0; background: transparent; color: #a33; font-size: 18px;
      line-height: 1; cursor: pointer; padding: 0 4px;
    }
    .note:hover .delete { visibility: visible; }
  `;

  render() {
    const note = this.note;
    if (!note) return html``;
    return html`
      <div class="note ${note.pinned ? 'pinned' : ''}">
        <input type="checkbox" id="pin" class="pin-box" .checked=${live(note.pinned)} @change=${this.onPin} />
        <label for="pin" class="pin">${note.pinned ? '★ Pinned' : '☆ Pin'}</label>
        <span class="text">${note.text}</span>
        <button type="button" class="delete" title="Delete note" aria-label="Delete note" @click=${this.onDelete}>×</button>
      </div>
    `;
  }

  onPin(e) {
    this.dispatchEvent(new CustomEvent('pin-change', { detail: { id: this.note.id, pinned: e.target.checked } }));
  }

  onDelete() {
    this.dispatchEvent(new CustomEvent('delete-note', { detail: { id: this.note.id } }));
  }
}
customElements.define('note-item', NoteItem);

class NotesApp extends LitElement {
  static properties = {
    notes: { state: true },
    draft: { state: true },
    charCount: { state: true },
    filter: { state: true },
    slide: { state: true },
  };

  static styles = css`
    :host { display: block; max-width: 560px; margin: 32px auto; padding: 0 16px; }
    h1 { font-weight: 600; font-size: 28px; margin: 0 0 16px; color: #5a4a1a; }
    .composer { display: grid; grid-template-columns: 1fr auto auto; gap: 8px; align-items: center; }
    .field-label { grid-column: 1 / -1; font-size: 13px; color: #6b5f3a; }
    .draft { font: inherit; padding: 8px 10px; border: 1px solid #c9bf9f; border-radius: 6px; min-width: 0; }
    .char-count { font-size: 13px; color: #6b5f3a; min-width: 64px; text-align: right; }
    .add {
      font: inherit; padding: 8px 14px; border: 0; border-radius: 6px; background: #5a4a1a; color: #fff;
      cursor: pointer;
    }
    .filters { display: flex; gap: 6px; margin: 18px 0 8px; }
    .filters a {
      text-decoration: none; color: #5a4a1a; padding: 4px 10px; border-radius: 14px; border: 1px solid transparent;
    }
    .filters a.selected { border-color: #5a4a1a; }
    .summary { font-size: 13px; color: #6b5f3a; margin: 0 0 10px; }
    .notes { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; }
    .notes.left, .notes.right { animation: fade-in 120ms ease-out; }
    @keyframes fade-in { from { opacity: 0.4; } to { opacity: 1; } }
    .empty { color: #8a7d58; font-style: italic; }
  `;

  constructor() {
    super();
    this.notes = loadNotes();
    this.draft = loadDraft();
    this.charCount = length(this.draft);
    this.filter = filterOf(location.hash);
    // The first entry's position (kept by a reload, which keeps history.state).
    const state = history.state && Number.isInteger(history.state.pos) ? history.state : null;
    this.pos = state ? state.pos : 0;
    this.slide = '';
    if (!state) history.replaceState({ pos: 0 }, '');
    this.onHash = this.onHash.bind(this);
    this.onPageShow = this.onPageShow.bind(this);
  }

  connectedCallback() {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHash);
    window.addEventListener('pageshow', this.onPageShow);
  }

  disconnectedCallback() {
    window.removeEventListener('hashchange', this.onHash);
    window.removeEventListener('pageshow', this.onPageShow);
    super.disconnectedCallback();
  }

  // Where the page is in the session's history: every entry the app has seen carries its
  // position in history.state, so a change of fragment tells a new entry (a link followed) from
  // Back (a smaller position) and Forward (a larger one), and the list slides the right way.
  onHash() {
    const pos = history.state && Number.isInteger(history.state.pos) ? history.state.pos : null;
    if (pos === null) {
      this.pos += 1;
      history.replaceState({ pos: this.pos }, '');
      this.slide = 'left';
      this.filter = filterOf(location.hash);
    } else if (pos < this.pos) {
      this.pos = pos;
      this.slide = 'right';
      this.filter = filterOf(location.hash);
    } else {
      this.pos = pos;
      this.slide = 'left';
      // The bug: the Forward branch was written for the slide and never reads the address.
      if (!bug('forward-keeps-filter')) this.filter = filterOf(location.hash);
    }
    // The bug: the filter change "resets the form", and the draft with it.
    if (bug('filter-drops-draft')) this.setDraft('');
  }

  // A page restored from the back/forward cache reads its state again.
  onPageShow(e) {
    if (!e.persisted) return;
    this.notes = loadNotes();
    this.setDraft(loadDraft());
    this.filter = filterOf(location.hash);
  }

  setDraft(value) {
    this.draft = value;
    this.charCount = length(value);
    saveDraft(value);
  }

  onDraft(e) {
    this.setDraft(e.target.value);
  }

  onKey(e) {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    // Escape discards the draft. The bug: the counter is left showing the old length.
    this.draft = '';
    if (!bug('escape-keeps-count')) this.charCount = 0;
    saveDraft('');
  }

  add(e) {
    e.preventDefault();
    const input = this.renderRoot.querySelector('.draft');
    const value = input ? input.value : this.draft;
    const text = [...value.trim()].slice(0, MAX).join('');
    if (text === '') return;
    const id = this.notes.reduce((m, n) => Math.max(m, n.id), 0) + 1;
    this.notes = [{ id, text, pinned: false }, ...this.notes];
    saveNotes(this.notes);
    this.setDraft('');
  }

  onPin(e) {
    const { id, pinned } = e.detail;
    this.notes = this.notes.map((n) => (n.id === id ? { ...n, pinned } : n));
    saveNotes(this.notes);
  }

  onDelete(e) {
    this.notes = this.notes.filter((n) => n.id !== e.detail.id);
    saveNotes(this.notes);
  }

  render() {
    const total = this.notes.length;
    const pinned = this.notes.filter((n) => n.pinned).length;
    const shown = this.filter === 'pinned' ? this.notes.filter((n) => n.pinned) : this.notes;
    return html`
      <h1>Notes</h1>
      <form class="composer" @submit=${this.add}>
        <label class="field-label" for="draft">New note</label>
        <input
          id="draft"
          class="draft"
          name="note"
          autocomplete="off"
          maxlength="${MAX}"
          placeholder="Write a note…"
          .value=${live(this.draft)}
          @input=${this.onDraft}
          @change=${this.onDraft}
          @keydown=${this.onKey}
        />
        <span class="char-count" aria-live="polite">${this.charCount} / ${MAX}</span>
        <button type="submit" class="add">Add</button>
      </form>
      <nav class="filters" aria-label="Filter notes">
        <a href="#/" class=${this.filter === 'all' ? 'selected' : ''}>All</a>
        <a href="#/pinned" class=${this.filter === 'pinned' ? 'selected' : ''}>Pinned</a>
      </nav>
      <p class="summary">
        <span class="note-count">${total} ${total === 1 ? 'note' : 'notes'}</span> ·
        <span class="pinned-count">${pinned} pinned</span>
      </p>
      <ul class="notes ${this.slide}">
        ${repeat(
          shown,
          (n) => n.id,
          (n) => html`<li><note-item .note=${n} @pin-change=${this.onPin} @delete-note=${this.onDelete}></note-item></li>`,
        )}
      </ul>
      ${shown.length === 0
        ? html`<p class="empty">${this.filter === 'pinned' ? 'No pinned notes.' : 'No notes yet.'}</p>`
        : ''}
    `;
  }
}
customElements.define('notes-app', NotesApp);
