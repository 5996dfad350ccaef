package ferry

import (
	"slices"
)

// This file holds the server's side of relaying changes between replicas
// (see [SessionRelay]): the changes it makes are handed to the relays of
// its handlers, and the changes other replicas made are told to its own
// streams.

// relayedChange is a change as it travels between replicas: a function
// deciding its audience cannot travel, so a list change some callers may
// not hear of carries the keys of the entries that changed instead, and
// each replica decides with its own entries of those keys.
type relayedChange struct {
	method string
	uri    string
	keys   []string // the changed entries' keys, for a list change with an audience
}

// relayHook receives the changes a server makes. It must not block.
type relayHook func(relayedChange)

// addRelay registers f until the returned stop is called.
func (s *Server) addRelay(f relayHook) (stop func()) {
	p := &f
	s.setRelays(func(rs []*relayHook) []*relayHook { return append(rs, p) })
	return func() {
		s.setRelays(func(rs []*relayHook) []*relayHook {
			return slices.DeleteFunc(rs, func(q *relayHook) bool { return q == p })
		})
	}
}

// setRelays replaces the relay hooks by what change makes of a copy of
// them.
func (s *Server) setRelays(change func([]*relayHook) []*relayHook) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	var cur []*relayHook
	if p := s.relays.Load(); p != nil {
		cur = slices.Clone(*p)
	}
	next := change(cur)
	s.relays.Store(&next)
}

// relay hands c to the server's relays, if any: an atomic load when there
// are none.
func (s *Server) relay(c change) {
	rs := s.relays.Load()
	if rs == nil || len(*rs) == 0 {
		return
	}
	rc := relayedChange{method: c.method, uri: c.uri}
	if c.aud != nil && c.method != methodResourceUpdated {
		rc.keys = c.aud.keys
	}
	for _, f := range *rs {
		(*f)(rc)
	}
}

// relayedListChanges are the list changes a replica takes from another.
var relayedListChanges = map[string]bool{
	"notifications/tools/list_changed":     true,
	"notifications/prompts/list_changed":   true,
	"notifications/resources/list_changed": true,
}

// changedElsewhere tells the server's streams of a change another replica
// made, to the callers who may hear of it by this server's own entries: a
// resource update by the resource's requirements here, a list change with
// keys by the entries of those keys here (none here: nobody hears of it,
// since nobody here lists them). It is not relayed again. It never blocks.
func (s *Server) changedElsewhere(rc relayedChange) {
	c := change{method: rc.method, uri: rc.uri}
	switch {
	case rc.method == methodResourceUpdated && rc.uri != "":
		c.aud = s.updateAudience(rc.uri)
	case relayedListChanges[rc.method] && rc.uri == "":
		if rc.keys != nil {
			entries := s.entriesOf(rc.method, rc.keys)
			if len(entries) == 0 {
				return
			}
			c.aud = audienceOf(s, entries)
		}
	default:
		return // not a change a replica makes
	}
	for _, w := range s.currentWatchers() {
		w.push(c)
	}
}

// entriesOf returns this server's entries of the list that method
// announces changes of, with the given keys.
func (s *Server) entriesOf(method string, keys []string) []watchedEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []watchedEntry
	for _, k := range keys {
		switch method {
		case "notifications/tools/list_changed":
			if e, ok := s.tools.get(k); ok {
				out = append(out, e)
			}
		case "notifications/prompts/list_changed":
			if e, ok := s.prompts.get(k); ok {
				out = append(out, e)
			}
		case "notifications/resources/list_changed":
			if e, ok := s.resources.get(k); ok {
				out = append(out, e)
			}
			if e, ok := s.templates.get(k); ok {
				out = append(out, e)
			}
		}
	}
	return out
}
