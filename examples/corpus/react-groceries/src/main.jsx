import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import './style.css';

// Seeded bugs, switched on at run time by the server's bugs.js (window.__BUGS__).
const bug = (id) => (window.__BUGS__ || []).includes(id);

// The filter lives in the URL's fragment: "#/needed", "#/bought", anything else is All.
function filterOf(hash) {
  if (hash === '#/needed') return 'needed';
  if (hash === '#/bought') return 'bought';
  return 'all';
}

const FILTERS = [
  { id: 'all', href: '#/', label: 'All' },
  { id: 'needed', href: '#/needed', label: 'Needed' },
  { id: 'bought', href: '#/bought', label: 'Bought' },
];

let lastId = 0;
const needed = (list) => list.filter((item) => !item.bought).length;

function Row({ item, editing, onToggle, onStartEdit, onEditDone, onRemove, onNameHover }) {
  const editor = useRef(null);
  // The edit being made, and whether it already ended (Enter, Escape or blur ends it once).
  const session = useRef(null);
  const [text, setText] = useState(item.name);

  useEffect(() => {
    if (editing) {
      session.current = { ended: false };
      setText(item.name);
      if (editor.current) {
        editor.current.focus();
        editor.current.select();
      }
    }
  }, [editing]);

  const end = (commit) => {
    if (!session.current || session.current.ended) return;
    session.current.ended = true;
    onEditDone(item.id, commit ? editor.current.value : null);
  };

  const boxId = `item-${item.id}`;
  return (
    <li className={(item.bought ? 'bought' : '') + (editing ? ' editing' : '')}>
      <input
        id={boxId}
        className="toggle"
        type="checkbox"
        checked={item.bought}
        onChange={() => onToggle(item.id)}
      />
      <label className="check" htmlFor={boxId} title="Bought" />
      {editing ? (
        <input
          ref={editor}
          className="edit"
          aria-label={`Rename ${item.name}`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') end(true);
            else if (e.key === 'Escape') end(false);
          }}
          onBlur={() => end(true)}
        />
      ) : (
        <span
          className="name"
          title="Double-click to rename"
          onDoubleClick={() => onStartEdit(item.id)}
          onMouseEnter={() => onNameHover(item.id)}
        >
          {item.name}
        </span>
      )}
      <button type="button" className="remove" aria-label={`Remove ${item.name}`} onClick={onRemove}>
        ×
      </button>
    </li>
  );
}

function App() {
  const [items, setItems] = useState([]);
  const [draft, setDraft] = useState('');
  const [filter, setFilter] = useState(() => filterOf(window.location.hash));
  const [editingId, setEditingId] = useState(null);
  // What the counter showed when the list last changed length (the toggle-skips-counter bug).
  const [countedLeft, setCountedLeft] = useState(0);

  useEffect(() => {
    const onHash = () => {
      setFilter(filterOf(window.location.hash));
      if (bug('filter-clears-draft')) setDraft('');
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // The toggle-skips-counter bug's counter: recounted only when the list grows or shrinks.
  useEffect(() => setCountedLeft(needed(items)), [items.length]);

  const add = (e) => {
    e.preventDefault();
    const name = e.currentTarget.elements.name.value.trim();
    if (!name) return;
    lastId += 1;
    const id = lastId;
    setItems((prev) => [...prev, { id, name, bought: false }]);
    setDraft('');
  };

  const toggle = (id) => setItems((prev) => prev.map((it) => (it.id === id ? { ...it, bought: !it.bought } : it)));

  const rename = (id, value) => {
    setEditingId(null);
    if (value === null) return;
    const name = value.trim();
    if (!name) return; // a blank name is refused: the old one stays
    setItems((prev) => prev.map((it) => (it.id === id ? { ...it, name } : it)));
  };

  const shown = items.filter((it) => (filter === 'all' ? true : filter === 'bought' ? it.bought : !it.bought));

  // The remove-takes-last-hovered-name bug: × removes the row whose name the pointer last
  // entered, which is another row when the pointer came to this × without crossing its name.
  const lastNameHovered = useRef(null);

  const remove = (item) => {
    let id = item.id;
    if (bug('remove-takes-last-hovered-name') && lastNameHovered.current !== null) id = lastNameHovered.current;
    setItems((prev) => prev.filter((it) => it.id !== id));
    if (editingId === id) setEditingId(null);
  };

  const left = bug('toggle-skips-counter') ? countedLeft : needed(items);

  return (
    <main className="app">
      <h1>Groceries</h1>
      <form className="add" onSubmit={add}>
        <input
          className="new-item"
          name="name"
          aria-label="New item"
          placeholder="Add an item"
          autoComplete="off"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onFocus={() => {
            // The bug: starting a new item shows the whole list, so the new one is seen when it
            // is added, and the address is left on the filter it was.
            if (bug('focus-shows-all')) setFilter('all');
          }}
        />
        <button type="submit" className="add-button">
          Add
        </button>
      </form>
      <ul className="items">
        {shown.map((item) => (
          <Row
            key={item.id}
            item={item}
            editing={editingId === item.id}
            onToggle={toggle}
            onStartEdit={setEditingId}
            onEditDone={rename}
            onRemove={() => remove(item)}
            onNameHover={(id) => {
              lastNameHovered.current = id;
            }}
          />
        ))}
      </ul>
      {shown.length === 0 && <p className="empty">Nothing here.</p>}
      <footer className="footer">
        <span className="count">
          <strong>{left}</strong> {left === 1 ? 'item' : 'items'} left
        </span>
        <nav className="filters">
          {FILTERS.map((f) => (
            <a key={f.id} href={f.href} className={filter === f.id ? 'selected' : ''}>
              {f.label}
            </a>
          ))}
        </nav>
      </footer>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
