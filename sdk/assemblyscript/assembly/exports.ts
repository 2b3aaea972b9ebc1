// The plugin's exports. A plugin's entry file re-exports them:
//
//   export * from "@wasmagent/sdk/assembly/exports";
import { serve } from "./dispatch";
import "./abort"; // AssemblyScript's abort, wired in by asconfig.json

export function describe(): i32 { return serve("describe"); }
export function execute(): i32 { return serve("execute"); }
export function prepare_arguments(): i32 { return serve("prepare_arguments"); }
export function before_tool_call(): i32 { return serve("before_tool_call"); }
export function after_tool_call(): i32 { return serve("after_tool_call"); }
