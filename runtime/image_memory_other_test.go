//go:build !linux

package runtime

func cowChanges(*cowImage) []error { return nil }
