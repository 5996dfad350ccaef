package main

import (
	"context"
	"errors"
	"fmt"
)

// demo is not built yet.
func demo(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry demo (not built yet)")
		return nil
	}
	return errors.New("demo: not built yet")
}
