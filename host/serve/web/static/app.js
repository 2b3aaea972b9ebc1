// The page: a token, the token's sessions, and one session watched live.
import {follow, authHeaders, errorText} from './sse.js';
import {SessionModel, visible} from './model.js';
import * as view from './view.js';

const TOKEN_KEY = 'wasmagent.token';
const $ = (id) => document.getElementById(id);

let token = sessionStorage.getItem(TOKEN_KEY) || '';
let watching = null; // {id, model, abort, timer}

// api calls the server at a path relative to the page, so that the page
// works behind a reverse proxy under any prefix.
async function api(path) {
  const res = await fetch(path, {headers: authHeaders(token, {Accept: 'application/json'}), cache: 'no-store', credentials: 'omit'});
  if (!res.ok) {
    const err = new Error(await errorText(res));
    err.status = res.status;
    throw err;
  }
  return res.json();
}

// say sets a status line; an unchanged line is left alone, so that
// screen readers do not announce it again.
function say(id, text) {
  const t = visible(text);
  if ($(id).textContent !== t) $(id).textContent = t;
}

function showAuth(why) {
  $("token").focus();
  say('auth-status', why);
}

async function loadSessions() {
  say('sessions-status', 'Loading…');
  let body;
  try {
    body = await api('v1/sessions');
  } catch (err) {
    if (err.status === 401) {
      showAuth(token ? `The server refused this token: ${err.message}` : 'This server needs a token.');
      say('sessions-status', 'No token accepted yet.');
    } else {
      say('sessions-status', `Could not list the sessions: ${err.message}`);
    }
    return;
  }
  const list = Array.isArray(body) ? body : Array.isArray(body && body.sessions) ? body.sessions : [];
  const ul = $('sessions');
  ul.replaceChildren(...list.filter((s) => s && typeof s.id === 'string').map(sessionItem));
  say('sessions-status', list.length === 0 ? 'No sessions yet.' : `${list.length} session${list.length === 1 ? '' : 's'}.`);
}

function sessionItem(s) {
  const title = s.name || s.firstMessage || s.id;
  const a = view.el('a', {href: '#session=' + encodeURIComponent(s.id), 'aria-current': watching && watching.id === s.id ? 'page' : null},
    view.el('span', {class: 'title'}, String(title).slice(0, 120)));
  const meta = [s.isStreaming ? 'running' : null, Number.isFinite(s.messageCount) ? `${s.messageCount} messages` : null,
    s.modified ? new Date(s.modified).toLocaleString() : null].filter(Boolean).join(' · ');
  return view.el('li', {}, a, view.el('span', {class: 'meta'}, meta));
}

function sessionFromHash() {
  const m = /^#session=([^&]*)$/.exec(location.hash);
  if (!m) return '';
  try {
    return decodeURIComponent(m[1]);
  } catch (_) {
    return '';
  }
}

function watch(id) {
  if (watching) {
    watching.abort.abort();
    clearTimeout(watching.timer);
  }
  watching = null;
  $('session').hidden = !id;
  if (!id) return;
  const w = {id, model: new SessionModel(), abort: new AbortController(), timer: 0, wasRunning: false, drawn: {messages: 0, turns: new Map(), ids: new Map()}};
  watching = w;
  say('session-title', `Session ${id}`);
  $('turns').replaceChildren();
  $('conversation').replaceChildren();
  for (const a of document.querySelectorAll('#sessions a')) {
    if (a.getAttribute('href') === '#session=' + encodeURIComponent(id)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const url = `v1/sessions/${encodeURIComponent(id)}/events`;
  follow(url, token, w.abort.signal, {
    event(e) {
      if (e.type !== 'message') return;
      let ev;
      try {
        ev = JSON.parse(e.data);
      } catch (_) {
        w.model.ignored++;
        return;
      }
      w.model.apply(ev);
      schedule(w);
    },
    state(s, arg, why) {
      if (watching !== w) return;
      document.body.dataset.stream = s;
      const text = {
        connecting: 'Connecting…',
        open: 'Live.',
        waiting: `Connection lost (${why}); trying again in ${Math.round((arg || 0) / 1000)} s.`,
        ended: 'Stopped watching.',
        failed: arg && arg.status === 401 ? `The server refused the token: ${arg && arg.message}` : `Cannot watch this session: ${arg && arg.message}`,
      }[s];
      say('conn', text);
      if (s === 'failed' && arg && arg.status === 401) showAuth(text);
    },
  });
}

// schedule draws at most every 50 ms: a replay of thousands of events
// draws a few times, not thousands.
function schedule(w) {
  if (w.timer) return;
  w.timer = setTimeout(() => {
    w.timer = 0;
    if (watching === w) draw(w);
  }, 50);
}

function draw(w) {
  const m = w.model;
  const conv = $('conversation');
  const streaming = conv.querySelector('.streaming');
  if (streaming) streaming.remove();
  const anchor = (id) => {
    const nth = w.drawn.ids.get(id) ?? 0;
    w.drawn.ids.set(id, nth + 1);
    return view.callAnchor(id, nth);
  };
  for (; w.drawn.messages < m.messages.length; w.drawn.messages++) conv.append(view.message(m.messages[w.drawn.messages], anchor));
  if (m.streaming) conv.append(view.assistant(m.streaming, null));
  const turns = $('turns');
  for (const t of m.turns) {
    const sig = signature(t);
    const old = w.drawn.turns.get(t.n);
    if (old && old.sig === sig) continue;
    const node = view.turn(t);
    if (old) old.node.replaceWith(node);
    else turns.append(node);
    w.drawn.turns.set(t.n, {sig, node});
  }
  const q = m.queue.steering.length + m.queue.followUp.length;
  say('run-state', (m.running ? 'The agent is working.' : 'The agent is idle.') +
    (q ? ` ${q} message${q === 1 ? '' : 's'} queued.` : '') +
    (m.retry ? ` Retrying (attempt ${m.retry.attempt} of ${m.retry.maxAttempts}): ${m.retry.errorMessage}` : ''));
  document.body.dataset.events = String(m.version);
  // A run that ended changed the session's entry in the list.
  if (w.wasRunning && !m.running) loadSessions();
  w.wasRunning = m.running;
}

function signature(t) {
  return [t.steps, t.ended, ...t.models.map((s) => `${s.end}:${s.stopReason}`),
    ...t.calls.map((c) => `${c.end}:${c.marks.join(',')}`)].join('|');
}

$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  token = $('token').value.trim();
  $('token').value = '';
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  say('auth-status', token ? 'Token kept for this tab.' : 'No token.');
  loadSessions();
  watch(sessionFromHash());
});
$('forget').addEventListener('click', () => {
  token = '';
  sessionStorage.removeItem(TOKEN_KEY);
  say('auth-status', 'Token forgotten.');
  watch('');
  $('sessions').replaceChildren();
  say('sessions-status', 'No token.');
});
$('refresh').addEventListener('click', loadSessions);
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#session=')) watch(sessionFromHash());
});
// A bar leads to its call in the conversation without touching the
// address (which names the session watched).
$('turns').addEventListener('click', (e) => {
  const a = e.target.closest('a.bar');
  if (!a) return;
  e.preventDefault();
  const target = document.getElementById(a.getAttribute('href').slice(1));
  if (target) {
    target.scrollIntoView({block: 'center'});
    target.focus({preventScroll: true});
  }
});

loadSessions();
watch(sessionFromHash());
