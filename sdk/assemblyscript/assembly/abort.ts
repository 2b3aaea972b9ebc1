// AssemblyScript's abort for wasmagent plugins; asconfig.json wires it in.
import { currentExport } from "./dispatch";
import * as kernel from "./kernel";

/**
 * @internal AssemblyScript's abort (a throw, a failed assertion, an index
 * out of range): the call fails with the message and where it was raised.
 * asconfig.json wires it in with "use": ["abort=…"].
 */
export function wasmagentAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let msg = "the plugin aborted";
  if (currentExport.length > 0) msg += " in " + currentExport;
  msg += ": " + (message !== null ? message : "abort");
  if (fileName !== null) msg += " (" + fileName + ":" + line.toString() + ":" + column.toString() + ")";
  kernel.setError(msg);
  // The call traps: hosts report the trap, so the message goes to the log too.
  kernel.log(4, msg);
  unreachable();
}
