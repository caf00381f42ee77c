// Package version is the version every donegate executable prints with
// --version. Release builds stamp it at link time:
//
//	go build -ldflags "-X github.com/donegate/donegate/internal/version.Version=1.2.3" ./cmd/...
//
// (.goreleaser.yaml and make plugin do). A build that is not stamped — go
// install ...@v1.2.3, make build — falls back to the module version Go
// records in the binary. The package imports only runtime/debug and does
// no work at start-up: the hooks pay for every package they initialise.
package version

import "runtime/debug"

// Version is the release version, set with -ldflags -X; empty when the
// build was not stamped.
var Version string

// String returns the stamped Version, else the main module's version from
// the build info (a release tag for go install ...@vX.Y.Z, a pseudo-version
// naming the commit for a build from a clone with -buildvcs), else "devel".
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return fromBuildInfo(bi)
	}
	return "devel"
}

// fromBuildInfo is String's fallback, apart so that tests can feed it
// build infos a test binary never has.
func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "devel"
}
