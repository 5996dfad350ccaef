//go:build !race

package protoschema

// raceEnabled says the race detector runs; see schema_race_test.go.
const raceEnabled = false
