// DOM building. Every text that comes from a model, a tool, a hook or the
// server goes in through textContent (never innerHTML): what it holds is
// shown, never run.
import {visible, clip, textOf, json, layout, batches} from './model.js';

// el makes an element with attributes and children (strings become text).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = visible(v);
    else if (k === 'title' || k === 'aria-label') e.setAttribute(k, visible(v));
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === 'string' ? document.createTextNode(visible(c)) : c);
  }
  return e;
}

// callAnchor is the id of the nth call (from 0) with toolCallId id in the
// conversation: ids are hashed so that any toolCallId makes a valid
// fragment, and counted since models reuse them (call_0 in every turn).
export function callAnchor(id, nth) {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `call-${h.toString(36)}-${id.length}-${nth}`;
}

function pre(text, cls = '') {
  return el('pre', {class: cls}, clip(text));
}

// message renders one final message of the conversation; anchor(id)
// names the entry of each of its tool calls (callAnchor, counted by the
// caller across the conversation).
export function message(msg, anchor) {
  switch (msg.role) {
    case 'user':
      return el('li', {class: 'msg user'}, el('h4', {}, 'User'), pre(textOf(msg.content)));
    case 'assistant':
      return assistant(msg, anchor);
    case 'toolResult': {
      const li = el('li', {class: 'msg result' + (msg.isError ? ' error' : '')},
        el('h4', {}, `Result of ${String(msg.toolName ?? '')}` + (msg.isError ? ' (error)' : '')),
        pre(textOf(msg.content)));
      return li;
    }
    default:
      return el('li', {class: 'msg other'}, el('h4', {}, String(msg.role ?? 'message')), pre(textOf(msg.content)));
  }
}

// assistant renders an assistant message: final, with anchor naming its
// tool calls, or streaming (anchor null).
export function assistant(msg, anchor) {
  const streaming = !anchor;
  const li = el('li', {class: 'msg assistant' + (streaming ? ' streaming' : '')},
    el('h4', {}, streaming ? 'Model (streaming)' : 'Model'));
  const blocks = Array.isArray(msg.content) ? msg.content : [{type: 'text', text: textOf(msg.content)}];
  for (const b of blocks) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text') li.append(pre(String(b.text ?? '')));
    else if (b.type === 'thinking') li.append(el('details', {class: 'thinking'}, el('summary', {}, 'Thinking'), pre(String(b.thinking ?? ''))));
    else if (b.type === 'toolCall') {
      const id = String(b.id ?? '');
      const args = b.partialJson !== undefined && Object.keys(b.arguments ?? {}).length === 0 ? String(b.partialJson) : json(b.arguments);
      li.append(el('div', {class: 'toolcall', id: streaming ? null : anchor(id), tabindex: '-1'},
        el('h5', {}, `Tool call ${String(b.name ?? '')}`, el('span', {class: 'id'}, ` ${id}`)), pre(args)));
    }
  }
  if (msg.stopReason === 'error' || msg.stopReason === 'aborted') {
    li.classList.add('error');
    li.append(el('p', {class: 'stop'}, `Stopped: ${String(msg.stopReason)}` + (msg.errorMessage ? ` — ${String(msg.errorMessage)}` : '')));
  }
  return li;
}

// turn renders one turn of the timeline.
export function turn(t) {
  const {length, rows} = layout(t);
  const batchOf = new Map();
  batches(t).forEach((b, i) => b.forEach((c) => batchOf.set(c, {n: i + 1, size: b.length})));
  const lanes = el('ol', {class: 'lanes'});
  for (const r of rows) lanes.append(lane(r, length, batchOf));
  return el('li', {class: 'turn', 'data-turn': t.n, 'data-steps': length},
    el('h4', {}, `Turn ${t.n}` + (t.ended ? '' : ' (going on)')), lanes);
}

function lane(r, length, batchOf) {
  const pos = (bar) => {
    bar.style.left = `${(r.left * 100).toFixed(4)}%`;
    bar.style.width = `${(r.width * 100).toFixed(4)}%`;
    return bar;
  };
  const steps = (s, e) => `steps ${s + 1} to ${e === null ? 'now' : e + 1} of ${length}`;
  if (r.kind === 'model') {
    const s = r.seg;
    const marks = [];
    if (s.stopReason === 'error' || s.stopReason === 'aborted') marks.push(s.stopReason);
    const state = r.running ? 'streaming' : (s.stopReason || 'done');
    const bar = pos(el('span', {class: 'bar model' + (r.running ? ' running' : '') + (marks.length ? ' error' : ''),
      'data-state': r.running ? 'running' : 'done', title: s.error || null},
    el('span', {class: 'name'}, 'model'), el('span', {class: 'state'}, ` ${state}`)));
    return el('li', {class: 'lane', 'aria-label': `model: ${state}, ${steps(s.start, s.end)}`},
      el('span', {class: 'label'}, 'model'), el('span', {class: 'track'}, bar));
  }
  const c = r.call;
  const b = batchOf.get(c);
  const batch = b.size > 1 ? `batch ${b.n}, ${b.size} calls at once` : `batch ${b.n}, alone`;
  const state = r.running ? 'running' : c.isError ? 'error' : 'done';
  const marks = c.marks.filter((m) => m !== 'error');
  const bar = pos(el('a', {class: `bar call ${state}` + (r.running ? ' running' : '') + (marks.length ? ' marked' : ''),
    href: '#' + callAnchor(c.id, c.nth), 'data-call-id': c.id, 'data-state': r.running ? 'running' : 'done',
    'data-start': c.start, 'data-end': c.end === null ? '' : c.end, title: hookText(c) || null},
  el('span', {class: 'name'}, c.name),
  el('span', {class: 'state'}, ` ${state}`),
  ...c.marks.filter((m) => m !== 'error').map((m) => el('span', {class: 'mark'}, ` ${m}`))));
  const label = `${c.name} ${c.id}: ${[state, ...marks].join(', ')}; ${batch}; ${steps(c.start, c.end)}`;
  return el('li', {class: 'lane', 'aria-label': label}, el('span', {class: 'label'}, c.name), el('span', {class: 'track'}, bar));
}

function hookText(c) {
  return c.hooks.map((h) => [h.hook || h.kind, h.decision, h.reason, h.question && `asked: ${h.question}`, h.answer && `answer: ${h.answer}`]
    .filter(Boolean).join(' — ')).join('\n');
}
