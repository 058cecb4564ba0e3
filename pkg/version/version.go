// Package version holds the build version stamped into every binary.
package version

// Version is set at build time with -ldflags "-X .../pkg/version.Version=...".
var Version = "dev"
