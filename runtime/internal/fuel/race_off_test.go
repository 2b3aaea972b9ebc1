//go:build !race

package fuel

const (
	raceOn      = false
	goldenSeeds = 300
)
