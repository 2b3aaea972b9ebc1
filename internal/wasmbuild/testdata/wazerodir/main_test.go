package main

import "testing"

// TestMain prints what main prints, as the test binary of a main package.
func TestMain(*testing.M) { main() }
