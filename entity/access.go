package entity

import "slices"

// Callers names who may use a tool, in the core's terms: a caller needs
// every one of Scopes and, if Roles is not empty, any one of Roles (see
// [ferry.Tool]'s Scopes and Roles). A caller who falls short does not see
// the tool, and calling it gets the answer an unknown tool gets. The zero
// value lets everyone.
type Callers struct {
	Scopes []string
	Roles  []string
}

// Access says who may read an entity's records (get, list, aggregate) and who may
// change them (create, update) and delete them. Write, if zero, is
// Read's, and Delete, if zero, is Write's: what is not said is never
// more open than the operation before it. The entity's schema resources
// show a caller the entity only with a tool it may call.
type Access struct {
	Read, Write, Delete Callers
}

// callers is who may use op's tool.
func (a *Access) callers(op Op) Callers {
	c := a.Read
	if op == Get || op == List || op == Aggregate {
		return clone(c)
	}
	if !a.Write.zero() {
		c = a.Write
	}
	if op == Delete && !a.Delete.zero() {
		c = a.Delete
	}
	return clone(c)
}

func (c Callers) zero() bool { return len(c.Scopes) == 0 && len(c.Roles) == 0 }

func clone(c Callers) Callers {
	return Callers{Scopes: slices.Clone(c.Scopes), Roles: slices.Clone(c.Roles)}
}
