"""Drives `wasmagent rpc` with Python's standard library: the same session
as rpc_client.mjs (prompt, steering while a tool runs, follow-up, abort,
get_state, get_messages). Prints "ok" or what differed."""
import json
import queue
import subprocess
import sys
import threading
import time

binary, config = sys.argv[1], sys.argv[2]
proc = subprocess.Popen([binary, "rpc", "--config", config], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lines = queue.Queue()


def read():
    # Split on LF only: U+2028/U+2029 are text inside JSON strings.
    buf = b""
    while True:
        chunk = proc.stdout.read1(65536)
        if not chunk:
            lines.put(None)
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            lines.put(json.loads(line.rstrip(b"\r").decode("utf-8")))


threading.Thread(target=read, daemon=True).start()
next_id = 0


def send(cmd):
    global next_id
    next_id += 1
    cmd["id"] = "py-%d" % next_id
    proc.stdin.write((json.dumps(cmd) + "\n").encode("utf-8"))
    proc.stdin.flush()
    return cmd["id"]


def until(pred, timeout=30):
    end = time.time() + timeout
    while True:
        v = lines.get(timeout=max(0.1, end - time.time()))
        if v is None:
            raise SystemExit("wasmagent closed its output")
        if pred(v):
            return v


def call(cmd):
    rid = send(cmd)
    r = until(lambda v: v.get("type") == "response" and v.get("id") == rid)
    if not r["success"]:
        raise SystemExit("%s failed: %s" % (cmd["type"], r.get("error")))
    return r.get("data")


def check(cond, what, got):
    if not cond:
        raise SystemExit("%s: got %r" % (what, got))


state = call({"type": "get_state"})
check(state["isStreaming"] is False, "initial state", state)
call({"type": "prompt", "message": "first \u2028 line"})
until(lambda v: v.get("type") == "tool_execution_start")
call({"type": "prompt", "message": "steer now", "streamingBehavior": "steer"})
call({"type": "follow_up", "message": "later"})
until(lambda v: v.get("type") == "agent_end")
roles = ",".join(m["role"] for m in call({"type": "get_messages"})["messages"])
check(roles == "user,assistant,toolResult,user,assistant,user,assistant", "roles", roles)
call({"type": "prompt", "message": "long one"})
until(lambda v: v.get("type") == "tool_execution_start")
call({"type": "abort"})
check(call({"type": "get_state"})["isStreaming"] is False, "state after abort", None)
bad = send({"type": "no_such_command"})
r = until(lambda v: v.get("id") == bad)
check(r["success"] is False and "Unknown command" in r["error"], "unknown command", r)
proc.stdin.write(b"{broken\n")
proc.stdin.flush()
r = until(lambda v: v.get("type") == "response" and v.get("command") == "parse")
check(r["success"] is False, "parse error", r)
# the last answer is the aborted run's tool call: no text, so {} as pi
last = call({"type": "get_last_assistant_text"})
check(last == {}, "last text", last)
proc.stdin.close()
proc.wait(timeout=10)
print("ok")
