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
func Handle(env Env, export string, input []byte) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			env.Log(LogError, fmt.Sprintf("panic in %s: %v\n%s", export, v, debug.Stack()))
			out, err = nil, fmt.Errorf("the plugin panicked in %s: %v", export, v)
		}
	}()
	switch export {
	case ExportDescribe:
		return describe(env)
	case ExportExecute:
		return execute(env, input)
	case ExportPrepareArguments:
		return prepare(input)
	case ExportBeforeToolCall:
		return before(env, input)
	case ExportAfterToolCall:
		return after(env, input)
	}
	return nil, fmt.Errorf("sdk: no export %q", export)
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

func execute(env Env, input []byte) ([]byte, error) {
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
	return json.Marshal(res.wire())
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
		out = &AfterOutput{}
	}
	return json.Marshal(out)
}
