package redisstore_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/redisstore"
)

// Two replicas whose servers keep their tasks in one Redis serve each
// other's tasks: behind a round-robin balancer, a task started on one is
// polled on both until it completes.
func ExampleStore_Tasks() {
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rc.Close()
	store := redisstore.New(rc, &redisstore.Options{Prefix: "ferry-example-" + rand.Text() + ":"})
	defer store.Close()

	replicas := make([]http.Handler, 2)
	for i := range replicas {
		srv := ferry.NewServer("reports", "1.0.0", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{Store: store.Tasks()}})
		srv.AddTool(ferry.Tool{Name: "build_report", Description: "Builds the report.", ReadOnly: true, TaskSupport: ferry.TaskOptional},
			func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				return ferry.NewResult(ferry.Text("report ready")), nil
			})
		replicas[i] = ferry.NewHTTPHandler(srv, nil)
	}
	var next atomic.Int64
	balancer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replicas[next.Add(1)%2].ServeHTTP(w, r)
	})

	ctx := context.Background()
	c, err := client.DialHandler(ctx, balancer, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallToolAsTask(ctx, "build_report", nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	// Output: report ready
}
