//go:build !race

package protoschema

// raceEnabled says the race detector runs; see race_test.go.
const raceEnabled = false
