package sdk_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmagent/wasmagent/sdk"
)

type inner struct {
	Z int `json:"z"`
}

type Base struct {
	ID string `json:"id" description:"the id"`
}

type allKinds struct {
	Base
	Name     string            `json:"name" description:"who" enum:"a,b"`
	Count    uint16            `json:"count,omitempty"`
	Ratio    float64           `json:"ratio,omitzero"`
	On       *bool             `json:"on"`
	Tags     []string          `json:"tags"`
	Pair     [2]int            `json:"pair"`
	Labels   map[string]inner  `json:"labels"`
	Raw      json.RawMessage   `json:"raw"`
	When     time.Time         `json:"when"`
	Blob     []byte            `json:"blob"`
	Any      any               `json:"any"`
	Skip     string            `json:"-"`
	NoTag    bool              ``
	hidden   int               //nolint:unused // unexported: not in the schema
	Nested   *inner            `json:"nested"`
	MapOfAny map[string]string `json:"mapOfAny,omitempty"`
}

func TestSchemaFor(t *testing.T) {
	got, err := sdk.SchemaFor[allKinds]()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{` +
		`"NoTag":{"type":"boolean"},` +
		`"any":{},` +
		`"blob":{"contentEncoding":"base64","type":"string"},` +
		`"count":{"minimum":0,"type":"integer"},` +
		`"id":{"description":"the id","type":"string"},` +
		`"labels":{"additionalProperties":{"additionalProperties":false,"properties":{"z":{"type":"integer"}},"required":["z"],"type":"object"},"type":"object"},` +
		`"mapOfAny":{"additionalProperties":{"type":"string"},"type":"object"},` +
		`"name":{"description":"who","enum":["a","b"],"type":"string"},` +
		`"nested":{"additionalProperties":false,"properties":{"z":{"type":"integer"}},"required":["z"],"type":"object"},` +
		`"on":{"type":"boolean"},` +
		`"pair":{"items":{"type":"integer"},"maxItems":2,"minItems":2,"type":"array"},` +
		`"ratio":{"type":"number"},` +
		`"raw":{},` +
		`"tags":{"items":{"type":"string"},"type":"array"},` +
		`"when":{"format":"date-time","type":"string"}},` +
		`"required":["id","name","tags","pair","labels","raw","when","blob","any","NoTag"],"type":"object"}`
	if string(got) != want {
		t.Fatalf("schema:\n got %s\nwant %s", got, want)
	}
}

type loop struct {
	Next *loop `json:"next"`
}

func TestSchemaForRefusesWhatJSONCannotCarry(t *testing.T) {
	for name, f := range map[string]func() (json.RawMessage, error){
		"not a struct":   sdk.SchemaFor[string],
		"channel field":  sdk.SchemaFor[struct{ C chan int }],
		"int map keys":   sdk.SchemaFor[struct{ M map[int]string }],
		"recursive type": sdk.SchemaFor[loop],
	} {
		if _, err := f(); err == nil || !strings.HasPrefix(err.Error(), "sdk: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
