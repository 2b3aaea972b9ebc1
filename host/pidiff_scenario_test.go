package host_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmagent/wasmagent/host/hosttest"
)

// A piScenario is one run that both pi-agent-core (testdata/pi/diff.mjs)
// and our loop (pidiff_run_test.go) execute the same way; its JSON is what
// diff.mjs reads. docs/loop.md 17 describes every field.
type piScenario struct {
	Name          string             `json:"name,omitempty"` // fixed scenarios (testdata/pi/diff/fixed.jsonl)
	Seed          uint64             `json:"seed"`
	ChunkTokens   int                `json:"chunkTokens"`        // the faux provider's token size: deltas of 4×N characters
	Agent         bool               `json:"agent,omitempty"`    // Agent.prompt, else runAgentLoop
	Continue      bool               `json:"continue,omitempty"` // agent: continue() after the prompt; loop: runAgentLoopContinue
	ToolExecution string             `json:"toolExecution,omitempty"`
	SteeringMode  string             `json:"steeringMode,omitempty"`
	FollowUpMode  string             `json:"followUpMode,omitempty"`
	StopAfterTurn int                `json:"stopAfterTurn,omitempty"` // loop: shouldStopAfterTurn is true at this turn
	BeforeHook    bool               `json:"beforeHook,omitempty"`
	AfterHook     bool               `json:"afterHook,omitempty"`
	Prompts       []string           `json:"prompts"`
	Tools         []piTool           `json:"tools,omitempty"`
	Turns         []piTurn           `json:"turns"`
	Calls         map[string]*piCall `json:"calls,omitempty"` // by tool call id
	Queue         []piQueued         `json:"queue,omitempty"`
	AbortAt       *piEventRef        `json:"abortAt,omitempty"`
	// FailAt makes the listener (agent) or the emit function (loop) fail
	// at that event; generated for the Agent only (docs/loop.md 17.2).
	FailAt *piEventRef `json:"failAt,omitempty"`
	// ConvertNotes makes convertToLlm send "note" messages (prompts and
	// queued texts starting "@note ") as user messages; without it they are
	// dropped, as pi's default does.
	ConvertNotes bool `json:"convertNotes,omitempty"`
	// KeepLast makes transformContext keep the last KeepLast messages.
	KeepLast int `json:"keepLast,omitempty"`
	// History starts the transcript with an earlier exchange: a user
	// message, an assistant message calling echo (id h1) and its result
	// (the Agent's initial messages; the loop's context).
	History bool `json:"history,omitempty"`
	// ThinkingLevel is the Agent's initial thinking level, or the loop's
	// reasoning option; a digest shows what the model was asked with.
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	// State (Agent only) records the Agent's state after every event and
	// after every call of the API, as a "harness_state" line (piStateLine).
	State bool `json:"state,omitempty"`
	// Then (Agent only) prompts again with these messages once the runs
	// above have ended.
	Then []string `json:"then,omitempty"`
	// ConvertFail makes the converter's call number ConvertFail fail
	// (Agent only: the bare loop's failure differs on purpose,
	// docs/loop.md 15.2).
	ConvertFail int `json:"convertFail,omitempty"`
	// NoModel (Agent only) leaves the Agent's model unset: pi's
	// placeholder model, whose API nobody serves.
	NoModel bool `json:"noModel,omitempty"`
	// TransformFail makes the context transform's call number
	// TransformFail fail (Agent only, as ConvertFail).
	TransformFail int `json:"transformFail,omitempty"`
	// PromptText (Agent only) prompts with the one prompt's text (and
	// image) as prompt(text, images) does, not with a message.
	PromptText bool `json:"promptText,omitempty"`
}

type piTool struct {
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters,omitempty"` // nil: {"type":"object"}
	Sequential bool            `json:"sequential,omitempty"`
	Prepare    bool            `json:"prepare,omitempty"` // prepareArguments renames "file" to "path", fails on "x"
}

// piTurn is a scripted turn (host/scripted's JSON form and the faux
// provider's message).
type piTurn struct {
	Content      []piBlock `json:"content,omitempty"`
	StopReason   string    `json:"stopReason,omitempty"`
	ErrorMessage string    `json:"errorMessage,omitempty"`
	Throw        string    `json:"throw,omitempty"`
	ResponseID   string    `json:"responseId,omitempty"`
	// Raw, if set, is the model's stream event by event (pidiff_raw_test.go);
	// Content, StopReason and ErrorMessage are then the message when no
	// done or error event says otherwise.
	Raw []piRawEvent `json:"raw,omitempty"`
	// Digest appends a text block "seen: …" describing the request the
	// model received (piDigest), so that what the model is sent is
	// compared too.
	Digest bool `json:"digest,omitempty"`
}

type piBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Signatures, only in raw turns (the faux provider's blocks have none).
	TextSignature     string `json:"textSignature,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`
	ThoughtSignature  string `json:"thoughtSignature,omitempty"`
}

// MarshalJSON writes a tool call's id and name even when empty (a model
// may send them so), its members in the order pi-ai's providers make
// them (faux passes the blocks on as given, key order and all).
func (b piBlock) MarshalJSON() ([]byte, error) {
	type plain piBlock
	if b.Type != "toolCall" {
		return json.Marshal(plain(b))
	}
	return json.Marshal(struct {
		Type             string          `json:"type"`
		ID               string          `json:"id"`
		Name             string          `json:"name"`
		Arguments        json.RawMessage `json:"arguments,omitempty"`
		ThoughtSignature string          `json:"thoughtSignature,omitempty"`
	}{b.Type, b.ID, b.Name, b.Arguments, b.ThoughtSignature})
}

// piCall is what the tool and the hooks do for one call.
type piCall struct {
	Wait      []string          `json:"wait,omitempty"`    // ends of these calls first
	Updates   []json.RawMessage `json:"updates,omitempty"` // partial results, after waiting
	Abort     bool              `json:"abort,omitempty"`   // aborts the run, waits for it, fails
	Throw     *string           `json:"throw,omitempty"`
	Text      *string           `json:"text,omitempty"`  // nil: the arguments as JSON
	Image     bool              `json:"image,omitempty"` // an image block after the text
	Empty     bool              `json:"empty,omitempty"` // no content at all (before the image)
	Details   json.RawMessage   `json:"details,omitempty"`
	Terminate *bool             `json:"terminate,omitempty"`
	Extra     json.RawMessage   `json:"extra,omitempty"` // members returned beyond content, details and terminate (an object)
	Before    *piBefore         `json:"before,omitempty"`
	After     *piAfter          `json:"after,omitempty"`
}

type piBefore struct {
	Abort  bool    `json:"abort,omitempty"` // aborts the run, then answers
	Echo   bool    `json:"echo,omitempty"`  // the reason is "args " + the arguments the hook saw
	Block  bool    `json:"block,omitempty"`
	Reason *string `json:"reason,omitempty"`
	Throw  *string `json:"throw,omitempty"`
}

type piAfter struct {
	Abort     bool            `json:"abort,omitempty"`   // aborts the run, then answers
	Echo      bool            `json:"echo,omitempty"`    // the content is what the hook saw (piAfterEcho)
	Content   *[]string       `json:"content,omitempty"` // text blocks; [] is kept, as in pi`
	Details   json.RawMessage `json:"details,omitempty"`
	IsError   *bool           `json:"isError,omitempty"`
	Terminate *bool           `json:"terminate,omitempty"`
	Throw     *string         `json:"throw,omitempty"`
}

// piQueued queues a steering or follow-up message when the nth event named
// On (hosttest.Describe) is emitted; On "" queues it before the run.
type piQueued struct {
	On   string `json:"on"`
	Nth  int    `json:"nth,omitempty"`
	Kind string `json:"kind"` // steer, followUp; prompt or continue (Agent: called while busy, its error recorded); or an Agent action (piActions)
	Text string `json:"text"`
}

// piActions are the Agent calls a queue entry may make instead of queueing
// a message (Text is the argument where there is one): the queue
// operations, reset, the setters (steeringMode and followUpMode take
// "all" or "one-at-a-time", systemPrompt a text, thinking a level;
// dropTool removes the last tool, appendMessage appends Text as a message
// to the transcript), and subscribe/unsubscribe of a second listener that
// records a "harness_listener" line per event.
var piActions = []string{"clearSteering", "clearFollowUp", "clearAll", "reset", "steeringMode", "followUpMode",
	"systemPrompt", "thinking", "dropTool", "appendMessage", "subscribe", "unsubscribe"}

type piEventRef struct {
	On  string `json:"on"`
	Nth int    `json:"nth"`
}

func (sc *piScenario) JSON() string {
	b, err := json.Marshal(sc)
	if err != nil {
		panic(err) // only our own types: cannot fail
	}
	return string(b)
}

// batchIsSequential reports whether the batch of calls runs one at a time:
// in sequential mode, or when the first tool of a called name (the one
// that runs, as in pi) is sequential.
func (sc *piScenario) batchIsSequential(names []string) bool {
	if sc.ToolExecution == "sequential" {
		return true
	}
	for _, name := range names {
		if i := slices.IndexFunc(sc.Tools, func(t piTool) bool { return t.Name == name }); i >= 0 && sc.Tools[i].Sequential {
			return true
		}
	}
	return false
}

// Pools of values. Every value is JSON that JavaScript's JSON.parse and
// JSON.stringify give back unchanged (no 1.0, no exponents, no escapes), so
// the scenario means the same on both sides.
var (
	piSchemas = []string{
		``,
		`{"type":"object","properties":{"count":{"type":"integer"},"flag":{"type":"boolean"},"label":{"type":"string"}},"required":["count"]}`,
		`{"type":"object","properties":{"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},"z":{"type":"null"}}}`,
		`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
		`{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}},"opt":{"type":"object","properties":{"on":{"type":"boolean"}}}}}`,
		`{"type":"object","properties":{"v":{"anyOf":[{"type":"integer"},{"type":"boolean"}]},"t":{"type":["string","null"]},"e":{"enum":["a","b"]}}}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":0},"s":{"type":"string","minLength":2}},"required":["s"]}`,
		`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"k":{"type":"number"}},"required":["k"]}}},"required":["list"]}`,
		`{"type":"object","properties":{"u":{"type":["integer","string"]},"o":{"oneOf":[{"type":"string"},{"type":"number"}]},"c":{"const":"x"}}}`,
		`{"type":"object","additionalProperties":{"type":"integer"}}`,
		`{"type":"object","properties":{"d":{"type":"integer","default":5},"m":{"type":"integer","maximum":10,"exclusiveMinimum":0}}}`,
		`{"type":"object","allOf":[{"properties":{"a":{"type":"integer"}}},{"required":["a"]}]}`,
		`{"type":"object","properties":{"b":{"type":"boolean"},"arr":{"type":"array","items":{"type":"boolean"},"maxItems":2}},"additionalProperties":false}`,
		// Coercion's corners: a type list that starts with null, no
		// "type" at the top or in a nested object (no coercion below
		// it), additionalProperties true, a union of an object and a
		// string, a $ref (coercion does not follow it), patternProperties
		// (nor them), uniqueItems after coercion, not.
		`{"type":"object","properties":{"x":{"type":["null","number"]},"y":{"type":["integer","boolean"]},"w":{"type":["boolean","string"]}}}`,
		`{"properties":{"n":{"type":"number"},"o":{"properties":{"i":{"type":"integer"}}}}}`,
		`{"type":"object","properties":{"i":{"type":"integer"}},"additionalProperties":true}`,
		`{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"]},{"type":"string"}]},"ints":{"type":"array","items":{"type":"number"},"uniqueItems":true}}}`,
		`{"type":"object","properties":{"r":{"$ref":"#/$defs/num"}},"$defs":{"num":{"type":"integer"}}}`,
		`{"type":"object","patternProperties":{"^q":{"type":"integer"}},"properties":{"nn":{"not":{"type":"string"}},"en":{"type":"number","enum":[1,2.5]}}}`,
		`{"type":"object","properties":{"oo":{"type":"object","additionalProperties":{"type":"boolean"}},"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`,
		// As pi's validator reads schemas (docs/loop.md 6.4.3): formats,
		// a draft-07 tuple, keywords of the wrong type, a pattern.
		`{"type":"object","properties":{"when":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"tup":{"type":"array","items":[{"type":"integer"},{"type":"string"}],"additionalItems":false}},"required":"when"}`,
		`{"type":"object","properties":{"n":{"type":"number","minimum":"5","multipleOf":0.1},"pat":{"type":"string","pattern":"^.+$"},"kind":{"type":"nonsense"}}}`,
	}
	piValues = []string{`1`, `0`, `-3`, `2.5`, `"3"`, `"abc"`, `""`, `" 12 "`, `"0x10"`, `"true"`, `"false"`, `true`, `false`,
		`null`, `[1,"2"]`, `[]`, `{"on":"true"}`, `{}`, `"1e3"`, `"a"`, `"b"`, `"-0"`, `"12.0"`, `1`, `"Infinity"`,
		`"+5"`, `"5."`, `".5"`, `" "`, `"0b101"`, `"1e21"`, `-0.5`, `"NaN"`, `1.5`, `[true]`, `[{"k":"2"}]`, `{"a":1}`, `"null"`, `"x"`, `[1,2,3]`,
		`"0x1F"`, `"00012"`, `"-0x10"`, `"0.1e1"`, `"1e-7"`, `"0o7"`, `"١٢"`, `"  "`, `"TRUE"`, `"1.0"`, `0`, `[null]`, `{"k":"x"}`}
	piExtraKeys = []string{"other", "file", "path", "x", "a", "list", "k", "qa", "abort", "7", "10"}
	// piValid are values that satisfy the schemas' property of that name,
	// so that most calls get past validation to the tool and the hooks.
	piValid = map[string][]string{
		"count": {`1`, `7`}, "flag": {`true`}, "label": {`"x"`}, "n": {`2.5`, `1`}, "i": {`3`}, "s": {`"abc"`}, "b": {`false`},
		"z": {`null`}, "path": {`"a.txt"`}, "items": {`[1,2]`}, "opt": {`{"on":true}`}, "v": {`1`, `true`}, "t": {`"t"`, `null`},
		"e": {`"a"`}, "list": {`[{"k":1}]`}, "u": {`1`, `"u"`}, "o": {`"o"`, `2`}, "c": {`"x"`}, "d": {`5`}, "m": {`3`}, "a": {`1`},
		"arr": {`[true]`}, "other": {`1`}, "file": {`"f.txt"`}, "x": {`2`, `null`}, "k": {`4`},
		"y": {`2`, `true`}, "w": {`"w"`, `false`}, "ints": {`[1,2]`}, "r": {`3`}, "qa": {`7`}, "nn": {`1`}, "en": {`2.5`},
		"oo": {`{"p":true}`}, "num": {`1`}, "abort": {`true`},
		"when": {`"2020-01-01T00:00:00Z"`, `"2020-01-01"`}, "mail": {`"a@b.co"`, `"nope"`}, "tup": {`[1,"a"]`, `["2",3]`, `[1,"a",3]`},
		"pat": {`"ok"`, `""`}, "kind": {`1`, `"x"`},
	}
	piJSON    = hosttest.JSONValues
	piSamples = hosttest.Texts

	piReasons   = []string{"", "not allowed", "policy says no"}
	piErrors    = []string{"disk full", "", "boom: nested error"}
	piToolNames = []string{"echo", "calc", "read", "list"}
	// piSchemaKeys are keys a schema names anywhere (properties of allOf
	// members too), for args.
	piSchemaKeys = regexp.MustCompile(`"([a-z]+)":\{`)
)

type piGen struct {
	r      *rand.Rand
	sc     *piScenario
	nextID int
	turnN  int // turn_end events so far, to aim triggers
}

func (g *piGen) chance(n int) bool               { return g.r.IntN(n) == 0 }
func (g *piGen) pick(xs []string) string         { return xs[g.r.IntN(len(xs))] }
func (g *piGen) ptr(xs []string) *string         { s := g.pick(xs); return &s }
func (g *piGen) boolPtr() *bool                  { b := g.chance(2); return &b }
func (g *piGen) raw(xs []string) json.RawMessage { return json.RawMessage(g.pick(xs)) }

// generatePiScenario makes a random valid scenario from seed.
func generatePiScenario(seed uint64) *piScenario {
	g := &piGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), sc: &piScenario{Seed: seed, Calls: map[string]*piCall{}}}
	sc := g.sc
	sc.ChunkTokens = []int{1, 4, 16, 16}[g.r.IntN(4)]
	sc.Agent = g.chance(2)
	if g.chance(4) {
		sc.ToolExecution = "sequential"
	}
	if g.chance(3) {
		sc.SteeringMode = "all"
	}
	if g.chance(3) {
		sc.FollowUpMode = "all"
	}
	sc.BeforeHook = g.chance(3)
	sc.AfterHook = g.chance(3)
	sc.Continue = g.chance(6)
	if !sc.Agent && g.chance(6) {
		sc.StopAfterTurn = 1 + g.r.IntN(2)
	}
	sc.History = g.chance(5)
	if g.chance(4) {
		sc.ThinkingLevel = g.pick([]string{"off", "low", "high"})
	}
	sc.State = sc.Agent && g.chance(3)
	if sc.Agent && g.chance(12) {
		sc.ConvertFail = 1 + g.r.IntN(3)
	}
	sc.NoModel = sc.Agent && g.chance(40)
	if sc.Agent && g.chance(15) {
		sc.TransformFail = 1 + g.r.IntN(3)
	}
	// No prompt: a continuation from the history's tool result, or an
	// Agent prompted with an empty list.
	nPrompts := 1 + g.r.IntN(2)
	if (sc.History || sc.Agent) && g.chance(8) {
		nPrompts = 0
	}
	sc.Prompts = []string{}
	for range nPrompts {
		sc.Prompts = append(sc.Prompts, g.text(""))
	}
	if sc.Agent && len(sc.Prompts) == 1 && g.chance(5) {
		// prompt(text) or prompt(text, images): a user message the Agent makes.
		if p := sc.Prompts[0]; !strings.HasPrefix(p, "@note ") && !strings.HasPrefix(p, "@assistant ") && !strings.HasPrefix(p, "@result ") && !strings.HasPrefix(p, "@json ") {
			sc.PromptText = true
		}
	}
	sc.ConvertNotes = g.chance(2)
	if g.chance(8) {
		sc.KeepLast = 1 + g.r.IntN(4)
	}
	for i, name := range piToolNames[:1+g.r.IntN(len(piToolNames))] {
		t := piTool{Name: name, Sequential: g.chance(6), Prepare: g.chance(6)}
		if s := piSchemas[g.r.IntN(len(piSchemas))]; s != "" || i > 0 {
			t.Parameters = json.RawMessage(s)
		}
		sc.Tools = append(sc.Tools, t)
	}
	if g.chance(10) { // a second tool of the same name: the first one counts
		t := sc.Tools[g.r.IntN(len(sc.Tools))]
		t.Parameters, t.Sequential = json.RawMessage(piSchemas[1+g.r.IntN(len(piSchemas)-1)]), !t.Sequential
		sc.Tools = append(sc.Tools, t)
	}
	nTurns := 1 + g.r.IntN(4)
	for i := range nTurns {
		sc.Turns = append(sc.Turns, g.turn(i == nTurns-1))
	}
	for range g.r.IntN(5) {
		q := g.queued()
		if n := len(sc.Queue); n > 0 && q.Kind != "prompt" && q.Kind != "continue" && g.chance(2) {
			q.On, q.Nth = sc.Queue[n-1].On, sc.Queue[n-1].Nth // several at once
		}
		sc.Queue = append(sc.Queue, q)
	}
	if sc.Agent && sc.Continue && g.chance(2) {
		// Messages waiting when the run ends: continue() runs the first
		// steering one (or else a follow-up) as its prompt.
		for range 1 + g.r.IntN(3) {
			q := g.queued()
			if q.Kind == "prompt" || q.Kind == "continue" {
				q.Kind, q.Text = "steer", g.text("steer ")
			}
			q.On, q.Nth = "agent_end", 1
			sc.Queue = append(sc.Queue, q)
		}
	}
	if sc.Agent && g.chance(5) { // a second prompt after the runs
		sc.Then = []string{}
		for range 1 + g.r.IntN(2) {
			sc.Then = append(sc.Then, g.text("then "))
		}
		sc.Turns = append(sc.Turns, g.turn(true))
	}
	switch {
	case g.chance(8):
		ref := g.eventRef(false)
		sc.AbortAt = &ref
	case g.chance(40): // before the run: the Agent is idle, the loop's signal already aborted
		sc.AbortAt = &piEventRef{}
	}
	if slices.ContainsFunc(sc.Queue, func(q piQueued) bool { return q.Kind == "subscribe" }) {
		// pi delivers a call's updates without waiting for the listeners,
		// so a second listener would see two updates of a call after the
		// first listener saw both: one update each. And a call waiting
		// for another's end, woken by the first listener, would go on
		// before the second listener has seen that end: calls run one at
		// a time (docs/loop.md 17.2).
		sc.ToolExecution = "sequential"
		for _, c := range sc.Calls {
			c.Updates, c.Wait = c.Updates[:min(1, len(c.Updates))], nil
		}
	}
	// Only the Agent: a failing emit function of the loop itself ends the
	// run differently on purpose (docs/loop.md 15.2).
	if sc.Agent && g.chance(10) {
		sc.FailAt = &piEventRef{On: g.pick([]string{"agent_start", "turn_start", "message_end user", "message_end assistant", "turn_end", "agent_end",
			"message_update text_delta", "message_update toolcall_end"}), Nth: 1 + g.r.IntN(2)}
		ids := g.callIDs()
		switch {
		case len(ids) == 0:
		case g.chance(3):
			// A call's start: in a parallel batch too, its preflight is
			// awaited call by call.
			sc.FailAt = &piEventRef{On: "tool_execution_start " + g.pick(ids), Nth: 1}
		case sc.ToolExecution != "sequential":
			// Elsewhere in a parallel batch, pi ends the run while the
			// other calls still run (docs/loop.md 17.5).
		case g.chance(2):
			sc.FailAt = &piEventRef{On: g.pick([]string{"tool_execution_end ", "message_end toolResult "}) + g.pick(ids), Nth: 1}
		default:
			if ids := g.updatingCalls(); len(ids) > 0 {
				// An update: pi delivers the call's later updates before
				// the run fails (docs/loop.md 6.5).
				sc.FailAt = &piEventRef{On: "tool_execution_update " + g.pick(ids), Nth: 1}
			}
		}
	}
	return sc
}

// callIDs returns the ids of the calls, sorted.
func (g *piGen) callIDs() []string {
	ids := make([]string, 0, len(g.sc.Calls))
	for id := range g.sc.Calls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// updatingCalls returns the ids of the calls that send updates, sorted.
func (g *piGen) updatingCalls() []string {
	var ids []string
	for id, c := range g.sc.Calls {
		if len(c.Updates) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// text is a user message's text: now and then a note (a custom message),
// a text with an image, or a message given as JSON (hosttest.Given).
func (g *piGen) text(prefix string) string {
	switch g.r.IntN(18) {
	case 5, 6:
		return "@json " + hosttest.Given{R: g.r}.Message(prefix, "h1")
	case 0, 1:
		return "@note " + prefix + g.pick(piSamples)
	case 2:
		return "@image " + prefix + g.pick(piSamples)
	case 3:
		return "@assistant " + prefix + g.pick(piSamples)
	case 4:
		return "@result " + prefix + g.pick(piSamples)
	}
	return prefix + g.pick(piSamples)
}

func (g *piGen) turn(last bool) piTurn {
	if g.chance(15) {
		return piTurn{Throw: g.pick(piErrors)}
	}
	var t piTurn
	if g.chance(4) {
		t.Content = append(t.Content, piBlock{Type: "thinking", Thinking: g.ptr(piSamples)})
	}
	if g.chance(2) {
		t.Content = append(t.Content, piBlock{Type: "text", Text: g.ptr(piSamples)})
	}
	nCalls := 0
	if !last || g.chance(4) {
		nCalls = g.r.IntN(4)
	}
	var names, ids []string
	for range nCalls {
		c := g.call()
		t.Content = append(t.Content, c)
		names, ids = append(names, c.Name), append(ids, c.ID)
	}
	if nCalls > 1 && g.sc.batchIsSequential(names) && g.chance(8) {
		// A model that repeats an id (only where calls run one at a time:
		// waits could not tell the two apart).
		delete(g.sc.Calls, ids[nCalls-1])
		t.Content[len(t.Content)-1].ID = ids[0]
		ids[nCalls-1] = ids[0]
	}
	if g.chance(6) && len(t.Content) > 1 { // a text after the calls
		t.Content = append(t.Content, piBlock{Type: "text", Text: g.ptr(piSamples)})
	}
	switch {
	case g.chance(12):
		t.StopReason, t.ErrorMessage = "error", g.pick(piErrors)
	case g.chance(12):
		t.StopReason, t.ErrorMessage = "aborted", "Request was aborted"
	case g.chance(10):
		t.StopReason = "length"
	case nCalls > 0 && !g.chance(10):
		t.StopReason = "toolUse"
	default:
		t.StopReason = "stop"
	}
	if t.ErrorMessage == "" && g.chance(20) { // an error message beside a normal stop
		t.ErrorMessage = g.pick(piErrors)
	}
	if g.chance(8) {
		t.ResponseID = g.pick([]string{"resp-1", "r"})
	}
	t.Digest = g.chance(3)
	g.forceOrder(names, ids)
	if g.chance(8) {
		t.Digest, t.ResponseID = false, ""
		g.rawStream(&t)
	}
	return t
}

// forceOrder makes a parallel batch's end order deterministic: in a random
// order, each call waits for the ends of all calls before it. (Without it
// the order of concurrent ends is pi's microtask order, which nothing in Go
// reproduces; waiting for every earlier call, not only the previous one,
// keeps the order total when a call ends early in the preflight.)
func (g *piGen) forceOrder(names, ids []string) {
	if len(ids) < 2 || g.sc.batchIsSequential(names) {
		return
	}
	perm := g.r.Perm(len(ids))
	for k := 1; k < len(perm); k++ {
		c := g.sc.Calls[ids[perm[k]]]
		for _, j := range perm[:k] {
			c.Wait = append(c.Wait, ids[j])
		}
	}
}

func (g *piGen) call() piBlock {
	g.nextID++
	id := fmt.Sprintf("c%d", g.nextID)
	name := g.pick(piToolNames)
	var schema json.RawMessage
	if g.chance(10) {
		name = g.pick([]string{"nope", "Echo"})
	} else if t := g.tool(name); t == nil {
		name = g.sc.Tools[0].Name
	}
	if t := g.tool(name); t != nil {
		schema = t.Parameters
	}
	c := &piCall{}
	g.sc.Calls[id] = c
	if g.chance(4) {
		for range 1 + g.r.IntN(2) {
			c.Updates = append(c.Updates, g.raw(piJSON))
		}
	}
	switch {
	case g.chance(8):
		c.Throw = g.ptr(piErrors)
	case g.chance(30):
		c.Abort = true
	}
	if g.chance(4) {
		c.Text = g.ptr(piSamples)
	}
	c.Image = g.chance(10)
	c.Empty = g.chance(12)
	if g.chance(3) {
		c.Details = g.raw(piJSON)
	}
	if g.chance(3) {
		c.Terminate = g.boolPtr()
	}
	if g.chance(4) {
		c.Extra = json.RawMessage(hosttest.Given{R: g.r}.ExtraObject())
	}
	if g.sc.BeforeHook && g.chance(3) {
		c.Before = &piBefore{Block: !g.chance(4), Echo: g.chance(3), Abort: g.chance(12)}
		if !c.Before.Echo && g.chance(2) {
			c.Before.Reason = g.ptr(piReasons)
		}
		if g.chance(6) {
			c.Before.Throw = g.ptr(piErrors)
		}
	}
	if g.sc.AfterHook && !g.chance(3) {
		c.After = g.after()
	}
	return piBlock{Type: "toolCall", ID: id, Name: name, Arguments: g.args(schema)}
}

func (g *piGen) after() *piAfter {
	a := &piAfter{Abort: g.chance(15)}
	if g.chance(8) {
		a.Throw = g.ptr(piErrors)
		return a
	}
	switch {
	case g.chance(3):
		a.Echo = true
	case g.chance(2):
		texts := []string{}
		for range g.r.IntN(3) {
			texts = append(texts, g.pick(piSamples))
		}
		a.Content = &texts
	}
	if g.chance(3) {
		a.Details = g.raw(piJSON)
	}
	if g.chance(3) {
		a.IsError = g.boolPtr()
	}
	if g.chance(3) {
		a.Terminate = g.boolPtr()
	}
	return a
}

func (g *piGen) tool(name string) *piTool {
	for i := range g.sc.Tools {
		if g.sc.Tools[i].Name == name {
			return &g.sc.Tools[i]
		}
	}
	return nil
}

// args draws an arguments object: some of the schema's properties (and
// now and then another key) with values from piValues, in random order.
func (g *piGen) args(schema json.RawMessage) json.RawMessage {
	if g.chance(25) { // a model that sends no object
		return g.raw([]string{`[]`, `[{"k":1}]`, `"text"`, `5`, `null`, `true`})
	}
	var keys []string
	for _, m := range piSchemaKeys.FindAllStringSubmatch(string(schema), -1) {
		if k := m[1]; !slices.Contains([]string{"properties", "items", "additionalProperties"}, k) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 || g.chance(5) {
		keys = append(keys, g.pick(piExtraKeys))
	}
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	// Array-index keys first, ascending, as a JavaScript object has them:
	// the faux provider streams JSON.stringify of the parsed arguments,
	// host/scripted the text as written.
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, errA := strconv.Atoi(a)
		ib, errB := strconv.Atoi(b)
		switch {
		case errA == nil && errB == nil:
			return ia - ib
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		}
		return 0
	})
	var parts []string
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] || g.chance(4) {
			continue
		}
		seen[k] = true
		v := g.pick(piValues)
		if valid := piValid[k]; valid != nil && !g.chance(3) {
			v = g.pick(valid)
		}
		parts = append(parts, fmt.Sprintf("%q:%s", k, v))
	}
	return json.RawMessage("{" + strings.Join(parts, ",") + "}")
}

// piTriggerEvents are events whose place in the stream is the same on both
// sides, whatever the scheduling: never message_update (pi's faux provider
// streams ahead of its consumer) nor tool_execution_update (pi delivers an
// update inside onUpdate, we after it).
func (g *piGen) eventRef(queue bool) piEventRef {
	ids := make([]string, 0, len(g.sc.Calls))
	for id := range g.sc.Calls {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	kinds := []string{"agent_start", "turn_start", "turn_end", "message_end assistant", "message_end user", "agent_end"}
	if queue { // an abort there would land mid-stream, where pi's faux provider runs ahead
		kinds = append(kinds, "message_start assistant")
	}
	if len(ids) > 0 && g.chance(2) {
		id := g.pick(ids)
		return piEventRef{On: g.pick([]string{"tool_execution_start ", "tool_execution_end ", "message_end toolResult "}) + id, Nth: 1}
	}
	return piEventRef{On: g.pick(kinds), Nth: 1 + g.r.IntN(3)}
}

func (g *piGen) queued() piQueued {
	q := piQueued{Kind: "steer", Text: g.text("steer ")}
	switch {
	case g.sc.Agent && g.chance(4):
		q.Kind, q.Text = g.pick(piActions), ""
		switch q.Kind {
		case "steeringMode", "followUpMode":
			q.Text = g.pick([]string{"all", "one-at-a-time"})
		case "systemPrompt":
			q.Text = g.pick(piSamples)
		case "thinking":
			q.Text = g.pick([]string{"off", "low", "high"})
		case "appendMessage":
			q.Text = g.text("appended ")
		}
	case g.sc.Agent && g.chance(12):
		q.Kind = g.pick([]string{"prompt", "continue"})
		ref := g.eventRef(true)
		q.On, q.Nth = ref.On, ref.Nth
		return q
	case g.chance(2):
		q.Kind, q.Text = "followUp", g.text("follow ")
	}
	if g.chance(4) {
		return q
	}
	ref := g.eventRef(true)
	q.On, q.Nth = ref.On, ref.Nth
	return q
}
