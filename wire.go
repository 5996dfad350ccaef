package ferry

import (
	"encoding/json"
	"maps"
	"slices"
)

// The helpers below append JSON to a buffer: answers are built this way,
// without an intermediate value, on the hot path.

// appendKey appends `"k":` to an open JSON object, with a comma when the
// object already has members.
func appendKey(b []byte, k string) []byte {
	if len(b) > 0 && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendMeta appends a _meta member holding meta and extra (extra wins).
func appendMeta(b []byte, meta, extra map[string]any) []byte {
	m := meta
	if len(extra) > 0 {
		m = maps.Clone(meta)
		if m == nil {
			m = make(map[string]any, len(extra))
		}
		maps.Copy(m, extra)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return b
	}
	b = appendKey(b, "_meta")
	return append(b, data...)
}

// marshalInto appends v's JSON to b.
func marshalInto(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
