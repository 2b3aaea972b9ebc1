package config

// HeldLoads is the number of background loads waiting for the first
// model request (HoldLoads).
func HeldLoads(s *Setup) int { return s.start.Held() }
