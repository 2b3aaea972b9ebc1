package runtime

// Test helpers the external test package shares with this one.
var (
	ResetPeakRSS = resetPeakRSS
	PeakRSS      = peakRSS
)
