package config

import (
	"context"
	"net/http/httptrace"

	"github.com/wasmagent/wasmagent/host"
	"github.com/wasmagent/wasmagent/host/wasmtool"
)

// startOnRequest is m, opening start once its first request is written
// to the connection (an HTTP model), or once a request ends without one
// (a scripted model, a failure before sending): the plugins' background
// loads then run while the model thinks (WireOptions.HoldLoads).
//
// The wrapper is a pointer: a session compares the models it is given
// (==), and a struct holding a model of an uncomparable type (a
// host.ModelFunc) made that comparison panic.
func startOnRequest(m host.Model, start *wasmtool.Start) host.Model {
	s := startModel{m: m, start: start}
	if d, ok := m.(host.ModelDescriber); ok {
		return &describedStartModel{s, d}
	}
	return &s
}

type startModel struct {
	m     host.Model
	start *wasmtool.Start
}

func (s startModel) Stream(ctx context.Context, req *host.Request, emit func(host.AssistantMessageEvent)) *host.AssistantMessage {
	defer s.start.Open()
	open := func(httptrace.WroteRequestInfo) { s.start.Open() }
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: open})
	return s.m.Stream(ctx, req, emit)
}

// describedStartModel keeps the model's ModelInfo visible.
type describedStartModel struct {
	startModel
	d host.ModelDescriber
}

func (s describedStartModel) ModelInfo() host.ModelInfo { return s.d.ModelInfo() }

// HeldLoads is the number of background loads waiting for the first
// model request (WireOptions.HoldLoads): a status display can say that
// plugins will load once the model is asked.
func (s *Setup) HeldLoads() int { return s.start.Held() }
