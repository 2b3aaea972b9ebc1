// Package image turns a module into a template for pre-initialized
// instances, and finds in a snapshot of an initialized Go module the
// random generators every instance must re-draw.
//
// A template is the module with its active data segments taken out (kept
// apart, to be written by the host) and every mutable global exported, so
// that a host can instantiate it, write the segments, run the module's
// initialization once, read linear memory and globals (a snapshot), and
// later start any number of instances from that snapshot without running
// the initialization again. Modules whose state a snapshot of memory and
// globals cannot capture are refused with the reason: a start function,
// passive data segments, an imported or shared memory, a data offset that
// is not a constant, non-numeric mutable globals.
//
// The runtime's random generators of a Go module (its ChaCha8 states and
// the cheaprand word after m0's) are found by structure and by comparing
// two snapshots taken with different entropy: see FindSeeds.
package image
