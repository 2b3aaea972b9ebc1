package main

import "github.com/extism/go-pdk"

func reply(name string) int32 {
	if msg, ok := pdk.GetConfig(name + ".error"); ok {
		pdk.SetErrorString(msg)
		return 1
	}
	out, _ := pdk.GetConfig(name)
	pdk.OutputString(out)
	return 0
}

//go:wasmexport describe
func describe() int32 { return reply("describe") }

//go:wasmexport execute
func execute() int32 { return reply("execute") }

//go:wasmexport prepare_arguments
func prepareArguments() int32 { return reply("prepare_arguments") }

//go:wasmexport before_tool_call
func beforeToolCall() int32 { return reply("before_tool_call") }

//go:wasmexport after_tool_call
func afterToolCall() int32 { return reply("after_tool_call") }

// echo returns its input.
//
//go:wasmexport echo
func echo() int32 {
	pdk.Output(pdk.Input())
	return 0
}

// noop does nothing.
//
//go:wasmexport noop
func noop() int32 { return 0 }
