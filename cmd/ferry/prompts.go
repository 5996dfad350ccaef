package main

import (
	"context"
	"errors"
	"fmt"
)

// prompts is not built yet.
func prompts(_ context.Context, args []string, e *env) error {
	if len(args) > 0 && args[0] == "-h" {
		fmt.Fprintln(e.stdout, "usage: ferry prompts (not built yet)")
		return nil
	}
	return errors.New("prompts: not built yet")
}
