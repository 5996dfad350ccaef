package main

import (
	"context"
	"errors"
	"fmt"
)

// tools is not built yet.
func tools(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry tools (not built yet)")
		return nil
	}
	return errors.New("tools: not built yet")
}
