// Node tests of the page's event-stream reader (node --test; no packages).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {SSEParser, TooBigError, follow, backoff} from '../../static/sse.js';

function parseAll(chunks) {
  const out = [];
  const p = new SSEParser((e) => out.push(e));
  for (const c of chunks) p.push(c);
  p.end();
  return {out, p};
}

const stream = '\ufeff: hello\r\nretry: 2500\nid: 1\ndata: {"a":1}\n\nevent: ping\ndata\n\nid: 2\r\ndata: line one\r\ndata:line two\r\r' +
  'id: bad\u0000id\ndata: x\n\nid\ndata: y\n\ndata: unterminated';
const want = [
  {type: 'message', data: '{"a":1}', id: '1'},
  {type: 'ping', data: '', id: '1'},
  {type: 'message', data: 'line one\nline two', id: '2'},
  {type: 'message', data: 'x', id: '2'},
  {type: 'message', data: 'y', id: ''},
];

test('the standard interpretation, whole', () => {
  const {out, p} = parseAll([stream]);
  assert.deepEqual(out, want);
  assert.equal(p.retry, 2500);
});

test('the same events however the stream is cut', () => {
  for (let i = 0; i <= stream.length; i++) {
    for (let j = i; j <= stream.length; j += 7) {
      const {out} = parseAll([stream.slice(0, i), stream.slice(i, j), stream.slice(j)]);
      assert.deepEqual(out, want, `cut at ${i} and ${j}`);
    }
  }
  const {out} = parseAll([...stream]);
  assert.deepEqual(out, want, 'one character at a time');
});

test('random streams: cutting never changes the events', () => {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ['data: a', 'data:b', 'id: 7', 'event: e', ': c', '\n', '\r\n', '\r', 'retry: 5', 'data', 'id', 'x: y', ' ', ':', '\u2028', 'é'];
  for (let n = 0; n < 300; n++) {
    let s = '';
    for (let k = 0; k < 30; k++) s += pieces[Math.floor(rnd() * pieces.length)];
    const whole = parseAll([s]).out;
    const cuts = [];
    let at = 0;
    while (at < s.length) {
      const len = 1 + Math.floor(rnd() * 5);
      cuts.push(s.slice(at, at + len));
      at += len;
    }
    assert.deepEqual(parseAll(cuts).out, whole, JSON.stringify(s));
  }
});

test('a reconnect resumes after the last whole event, not a half-read one', () => {
  const p = new SSEParser(() => {});
  p.push('id: 1\ndata: a\n\nid: 2\ndata: b');
  p.end();
  assert.equal(p.lastEventId, '1');
  const q = new SSEParser(() => {});
  q.resume('9');
  q.push('data: c\n\n');
  assert.equal(q.lastEventId, '9');
});

test('an event past the bound is refused, not kept', () => {
  const p = new SSEParser(() => {}, 100);
  assert.throws(() => p.push('data: ' + 'x'.repeat(200) + '\n'), TooBigError);
  const q = new SSEParser(() => {}, 100);
  assert.throws(() => q.push('data: ' + 'x'.repeat(200)), TooBigError);
  const r = new SSEParser(() => {}, 100);
  assert.throws(() => { for (let i = 0; i < 50; i++) r.push('data: xx\n'); }, TooBigError);
});

test('backoff doubles to 30 s, with jitter', () => {
  assert.equal(backoff(0, 1000, () => 1), 1000);
  assert.equal(backoff(0, 1000, () => 0), 500);
  assert.equal(backoff(3, 1000, () => 1), 8000);
  assert.equal(backoff(50, 1000, () => 1), 30000);
});

// A server that sends events 1..n, dropping the connection after each
// `per` events, and tells what Last-Event-ID each request carried.
function droppingServer(n, per, {status = [], ac = null} = {}) {
  const seen = [];
  const fetchFn = async (url, opts) => {
    seen.push({url, headers: opts.headers});
    if (seen.length > 20) {
      ac?.abort();
      throw new Error('too many requests: the client does not converge');
    }
    const st = status.shift();
    if (st) return new Response(JSON.stringify({error: {code: 'x', message: `status ${st}`}}), {status: st, headers: {'Retry-After': '0'}});
    const after = Number(opts.headers['Last-Event-ID'] ?? 0);
    const enc = new TextEncoder();
    const body = new ReadableStream({
      start(c) {
        for (let i = after + 1; i <= Math.min(n, after + per); i++) {
          const text = `id: ${i}\ndata: {"n":${i}}\n\n`;
          // cut mid-event, to check nothing half-read is delivered
          c.enqueue(enc.encode(text.slice(0, 5)));
          c.enqueue(enc.encode(text.slice(5)));
        }
        if (after + per < n) c.enqueue(enc.encode(`id: ${after + per + 1}\ndata: {"n":`));
        c.close();
      },
    });
    return new Response(body, {status: 200, headers: {'Content-Type': 'text/event-stream'}});
  };
  return {fetchFn, seen};
}

test('follow resumes with Last-Event-ID: nothing lost, nothing repeated', async () => {
  const ac = new AbortController();
  const {fetchFn, seen} = droppingServer(10, 3, {status: [503], ac});
  const got = [];
  const states = [];
  await follow('v1/sessions/s/events', 'tok', ac.signal, {
    event(e) {
      got.push(JSON.parse(e.data).n);
      if (got.length === 10) ac.abort();
    },
    state(s) { states.push(s); },
  }, {fetchFn, sleep: async () => {}});
  assert.deepEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.ok(seen.length <= 6, `${seen.length} requests`);
  assert.equal(seen[0].headers['Last-Event-ID'], undefined);
  assert.equal(seen[0].headers.Authorization, 'Bearer tok');
  assert.deepEqual(seen.slice(1).map((s) => s.headers['Last-Event-ID']), [undefined, '3', '6', '9']);
  assert.ok(states.includes('waiting'));
  assert.equal(states.at(-1), 'ended');
});

test('follow gives up on 401 and 404, saying why', async () => {
  for (const st of [401, 404]) {
    const {fetchFn, seen} = droppingServer(1, 1, {status: [st]});
    let failed = null;
    await follow('u', '', new AbortController().signal, {event() {}, state(s, err) { if (s === 'failed') failed = err; }}, {fetchFn, sleep: async () => {}});
    assert.equal(failed.status, st);
    assert.equal(failed.message, `status ${st}`);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].headers.Authorization, undefined, 'no token, no header');
  }
});
