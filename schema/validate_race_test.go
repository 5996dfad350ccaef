//go:build race

package schema

// raceEnabled is set under the race detector, whose sync.Pool drops items
// at random, so allocation counts do not hold.
const raceEnabled = true
