import { render } from 'solid-js/web';
import { createMemo, createSignal, For, onCleanup, Show } from 'solid-js';
import './style.css';

// Seeded bugs, switched on at run time by the server's bugs.js (window.__BUGS__).
const bug = (id) => (window.__BUGS__ || []).includes(id);

const KEY = 'solid-expenses';
const CATEGORIES = ['Food', 'Travel', 'Home', 'Other'];
// The category filter lives in the URL's fragment; any other fragment shows every category.
const ROUTES = { '#/food': 'Food', '#/travel': 'Travel', '#/home': 'Home', '#/other': 'Other' };
const MAX_CENTS = 100000000; // $1,000,000.00

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const money = (cents) => dollars.format(cents / 100);

const valid = (e) =>
  e && Number.isInteger(e.id) && typeof e.desc === 'string' && Number.isInteger(e.cents)
  && e.cents > 0 && e.cents <= MAX_CENTS && CATEGORIES.includes(e.cat);

function load() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(list) ? list.filter(valid) : [];
  } catch {
    return [];
  }
}

function save(list) {
  try {
    localStorage.setItem(KEY, JSON.stringify(list));
  } catch {
    // Storage full or refused: the list still works for this visit.
  }
}

function App() {
  const [expenses, setExpenses] = createSignal(load());
  let nextId = expenses().reduce((m, e) => Math.max(m, e.id), 0) + 1;
  const categoryOf = () => ROUTES[window.location.hash] || 'All';
  const [filter, setFilter] = createSignal(categoryOf());
  const [error, setError] = createSignal('');

  const onHash = () => setFilter(categoryOf());
  window.addEventListener('hashchange', onHash);
  onCleanup(() => window.removeEventListener('hashchange', onHash));

  // A page put back from the back-forward cache, or a list changed in another tab, shows what
  // storage holds now.
  const reread = () => {
    const list = load();
    nextId = list.reduce((m, e) => Math.max(m, e.id + 1), nextId);
    setExpenses(list);
  };
  const onShow = (e) => e.persisted && reread();
  const onStorage = (e) => e.key === KEY && reread();
  window.addEventListener('pageshow', onShow);
  window.addEventListener('storage', onStorage);
  onCleanup(() => {
    window.removeEventListener('pageshow', onShow);
    window.removeEventListener('storage', onStorage);
  });

  // The back-restores-old-list bug: each history entry keeps a snapshot of the list, and going
  // back or forward to an entry puts its snapshot back.
  const onPop = (e) => {
    if (bug('back-restores-old-list') && e.state && Array.isArray(e.state.expenses)) {
      update(e.state.expenses.filter(valid));
    }
  };
  window.addEventListener('popstate', onPop);
  onCleanup(() => window.removeEventListener('popstate', onPop));

  // `stored` is the list written to storage: the new one, but for the saves-before-add bug.
  const update = (next, stored = next) => {
    setExpenses(next);
    save(stored);
    if (bug('back-restores-old-list')) history.replaceState({ expenses: next }, '');
  };

  const shown = createMemo(() => (filter() === 'All' ? expenses() : expenses().filter((e) => e.cat === filter())));
  const total = createMemo(() => shown().reduce((s, e) => s + e.cents, 0));
  const grand = createMemo(() => expenses().reduce((s, e) => s + e.cents, 0));

  const add = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const raw = form.elements.desc.value;
    const hasDesc = bug('blank-description-accepted') ? raw.length > 0 : raw.trim().length > 0;
    if (!hasDesc) {
      setError('Enter a description.');
      return;
    }
    const typed = form.elements.amount.value.trim();
    const amount = Number(typed);
    if (typed === '' || !Number.isFinite(amount)) {
      setError('Enter an amount.');
      return;
    }
    const cents = Math.round(amount * 100);
    if (cents <= 0 || cents > MAX_CENTS) {
      setError('The amount must be between $0.01 and $1,000,000.00.');
      return;
    }
    const expense = {
      id: nextId++,
      desc: bug('blank-description-accepted') ? raw : raw.trim(),
      cents,
      cat: CATEGORIES.includes(form.elements.category.value) ? form.elements.category.value : 'Other',
    };
    // The saves-before-add bug: the list is saved as it was before the new expense.
    update([...expenses(), expense], bug('saves-before-add') ? expenses() : undefined);
    setError('');
    form.elements.desc.value = '';
    form.elements.amount.value = '';
    form.elements.desc.focus();
  };

  const remove = (id) => update(expenses().filter((e) => e.id !== id));

  const count = (n) => `${n} ${n === 1 ? 'expense' : 'expenses'}`;

  return (
    <main class="app">
      <h1>Expenses</h1>
      <form class="add-expense" onSubmit={add} novalidate>
        <label class="field grow">
          <span>Description</span>
          <input id="desc" name="desc" autocomplete="off" placeholder="Lunch, taxi, …" />
        </label>
        <label class="field">
          <span>Amount ($)</span>
          <input id="amount" name="amount" type="number" step="0.01" min="0.01" inputmode="decimal" placeholder="0.00" />
        </label>
        <label class="field">
          <span>Category</span>
          <select id="category" name="category">
            <For each={CATEGORIES}>{(c) => <option value={c}>{c}</option>}</For>
          </select>
        </label>
        <button type="submit" class="add-button">Add</button>
      </form>
      <Show when={error()}>
        <p class="error" role="alert">{error()}</p>
      </Show>
      <nav class="filters">
        <a href="#/" classList={{ selected: filter() === 'All' }}>All</a>
        <For each={CATEGORIES}>
          {(c) => (
            <a href={`#/${c.toLowerCase()}`} classList={{ selected: filter() === c }}>
              {c}
            </a>
          )}
        </For>
      </nav>
      <ul class="expenses">
        <For each={shown()}>
          {(e) => (
            <li class="expense">
              <span class="desc">{e.desc}</span>
              <span class="cat">{e.cat}</span>
              <span class="amount">{money(e.cents)}</span>
              <button type="button" class="delete" aria-label={`Delete ${e.desc}`} onClick={() => remove(e.id)}>
                ✕
              </button>
            </li>
          )}
        </For>
      </ul>
      <Show when={shown().length === 0}>
        <p class="empty">No expenses here yet.</p>
      </Show>
      <p class="total">
        {filter() === 'All' ? 'Total' : `${filter()} total`} <strong>{money(total())}</strong>
      </p>
      <p class="summary">
        <span class="all-count">{count(expenses().length)}</span> in all: <strong class="grand-total">{money(grand())}</strong>
      </p>
    </main>
  );
}

render(() => <App />, document.getElementById('app'));
