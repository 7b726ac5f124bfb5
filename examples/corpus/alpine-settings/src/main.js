// Preferences: a settings page on Alpine.js (bundled from the npm package).
//
// Three tabs (General, Notifications, Privacy) routed by the URL fragment ("#/general", ...; any
// other fragment shows General). Each setting is a switch: a visually hidden checkbox behind a
// styled <label>. The header says who is signed in and how many options are on ("3 options on").
// General also holds the display name: Save (or Enter) stores it, with its white space folded and
// trimmed, and refuses a blank one; Escape, anywhere on the page, puts back the saved name.
//
// Rules the app keeps: the summary always counts the switches that are on; settings and the
// saved name are kept in localStorage, so back/forward between the tabs and a reload change
// nothing; Escape never saves.
//
// Seeded bugs, switched on at run time by window.__BUGS__ (site/bugs.js):
//   label-click-miscounts      - the summary counts clicks in a row, and a click on a switch's
//                                label is two clicks there (the label's and the checkbox's)
//   escape-saves-name          - Escape saves the name being typed instead of undoing it
//   back-restores-old-settings - back/forward put back the settings as they were when that tab
//                                was opened (a snapshot kept in the history entry)
import Alpine from 'alpinejs';
import './style.css';

const bug = (id) => (window.__BUGS__ || []).includes(id);

const STORE_KEY = 'alpine-settings.v1';
const DEFAULT_NAME = 'Ada Lovelace';

const TABS = [
  { id: 'general', label: 'General' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'privacy', label: 'Privacy' },
];

const OPTIONS = {
  general: [
    { key: 'darkMode', label: 'Dark mode', hint: 'Use a dark colour scheme.', on: false },
    { key: 'compact', label: 'Compact layout', hint: 'Show more on the screen with less spacing.', on: false },
  ],
  notifications: [
    { key: 'emailAlerts', label: 'Email alerts', hint: 'Get an email when something needs you.', on: true },
    { key: 'pushAlerts', label: 'Push notifications', hint: 'Get notified on this device.', on: false },
    { key: 'weeklyDigest', label: 'Weekly digest', hint: 'A summary every Monday morning.', on: true },
  ],
  privacy: [
    { key: 'shareUsage', label: 'Share usage data', hint: 'Help us improve with anonymous statistics.', on: false },
    { key: 'onlineStatus', label: 'Show online status', hint: 'Let others see when you are active.', on: true },
  ],
};

const ALL = Object.values(OPTIONS).flat();

const tabOf = (hash) => {
  const id = String(hash || '').startsWith('#/') ? String(hash).slice(2) : '';
  return TABS.some((t) => t.id === id) ? id : 'general';
};

// A name as stored and shown: white space folded, trimmed.
const normalName = (text) => String(text).replace(/\s+/g, ' ').trim();

function load() {
  const values = Object.fromEntries(ALL.map((o) => [o.key, o.on]));
  let name = DEFAULT_NAME;
  try {
    const stored = JSON.parse(localStorage.getItem(STORE_KEY) || 'null');
    if (stored && typeof stored === 'object') {
      for (const o of ALL) if (typeof stored.values?.[o.key] === 'boolean') values[o.key] = stored.values[o.key];
      if (typeof stored.name === 'string' && normalName(stored.name) !== '') name = normalName(stored.name);
    }
  } catch (e) {
    /* unreadable: defaults */
  }
  return { values, name };
}

const countOn = (values) => ALL.filter((o) => values[o.key] === true).length;

Alpine.data('preferences', () => {
  const stored = load();
  return {
    tabs: TABS,
    tab: tabOf(location.hash),
    values: stored.values,
    name: stored.name,
    nameDraft: stored.name,
    nameError: '',
    status: '',
    // What the summary shows with label-click-miscounts: a tally of clicks in the rows.
    tally: countOn(stored.values),

    init() {
      this.remember('replace');
      window.addEventListener('popstate', (e) => this.onHistory(e));
      window.addEventListener('hashchange', () => {
        this.tab = tabOf(location.hash);
      });
      // A page restored from the back/forward cache reads the stored settings again.
      window.addEventListener('pageshow', (e) => {
        if (!e.persisted) return;
        const again = load();
        this.values = again.values;
        this.name = again.name;
        this.nameDraft = again.name;
        this.tally = countOn(again.values);
        this.tab = tabOf(location.hash);
      });
      this.applyLook();
    },

    get onCount() {
      return countOn(this.values);
    },

    get summary() {
      const n = bug('label-click-miscounts') ? this.tally : this.onCount;
      return `${n} ${n === 1 ? 'option' : 'options'} on`;
    },

    optionsOf(id) {
      return OPTIONS[id] || [];
    },

    // The history entry of a tab remembers the view it showed (its settings too).
    remember(how) {
      const state = { tab: this.tab, values: { ...this.values } };
      if (how === 'replace') history.replaceState(state, '');
      else history.pushState(state, '', '#/' + this.tab);
    },

    openTab(id) {
      if (id === this.tab) return;
      this.tab = id;
      this.remember('push');
    },

    onHistory(e) {
      this.tab = tabOf(location.hash);
      // The bug: the snapshot in the history entry is put back, undoing later changes.
      if (bug('back-restores-old-settings') && e.state && e.state.values) {
        this.values = { ...this.values, ...e.state.values };
        // The count is put back with the settings (else, with label-click-miscounts on too,
        // the summary would hide this bug).
        this.tally = countOn(this.values);
        this.save();
        this.applyLook();
      }
    },

    changed() {
      this.save();
      this.applyLook();
    },

    rowClick(e) {
      if (!bug('label-click-miscounts')) return;
      const input = e.currentTarget.querySelector('.toggle-input');
      this.tally += input && input.checked ? 1 : -1;
    },

    saveName() {
      const name = normalName(this.nameDraft);
      if (name === '') {
        this.nameError = "The display name can't be empty.";
        this.status = '';
        return;
      }
      this.name = name;
      this.nameDraft = name;
      this.nameError = '';
      this.status = 'Saved.';
      this.save();
    },

    revertName() {
      this.nameDraft = this.name;
      this.nameError = '';
      this.status = '';
    },

    onEscape() {
      if (bug('escape-saves-name')) this.saveName();
      else this.revertName();
    },

    save() {
      try {
        localStorage.setItem(STORE_KEY, JSON.stringify({ values: this.values, name: this.name }));
      } catch (e) {
        /* refused: kept in memory */
      }
    },

    applyLook() {
      document.body.classList.toggle('dark', this.values.darkMode === true);
      document.body.classList.toggle('compact', this.values.compact === true);
    },
  };
});

window.Alpine = Alpine;
Alpine.start();
