// The plugin's exports. A plugin's entry file re-exports them:
//
//   export * from "@wasmagent/sdk/assembly/exports";
import { serve } from "./dispatch";
import { bulkInput, bulkOutput } from "./kernel";
import "./abort"; // AssemblyScript's abort, wired in by asconfig.json

export function describe(): i32 { return serve("describe"); }
export function execute(): i32 { return serve("execute"); }
export function prepare_arguments(): i32 { return serve("prepare_arguments"); }
export function before_tool_call(): i32 { return serve("before_tool_call"); }
export function after_tool_call(): i32 { return serve("after_tool_call"); }

// The bulk path (docs/abi.md, "Bulk transfer").
export function wasmagent_bulk_input_v1(len: u32): u32 { return bulkInput(len); }
export function wasmagent_bulk_output_v1(): u64 { return bulkOutput(); }
