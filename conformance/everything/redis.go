//go:build ferry_redisstore

package main

import (
	"context"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/redisstore"
)

// dialRedis opens the Redis session store at url, its keys under prefix,
// and returns it with the function that closes it.
func dialRedis(ctx context.Context, url, prefix string) (ferry.SessionStore, func() error, error) {
	s, err := redisstore.Dial(ctx, url, &redisstore.Options{Prefix: prefix})
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}
