// Server-Sent Events read with fetch(), since EventSource cannot send an
// Authorization header. The parser follows the WHATWG "event stream"
// interpretation rules; the reader reconnects with Last-Event-ID.

// The most text one event may hold before the stream is given up as
// hostile (an event of the server is at most a few times its largest
// message; docs/events.md).
export const MAX_EVENT_CHARS = 256 * 1024 * 1024;

// SSEParser turns decoded text, in chunks cut anywhere, into events
// {type, data, id}. lastEventId is what a reconnect sends: the id of the
// last event whole, never of one cut short.
export class SSEParser {
  constructor(onEvent, maxChars = MAX_EVENT_CHARS) {
    this.onEvent = onEvent;
    this.maxChars = maxChars;
    this.buf = '';
    this.first = true;
    this.data = [];
    this.dataChars = 0;
    this.type = '';
    this.idBuf = '';
    this.lastEventId = '';
    this.retry = null;
  }

  // resume starts from the id a reconnect sent.
  resume(id) {
    this.idBuf = this.lastEventId = id;
  }

  // push parses chunk; it throws when one event grows past maxChars.
  push(chunk) {
    this.buf += chunk;
    if (this.first && this.buf.length > 0) {
      if (this.buf.charCodeAt(0) === 0xfeff) this.buf = this.buf.slice(1);
      this.first = false;
    }
    let start = 0, cr = -1, lf = -1;
    for (;;) {
      // Each search runs again only once passed: a chunk without any CR
      // is not scanned to its end for every line.
      if (cr !== Infinity && cr < start) cr = this.buf.indexOf('\r', start), cr = cr < 0 ? Infinity : cr;
      if (lf !== Infinity && lf < start) lf = this.buf.indexOf('\n', start), lf = lf < 0 ? Infinity : lf;
      let end = Math.min(cr, lf);
      if (end === Infinity) break;
      let next = end + 1;
      if (this.buf[end] === '\r') {
        // A CR at the chunk's end may be the first half of a CRLF.
        if (end + 1 === this.buf.length) break;
        if (this.buf[end + 1] === '\n') next++;
      }
      this.line(this.buf.slice(start, end));
      start = next;
    }
    this.buf = this.buf.slice(start);
    if (this.buf.length + this.dataChars > this.maxChars) throw new TooBigError(this.maxChars);
  }

  // end discards a last event not closed by a blank line, as the
  // standard says.
  end() {
    if (this.buf === '\r') this.line('');
    this.buf = '';
    this.idBuf = this.lastEventId;
    this.data = [];
    this.dataChars = 0;
    this.type = '';
  }

  line(l) {
    if (l === '') {
      this.dispatch();
      return;
    }
    if (l[0] === ':') return;
    const colon = l.indexOf(':');
    let field = l, value = '';
    if (colon >= 0) {
      field = l.slice(0, colon);
      value = l.slice(colon + 1);
      if (value[0] === ' ') value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        this.dataChars += value.length + 1;
        if (this.dataChars > this.maxChars) throw new TooBigError(this.maxChars);
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuf = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  dispatch() {
    const data = this.data, type = this.type || 'message';
    this.data = [];
    this.dataChars = 0;
    this.type = '';
    this.lastEventId = this.idBuf;
    if (data.length === 0) return;
    this.onEvent({type, data: data.join('\n'), id: this.lastEventId});
  }
}

// TooBigError is an event past the parser's bound: reading it again
// would not help.
export class TooBigError extends Error {
  constructor(max) {
    super(`the server sent an event of more than ${max} characters`);
  }
}

// authHeaders adds the bearer token, when there is one, to headers.
export function authHeaders(token, headers = {}) {
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

// HTTPError is a response that reconnecting will not fix by itself.
export class HTTPError extends Error {
  constructor(status, message, retryAfterMs) {
    super(message);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

// errorText reads the server's {"error": {"message"}} body, or says what
// the status means.
export async function errorText(res) {
  try {
    const body = await res.json();
    if (body && body.error && typeof body.error.message === 'string') return body.error.message;
  } catch (_) { /* not JSON: the status says it */ }
  return `${res.status} ${res.statusText}`.trim();
}

export function retryAfterMs(res) {
  const v = res.headers.get('Retry-After');
  if (v && /^[0-9]+$/.test(v)) return Number(v) * 1000;
  return null;
}

// backoff is the wait before reconnect number n (from 0): doubling from
// base up to 30 s, with jitter so that many pages do not come back at once.
export function backoff(n, base = 1000, random = Math.random) {
  const ms = Math.min(30000, base * 2 ** Math.min(n, 5));
  return Math.round(ms / 2 + random() * ms / 2);
}

// follow reads url's event stream with token until signal aborts,
// reconnecting with Last-Event-ID after a drop. on.event gets each event;
// on.state gets 'connecting', 'open', 'waiting' (with the delay and the
// reason), 'ended' or 'failed' (with an HTTPError: 401, 404, … which
// reconnecting does not mend). fetchFn and sleep are there for tests.
export async function follow(url, token, signal, on, {fetchFn = fetch, sleep = abortableSleep, lastEventId = ''} = {}) {
  let attempt = 0, retry = null;
  while (!signal.aborted) {
    on.state('connecting');
    const parser = new SSEParser(on.event);
    parser.resume(lastEventId);
    let wait = null, why = '';
    try {
      const headers = authHeaders(token, {Accept: 'text/event-stream'});
      if (lastEventId !== '') headers['Last-Event-ID'] = lastEventId;
      const res = await fetchFn(url, {headers, signal, cache: 'no-store', credentials: 'omit'});
      if (res.status === 429 || res.status === 503) {
        wait = retryAfterMs(res);
        why = await errorText(res);
      } else if (!res.ok) {
        throw new HTTPError(res.status, await errorText(res));
      } else {
        on.state('open');
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          parser.push(dec.decode(value, {stream: true}));
          lastEventId = parser.lastEventId;
          if (parser.retry !== null) retry = parser.retry;
          attempt = 0;
        }
        parser.push(dec.decode());
        parser.end();
        lastEventId = parser.lastEventId;
        why = 'the server closed the stream';
      }
    } catch (err) {
      if (signal.aborted) break;
      if (err instanceof HTTPError || err instanceof TooBigError) {
        on.state('failed', err);
        return;
      }
      lastEventId = parser.lastEventId;
      why = err && err.message ? err.message : String(err);
    }
    if (signal.aborted) break;
    const ms = wait !== null ? wait : backoff(attempt, retry !== null ? retry : 1000);
    attempt++;
    on.state('waiting', ms, why);
    await sleep(ms, signal);
  }
  on.state('ended');
}

export function abortableSleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
