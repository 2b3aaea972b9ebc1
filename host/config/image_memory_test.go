package config_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmagent/wasmagent/host/config"
	"github.com/wasmagent/wasmagent/runtime"
)

// runtime.image_memory reaches the runtime; "auto" is its own choice.
func TestImageMemoryKey(t *testing.T) {
	for value, want := range map[string]runtime.ImageMemory{"copy": runtime.ImageMemoryCopy, "map": runtime.ImageMemoryMap, "auto": ""} {
		path := filepath.Join(t.TempDir(), "agent.toml")
		os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nname = \"m\"\n[runtime]\ncache_dir = \"off\"\nimage_memory = \""+value+"\"\n"), 0o644)
		f, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.Wire(context.Background(), config.WireOptions{NoModel: true})
		if err != nil {
			t.Fatal(err)
		}
		got := s.Runtime.ImageMemory()
		s.Close()
		if want == "" {
			if got != runtime.ImageMemoryCopy && got != runtime.ImageMemoryMap {
				t.Errorf("auto: the runtime has %q, want its own choice of copy or map", got)
			}
		} else if got != want {
			t.Errorf("image_memory = %q: the runtime has %q", value, got)
		}
	}
}
