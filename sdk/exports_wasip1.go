package sdk

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/extism/go-pdk"
)

// The plugin's exports. Each reads its input from Extism, runs Handle, and
// sets the output, or the error and a non-zero return.

//go:wasmexport describe
func exportDescribe() int32 { return serve(ExportDescribe) }

//go:wasmexport execute
func exportExecute() int32 { return serve(ExportExecute) }

//go:wasmexport prepare_arguments
func exportPrepareArguments() int32 { return serve(ExportPrepareArguments) }

//go:wasmexport before_tool_call
func exportBeforeToolCall() int32 { return serve(ExportBeforeToolCall) }

//go:wasmexport after_tool_call
func exportAfterToolCall() int32 { return serve(ExportAfterToolCall) }

func serve(export string) int32 {
	in := bulk.in
	if !bulk.on {
		in = pdk.Input()
	}
	bulk.in = nil
	r, err := handle(extismEnv{}, export, in)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	if bulk.on {
		bulk.reply = r // encoded by the output export the host calls
	} else {
		pdk.Output(r.bytes())
	}
	return 0
}

// bulk is the state of the bulk path (docs/abi.md, "Bulk transfer"): a
// host that knows it calls wasmagent_bulk_input_v1 before the export and
// wasmagent_bulk_output_v1 after it, and moves the input and the output
// with one copy each instead of one host call per 8 bytes. A host that
// does not know it calls neither, and the plugin uses the Extism input
// and output. The buffers live in these variables (Go's collector does
// not move memory), so the addresses stay valid between the calls.
var bulk struct {
	on    bool
	in    []byte
	reply reply
	// What the output exports handed the host, kept until the instance
	// ends (it serves one call).
	out, table []byte
	parts      []string
}

//go:wasmexport wasmagent_bulk_input_v1
func exportBulkInput(n uint32) uint32 {
	bulk.on = true
	bulk.in = make([]byte, n)
	if n == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&bulk.in[0])))
}

//go:wasmexport wasmagent_bulk_output_v1
func exportBulkOutput() uint64 {
	bulk.out = bulk.reply.bytes()
	return span(bulk.out)
}

// exportBulkParts is the output in parts (docs/abi.md, "Output in
// parts"): the table of the head and of each part, which are execute's
// long texts and data as they lie in memory, neither escaped nor copied.
//
//go:wasmexport wasmagent_bulk_output_v2
func exportBulkParts() uint64 {
	if bulk.reply.res == nil {
		bulk.out = bulk.reply.out
	} else {
		bulk.out, bulk.parts = bulk.reply.res.head(nil)
	}
	if len(bulk.out) == 0 && len(bulk.parts) == 0 {
		return 0 // the Extism output, empty
	}
	bulk.table = make([]byte, 0, 8*(1+len(bulk.parts)))
	bulk.table = appendEntry(bulk.table, uint32(span(bulk.out)>>32), len(bulk.out))
	for _, p := range bulk.parts {
		bulk.table = appendEntry(bulk.table, uint32(uintptr(unsafe.Pointer(unsafe.StringData(p)))), len(p))
	}
	return span(bulk.table)
}

// span is b's address << 32 | its length, 0 for an empty b.
func span(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(&b[0])))<<32 | uint64(len(b))
}

func appendEntry(table []byte, addr uint32, n int) []byte {
	table = binary.LittleEndian.AppendUint32(table, addr)
	return binary.LittleEndian.AppendUint32(table, uint32(n))
}

//go:wasmimport extism:host/user emit_update
func emitUpdate(offset uint64)

// extismEnv is the Env of a plugin running in an Extism host.
type extismEnv struct{}

func (extismEnv) Config(key string) (string, bool) { return pdk.GetConfig(key) }

func (extismEnv) Log(level LogLevel, msg string) { pdk.Log(pdk.LogLevel(level), msg) }

func (extismEnv) Update(payload []byte) error {
	mem := pdk.AllocateBytes(payload)
	emitUpdate(mem.Offset())
	return nil
}

func (extismEnv) HTTP(req *HTTPRequest) (*HTTPResponse, error) {
	method := pdk.MethodGet
	switch req.Method {
	case "", "GET":
	case "POST":
		method = pdk.MethodPost
	case "PUT":
		method = pdk.MethodPut
	case "DELETE":
		method = pdk.MethodDelete
	case "HEAD":
		method = pdk.MethodHead
	case "PATCH":
		method = pdk.MethodPatch
	default:
		return nil, fmt.Errorf("sdk: HTTP method %q is not supported", req.Method)
	}
	r := pdk.NewHTTPRequest(method, req.URL)
	for k, v := range req.Headers {
		r.SetHeader(k, v)
	}
	if req.Body != nil {
		r.SetBody(req.Body)
	}
	resp := r.Send()
	headers := resp.Headers()
	url := req.URL
	if u, ok := headers[":url"]; ok {
		url = u
		delete(headers, ":url")
	}
	return &HTTPResponse{Status: int(resp.Status()), URL: url, Headers: headers, Body: resp.Body()}, nil
}
