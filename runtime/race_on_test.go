//go:build race

package runtime

// raceEnabled: the race detector's shadow memory makes memory bounds
// meaningless.
const raceEnabled = true
