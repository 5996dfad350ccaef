package ferry

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
)

// This file derives an entry's default group from the Go package that
// declares its handler, as [GroupOfPackage] documents.

// rootPackage is the import path of this package: a handler declared here
// (a wrapper) tells nothing of the entry's subject.
const rootPackage = "github.com/ferry-mcp/ferry"

// GroupOfPackage returns the group an entry whose handler is declared in
// the package of import path pkg belongs to when it names none, or "" for
// none. The rules, in order:
//
//  1. A last element that only says the package holds MCP handlers is
//     dropped: "mcp", "mcptools", "tools", "tool", "handlers", and a
//     major version suffix ("v2").
//  2. If an element "model" or "models" is followed by another, that one
//     is the group: "example.com/shop/model/billing/tools" is "billing".
//  3. Otherwise the last element is: "example.com/shop/orders" is
//     "orders".
//  4. A program's own package ("main"), this package, Ferry's layers
//     (entity, protomcp, route, openapi, whose handlers serve every
//     subject: each sets its tools' groups by its own rule) and a name
//     that is not a valid group name after its other characters become
//     '_' give no group.
//
// So "example.com/shop/orders/mcp" is "orders" and "example.com/shop" is
// "shop".
func GroupOfPackage(pkg string) string {
	elems := strings.Split(pkg, "/")
	for len(elems) > 1 && (handlerPackage(elems[len(elems)-1]) || majorVersion(elems[len(elems)-1])) {
		elems = elems[:len(elems)-1]
	}
	for i, e := range elems[:len(elems)-1] {
		if e == "model" || e == "models" {
			return groupName(elems[i+1])
		}
	}
	if pkg == rootPackage || strings.HasPrefix(pkg, rootPackage+"/internal/") || layerPackage(pkg) {
		return ""
	}
	last := elems[len(elems)-1]
	if last == "main" {
		return ""
	}
	return groupName(last)
}

// layerPackage reports whether pkg is one of Ferry's layers, or a
// package inside one.
func layerPackage(pkg string) bool {
	for _, l := range []string{"entity", "protomcp", "route", "openapi"} {
		if p := rootPackage + "/" + l; pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// GroupOfFunc returns the group of an entry whose handler is fn when it
// names none: that of the package declaring fn ([GroupOfPackage]), or ""
// for none. A layer that wraps an application's handler calls it with
// the application's function, so that the entry gets the group it would
// have had registered directly.
func GroupOfFunc(fn any) string {
	if pkg := funcPackage(fn); pkg != "" {
		return GroupOfPackage(pkg)
	}
	return ""
}

func handlerPackage(e string) bool {
	switch e {
	case "mcp", "mcptools", "tools", "tool", "handlers":
		return true
	}
	return false
}

func majorVersion(e string) bool {
	if len(e) < 2 || e[0] != 'v' {
		return false
	}
	for i := 1; i < len(e); i++ {
		if e[i] < '0' || e[i] > '9' {
			return false
		}
	}
	return true
}

// groupName turns a path element into a group name: characters a group
// name may not have become '_'; "" if nothing is left.
func groupName(e string) string {
	if e == "" {
		return ""
	}
	b := []byte(e)
	for i, c := range b {
		if !groupNameByte(c) {
			b[i] = '_'
		}
	}
	if len(b) > maxGroupName {
		b = b[:maxGroupName]
	}
	return string(b)
}

// handlerGroups returns the groups of an entry whose Groups are given:
// those, without repeats, when not nil, and otherwise the group of the
// package that declares fn (see [GroupOfPackage]), if any.
func handlerGroups(given []string, fn any) []string {
	if given != nil {
		if len(given) == 0 {
			return []string{}
		}
		return slices.Compact(slices.Sorted(slices.Values(given)))
	}
	pkg := funcPackage(fn)
	if pkg == "" {
		return nil
	}
	if g := GroupOfPackage(pkg); g != "" {
		return []string{g}
	}
	return nil
}

// funcPackage returns the import path of the package that declares the
// function fn, or "" if it cannot tell.
func funcPackage(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	name := f.Name() // "example.com/shop/orders.(*Service).Search-fm", "main.main.func1"
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return name[:slash+1+dot]
}
