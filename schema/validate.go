package schema

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// Validator checks JSON documents against a compiled [Schema]. Build one
// with [Compile], once per tool. A Validator is safe for concurrent use.
type Validator struct {
	root   *node
	policy Policy
}

// emptyObject is what absent or null arguments become for an object schema.
// It is returned to callers, who must treat Validate's output as read-only.
var emptyObject = []byte("{}")

// statePool recycles the per-call scratch space, so that a valid document is
// checked without allocating.
var statePool = sync.Pool{New: func() any { return new(state) }}

// Compile prepares s for validation under the coercion policy p. It fails
// when the schema cannot be checked: Types, AnyOf or OneOf anywhere in it,
// an unknown type, a pattern that does not compile, a negative length or
// count, a multipleOf that is not positive, an enum value that is not
// JSON, or a property's default that its own schema refuses (Validate
// fills defaults in, so such a default would break every call that leaves
// the property out). s must not change afterwards.
func Compile(s *Schema, p Policy) (*Validator, error) {
	if s == nil {
		s = &Schema{}
	}
	if p > Strict {
		return nil, compileErr("", "unknown policy %v", p)
	}
	c := compiler{nodes: make(map[*Schema]*node)}
	root, err := c.compile(s, "")
	if err != nil {
		return nil, err
	}
	if err := c.checkDefaults(); err != nil {
		return nil, err
	}
	c.implyDefaults()
	return &Validator{root: root, policy: p}, nil
}

// Policy returns the coercion policy the validator was compiled with.
func (v *Validator) Policy() Policy { return v.policy }

// Validate checks the JSON document data against the schema.
//
// When data is valid, errs is nil and out is the document to decode: data
// itself when nothing was coerced or filled in (then Validate does not
// allocate), or a rewritten copy holding the coerced values (see [Policy])
// and the defaults of absent properties. A property's default
// ([Schema.Default]) is filled in whenever the property is absent, under
// every policy, before required properties are checked; so a property
// with a default is never missing.
//
// When data is not valid, out is nil and errs lists the violations in
// document order, each with its path: every one, up to [MaxErrors]. A
// document that is not JSON yields one root error, "arguments are not
// valid JSON: ...".
//
// A member whose name differs only in case from a property's ("QUERY" for
// "query") is refused, open schema or not: encoding/json would decode it
// into that property's field without its schema being checked.
//
// # Bounds
//
// The work is linear in the size of data for a given schema: every value
// is visited once, plus once per coercion or enum comparison, and
// uniqueItems hashes a canonical form of each item instead of comparing
// pairs. Nesting deeper than 10,000 arrays and objects is refused as not
// JSON. At most [MaxErrors] violations are listed. Validate does not take
// a context: bound the size of data (the transports do) to bound its time.
//
// Absent arguments (empty data), for a schema whose type is object or
// unset, and null, for a schema whose type is object and not Nullable, are
// read as {}: they are checked as {} (so required properties are reported)
// and out is {}. out may share memory with data or with the package: treat
// it as read-only.
func (v *Validator) Validate(data []byte) (out []byte, errs Errors) {
	if v.root.absentIsEmpty(data) {
		return v.validate(emptyObject)
	}
	if !jsontext.Valid(data) {
		return nil, Errors{invalidJSON(data)}
	}
	return v.validate(data)
}

// validate validates data, known to be JSON.
func (v *Validator) validate(data []byte) (out []byte, errs Errors) {
	st := statePool.Get().(*state)
	st.reset(data, v.policy)
	start := jsontext.SkipSpace(data, 0)
	st.check(v.root, start)
	if st.dropped > 0 {
		st.errs = append(st.errs, &Error{Message: "and " + countOf(st.dropped, "more violation") + ", not listed"})
	}
	out, errs = data, st.errs
	switch {
	case len(errs) > 0:
		out = nil
	case len(st.edits) > 0:
		out = st.rewrite()
	}
	st.release()
	statePool.Put(st)
	return out, errs
}

// absentIsEmpty reports whether data holds no arguments that stand for {}:
// nothing at all, for a schema that takes an object or any value, or null,
// for a schema whose type is object and that does not allow null.
func (n *node) absentIsEmpty(data []byte) bool {
	i := jsontext.SkipSpace(data, 0)
	if i == len(data) {
		return n.kind == kindObject || n.kind == kindAny
	}
	j := i + len("null")
	return n.kind == kindObject && !n.nullable &&
		j <= len(data) && string(data[i:j]) == "null" && jsontext.SkipSpace(data, j) == len(data)
}

// invalidJSON returns the root error for a document that is not JSON.
func invalidJSON(data []byte) *Error {
	var v any
	err := json.Unmarshal(data, &v)
	msg := "unexpected end of input"
	if err != nil {
		msg = err.Error()
	}
	return &Error{Message: "arguments are not valid JSON: " + msg}
}

// edit replaces data[start:end] with rep in the output document.
type edit struct {
	start, end int
	rep        []byte
}

// state is the scratch space of one Validate call.
type state struct {
	data    []byte
	policy  Policy
	noEdit  bool // checking a coerced replacement: no further edits
	path    []segment
	errs    Errors
	edits   []edit
	scratch []byte // decoded string content
	spans   [][2]int
	canon   []byte  // canonical forms of array items, for uniqueItems
	table   []int32 // hash table of item indexes + 1, for uniqueItems
	dropped int     // violations past maxErrors, counted and not listed
}

func (st *state) reset(data []byte, p Policy) {
	st.data, st.policy, st.noEdit = data, p, false
}

// release drops references into the caller's data and results.
func (st *state) release() {
	st.data, st.errs = nil, nil
	clear(st.path)
	st.path = st.path[:0]
	clear(st.edits)
	st.edits = st.edits[:0]
	if cap(st.scratch) > 1<<16 {
		st.scratch = nil
	}
	if cap(st.canon) > 1<<16 || cap(st.table) > 1<<14 {
		st.canon, st.table, st.spans = nil, nil, nil
	}
	st.spans = st.spans[:0]
	st.dropped = 0
}

// rewrite returns a copy of the document with the edits applied.
func (st *state) rewrite() []byte {
	n := len(st.data)
	for _, e := range st.edits {
		n += len(e.rep) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, e := range st.edits {
		out = append(out, st.data[at:e.start]...)
		out = append(out, e.rep...)
		at = e.end
	}
	return append(out, st.data[at:]...)
}

// MaxErrors is the most violations [Validator.Validate] lists for one
// document. Past it, violations are counted, not listed, and one last
// [Error] says how many were left out, so that a document of a million
// wrong items costs a bounded answer.
const MaxErrors = 100

// fail records a violation at the current path.
func (st *state) fail(msg string) {
	if len(st.errs) >= MaxErrors {
		st.dropped++
		return
	}
	st.errs = append(st.errs, &Error{Path: renderPath(st.path), Message: msg})
}

// failAt records a violation at the current path extended by name.
func (st *state) failAt(name, msg string) {
	st.path = append(st.path, segment{name: name, index: -1})
	st.fail(msg)
	st.path = st.path[:len(st.path)-1]
}

// check validates the value starting at st.data[i] against n and returns
// the index just past it.
func (st *state) check(n *node, i int) int {
	d := st.data
	if i >= len(d) {
		return i
	}
	k := kindOf(d[i])
	var end int
	switch {
	case k == kindObject && n.admitsKind(k):
		end = st.object(n, i)
	case k == kindArray && n.admitsKind(k):
		end = st.array(n, i)
	default:
		end = jsontext.ValueEnd(d, i)
		if !st.scalar(n, k, i, end) {
			return end
		}
	}
	if n.enum != nil && !n.inEnum(d[i:end]) {
		st.fail(n.enumMessage(d[i:end]))
	}
	return end
}

// scalar validates the value st.data[i:end] of kind k, or refuses (or
// coerces) a value n's type does not admit. It reports whether n's other
// keywords still apply to the value.
func (st *state) scalar(n *node, k kind, i, end int) bool {
	raw := st.data[i:end]
	if !n.admits(k, raw) {
		if st.policy == Unambiguous && !st.noEdit && k == kindString {
			rep, ok := n.coerce(raw)
			if ok {
				st.replace(n, i, end, rep)
				return false
			}
			if rep != nil { // JSON-like, yet not JSON
				st.fail(n.notJSONMessage(raw, rep[0]))
				return false
			}
		}
		st.fail(n.typeMessage(raw))
		return false
	}
	switch k {
	case kindString:
		st.str(n, raw)
	case kindNumber:
		st.number(n, i, end)
	}
	return true
}

// replace records a coercion of data[start:end] to rep, then validates rep
// against the rest of n. rep is validated as any value is: a JSON object
// or array read from a string has its own members coerced and its
// defaults filled in, and those edits are applied to rep before it
// replaces data[start:end]. Each level of coercion removes a level of
// quoting, so this ends.
func (st *state) replace(n *node, start, end int, rep []byte) {
	saved, outer := st.data, st.edits
	st.data, st.edits = rep, nil // edits inside rep are offsets into rep
	st.check(n, 0)
	if len(st.edits) > 0 {
		rep = st.rewrite()
	}
	st.data, st.edits = saved, append(outer, edit{start: start, end: end, rep: rep})
}

// object validates the members of the object at st.data[i] and returns
// the index just past it. It fills in the defaults of absent properties
// and, under [Unambiguous], reads null for an optional property that does
// not allow null as absent.
func (st *state) object(n *node, i int) int {
	d := st.data
	var seen, filled bitset // required properties seen; defaults present
	seen.init(len(n.required))
	filled.init(len(n.defaults))
	members := 0
	i = jsontext.SkipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		i++ // the empty object
	}
	for i < len(d) && d[i] == '"' {
		members++
		keyEnd, escaped := jsontext.StringEnd(d, i)
		key := d[i+1 : keyEnd-1]
		if escaped {
			key = jsontext.Unescape(nil, key)
		}
		i = jsontext.SkipSpace(d, jsontext.SkipSpace(d, keyEnd)+1)
		st.path = append(st.path, segment{key: key, index: -1})
		p := n.props[string(key)]
		if p != nil && p.bit >= 0 {
			seen.set(p.bit)
		}
		switch {
		case p != nil && p.node != nil && st.nullAsAbsent(p, i):
			end := jsontext.ValueEnd(d, i)
			if p.dflt >= 0 && !st.noEdit {
				st.edits = append(st.edits, edit{start: i, end: end, rep: n.defaults[p.dflt].value})
				filled.set(p.dflt)
			}
			i = end
		case p != nil && p.node != nil:
			if p.dflt >= 0 {
				filled.set(p.dflt)
			}
			i = st.check(p.node, i)
		case p == nil && n.foldMatch(key) != nil:
			st.fail("is not allowed: " + strconv.Quote(string(key)) + " differs only in case from the property " +
				strconv.Quote(string(n.foldMatch(key))) + "; send it as " + strconv.Quote(string(n.foldMatch(key))))
			i = jsontext.ValueEnd(d, i)
		case n.closed:
			st.fail(n.unknownMessage(key))
			i = jsontext.ValueEnd(d, i)
		case n.additional != nil:
			i = st.check(n.additional, i)
		default:
			i = jsontext.ValueEnd(d, i)
		}
		st.path = st.path[:len(st.path)-1]
		var more bool
		if i, more = jsontext.NextMember(d, i); !more {
			break
		}
	}
	if len(n.defaults) > 0 && !st.noEdit {
		st.fillDefaults(n, &filled, members, i-1)
	}
	for bit, name := range n.required {
		if !seen.has(bit) && !st.filledRequired(n, name) {
			st.failAt(name, "is required")
		}
	}
	return i
}

// nullAsAbsent reports whether the value at st.data[i] is a null that
// stands for an absent property p: under [Unambiguous], for a property
// that is optional (or has a default to take its place) and does not
// allow null. Models often send null for "not given".
func (st *state) nullAsAbsent(p *prop, i int) bool {
	return st.policy == Unambiguous && (p.bit < 0 || p.dflt >= 0 && !st.noEdit) && !p.node.admits(kindNull, nil) &&
		i+4 <= len(st.data) && string(st.data[i:i+4]) == "null"
}

// fillDefaults inserts, before the closing brace at close, the default of
// every property of n that the object (with members members) left out.
func (st *state) fillDefaults(n *node, filled *bitset, members, close int) {
	var rep []byte
	for k, def := range n.defaults {
		if filled.has(k) {
			continue
		}
		if members > 0 || len(rep) > 0 {
			rep = append(rep, ',')
		}
		rep = append(rep, def.member...)
	}
	if rep != nil && close >= 0 && close < len(st.data) && st.data[close] == '}' {
		st.edits = append(st.edits, edit{start: close, end: close, rep: rep})
	}
}

// filledRequired reports whether the required property name has a default,
// which [state.fillDefaults] has filled in.
func (st *state) filledRequired(n *node, name string) bool {
	p := n.props[name]
	return p != nil && p.dflt >= 0 && !st.noEdit
}

// foldMatch returns the property name of n that key equals without regard
// to case (but not exactly), or nil. encoding/json matches member names
// that way, so such a key would decode into that property's field while
// escaping its schema: it is refused.
func (n *node) foldMatch(key []byte) []byte {
	if n.folded != nil {
		// Many names: look the key up rather than compare it with each,
		// so that a document of many unknown keys costs time linear in
		// its size whatever the schema's size.
		name := n.folded[foldName(key)]
		if name != nil && bytes.EqualFold(key, name) && !bytes.Equal(key, name) {
			return name
		}
		return nil
	}
	for _, name := range n.names {
		if len(name) > 0 && bytes.EqualFold(key, name) && !bytes.Equal(key, name) {
			return name
		}
	}
	return nil
}

// foldName returns a form of name shared by exactly the names that
// encoding/json matches to it (as bytes.EqualFold does): each letter
// upper-cased after lower-casing, so that "ſku" (long s) folds with "sku".
func foldName(name []byte) string {
	b := make([]byte, 0, len(name))
	for _, r := range string(name) {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		b = utf8.AppendRune(b, unicode.ToUpper(unicode.ToLower(r)))
	}
	return string(b)
}

// foldScanMax is the most property names [node.foldMatch] compares a key
// with one by one; a schema with more looks keys up by their lower case.
const foldScanMax = 16

// bitset is a set of small integers that does not allocate up to 64.
type bitset struct {
	small uint64
	many  []bool
}

func (b *bitset) init(n int) {
	if n > 64 {
		b.many = make([]bool, n)
	}
}

func (b *bitset) set(i int) {
	if b.many != nil {
		b.many[i] = true
	} else {
		b.small |= 1 << i
	}
}

func (b *bitset) has(i int) bool {
	if b.many != nil {
		return b.many[i]
	}
	return b.small&(1<<i) != 0
}

// array validates the elements of the array at st.data[i] and returns the
// index just past it.
func (st *state) array(n *node, i int) int {
	d := st.data
	start, count := i, 0
	i = jsontext.SkipSpace(d, i+1)
	empty := i < len(d) && d[i] == ']'
	if empty {
		i++
	}
	for !empty && i < len(d) {
		if n.items != nil {
			st.path = append(st.path, segment{index: count})
			i = st.check(n.items, i)
			st.path = st.path[:len(st.path)-1]
		} else {
			i = jsontext.ValueEnd(d, i)
		}
		count++
		var more bool
		if i, more = jsontext.NextMember(d, i); !more {
			break
		}
	}
	if n.minItems >= 0 && count < n.minItems {
		st.fail("must have at least " + countOf(n.minItems, "item") + ", got " + itoa(count))
	}
	if n.maxItems >= 0 && count > n.maxItems {
		st.fail("must have at most " + countOf(n.maxItems, "item") + ", got " + itoa(count))
	}
	if n.unique && count > 1 {
		st.unique(d, start, i)
	}
	return i
}

// unique reports the first element of the array at d[start:end] that
// repeats an earlier one. Indexes in the message count from 0, as paths do.
// It takes time linear in the array's size: each element is written in a
// canonical form (numbers by value, strings decoded, members sorted) and
// found by its hash, so that 20,000 items cost what 20,000 lookups cost.
func (st *state) unique(d []byte, start, end int) {
	canon, spans := st.canon[:0], st.spans[:0]
	i := jsontext.SkipSpace(d, start+1)
	for i < end && d[i] != ']' {
		e := jsontext.ValueEnd(d, i)
		from := len(canon)
		canon = appendCanonical(canon, d[i:e])
		spans = append(spans, [2]int{from, len(canon)})
		var more bool
		if i, more = jsontext.NextMember(d, e); !more {
			break
		}
	}
	st.canon, st.spans = canon[:0], spans[:0]
	size := 1
	for size < 2*len(spans) {
		size <<= 1
	}
	table := st.table[:0]
	if cap(table) < size {
		table = make([]int32, size)
	}
	table = table[:size]
	clear(table)
	st.table = table
	for j, sp := range spans {
		form := canon[sp[0]:sp[1]]
		slot := int(maphash.Bytes(hashSeed, form)) & (size - 1)
		for table[slot] != 0 {
			k := int(table[slot] - 1)
			if bytes.Equal(canon[spans[k][0]:spans[k][1]], form) {
				st.fail("must not repeat items (item " + itoa(j) + " repeats item " + itoa(k) + ")")
				return
			}
			slot = (slot + 1) & (size - 1)
		}
		table[slot] = int32(j + 1)
	}
}

// hashSeed seeds the hashes of [state.unique].
var hashSeed = maphash.MakeSeed()
