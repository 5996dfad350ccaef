//go:build race

package protoschema

// raceEnabled says the race detector runs, which makes the property tests
// some ten times slower: they draw fewer messages.
const raceEnabled = true
