import { render } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import './style.css';

// Seeded bugs, switched on at run time by the server's bugs.js (window.__BUGS__).
const bug = (id) => (window.__BUGS__ || []).includes(id);

const COLUMNS = [
  { id: 'todo', title: 'To do' },
  { id: 'doing', title: 'Doing' },
  { id: 'done', title: 'Done' },
];

let lastId = 0;

// A control made of a div, as many boards have: a click, or Enter/Space while focused.
function Act({ className, label, onAct, children }) {
  return (
    <div
      className={className}
      role="button"
      tabIndex={0}
      aria-label={label}
      onClick={onAct}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onAct();
        }
      }}
    >
      {children}
    </div>
  );
}

function Card({ card, editing, colIndex, onStartEdit, onEditDone, onMove }) {
  const editor = useRef(null);
  // The edit being made, and whether it already ended (Enter, Escape or blur ends it once).
  const session = useRef(null);

  useLayoutEffect(() => {
    if (editing && editor.current) {
      session.current = { ended: false };
      editor.current.value = card.title;
      editor.current.focus();
      editor.current.select();
    }
  }, [editing]);

  const end = (save) => {
    if (!session.current || session.current.ended) return;
    session.current.ended = true;
    onEditDone(card.id, save ? editor.current.value : null);
  };

  const left = COLUMNS[colIndex - 1];
  const right = COLUMNS[colIndex + 1];
  return (
    <li className={'card' + (editing ? ' editing' : '')}>
      <span className="card-title" title="Double-click to edit" onDblClick={() => onStartEdit(card.id)}>
        {card.title}
      </span>
      {editing && (
        <div className="editor">
          <input
            ref={editor}
            className="edit"
            aria-label="Card title"
            onKeyDown={(e) => {
              if (e.key === 'Enter') end(true);
              else if (e.key === 'Escape') end(bug('escape-saves-edit'));
            }}
            // The bug: a blur to nowhere (no element takes the focus, as when the person clicks
            // the page itself rather than a control) is taken for a cancel. Tab and clicks on
            // the board's controls, which take the focus, still save.
            onBlur={(e) => end(!(bug('blur-drops-edit') && e.relatedTarget === null))}
          />
          <small className="hint">Enter saves · Esc cancels</small>
        </div>
      )}
      <div className="moves">
        {left && (
          <Act className="move move-left" label={`Move to ${left.title}`} onAct={() => onMove(card.id, left.id)}>
            ← {left.title}
          </Act>
        )}
        {right && (
          <Act className="move move-right" label={`Move to ${right.title}`} onAct={() => onMove(card.id, right.id)}>
            {right.title} →
          </Act>
        )}
      </div>
    </li>
  );
}

function Board() {
  const [cards, setCards] = useState([]);
  const [editingId, setEditingId] = useState(null);

  const add = (col, raw) => {
    const title = raw.trim();
    if (!title) return false;
    lastId += 1;
    const id = lastId;
    setCards((prev) => [...prev, { id, title, col }]);
    return true;
  };

  const editDone = (id, value) => {
    setEditingId(null);
    if (value === null) return;
    const title = value.trim();
    if (!title) return; // a blank title is refused: the old one stays
    setCards((prev) => prev.map((c) => (c.id === id ? { ...c, title } : c)));
  };

  const move = (id, col) => setCards((prev) => prev.map((c) => (c.id === id ? { ...c, col } : c)));

  // What the tag input this field was made from does on Backspace in an empty field: the last
  // tag goes. On the board it is the backspace-removes-card bug.
  const dropLast = (col) =>
    setCards((prev) => {
      const last = prev.map((c) => c.col).lastIndexOf(col);
      return last < 0 ? prev : prev.filter((_, i) => i !== last);
    });

  return (
    <main className="board">
      <h1>Board</h1>
      <div className="columns">
        {COLUMNS.map((column, colIndex) => {
          const mine = cards.filter((c) => c.col === column.id);
          return (
            <section className="column" id={`col-${column.id}`} key={column.id}>
              <h2>
                <span className="col-title">{column.title}</span>
                <span className="col-count">{mine.length}</span>
              </h2>
              <ul className="cards">
                {mine.map((card) => (
                  <Card
                    key={card.id}
                    card={card}
                    colIndex={colIndex}
                    editing={editingId === card.id}
                    onStartEdit={setEditingId}
                    onEditDone={editDone}
                    onMove={move}
                  />
                ))}
              </ul>
              <form
                className="add-card"
                onSubmit={(e) => {
                  e.preventDefault();
                  const field = e.currentTarget.elements.title;
                  if (add(column.id, field.value)) field.value = '';
                }}
              >
                <input
                  id={`new-card-${column.id}`}
                  className="new-card"
                  name="title"
                  aria-label={`New card in ${column.title}`}
                  placeholder="Add a card"
                  autoComplete="off"
                  onKeyDown={(e) => {
                    // The bug: a keydown handler adds the card, and so does the form's submit.
                    if (bug('enter-adds-twice') && e.key === 'Enter') add(column.id, e.currentTarget.value);
                    const erase = e.key === 'Backspace';
                    if (bug('backspace-removes-card') && erase && e.currentTarget.value === '') {
                      dropLast(column.id);
                    }
                  }}
                />
                <button type="submit" className="add-button">
                  Add
                </button>
              </form>
            </section>
          );
        })}
      </div>
    </main>
  );
}

render(<Board />, document.getElementById('app'));
