package config

import (
	"maps"
	"net/http"
	"os"
	"slices"

	"golang.org/x/net/http/httpguts"
)

// checkHeaders checks a table of HTTP headers whose values are the names
// of environment variables (telemetry.headers, model.headers): a header
// name no request may carry, or a value that is not a variable's name, is
// an error at key.NAME. The value is never echoed: it may be the secret
// itself.
func (c *checker) checkHeaders(key string, h map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if !httpguts.ValidHeaderFieldName(name) {
			c.errorf(key, "%q is not an HTTP header name", name)
		}
		if !validEnvName(h[name]) {
			c.errorf(key+"."+name, "give the name of the environment variable that holds the value, never the value itself")
		}
	}
}

// readHeaders reads the values of a table checkHeaders accepted from the
// environment: an unset or empty variable, or one holding what no header
// may carry, is an error naming key.NAME.
func (f *File) readHeaders(key string, from map[string]string) (http.Header, error) {
	h := http.Header{}
	for _, name := range slices.Sorted(maps.Keys(from)) {
		env := from[name]
		v := os.Getenv(env)
		if v == "" {
			return nil, f.errorf(key+"."+name, "the environment variable %s is empty or not set", env)
		}
		if !httpguts.ValidHeaderFieldValue(v) {
			return nil, f.errorf(key+"."+name, "the environment variable %s holds a value no HTTP header may carry", env)
		}
		h.Set(name, v)
	}
	return h, nil
}
