// todos: a TodoMVC-style list. The server keeps the list; this script draws what it answers.
(function () {
  'use strict';

  const app = document.querySelector('.todoapp');
  const newTodo = app.querySelector('.new-todo');
  const error = app.querySelector('.error');
  const main = app.querySelector('.main');
  const toggleAll = app.querySelector('.toggle-all');
  const list = app.querySelector('.todo-list');
  const footer = app.querySelector('.footer');
  const counter = app.querySelector('.todo-count');
  const filterLinks = app.querySelectorAll('.filters a');
  const clearButton = app.querySelector('.clear-completed');

  // The list as the server last answered it, oldest first.
  let todos = [];
  // The item whose title is being edited: { id, input }, or null.
  let editing = null;

  // Blank as the server counts it: JavaScript's white space, and U+0085 that Unicode adds.
  const EDGE_SPACE = /^[\s\u0085]+|[\s\u0085]+$/g;

  function trimmed(text) {
    return text.replace(EDGE_SPACE, '');
  }

  function showError(message) {
    error.textContent = message;
    error.hidden = message === '';
  }

  async function problem(response) {
    try {
      const body = await response.json();
      if (body && typeof body.error === 'string') return body.error;
    } catch (_) {
      // Not JSON: say what the status says.
    }
    return 'Something went wrong (HTTP ' + response.status + '). Please try again.';
  }

  // One request: its JSON answer (null for 204), or undefined once the failure is shown.
  async function request(method, path, body) {
    const init = { method: method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (_) {
      showError('Cannot reach the server. Please try again.');
      return undefined;
    }
    if (!response.ok) {
      showError(await problem(response));
      return undefined;
    }
    return response.status === 204 ? null : response.json();
  }

  async function load() {
    const answer = await request('GET', '/api/todos');
    if (answer === undefined) return;
    todos = answer;
    render();
  }

  // Makes a change on the server and draws the list from its answer; after a refusal, draws
  // the list the server has, so the page never shows a change that did not happen.
  async function change(method, path, body, apply) {
    showError('');
    const answer = await request(method, path, body);
    if (answer === undefined) {
      await load();
      return undefined;
    }
    todos = apply(answer);
    render();
    return answer;
  }

  function replaced(todo) {
    return todos.map(function (t) { return t.id === todo.id ? todo : t; });
  }

  function route() {
    if (location.hash === '#/active') return 'active';
    if (location.hash === '#/completed') return 'completed';
    return 'all';
  }

  function linkFor(filter) {
    return filter === 'all' ? '#/' : '#/' + filter;
  }

  function shown(todo, filter) {
    //> bug active-filter-leaks
    return filter === 'completed' ? todo.completed : true;
    //> else
    if (filter === 'active') return !todo.completed;
    if (filter === 'completed') return todo.completed;
    return true;
    //> end
  }

  function setTitle(label, title) {
    //> bug title-xss
    label.innerHTML = title;
    //> else
    label.textContent = title;
    //> end
  }

  function row(todo) {
    const li = document.createElement('li');
    li.setAttribute('data-id', String(todo.id));
    if (todo.completed) li.className = 'completed';
    const view = document.createElement('div');
    view.className = 'view';
    const toggle = document.createElement('input');
    toggle.className = 'toggle';
    toggle.type = 'checkbox';
    toggle.checked = todo.completed;
    const label = document.createElement('label');
    setTitle(label, todo.title);
    const destroy = document.createElement('button');
    destroy.className = 'destroy';
    destroy.setAttribute('aria-label', 'Delete ' + todo.title);
    view.append(toggle, label, destroy);
    li.append(view);
    return li;
  }

  function render() {
    const filter = route();
    editing = null;
    list.replaceChildren(...todos.filter(function (t) { return shown(t, filter); }).map(row));
    const empty = todos.length === 0;
    main.hidden = empty;
    footer.hidden = empty;
    toggleAll.checked = !empty && todos.every(function (t) { return t.completed; });
    //> bug counter-counts-all
    const left = todos.length;
    //> else
    const left = todos.filter(function (t) { return !t.completed; }).length;
    //> end
    const strong = document.createElement('strong');
    strong.textContent = String(left);
    counter.replaceChildren(strong, left === 1 ? ' item left' : ' items left');
    clearButton.hidden = !todos.some(function (t) { return t.completed; });
    filterLinks.forEach(function (link) {
      link.classList.toggle('selected', link.getAttribute('href') === linkFor(filter));
    });
  }

  function idOf(element) {
    return Number(element.closest('li').getAttribute('data-id'));
  }

  async function addTodo() {
    const title = newTodo.value;
    if (trimmed(title) === '') {
      showError('');
      return;
    }
    const created = await change('POST', '/api/todos', { title: title }, function (todo) {
      return todos.concat([todo]);
    });
    if (created === undefined) return;
    //> bug input-not-cleared
    //> else
    newTodo.value = '';
    //> end
  }

  function remove(id) {
    change('DELETE', '/api/todos/' + id, undefined, function () {
      return todos.filter(function (t) { return t.id !== id; });
    });
  }

  function startEditing(li) {
    const id = Number(li.getAttribute('data-id'));
    const todo = todos.find(function (t) { return t.id === id; });
    if (!todo) return;
    li.classList.add('editing');
    const input = document.createElement('input');
    input.className = 'edit';
    input.value = todo.title;
    input.setAttribute('aria-label', 'Edit ' + todo.title);
    li.append(input);
    editing = { id: id, input: input };
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  // Enter or leaving the field saves; Escape cancels; an emptied title deletes the item.
  function finishEditing(save) {
    const current = editing;
    if (!current) return;
    editing = null;
    const title = trimmed(current.input.value);
    const todo = todos.find(function (t) { return t.id === current.id; });
    if (!save || !todo || todo.title === title) {
      render();
    } else if (title === '') {
      remove(current.id);
    } else {
      change('PATCH', '/api/todos/' + current.id, { title: title }, replaced);
    }
  }

  async function clearCompleted() {
    const remaining = await change('POST', '/api/todos/clear-completed', undefined, function (answer) {
      return answer;
    });
    if (remaining === undefined) return;
    // The button just clicked is hidden now: give focus back to the input once the list is drawn.
    setTimeout(function () {
      //> bug clear-completed-throws
      if (remaining.cleared.length > 0) newTodo.focus();
      //> else
      newTodo.focus();
      //> end
    }, 0);
  }

  newTodo.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && !event.isComposing) addTodo();
  });

  toggleAll.addEventListener('change', function () {
    change('POST', '/api/todos/toggle-all', { completed: toggleAll.checked }, function (answer) {
      return answer;
    });
  });

  list.addEventListener('change', function (event) {
    const toggle = event.target.closest('.toggle');
    if (!toggle) return;
    change('PATCH', '/api/todos/' + idOf(toggle), { completed: toggle.checked }, replaced);
  });

  list.addEventListener('click', function (event) {
    const destroy = event.target.closest('.destroy');
    if (destroy) remove(idOf(destroy));
  });

  list.addEventListener('dblclick', function (event) {
    const label = event.target.closest('.view label');
    if (label) startEditing(label.closest('li'));
  });

  list.addEventListener('keydown', function (event) {
    if (!editing || event.target !== editing.input) return;
    if (event.key === 'Enter' && !event.isComposing) finishEditing(true);
    else if (event.key === 'Escape') finishEditing(false);
  });

  // focusout bubbles where blur does not.
  list.addEventListener('focusout', function (event) {
    if (editing && event.target === editing.input) finishEditing(true);
  });

  clearButton.addEventListener('click', clearCompleted);
  window.addEventListener('hashchange', render);

  render();
  load();
})();
