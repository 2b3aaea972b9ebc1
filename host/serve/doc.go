// Package serve is "wasmagent serve": many owners' sessions over HTTP,
// their events as Server-Sent Events, behind bearer tokens and quotas.
// It is a transport, as host/rpc is: it translates requests into the
// session commands of host/session (through a [Backend]) and never runs
// a command of its own.
//
// The API (docs/serve.md; the OpenAPI 3.1 document at /v1/openapi.json):
//
//	POST   /v1/sessions                    create (name, systemPrompt, model)
//	GET    /v1/sessions                    the caller's sessions
//	GET    /v1/sessions/{id}               one
//	DELETE /v1/sessions/{id}               abort its run and delete it
//	GET    /v1/sessions/{id}/messages      its transcript (pi's AgentMessage JSON)
//	POST   /v1/sessions/{id}/prompt        pi's RPC prompt: {"message","images","streamingBehavior"}
//	POST   /v1/sessions/{id}/steer         pi's RPC steer: {"message","images"}
//	POST   /v1/sessions/{id}/follow_up     pi's RPC follow_up: {"message","images"}
//	POST   /v1/sessions/{id}/abort         pi's RPC abort: {}
//	GET    /v1/sessions/{id}/events        SSE: "id:" and "data:" per event, Last-Event-ID resume
//
// Errors are {"error":{"code","message"}} with the status the code names.
// A session of another token is 404, as one that does not exist.
//
// [New] makes the HTTP server over any [Backend]; [NewLocal] is the
// backend over host/session's file store, with an event journal per
// session. Options.Metrics and Options.Web mount a /metrics handler and a
// page at / when given. docs/serve.md says how to run and deploy it.
package serve
