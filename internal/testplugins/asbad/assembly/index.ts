// asbad makes the registration mistakes describe must report, all of
// them, so that the host refuses the plugin saying what is wrong.
import { registerTool, Tool, Call, Value, Result } from "@wasmagent/sdk/assembly";
export * from "@wasmagent/sdk/assembly/exports";

// No setInfo: the plugin has no name.
registerTool(new Tool("ok", "A tool.", "", run));
registerTool(new Tool("ok", "The same name again.", "", run));
registerTool(new Tool("", "No name.", "", run));
registerTool(new Tool("broken", "A schema that is not JSON.", `{"type":"object",}`, run));

function run(c: Call, args: Value): Result {
  return Result.text("ran");
}
