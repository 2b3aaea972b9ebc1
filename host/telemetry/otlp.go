package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// otlpClient posts OTLP/HTTP requests (protobuf bodies) to a collector.
// It is ours rather than the SDK's OTLP exporters because those link the
// whole gRPC client into every binary (RATIONALE.md "Why our own OTLP/HTTP
// client?").
type otlpClient struct {
	base    string // the endpoint, without a trailing slash
	headers http.Header
	client  *http.Client
}

// maxErrorBody bounds what is read of a collector's refusal.
const maxErrorBody = 4 << 10

// export posts the messages as the repeated field 1 of an Export*ServiceRequest
// (resource_spans or resource_metrics: the same shape) to base+path.
func (c *otlpClient) export(ctx context.Context, path string, items []proto.Message) error {
	var body []byte
	for _, m := range items {
		b, err := proto.Marshal(m)
		if err != nil {
			return err
		}
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return fmt.Errorf("telemetry: %s answered %s: %s", c.base+path, resp.Status, strings.TrimSpace(string(msg)))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return nil
}
