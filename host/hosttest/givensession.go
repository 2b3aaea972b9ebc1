package hosttest

import (
	"fmt"
	"strings"
)

// SessionFile is a session file in pi-coding-agent's format (version 3
// mostly, now and then 1 or 2, the header's version absent now and then
// in version 1) with header id id: one to twelve entries of every type pi
// writes (messages of Message's shapes and assistant tool calls, custom
// messages, branch summaries, compactions, model and thinking level
// changes, names, labels, extension entries), each the child of the one
// before or now and then of an earlier one (a branch), with now and then
// members no entry type declares, entry timestamps that are not strings
// or absent, entries of a type pi does not write or of none, lines of
// JSON that is no object, and content blocks no type holds (Given.Odd).
//
// loadable keeps to what pi's RPC mode can go on from: version 3, messages
// pi-ai's providers and session statistics read (content arrays in tool
// results, an assistant's usage whole), every tool call answered right
// after it and never branched from, no model change, the model's
// provider "$PROVIDER" (for the caller to replace), and an assistant
// message at the end.
func (g Given) SessionFile(id string, loadable bool) string {
	r := g.R
	g.Odd, g.Spelled = !loadable, !loadable
	version := 3
	if !loadable && r.IntN(5) == 0 {
		version = 1 + r.IntN(2)
	}
	var b strings.Builder
	header := fmt.Sprintf(`{"type":"session","version":%d,"id":%q,"timestamp":"2025-01-01T00:00:00.000Z","cwd":"/work"}`, version, id)
	if version == 1 && r.IntN(2) == 0 {
		header = strings.Replace(header, `"version":1,`, "", 1)
	}
	b.WriteString(header + "\n")
	var ids, parents []string // every entry's id; those a branch may start from
	calls := 0
	provider := `"p"`
	if loadable {
		provider = `"$PROVIDER"`
	}
	kinds := []string{"message", "message", "message", "message", "custom_message", "branch_summary", "compaction",
		"model_change", "thinking_level_change", "session_info", "label", "custom"}
	if loadable {
		kinds = kinds[:len(kinds)-1]
		kinds[7] = "message"
	}
	n := 1 + r.IntN(12)
	for i := 0; i < n; i++ {
		var fields []string
		add := func(name, value string) { fields = append(fields, fmt.Sprintf("%q:%s", name, value)) }
		kind := kinds[r.IntN(len(kinds))]
		if version == 1 {
			kind = []string{"message", "message", "thinking_level_change", "model_change", "compaction"}[r.IntN(5)]
		}
		last := loadable && i == n-1
		if last {
			kind = "message"
		}
		if !loadable && version > 1 && g.chance(25) {
			kind = g.Pick([]string{"x-extension", "", "message-like"}) // pi keeps what it does not know
		}
		if kind != "" {
			add("type", fmt.Sprintf("%q", kind))
		}
		entry := fmt.Sprintf("%08x", r.Uint32())
		if version > 1 {
			add("id", fmt.Sprintf("%q", entry))
			parent := "null"
			if len(ids) > 0 {
				parent = fmt.Sprintf("%q", ids[len(ids)-1])
				if len(parents) > 0 && r.IntN(5) == 0 {
					parent = fmt.Sprintf("%q", parents[r.IntN(len(parents))])
				}
			}
			add("parentId", parent)
		}
		ts := fmt.Sprintf(`"2025-01-01T00:00:%02d.000Z"`, i+1)
		if !loadable && g.chance(6) {
			// as `new Date(ts)` reads them: NaN, a number's whole part,
			// null as 0, true as 1, absent as NaN
			ts = g.Pick([]string{`"not a time"`, `5`, `1.5`, `-3.7`, `null`, `true`, `""`, `1e300`, `{}`, ""})
		}
		if ts != "" {
			add("timestamp", ts)
		}
		earlier := func() string {
			if len(ids) == 0 {
				return `"none"`
			}
			return fmt.Sprintf("%q", ids[r.IntN(len(ids))])
		}
		call := false
		switch kind {
		case "message":
			switch {
			case last || (loadable && g.chance(3)):
				add("message", g.loadableAssistant(provider, 10+i))
			case g.chance(4) && (!loadable || i < n-2):
				calls, call = calls+1, true
				add("message", fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":"call_%d","name":"echo","arguments":%s}],"api":"openai-completions","provider":%s,"model":"m","usage":%s,"stopReason":"toolUse","timestamp":%d}`,
					calls, g.Pick([]string{`{}`, `{"path":"a.txt"}`}), provider, ZeroUsage, 10+i))
			case !loadable && g.chance(20): // no role to go by: pi keeps it, and sends it to no model
				add("message", g.Pick([]string{`"just text"`, `{"content":"no role","timestamp":1}`, `{"role":5,"content":[]}`, `[1]`}))
			case !loadable && g.chance(6): // pi renames the role in files older than version 3 only
				add("message", `{"role":"hookMessage","customType":"h","content":"from a hook","display":true,"timestamp":3}`)
			default:
				m := g.Message("", fmt.Sprintf("call_%d", calls))
				for loadable && (strings.Contains(m, `"role":"assistant"`) || strings.Contains(m, `"role":"toolResult"`)) {
					m = g.Message("", fmt.Sprintf("call_%d", calls))
				}
				add("message", m)
			}
		case "custom_message":
			add("customType", `"note"`)
			if loadable || !g.chance(6) {
				add("content", g.Pick([]string{`"a note"`, `[{"type":"text","text":"a note"}]`, `""`}))
			}
			if !g.chance(6) {
				add("display", g.Pick([]string{"true", "false"}))
			}
			if g.chance(2) {
				add("details", g.value())
			}
		case "branch_summary":
			add("fromId", earlier())
			add("summary", g.Pick([]string{`"what the branch did"`, `""`, `"what the branch did"`, `null`, `7`}))
		case "compaction":
			add("summary", `"the summary"`)
			if version == 1 { // an index into the file's lines, the header being 0
				add("firstKeptEntryIndex", fmt.Sprint(r.IntN(i+2)))
			} else {
				add("firstKeptEntryId", earlier())
			}
			if !g.chance(5) {
				add("tokensBefore", "1234")
			}
		case "model_change":
			add("provider", `"p"`)
			add("modelId", `"m2"`)
		case "thinking_level_change":
			add("thinkingLevel", g.Pick([]string{`"high"`, `"low"`, `"off"`}))
		case "session_info":
			add("name", g.Pick([]string{`"named"`, `"  padded  "`, `""`}))
		case "label":
			add("targetId", earlier())
			add("label", `"bookmark"`)
		case "custom":
			add("customType", `"ext"`)
			add("data", g.value())
		}
		if g.chance(8) {
			fields = append(fields, g.ExtraMembers()[1:])
		}
		if !loadable && g.chance(10) {
			// a name of the entry's own but for its case: another member
			// to pi (encoding/json's structs would take it for the own)
			fields = append(fields, g.Pick([]string{`"Id":"x1"`, `"ParentID":null`, `"Type":"label"`, `"TIMESTAMP":5`, `"Name":"n"`, `"ThinkingLevel":"low"`}))
		}
		sep := ","
		if !loadable && g.chance(6) {
			// members in another order, spaced: pi writes them back in
			// the order given, without the spaces
			r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
			sep = " , "
		}
		b.WriteString("{" + strings.Join(fields, sep) + "}\n")
		if !loadable && version > 1 && g.chance(15) {
			// JSON that is no object: pi keeps the line, on no branch; the
			// last line, it is a current position of no messages
			b.WriteString(g.Pick([]string{`5`, `"a line"`, `[1,{"a":2}]`, `true`}) + "\n")
		}
		ids = append(ids, entry)
		if call && loadable {
			// its result, at once: a loadable branch never leaves a call unanswered
			i++
			rid := fmt.Sprintf("%08x", r.Uint32())
			fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%q,"timestamp":"2025-01-01T00:00:%02d.000Z","message":{"role":"toolResult","toolCallId":"call_%d","toolName":"echo","content":[{"type":"text","text":"echoed"}],"isError":false,"timestamp":%d}}`+"\n",
				rid, entry, i+1, calls, 10+i)
			ids, parents = append(ids, rid), append(parents, rid)
			continue
		}
		if !call {
			parents = append(parents, entry)
		}
	}
	return b.String()
}

// loadableAssistant is an assistant message of text (and thinking) with
// pi-ai's fields, now and then with an empty errorMessage, usage with one
// more member, or members no type declares.
func (g Given) loadableAssistant(provider string, timestamp int) string {
	usage := ZeroUsage
	if g.chance(3) {
		usage = `{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5},"reasoning":4}`
	}
	text := fmt.Sprintf("%q", g.Pick(Texts[2:]))
	content := `[{"type":"text","text":` + text + `}]`
	if g.chance(3) {
		content = `[{"type":"thinking","thinking":"hm"},{"type":"text","text":` + text + `}]`
	}
	m := fmt.Sprintf(`{"role":"assistant","content":%s,"api":"openai-completions","provider":%s,"model":"m","usage":%s,"stopReason":"stop","timestamp":%d`, content, provider, usage, timestamp)
	if g.chance(4) {
		m += `,"errorMessage":""`
	}
	if g.chance(3) {
		m += g.ExtraMembers()
	}
	return m + "}"
}
