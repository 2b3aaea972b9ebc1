// Package web is the page "wasmagent serve" shows at /: a token's sessions
// and, for one session, its conversation and a timeline of each turn (the
// model's answer, then every tool call as a bar from its start to its end),
// updated live from the session's event stream (docs/serve-page.md).
//
// The page is plain HTML, CSS and JavaScript modules embedded in the
// binary: no build step, no framework, nothing fetched from elsewhere. It
// talks only to the server that served it, through the /v1 API, with the
// bearer token the user types (kept in the tab's sessionStorage and sent
// as the Authorization header, also for the event stream, which is read
// with fetch rather than EventSource for that reason).
//
// [Handler] serves the files with a strict Content-Security-Policy (no
// inline script or style, no other origin), and text from models and tools
// is put into the page as text only, never as markup.
package web
