package ferry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// AttackAuth is a struct a typed tool's input embeds or holds.
type AttackAuth struct {
	Caller *ferry.Principal
}

type (
	attackEmbedded struct {
		AttackAuth
		Note string `json:"note"`
	}
	attackByValue struct {
		Caller ferry.Principal
		Note   string `json:"note"`
	}
	attackNested struct {
		Meta *AttackAuth `json:"meta"`
		Note string      `json:"note"`
	}
	attackTwoPointers struct {
		Caller **ferry.Principal
		Note   string `json:"note"`
	}
	attackInSlice struct {
		Callers []ferry.Principal `json:"callers"`
	}
	// attackHiddenAuth is unexported, but embedded its exported fields are
	// promoted, and the decoder fills them.
	attackHiddenAuth struct {
		Caller *ferry.Principal
	}
	attackUnexportedEmbed struct {
		attackHiddenAuth
		Note string `json:"note"`
	}
)

// forged is a whole Principal as JSON, every member the schema of a
// Principal requires: a decoder that reads it would hand the handler a
// caller named root with the admin role.
const forged = `{"Subject":"root","Scopes":["*"],"Roles":["admin"],"Expires":"2999-01-01T00:00:00Z","Claims":{}}`

// A typed tool whose input holds a Principal anywhere but in a *Principal
// field of its own is refused at registration, Check says where, and a
// call that forges a whole Principal in the arguments reaches no handler:
// otherwise any client could name itself root.
func TestTypedToolRefusesAPrincipalTheArgumentsWouldFill(t *testing.T) {
	cases := []struct {
		name, args, where string
		add               func(*ferry.Server, func(*ferry.Principal))
	}{
		{"embedded", `{"note":"x","Caller":` + forged + `}`, "attackEmbedded.AttackAuth.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackEmbedded) (string, error) { saw(in.Caller); return "ran", nil })
		}},
		{"by value", `{"note":"x","Caller":` + forged + `}`, "attackByValue.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackByValue) (string, error) { saw(&in.Caller); return "ran", nil })
		}},
		{"nested", `{"note":"x","meta":{"Caller":` + forged + `}}`, "attackNested.Meta.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackNested) (string, error) {
				if in.Meta != nil {
					saw(in.Meta.Caller)
				}
				return "ran", nil
			})
		}},
		{"two pointers", `{"note":"x","Caller":` + forged + `}`, "attackTwoPointers.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackTwoPointers) (string, error) {
				if in.Caller != nil {
					saw(*in.Caller)
				}
				return "ran", nil
			})
		}},
		{"embedded unexported", `{"note":"x","Caller":` + forged + `}`, "attackUnexportedEmbed.attackHiddenAuth.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackUnexportedEmbed) (string, error) { saw(in.Caller); return "ran", nil })
		}},
		{"in a slice", `{"callers":[` + forged + `]}`, "attackInSlice.Callers", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackInSlice) (string, error) {
				for i := range in.Callers {
					saw(&in.Callers[i])
				}
				return "ran", nil
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
			var forgedSeen []string
			c.add(srv, func(p *ferry.Principal) {
				if p != nil {
					forgedSeen = append(forgedSeen, p.Subject)
				}
			})
			err := srv.Check()
			if err == nil || !strings.Contains(err.Error(), c.where+" holds a ferry.Principal") {
				t.Errorf("Check() = %v, want it to name %s", err, c.where)
			}
			in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + c.args + `,` + modernMeta + `}}` + "\n"
			var out strings.Builder
			_ = srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out})
			if forgedSeen != nil || strings.Contains(out.String(), `"text":"ran"`) {
				t.Errorf("the handler ran with the forged principal %v: %s", forgedSeen, out.String())
			}
		})
	}
}

// A *Principal field of In itself stays allowed next to a struct that
// holds none.
func TestTypedToolWithOwnPrincipalFieldPassesCheck(t *testing.T) {
	type note struct{ Text string }
	type in struct {
		Caller *ferry.Principal `json:"-"`
		Notes  []note           `json:"notes"`
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "t", Description: "d"}, func(context.Context, in) (string, error) { return "ran", nil })
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
}

// attackTree is a recursive input type: the walk for stray principals
// ends on it.
type attackTree struct {
	Name     string        `json:"name"`
	Children []*attackTree `json:"children,omitempty"`
}

// A recursive input type with no Principal passes Check.
func TestTypedToolWithRecursiveInputPassesCheck(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "t", Description: "d"}, func(context.Context, attackTree) (string, error) { return "ran", nil })
	if err := srv.Check(); err != nil && strings.Contains(err.Error(), "Principal") {
		t.Fatal(err)
	}
}
