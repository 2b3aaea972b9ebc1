package config

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (write \"30s\", \"2m\", \"1h30m\")", b)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", b)
	}
	d.Duration = v
	return nil
}

// Size is a byte count: an integer, or a string with a unit ("64KiB",
// "8MiB", "1GiB", "500kB", "2MB").
type Size int64

// UnmarshalTOML implements toml.Unmarshaler.
func (s *Size) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("size %d is negative", v)
		}
		*s = Size(v)
		return nil
	case string:
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		*s = Size(n)
		return nil
	}
	return fmt.Errorf("a size is an integer or a string like \"8MiB\", not %T", v)
}

var units = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"kB", 1000}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (write 4096, \"64KiB\", \"8MiB\", \"1GiB\")", s)
	}
	return n * mult, nil
}

// Value is a configuration value for a plugin: a string; a table
// {env = "NAME"} (with an optional default = "…") that reads an
// environment variable when the configuration is wired, never before; or
// any other table or array, which the plugin receives as JSON text (how
// structured settings such as policy rules are written).
type Value struct {
	Literal string
	Env     string
	Default *string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (v *Value) UnmarshalTOML(x any) error {
	switch x := x.(type) {
	case string:
		v.Literal = x
		return nil
	case int64, float64, bool:
		return fmt.Errorf("configuration values are strings: write %q", fmt.Sprint(x))
	case []any, []map[string]any: // an array, or an array of tables
		return v.setJSON(x)
	case map[string]any:
		if _, ok := x["env"]; !ok {
			return v.setJSON(x)
		}
		for k, val := range x {
			s, ok := val.(string)
			if !ok {
				return fmt.Errorf("%s must be a string", k)
			}
			switch k {
			case "env":
				v.Env = s
			case "default":
				v.Default = &s
			default:
				return fmt.Errorf("unknown key %q in a value (a value is a string or {env = \"NAME\", default = \"…\"})", k)
			}
		}
		if v.Env == "" {
			return fmt.Errorf("a table value needs env = \"NAME\"")
		}
		return nil
	}
	return fmt.Errorf("a configuration value is a string, {env = \"NAME\"}, a table or an array, not %s", describeValue(x))
}

func (v *Value) setJSON(x any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	v.Literal = string(b)
	return nil
}

// resolve returns the value, reading the environment if it says so.
func (v Value) resolve() (string, error) {
	if v.Env == "" {
		return v.Literal, nil
	}
	if s, ok := os.LookupEnv(v.Env); ok {
		return s, nil
	}
	if v.Default != nil {
		return *v.Default, nil
	}
	return "", fmt.Errorf("the environment variable %s is not set", v.Env)
}
