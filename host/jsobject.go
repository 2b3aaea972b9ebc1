package host

import (
	"encoding/json"
	"errors"
	"slices"
)

// Member is one member of a JSON object: its name and its value.
type Member struct {
	Name  string
	Value json.RawMessage
}

// EditObject is what JavaScript's assignments and deletes do to the
// object JSON.parse(raw) before JSON.stringify writes it again: each
// member of set takes its value where the object has it, or is added
// after the others, in set's order; the members named in del go. The
// rest stays as given (JSONStringify's bytes). pi edits the entries of
// a session file so when it upgrades one (an id and a parentId given,
// a role renamed), and writes them back in that order.
func EditObject(raw []byte, set []Member, del ...string) ([]byte, error) {
	c := jsCanon{raw: raw}
	c.space()
	if c.i >= len(raw) || raw[c.i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	c = jsCanon{raw: raw, i: c.i, copied: c.i}
	members, _, err := c.members(1)
	if err != nil {
		return nil, err
	}
	out := []byte{'{'}
	add := func(name string, value []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(appendJSQuotedUTF16(out, name), ':')
		out = append(out, value...)
	}
	done := make([]bool, len(set))
	for _, m := range members {
		if slices.Contains(del, m.key) {
			continue
		}
		if i := slices.IndexFunc(set, func(s Member) bool { return s.Name == m.key }); i >= 0 {
			add(m.key, set[i].Value)
			done[i] = true
			continue
		}
		add(m.key, raw[m.valFrom:m.valTo])
	}
	for i, s := range set {
		if !done[i] && !slices.Contains(del, s.Name) {
			add(s.Name, s.Value)
		}
	}
	return JSONStringify(append(out, '}'))
}
