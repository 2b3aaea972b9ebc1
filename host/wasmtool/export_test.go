package wasmtool

// Held is the number of loads waiting for s to open.
func (s *Start) Held() int { return int(s.held.Load()) }
