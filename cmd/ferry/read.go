package main

import (
	"context"
	"errors"
	"fmt"
)

// read is not built yet.
func read(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry read (not built yet)")
		return nil
	}
	return errors.New("read: not built yet")
}
