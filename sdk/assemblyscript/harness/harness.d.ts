export function findWasmagent(): string | null;
export function skipReason(): string | false;
export class HostError extends Error {
  code?: number;
  stderr?: string;
}
export interface Content { type: "text" | "image"; text?: string; data?: string; mimeType?: string }
export interface ToolResult { content: Content[]; details?: unknown; terminate?: boolean; updates: unknown[] }
export interface Grants { config?: Record<string, string>; dirs?: string[]; hosts?: string[]; timeout?: string; memoryMiB?: number; bin?: string }
export class Host {
  constructor(wasm: string, grants?: Grants);
  describe(): Promise<any>;
  execute(tool: string, args?: object): Promise<ToolResult>;
  beforeToolCall(tool: string, args?: object): Promise<{ block?: boolean; reason?: string; arguments?: object; ask?: string }>;
  afterToolCall(tool: string, args: object, result: { content: Content[]; details?: unknown }, isError?: boolean): Promise<{ content?: Content[]; details?: unknown; isError?: boolean; terminate?: boolean }>;
}
