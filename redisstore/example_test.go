package redisstore_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/redisstore"
)

// A store made with New uses a client the caller configured, here a single
// node; a Sentinel or Cluster client (redis.NewUniversalClient) fits the
// same way. The caller closes the client.
func ExampleNew() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	store := redisstore.New(client, &redisstore.Options{Prefix: "ferry-example:", MaxSessions: 1000})
	defer store.Close()

	ctx := context.Background()
	id := rand.Text() // the handler makes random ids too
	if err := store.Create(ctx, &ferry.SessionState{ID: id, ProtocolVersion: ferry.Version20250618}); err != nil {
		log.Fatal(err)
	}
	err := store.Update(ctx, id, func(st *ferry.SessionState) error {
		st.LogLevel = "warning"
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	st, err := store.Load(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.ProtocolVersion, st.LogLevel)
	fmt.Println(store.Delete(ctx, id))
	_, err = store.Load(ctx, id)
	fmt.Println(err)
	// Output:
	// 2025-06-18 warning
	// <nil>
	// ferry: session not found
}

// Replicas that Dial the same Redis with the same prefix share their
// stateful sessions and relay: any of them serves any request of a
// session.
func ExampleDial() {
	ctx := context.Background()
	store, err := redisstore.Dial(ctx, "redis://127.0.0.1:6379/0", &redisstore.Options{Prefix: "ferry-example:"})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // Dial made the client, so Close closes it

	srv := ferry.NewServer("orders", "1.0.0", nil)
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store}))
	defer ts.Close()
	fmt.Println(store) // the name clients see when the store fails
	// Output:
	// redis
}

// Every store sharing a prefix receives what any of them publishes, its
// own messages included. The handler does this for its stateful sessions.
func ExampleStore_Publish() {
	ctx := context.Background()
	store, err := redisstore.Dial(ctx, "redis://127.0.0.1:6379/0", &redisstore.Options{Prefix: "ferry-example-relay:"})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	got := make(chan string, 1)
	stop := store.Subscribe(func(msg []byte) {
		select { // deliver must not block
		case got <- string(msg):
		default:
		}
	})
	defer stop()
	if err := store.Publish(ctx, []byte("hello, replicas")); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-got)
	// Output:
	// hello, replicas
}
