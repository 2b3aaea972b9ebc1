package telemetry

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/wasmagent/wasmagent/internal/wasmbuild"
)

// TestNoGRPCInAnyBuild: no package of the module, nor any of its tests,
// imports gRPC. It came in once through a test's import of the OTLP
// collector packages (which hold the gRPC stubs), costing every cold make
// test 91 more packages to compile and this package's test binary 40 MB
// (RATIONALE.md: "Why does host/telemetry's test decode OTLP with
// TracesData?").
func TestNoGRPCInAnyBuild(t *testing.T) {
	root, err := wasmbuild.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wasmbuild.GoTool(), "list", "-e", "-deps", "-test", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, _ := strings.Cut(line, "\t")
		if grpcPackage(pkg) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if grpcPackage(imp) {
				t.Errorf("%s imports %s: gRPC is in the build again", pkg, imp)
			}
		}
	}
}

func grpcPackage(path string) bool {
	return path == "google.golang.org/grpc" || strings.HasPrefix(path, "google.golang.org/grpc/") ||
		strings.HasPrefix(path, "github.com/grpc-ecosystem/") || strings.HasPrefix(path, "go.opentelemetry.io/proto/otlp/collector/")
}
