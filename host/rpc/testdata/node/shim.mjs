// pi's RpcClient runs `node <cliPath> --mode rpc [args]`; this cliPath
// runs wasmagent's rpc command instead ($WASMAGENT_BIN), on the same
// stdin, stdout and stderr.
import { spawn } from "node:child_process";

const args = process.argv.slice(2).filter((a, i, all) => a !== "--mode" && all[i - 1] !== "--mode");
const child = spawn(process.env.WASMAGENT_BIN, ["rpc", ...args], { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
