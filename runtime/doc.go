// Package runtime runs Extism plugins on wazero for wasmagent: it compiles
// each module once (and caches the machine code on disk), gives every call a
// fresh instance taken from a pre-warmed pool and closed after the call, and
// grants an instance nothing its [Grants] do not list.
//
// The Extism host ABI (the extism:host/env functions every Extism PDK
// imports) is implemented here in Go, on raw wazero, rather than through
// extism/go-sdk; RATIONALE.md says why. Plugins built with any Extism PDK run
// unchanged, and the tests check that go-sdk and this package give the same
// outputs for the same plugin.
//
// A call ends by its deadline whatever the guest does, host functions
// included: each checks the call's context first, and the work a call
// makes the host do is capped per call ([Grants], [CapError]). A failed
// call is a [*CallError] whose cause matches one of [ErrPlugin], [ErrTrap],
// [ErrTimeout], [ErrDeadline], [ErrAborted], [ErrCap], [ErrCallDepth] and
// [ErrHost]. No module, however broken, makes the host panic: every
// goroutine of the package and every step of a call recovers (SECURITY.md,
// rows 12 and 13).
//
// This is the only package of wasmagent that imports wazero.
package runtime
