package main

import (
	"context"
	"errors"
	"fmt"
)

// lint is not built yet.
func lint(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry lint (not built yet)")
		return nil
	}
	return errors.New("lint: not built yet")
}
