//go:build !ferry_redisstore

package main

import (
	"context"
	"errors"

	"github.com/ferry-mcp/ferry"
)

// dialRedis fails: module redisstore has not landed yet. Build with
// -tags ferry_redisstore (and a go.work that has ./redisstore) for the
// real one, in redis.go.
func dialRedis(context.Context, string, string) (ferry.SessionStore, func() error, error) {
	return nil, nil, errors.New("-redis: this build of the fixture has no Redis store (module redisstore has not landed)")
}
