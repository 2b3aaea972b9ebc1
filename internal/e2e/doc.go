// Package e2e holds end-to-end tests that run sessions through the real
// host: configuration, model, plugins and hooks together.
package e2e
