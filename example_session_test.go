package ferry_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/ferry-mcp/ferry"
)

// A session's state changes through one function, applied atomically: two
// updates that race each see what the other left.
func ExampleMemorySessionStore_Update() {
	ctx := context.Background()
	store := &ferry.MemorySessionStore{}
	_ = store.Create(ctx, &ferry.SessionState{ID: "s1", ProtocolVersion: ferry.Version20250618})

	err := store.Update(ctx, "s1", func(st *ferry.SessionState) error {
		if !slices.Contains(st.Subscriptions, "file:///readme.txt") {
			st.Subscriptions = append(st.Subscriptions, "file:///readme.txt")
		}
		return nil
	})
	fmt.Println(err)

	st, _ := store.Load(ctx, "s1")
	fmt.Println(st.Subscriptions)

	err = store.Update(ctx, "gone", func(*ferry.SessionState) error { return nil })
	fmt.Println(err)
	// Output:
	// <nil>
	// [file:///readme.txt]
	// ferry: session not found
}
