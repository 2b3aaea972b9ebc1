// The picture of one session, built from its events alone: no DOM, no
// clock. The same events give the same picture, whether they arrive live
// or are replayed from the session's journal when the page opens.
//
// The timeline's axis is the order of events, not wall-clock time: every
// model message start and end and every tool call start and end is one
// step of its turn. A call's bar spans the steps from its start to its
// end, so the calls of a parallel batch (all started before any ended)
// overlap, and those of a sequential batch (each ended before the next
// started) follow one another — exactly as the loop ran them.

// Characters that reorder or hide text (bidi controls, zero-width and
// other format characters) and C0/C1 controls but tab and newline: shown
// as ⟨U+XXXX⟩, so that what is seen is what the model or tool sent.
const hidden = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

export function visible(s) {
  return String(s).replace(hidden, (c) => '⟨U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') + '⟩');
}

// clip bounds a text shown on the page; the rest is counted, not drawn.
export function clip(s, max = 20000) {
  s = String(s);
  if (s.length <= max) return s;
  return s.slice(0, max) + `\n… (${s.length - max} more characters)`;
}

// textOf is the text of a message's content: a string, or blocks.
export function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => {
    if (!b || typeof b !== 'object') return '';
    if (b.type === 'text') return String(b.text ?? '');
    if (b.type === 'image') return `[image ${String(b.mimeType ?? '')}]`;
    return '';
  }).filter((t) => t !== '').join('\n');
}

// json renders v for reading; anything that fails is shown as a string.
export function json(v) {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch (_) {
    return String(v);
  }
}

// What hook decisions mean on a call (events of type hook_decision).
const decisionMarks = {block: 'blocked', rewrite: 'rewritten', error: 'hook failed', modify: 'result changed'};

export class SessionModel {
  constructor() {
    this.messages = []; // final messages, in order
    this.streaming = null; // the assistant message being streamed
    this.turns = [];
    this.calls = new Map(); // toolCallId → call of the latest turn that used it
    this.seen = new Map(); // toolCallId → how many calls had it (models reuse ids)
    this.running = false;
    this.queue = {steering: [], followUp: []};
    this.retry = null; // {attempt, maxAttempts, delayMs, errorMessage} while retrying
    this.ignored = 0; // events not understood
    this.version = 0;
  }

  // apply takes one event object (the JSON of one SSE data field).
  apply(ev) {
    if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string') {
      this.ignored++;
      return;
    }
    const h = Object.hasOwn(handlers, ev.type) ? handlers[ev.type] : null;
    if (!h) {
      this.ignored++;
      return;
    }
    h(this, ev);
    this.version++;
  }

  turn() {
    if (this.turns.length === 0) this.newTurn();
    return this.turns[this.turns.length - 1];
  }

  newTurn() {
    const t = {n: this.turns.length + 1, steps: 0, models: [], calls: [], ended: false};
    this.turns.push(t);
    return t;
  }

  step(t) {
    return t.steps++;
  }
}

const handlers = {
  agent_start(m) {
    m.running = true;
  },
  agent_end(m) {
    m.running = false;
    m.streaming = null;
    for (const t of m.turns) {
      for (const c of t.calls) {
        if (c.end === null) {
          c.end = m.step(t);
          c.marks.push('interrupted');
        }
      }
    }
  },
  turn_start(m) {
    m.newTurn();
  },
  turn_end(m) {
    m.turn().ended = true;
  },
  message_start(m, ev) {
    const msg = ev.message;
    if (msg && msg.role === 'assistant') {
      const t = m.turn();
      t.models.push({start: m.step(t), end: null, updates: 0, stopReason: '', error: ''});
      m.streaming = structuredCloneSafe(msg);
    }
  },
  message_update(m, ev) {
    const t = m.turn();
    const seg = t.models[t.models.length - 1];
    if (seg) seg.updates++;
    const ame = ev.assistantMessageEvent || {};
    if (ev.message && typeof ev.message === 'object') m.streaming = ev.message;
    else if (ame.partial && typeof ame.partial === 'object') m.streaming = ame.partial;
    else applyDelta(m, ame);
  },
  message_end(m, ev) {
    const msg = ev.message;
    if (!msg || typeof msg !== 'object') return;
    m.messages.push(msg);
    if (msg.role === 'assistant') {
      const t = m.turn();
      let seg = t.models[t.models.length - 1];
      if (!seg || seg.end !== null) {
        seg = {start: m.step(t), end: null, updates: 0, stopReason: '', error: ''};
        t.models.push(seg);
      }
      seg.end = m.step(t);
      seg.stopReason = String(msg.stopReason ?? '');
      seg.error = msg.errorMessage ? String(msg.errorMessage) : '';
      m.streaming = null;
    }
  },
  tool_execution_start(m, ev) {
    const t = m.turn();
    const id = String(ev.toolCallId ?? '');
    const nth = m.seen.get(id) ?? 0;
    m.seen.set(id, nth + 1);
    const c = {id, nth, name: String(ev.toolName ?? ''), args: ev.args,
      start: m.step(t), end: null, isError: false, result: null, partial: null, updates: 0, marks: [], hooks: [], turn: t.n};
    t.calls.push(c);
    m.calls.set(c.id, c);
  },
  tool_execution_update(m, ev) {
    const c = m.calls.get(String(ev.toolCallId ?? ''));
    if (!c) return;
    c.updates++;
    c.partial = ev.partialResult;
  },
  tool_execution_end(m, ev) {
    const c = m.calls.get(String(ev.toolCallId ?? ''));
    if (!c || c.end !== null) return;
    const t = m.turns[c.turn - 1];
    c.end = m.step(t);
    c.isError = ev.isError === true;
    c.result = ev.result ?? null;
    if (c.isError) c.marks.push('error');
  },
  hook_decision(m, ev) {
    const c = m.calls.get(String(ev.toolCallId ?? ''));
    if (!c) return;
    const d = {kind: String(ev.kind ?? ''), hook: String(ev.hook ?? ''), decision: String(ev.decision ?? ''),
      reason: String(ev.reason ?? ''), question: String(ev.question ?? ''), answer: String(ev.answer ?? '')};
    c.hooks.push(d);
    const mark = decisionMarks[d.decision];
    if (mark && !c.marks.includes(mark)) c.marks.push(mark);
    if (d.question && !c.marks.includes('asked')) c.marks.push('asked');
  },
  queue_update(m, ev) {
    m.queue = {steering: arrayOfStrings(ev.steering), followUp: arrayOfStrings(ev.followUp)};
  },
  auto_retry_start(m, ev) {
    m.retry = {attempt: Number(ev.attempt) || 0, maxAttempts: Number(ev.maxAttempts) || 0,
      delayMs: Number(ev.delayMs) || 0, errorMessage: String(ev.errorMessage ?? '')};
  },
  auto_retry_end(m) {
    m.retry = null;
  },
};

function arrayOfStrings(v) {
  return Array.isArray(v) ? v.map((s) => String(s)) : [];
}

function structuredCloneSafe(msg) {
  try {
    return JSON.parse(JSON.stringify(msg));
  } catch (_) {
    return {role: 'assistant', content: []};
  }
}

// applyDelta follows a message streamed in "deltas" mode (docs/events.md),
// where updates carry no whole message.
function applyDelta(m, ame) {
  if (!m.streaming || typeof m.streaming !== 'object') m.streaming = {role: 'assistant', content: []};
  if (!Array.isArray(m.streaming.content)) m.streaming.content = [];
  const i = Number(ame.contentIndex);
  if (!Number.isInteger(i) || i < 0 || i > 100000) return;
  const content = m.streaming.content;
  const delta = typeof ame.delta === 'string' ? ame.delta : '';
  switch (ame.type) {
    case 'text_start': content[i] = {type: 'text', text: ''}; break;
    case 'text_delta': (content[i] ??= {type: 'text', text: ''}).text += delta; break;
    case 'text_end': if (typeof ame.content === 'string') content[i] = {type: 'text', text: ame.content}; break;
    case 'thinking_start': content[i] = {type: 'thinking', thinking: ''}; break;
    case 'thinking_delta': (content[i] ??= {type: 'thinking', thinking: ''}).thinking += delta; break;
    case 'thinking_end': if (typeof ame.content === 'string') content[i] = {type: 'thinking', thinking: ame.content}; break;
    case 'toolcall_start': content[i] = {type: 'toolCall', id: '', name: '', arguments: {}, partialJson: ''}; break;
    case 'toolcall_delta': (content[i] ??= {type: 'toolCall', arguments: {}, partialJson: ''}).partialJson += delta; break;
    case 'toolcall_end': if (ame.toolCall && typeof ame.toolCall === 'object') content[i] = ame.toolCall; break;
  }
  for (let j = 0; j < content.length; j++) content[j] ??= {type: 'text', text: ''};
}

// layout places a turn's model messages and calls on its axis: each row
// has left and width as fractions of the turn's length, a running row
// reaching the turn's last step.
export function layout(turn) {
  const length = Math.max(turn.steps, 1);
  const place = (start, end) => {
    const last = end === null ? length - 1 : end;
    return {left: start / length, width: (last + 1 - start) / length};
  };
  const rows = [];
  for (const s of turn.models) rows.push({kind: 'model', seg: s, running: s.end === null, ...place(s.start, s.end)});
  for (const c of turn.calls) rows.push({kind: 'call', call: c, running: c.end === null, ...place(c.start, c.end)});
  return {length, rows};
}

// batches groups a turn's calls into the ones that ran at the same time:
// calls whose spans overlap (transitively) share a batch.
export function batches(turn) {
  const out = [];
  let cur = null, reach = -1;
  for (const c of turn.calls) {
    const end = c.end === null ? Infinity : c.end;
    if (cur && c.start < reach) {
      cur.push(c);
      reach = Math.max(reach, end);
    } else {
      cur = [c];
      out.push(cur);
      reach = end;
    }
  }
  return out;
}
