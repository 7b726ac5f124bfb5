// Capitals quiz: no framework, a hand-written hash router.
//
// On load the router first rewrites the address to `index.html#/` (history.replaceState), before
// anything is drawn; the questions then "load" (a 300 ms timer) and only then is the first
// control drawn. Routes: "#/" the start screen, "#/q/1" … "#/q/5" the questions, "#/result" the
// result; anything else is the start screen. The header shows "Answered A of 5 · Score S" on
// every screen, and a Restart button that asks first (a modal <dialog>: Restart or Cancel).
//
// Rules the app keeps: one answer per question, changing it re-scores (the score is the number
// of questions answered right, so never more than the number answered); Previous/Next, the
// browser's back/forward and a reload keep every answer (kept in sessionStorage); only the
// dialog's Restart button clears them: Cancel and Escape leave them alone.
//
// Seeded bugs, switched on at run time by window.__BUGS__ (site/bugs.js):
//   enter-answers-twice  - choosing with the keyboard (Enter/Space on a focused choice) adds to
//                          the score even when that answer was already chosen
//   back-forgets-answer  - a question reached by the browser's back/forward (not the quiz's own
//                          buttons) is shown afresh: its answer is cleared
//   escape-restarts      - Escape on the Restart dialog restarts the quiz instead of cancelling
import './style.css';

const bug = (id) => (window.__BUGS__ || []).includes(id);

const QUESTIONS = [
  { prompt: 'What is the capital of Australia?', choices: ['Sydney', 'Canberra', 'Melbourne', 'Perth'], answer: 1 },
  { prompt: 'What is the capital of Canada?', choices: ['Toronto', 'Vancouver', 'Ottawa', 'Montreal'], answer: 2 },
  { prompt: 'What is the capital of Brazil?', choices: ['Rio de Janeiro', 'Brasília', 'São Paulo', 'Salvador'], answer: 1 },
  { prompt: 'What is the capital of Kenya?', choices: ['Nairobi', 'Mombasa', 'Kisumu'], answer: 0 },
  { prompt: 'What is the capital of Norway?', choices: ['Bergen', 'Stockholm', 'Oslo', 'Trondheim'], answer: 2 },
];
const TOTAL = QUESTIONS.length;
const STORE_KEY = 'vanilla-quiz.answers';

// The router rewrites the address before anything else happens.
history.replaceState(null, '', 'index.html#/');

const app = document.getElementById('app');
const state = { ready: false, answers: loadAnswers(), score: 0 };
state.score = scoreOf(state.answers);

function loadAnswers() {
  const empty = QUESTIONS.map(() => null);
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORE_KEY) || 'null');
    if (!Array.isArray(stored) || stored.length !== TOTAL) return empty;
    return stored.map((a, q) => (Number.isInteger(a) && a >= 0 && a < QUESTIONS[q].choices.length ? a : null));
  } catch (e) {
    return empty;
  }
}

function save() {
  try {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(state.answers));
  } catch (e) {
    /* kept in memory */
  }
}

function scoreOf(answers) {
  return answers.filter((a, q) => a === QUESTIONS[q].answer).length;
}

const answeredCount = () => state.answers.filter((a) => a !== null).length;

// --- routing ---------------------------------------------------------------------------------

function routeOf(hash) {
  const q = /^#\/q\/([1-9][0-9]*)$/.exec(hash);
  if (q && Number(q[1]) <= TOTAL) return { name: 'question', q: Number(q[1]) - 1 };
  if (hash === '#/result') return { name: 'result' };
  return { name: 'start' };
}

// Set while the quiz's own buttons move: a hashchange without it came from the browser
// (back/forward) or a link.
let ownMove = false;

function go(hash) {
  if (location.hash === hash) {
    render();
    return;
  }
  ownMove = true;
  location.hash = hash;
}

window.addEventListener('hashchange', () => {
  const own = ownMove;
  ownMove = false;
  const route = routeOf(location.hash);
  // The bug: a question opened from the history is "started again".
  if (!own && route.name === 'question' && bug('back-forgets-answer') && state.answers[route.q] !== null) {
    if (state.answers[route.q] === QUESTIONS[route.q].answer) state.score -= 1;
    state.answers[route.q] = null;
    save();
  }
  render();
});

// A page restored from the back/forward cache reads the answers again.
window.addEventListener('pageshow', (e) => {
  if (!e.persisted) return;
  state.answers = loadAnswers();
  state.score = scoreOf(state.answers);
  render();
});

// --- answering -------------------------------------------------------------------------------

function choose(q, i) {
  const prev = state.answers[q];
  if (prev === i) return;
  if (prev === QUESTIONS[q].answer) state.score -= 1;
  state.answers[q] = i;
  if (i === QUESTIONS[q].answer) state.score += 1;
  save();
  render();
}

// The keyboard's way to choose. The bug: written apart from choose(), it forgot to ignore the
// answer already chosen, so Enter on the chosen right answer scores it again.
function chooseByKey(q, i) {
  if (!bug('enter-answers-twice')) {
    choose(q, i);
    return;
  }
  const prev = state.answers[q];
  if (prev === QUESTIONS[q].answer && prev !== i) state.score -= 1;
  state.answers[q] = i;
  if (i === QUESTIONS[q].answer) state.score += 1;
  save();
  render();
}

function restart() {
  state.answers = QUESTIONS.map(() => null);
  state.score = 0;
  save();
  go('#/');
}

// --- the restart dialog ----------------------------------------------------------------------

const dialog = el('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' }, [
  el('form', { method: 'dialog' }, [
    el('h2', { id: 'confirm-title' }, 'Restart the quiz?'),
    el('p', {}, 'Your answers will be cleared.'),
    el('div', { class: 'dialog-buttons' }, [
      el('button', { value: 'cancel', class: 'cancel', autofocus: '' }, 'Cancel'),
      el('button', { value: 'restart', class: 'confirm-restart' }, 'Restart'),
    ]),
  ]),
]);
document.body.appendChild(dialog);

dialog.addEventListener('close', () => {
  // Escape closes the dialog with no return value. The bug: anything but "cancel" restarts.
  const confirmed = bug('escape-restarts') ? dialog.returnValue !== 'cancel' : dialog.returnValue === 'restart';
  if (confirmed) restart();
});

function askRestart() {
  if (dialog.open) return;
  dialog.returnValue = '';
  dialog.showModal();
}

// --- drawing ---------------------------------------------------------------------------------

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function header() {
  return el('header', { class: 'bar' }, [
    el('h1', {}, 'Capitals quiz'),
    el('p', { class: 'status' }, [
      'Answered ', el('span', { class: 'answered' }, String(answeredCount())), ` of ${TOTAL} · Score `,
      el('span', { class: 'score' }, String(state.score)),
    ]),
    el('button', { type: 'button', class: 'restart', onclick: askRestart }, 'Restart'),
  ]);
}

function startScreen() {
  const answered = answeredCount();
  const firstOpen = state.answers.findIndex((a) => a === null);
  const target = answered === 0 ? 1 : (firstOpen === -1 ? TOTAL : firstOpen + 1);
  return el('section', { class: 'screen start' }, [
    el('h2', {}, answered === 0 ? 'Ready?' : 'Welcome back'),
    el('p', {}, `${TOTAL} questions about capital cities. Change an answer as often as you like.`),
    el('button', { type: 'button', class: 'primary start-quiz', onclick: () => go(`#/q/${target}`) },
      answered === 0 ? 'Start quiz' : 'Continue'),
  ]);
}

function questionScreen(q) {
  const question = QUESTIONS[q];
  const chosen = state.answers[q];
  return el('section', { class: 'screen question' }, [
    el('p', { class: 'q-number' }, `Question ${q + 1} of ${TOTAL}`),
    el('h2', { id: 'q-title' }, question.prompt),
    el('div', { class: 'choices', role: 'radiogroup', 'aria-labelledby': 'q-title' },
      question.choices.map((text, i) => el('div', {
        class: 'choice' + (chosen === i ? ' chosen' : ''),
        role: 'radio',
        tabindex: '0',
        'aria-checked': chosen === i ? 'true' : 'false',
        'data-focus': `q${q}c${i}`,
        onclick: () => choose(q, i),
        onkeydown: (e) => {
          if (e.key !== 'Enter' && e.key !== ' ') return;
          e.preventDefault();
          chooseByKey(q, i);
        },
      }, text))),
    el('nav', { class: 'moves' }, [
      el('button', { type: 'button', class: 'previous', 'data-focus': 'previous', onclick: () => go(q === 0 ? '#/' : `#/q/${q}`) }, 'Previous'),
      el('button', { type: 'button', class: 'primary next', 'data-focus': 'next', onclick: () => go(q === TOTAL - 1 ? '#/result' : `#/q/${q + 2}`) },
        q === TOTAL - 1 ? 'See result' : 'Next'),
    ]),
  ]);
}

function resultScreen() {
  return el('section', { class: 'screen result' }, [
    el('h2', {}, ['You scored ', el('span', { class: 'final-score' }, String(state.score)), ` of ${TOTAL}`]),
    el('ol', { class: 'review' }, QUESTIONS.map((question, q) => {
      const a = state.answers[q];
      const mark = a === null ? 'not answered' : (a === question.answer ? 'right' : 'wrong');
      return el('li', { class: `review-item ${mark.replace(' ', '-')}` }, [
        el('a', { href: `#/q/${q + 1}` }, question.prompt), ' ',
        el('span', { class: 'mark' }, a === null ? '(not answered)' : `${question.choices[a]}: ${mark}`),
      ]);
    })),
    el('button', { type: 'button', class: 'primary', onclick: askRestart }, 'Restart quiz'),
  ]);
}

function render() {
  if (!state.ready) {
    app.replaceChildren(el('p', { class: 'loading' }, 'Loading questions…'));
    return;
  }
  const focused = document.activeElement && document.activeElement.getAttribute && document.activeElement.getAttribute('data-focus');
  const route = routeOf(location.hash);
  const screen = route.name === 'question' ? questionScreen(route.q) : route.name === 'result' ? resultScreen() : startScreen();
  app.replaceChildren(header(), screen);
  // A redraw keeps the focus where it was (a choice chosen with the keyboard stays focused).
  if (focused) {
    const again = app.querySelector(`[data-focus="${focused}"]`);
    if (again) again.focus();
  }
}

render();
setTimeout(() => {
  state.ready = true;
  render();
}, 300);
