package telemetry

import "unicode/utf8"

// Attribute keys: the OpenTelemetry GenAI conventions where they have one,
// wasmagent.* otherwise (docs/telemetry.md).
const (
	attrOperation     = "gen_ai.operation.name"
	attrProvider      = "gen_ai.provider.name"
	attrModel         = "gen_ai.request.model"
	attrFinishReasons = "gen_ai.response.finish_reasons"
	attrInputTokens   = "gen_ai.usage.input_tokens"
	attrOutputTokens  = "gen_ai.usage.output_tokens"
	attrCacheRead     = "wasmagent.usage.cache_read_tokens"
	attrCacheWrite    = "wasmagent.usage.cache_write_tokens"
	attrTool          = "gen_ai.tool.name"
	attrToolCallID    = "gen_ai.tool.call.id"
	attrOutcome       = "wasmagent.outcome"
	attrArgsBytes     = "wasmagent.tool.arguments_bytes"
	attrArgs          = "wasmagent.tool.arguments"
	attrResultBytes   = "wasmagent.tool.result_bytes"
	attrResult        = "wasmagent.tool.result"
	attrIsError       = "wasmagent.tool.is_error"
	attrHookKind      = "wasmagent.hook.kind"
	attrHook          = "wasmagent.hook.name"
	attrGate          = "wasmagent.hook.gate"
	attrDecision      = "wasmagent.hook.decision"
	attrFallback      = "wasmagent.hook.fallback"
	attrAsked         = "wasmagent.hook.asked"
	attrReason        = "wasmagent.hook.reason"
	attrRewritten     = "wasmagent.hook.rewritten_arguments"
	attrPlugin        = "wasmagent.plugin.name"
	attrSHA256        = "wasmagent.plugin.sha256"
	attrExport        = "wasmagent.plugin.export"
	attrInputBytes    = "wasmagent.plugin.input_bytes"
	attrOutputBytes   = "wasmagent.plugin.output_bytes"
	attrErrorClass    = "wasmagent.plugin.error"
	attrOnDemand      = "wasmagent.plugin.on_demand"
	attrTokenType     = "gen_ai.token.type"
)

// cut keeps at most n bytes of s, on a rune boundary, marking a cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
