// @wasmagent/sdk: write wasmagent tools and hooks in AssemblyScript.
// docs/plugins-assemblyscript.md is the guide; docs/abi.md the contract.
export { Value, Kind, Parsed, parse, parseBytes, quote } from "./json";
export { Content, Result, BeforeOutput, AfterOutput, base64 } from "./result";
export {
  LogLevel, PARALLEL, SEQUENTIAL, HTTPRequest, HTTPResponse, ToolCall, BeforeInput, AfterInput, Call, Tool,
  Annotations, setInfo, registerTool, registerBeforeToolCall, registerGate, registerAfterToolCall, setCheckConfig,
  needPath, needHost, needConfig,
} from "./plugin";
export { ABI_VERSION } from "./dispatch";
