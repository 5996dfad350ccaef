package ferry

import (
	"slices"
)

// Protocol versions Ferry speaks, newest first.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
)

// supportedVersions lists every protocol version Ferry implements, newest
// first.
var supportedVersions = []string{Version20260728, Version20251125, Version20250618, Version20250326}

// SupportedVersions returns every protocol version Ferry implements, newest
// first. [ServerOptions.ProtocolVersions] may narrow it.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// IsModern reports whether version belongs to the stateless era that starts
// with 2026-07-28 (no initialize, version in every request's _meta).
func IsModern(version string) bool { return isDate(version) && version >= Version20260728 }

// isDate reports whether v has the form of a protocol version, yyyy-mm-dd.
func isDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range []byte(v) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// versionSet is the server's supported versions, split by era.
type versionSet struct {
	all    []string // newest first
	legacy []string // newest first
	modern []string // newest first
}

func newVersionSet(allowed []string) versionSet {
	var vs versionSet
	for _, v := range supportedVersions {
		if len(allowed) > 0 && !slices.Contains(allowed, v) {
			continue
		}
		vs.all = append(vs.all, v)
		if IsModern(v) {
			vs.modern = append(vs.modern, v)
		} else {
			vs.legacy = append(vs.legacy, v)
		}
	}
	return vs
}

func (vs *versionSet) supports(v string) bool { return slices.Contains(vs.all, v) }

// negotiate answers a legacy initialize: the requested version when the server
// supports it, else the newest legacy version it supports.
func (vs *versionSet) negotiate(requested string) string {
	if slices.Contains(vs.legacy, requested) {
		return requested
	}
	if len(vs.legacy) > 0 {
		return vs.legacy[0]
	}
	return ""
}

// onlyModern answers initialize on a server that speaks no legacy version.
const onlyModern = "this server speaks only the stateless protocol (2026-07-28 and later): send requests with the _meta fields instead of initialize"
