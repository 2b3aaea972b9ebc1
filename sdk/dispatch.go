package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
)

// Handle runs one export of the plugin with its JSON input and returns its
// JSON output. It is what the Wasm exports call, and what sdktest calls in
// native tests, so both see the same bytes. A panic in plugin code is
// recovered into an error whose text names it; its stack goes to the log.
func Handle(env Env, export string, input []byte) ([]byte, error) {
	r, err := handle(env, export, input)
	if err != nil {
		return nil, err
	}
	return r.bytes(), nil
}

// reply is what an export answers: its output, or execute's result, whose
// encoding the host chooses when it asks for the output (JSON, or a head
// and raw parts: docs/abi.md, "Output in parts").
type reply struct {
	out []byte
	res *encodedResult
}

// bytes is the reply as JSON.
func (r reply) bytes() []byte {
	if r.res != nil {
		return r.res.appendJSON(nil)
	}
	return r.out
}

func handle(env Env, export string, input []byte) (r reply, err error) {
	defer func() {
		if v := recover(); v != nil {
			env.Log(LogError, fmt.Sprintf("panic in %s: %v\n%s", export, v, debug.Stack()))
			r, err = reply{}, fmt.Errorf("the plugin panicked in %s: %v", export, v)
		}
	}()
	var out []byte
	switch export {
	case ExportDescribe:
		out, err = describe(env)
	case ExportExecute:
		r.res, err = execute(env, input)
		return r, err
	case ExportPrepareArguments:
		out, err = prepare(input)
	case ExportBeforeToolCall:
		out, err = before(env, input)
	case ExportAfterToolCall:
		out, err = after(env, input)
	default:
		err = fmt.Errorf("sdk: no export %q", export)
	}
	return reply{out: out}, err
}

// Describe is the plugin's description, or what is wrong with its
// registrations.
func Describe() (*Description, error) {
	if len(registry.errs) > 0 {
		return nil, errors.Join(registry.errs...)
	}
	if registry.info.Name == "" {
		return nil, errors.New("sdk: the plugin has no name: call sdk.SetInfo in an init function")
	}
	if len(registry.tools) == 0 && registry.before == nil && registry.after == nil {
		return nil, errors.New("sdk: the plugin registers no tool and no hook")
	}
	if registry.info.Gate && registry.before == nil {
		return nil, errors.New("sdk: Info.Gate is set but the plugin registers no beforeToolCall hook")
	}
	d := &Description{ABI: ABIVersion, Name: registry.info.Name, Version: registry.info.Version, Needs: registry.info.Needs, Gate: registry.info.Gate}
	for _, t := range registry.tools {
		params := t.Parameters
		if params == nil && t.schema != nil {
			var err error
			if params, err = t.schema(); err != nil {
				return nil, fmt.Errorf("tool %s: %w", t.Name, err)
			}
		}
		d.Tools = append(d.Tools, ToolSpec{Name: t.Name, Label: t.Label, Description: t.Description, Parameters: params, ExecutionMode: t.ExecutionMode, PrepareArguments: t.Prepare != nil, Annotations: t.Annotations})
	}
	if registry.before != nil {
		d.Hooks = append(d.Hooks, HookBeforeToolCall)
	}
	if registry.after != nil {
		d.Hooks = append(d.Hooks, HookAfterToolCall)
	}
	return d, nil
}

func describe(env Env) ([]byte, error) {
	d, err := Describe()
	if err != nil {
		return nil, err
	}
	if check := registry.info.CheckConfig; check != nil {
		if err := check(&Call{env: env}); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
	}
	return json.Marshal(d)
}

func decodeInput(input []byte, v any, export string) error {
	if err := json.Unmarshal(input, v); err != nil {
		return fmt.Errorf("sdk: %s: the host's input is not valid: %w", export, err)
	}
	return nil
}

func tool(name string) (*Tool, error) {
	t := registry.byName[name]
	if t == nil {
		return nil, fmt.Errorf("sdk: the plugin has no tool %q", name)
	}
	return t, nil
}

func execute(env Env, input []byte) (*encodedResult, error) {
	var in ExecuteInput
	if err := decodeInput(input, &in, ExportExecute); err != nil {
		return nil, err
	}
	t, err := tool(in.Name)
	if err != nil {
		return nil, err
	}
	res, err := t.Run(&Call{ID: in.ToolCallID, Name: in.Name, env: env}, in.Args)
	if err != nil {
		return nil, err
	}
	return encodeDetails(res)
}

func prepare(input []byte) ([]byte, error) {
	var in PrepareInput
	if err := decodeInput(input, &in, ExportPrepareArguments); err != nil {
		return nil, err
	}
	t, err := tool(in.Name)
	if err != nil {
		return nil, err
	}
	if t.Prepare == nil {
		return in.Args, nil
	}
	return t.Prepare(in.Args)
}

func before(env Env, input []byte) ([]byte, error) {
	if registry.before == nil {
		return nil, errors.New("sdk: the plugin is not a beforeToolCall hook")
	}
	var in BeforeInput
	if err := decodeInput(input, &in, ExportBeforeToolCall); err != nil {
		return nil, err
	}
	out, err := registry.before(&Call{ID: in.ToolCall.ID, Name: in.ToolCall.Name, env: env}, &in)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = &BeforeOutput{}
	}
	return json.Marshal(out)
}

func after(env Env, input []byte) ([]byte, error) {
	if registry.after == nil {
		return nil, errors.New("sdk: the plugin is not an afterToolCall hook")
	}
	var in AfterInput
	if err := decodeInput(input, &in, ExportAfterToolCall); err != nil {
		return nil, err
	}
	out, err := registry.after(&Call{ID: in.ToolCall.ID, Name: in.ToolCall.Name, env: env}, &in)
	if err != nil {
		return nil, err
	}
	if out == nil {
		// No answer: the host keeps the result as it is, the tool's own
		// members too (an object, even {}, would rebuild it, as pi does).
		return []byte("null"), nil
	}
	return encodeAfter(out)
}
