package serve

import (
	_ "embed"
	"net/http"
)

// openAPI is the API's OpenAPI 3.1 description (TestOpenAPI checks it
// against the routes and the responses).
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(openAPI)
}
