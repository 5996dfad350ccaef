package main

import (
	"context"
	"errors"
	"fmt"
)

// serve is not built yet.
func serve(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry serve (not built yet)")
		return nil
	}
	return errors.New("serve: not built yet")
}
