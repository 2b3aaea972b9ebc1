package host_test

import (
	"context"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/scripted"
)

// TestHostImports: host imports the standard library, the JSON Schema
// validator and its own internal packages (host/internal, which import
// the standard library only), nothing else (DESIGN.md, RATIONALE.md).
func TestHostImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	inner, _ := filepath.Glob(filepath.Join("internal", "*", "*.go"))
	files = append(files, inner...)
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first := strings.SplitN(path, "/", 2)[0]
			own := strings.HasPrefix(path, "github.com/wasmagent/wasmagent/host/internal/") && !strings.HasPrefix(f, "internal")
			if strings.Contains(first, ".") && !strings.HasPrefix(path, "github.com/santhosh-tekuri/jsonschema/v6") && !own {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
}

// Custom messages stay in the transcript and never reach the model.
func TestCustomMessagesFilteredForModel(t *testing.T) {
	m := scripted.Of(say("ok"))
	note := &host.CustomMessage{Role: "bookmark"}
	c := &host.Context{Messages: []host.Message{note}}
	if _, err := host.RunLoop(context.Background(), []host.Message{user("q")}, c, &host.Config{Model: m}, func(context.Context, host.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 || len(reqs[0].Messages) != 1 || reqs[0].Messages[0].MessageRole() != host.RoleUser {
		t.Fatalf("the model was sent %v", reqs[0].Messages)
	}
}
