package wasmtool

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wasmagent/wasmagent/internal/atomicfile"
	"github.com/wasmagent/wasmagent/runtime"
	"github.com/wasmagent/wasmagent/sdk"
)

// DescribeCache keeps plugins' descriptions between runs, so that a host
// can list a plugin's tools before the plugin is compiled, instantiated
// and described (docs/runtime.md, "Startup"). An entry is keyed by
// everything a description can depend on: the module's sha256, the ABI
// version, and the plugin's grants as the runtime would hold them (its
// configuration values, directories, hosts, credentials, clock, limits).
// A description that read files or the network while it was made is
// never kept, nor one made with the real wall clock granted. Entries are
// only hints: one that does not decode is ignored (logged at debug), and
// a cached description is checked against a fresh describe in the
// background before any call.
type DescribeCache struct {
	dir       string
	log       *slog.Logger
	writeOnly bool
}

// WriteOnly is a cache that keeps descriptions but never gives one: for
// loads that must describe every plugin (validating a configuration),
// and still leave the descriptions for the runs after.
func (c *DescribeCache) WriteOnly() *DescribeCache {
	w := *c
	w.writeOnly = true
	return &w
}

// cacheFormat is the version of the entries' format and of the key: a
// change to either makes every old entry a miss.
const cacheFormat = 1

// NewDescribeCache is a cache in dir (created when first written to);
// log receives the debug notes on entries ignored (nil: none).
func NewDescribeCache(dir string, log *slog.Logger) *DescribeCache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &DescribeCache{dir: dir, log: log}
}

// DefaultDescribeCacheDir is where descriptions are kept beside a
// compilation cache in compileDir ("" for the runtime's default).
func DefaultDescribeCacheDir(compileDir string) string {
	if compileDir == "" {
		compileDir = runtime.DefaultCacheDir()
	}
	return filepath.Join(compileDir, "describe")
}

// cacheKey is the key of a plugin's description: the hex sha256 of the
// format, the ABI version, the module's sha256 and the normalized grants.
func cacheKey(moduleSHA256 string, g runtime.Grants) (string, error) {
	grants, err := json.Marshal(g)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "wasmagent describe cache %d\x00abi %d\x00module %s\x00grants ", cacheFormat, sdk.ABIVersion, moduleSHA256)
	h.Write(grants)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cacheEntry is an entry's file.
type cacheEntry struct {
	Format      int             `json:"format"`
	Key         string          `json:"key"`
	Description json.RawMessage `json:"description"`
}

func (c *DescribeCache) path(key string) string { return filepath.Join(c.dir, key+".json") }

// get returns the description cached under key, or nil.
func (c *DescribeCache) get(key string) *sdk.Description {
	if c.writeOnly {
		return nil
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			c.log.Debug("describe cache: entry not read", "key", key, "err", err)
		}
		return nil
	}
	d, err := decodeEntry(b, key)
	if err != nil {
		c.log.Debug("describe cache: entry ignored", "file", c.path(key), "err", err)
		return nil
	}
	return d
}

// decodeEntry decodes an entry's file and checks it is the entry for key
// and that its description is one the host would accept from describe.
// Any file at all gives a description or an error, never a panic.
func decodeEntry(b []byte, key string) (*sdk.Description, error) {
	var e cacheEntry
	if err := decodeStrict(b, &e); err != nil {
		return nil, err
	}
	if e.Format != cacheFormat {
		return nil, fmt.Errorf("format %d, not %d", e.Format, cacheFormat)
	}
	if e.Key != key {
		return nil, fmt.Errorf("it is the entry of key %.16s…, not of %.16s…", e.Key, key)
	}
	return parseDescription(e.Description)
}

// put keeps raw (a describe output the host accepted) under key.
func (c *DescribeCache) put(key string, raw []byte) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return
	}
	b, err := json.Marshal(cacheEntry{Format: cacheFormat, Key: key, Description: compact.Bytes()})
	if err != nil {
		return
	}
	c.write(c.path(key), b)
}

// write writes an entry whole or not at all. A failure is only logged:
// the cache is an optimisation.
func (c *DescribeCache) write(path string, b []byte) {
	if err := atomicfile.Write(path, append(b, '\n')); err != nil {
		c.log.Debug("describe cache: not written", "err", err)
	}
}

// drop removes the entry of key.
func (c *DescribeCache) drop(key string) { os.Remove(c.path(key)) }

// sameDescription reports whether two descriptions say the same thing.
func sameDescription(a, b *sdk.Description) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
