package main

import (
	"context"
	"errors"
	"fmt"
)

// call is not built yet.
func call(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry call (not built yet)")
		return nil
	}
	return errors.New("call: not built yet")
}
