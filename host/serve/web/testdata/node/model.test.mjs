// Node tests of the page's session model, on event streams the real loop
// wrote (host/testdata, the golden files of the loop's tests).
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {SessionModel, layout, batches, visible, clip, textOf} from '../../static/model.js';

function load(name) {
  const m = new SessionModel();
  for (const line of readFileSync(new URL(`../../../../testdata/${name}.jsonl`, import.meta.url), 'utf8').split('\n')) {
    if (line.trim() !== '') m.apply(JSON.parse(line));
  }
  return m;
}

const overlap = (a, b) => a.left < b.left + b.width && b.left < a.left + a.width;

test('a parallel batch: the bars overlap', () => {
  const m = load('parallel_out_of_order');
  const t = m.turns[0];
  assert.equal(t.calls.length, 3);
  const rows = layout(t).rows.filter((r) => r.kind === 'call');
  for (let i = 0; i < rows.length; i++) {
    for (let j = i + 1; j < rows.length; j++) assert.ok(overlap(rows[i], rows[j]), `${i} and ${j}`);
  }
  assert.deepEqual(batches(t).map((b) => b.length), [3]);
  assert.equal(m.running, false);
  assert.ok(t.calls.every((c) => c.end !== null && !c.isError));
});

test('a sequential batch: the bars follow one another', () => {
  for (const name of ['sequential_mode', 'per_tool_sequential']) {
    const m = load(name);
    const rows = layout(m.turns[0]).rows.filter((r) => r.kind === 'call');
    assert.ok(rows.length >= 2, name);
    for (let i = 0; i + 1 < rows.length; i++) {
      assert.ok(!overlap(rows[i], rows[i + 1]), `${name}: ${i} and ${i + 1}`);
      assert.ok(rows[i].left + rows[i].width <= rows[i + 1].left + 1e-9, `${name}: in order`);
    }
    assert.deepEqual(batches(m.turns[0]).map((b) => b.length), rows.map(() => 1), name);
  }
});

test('the model comes before the calls, and the turn ends', () => {
  const m = load('parallel_out_of_order');
  const {rows} = layout(m.turns[0]);
  const model = rows.find((r) => r.kind === 'model');
  for (const r of rows.filter((r) => r.kind === 'call')) assert.ok(model.left + model.width <= r.left + 1e-9);
  assert.equal(m.turns.length, 2);
  assert.ok(m.turns.every((t) => t.ended));
});

test('errors and blocked calls are marked', () => {
  const m = load('before_hook_block');
  const marked = m.turns[0].calls.filter((c) => c.marks.includes('error')).map((c) => c.id);
  assert.deepEqual(marked, ['c2', 'c3']);
  m.apply({type: 'hook_decision', toolCallId: 'c3', kind: 'beforeToolCall', hook: 'policy', decision: 'block', reason: 'no', question: 'ok?', answer: 'no'});
  assert.deepEqual(m.calls.get('c3').marks, ['error', 'blocked', 'asked']);
});

test('the conversation is every final message, in order', () => {
  const m = load('parallel_out_of_order');
  assert.deepEqual(m.messages.map((x) => x.role), ['user', 'assistant', 'toolResult', 'toolResult', 'toolResult', 'assistant']);
  assert.equal(m.streaming, null);
});

test('streaming: the partial message, in pi mode and in deltas mode', () => {
  const m = new SessionModel();
  m.apply({type: 'turn_start'});
  m.apply({type: 'message_start', message: {role: 'assistant', content: []}});
  m.apply({type: 'message_update', assistantMessageEvent: {type: 'text_start', contentIndex: 0}});
  m.apply({type: 'message_update', assistantMessageEvent: {type: 'text_delta', contentIndex: 0, delta: 'Hel'}});
  m.apply({type: 'message_update', assistantMessageEvent: {type: 'text_delta', contentIndex: 0, delta: 'lo'}});
  assert.equal(textOf(m.streaming.content), 'Hello');
  assert.equal(layout(m.turns[0]).rows[0].running, true);
  m.apply({type: 'message_update', assistantMessageEvent: {type: 'text_delta', contentIndex: 0, delta: '!'}, message: {role: 'assistant', content: [{type: 'text', text: 'Hello!'}]}});
  assert.equal(textOf(m.streaming.content), 'Hello!');
  m.apply({type: 'message_update', assistantMessageEvent: {type: 'text_delta', contentIndex: 1e9, delta: 'x'}});
  m.apply({type: 'message_end', message: {role: 'assistant', content: [{type: 'text', text: 'Hello!'}], stopReason: 'stop'}});
  assert.equal(m.streaming, null);
  assert.equal(m.turns[0].models[0].updates, 5);
});

test('a run cut short leaves no bar running', () => {
  const m = new SessionModel();
  for (const e of [{type: 'agent_start'}, {type: 'turn_start'}, {type: 'tool_execution_start', toolCallId: 'a', toolName: 'sleep', args: {}}]) m.apply(e);
  assert.equal(layout(m.turns[0]).rows[0].running, true);
  m.apply({type: 'agent_end', messages: []});
  assert.equal(layout(m.turns[0]).rows[0].running, false);
  assert.deepEqual(m.turns[0].calls[0].marks, ['interrupted']);
});

test('hostile events change nothing they should not', () => {
  const m = new SessionModel();
  const junk = [null, 1, 'x', [], {}, {type: 5}, {type: 'nope'}, {type: 'tool_execution_end', toolCallId: 'ghost'},
    {type: 'message_end'}, {type: 'message_end', message: 'x'}, {type: 'tool_execution_update', toolCallId: {}},
    {type: '__proto__'}, {type: 'constructor'}, {type: 'toString'}, {type: 'queue_update', steering: 'x'}];
  for (const j of junk) m.apply(j);
  assert.equal(m.messages.length, 0);
  assert.deepEqual(m.queue, {steering: [], followUp: []});
  assert.equal(m.ignored, 10);
});

test('a reused tool call id: each call counted apart', () => {
  const m = new SessionModel();
  for (let turn = 0; turn < 3; turn++) {
    m.apply({type: 'turn_start'});
    m.apply({type: 'tool_execution_start', toolCallId: 'call_0', toolName: 'sleep', args: {}});
    m.apply({type: 'tool_execution_end', toolCallId: 'call_0', toolName: 'sleep', result: {content: []}, isError: turn === 1});
  }
  assert.deepEqual(m.turns.map((t) => [t.calls[0].nth, t.calls[0].end !== null, t.calls[0].isError]), [[0, true, false], [1, true, true], [2, true, false]]);
});

test('hidden characters are shown, long texts cut', () => {
  assert.equal(visible('a\u202Eb\u200Bc\u0007\n\t'), 'a⟨U+202E⟩b⟨U+200B⟩c⟨U+0007⟩\n\t');
  assert.equal(visible('<img src=x onerror=alert(1)>'), '<img src=x onerror=alert(1)>');
  assert.equal(clip('abcdef', 3), 'abc\n… (3 more characters)');
});
