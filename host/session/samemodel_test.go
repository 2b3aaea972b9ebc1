package session

import (
	"context"
	"testing"

	"github.com/wasmagent/wasmagent/host"
)

// A session takes models of every kind an embedder may give, those Go
// cannot compare with == (a host.ModelFunc; a struct holding a func)
// included, in New and in Reconfigure; it panicked comparing them.
func TestModelsGoCannotCompare(t *testing.T) {
	fn := host.ModelFunc(func(context.Context, *host.Request, func(host.AssistantMessageEvent)) *host.AssistantMessage {
		return nil
	})
	type holder struct {
		host.ModelFunc
	}
	comparable := &holder{fn} // a pointer: comparable
	for _, c := range []struct {
		name   string
		models []Model
		agent  host.Model
		index  int
	}{
		{"a ModelFunc, defaulted", []Model{{Model: fn}}, nil, 0},
		{"a ModelFunc, given", []Model{{Model: fn}}, fn, -1},
		{"a struct holding a func", []Model{{Model: holder{fn}}, {Model: comparable}}, holder{fn}, -1},
		{"a pointer among them", []Model{{Model: holder{fn}}, {Model: comparable}}, comparable, 1},
	} {
		s := New(Options{Agent: host.AgentOptions{Model: c.agent}, Models: c.models})
		if s.model != c.index {
			t.Errorf("%s: New: model index %d, want %d", c.name, s.model, c.index)
		}
		if err := s.Reconfigure(host.AgentOptions{Model: c.agent}, c.models); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.model != c.index {
			t.Errorf("%s: Reconfigure: model index %d, want %d", c.name, s.model, c.index)
		}
	}
	if !sameModel(nil, nil) || sameModel(fn, nil) || sameModel(nil, comparable) {
		t.Error("sameModel with nil")
	}
}
